"""The cells of a logged paper-000 table that a claim reads, with the standard error logged beside them (E03, E09)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike


def extreme(frame: pd.DataFrame, column: str, largest: bool) -> tuple[float, float, float]:
    """(value, its logged ``<column>_se`` or NaN, replicates) of the row with the largest or smallest ``column``."""
    row = frame.loc[frame[column].idxmax() if largest else frame[column].idxmin()]
    return float(row[column]), float(row.get(f"{column}_se", np.nan)), float(row.reps)


def relative_kappa_se(rows: pd.DataFrame, error_column: str, pick: str) -> float:
    """s.e. of the relative κ̂ error in the cell a claim reads (``pick`` "median": the cell nearest the median
    |error|; "max": the largest): κ̂'s logged s.e. over κ; NaN with one replicate, whose s.e. is not estimable."""
    abs_error = rows[error_column].abs()
    row = rows.loc[(abs_error - abs_error.median()).abs().idxmin() if pick == "median" else abs_error.idxmax()]
    return float(row.kappa_hat_se / row.kappa) if row.reps > 1 else np.nan


def median_cell_se(values: ArrayLike, se: ArrayLike) -> float:
    """s.e. of the median of cell ``values``, each with its own ``se``: that of the middle cell, or of the mean of
    the two middle cells for an even count (the median moves with the cell or cells it reads); NaN for none."""
    values, se = np.asarray(values, dtype=float), np.asarray(se, dtype=float)
    if not len(values):
        return float("nan")
    order = np.argsort(values, kind="stable")
    middle = np.unique(order[[(len(values) - 1) // 2, len(values) // 2]])
    return float(np.sqrt(np.sum(se[middle] ** 2)) / len(middle))
