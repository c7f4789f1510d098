"""lib.papers: papers found as plugins; a fourth one is a package with a record and needs no core edit."""

import json

import pytest
from conftest import CLAIM_CELL, REPO, TINY_NOTEBOOK, TOY_CATALOGUE, run_cli, tiny_repository

from lib import config, papers


def test_each_notebook_of_the_repository_has_its_papers_record():
    assert papers.paper_of("E01_regimes").id == "000" and papers.paper_of("00_theory_checks").id == "000"
    assert papers.paper_of("A01_audit_your_model").id == "000" and papers.paper_of("D02_deltab_ablations").id == "001"
    assert papers.paper_of("K08_label_budget").id == "002" and papers.paper_of("Q01_unknown") is None
    assert papers.by_id("001").authors.startswith("Marek Jeliński") and papers.by_id("123") is None
    assert papers.commands() == {"power": "lib.bias_probes.cli", "deltab": "lib.bias_shift.cli",
                                 "kstar": "lib.kstar.cli"}


def test_validating_a_notebook_imports_only_its_own_papers_schemas():
    import subprocess
    import sys

    code = ("import sys; from lib import config; config.schema_for('E08_leakage'); "
            "print(sorted(m for m in sys.modules if m.endswith('.schemas')))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['lib.bias_probes.schemas']"


def test_a_notebook_of_no_paper_is_refused_naming_the_known_ones():
    with pytest.raises(config.ConfigError, match="notebook 'Q01_unknown' has no parameter schema.*Known: 00_theory"):
        config.schema_for("Q01_unknown")


def test_a_fourth_paper_needs_no_core_edit_and_runs_under_smoke(tmp_path):
    root = tiny_repository(tmp_path, only_tiny=True)  # the toy paper: lib/toy/ with its record and schema
    (root / "notebooks" / "ZZ_tiny.py").write_text(TINY_NOTEBOOK + CLAIM_CELL)
    (root / "lib" / "toy" / "claims").mkdir()
    (root / "lib" / "toy" / "claims" / "ZZ_tiny.yaml").write_text(TOY_CATALOGUE)
    core = sorted(p.relative_to(root) for p in (root / "lib").rglob("*.py") if "toy" not in p.parts)
    assert all((root / p).read_bytes() == (REPO / p).read_bytes() for p in core)  # no core file edited
    result = run_cli(root, "run", "ZZ_tiny", "--profile", "smoke", "--quiet")
    assert result.returncode == 0, result.stderr
    [row] = json.loads((root / "results" / "smoke" / "ZZ_tiny" / "claims.json").read_text())
    assert row["paper"] == "999" and row["id"] == "toy"
    claims = run_cli(root, "claims", "--profile", "smoke")
    assert claims.returncode == 0 and "999" in claims.stdout
