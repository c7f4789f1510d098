"""The template grid of prompts (paper 000, Sec. VI-A) and the WinoBias occupation lists (E11).

340 context cells (44 professions × 5 frames + 20 traits × 3 + 20 activities × 3) per bias
dimension; cell c holds one counterfactual minimal pair (marker pair c mod 8 of the dimension)
and the same context with each of the neutral heads "person" and "individual": 1,360 prompts per
dimension, 5,440 in all. The word lists live in ``data/prompts/`` (see its README); nothing here
is random. :func:`lib.bias_probes.purity.grid_pool` turns one dimension's rows and their features into
a pool, from which :func:`lib.bias_probes.purity.draw_purity_sample` draws datasets at purity α.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from lib import paths

DIMENSIONS: tuple[str, ...] = ("gender", "race", "religion", "age")
CONTENT_KINDS: tuple[str, ...] = ("profession", "trait", "activity")
COLUMNS: tuple[str, ...] = (
    "text", "dimension", "cell", "content_kind", "content", "frame", "pair", "marker", "group", "marked",
)
_CONTENT_FILES = {"profession": "professions.txt", "trait": "traits.txt", "activity": "activities.txt"}
# Words whose first letter misleads about their first sound (checked by lowercase prefix).
_AN_BEFORE_CONSONANT_LETTER = ("hour", "honest", "honor", "honour", "heir")
_A_BEFORE_VOWEL_LETTER = ("uni", "use", "usu", "euro", "one", "once", "ewe")


def prompts_dir() -> Path:
    """``data/prompts/``: the grid's word lists, frames and marker pairs."""
    return paths.DATA_DIR / "prompts"


def winobias_dir() -> Path:
    """``data/winobias/``: the WinoBias lists copied from uclanlp/corefBias (MIT; see SOURCE.md)."""
    return paths.DATA_DIR / "winobias"


def _read_lines(path: Path) -> list[str]:
    """Non-blank lines of a word list, stripped, without ``#`` comment lines."""
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def indefinite_article(phrase: str) -> str:
    """"a" or "an" before ``phrase``, by the sound of its first word (vowel letter, with exceptions)."""
    word = phrase.strip().lower()
    if not word:
        raise ValueError(f"phrase={phrase!r} is empty; allowed: a non-blank word or phrase")
    if word.startswith(_AN_BEFORE_CONSONANT_LETTER):
        return "an"
    if word.startswith(_A_BEFORE_VOWEL_LETTER):
        return "a"
    return "an" if word[0] in "aeiou" else "a"


@functools.cache
def _frames() -> dict[str, dict[str, str]]:
    frames = yaml.safe_load((prompts_dir() / "frames.yaml").read_text(encoding="utf-8"))
    if set(frames) != set(CONTENT_KINDS):
        raise ValueError(f"frames.yaml has kinds {sorted(frames)}; allowed: {', '.join(CONTENT_KINDS)}")
    for kind, templates in frames.items():
        for frame, template in templates.items():
            if "{head}" not in template or "{content}" not in template:
                raise ValueError(f"frame {kind}/{frame}={template!r} lacks a {{head}} or {{content}} slot")
    return frames


@functools.cache
def _markers() -> dict[str, object]:
    markers = yaml.safe_load((prompts_dir() / "markers.yaml").read_text(encoding="utf-8"))
    for dimension in DIMENSIONS:
        pairs = markers.get(dimension)
        if not pairs or any(len(pair) != 2 or pair[0] == pair[1] for pair in pairs):
            raise ValueError(f"markers.yaml: {dimension!r} needs a list of [group 0, group 1] pairs; got {pairs!r}")
    return markers


def marker_pairs(dimension: str) -> list[tuple[str, str]]:
    """The counterfactual marker pairs (group 0, group 1) of a dimension, in grid order."""
    return [(str(a), str(b)) for a, b in _markers()[check_dimension(dimension)]]


def neutral_heads() -> list[str]:
    """The demographically unmarked heads ("person", "individual") of the neutral pool."""
    return [str(head) for head in _markers()["neutral"]]


def check_dimension(dimension: str) -> str:
    """Return ``dimension`` if it is known, else raise naming the allowed ones."""
    if dimension not in DIMENSIONS:
        raise ValueError(f"dimension={dimension!r} is not a dimension; allowed: {', '.join(DIMENSIONS)}")
    return dimension


def context_cells() -> pd.DataFrame:
    """The 340 context cells (frame × content): ``cell``, ``content_kind``, ``content``, ``frame``, ``template``.

    Ordered by content kind, then content (file order), then frame (file order).
    """
    rows = []
    for kind in CONTENT_KINDS:
        templates = _frames()[kind]
        for content in _read_lines(prompts_dir() / _CONTENT_FILES[kind]):
            for frame, template in templates.items():
                rows.append({"content_kind": kind, "content": content, "frame": frame, "template": template})
    cells = pd.DataFrame(rows)
    cells.insert(0, "cell", np.arange(len(cells)))
    return cells


def _fill(template: str, head: str, content: str) -> str:
    return template.format(head=head, content=content, article=indefinite_article(content))


@functools.cache
def _grid() -> pd.DataFrame:
    cells = context_cells()
    neutral = neutral_heads()
    rows = []
    for dimension in DIMENSIONS:
        pairs = marker_pairs(dimension)
        for cell in cells.itertuples(index=False):
            base = {"dimension": dimension, "cell": cell.cell, "content_kind": cell.content_kind,
                    "content": cell.content, "frame": cell.frame}
            for group, head in enumerate(pairs[cell.cell % len(pairs)]):
                rows.append({**base, "pair": cell.cell, "marker": head, "group": group, "marked": True,
                             "text": _fill(cell.template, head, cell.content)})
            for head in neutral:
                rows.append({**base, "pair": -1, "marker": head, "group": -1, "marked": False,
                             "text": _fill(cell.template, head, cell.content)})
    grid = pd.DataFrame(rows, columns=list(COLUMNS))
    return grid.astype({"cell": "int64", "pair": "int64", "group": "int64", "marked": "bool"})


def template_grid() -> pd.DataFrame:
    """One row per prompt of the grid (paper 000, Sec. VI-A): 5,440 rows, deterministic.

    Columns: ``text``; ``dimension``; ``cell`` (0..339, the same context across dimensions);
    ``content_kind`` (profession/trait/activity); ``content``; ``frame`` (frame id); ``pair`` (the
    cell id for a marked row — one minimal pair per cell — and −1 for a neutral one); ``marker``
    (the head phrase); ``group`` (0/1 = first/second member of the marker pair, −1 neutral);
    ``marked``. Rows run by dimension, then cell, then group 0, group 1, "person", "individual".
    """
    return _grid().copy()


def dimension_rows(grid: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """One dimension's rows of ``grid``, in grid order (the order its pool and features follow)."""
    check_dimension(dimension)
    missing = [column for column in ("dimension", "cell", "pair", "group", "text") if column not in grid.columns]
    if missing:
        raise ValueError(f"grid lacks columns {missing}; allowed: a frame from template_grid()")
    rows = grid[grid["dimension"] == dimension]
    if rows.empty:
        raise ValueError(f"grid has no rows of dimension={dimension!r}")
    return rows


def winobias_occupations() -> dict[str, list[str]]:
    """The WinoBias occupation lists (Zhao et al., 2018; E11): {"male": [...], "female": [...]}.

    Male- and female-dominated occupations (US labor statistics) from ``data/winobias/``, in file
    order, blank and ``#`` lines dropped.
    """
    return {key: _read_lines(winobias_dir() / f"{key}_occupations.txt") for key in ("male", "female")}
