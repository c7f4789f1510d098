"""Draws of paper 002's claim statistics at a run's size, if the paper's value is the truth and if the null is.

:mod:`lib.claim_power` weighs a claim's test by the share of draws of its statistic on which it holds under
each hypothesis. Most statistics are drawn from their logged s.e. (:func:`lib.claim_power.normal_draws`);
these are the ones whose sampling distribution on a few units is not normal: a rate over a few trials
(K06's pass rates, A.2.4; K08's censored share, A.4.2), its Clopper–Pearson lower bound, the one-sided
Wilcoxon p over a few class decisions (K06's composition, A.2.5), and the smallest of a few per-model medians.
Where the paper states a range of true values, :func:`least_held` keeps the draws of the placement within it on
which the claim's test holds least often.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from lib import claims
from lib.claim_power import DRAWS, Test

#: The fewest values whose spread the notebooks read as the s.e. of their median (a choice: two or three equal
#: values, common for widths and supports on a grid of powers of two, give an s.e. of 0 and a test that looks
#: decisive on nothing).
MIN_SPREAD = 5


def too_few_for_spread(n_values: int, what: str) -> str:
    """"" when ``n_values`` ≥ :data:`MIN_SPREAD`, else a sentence saying that ``what`` (the units, e.g. "class
    decisions with a width") are too few for their spread to give the s.e. of their median."""
    if n_values >= MIN_SPREAD:
        return ""
    return (f"{n_values} {what}: fewer than {MIN_SPREAD}, too few for their spread to give the s.e. of their "
            "median")


def _trials(n_trials: int) -> int:
    if isinstance(n_trials, bool) or int(n_trials) != n_trials or n_trials < 1:
        raise ValueError(f"n_trials={n_trials!r}; allowed: an integer >= 1")
    return int(n_trials)


def share_draws(p: float, n_trials: int, *, n: int = DRAWS, seed: int = 0) -> np.ndarray:
    """``n`` draws of a rate over ``n_trials`` independent trials at true rate ``p``: Binomial(n_trials, p) over
    n_trials."""
    if not 0 <= p <= 1:
        raise ValueError(f"p={p!r}; allowed: a rate in [0, 1]")
    trials = _trials(n_trials)
    return np.random.default_rng(seed).binomial(trials, p, size=n) / trials


def clopper_pearson_lower(successes: ArrayLike, n_trials: int, level: float = 0.95) -> np.ndarray:
    """The lower end of the two-sided ``level`` Clopper–Pearson interval of a rate (as
    ``scipy.stats.binomtest(k, n).proportion_ci(level).low`` gives it): the (1 − level)/2 quantile of
    Beta(k, n − k + 1), 0 at k = 0."""
    k = np.asarray(successes, dtype=float)
    trials = _trials(n_trials)
    with np.errstate(invalid="ignore"):
        low = stats.beta.ppf((1 - level) / 2, k, trials - k + 1)
    return np.where(k > 0, low, 0.0)


def clopper_pearson_lower_draws(p: float, n_trials: int, *, level: float = 0.95, n: int = DRAWS,
                                seed: int = 0) -> np.ndarray:
    """``n`` draws of :func:`clopper_pearson_lower` over ``n_trials`` trials at true rate ``p``."""
    trials = _trials(n_trials)
    if not 0 <= p <= 1:
        raise ValueError(f"p={p!r}; allowed: a rate in [0, 1]")
    return clopper_pearson_lower(np.random.default_rng(seed).binomial(trials, p, size=n), trials, level)


def signed_rank_p(differences: ArrayLike) -> float:
    """One-sided Wilcoxon signed-rank p of differences > 0 (scipy's defaults: zero differences dropped); 1 when
    every difference is zero, as :func:`lib.kstar.sae.composition.criteria` reads it."""
    d = np.asarray(differences, dtype=float)
    if not np.any(d != 0):
        return 1.0
    return float(stats.wilcoxon(d, alternative="greater").pvalue)


def signed_rank_draws(differences: ArrayLike, *, n: int = DRAWS, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(if the paper is right, if the null is) draws of :func:`signed_rank_p` on the magnitudes of the run's
    ``differences`` (recovery minus its random control, one per class decision): every difference positive
    (A.2.5: "All 57 class decisions ... exceed their own random control"), and each sign a fair coin (no
    difference between the dictionary and a random one of equal size, the exact null of the test)."""
    magnitude = np.abs(np.asarray(differences, dtype=float))
    if magnitude.ndim != 1 or not len(magnitude):
        raise ValueError(f"differences has shape {magnitude.shape}; allowed: one or more differences")
    signs = np.random.default_rng(seed).choice((-1.0, 1.0), size=(n, len(magnitude)))
    return (np.full(n, signed_rank_p(magnitude)),
            np.array([signed_rank_p(magnitude * row) for row in signs]))


def smallest_normal_draws(centres: ArrayLike, ses: ArrayLike, *, n: int = DRAWS, seed: int = 0) -> np.ndarray:
    """``n`` draws of the smallest of several independent estimates, the i-th normal around ``centres[i]`` with
    s.e. ``ses[i]``: the sampling distribution of a minimum over models of per-model medians."""
    centres, ses = np.broadcast_arrays(np.asarray(centres, dtype=float), np.asarray(ses, dtype=float))
    if centres.ndim != 1 or not len(centres):
        raise ValueError(f"centres has shape {centres.shape}; allowed: one or more estimates")
    rng = np.random.default_rng(seed)
    return (centres + ses * rng.standard_normal((n, len(centres)))).min(axis=1)


def held_share(test: Test, draws: ArrayLike) -> float:
    """The share of the finite ``draws`` on which ``test`` holds (as :func:`lib.claim_power.power` counts it); NaN
    with no finite draw."""
    values = np.asarray(draws, dtype=float).ravel()
    values = values[np.isfinite(values)]
    if not len(values):
        return float("nan")
    return float(np.mean([test.check(float(v))[0] == claims.HOLDS for v in values]))


def least_held(test: Test, placements: Mapping[str, ArrayLike]) -> tuple[str, np.ndarray]:
    """(where, draws): of the draws of a statistic if the paper is right at each placement of its true value
    within the paper's range (``placements``: the centre, each end), the one on which ``test`` holds least often
    (:func:`held_share`). A range claim's power if the paper is right is then its power at the truth the paper
    allows that is nearest to failing, not at a truth chosen where it rarely fails."""
    if not placements:
        raise ValueError("placements is empty; allowed: one or more named draws")
    shares = {where: held_share(test, draws) for where, draws in placements.items()}
    where = min(shares, key=lambda w: (np.isnan(shares[w]), shares[w]))
    return where, np.asarray(placements[where], dtype=float)
