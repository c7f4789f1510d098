"""lib.deltab_audit and ``python -m lib deltab``: ΔB between real offline models on the shared sentence sets."""

import json

import pytest
from conftest import run_cli

from lib import deltab_audit, paths, sentences


def test_audit_of_a_model_against_itself_is_zero():
    sets = sentences.load()  # 1,000 anchors ≥ 384 dimensions: the Procrustes map is unique
    table = deltab_audit.audit("minilm", "minilm", groups=["Women", "Men"], sets=sets)
    assert table.group.tolist() == ["Women", "Men"] and table.topic.tolist() == ["Gender", "Gender"]
    assert table[["delta_b", "seat_delta_b", "procrustes_seat_delta_b"]].abs().max().max() < 1e-6
    assert table.cka_drift.abs().max() < 1e-6


def test_unknown_group_is_refused():
    with pytest.raises(ValueError, match="unknown target group"):
        deltab_audit.check_groups(["Martians"])


def test_audit_command(tmp_path):
    out = tmp_path / "audit.json"
    result = run_cli(paths.REPO_ROOT, "deltab", "--reference", "minilm", "--audited", "minilm", "--groups", "Women",
                     "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text())["groups"][0]["group"] == "Women"
    bad = run_cli(paths.REPO_ROOT, "deltab", "--reference", "minilm", "--audited", "/no/such/model")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "is not a folder" in bad.stderr
    unknown = run_cli(paths.REPO_ROOT, "deltab", "--reference", "minilm", "--audited", "minilm", "--groups", "Martians")
    assert unknown.returncode == 2 and "unknown target group" in unknown.stderr
