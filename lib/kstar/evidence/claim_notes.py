"""The populations, notes and mechanisms of K01's and K02's claims, read from the tables the notebooks log.

Each function turns a logged table (the ceilings and their test splits, a k* table, a control's comparison with
the main protocol) into what a claim needs beside its value: the cells a statistic is defined on (a factor
between counts needs two finite counts of a readable task, A.1.6 and Table 15), a note on the population
(:func:`split_note`: a task whose small test split lets its ceiling swing, A.1.8), or the mechanism of a failure
naming the file it reads (:func:`ceiling_change_mechanism`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from lib.kstar.order import order
from lib.kstar.protocol import rules

if TYPE_CHECKING:
    from lib.kstar.tasks.tasks import TaskPool

CELL = ["model", "task"]
#: A.1.8: 1.96·s.e. of the ceiling lies below the gap in 99.4% of the 941 readable class decisions.
PAPER_SE_WITHIN_GAP = 0.994
#: The share under that claim's null: the ceiling's error as large as the gap, below it for half the decisions.
NULL_SE_WITHIN_GAP = 0.5
#: The largest ceiling difference the paper calls unmoved (A.2 summary (2): "ceilings move by at most 0.03"); its
#: near-equal pair (A.1.1) differs by 1.0000 − 0.9785 = 0.0215.
NEAR_CEILINGS = 0.03


# --------------------------------------------------------------------------- test-split precision (A.1.8)


def split_precision(ceilings: pd.DataFrame) -> pd.DataFrame:
    """Per model and task, from :func:`lib.kstar.protocol.counts.window_ceilings`: the test split's size, the median
    over
    decisions of the ceiling C, of its Hanley–McNeil s.e. (Eq. 20) and of the gap C − τ, the range of the s.e.,
    and whether the s.e. exceeds the gap (A.1.8): where it does, τ and the count it sets move with the test
    split's noise."""
    table = ceilings.assign(n_test=ceilings.n_test_pos + ceilings.n_test_neg).groupby(CELL, sort=False).agg(
        n_test=("n_test", "min"), ceiling=("ceiling", "median"), se=("se", "median"), gap=("gap", "median"),
        se_min=("se", "min"), se_max=("se", "max")).reset_index()
    table["se_above_gap"] = table.se > table.gap
    return table


def split_note(precision: pd.DataFrame, tasks: Iterable[str] | None = None) -> str:
    """A note on the tasks a statistic reads (every task of ``precision`` when ``tasks`` is None): how many model ×
    task cells have a ceiling s.e. above their gap C − τ, and each task whose test split is smaller than the
    run's largest, with its size, s.e. and gap."""
    rows = precision if tasks is None else precision[precision.task.isin(list(tasks))]
    if rows.empty:
        return ""
    largest = int(precision.n_test.max())
    parts = [f"{int(rows.se_above_gap.sum())} of {len(rows)} model × task cells have a ceiling s.e. (Eq. 20) above "
             "their gap C − τ"]
    for task, task_cells in rows[rows.n_test < largest].groupby("task", sort=False):
        parts.append(f"{task}'s test split holds {int(task_cells.n_test.min())} texts (the others up to {largest}): "
                     f"its ceiling's s.e. {task_cells.se_min.min():.3f}–{task_cells.se_max.max():.3f} against a gap "
                     f"of {task_cells.gap.min():.3f}–{task_cells.gap.max():.3f}")
    return "; ".join(parts)


# --------------------------------------------------------------------------- counts (A.1.1, Table 15)


def count_span_note(tasks: pd.DataFrame) -> str:
    """How far the finite counts of readable tasks (A.1.6 flag) spread on each model: the largest ratio any two of
    one model's readable tasks could show, near-equal ceilings or not."""
    cells = tasks[~tasks.flagged & np.isfinite(tasks.kstar)]
    spans = {model: (mine.kstar.min(), mine.kstar.max()) for model, mine in cells.groupby("model", sort=False)
             if len(mine) > 1}
    if not spans:
        return "no model has two readable tasks with finite counts"
    model, (low, high) = max(spans.items(), key=lambda item: item[1][1] / item[1][0])
    return (f"the finite counts of one model's readable tasks span at most a factor {high / low:.3g} ({model}: "
            f"{low:g} to {high:g}), so no pair of this panel can differ by more")


