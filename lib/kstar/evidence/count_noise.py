"""The noise of a logged k*: its training subsamples and its test split (paper 002, A.1.6, A.1.8, Proposition 2).

A task's k* is the median over seeds of the per-seed medians over class decisions of the neighbour-confirmed counts
(Eq. 14–16), each local count the smallest candidate whose test AUROC reaches τ = ½ + 0.95·(C − ½) (Eq. 4–5). Two
sources move it, and the draws here resample both:

* **the seeds.** Each seed is an 85 % training subsample on one fixed test split (A.1.6, "Seeds and subsamples").
  Resampling the seeds with replacement and taking the median again gives the count as other subsamples would have
  given it (:func:`seed_picks`, :func:`picked_medians`).
* **the test texts.** Every AUROC of a decision reads the same test split, the ceiling C that sets τ and the
  candidates whose crossing of τ sets the count (A.1.8). Proposition 2 places the count between the population
  counts at τ ± 1.95ε when every test AUROC lies within ε of its own: a candidate's error at the crossing and 0.95
  times the ceiling's add there. :func:`crossing_sd` is its typical-case form: the Hanley–McNeil s.e. (Eq. 20) of an
  AUROC at τ, the candidate's at its crossing, and 0.95 times the ceiling's at C, added in variance. Each draw moves
  every decision's τ by one normal offset of that s.d. (:func:`split_offsets`) and reads the logged curves
  again at the moved threshold (:func:`seed_values_at`).

Why this model and not a bootstrap of the test texts: the logged window keeps each probe's test AUROC and the test
class counts, not its score on each text, so a bootstrap would refit every probe of the window (its whole cost
again), while Eq. 20 needs only the class counts. Why one offset per decision: the test split is fixed across the
seeds and blocks of the window (A.1.6), so its error does not average over them, and a search's candidates near
the crossing (nested prefixes, the supports of one ℓ1 path) score the same texts with overlapping features, so the split
shifts the curve near its crossing; independent errors per candidate would instead let the minimum over candidates
pick fortunate fits (A.1.11's second selection effect) and bias the draws rather than spread them. The ceiling's
error is taken independent of the candidate's: their errors on shared texts correlate positively, which would cancel
part of the move, so the draws spread at least as far as the test split moves the count. Decisions read different
labels and are drawn independently. A count whose crossing lies within this noise (the s.e. above the gap C − τ) is
named by :func:`task_precision` and :func:`imprecise_note`.

:func:`bootstrap_medians` and :func:`log2_ratio_draws` resample the seeds of a logged per-seed table alone (K05's
deployment ratios read them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib import stats
from lib.claim_power import DRAWS
from lib.kstar.protocol import counts, rules

CELL = ["model", "task"]


def bootstrap_medians(values: Sequence[float], *, n: int = DRAWS, seed: int = 0) -> np.ndarray:
    """``n`` draws of the median of ``values`` (per-seed counts, ∞ allowed) resampled with replacement: the
    median of Eq. 16 under another draw of the seeds' subsamples. An even resample takes the mean of its two middle
    values, ∞ when the upper one is (:func:`lib.kstar.protocol.rules.ext_median`)."""
    v = np.asarray(values, dtype=float)
    if v.ndim != 1 or not len(v) or np.isnan(v).any() or (v <= 0).any():
        raise ValueError(f"values={list(values)!r}; allowed: one or more counts > 0 (∞ allowed)")
    picks = v[np.random.default_rng(seed).integers(0, len(v), size=(n, len(v)))]
    picks.sort(axis=1)
    half = len(v) // 2
    if len(v) % 2:
        return picks[:, half]
    low, high = picks[:, half - 1], picks[:, half]
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(high), np.inf, (low + high) / 2)


def log2_ratio_draws(numerator: Sequence[float], denominator: Sequence[float], *, n: int = DRAWS,
                     seed: int = 0) -> np.ndarray:
    """``n`` draws of log2(k_a / k_b) for two counts given their per-seed values, each median resampled over its own
    seeds (:func:`bootstrap_medians`); NaN where either draw is ∞ (no finite ratio)."""
    a = bootstrap_medians(numerator, n=n, seed=seed)
    b = bootstrap_medians(denominator, n=n, seed=seed + 1)
    with np.errstate(invalid="ignore"):
        out = np.log2(a) - np.log2(b)
    return np.where(np.isfinite(a) & np.isfinite(b), out, np.nan)


# --------------------------------------------------------------------------- the window as step functions


@dataclass(frozen=True)
class WindowCurves:
    """A logged window read as Eq. 5's step functions: per decision (rows of ``tau``), seed (``seeds``) and block in
    depth order, the local count at a threshold t is ``suffix[searchsorted(aurocs, t)]``, the smallest size among
    the candidates whose test AUROC is at least t (∞ when none is). ``cells`` are the (model, task) cells in
    order, ``cell_of`` the cell of each decision, ``spread`` the s.d. of its crossing under a redraw of the test
    split (:func:`crossing_sd`)."""

    cells: tuple[tuple[str, str], ...]
    seeds: tuple[int, ...]
    cell_of: np.ndarray
    tau: np.ndarray
    spread: np.ndarray
    steps: tuple[tuple[tuple[tuple[np.ndarray, np.ndarray], ...], ...], ...]


def crossing_sd(ceiling: float, n_pos: int, n_neg: int, frac: float = rules.FRAC) -> float:
    """The s.d. of a count's threshold crossing under a redraw of the test split: √(se(τ)² + frac²·se(C)²), the
    Hanley–McNeil s.e. (A.1.8, Eq. 20) of the candidate's AUROC at τ = ½ + frac·(C − ½) and of the ceiling C, the
    two errors taken independent (Proposition 2's τ ± (1 + frac)·ε in its typical-case form; the module
    docstring says why)."""
    tau = rules.threshold(ceiling, frac)
    se_tau, se_ceiling = stats.hanley_mcneil_se([tau, ceiling], n_pos, n_neg)
    return float(np.hypot(se_tau, frac * se_ceiling))


def _step(aurocs: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(aurocs, kind="stable")
    suffix = np.minimum.accumulate(sizes[order][::-1])[::-1]
    return aurocs[order], np.append(suffix, np.inf)


def window_curves(window: pd.DataFrame, frac: float = rules.FRAC) -> WindowCurves:
    """The window's searches as step functions at its decisions' thresholds (Eq. 4 from the common ceiling,
    A.1.6), the decisions whose ceiling is at or below ½ left out as :func:`lib.kstar.protocol.counts.window_counts`
    leaves them; the candidates on :data:`lib.kstar.protocol.counts.PATHS` with a test AUROC."""
    ceilings = counts.window_ceilings(window, frac)
    ceilings = ceilings[~ceilings.unreadable].reset_index(drop=True)
    rows = window.merge(ceilings[counts.DECISION], on=counts.DECISION)
    seeds = tuple(sorted(int(s) for s in rows.seed.unique()))
    cells = tuple(dict.fromkeys(zip(ceilings.model, ceilings.task, strict=True)))
    candidates = rows[rows.path.isin(counts.PATHS) & rows.auroc.notna()]
    curves = {key: _step(g.auroc.to_numpy(float), g["size"].to_numpy(float))
              for key, g in candidates.groupby([*counts.DECISION, "seed", "block"], sort=False)}
    blocks = rows.groupby([*counts.DECISION, "seed"], sort=False).block.agg(lambda b: sorted(set(b)))
    none = (np.array([]), np.array([np.inf]))  # a search with no candidate reads ∞ at every threshold
    steps = tuple(tuple(tuple(curves.get((*decision, seed, block), none) for block in blocks[(*decision, seed)])
                        for seed in seeds)
                  for decision in zip(*(ceilings[c] for c in counts.DECISION), strict=True))
    return WindowCurves(cells, seeds, np.array([cells.index(cell) for cell in zip(ceilings.model, ceilings.task,
                                                                                      strict=True)], dtype=int),
                        ceilings.tau.to_numpy(float),
                        np.array([crossing_sd(c, p, n, frac) for c, p, n in zip(
                            ceilings.ceiling, ceilings.n_test_pos, ceilings.n_test_neg, strict=True)]), steps)


def seed_values_at(curves: WindowCurves, offsets: np.ndarray) -> np.ndarray:
    """(n, cells, seeds): each seed's task value (Eq. 16's inner median over decisions of the neighbour-confirmed
    counts, Eq. 14) with every decision's τ moved by its column of ``offsets`` (n, decisions); offsets of 0 give
    :func:`lib.kstar.evidence.seed_draws.per_seed_values`."""
    offsets = np.asarray(offsets, dtype=float)
    if offsets.ndim != 2 or offsets.shape[1] != len(curves.tau):
        raise ValueError(f"offsets has shape {offsets.shape}; allowed: (draws, {len(curves.tau)} decisions)")
    confirmed: list[list[list[np.ndarray]]] = [[[] for _ in curves.seeds] for _ in curves.cells]
    for d, by_seed in enumerate(curves.steps):
        at = curves.tau[d] + offsets[:, d]
        for s, by_block in enumerate(by_seed):
            local = np.stack([suffix[np.searchsorted(aurocs, at, side="left")] for aurocs, suffix in by_block], axis=1)
            pairs = np.maximum(local[:, :-1], local[:, 1:]) if local.shape[1] > 1 else local
            confirmed[curves.cell_of[d]][s].append(pairs.min(axis=1))
    return np.stack([np.stack([np.median(np.stack(by_decision, axis=1), axis=1) for by_decision in by_seed], axis=1)
                     for by_seed in confirmed], axis=1)


def split_offsets(curves: WindowCurves, n: int, rng: np.random.Generator) -> np.ndarray:
    """(n, decisions): one normal offset of τ per draw and decision, of s.d. :func:`crossing_sd`, shared by the
    decision's seeds and blocks (its test split is theirs)."""
    return rng.standard_normal((n, len(curves.tau))) * curves.spread


