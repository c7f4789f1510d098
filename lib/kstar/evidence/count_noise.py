"""The seed noise of a logged k* and of the ceilings it is read against (paper 002, A.1.6, A.1.8).

A task's k* is the median over seeds of the per-seed medians over class decisions (Eq. 16). Resampling the seeds
of a cell with replacement and taking that median again gives draws of the count as another set of subsamples
would have given it: :func:`seed_values` reads the per-seed values off a logged window, :func:`bootstrap_medians`
draws them. The test split is fixed across seeds, so these draws hold the training-subsample noise only; the
test split's own noise is the ceiling's Hanley–McNeil s.e. (A.1.8), which :func:`task_precision` sets beside the
gap C − τ that places the count.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from lib.claim_power import DRAWS
from lib.kstar.protocol import counts, rules


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


def log_count_se(seeds: pd.DataFrame, keys: Sequence[str] = ("model", "task"), *, n: int = DRAWS,
                 seed: int = 0) -> pd.DataFrame:
    """Per group of ``keys`` (by default the task–model cell): the s.e. of log k* from its per-seed values
    (:func:`lib.kstar.evidence.seed_draws.per_seed_values`), the s.d. of the log of :func:`bootstrap_medians` over the
    finite
    draws; NaN when fewer than two draws are finite."""
    rows = []
    for labels, group in seeds.groupby(list(keys), sort=False):
        draws = bootstrap_medians(group.value.to_numpy(), n=n, seed=seed)
        with np.errstate(divide="ignore"):
            rows.append({**dict(zip(keys, labels, strict=True)), "log_se": finite_sd(np.log(draws))})
    return pd.DataFrame(rows, columns=[*keys, "log_se"])


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
