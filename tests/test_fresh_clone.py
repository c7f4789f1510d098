"""A fresh clone: the commands that find nothing logged say where the published reference run is, and
``figures`` skips every notebook without results in one line each, exiting 0."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import (
    CLAIM_CELL,
    REPO,
    TINY_NOTEBOOK,
    TOY_CATALOGUE,
    copy_finished,
    restore_notebooks,
    run_cli,
    tiny_repository,
)

from lib import published

POINTER = "a finished reference run is in published/ (profile default"


def _with_record(root: Path) -> Path:
    (root / "published").mkdir()
    shutil.copy2(REPO / "published" / published.RECORD, root / "published" / published.RECORD)
    return root


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A repository copy with every notebook, the tiny one, and the publication's record; nothing run yet."""
    return _with_record(tiny_repository(tmp_path / "repo"))


@pytest.fixture
def clone_ran_tiny(finished_tiny, tmp_path: Path) -> Path:
    """:func:`clone` after a smoke run of ZZ_tiny alone (a copy of the session's run, every notebook put back)."""
    return _with_record(restore_notebooks(copy_finished(finished_tiny[0], tmp_path / "repo")))


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


def test_claim_changes_with_nothing_run_is_one_line_not_every_published_claim_gone(clone):
    shutil.copytree(REPO / "published" / published.NOTEBOOKS, clone / "published" / published.NOTEBOOKS,
                    ignore=shutil.ignore_patterns("*.ipynb"))
    changes = run_cli(clone, "claims", "--profile", "default", "--changes")
    assert changes.returncode == 0, changes.stderr
    assert changes.stdout.splitlines() == [
        "nothing has run under profile default in this checkout: no verdicts to compare with published/"]


def test_figures_skips_each_notebook_without_results_in_one_line_and_exits_0(clone_ran_tiny):
    clone = clone_ran_tiny
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


def test_claim_changes_of_a_run_in_pieces_list_its_notebooks_alone_and_write_their_rows(clone):
    shutil.copytree(REPO / "published" / published.NOTEBOOKS, clone / "published" / published.NOTEBOOKS,
                    ignore=shutil.ignore_patterns("*.ipynb"))
    (clone / "notebooks" / "ZZ_tiny.py").write_text(TINY_NOTEBOOK + CLAIM_CELL)
    (clone / "lib" / "toy" / "claims").mkdir(exist_ok=True)
    (clone / "lib" / "toy" / "claims" / "ZZ_tiny.yaml").write_text(TOY_CATALOGUE)
    assert run_cli(clone, "run", "ZZ_tiny", "--profile", "smoke", "--quiet").returncode == 0
    changelog = clone / "CHANGES.md"
    changelog.write_text("## Toys\n\n### ZZ_tiny\n\n- a bullet\n")
    changes = run_cli(clone, "claims", "--profile", "smoke", "--changes", "--changelog", str(changelog))
    assert changes.returncode == 0, changes.stderr
    rows = [line.split("|")[1:4] for line in changes.stdout.splitlines() if line.startswith("| ZZ")]
    assert [[cell.strip() for cell in row] for row in rows] == [["ZZ_tiny", "toy", "paper"]]
    assert "1 claims changed verdict." in changes.stdout  # no published notebook it did not run reads gone
    [row] = [line for line in changelog.read_text().splitlines() if line.startswith("| `")]
    assert row.startswith("| `toy` (paper, holds) | ") and " · `" in row and "| new in the catalogue | holds |" in row
