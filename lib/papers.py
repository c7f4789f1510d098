"""The papers the companion reproduces, discovered as plugins: one record per paper package.

A paper is a package ``lib/<name>/`` whose ``paper`` module holds ``PAPER``, a :class:`Paper`: its id, title
and authors, the name prefixes of its notebooks, the module that registers their parameter schemas, and its
command-line commands. The core finds the packages by looking for that module (:func:`all_papers`) and never
names one: which paper a notebook belongs to, whose schemas validate it and which commands ``python -m lib``
offers all come from these records, so a fourth paper is a new package and needs no core edit.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache

from lib import paths

#: The module of a paper package that holds its record.
RECORD_MODULE = "paper"


@dataclass(frozen=True)
class Paper:
    """What the core needs to know about one paper package."""

    id: str  # "000", "001", …: how claims, the scoreboard and the report name it
    title: str  # the paper's title (or, when the text carries none, what it is about)
    authors: str  # as the paper names them; "" when the text we hold names none
    prefixes: tuple[str, ...]  # notebook names starting with one of these belong to the paper
    schemas: str  # the module whose import registers its notebooks' parameter schemas
    commands: Mapping[str, str] = field(default_factory=dict)  # command → module with add_parser() and run()
    # notebooks whose claims check the paper's own synthetic or closed-form settings, not real models (a claim's
    # catalogue entry may say otherwise: setting: real | synthetic)
    synthetic: tuple[str, ...] = ()
    package: str = ""  # filled in by discovery: "lib.<name>"

    def owns(self, notebook: str) -> bool:
        """Whether ``notebook`` (a name without ``.py``) belongs to this paper."""
        return notebook.startswith(self.prefixes)


@cache
def all_papers() -> tuple[Paper, ...]:
    """Every paper package under ``lib/`` (one with a ``paper`` module), ordered by id."""
    found = []
    for package in pkgutil.iter_modules([str(paths.LIB_DIR)]):
        if package.ispkg and (paths.LIB_DIR / package.name / f"{RECORD_MODULE}.py").is_file():
            module = importlib.import_module(f"lib.{package.name}.{RECORD_MODULE}")
            record: Paper = module.PAPER
            found.append(Paper(**{**record.__dict__, "package": f"lib.{package.name}"}))
    ids = [p.id for p in found]
    if len(set(ids)) != len(ids):
        raise RuntimeError(f"two paper packages declare the same id: {sorted(ids)}")
    return tuple(sorted(found, key=lambda p: p.id))


def paper_of(notebook: str) -> Paper | None:
    """The paper ``notebook`` belongs to, or None when no paper's prefixes match it."""
    owners = [p for p in all_papers() if p.owns(notebook)]
    if len(owners) > 1:
        raise RuntimeError(f"notebook {notebook!r} matches the prefixes of papers {[p.id for p in owners]}")
    return owners[0] if owners else None


def by_id(paper_id: str) -> Paper | None:
    """The paper with id ``paper_id``, or None."""
    return next((p for p in all_papers() if p.id == paper_id), None)


def register_schemas(papers: tuple[Paper, ...] | None = None) -> None:
    """Import the schemas modules of ``papers`` (None: every paper's), which registers their notebooks."""
    for paper in all_papers() if papers is None else papers:
        importlib.import_module(paper.schemas)


def commands() -> dict[str, str]:
    """Every paper's command-line commands: command name → the module that adds and runs it."""
    found: dict[str, str] = {}
    for paper in all_papers():
        for name, module in paper.commands.items():
            if name in found:
                raise RuntimeError(f"command {name!r} is declared by two papers")
            found[name] = module
    return found
