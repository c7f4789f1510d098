"""The power of the theory checks' tests (00_theory_checks): draws of each statistic at this run's size.

Each closed form of paper 000 is checked against a Monte Carlo simulation whose cells carry a logged standard
error. A claim's test is evidence when it holds if the closed form is right and fails if a named competitor is
(:mod:`lib.claim_power`); the draws below give the statistic under either truth, from the run's own cells and
their s.e. The competitors are the project's, each a closed form a reader could mistake for the paper's:
:func:`effective_separation_auc` for Eq. 8, the flat law for Eq. 6, an inflated null for Theorem 4. Also here:
the replicate-level check of the Rademacher bound (Sec. III; Theorem 1, Eq. 2 re-derived), which the paper
states with probability ≥ 1 − δ, and the mechanism of a fitted probe's fast gap rate.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.stats import norm

from lib import stats
from lib.bias_probes import simulate, theory
from lib.claim_power import DRAWS


def effective_separation_auc(s: ArrayLike, alpha: ArrayLike) -> np.ndarray:
    """Φ(α·s/√2): the AUC if purity only shrank the separation to α·s (Lemma 1's units), the competitor of
    Theorem 3's Eq. 8. Both agree to first order in s (½ + α·s/(2√π), the linearisation behind Eq. 11) and
    at α ∈ {0, 1}; they part where s is large and α interior."""
    return theory.binormal_auc(np.asarray(alpha, dtype=float) * np.asarray(s, dtype=float))


def max_abs_error_draws(offset: ArrayLike, se: ArrayLike, *, n: int = DRAWS, seed: int = 0) -> np.ndarray:
    """``n`` draws of max_i |offset_i + se_i·Z_i|: the largest |Monte Carlo − closed form| over cells whose
    Monte Carlo estimates carry s.e. ``se_i`` when the truth differs from the closed form by ``offset_i``
    (0: the closed form is right)."""
    offset, se = (np.asarray(v, dtype=float).ravel() for v in np.broadcast_arrays(offset, se))
    if not offset.size:
        return np.full(n, np.nan)
    rng = np.random.default_rng(seed)
    return np.abs(offset + se * rng.standard_normal((n, offset.size))).max(1)


def max_abs_z_draws(offset: ArrayLike, se: ArrayLike, *, n: int = DRAWS, seed: int = 0) -> np.ndarray:
    """``n`` draws of max_i |offset_i/se_i + Z_i| over the cells with se_i > 0: the largest |error| in Monte
    Carlo s.e. when the truth differs from the closed form by ``offset_i``."""
    offset, se = (np.asarray(v, dtype=float).ravel() for v in np.broadcast_arrays(offset, se))
    keep = se > 0
    return max_abs_error_draws(offset[keep] / se[keep], 1.0, n=n, seed=seed)


def variance_z_draws(ratio: float, reps: ArrayLike, *, n: int = DRAWS, seed: int = 0) -> np.ndarray:
    """``n`` draws of max_i |v̂_i − v_i|/se(v̂_i) over Monte Carlo cells of ``reps_i`` replicates each, where v_i
    is Theorem 4's null variance, the true variance is ``ratio``·v_i, v̂_i its sample variance (a scaled
    χ²_{reps−1}) and se(v̂_i) = v̂_i·√(2/(reps_i − 1)), the normal-theory s.e. the simulation logs
    (:func:`lib.bias_probes.simulate.null_variance_mc`). The statistic does not depend on v_i."""
    dof = np.asarray(reps, dtype=float).ravel() - 1
    rng = np.random.default_rng(seed)
    estimate = ratio * rng.chisquare(dof, size=(n, dof.size)) / dof  # v̂_i / v_i
    return (np.abs(estimate - 1) / (estimate * np.sqrt(2 / dof))).max(1)


def oracle_power(s: ArrayLike, n: ArrayLike, alpha: ArrayLike, delta: float) -> np.ndarray:
    """Power of the level-δ test of Theorem 4 on oracle scores (AUC against ½ + z_{1−δ}·σ₀) at purity α and n
    balanced texts, in the normal approximation: Φ((Eq. 8 − ½)/σ₀ − z_{1−δ}), σ₀ from Theorem 4. Derived here;
    it is the power Eq. 11 sets to 1 − γ before linearising Eq. 8."""
    n = np.asarray(n, dtype=float)
    sigma0 = stats.null_auc_sd(n / 2, n / 2)
    return norm.cdf((theory.purity_auc(s, alpha) - 0.5) / sigma0 - norm.isf(delta))


def _rates(power: ArrayLike, reps: int, n: int, seed: int) -> np.ndarray:
    """``n`` × cells detection rates, binomial over ``reps`` replicates at true powers ``power``."""
    p = np.asarray(power, dtype=float).ravel()
    return np.random.default_rng(seed).binomial(reps, p, size=(n, p.size)) / reps


def power_deviation_draws(power: ArrayLike, reps: int, target: float, *, n: int = DRAWS,
                          seed: int = 0) -> np.ndarray:
    """``n`` draws of max_i |p̂_i − target| over cells whose detection rates p̂_i are binomial over ``reps``
    replicates at true powers ``power_i``; NaN without cells."""
    rates = _rates(power, reps, n, seed)
    return np.abs(rates - target).max(1) if rates.shape[1] else np.full(n, np.nan)


def mean_power_draws(power: ArrayLike, reps: int, *, n: int = DRAWS, seed: int = 0) -> np.ndarray:
    """``n`` draws of the mean detection rate over cells whose rates are binomial over ``reps`` replicates at
    true powers ``power_i``; NaN without cells."""
    rates = _rates(power, reps, n, seed)
    return rates.mean(1) if rates.shape[1] else np.full(n, np.nan)


def gap_replicates(n_values: list[int], d: int, s: float, alpha: float, reg: float, reps: int, n_test: int,
                   seed: int = 0, n_jobs: int = 1) -> pd.DataFrame:
    """One row per fitted probe: ``reps`` independent samples at each training size n of the purity generator,
    each with its fitted ℓ2 probe's ramp-loss gap (``erm_gap``), ‖w‖ and sample radius, as
    :func:`lib.bias_probes.simulate.generalization_gap` fits them (one replicate per call, its own test set)."""
    roots = np.random.default_rng(seed).integers(2**31, size=reps)
    tables = [simulate.generalization_gap(n_values, d, s, alpha, reg, 1, n_test, seed=int(root), n_jobs=n_jobs)
              .assign(replicate=i) for i, root in enumerate(roots)]
    return pd.concat(tables, ignore_index=True)[["n", "replicate", "erm_gap", "weight_norm", "radius"]]


def bound_exceedance(replicates: pd.DataFrame, delta: float) -> pd.DataFrame:
    """Per training size n: the bound of Theorem 1 (Eq. 2, :func:`lib.bias_probes.theory.generalization_bound`)
    for the fixed class of the smallest ball holding every probe fitted at n (its largest ‖w‖, on the largest
    sample radius), and the share of samples whose probe's gap exceeds it. Sec. III states the bound with
    probability ≥ 1 − δ: that share should be at most δ."""
    per_n = replicates.groupby("n").agg(weight_norm=("weight_norm", "max"), radius=("radius", "max"),
                                        samples=("erm_gap", "size")).reset_index()
    per_n["bound"] = theory.generalization_bound(per_n.n, per_n.weight_norm, per_n.radius, delta)
    merged = replicates.merge(per_n[["n", "bound"]], on="n")
    per_n["exceeded"] = merged.erm_gap.gt(merged.bound).groupby(merged.n).sum().to_numpy()
    per_n["largest_ratio"] = (merged.erm_gap / merged.bound).groupby(merged.n).max().to_numpy()
    return per_n


def fast_rate_mechanism(gap: pd.DataFrame, file: str) -> str:
    """Why a fitted ℓ2 probe's gap falls faster than n^−½, from the logged per-n gaps (``file``): a fixed per-
    sample penalty makes the fit uniformly stable, whose expected gap is O(1/n), while Theorem 1 bounds the worst
    case over the ball, which falls as n^−½ (Sec. IV-A). "" unless the probe's slope is nearer −1 than −½."""
    erm = simulate.loglog_slope(gap.n, gap.erm_gap.clip(lower=1e-12))
    if not erm < -0.75:
        return ""
    uniform = simulate.loglog_slope(gap.n, gap.uniform_deviation)
    return (f"the fitted probe keeps a fixed ℓ2 penalty per sample (C = 1/(reg·n)), a strongly convex fit whose "
            f"expected gap is O(1/n) by uniform stability (Bousquet–Elisseeff), not the worst case's n^−½: its "
            f"log–log slope is {erm:.2f}, near −1, while the worst case over the unit ball that Theorem 1 bounds "
            f"falls at {uniform:.2f} (`{file}`)")