def seed_picks(n: int, n_seeds: int, rng: np.random.Generator) -> np.ndarray:
    """(n, n_seeds): seed indices drawn with replacement, one resample of the seeds per draw."""
    return rng.integers(0, n_seeds, size=(n, n_seeds))


def picked_medians(values: np.ndarray, picks: np.ndarray) -> np.ndarray:
    """(n, cells): each draw's median over its picked seeds (Eq. 16's outer median; ∞ as Eq. 15 reads it) of
    ``values`` (n, cells, seeds)."""
    return np.median(np.take_along_axis(values, picks[:, None, :], axis=2), axis=2)


def task_value_draws(window: pd.DataFrame, frac: float = rules.FRAC, *, n: int = DRAWS, seed: int = 0
                     ) -> tuple[tuple[tuple[str, str], ...], np.ndarray]:
    """(cells, draws of shape (n, cells)): k* of every cell of the window as another draw of its seeds' subsamples
    and of its test split would have given it (the module docstring)."""
    curves = window_curves(window, frac)
    rng = np.random.default_rng(seed)
    values = seed_values_at(curves, split_offsets(curves, n, rng))
    return curves.cells, picked_medians(values, seed_picks(n, len(curves.seeds), rng))


def log_count_se(window: pd.DataFrame, frac: float = rules.FRAC, *, n: int = DRAWS, seed: int = 0) -> pd.DataFrame:
    """Per model × task cell of the window: the s.e. of log k*, the s.d. of the log of :func:`task_value_draws`
    over its finite draws (seeds and test texts resampled); NaN when fewer than two draws are finite."""
    cells, draws = task_value_draws(window, frac, n=n, seed=seed)
    with np.errstate(divide="ignore"):
        logs = np.log(draws)
    return pd.DataFrame([(*cell, finite_sd(logs[:, i])) for i, cell in enumerate(cells)],
                        columns=[*CELL, "log_se"])


