"""Draws of K03's statistics at a run's size, if the paper is right and if its null is (paper 002, A.2.1, A.2.3).

:mod:`lib.claim_power` weighs a claim's test by the share of draws of its statistic on which the test holds under
each hypothesis. The statistics of A.2.1 and A.2.3 are rank correlations over a few tasks, a permutation p, the
largest spread of a few ceilings or counts, and a Wilcoxon p over a few tasks; their sampling distributions on a
handful of tasks are far from normal, so they are simulated here at the run's size.

Rank correlations come from a Gaussian latent model of the task order: each model reads task t through a latent
value, the models' values correlate at Pearson r between any two models and at r_z with a text-side reading.
Spearman's ρ of a bivariate normal is (6/π)·arcsin(r/2) (Kendall & Gibbons, *Rank Correlation Methods*), so a
Spearman value ρ_s stated by the paper sets r = 2·sin(π·ρ_s/6) (:func:`pearson_for_spearman`). Independent
orders (r = 0) are the paper's own permutation null (A.2.1, "Permutation test"), without its ties.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
from scipy import stats

from lib.claim_power import DRAWS


def pearson_for_spearman(rho_s: float) -> float:
    """The Pearson r of a bivariate normal whose Spearman ρ is ``rho_s``: 2·sin(π·ρ_s/6)."""
    if not -1 <= rho_s <= 1:
        raise ValueError(f"rho_s={rho_s!r}; allowed: a correlation in [-1, 1]")
    return 2 * math.sin(math.pi * rho_s / 6)


def latent_tasks(n_tasks: int, n_models: int, rho_models: float, rho_text: float = 0.0, *, n: int = DRAWS,
                 seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(models, text): ``n`` draws of the latent values of ``n_tasks`` tasks in ``n_models`` models, shape
    (n, n_models, n_tasks), and of one text-side reading, shape (n, n_tasks). Any two models correlate at Spearman
    ``rho_models`` and each model with the text at ``rho_text`` (one shared factor u and the text z: model =
    r_z·z + √(r − r_z²)·u + √(1 − r)·e)."""
    if n_tasks < 2 or n_models < 1:
        raise ValueError(f"n_tasks={n_tasks}, n_models={n_models}; allowed: n_tasks >= 2, n_models >= 1")
    r, rz = pearson_for_spearman(rho_models), pearson_for_spearman(rho_text)
    if not rz * rz <= r + 1e-12:
        raise ValueError(f"rho_models={rho_models}, rho_text={rho_text}: no such model (the partial correlation "
                         "given the text would be negative)")
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n, 1, n_tasks))
    u = rng.standard_normal((n, 1, n_tasks))
    e = rng.standard_normal((n, n_models, n_tasks))
    models = rz * z + math.sqrt(max(r - rz * rz, 0.0)) * u + math.sqrt(max(1 - r, 0.0)) * e
    return models, z[:, 0]


