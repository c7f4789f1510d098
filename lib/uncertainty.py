"""Standard errors the claims contract (:mod:`lib.claims`) reads from logged results, and the chance a tolerance
in standard errors is crossed by noise alone.

Each turns what a notebook logged (per-cell means and their Monte Carlo s.e., bootstrap intervals, replicate
counts) into the ``se`` of a :class:`lib.claims.Point` or :class:`lib.claims.Range`; none reads a claim's outcome.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.stats import norm

#: A 95 % normal interval spans ±1.96 s.e.
Z95 = float(norm.ppf(0.975))
#: Asymptotic s.e. of a normal sample's median over that of its mean (√(π/2)).
MEDIAN_EFFICIENCY = float(np.sqrt(np.pi / 2))


def loglog_slope_se(x: Sequence[float], value: Sequence[float], se: Sequence[float]) -> float:
    """s.e. of the least-squares slope of log ``value`` on log ``x`` from each value's logged ``se`` (delta
    method: s.e. of log y ≈ se / y); NaN when a value is not positive, where the log and the slope are undefined."""
    value = np.asarray(value, float)
    if (value <= 0).any():
        return float("nan")
    lx = np.log(np.asarray(x, float))
    weights = (lx - lx.mean()) / ((lx - lx.mean()) ** 2).sum()
    return float(np.sqrt((weights**2 * (np.asarray(se, float) / value) ** 2).sum()))


def crossing_slope_se(rates: pd.DataFrame, rate_column: str, se_column: str, target: float,
                      fitted_n: Sequence[float]) -> float:
    """s.e. of the log–log slope of a detection boundary over ``n``: each crossing of ``target`` (linear in log α
    between the two ``alpha`` cells that bracket it) gets the delta-method s.e. of its log α from those cells'
    logged rate s.e.; the slope's s.e. follows from the least-squares weights over ``fitted_n``. NaN below two n."""
    log_se = []
    for n in fitted_n:
        cell = rates[rates.n == n].sort_values("alpha")
        a, p, e = (cell[c].to_numpy(float) for c in ("alpha", rate_column, se_column))
        i = int(np.nonzero(p >= target)[0][0])
        frac = (target - p[i - 1]) / (p[i] - p[i - 1])
        log_se.append(np.log(a[i] / a[i - 1]) * np.hypot((1 - frac) * e[i - 1], frac * e[i]) / (p[i] - p[i - 1]))
    if len(log_se) < 2:
        return float("nan")
    lx = np.log(np.asarray(fitted_n, float))
    weights = (lx - lx.mean()) / ((lx - lx.mean()) ** 2).sum()
    return float(np.sqrt((weights**2 * np.asarray(log_se) ** 2).sum()))


def mean_se(values: Sequence[float]) -> float:
    """s.e. of the mean of the finite ``values`` from their spread, s.d./√m; NaN for fewer than two."""
    finite = np.asarray(values, float)
    finite = finite[np.isfinite(finite)]
    return float(finite.std(ddof=1) / np.sqrt(len(finite))) if len(finite) > 1 else float("nan")


def median_se(values: Sequence[float]) -> float:
    """s.e. of the median of the finite ``values`` from their spread (normal approximation, √(π/2)·s.d./√m);
    NaN for fewer than two."""
    finite = np.asarray(values, float)
    finite = finite[np.isfinite(finite)]
    return float(MEDIAN_EFFICIENCY * finite.std(ddof=1) / np.sqrt(len(finite))) if len(finite) > 1 else float("nan")


def interval_se(low: float, high: float) -> float:
    """s.e. read from a logged 95 % interval: its width over 2·1.96."""
    return float((high - low) / (2 * Z95))


def sd_se(sd: float, reps: float) -> float:
    """Normal-theory s.e. of a standard deviation estimated from ``reps`` replicates, sd / √(2(reps − 1))."""
    return float(sd / np.sqrt(2 * (reps - 1))) if reps > 1 else float("nan")


def grid_step(alphas: Sequence[float], targets: Sequence[float]) -> float:
    """The largest ratio between consecutive grid values that bracket one of ``targets`` (the resolution at
    which the grid locates them); the grid's largest step when none is bracketed."""
    a = np.sort(np.asarray(alphas, float))
    inside = np.asarray([x for x in targets if np.isfinite(x) and a[0] < x <= a[-1]])
    steps = [a[i] / a[i - 1] for i in range(1, len(a)) if any((a[i - 1] < inside) & (inside <= a[i]))]
    return float(max(steps)) if steps else float((a[1:] / a[:-1]).max())


def one_swap_spearman(m: int) -> float:
    """Spearman ρ of ``m`` ranks with one adjacent pair swapped (1 − 12/(m(m² − 1))); NaN for one rank."""
    return float(1 - 12 / (m * (m * m - 1))) if m > 1 else float("nan")


def binomial_se(p: float, n: float) -> float:
    """s.e. of a rate estimated from ``n`` independent trials at rate ``p``, √(p(1 − p)/n); NaN without trials."""
    return float(np.sqrt(p * (1 - p) / n)) if n else float("nan")
