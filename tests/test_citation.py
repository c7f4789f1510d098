"""CITATION.cff, LICENSE and the README's paper list: the companion's citation, its three papers as references, one
licence stated alike everywhere, and where each paper can be found."""

from __future__ import annotations

import tomllib

import yaml

from lib import papers, paths

#: The code release paper 001 names (its abstract's footnote); the other two copies name no address.
CODE_001 = "https://github.com/NASK-AISafety/Reference-Based-Bias-Detection"


def _citation() -> dict:
    return yaml.safe_load((paths.REPO_ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def _project() -> dict:
    return tomllib.loads((paths.REPO_ROOT / "pyproject.toml").read_text())["project"]


def _has_author(person: dict) -> bool:
    """A CFF person names a family name, an entity a name."""
    return bool(person.get("family-names") or person.get("name"))


def test_the_citation_is_cff_1_2_0_for_this_release():
    found = _citation()
    assert found["cff-version"] == "1.2.0" and found["type"] == "software"
    assert {"message", "title", "authors"} <= set(found) and all(_has_author(a) for a in found["authors"])
    assert str(found["version"]) == _project()["version"]
    assert found["license"] == _project()["license"] == "MIT"
    assert (paths.REPO_ROOT / "LICENSE").read_text().startswith("MIT License\n")


def test_each_paper_is_a_reference_with_its_title_and_what_the_copy_names():
    references = _citation()["references"]
    assert [" ".join(r["title"].split()) for r in references] == [p.title for p in papers.all_papers()]
    for reference, paper in zip(references, papers.all_papers(), strict=True):
        assert {"type", "title", "authors"} <= set(reference) and all(_has_author(a) for a in reference["authors"])
        names = [f"{a.get('given-names', '')} {a.get('family-names', '')}".strip() for a in reference["authors"]]
        assert ", ".join(names) == paper.authors or not paper.authors
        assert reference["notes"].startswith(f"Paper {paper.id}.")
    assert references[1]["repository-code"] == CODE_001
    assert [r.get("repository-code") for r in references].count(None) == 2


def test_the_readme_says_where_each_paper_can_be_found():
    top = (paths.REPO_ROOT / "README.md").read_text().split("## ", 1)[0]
    entries = top.split("- **")[1:]
    assert [e[:3] for e in entries] == [p.id for p in papers.all_papers()]
    assert all("Where to find it:" in entry for entry in entries)
    assert CODE_001 in entries[1] and "CITATION.cff" in top and "LICENSE" in top
