"""lib.bias_shift.cli: ``python -m lib deltab`` between real offline models, and its one-line errors."""

import json

from conftest import run_cli

from lib import paths


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
