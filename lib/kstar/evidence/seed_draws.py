"""Draws of K01's and K02's claim statistics at a run's size: resampled seeds, permuted orders, null maxima.

A task value k* is the median over seeds of per-seed task values (paper 002, A.1.6, Eq. 16); the five seeds are
85% training subsamples on one fixed test split, and the seed range reports how far a count moves with them.
Resampling the seeds with replacement and taking the median again gives the run's own spread of each task value
(:func:`resampled_values`). The order agreements hold the thresholds of the run fixed: the test split is shared by
the main protocol and every estimator control, which read the same curves, so its noise moves both alike. The
rotation refits every probe, so its draws resample the test split as well. From it:

* :func:`self_agreement_draws`: Spearman ρ (A.1.11, Eq. of Table 19) between a model's task order and a
  seed-resampled copy of itself, median over models: what a control whose true order is the main one (the
  paper's reading, ρ 0.97 to 0.99) reports at this size; :func:`permuted_agreement_draws`: the same against a
  random permutation of the values (independent orders, the paper's null);
* :func:`paired_ratios`, :func:`paired_factors`, :func:`paired_noise_draws` and :func:`factor_draws`: the factor
  max(r, 1/r) by which the rotation moves a count (Table 15), paired by seed: the rotated window fits every seed on
  the main window's own subsample, validation portion, blocks and test split, so r is read seed by seed and the
  noise the two readings share cancels; its draws resample the seeds of both readings together and each reading's
  test split (:mod:`lib.kstar.evidence.count_noise`), and :func:`paper_factor_draws` places the true factors
  where the paper's range lets the test fail most;
* :func:`ceiling_change_draws`: the largest change of a task ceiling between two seed resamples (Table 15,
  "ceilings move by at most 0.03"), and :func:`reshuffled_ceiling_draws`, the same when the control's ceilings
  are unrelated to the tasks;
* :func:`seed_se`: the s.e. of any statistic of the task table over seed resamples;
* :func:`null_max_z_draws`, :func:`readable_by_chance`, :func:`unreadable_share_draws`:
  the shuffled-label control (A.1.11, Table 7) as a family of independent null AUROCs, a conservative model (fits
  of one search are correlated, so their maximum is smaller), and :func:`family_ratio` with
  :func:`family_ratio_draws`, the search maximum over that family's level.

Every draw function that resamples the seeds returns ``None`` where the run holds fewer than two: one seed has no
seed spread.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import pandas as pd
from scipy.stats import norm, rankdata

from lib import claim_power
from lib.claim_power import DRAWS
from lib.kstar.evidence import count_noise, power_draws
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


#: The factors by which the paper finds a basis or wording change moving counts (A.2 summary (2)).
PAPER_FACTORS = (1.5, 20.0)


def _log_ratio(control: np.ndarray, main: np.ndarray) -> np.ndarray:
    """log(control / main) of counts: ∞/∞ reads 0 (a ratio of 1, as :func:`lib.kstar.protocol.counts.compare_tables`
    reads it), one side ∞ reads ±∞."""
    control, main = np.asarray(control, dtype=float), np.asarray(main, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(control) & np.isinf(main), 0.0, np.log(control) - np.log(main))


def paired_ratios(main_seeds: pd.DataFrame, control_seeds: pd.DataFrame) -> pd.DataFrame:
    """Per model, task and seed (:func:`per_seed_values` of each reading): the seed's task value in the main reading
    (``main``) and under the control (``control``) and ``log_ratio``, log(control / main) (:func:`_log_ratio`).
    The rotation fits each seed on the main window's own subsample and validation portion, at its blocks, against
    its test split (A.1.6: both are drawn from the seed and the labels), so one seed's ratio compares the two bases
    on the same texts."""
    both = main_seeds.merge(control_seeds, on=[*CELL, "seed"], suffixes=("_main", "_control"))
    both = both.rename(columns={"value_main": "main", "value_control": "control"})
    return both.assign(log_ratio=_log_ratio(both.control.to_numpy(), both.main.to_numpy()))


def paired_factors(pairs: pd.DataFrame) -> pd.Series:
    """Per task of :func:`paired_ratios` (one model): the paired factor exp(|median over seeds of log r|), r the
    seed's ratio control / main: the factor max(r, 1/r) of Table 15 read seed by seed, on the log scale so that
    it is the same whichever reading is the numerator."""
    medians = pairs.groupby("task", sort=False).log_ratio.median()
    return np.exp(medians.abs()).rename("factor")


def paired_noise_draws(main_window: pd.DataFrame, control_window: pd.DataFrame, cells: Iterable[tuple[str, str]],
                       frac: float = rules.FRAC, *, n: int = DRAWS, seed: int = 0) -> np.ndarray | None:
    """(n, cells): draws of the error of each cell's paired log factor (the median over seeds of log r, as
    :func:`paired_factors` reads it) as another draw of the seeds' subsamples and of the test split would give it:
    one seed resample shared by both readings (the pairing), one test-split offset per reading and decision
    (:mod:`lib.kstar.evidence.count_noise`; drawn independently in the two readings although they share the split,
    which spreads the draws at least as far as the split moves the factor), the observed factor subtracted. None
    with fewer than two seeds (one seed has no seed spread) or no cell read in both windows."""
    main, control = count_noise.window_curves(main_window, frac), count_noise.window_curves(control_window, frac)
    if main.seeds != control.seeds:
        raise ValueError(f"the windows' seeds {main.seeds} and {control.seeds} differ: a paired factor needs the "
                         "same seeds in both readings")
    cells = [cell for cell in cells if cell in main.cells and cell in control.cells]
    if len(main.seeds) < 2 or not cells:
        return None
    rng = np.random.default_rng(seed)
    at_main, at_control = [main.cells.index(c) for c in cells], [control.cells.index(c) for c in cells]

    def ratios(offsets_main: np.ndarray, offsets_control: np.ndarray) -> np.ndarray:
        return _log_ratio(count_noise.seed_values_at(control, offsets_control)[:, at_control],
                          count_noise.seed_values_at(main, offsets_main)[:, at_main])

    observed = np.median(ratios(np.zeros((1, len(main.tau))), np.zeros((1, len(control.tau)))), axis=2)
    drawn = ratios(count_noise.split_offsets(main, n, rng), count_noise.split_offsets(control, n, rng))
    with np.errstate(invalid="ignore"):
        return count_noise.picked_medians(drawn, count_noise.seed_picks(n, len(main.seeds), rng)) - observed


def factor_draws(errors: np.ndarray, *, smallest: bool, true_factor: float | None = None, seed: int = 0
                 ) -> np.ndarray:
    """Draws of the smallest (``smallest``) or largest factor max(r, 1/r) over cells, log r each cell's true move
    ± log ``true_factor`` (a random direction per cell and draw: a rotation may narrow or widen a readout) plus its
    error (:func:`paired_noise_draws`), or its error alone when ``true_factor`` is None (the basis does not matter).
    A cell whose draw is not finite (a count ∞ in one reading) is left out of that draw, as the claim leaves such a
    task out; NaN where every cell is."""
    errors = np.asarray(errors, dtype=float)
    if true_factor is not None:
        signs = np.random.default_rng(seed).choice((-1.0, 1.0), errors.shape)
        errors = errors + signs * np.log(true_factor)
    factors = np.exp(np.abs(errors))
    finite = np.isfinite(factors)
    picked = (np.where(finite, factors, np.inf).min(axis=1) if smallest
              else np.where(finite, factors, -np.inf).max(axis=1))
    return np.where(finite.any(axis=1), picked, np.nan)


def paper_factor_draws(errors: np.ndarray, test: claim_power.Test, *, smallest: bool, seed: int = 0
                       ) -> tuple[str, np.ndarray]:
    """(where, draws): :func:`factor_draws` if the paper is right, every task's true factor at the centre of the
    paper's range on the log scale (√(1.5 · 20) ≈ 5.48) and at either end (A.2 summary (2): "by factors of 1.5 to
    20"), keeping the placement on whose draws ``test`` holds least often (:func:`lib.kstar.evidence.power_draws.
    least_held`): the power of a range claim if the paper is right, at the truth the paper allows that is nearest
    to failing."""
    low, high = PAPER_FACTORS
    placements = {f"every task's true factor at the centre of the range, {math.sqrt(low * high):.3g}":
                  math.sqrt(low * high),
                  f"every task's true factor at the lower end of the range, {low:g}": low,
                  f"every task's true factor at the upper end of the range, {high:g}": high}
    return power_draws.least_held(test, {where: factor_draws(errors, smallest=smallest, true_factor=f, seed=seed)
                                         for where, f in placements.items()})


# --------------------------------------------------------------------------- ceilings (Table 15)


def _seed_ceilings(window: pd.DataFrame) -> pd.DataFrame:
    """(model, task, decision) × seed: the largest dense AUROC over the window's blocks at each seed; the common
    ceiling C of A.1.6 is its maximum over seeds. Decisions at or below chance are left out, as K01 leaves them."""
    dense = window[window.path == "dense"]
    table = dense.pivot_table(index=counts.DECISION, columns="seed", values="auroc", aggfunc="max")
    return table[table.max(axis=1) > 0.5]


def ceiling_change_draws(window: pd.DataFrame, cells: Iterable[tuple[str, str]], *, n: int = DRAWS, seed: int = 0
                         ) -> np.ndarray | None:
    """``n`` draws of the largest |change| over ``cells`` of the task ceiling (median over decisions of C) between
    two seed resamples of the window: a control that reads the same ceilings up to training noise (the paper's
    reading: "ceilings move by at most 0.03")."""
    table = _seed_ceilings(window)
    models, tasks = (table.index.get_level_values(level).to_numpy() for level in CELL)
    rows_of = {(m, t): (models == m) & (tasks == t) for m, t in cells}
    rows_of = {cell: rows for cell, rows in rows_of.items() if rows.any()}
    if table.shape[1] < 2 or not rows_of:
        return None
    rng = np.random.default_rng(seed)
    values = table.to_numpy(float)
    draws = [values[:, rng.integers(0, values.shape[1], size=(n, values.shape[1]))].max(axis=2) for _ in range(2)]
    changes = [np.median(draws[0][rows], axis=0) - np.median(draws[1][rows], axis=0) for rows in rows_of.values()]
    return np.abs(np.vstack(changes)).max(axis=0)


def reshuffled_ceiling_draws(compare: pd.DataFrame, *, n: int = DRAWS, seed: int = 0) -> np.ndarray | None:
    """``n`` draws of the largest |ceiling change| over the tasks of a control's comparison
    (:func:`lib.kstar.protocol.counts.compare_tables`) when the control's ceilings are unrelated to the tasks: each
    task's main ceiling against the control ceiling of the task a random permutation gives it (the ceilings
    reshuffled over the tasks, the null K03 tests ceilings across models against and A.1.11's reshuffled order).
    None with fewer than two tasks."""
    if len(compare) < 2:
        return None
    main, control = compare.ceiling_main.to_numpy(float), compare.ceiling_control.to_numpy(float)
    shuffled = np.random.default_rng(seed).permuted(np.tile(control, (n, 1)), axis=1)
    return np.abs(shuffled - main).max(axis=1)


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
