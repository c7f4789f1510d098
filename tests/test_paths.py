"""lib.paths: one home for every path, all inside the repository."""

import re

import pytest

from lib import paths


def test_repository_root_and_layout():
    assert (paths.REPO_ROOT / "pyproject.toml").is_file()
    assert paths.results_dir("smoke", "x") == paths.REPO_ROOT / "results" / "smoke" / "x"
    assert paths.figures_index("default") == paths.REPO_ROOT / "figures" / "default" / "INDEX.md"
    assert paths.params_file("paper", "nb").relative_to(paths.REPO_ROOT).as_posix() == "params/paper/nb.yaml"
    assert paths.run_stamp("smoke", "nb").parent == paths.build_dir("smoke")


def test_relative_paths_round_trip_and_never_leave_the_repository():
    target = paths.results_dir("smoke", "nb") / "a.json"
    assert paths.relative_to_root(target) == "results/smoke/nb/a.json"
    assert paths.from_root("results/smoke/nb/a.json") == target
    with pytest.raises(ValueError):
        paths.relative_to_root(paths.REPO_ROOT.parent / "elsewhere")


def test_unknown_profile_is_refused_with_the_allowed_ones():
    with pytest.raises(ValueError, match="allowed: smoke, default, paper, extended"):
        paths.results_dir("fast", "nb")


def test_audit_file_names_both_models():
    path = paths.audit_file("smollm2-135m", "/models/my ckpt")
    assert path.parent == paths.RESULTS_DIR / "audits"
    assert re.fullmatch(r"smollm2-135m__my_ckpt-[0-9a-f]{8}\.json", path.name)
    assert paths.audit_file("Qwen/Qwen2.5-7B-Instruct", "gpt2").name == "Qwen--Qwen2.5-7B-Instruct__gpt2.json"


def test_audits_of_folders_sharing_their_last_component_get_different_names(tmp_path, monkeypatch):
    for parent in ("a", "b"):
        (tmp_path / parent / "harmful").mkdir(parents=True)
    first = paths.audit_file("minilm", str(tmp_path / "a" / "harmful"))
    second = paths.audit_file("minilm", str(tmp_path / "b" / "harmful"))
    assert first != second and first.name.startswith("minilm__harmful-") and second.name.startswith("minilm__harmful-")
    monkeypatch.chdir(tmp_path / "a")
    assert paths.audit_file("minilm", "harmful") == first  # the same folder however it is written
    assert paths.audit_file("minilm", "./harmful/") == first
