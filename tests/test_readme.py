"""lib.readme: the README results block is what the generator writes."""

from __future__ import annotations

import json

from lib import paths, published, readme


def test_the_readme_block_is_what_the_generator_writes():
    text = (paths.REPO_ROOT / "README.md").read_text()
    assert readme.current_block(text) == readme.block(published.default_folder(), paths.REPO_ROOT), (
        "README.md's results block was edited by hand: run python -m lib readme")
    if published.record(published.default_folder()) is None:
        assert readme.current_block(text) == readme.NOTHING_YET


def test_the_block_names_the_notebooks_a_partial_run_left_out(tmp_path):
    notebooks = tmp_path / published.NOTEBOOKS
    notebooks.mkdir()
    (tmp_path / published.RECORD).write_text(json.dumps({
        "profile": "default", "commit": "0" * 40, "dirty": False, "finished": "2026-12-02T00:00:00",
        "notebooks": ["00_theory_checks"]}))
    (notebooks / "00_theory_checks.manifest.json").write_text(json.dumps({"title": "Theory checks"}))
    text = readme.block(tmp_path, tmp_path)
    assert "| 00_theory_checks | Theory checks | no claims |" in text
    left_out = text.splitlines()[-1]
    assert left_out.startswith("Not in this reference run (profile `default`): ")
    assert "D01_deltab" in left_out and "K01_kstar" in left_out and "00_theory_checks" not in left_out
