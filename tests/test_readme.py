"""lib.readme: the README results block is what the generator writes; the README stays a first page, and every
relative link of it and of docs/ resolves."""

from __future__ import annotations

import json
import re

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
    (notebooks / "00_theory_checks.manifest.json").write_text(json.dumps({"title": "00 · Theory checks"}))
    text = readme.block(tmp_path, tmp_path)
    assert "| [00_theory_checks](./notebooks/00_theory_checks.ipynb) | Theory checks | no claims |" in text
    left_out = text.splitlines()[-1]
    assert left_out.startswith("Not in this reference run (profile `default`): ")
    assert "D01_deltab" in left_out and "K01_kstar" in left_out and "00_theory_checks" not in left_out


def test_a_run_in_pieces_names_its_commits_and_the_one_its_sources_are(tmp_path):
    (tmp_path / published.NOTEBOOKS).mkdir()
    record = {"profile": "default", "commit": ["a" * 40, "b" * 40], "dirty": False,
              "finished": "2026-12-06T00:00:00", "notebooks": []}
    (tmp_path / published.RECORD).write_text(json.dumps(record))
    assert readme.block(tmp_path, tmp_path).startswith(
        f"Reference run: profile `default`, finished 2026-12-06, commits `{'a' * 12}`, `{'b' * 12}`; ")
    (tmp_path / published.RECORD).write_text(json.dumps({**record, "sources_commit": "b" * 40}))
    assert readme.block(tmp_path, tmp_path).startswith(
        f"Reference run: profile `default`, finished 2026-12-06, commits `{'a' * 12}`, `{'b' * 12}` (each notebook's "
        f"script, `lib` sources and parameters those of `{'b' * 12}`); ")


def _links(text: str) -> list[str]:
    """The targets of the Markdown links and images of ``text``, code blocks and inline code left out."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.findall(r"!?\[[^\]]*\]\(([^)\s]+)\)", text)


def _anchors(markdown: str) -> set[str]:
    """The anchors a forge gives a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#{1,6} +(.+?) *$", re.sub(r"^```.*?^```", "", markdown, flags=re.M | re.S), flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


def test_every_relative_link_of_the_readme_and_docs_resolves():
    pages = [paths.REPO_ROOT / "README.md", *sorted((paths.REPO_ROOT / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        for target in _links(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            file, _, anchor = target.partition("#")
            resolved = (page.parent / file).resolve() if file else page
            if not resolved.exists():
                broken.append(f"{page.relative_to(paths.REPO_ROOT)}: {target}")
            elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved.read_text(encoding="utf-8")):
                broken.append(f"{page.relative_to(paths.REPO_ROOT)}: {target} (no such heading)")
    assert not broken, "links that point nowhere:\n" + "\n".join(broken)


def test_the_readme_stays_a_first_page_and_links_each_doc():
    """The README holds the first minutes (about 12 KB with its results block); the rest lives in docs/, linked."""
    text = (paths.REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.encode()) < 16_000, "README.md grew past a first page: move the topic into docs/"
    for doc in sorted((paths.REPO_ROOT / "docs").glob("*.md")):
        assert f"(docs/{doc.name})" in text, f"README.md does not link docs/{doc.name}"