def spearman_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman's ρ along the last axis of two arrays of one shape (ties averaged, ∞ at the top as
    :func:`lib.stats.spearman` ranks it); NaN where either side is constant."""
    ra, rb = stats.rankdata(a, axis=-1), stats.rankdata(b, axis=-1)
    ra, rb = ra - ra.mean(axis=-1, keepdims=True), rb - rb.mean(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (ra * rb).sum(axis=-1) / np.sqrt((ra**2).sum(axis=-1) * (rb**2).sum(axis=-1))


def pair_spearman_draws(n_tasks: int, n_models: int, pairs: Sequence[tuple[int, int]], rho_s: float, *,
                        n: int = DRAWS, seed: int = 0) -> np.ndarray:
    """Draws of Spearman's ρ (Eq. 25) of every pair in ``pairs`` over ``n_tasks`` tasks when the models share one
    order at pairwise ρ_s, shape (n, len(pairs)); ``rho_s`` = 0 is the null of independent orders."""
    models, _ = latent_tasks(n_tasks, n_models, rho_s, n=n, seed=seed)
    return np.stack([spearman_rows(models[:, i], models[:, j]) for i, j in pairs], axis=1)


def partial_from_spearman(r_ab: np.ndarray, r_az: np.ndarray, r_bz: np.ndarray) -> np.ndarray:
    """The partial rank correlation of A.2.1's text-level control from its three Spearman ρs
    (:func:`lib.stats.partial_spearman`), elementwise; NaN where a ρ with the control is ±1."""
    with np.errstate(invalid="ignore", divide="ignore"):
        denominator = np.sqrt((1 - r_az**2) * (1 - r_bz**2))
        return np.where(denominator > 0, (r_ab - r_az * r_bz) / denominator, np.nan)


def partial_median_draws(n_tasks: int, n_models: int, pairs: Sequence[tuple[int, int]], rho_models: float,
                         rho_text: float, *, n: int = DRAWS, seed: int = 0) -> np.ndarray:
    """Draws of the median over ``pairs`` of the partial rank correlation of two models' orders given one text-side
    reading (A.2.1, Table 13), with models at pairwise Spearman ``rho_models`` and each at ``rho_text`` with the
    text. The paper's −0.51 to −0.71 with the text and 0.93 between models give a partial near 0.89."""
    models, text = latent_tasks(n_tasks, n_models, rho_models, rho_text, n=n, seed=seed)
    with_text = [spearman_rows(models[:, i], text) for i in range(n_models)]
    partials = [partial_from_spearman(spearman_rows(models[:, i], models[:, j]), with_text[i], with_text[j])
                for i, j in pairs]
    return np.median(np.stack(partials, axis=1), axis=1)


def null_rho_for_partial(rho_text: float) -> float:
    """The model–model Spearman ρ at which the partial given the text is 0 (the text explains the whole agreement):
    the ρ_s whose Pearson value is r_z², r_z the Pearson value of ``rho_text``."""
    rz = pearson_for_spearman(rho_text)
    return 6 / math.pi * math.asin(rz * rz / 2)


def permutation_p(statistic: np.ndarray, null: np.ndarray) -> np.ndarray:
    """The permutation p of each draw of ``statistic`` against the ``null`` draws, (1 + #{null ≥ s})/(1 + N), as
    :func:`lib.stats.order_permutation_test` computes it."""
    ordered = np.sort(np.asarray(null, dtype=float))
    s = np.asarray(statistic, dtype=float)
    exceed = len(ordered) - np.searchsorted(ordered, s - 1e-12, side="left")
    return np.where(np.isfinite(s), (1 + exceed) / (1 + len(ordered)), np.nan)


def wilcoxon_p_draws(shift: float, sd: float, n_tasks: int, *, n: int = 2000, seed: int = 0) -> np.ndarray:
    """Draws of the two-sided Wilcoxon signed-rank p (A.2.3) over ``n_tasks`` per-task differences, each normal
    around ``shift`` with s.d. ``sd`` (exact p, as scipy gives it on a few tasks); 1 where every difference is 0."""
    if n_tasks < 1 or not sd >= 0:
        raise ValueError(f"n_tasks={n_tasks}, sd={sd}; allowed: n_tasks >= 1, sd >= 0")
    d = shift + sd * np.random.default_rng(seed).standard_normal((n, n_tasks))
    p = np.ones(n)
    moving = np.any(d != 0, axis=1)
    if moving.any():  # one vectorised call over the rows: the same p as row by row, without 2,000 scipy calls
        p[moving] = stats.wilcoxon(d[moving], axis=1).pvalue
    return p