def log2_near_ceiling_ratio(tasks: pd.DataFrame, tolerance: float = NEAR_CEILINGS) -> float:
    """log2 of the largest k* ratio between two readable tasks of one model with finite counts whose ceilings
    differ by at most ``tolerance`` (:func:`lib.kstar.order.order.largest_ratio_near_ceiling`; A.1.1: 4 vs 256 at
    ceilings 1.0000 and 0.9785, log2 64 = 6); NaN when no such pair exists."""
    return float(np.log2(order.largest_ratio_near_ceiling(tasks, tolerance)))


def _readable_and_finite(compare: pd.DataFrame, cut: float) -> pd.Series:
    return (np.isfinite(compare.kstar_main) & np.isfinite(compare.kstar_control)
            & (compare.ceiling_main > cut) & (compare.ceiling_control > cut))


def readable_factors(compare: pd.DataFrame, cut: float = rules.READABLE_ABOVE) -> pd.Series:
    """Per task of a control's comparison (:func:`lib.kstar.protocol.counts.compare_tables`): the factor max(r, 1/r) by
    which the control moves k* (r = control / main), on the tasks whose ceiling lies above the readability
    ``cut`` in both readings and whose count is finite in both: the only ones where a factor between counts is
    defined (a flagged count is not read as a task size, A.1.6; ∞ has no ratio)."""
    kept = compare[_readable_and_finite(compare, cut)]
    return pd.Series(np.maximum(kept.ratio, 1 / kept.ratio).to_numpy(), index=kept.task, name="factor")


def left_out_note(compare: pd.DataFrame, cut: float = rules.READABLE_ABOVE) -> str:
    """The tasks :func:`readable_factors` leaves out, each with why."""
    parts = []
    for row in compare[~_readable_and_finite(compare, cut)].itertuples():
        low = min(row.ceiling_main, row.ceiling_control)
        why = (f"ceiling {low:.3f} ≤ {cut:g}, flagged" if low <= cut
               else "∞ in " + ("both readings" if np.isinf(row.kstar_main) and np.isinf(row.kstar_control)
                               else "one reading"))
        parts.append(f"{row.task} ({why})")
    return "left out: " + ", ".join(parts) if parts else ""


# --------------------------------------------------------------------------- ceilings under a control


def text_lengths(pools: Mapping[str, TaskPool]) -> pd.DataFrame:
    """Per task pool: its test split's size and the median number of whitespace-separated words per test text."""
    return pd.DataFrame([{"task": task, "n_test": len(pool.texts_test),
                          "median_words": float(np.median([len(text.split()) for text in pool.texts_test]))}
                         for task, pool in pools.items()], columns=["task", "n_test", "median_words"])


def ceiling_change_mechanism(compare: pd.DataFrame, lengths: pd.DataFrame, compare_file: str, lengths_file: str,
                             cut: float = rules.READABLE_ABOVE) -> str:
    """The mechanism of a control's largest ceiling change: which task carries it, that task's words per text
    against the others', its ceiling in both readings, and how far the other tasks move."""
    worst = compare.loc[compare.ceiling_change.abs().idxmax()]
    others = compare[compare.task != worst.task]
    words = lengths.set_index("task").median_words
    other_words = words.drop(index=worst.task, errors="ignore")
    flag = f" (flagged: ≤ {cut:g})" if worst.ceiling_main <= cut else ""
    median = words.get(worst.task, np.nan)
    text = (f"the change is {worst.task}'s, whose texts hold a median of {median:g} word{'' if median == 1 else 's'} "
            + (f"against {other_words.min():g}–{other_words.max():g} for the other tasks " if len(other_words) else "")
            + f"({lengths_file}): its ceiling goes from {worst.ceiling_main:.3f}{flag} to {worst.ceiling_control:.3f}")
    if len(others):
        text += f", while the other {len(others)} tasks move by at most {others.ceiling_change.abs().max():.3f}"
    return text + f" ({compare_file})"
