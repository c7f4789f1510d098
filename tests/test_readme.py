"""lib.readme: the README results block is what the generator writes."""

from __future__ import annotations

from lib import paths, published, readme


def test_the_readme_block_is_what_the_generator_writes():
    text = (paths.REPO_ROOT / "README.md").read_text()
    assert readme.current_block(text) == readme.block(published.default_folder(), paths.REPO_ROOT), (
        "README.md's results block was edited by hand: run python -m lib readme")
    if published.record(published.default_folder()) is None:
        assert readme.current_block(text) == readme.NOTHING_YET
