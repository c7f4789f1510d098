"""Monte Carlo simulations of paper 000's generative models, to check its closed forms.

Each function draws from a :mod:`lib.bias_probes.synth` generator, scores with the oracle (true
discriminant) direction or a fitted probe, and returns a tidy table with the Monte Carlo
estimate, its standard error and the closed form of :mod:`lib.bias_probes.theory` beside it. Work is
spread over processes with :func:`lib.parallel.parallel_map` (one seed per grid cell).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression

from lib import parallel, stats
from lib.bias_probes import estimators, synth, theory


def _oracle_aucs(samples: Sequence[synth.LabelledSample]) -> np.ndarray:
    scores = np.stack([s.X @ s.oracle_direction for s in samples])
    return stats.auroc(np.stack([s.y for s in samples]), scores)


# --------------------------------------------------------------------------- purity law


@dataclass(frozen=True)
class PurityCell:
    """One (s, α) cell of the oracle purity-law simulation (paper 000, Theorem 3, Eq. 8)."""

    s: float
    alpha: float
    n: int
    reps: int
    d: int


def _purity_cell(cell: PurityCell, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    samples = [synth.purity_mixture(rng, cell.n, cell.s, cell.alpha, cell.d) for _ in range(cell.reps)]
    aucs = _oracle_aucs(samples)
    realised = samples[0].marked.mean()  # same for every replicate: round(α n / 2) per group
    return {
        "s": cell.s, "alpha": cell.alpha, "alpha_realised": realised, "n": cell.n, "reps": cell.reps,
        "mc_auc": aucs.mean(), "mc_se": aucs.std(ddof=1) / np.sqrt(cell.reps),
        "theory_auc": float(theory.purity_auc(cell.s, realised)),
    }


def purity_law(
    s_values: Sequence[float], alphas: Sequence[float], n: int, reps: int, d: int = 2,
    seed: int = 0, n_jobs: int = 1,
) -> pd.DataFrame:
    """Oracle AUC on the purity mixture vs Theorem 3 (Eq. 8) over an (s, α) grid."""
    cells = [PurityCell(s=float(s), alpha=float(a), n=n, reps=reps, d=d) for s, a in product(s_values, alphas)]
    frame = pd.DataFrame(parallel.parallel_map(_purity_cell, cells, seed=seed, n_jobs=n_jobs))
    frame["error"] = frame["mc_auc"] - frame["theory_auc"]
    return frame


# --------------------------------------------------------------------------- chord and ceiling


@dataclass(frozen=True)
class ChordCell:
    """One (κ, r) cell of the oracle chordal-law simulation (paper 000, Theorem 2, Eqs. 6–7)."""

    kappa: float
    r: float
    sigma_w: float
    n: int
    reps: int
    d: int
    tau: float = 0.0


def _chord_cell(cell: ChordCell, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    samples = [synth.sphere_clusters(rng, cell.n, cell.kappa, cell.r, cell.sigma_w, cell.d, cell.tau)
               for _ in range(cell.reps)]
    aucs = _oracle_aucs(samples)
    return {
        "kappa": cell.kappa, "r": cell.r, "sigma_w": cell.sigma_w, "tau": cell.tau, "n": cell.n, "reps": cell.reps,
        "chord_measured": float(np.linalg.norm(samples[0].oracle_direction)),
        "chord_theory": float(theory.chord_length(cell.r, cell.kappa)),
        "mc_auc": aucs.mean(), "mc_se": aucs.std(ddof=1) / np.sqrt(cell.reps),
        "theory_auc": theory.chordal_auc_spread(cell.r, cell.kappa, cell.sigma_w, cell.tau),
        "ceiling": float(theory.curvature_ceiling(cell.kappa, cell.sigma_w)),
    }


def chordal_law(
    kappas: Sequence[float], r_values: Sequence[float], sigma_w: float, n: int, reps: int,
    d: int = 3, seed: int = 0, n_jobs: int = 1, tau: float = 0.0,
) -> pd.DataFrame:
    """Oracle AUC of two clusters on a sphere vs Theorem 2 (Eq. 6) and the ceiling (Eq. 7).

    With intrinsic spread τ > 0 the closed form is Eq. 6 with spread (:func:`theory.chordal_auc_spread`).
    Geodesic distances beyond the sphere's diameter π/√κ are skipped.
    """
    cells = [
        ChordCell(kappa=float(k), r=float(r), sigma_w=sigma_w, n=n, reps=reps, d=d, tau=tau)
        for k, r in product(kappas, r_values)
        if k == 0 or np.sqrt(k) * r <= np.pi
    ]
    frame = pd.DataFrame(parallel.parallel_map(_chord_cell, cells, seed=seed, n_jobs=n_jobs))
    frame["error"] = frame["mc_auc"] - frame["theory_auc"]
    return frame


# --------------------------------------------------------------------------- null variance


def null_variance_exact(sizes: Sequence[tuple[int, int]]) -> pd.DataFrame:
    """Variance of the exact permutation null of the AUC vs Theorem 4, small (n₊, n₋)."""
    rows = []
    for n_pos, n_neg in sizes:
        values = stats.permutation_null_aucs(n_pos, n_neg)
        rows.append({
            "n_pos": n_pos, "n_neg": n_neg, "method": "exact permutation",
            "null_mean": values.mean(), "null_var": values.var(),
            "null_var_se": 0.0, "theory_var": float(theory.null_auc_var(n_pos, n_neg)),
        })
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class NullCell:
    """One (n₊, n₋) size of the Monte Carlo AUC null variance (paper 000, Theorem 4)."""

    n_pos: int
    n_neg: int
    reps: int


def _null_cell(cell: NullCell, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    labels = np.zeros((cell.reps, cell.n_pos + cell.n_neg), dtype=bool)
    labels[:, :cell.n_pos] = True
    aucs = stats.auroc(rng.permuted(labels, axis=1), rng.standard_normal(labels.shape))
    var = aucs.var(ddof=1)
    return {
        "n_pos": cell.n_pos, "n_neg": cell.n_neg, "method": "Monte Carlo",
        "null_mean": aucs.mean(), "null_var": var,
        "null_var_se": var * np.sqrt(2.0 / (cell.reps - 1)),  # normal-theory s.e. of a variance
        "theory_var": float(theory.null_auc_var(cell.n_pos, cell.n_neg)),
    }


def null_variance_mc(
    sizes: Sequence[tuple[int, int]], reps: int, seed: int = 0, n_jobs: int = 1
) -> pd.DataFrame:
    """Monte Carlo variance of the AUC under H0 (random labels) vs Theorem 4, large (n₊, n₋)."""
    cells = [NullCell(n_pos=int(a), n_neg=int(b), reps=reps) for a, b in sizes]
    return pd.DataFrame(parallel.parallel_map(_null_cell, cells, seed=seed, n_jobs=n_jobs))


# --------------------------------------------------------------------------- detection power


@dataclass(frozen=True)
class PowerCell:
    """One (s, n, α) cell of the oracle-score detection power (paper 000, Theorem 4 test)."""

    s: float
    n: int
    alpha: float
    reps: int
    delta: float
    null_multiplier: float


def _power_cell(cell: PowerCell, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    samples = [synth.purity_mixture(rng, cell.n, cell.s, cell.alpha, d=1) for _ in range(cell.reps)]
    aucs = _oracle_aucs(samples)
    n_pos = int(samples[0].y.sum())
    sigma0 = stats.null_auc_sd(n_pos, cell.n - n_pos)
    _, p_values, _ = stats.one_sided_z(aucs, 0.5, cell.null_multiplier * sigma0)
    detected = p_values < cell.delta
    return {
        "s": cell.s, "n": cell.n, "alpha": cell.alpha, "reps": cell.reps,
        "power": detected.mean(), "power_se": detected.std(ddof=1) / np.sqrt(cell.reps),
        "mean_auc": aucs.mean(),
    }


def detection_power(
    cells: Sequence[tuple[float, int, float]], reps: int, delta: float = 0.05,
    null_multiplier: float = 1.0, seed: int = 0, n_jobs: int = 1,
) -> pd.DataFrame:
    """Empirical power of the Theorem 4 test (oracle scores) at each (s, n, α) cell."""
    items = [PowerCell(s=float(s), n=int(n), alpha=float(a), reps=reps, delta=delta, null_multiplier=null_multiplier)
             for s, n, a in cells]
    return pd.DataFrame(parallel.parallel_map(_power_cell, items, seed=seed, n_jobs=n_jobs))


def crossing_purity(alphas: np.ndarray, power: np.ndarray, target: float) -> float:
    """α at which a power curve first reaches ``target``, interpolated on log α.

    NaN when the curve never reaches it or already starts above it (the crossing is censored by
    the grid, so it must not enter a slope fit).
    """
    order = np.argsort(alphas)
    alphas, power = np.asarray(alphas)[order], np.asarray(power)[order]
    above = np.nonzero(power >= target)[0]
    if above.size == 0 or above[0] == 0:
        return float("nan")
    i = above[0]
    lo, hi = np.log(alphas[i - 1]), np.log(alphas[i])
    frac = (target - power[i - 1]) / (power[i] - power[i - 1])
    return float(np.exp(lo + frac * (hi - lo)))


def detection_boundary(
    rates: pd.DataFrame, rate_column: str, s: float, target: float, delta: float = 0.05, gamma: float = 0.2,
    null_scale: float = 1.0,
) -> tuple[pd.DataFrame, float]:
    """Empirical detection boundary of a (n, α) rate grid beside α*(n), and its log–log slope.

    Per n: the α where ``rate_column`` first reaches ``target`` (:func:`crossing_purity`; NaN when
    censored); ``alpha_star_exact``, the exact root of the power condition at the null scale of the
    test that produced the rates (``null_scale``·σ₀: 1.4 for the detection test), and ``alpha_star``,
    the linearised Eq. 11 at σ₀, with ``linearisation_holds`` where it is within 10% of the exact root
    at σ₀ (small α and s). The slope uses the uncensored sizes (NaN with fewer than two).
    """
    boundary = pd.DataFrame([
        {"n": n, "alpha_empirical": crossing_purity(cell.alpha.to_numpy(), cell[rate_column].to_numpy(), target)}
        for n, cell in rates.groupby("n", sort=True)
    ])
    boundary["alpha_star_exact"] = [theory.critical_purity_exact(n, s, delta, gamma, null_scale) for n in boundary.n]
    boundary["alpha_star"] = theory.critical_purity(boundary.n, s, delta, gamma)
    exact_at_sigma0 = np.array([theory.critical_purity_exact(n, s, delta, gamma) for n in boundary.n])
    boundary["linearisation_holds"] = np.abs(boundary.alpha_star / exact_at_sigma0 - 1) <= 0.1
    fitted = boundary.dropna(subset=["alpha_empirical"])
    slope = loglog_slope(fitted.n, fitted.alpha_empirical) if len(fitted) >= 2 else float("nan")
    return boundary, slope


# --------------------------------------------------------------------------- generalisation gap


def ramp_risk(margins: np.ndarray) -> np.ndarray:
    """Mean ramp loss clip(1 − y·f, 0, 1): 1-Lipschitz, in [0, 1], above the 0–1 loss."""
    return np.clip(1.0 - margins, 0.0, 1.0).mean(axis=-1)


@dataclass(frozen=True)
class GapCell:
    """One training size n of the norm-bounded probes' generalisation gaps (paper 000, Theorem 1, Eq. 2)."""

    n: int
    d: int
    s: float
    alpha: float
    reg: float
    reps: int
    n_test: int


