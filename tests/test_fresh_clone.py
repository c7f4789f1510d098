"""A fresh clone: the commands that find nothing logged say where the published reference run is, and
``figures`` skips every notebook without results in one line each, exiting 0."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import REPO, run_cli, tiny_repository

from lib import published

POINTER = "a finished reference run is in published/ (profile default"


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A repository copy with every notebook, the tiny one, and the publication's record; nothing run yet."""
    root = tiny_repository(tmp_path / "repo")
    (root / "published").mkdir()
    shutil.copy2(REPO / "published" / published.RECORD, root / "published" / published.RECORD)
    return root


def test_list_claims_and_report_point_to_the_published_run(clone):
    listed = run_cli(clone, "list")
    assert listed.returncode == 0 and "done" not in listed.stdout
    assert f"nothing has run in this checkout yet; {POINTER}" in listed.stdout
    assert "open published/report/index.html in a browser" in listed.stdout
    claims = run_cli(clone, "claims", "--profile", "smoke")
    assert claims.returncode == 0 and "no claims under profile smoke" in claims.stdout
    assert f"nothing has run under profile smoke in this checkout; {POINTER}" in claims.stdout
    site = run_cli(clone, "report", "--profile", "smoke")
    assert site.returncode == 0, site.stderr
    assert f"it is empty: nothing has run under profile smoke in this checkout; {POINTER}" in site.stdout


def test_figures_skips_each_notebook_without_results_in_one_line_and_exits_0(clone):
    assert run_cli(clone, "run", "ZZ_tiny", "--profile", "smoke", "--quiet").returncode == 0
    redraw = run_cli(clone, "figures", "--profile", "smoke", "--quiet")
    assert redraw.returncode == 0 and "FAILED" not in redraw.stderr, redraw.stderr
    smoke = sorted(p.stem for p in (clone / "params" / "smoke").glob("*.yaml"))
    rows = {line.split()[1]: line.strip() for line in redraw.stdout.splitlines()
            if line.split()[:1] in (["ran"], ["skipped"])}
    assert sorted(rows) == smoke and rows["ZZ_tiny"].startswith("ran")
    for name in set(smoke) - {"ZZ_tiny"}:
        assert rows[name].startswith("skipped") and rows[name].endswith(
            f"no results to draw from; run it first: python -m lib run {name} --profile smoke")
    assert POINTER not in redraw.stdout  # something was drawn: no pointer
