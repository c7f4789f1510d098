"""Draws of K01's and K02's claim statistics at a run's size: resampled seeds, permuted orders, null maxima.

A task value k* is the median over seeds of per-seed task values (paper 002, A.1.6, Eq. 16); the five seeds are
85% training subsamples on one fixed test split, and the seed range reports how far a count moves with them.
Resampling the seeds with replacement and taking the median again gives the run's own spread of each task value
(:func:`resampled_values`). The thresholds stay those of the run (the ceilings and τ are held fixed), so the spread
is the training-subsample part; the test split is shared by the main protocol and every estimator control, so its
noise moves both alike. From it:

* :func:`self_agreement_draws`: Spearman ρ (A.1.11, Eq. of Table 19) between a model's task order and a
  seed-resampled copy of itself, median over models: what a control whose true order is the main one (the
  paper's reading, ρ 0.97 to 0.99) reports at this size; :func:`permuted_agreement_draws`: the same against a
  random permutation of the values (independent orders, the paper's null);
* :func:`noise_ratios` and :func:`factor_draws`: the factor max(r, 1/r) between two measurements of one count
  (Table 15) when the control moves it by nothing or by a factor the paper states;
* :func:`ceiling_change_draws`: the largest change of a task ceiling between two seed resamples, shifted by a
  stated move under the null (Table 15, "ceilings move by at most 0.03");
* :func:`seed_se`: the s.e. of any statistic of the task table over seed resamples;
* :func:`null_max_z_draws`, :func:`readable_by_chance`, :func:`unreadable_share_draws`:
  the shuffled-label control (A.1.11, Table 7) as a family of independent null AUROCs, a conservative model (fits
  of one search are correlated, so their maximum is smaller), and :func:`family_ratio` with
  :func:`family_ratio_draws`, the search maximum over that family's level.

Every draw function returns ``None`` where the run holds fewer than two seeds: one seed has no seed spread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np
import pandas as pd
from scipy.stats import norm, rankdata

from lib.claim_power import DRAWS
from lib.kstar.protocol import counts, rules

CELL = ["model", "task"]


# --------------------------------------------------------------------------- per-seed task values


def per_seed_values(window: pd.DataFrame, frac: float = rules.FRAC, paths: Sequence[str] = counts.PATHS,
                    rule: str = "confirm") -> pd.DataFrame:
    """Per model, task and seed: the seed's task value (``value``) under a threshold ``frac``, search ``paths`` and
    layer ``rule`` as :func:`lib.kstar.protocol.counts.window_counts` reads them: the median over class decisions of the
    neighbour-confirmed counts (Eq. 16's inner median), or the best single layer's value; its median over seeds
    is the task's k*."""
    if rule not in ("confirm", "single"):
        raise ValueError(f"rule={rule!r}; allowed: 'confirm', 'single'")
    ceilings = counts.window_ceilings(window, frac)
    ceilings = ceilings[~ceilings.unreadable]
    local = counts.local_counts(window.merge(ceilings[counts.DECISION], on=counts.DECISION), ceilings, paths)
    if rule == "single":
        return counts.single_block_counts(local)
    confirmed = counts.confirmed_counts(local)
    return (confirmed.groupby([*CELL, "seed"], sort=False).confirmed.agg(rules.ext_median).astype(float)
            .rename("value").reset_index())


def seed_matrix(per_seed: pd.DataFrame) -> pd.DataFrame:
    """:func:`per_seed_values` as a (model, task) × seed table."""
    return per_seed.pivot(index=CELL, columns="seed", values="value").astype(float)


def resampled_values(values: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """(n, cells): the median over a resample of the seeds (the columns of ``values``, drawn with replacement,
    the same draw for every cell) of each cell's per-seed values; ∞ counts as the largest value (Eq. 15)."""
    values = np.asarray(values, dtype=float)
    picks = rng.integers(0, values.shape[1], size=(n, values.shape[1]))
    return np.median(values[:, picks], axis=2).T


def _spearman_rows(reference: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Spearman ρ between ``reference`` and each row of ``rows`` (average ranks, ∞ tied at the top as
    :func:`lib.stats.spearman` ranks it); NaN for a constant row."""
    a = rankdata(reference)
    b = rankdata(rows, axis=1)
    a, b = a - a.mean(), b - b.mean(axis=1, keepdims=True)
    denominator = np.sqrt((a**2).sum()) * np.sqrt((b**2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, (b @ a) / denominator, np.nan)


def _median_over_models(per_model: list[np.ndarray]) -> np.ndarray | None:
    if not per_model:
        return None
    return pd.DataFrame(np.vstack(per_model)).median(axis=0).to_numpy()  # NaN-skipping, as the notebook's median


# --------------------------------------------------------------------------- task order (A.1.11, Table 19)


def _lowest(draws: list[np.ndarray | None]) -> np.ndarray | None:
    return None if any(d is None for d in draws) else np.min(draws, axis=0)


def self_agreement_draws(per_seed: pd.DataFrame, min_tasks: int, *, lowest_of: int = 1, n: int = DRAWS,
                         seed: int = 0) -> np.ndarray | None:
    """``n`` draws of the median over models of Spearman ρ between each model's task values (median over its
    seeds) and those of a seed resample: the agreement a control whose true task order is the main one reports
    at this run's size (models with fewer than ``min_tasks`` tasks skipped, as A.1.11 skips them); with
    ``lowest_of`` > 1, the lowest of that many independent such controls (the lowest over the threshold
    variants)."""
    matrix = seed_matrix(per_seed)
    if matrix.shape[1] < 2:
        return None
    rng = np.random.default_rng(seed)
    copies = []
    for _ in range(lowest_of):
        per_model = []
        for _, rows in matrix.groupby(level="model", sort=False):
            if len(rows) >= min_tasks:
                values = rows.to_numpy()
                per_model.append(_spearman_rows(np.median(values, axis=1), resampled_values(values, n, rng)))
        copies.append(_median_over_models(per_model))
    return _lowest(copies)


def permuted_agreement_draws(tasks: pd.DataFrame, min_tasks: int, *, lowest_of: int = 1, n: int = DRAWS,
                             seed: int = 0) -> np.ndarray | None:
    """``n`` draws of the median over models of Spearman ρ between each model's task values (``kstar``) and a
    random permutation of them (ties kept): the agreement of two independent task orders, the null of A.1.11
    ("the task order ... reshuffles under each variant"); ``lowest_of`` as in :func:`self_agreement_draws`."""
    rng = np.random.default_rng(seed)
    copies = []
    for _ in range(lowest_of):
        per_model = []
        for _, model_tasks in tasks.groupby("model", sort=False):
            if len(model_tasks) >= min_tasks:
                values = model_tasks.kstar.to_numpy(float)
                per_model.append(_spearman_rows(values, rng.permuted(np.tile(values, (n, 1)), axis=1)))
        copies.append(_median_over_models(per_model))
    return _lowest(copies)


# --------------------------------------------------------------------------- count factors (Table 15)


def noise_ratios(per_seed: pd.DataFrame, cells: Iterable[tuple[str, str]], *, n: int = DRAWS, seed: int = 0
                 ) -> np.ndarray | None:
    """(n, cells): the ratio of each cell's task values in two independent seed resamples: two measurements of one
    count that differ by seed noise alone (∞/∞ reads 1, as :func:`lib.kstar.protocol.counts.compare_tables` reads
    it)."""
    cells = list(cells)
    matrix = seed_matrix(per_seed)
    if matrix.shape[1] < 2 or not cells:
        return None
    values = matrix.loc[cells].to_numpy()
    rng = np.random.default_rng(seed)
    first, second = resampled_values(values, n, rng), resampled_values(values, n, rng)
    with np.errstate(invalid="ignore"):
        ratio = first / second
    return np.where(np.isnan(ratio), 1.0, ratio)


#: The factors by which the paper finds a basis or wording change moving counts (A.2 summary (2)).
PAPER_FACTORS = (1.5, 20.0)


def _factor(ratio: np.ndarray) -> np.ndarray:
    """max(r, 1/r); ∞ where r is 0 or ∞ (one side infinite)."""
    with np.errstate(divide="ignore"):
        return np.where((ratio > 0) & np.isfinite(ratio), np.maximum(ratio, 1 / ratio), np.inf)


def factor_draws(ratios: np.ndarray, *, smallest: bool, true_factors: tuple[float, float] | None = None,
                 seed: int = 0) -> np.ndarray:
    """Draws of the smallest (``smallest``) or largest factor max(r, 1/r) over cells, each r the noise ratio of
    :func:`noise_ratios` times a true move f^(±1): f log-uniform in ``true_factors`` with a random direction
    (A.2 summary (2): "by factors of 1.5 to 20"), or no move when ``true_factors`` is None (the control leaves
    counts where they are)."""
    ratios = np.asarray(ratios, dtype=float)
    if true_factors is not None:
        rng = np.random.default_rng(seed)
        low, high = np.log(true_factors[0]), np.log(true_factors[1])
        moves = np.exp(rng.uniform(low, high, ratios.shape) * rng.choice((-1.0, 1.0), ratios.shape))
        ratios = ratios * moves
    factors = _factor(ratios)
    return factors.min(axis=1) if smallest else factors.max(axis=1)


# --------------------------------------------------------------------------- ceilings (Table 15)


def _seed_ceilings(window: pd.DataFrame) -> pd.DataFrame:
    """(model, task, decision) × seed: the largest dense AUROC over the window's blocks at each seed; the common
    ceiling C of A.1.6 is its maximum over seeds. Decisions at or below chance are left out, as K01 leaves them."""
    dense = window[window.path == "dense"]
    table = dense.pivot_table(index=counts.DECISION, columns="seed", values="auroc", aggfunc="max")
    return table[table.max(axis=1) > 0.5]


#: The paper's bound on how far a basis change moves a ceiling (A.2 summary (2): "ceilings move by at most 0.03").
CEILING_BOUND = 0.03
#: The move of every ceiling under the null of a ceiling claim: twice the paper's bound.
NULL_CEILING_MOVE = 2 * CEILING_BOUND


def ceiling_change_draws(window: pd.DataFrame, cells: Iterable[tuple[str, str]], *, shift: float = 0.0,
                         n: int = DRAWS, seed: int = 0) -> np.ndarray | None:
    """``n`` draws of the largest |change| over ``cells`` of the task ceiling (median over decisions of C)
    between two seed resamples of the window, each change moved by ``shift`` in a random direction: with
    ``shift`` 0, a control that reads the same ceilings up to training noise; with ``shift`` > 0, one that moves
    every ceiling by that much."""
    table = _seed_ceilings(window)
    models, tasks = (table.index.get_level_values(level).to_numpy() for level in CELL)
    rows_of = {(m, t): (models == m) & (tasks == t) for m, t in cells}
    rows_of = {cell: rows for cell, rows in rows_of.items() if rows.any()}
    if table.shape[1] < 2 or not rows_of:
        return None
    rng = np.random.default_rng(seed)
    values = table.to_numpy(float)
    draws = [values[:, rng.integers(0, values.shape[1], size=(n, values.shape[1]))].max(axis=2) for _ in range(2)]
    changes = []
    for rows in rows_of.values():
        first, second = (np.median(d[rows], axis=0) for d in draws)
        changes.append(first - second + shift * rng.choice((-1.0, 1.0), n))
    return np.abs(np.vstack(changes)).max(axis=0)


# --------------------------------------------------------------------------- any statistic of the task table


def seed_se(per_seed: pd.DataFrame, tasks: pd.DataFrame, statistic: Callable[[pd.DataFrame], float], *,
            n: int = 1000, seed: int = 0) -> float:
    """The s.e. of ``statistic(table)`` over seed resamples: ``table`` is ``tasks`` (a k* table, one row per
    model and task) with ``kstar`` replaced by the resampled task values; NaN with fewer than two seeds, or
    fewer than two finite draws."""
    matrix = seed_matrix(per_seed)
    keys = list(zip(tasks.model, tasks.task, strict=True))
    if matrix.shape[1] < 2 or not keys or not set(keys) <= set(matrix.index):
        return float("nan")
    draws = resampled_values(matrix.loc[keys].to_numpy(), n, np.random.default_rng(seed))
    values = np.array([statistic(tasks.assign(kstar=row)) for row in draws], dtype=float)
    finite = values[np.isfinite(values)]
    return float(finite.std(ddof=1)) if len(finite) > 1 else float("nan")


# --------------------------------------------------------------------------- the shuffled-label control


def null_max_z_draws(fits: int, *, n: int = DRAWS, seed: int = 0) -> np.ndarray:
    """``n`` draws of the largest of ``fits`` independent standard normal z scores (P(max ≤ x) = Φ(x)^fits): the
    search maximum on label noise if every fit were independent; correlated fits give smaller maxima."""
    if fits < 1:
        raise ValueError(f"fits={fits}; allowed: >= 1")
    u = np.random.default_rng(seed).random(n)
    return norm.isf(-np.expm1(np.log(u) / fits))


def readable_by_chance(window: pd.DataFrame, cut: float = rules.READABLE_ABOVE) -> pd.Series:
    """Per model and task of a shuffled window: an upper bound on the chance that label noise lifts the task past
    the readability cut (A.1.6): the sum over its decisions of the chance that the largest of its dense fits
    exceeds ``cut``, each fit's null AUROC normal with Theorem 4's σ₀ (paper 000) and the fits independent."""
    dense = window[window.path == "dense"]
    per_decision = dense.groupby(counts.DECISION, sort=False).agg(
        fits=("auroc", "size"), n_pos=("n_test_pos", "first"), n_neg=("n_test_neg", "first")).reset_index()
    sigma0 = np.sqrt((per_decision.n_pos + per_decision.n_neg + 1) / (12 * per_decision.n_pos * per_decision.n_neg))
    per_decision["p"] = -np.expm1(per_decision.fits * norm.logcdf((cut - 0.5) / sigma0))
    return per_decision.groupby(CELL, sort=False).p.sum().clip(upper=1.0)


def unreadable_share_draws(p_readable: Sequence[float], *, n: int = DRAWS, seed: int = 0) -> np.ndarray:
    """``n`` draws of the share of cells flagged unreadable when cell i reads past the cut with chance
    ``p_readable[i]``, independently."""
    p = np.asarray(p_readable, dtype=float)
    readable = np.random.default_rng(seed).random((n, len(p))) < p
    return 1 - readable.mean(axis=1)


def family_ratio(shuffled: pd.DataFrame, n_tests: int, level: float = 0.05) -> float:
    """The largest z over the shuffled decisions of :func:`lib.kstar.protocol.counts.search_maximum` (each the z of the
    largest test AUROC of any probe its whole search fitted) over :func:`lib.kstar.protocol.counts.sidak_z_limit` of the
    ``n_tests`` test AUROCs the searches recorded (one per logged row: the dense probe and each candidate; the
    validation fits that choose γ read no test label): ≤ 1 when the search maximum stays below the level that many
    independent null AUROCs exceed with chance ``level``."""
    return float(shuffled.z.max() / counts.sidak_z_limit(n_tests, level))


def family_ratio_draws(shuffled: pd.DataFrame, n_tests: int, level: float = 0.05, cut: float = rules.READABLE_ABOVE,
                       *, n: int = DRAWS, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(if the paper is right, if the null is) draws of :func:`family_ratio`: the largest of ``n_tests``
    independent null AUROC z scores (no signal in shuffled labels; correlated fits give smaller maxima, so the share
    holding is a lower bound), and the same with one decision, the one with the widest null spread σ₀, reaching
    the readability ``cut`` (A.1.6: label noise read as a readable task)."""
    limit = counts.sidak_z_limit(n_tests, level)
    if_paper = null_max_z_draws(n_tests, n=n, seed=seed) / limit
    z_cut = (cut - 0.5) / float(shuffled.sigma0.max())
    return if_paper, np.maximum(if_paper, z_cut / limit)
