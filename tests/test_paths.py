"""lib.paths: one home for every path, all inside the repository."""

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
    assert path.parent == paths.RESULTS_DIR / "audits" and path.name == "smollm2-135m__my_ckpt.json"
