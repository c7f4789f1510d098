"""The values paper 002 reports for a task (on one model, or summarised over its models) read on a measured k*
table: the task–model cells that match a reported value, their summary and why none is measured, for K01's claims
on them."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from lib.kstar.protocol import rules

#: How a reported value summarises its cells: the one cell, or the smallest, largest or median over models.
SUMMARIES = ("only", "min", "max", "median")


def cells(table: pd.DataFrame, task: str, model: str = "") -> pd.Series:
    """k* of ``task`` in ``table`` (columns ``model``, ``task``, ``kstar``), on the models whose lower-cased name
    ends with ``model`` (every model when empty: the paper's value over its ten base models)."""
    rows = table[table.task == task]
    return rows[rows.model.str.lower().str.endswith(model)].kstar if model else rows.kstar


def value(table: pd.DataFrame, task: str, model: str = "", how: str = "only") -> float:
    """The reported value's statistic on the matching cells (:func:`cells`): the first cell (``only``), or their
    smallest, largest or median (Eq. 15's median on N ∪ {∞}); NaN when no cell matches."""
    if how not in SUMMARIES:
        raise ValueError(f"how={how!r}; allowed: {', '.join(SUMMARIES)}")
    found = cells(table, task, model)
    if found.empty:
        return math.nan
    summary = {"only": lambda v: v.iloc[0], "min": lambda v: v.min(), "max": lambda v: v.max(),
               "median": lambda v: rules.ext_median(v)}[how]
    return float(summary(found))


def unmeasured(table: pd.DataFrame, models: Sequence[str], tasks: Sequence[str], task: str, model: str = "",
               extra: str = "") -> str:
    """Why a claim on the paper's ``task`` × ``model`` value is not measured ("" when ``table`` holds the cell and
    ``extra`` says nothing): the profile reads other models or tasks; ``extra`` adds a further reason."""
    if len(cells(table, task, model)):
        return extra
    return (f"the paper prints this value for {task} on {model or 'its ten base models'}; this profile reads "
            f"{', '.join(models)} on {', '.join(tasks)}, so no such cell is measured" + (f"; {extra}" if extra else ""))
