"""Draws of a claim's statistic over a run's logged cells, for its power (:mod:`lib.claim_power`).

Paper 000's notebooks E06, E07, E10 and E11 test extremes and averages over cells: the largest |error| over
curvatures, the largest recovered share over distances, the mean within-model rank correlation over models. Each
cell carries a logged standard error, so the statistic's distribution at this run's size follows by redrawing
every cell around a truth with its own s.e.: the paper's value for ``if_paper``, the named null's for ``if_null``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from lib import claim_power
from lib.claim_power import DRAWS


def _cells(offset: ArrayLike, se: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    offset, se = (np.asarray(v, dtype=float).ravel() for v in np.broadcast_arrays(offset, se))
    keep = np.isfinite(offset) & np.isfinite(se)
    return offset[keep], se[keep]


def max_error_draws(offset: ArrayLike, se: ArrayLike, *, absolute: bool = False, n: int = DRAWS,
                    seed: int = 0) -> np.ndarray:
    """``n`` draws of max_i (offset_i + se_i·Z_i), or of max_i |offset_i + se_i·Z_i| when ``absolute``: the largest
    (absolute) error over cells whose estimates carry s.e. ``se_i`` when the truth sits ``offset_i`` from the
    reference. Cells with a non-finite offset or s.e. are left out; with none left every draw is NaN."""
    offset, se = _cells(offset, se)
    if not offset.size:
        return np.full(n, np.nan)
    errors = offset + se * np.random.default_rng(seed).standard_normal((n, offset.size))
    return (np.abs(errors) if absolute else errors).max(axis=1)


def max_abs_z_draws(offset: ArrayLike, se: ArrayLike, *, n: int = DRAWS, seed: int = 0) -> np.ndarray:
    """``n`` draws of max_i |offset_i/se_i + Z_i| over the cells with se_i > 0: the largest |error| in Monte Carlo
    s.e. when the truth sits ``offset_i`` from the reference."""
    offset, se = _cells(offset, se)
    keep = se > 0
    return max_error_draws(offset[keep] / se[keep], 1.0, absolute=True, n=n, seed=seed)


def mean_spearman_draws(references: Sequence[ArrayLike], truths: Sequence[ArrayLike], ses: Sequence[ArrayLike], *,
                        n: int = DRAWS, seed: int = 0) -> np.ndarray:
    """``n`` draws of the mean over groups of Spearman's ρ between each group's ``reference`` order and its
    ``truth`` measured with s.e. ``se`` (:func:`lib.claim_power.spearman_draws`): the mean within-group rank
    correlation a run of this size would report if each group's true values were its ``truth``."""
    if not references:
        return np.full(n, np.nan)
    return np.mean([claim_power.spearman_draws(r, t, s, n=n, seed=seed + i)
                    for i, (r, t, s) in enumerate(zip(references, truths, ses, strict=True))], axis=0)


def mean_independent_spearman_draws(sizes: Sequence[int], *, n: int = DRAWS, seed: int = 0) -> np.ndarray:
    """``n`` draws of the mean over groups of Spearman's ρ between a fixed order and a random permutation of each
    group's ``sizes[i]`` items: its distribution when every group's two orders are independent."""
    if not sizes:
        return np.full(n, np.nan)
    return np.mean([claim_power.independent_spearman_draws(int(m), n=n, seed=seed + i)
                    for i, m in enumerate(sizes)], axis=0)