def _gap_cell(cell: GapCell, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    test = synth.purity_mixture(rng, cell.n_test, cell.s, cell.alpha, cell.d)
    test_sign = 2 * test.y - 1
    rows = []
    for _ in range(cell.reps):
        train = synth.purity_mixture(rng, cell.n, cell.s, cell.alpha, cell.d)
        train_sign = 2 * train.y - 1
        # C = 1/(reg·n) keeps the penalty per sample fixed, so ‖w‖ stays bounded as n grows.
        probe = LogisticRegression(C=1.0 / (cell.reg * cell.n), fit_intercept=False).fit(train.X, train.y)
        w = probe.coef_[0]
        # Worst case over the unit ball for the linear loss −y·wᵀx: sup_w (R − R̂) = ‖mean(y x) − E[y x]‖,
        # with E[y x] = (marked fraction)·Δ/2 (identity covariance: the oracle direction is Δ).
        expected = train.marked.mean() * train.oracle_direction / 2
        signs = rng.choice([-1.0, 1.0], size=(64, cell.n))
        rows.append({
            "erm_gap": ramp_risk(test_sign * (test.X @ w)) - ramp_risk(train_sign * (train.X @ w)),
            "weight_norm": np.linalg.norm(w),
            "radius": np.linalg.norm(train.X, axis=1).max(),
            "uniform_deviation": np.linalg.norm((train_sign[:, None] * train.X).mean(0) - expected),
            "rademacher_empirical": np.linalg.norm(signs @ train.X, axis=1).mean() / cell.n,
        })
    frame = pd.DataFrame(rows)
    return {
        "n": cell.n, "d": cell.d, "s": cell.s, "alpha": cell.alpha, "reps": cell.reps,
        "erm_gap": frame.erm_gap.mean(), "erm_gap_se": frame.erm_gap.std(ddof=1) / np.sqrt(cell.reps),
        "uniform_deviation": frame.uniform_deviation.mean(),
        "rademacher_empirical": frame.rademacher_empirical.mean(),
        "weight_norm": frame.weight_norm.max(), "radius": frame.radius.max(),
    }


def generalization_gap(
    n_values: Sequence[int], d: int, s: float, alpha: float, reg: float, reps: int,
    n_test: int = 20000, delta: float = 0.05, seed: int = 0, n_jobs: int = 1,
) -> pd.DataFrame:
    """Generalisation gaps of norm-bounded linear probes vs Theorem 1, over n (purity model).

    Columns: ``erm_gap``, the ramp-loss gap (test − train) of a fitted ℓ2 logistic probe, beside
    its bound ``erm_bound`` (Eq. 2 at the probe's largest ‖w‖ and the sample radius ρ);
    ``uniform_deviation``, the worst-case gap over the unit ball for the linear loss, beside
    ``uniform_bound`` = 2·ρ/√n (twice the Rademacher bound); ``rademacher_empirical``, the exact
    empirical Rademacher complexity of the unit ball, beside ``rademacher_bound`` = ρ/√n.
    """
    cells = [GapCell(n=int(n), d=d, s=s, alpha=alpha, reg=reg, reps=reps, n_test=n_test) for n in n_values]
    frame = pd.DataFrame(parallel.parallel_map(_gap_cell, cells, seed=seed, n_jobs=n_jobs))
    frame["erm_bound"] = theory.generalization_bound(frame["n"], frame["weight_norm"], frame["radius"], delta)
    frame["rademacher_bound"] = theory.rademacher_linear(frame["n"], 1.0, frame["radius"])
    frame["uniform_bound"] = 2.0 * frame["rademacher_bound"]
    return frame


def loglog_slope(x: Sequence[float], y: Sequence[float]) -> float:
    """Least-squares slope of log y on log x."""
    return float(np.polyfit(np.log(np.asarray(x, float)), np.log(np.asarray(y, float)), 1)[0])


# --------------------------------------------------------------------------- Proposition 1: the minimax rate


@dataclass(frozen=True)
class HypercubeCell:
    """One (n, d_B) cell of the hypercube family behind Proposition 1's lower bound, embedded in ℝ^D."""

    n: int
    intrinsic_dim: int
    ambient_dim: int
    reps: int


def _hypercube_cell(cell: HypercubeCell, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    eps = 0.5 * np.sqrt(cell.intrinsic_dim / cell.n)
    # d_B orthonormal points of the bias manifold, rotated into the ambient space at random.
    points = np.linalg.qr(rng.standard_normal((cell.ambient_dim, cell.intrinsic_dim)))[0].T
    excess = []
    for _ in range(cell.reps):
        signs = rng.choice([-1.0, 1.0], size=cell.intrinsic_dim)
        index = rng.integers(cell.intrinsic_dim, size=cell.n)
        y = (rng.random(cell.n) < 0.5 + eps * signs[index]).astype(int)
        if y.min() == y.max():
            continue
        # A nearly unpenalised linear probe; its population excess risk is exact given the fit:
        # 2ε at each point whose score has the wrong sign (½·2ε at a zero score), averaged over points.
        probe = LogisticRegression(C=1e4, fit_intercept=False).fit(points[index], y)
        scores = np.sign(points @ probe.coef_[0])
        excess.append(2 * eps * np.mean(np.where(scores == 0, 0.5, scores != signs)))
    excess = np.asarray(excess)
    return {"n": cell.n, "intrinsic_dim": cell.intrinsic_dim, "ambient_dim": cell.ambient_dim, "reps": len(excess),
            "probe_excess": excess.mean(), "probe_excess_se": excess.std(ddof=1) / np.sqrt(len(excess)),
            "bayes_excess": theory.hypercube_bayes_excess(cell.n, cell.intrinsic_dim)}


def minimax_rate(
    n_values: Sequence[int], intrinsic_dims: Sequence[int], ambient_dim: int, reps: int, seed: int = 0,
    n_jobs: int = 1,
) -> pd.DataFrame:
    """Excess risk on Proposition 1's hard family: a linear probe's (Monte Carlo) beside the Bayes risk (exact).

    The Bayes excess under a uniform prior on the signs lower-bounds every learner's worst case; it scales
    as √(d_B/n) (the Ω(√(d_B/n)) of Prop. 1), whatever the ambient dimension D. A linear probe that
    reaches the same rate shows the bound is matched.
    """
    if ambient_dim < max(intrinsic_dims):
        raise ValueError(f"ambient_dim={ambient_dim!r} is out of range; allowed: >= max(intrinsic_dims) = "
                         f"{max(intrinsic_dims)}")
    too_small = [(n, k) for n, k in product(n_values, intrinsic_dims) if n < 4 * k]
    if too_small:
        raise ValueError(f"n_values × intrinsic_dims contains {too_small[0]!r}; allowed: n >= 4·d_B")
    cells = [HypercubeCell(int(n), int(k), ambient_dim, reps) for n, k in product(n_values, intrinsic_dims)]
    return pd.DataFrame(parallel.parallel_map(_hypercube_cell, cells, seed=seed, n_jobs=n_jobs))


# --------------------------------------------------------------------------- curvature: generalisation vs separability


@dataclass(frozen=True)
class CurvatureGapCell:
    """One curvature κ of the double-edged-sword experiment (paper 000, Sec. IV after Theorem 1)."""

    kappa: float
    r: float
    tau: float
    sigma_w: float
    n: int
    d: int
    reg: float
    reps: int
    n_test: int


def _curvature_gap_cell(cell: CurvatureGapCell, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    # Population moments of sphere_clusters: E[x] lies on the axis through the arc's midpoint and E[y x] on
    # the chord, each shrunk by E[cos(τZ/R)] = exp(−τ²κ/2) (flat case: 0 and r/2).
    shrink = np.exp(-cell.tau**2 * cell.kappa / 2)
    mean, expected = np.zeros(cell.d), np.zeros(cell.d)
    if cell.kappa == 0:
        expected[0] = cell.r / 2
    else:
        radius = 1 / np.sqrt(cell.kappa)
        mean[1] = radius * np.cos(cell.r / (2 * radius)) * shrink
        expected[0] = radius * np.sin(cell.r / (2 * radius)) * shrink
    test = synth.sphere_clusters(rng, cell.n_test, cell.kappa, cell.r, cell.sigma_w, cell.d, cell.tau)
    rows = []
    for _ in range(cell.reps):
        train = synth.sphere_clusters(rng, cell.n, cell.kappa, cell.r, cell.sigma_w, cell.d, cell.tau)
        sign = 2.0 * train.y - 1
        probe = LogisticRegression(C=1.0 / (cell.reg * cell.n), fit_intercept=False).fit(train.X - mean, train.y)
        w = probe.coef_[0]
        test_margins = (2.0 * test.y - 1) * ((test.X - mean) @ w)
        rows.append({
            "uniform_deviation": np.linalg.norm((sign[:, None] * (train.X - mean)).mean(0) - expected),
            "erm_gap": ramp_risk(test_margins) - ramp_risk(sign * ((train.X - mean) @ w)),
            "radius": np.linalg.norm(train.X - mean, axis=1).max(),
            "probe_auc": stats.auroc(test.y, (test.X - mean) @ w),
        })
    frame = pd.DataFrame(rows)
    return {"kappa": cell.kappa, "r": cell.r, "tau": cell.tau, "sigma_w": cell.sigma_w, "n": cell.n, "reps": cell.reps,
            "uniform_deviation": frame.uniform_deviation.mean(),
            "uniform_deviation_se": frame.uniform_deviation.std(ddof=1) / np.sqrt(cell.reps),
            "erm_gap": frame.erm_gap.mean(), "erm_gap_se": frame.erm_gap.std(ddof=1) / np.sqrt(cell.reps),
            "radius": frame.radius.max(), "probe_auc": frame.probe_auc.mean(),
            "probe_auc_se": frame.probe_auc.std(ddof=1) / np.sqrt(cell.reps),
            "chordal_auc": theory.chordal_auc_spread(cell.r, cell.kappa, cell.sigma_w, cell.tau)}


def curvature_tradeoff(
    kappas: Sequence[float], r: float, tau: float, sigma_w: float, n: int, d: int, reg: float, reps: int,
    n_test: int = 20000, seed: int = 0, n_jobs: int = 1,
) -> pd.DataFrame:
    """Curvature's double edge at fixed geodesic distance r and intrinsic spread τ (paper 000, Sec. IV).

    Per κ: the worst-case gap over the unit ball (linear loss, centred at the population mean), a norm-
    bounded probe's ramp-loss gap, the sample's extrinsic radius, and the probe's test AUC beside the
    chordal AUC with spread (:func:`theory.chordal_auc_spread`). Theorem 1 predicts the gaps shrink with
    the extrinsic radius as κ grows; Theorem 2 that the AUC falls with the chord.
    """
    for kappa in kappas:
        if kappa > 0 and np.sqrt(kappa) * r > np.pi:
            raise ValueError(f"kappas contains {kappa!r}: r={r!r} exceeds the sphere's diameter pi/sqrt(kappa)")
    cells = [CurvatureGapCell(float(k), r, tau, sigma_w, n, d, reg, reps, n_test) for k in kappas]
    return pd.DataFrame(parallel.parallel_map(_curvature_gap_cell, cells, seed=seed, n_jobs=n_jobs))


# --------------------------------------------------------------------------- the β_B–curvature link


def concentration_curvature_link(
    kappas: Sequence[float], r: float, sigma_w: float, d: int, n: int, reps: int, seed: int = 0,
) -> pd.DataFrame:
    """β̂_B of two sphere clusters at geodesic distance r against β at separation chord(r, κ)/σ_w, per κ.

    The link (paper 000, Def. 1 with Theorem 2's chord) is re-derived in
    :func:`lib.bias_probes.estimators.concentration_from_separation`.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for kappa in kappas:
        betas = [estimators.concentration_index(synth.sphere_clusters(rng, n, kappa, r, sigma_w, d).X)
                 for _ in range(reps)]
        chord = float(theory.chord_length(r, kappa))
        rows.append({"kappa": kappa, "r": r, "chord": chord, "beta_measured": np.mean(betas),
                     "beta_se": np.std(betas, ddof=1) / np.sqrt(reps),
                     "beta_predicted": estimators.concentration_from_separation(chord / sigma_w, d)})
    frame = pd.DataFrame(rows)
    frame["error"] = frame.beta_measured - frame.beta_predicted
    return frame