def treatment_spread_draws(n_tasks: int, n_infinite: Sequence[int], n_flagged: Sequence[int],
                           pairs: Sequence[tuple[int, int]], rho_s: float, *, infinite_at_top: bool,
                           min_tasks: int = 3, n: int = 1000, seed: int = 0) -> np.ndarray:
    """Draws of the largest spread across the three treatments of A.2.1 (all: ∞ tied at the top; finite: tasks ∞
    in either model dropped; gated: flagged tasks dropped too) of the median, lowest and highest ρ over ``pairs``.
    Models share one order at Spearman ``rho_s``; model m reads ``n_infinite[m]`` tasks as ∞ — its widest tasks
    when ``infinite_at_top`` (an ∞ is a readout beyond the grid, as the paper's all treatment ranks it), tasks at
    random otherwise (the null: an ∞ is placed apart from the order) — and flags ``n_flagged[m]`` tasks at random.
    A treatment with fewer than ``min_tasks`` shared tasks gives NaN and drops out, as in the notebook."""
    models, _ = latent_tasks(n_tasks, len(n_infinite), rho_s, n=n, seed=seed)
    rng = np.random.default_rng([seed, 1])
    spreads = np.full(n, np.nan)
    for d in range(n):
        values, flagged = models[d].copy(), np.zeros_like(models[d], dtype=bool)
        for m, (k_inf, k_flag) in enumerate(zip(n_infinite, n_flagged, strict=True)):
            at = np.argsort(values[m])[n_tasks - k_inf:] if infinite_at_top else rng.permutation(n_tasks)[:k_inf]
            values[m, at] = np.inf
            flagged[m, rng.permutation(n_tasks)[:k_flag]] = True
        columns = []
        for treatment in ("all", "finite", "gated"):
            rhos = []
            for i, j in pairs:
                keep = np.ones(n_tasks, dtype=bool)
                if treatment != "all":
                    keep &= np.isfinite(values[i]) & np.isfinite(values[j])
                if treatment == "gated":
                    keep &= ~flagged[i] & ~flagged[j]
                rhos.append(spearman_rows(values[i, keep], values[j, keep]) if keep.sum() >= min_tasks else np.nan)
            rhos = np.asarray(rhos, dtype=float)
            rhos = rhos[np.isfinite(rhos)]
            columns.append([np.median(rhos), rhos.min(), rhos.max()] if len(rhos) else [np.nan] * 3)
        spreads[d] = _column_gap(np.asarray(columns))
    return spreads


def _column_gap(table: np.ndarray) -> float:
    """The largest spread over the treatments (rows) of any column, treatments without a value left out; NaN
    when fewer than two treatments have one."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        gap = np.nanmax(table, axis=0) - np.nanmin(table, axis=0)
    return float(np.nanmax(gap)) if np.isfinite(table).all(axis=1).sum() >= 2 else float("nan")


def common_value_draws(values: np.ndarray, ses: np.ndarray, *, log: bool, n: int = DRAWS,
                       seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(if the paper is right, if the null is) draws of the largest spread across models over tasks of a per-cell
    reading, ``values`` and their s.e. ``ses`` of shape (models, tasks), NaN where a cell does not enter.

    Paper: every model reads the task's common value (the mean over the models reading it) up to its s.e.
    Null: each model's readings are shuffled over the tasks (values unrelated across models: the permutation null
    of A.2.1). Spread: max/min on the count scale when ``log`` (σ_t of Eq. 24, ``values`` as log counts), max − min
    otherwise (the ceiling range); tasks read by fewer than two models drop out."""
    values, ses = np.asarray(values, dtype=float), np.asarray(ses, dtype=float)
    if values.ndim != 2 or values.shape != ses.shape:
        raise ValueError(f"values {values.shape} and ses {ses.shape}; allowed: two arrays of one (models, tasks) shape")
    if not values.size:
        return np.full(n, np.nan), np.full(n, np.nan)
    rng = np.random.default_rng(seed)
    present = np.isfinite(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        common = np.where(present, values, 0.0).sum(axis=0, keepdims=True) / present.sum(axis=0, keepdims=True)
    paper = np.where(np.isfinite(values), common + ses * rng.standard_normal((n, *values.shape)), np.nan)
    order = np.argsort(rng.random((n, *values.shape)), axis=-1)
    null = np.take_along_axis(np.broadcast_to(values, (n, *values.shape)), order, axis=-1)
    return _largest_spread(paper, log), _largest_spread(null, log)


def _largest_spread(draws: np.ndarray, log: bool) -> np.ndarray:
    """Per draw (axis 0): the largest over tasks (last axis) of the spread across models (axis 1) of the cells
    that enter; NaN where no task has two."""
    present = np.isfinite(draws)
    high = np.where(present, draws, -np.inf).max(axis=1)
    low = np.where(present, draws, np.inf).min(axis=1)
    spread = np.where(present.sum(axis=1) >= 2, high - low, -np.inf).max(axis=-1)
    spread = np.where(np.isfinite(spread), spread, np.nan)
    return np.exp(spread) if log else spread