def finite_sd(draws: np.ndarray) -> float:
    """The s.d. of the finite ``draws``: their s.e. as a statistic of the run; NaN below two finite draws."""
    finite = np.asarray(draws, dtype=float)
    finite = finite[np.isfinite(finite)]
    return float(finite.std(ddof=1)) if len(finite) > 1 else float("nan")


def task_precision(window: pd.DataFrame, frac: float = rules.FRAC) -> pd.DataFrame:
    """Per model × task: test-split texts (median over decisions), the ceiling's Hanley–McNeil s.e. and the gap
    C − τ that places the count (medians over decisions, A.1.8), and ``imprecise``: the s.e. exceeds the gap, so
    the test split cannot tell the ceiling from τ and the count's crossing lies within its noise."""
    ceilings = counts.window_ceilings(window, frac)
    ceilings = ceilings.assign(n_test=ceilings.n_test_pos + ceilings.n_test_neg)
    out = ceilings.groupby(["model", "task"], sort=False).agg(
        n_test=("n_test", "median"), se=("se", "median"), gap=("gap", "median")).reset_index()
    return out.assign(imprecise=out.se > out.gap)


def precision_caption(unit: str) -> str:
    """The caption of a :func:`task_precision` table whose rows are per ``unit`` and task (A.1.8)."""
    return (f"Per {unit} and task: test-split texts, the ceiling's Hanley–McNeil s.e. and the gap C − τ that places "
            "the count (medians over decisions); imprecise: the s.e. exceeds the gap, so the count's crossing lies "
            "within the test split's noise (paper 002, A.1.8).")


def imprecise_note(precision: pd.DataFrame, tasks: Sequence[str]) -> str:
    """A sentence naming the ``tasks`` whose ceiling s.e. exceeds the gap C − τ in some model (with the test-split
    size, the s.e. range over models and the gap), to append where those tasks enter a statistic; "" when none."""
    imprecise = precision[precision.task.isin(list(tasks)) & precision.imprecise]
    parts = []
    for task, rows in imprecise.groupby("task", sort=True):
        se = f"{rows.se.min():.3f}" + ("" if rows.se.nunique() == 1 else f"–{rows.se.max():.3f}")
        parts.append(f"{task}'s test split of {int(rows.n_test.median())} texts gives a ceiling s.e. of {se}, above "
                     f"the gap C − τ of {rows.gap.median():.3f} that places its count")
    return ("; ".join(parts) + " (A.1.8): its count is read within the test split's noise") if parts else ""
