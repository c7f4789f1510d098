"""Closed forms of paper 000 (*When and Why Do Linear Bias Probes Fail?*), vectorised.

Notation as in the paper (Sec. III): Φ the standard normal CDF, s the Mahalanobis separation of
the two marked clusters, α the purity, κ the curvature, σ_w the within-class noise scale.
Several equations were lost in the text extraction of the paper; each function states the form it implements
and where it was re-derived. ``tests/test_theory.py`` checks them against
Monte Carlo simulations of the generative models they describe.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize
from scipy.stats import binom, norm

from lib.stats import null_auc_var  # Theorem 4; re-exported: the null variance lives in the core

#: 2√π/√3 ≈ 2.0466, the constant of the detectability threshold (Theorem 4, Eq. 11).
CRITICAL_PURITY_CONSTANT: float = 2.0 * np.sqrt(np.pi) / np.sqrt(3.0)


def binormal_auc(s: ArrayLike) -> np.ndarray:
    """AUC of the optimal linear score for two Gaussians at Mahalanobis distance s (Lemma 1).

    AUC = Φ(s/√2).
    """
    return norm.cdf(np.asarray(s, dtype=float) / np.sqrt(2.0))


def purity_auc(s: ArrayLike, alpha: ArrayLike) -> np.ndarray:
    """Best achievable AUC at purity α (Theorem 3, Eq. 8).

    AUC_max(α) = α²Φ(s/√2) + 2α(1−α)Φ(s/(2√2)) + (1−α)²/2: marked–marked pairs (α²) see the full
    separation, marked–neutral pairs (2α(1−α)) half of it (neutral texts sit at the midpoint),
    neutral–neutral pairs ((1−α)²) are at chance.
    """
    s = np.asarray(s, dtype=float)
    a = np.asarray(alpha, dtype=float)
    return (
        a**2 * norm.cdf(s / np.sqrt(2.0))
        + 2.0 * a * (1.0 - a) * norm.cdf(s / (2.0 * np.sqrt(2.0)))
        + (1.0 - a) ** 2 / 2.0
    )


def offset_purity_auc(s: ArrayLike, alpha: ArrayLike, b_w: ArrayLike) -> np.ndarray:
    """Eq. 8 when neutral texts sit at offset b_w (in s.d. units along w) from the midpoint (Cor. 2).

    Re-derived (the corollary's formula was lost in extraction): marked texts project to ±s/2 and
    neutral ones to b_w, all with unit variance, so marked–neutral pairs compare at s/2 ∓ b_w:
    α²Φ(s/√2) + α(1−α)[Φ((s/2 − b_w)/√2) + Φ((s/2 + b_w)/√2)] + (1−α)²/2. Equals Eq. 8 at b_w = 0 and
    is below it for any b_w ≠ 0 when s > 0.
    """
    s = np.asarray(s, dtype=float)
    a = np.asarray(alpha, dtype=float)
    b = np.asarray(b_w, dtype=float)
    root2 = np.sqrt(2.0)
    return (
        a**2 * norm.cdf(s / root2)
        + a * (1.0 - a) * (norm.cdf((s / 2 - b) / root2) + norm.cdf((s / 2 + b) / root2))
        + (1.0 - a) ** 2 / 2.0
    )


def saturated_purity_auc(alpha: ArrayLike) -> np.ndarray:
    """The s → ∞ limit of :func:`purity_auc` (Theorem 3, reading (ii)): ½ + α(2−α)/2."""
    a = np.asarray(alpha, dtype=float)
    return 0.5 + a * (2.0 - a) / 2.0


#: Theorem 3 (ii): the paper states the saturated form holds within this tolerance …
SATURATION_TOLERANCE: float = 0.005
#: … for every s at or above this separation.
SATURATION_S: float = 6.6


def saturation_threshold(tolerance: float = SATURATION_TOLERANCE) -> float:
    """Smallest s beyond which Eq. 8 stays within ``tolerance`` of ½ + α(2−α)/2 for every α.

    Theorem 3, reading (ii) (the paper states s ≥ 6.6 for 0.005). The largest gap over α is
    decreasing in s, so the threshold is the root of max_α gap(s) = tolerance.
    """

    def largest_gap(s: float) -> float:
        best = optimize.minimize_scalar(
            lambda a: -(saturated_purity_auc(a) - purity_auc(s, a)), bounds=(0.0, 1.0), method="bounded",
            options={"xatol": 1e-10},
        )
        return float(-best.fun)

    return float(optimize.brentq(lambda s: largest_gap(s) - tolerance, 1e-6, 100.0, xtol=1e-10))


def chord_length(r: ArrayLike, kappa: ArrayLike) -> np.ndarray:
    """Chord subtended by geodesic distance r on curvature κ ≥ 0 (Theorem 2, Eq. 6).

    (2/√κ)·sin(√κ·r/2), which tends to r as κ → 0 (the flat case, returned exactly at κ = 0).
    """
    r = np.asarray(r, dtype=float)
    kappa = np.asarray(kappa, dtype=float)
    if np.any(kappa < 0):
        raise ValueError(f"kappa must be >= 0, got {kappa[kappa < 0]}")
    root = np.sqrt(kappa)
    safe = np.where(root > 0, root, 1.0)
    return np.where(root > 0, 2.0 / safe * np.sin(safe * r / 2.0), r)


def chordal_auc(r: ArrayLike, kappa: ArrayLike, sigma_w: ArrayLike) -> np.ndarray:
    """AUC of the ambient linear probe for clusters at geodesic distance r (Theorem 2, Eq. 6).

    Φ(chord / (√2·σ_w)): Lemma 1 with the chord in place of the separation.
    """
    return norm.cdf(chord_length(r, kappa) / (np.sqrt(2.0) * np.asarray(sigma_w, dtype=float)))


def curvature_ceiling(kappa: ArrayLike, sigma_w: ArrayLike) -> np.ndarray:
    """Largest ambient-linear AUC on curvature κ > 0, whatever r (Corollary 1, Eq. 7).

    Φ(√2/(√κ·σ_w)): the chord is at most the diameter scale 2/√κ; equals 1 at κ = 0.
    """
    kappa = np.asarray(kappa, dtype=float)
    with np.errstate(divide="ignore"):
        arg = np.sqrt(2.0) / (np.sqrt(kappa) * np.asarray(sigma_w, dtype=float))
    return norm.cdf(arg)


def _z_sum(delta: ArrayLike, gamma: ArrayLike) -> np.ndarray:
    return norm.isf(np.asarray(delta, dtype=float)) + norm.isf(np.asarray(gamma, dtype=float))


def critical_purity(n: ArrayLike, s: ArrayLike, delta: float = 0.05, gamma: float = 0.2) -> np.ndarray:
    """Detectability threshold α*(n) ≈ (2√π/√3)·(z_{1−δ}+z_{1−γ})/(s√n) (Theorem 4, Eq. 11).

    Re-derived (the equation was lost in extraction): linearising Eq. 8 at small α and s gives
    AUC − ½ ≈ α·s/(2√π); a level-δ test with power 1−γ needs this to exceed
    (z_{1−δ}+z_{1−γ})·σ₀ with balanced classes, σ₀ ≈ 1/√(3n). Values above 1 mean no purity
    is detectable at this n.
    """
    n = np.asarray(n, dtype=float)
    s = np.asarray(s, dtype=float)
    return CRITICAL_PURITY_CONSTANT * _z_sum(delta, gamma) / (s * np.sqrt(n))


def sample_budget(alpha: ArrayLike, s: ArrayLike, delta: float = 0.05, gamma: float = 0.2) -> np.ndarray:
    """Test-set size needed to detect purity α: n_te(α) ≈ (2.05·(z_{1−δ}+z_{1−γ})/(s·α))² (Eq. 11)."""
    alpha = np.asarray(alpha, dtype=float)
    s = np.asarray(s, dtype=float)
    return (CRITICAL_PURITY_CONSTANT * _z_sum(delta, gamma) / (s * alpha)) ** 2


def critical_purity_exact(
    n: float, s: float, delta: float = 0.05, gamma: float = 0.2, null_scale: float = 1.0
) -> float:
    """α solving purity_auc(s, α) − ½ = (z_{1−δ}+z_{1−γ})·null_scale·σ₀(n/2, n/2) exactly.

    The same power condition as :func:`critical_purity` without the small-α, small-s
    linearisation of Eq. 8 (σ₀ from :func:`null_auc_var`, balanced classes). Returns ``inf``
    when even α = 1 falls short.
    """
    margin = float(_z_sum(delta, gamma)) * null_scale * float(np.sqrt(null_auc_var(n / 2, n / 2)))

    def excess(alpha: float) -> float:
        return float(purity_auc(s, alpha)) - 0.5 - margin

    if excess(1.0) < 0:
        return float("inf")
    return float(optimize.brentq(excess, 0.0, 1.0, xtol=1e-12))


# --------------------------------------------------------------------------- Theorem 1


def rademacher_linear(n: ArrayLike, weight_norm: ArrayLike, radius: ArrayLike) -> np.ndarray:
    """Rademacher complexity bound of {x ↦ wᵀx : ‖w‖ ≤ W} on data in a ball of radius ρ.

    R_n ≤ W·ρ/√n (Theorem 1; the standard bound via Cauchy–Schwarz and Jensen, re-derived
    because Eq. 2 was lost in extraction). ρ is the extrinsic radius ρ_B of the data's support.
    """
    n = np.asarray(n, dtype=float)
    return np.asarray(weight_norm, dtype=float) * np.asarray(radius, dtype=float) / np.sqrt(n)


def generalization_bound(
    n: ArrayLike,
    weight_norm: ArrayLike,
    radius: ArrayLike,
    delta: float = 0.05,
    lipschitz: float = 1.0,
) -> np.ndarray:
    """Theorem 1 (Eq. 2), re-derived: gap ≤ 2·L·W·ρ_B/√n + √(log(1/δ)/(2n)).

    For an L-Lipschitz loss with values in [0, 1] (e.g. the ramp loss, which upper-bounds the
    0–1 loss), Talagrand's contraction and the Rademacher inequality quoted in Sec. III give,
    with probability ≥ 1−δ, R(f) − R̂_n(f) ≤ 2·L·R_n + √(log(1/δ)/(2n)) for every ‖w‖ ≤ W.
    """
    n = np.asarray(n, dtype=float)
    return 2.0 * lipschitz * rademacher_linear(n, weight_norm, radius) + np.sqrt(
        np.log(1.0 / delta) / (2.0 * n)
    )


def chordal_auc_spread(r: float, kappa: float, sigma_w: float, tau: float, nodes: int = 48) -> float:
    """AUC of the chord-direction score when each text also spreads along the manifold (τ > 0).

    Derived here (Theorem 2 states the τ = 0 case, Eq. 6): on the great circle of radius R = 1/√κ a text
    at signed arc a ~ N(±r/2, τ²) projects on the chord as R·sin(a/R) plus N(0, σ_w²) ambient noise, so
    AUC = E[Φ((R sin(a₊/R) − R sin(a₋/R)) / (√2 σ_w))] over independent a₊, a₋, computed by
    Gauss–Hermite quadrature (flat case: the arcs themselves). Equals :func:`chordal_auc` at τ = 0.
    """
    if tau < 0 or sigma_w <= 0 or kappa < 0:
        raise ValueError(f"need tau >= 0, sigma_w > 0, kappa >= 0; got {tau!r}, {sigma_w!r}, {kappa!r}")
    if tau == 0:
        return float(chordal_auc(r, kappa, sigma_w))
    x, w = np.polynomial.hermite_e.hermegauss(nodes)  # nodes for the standard normal weight
    w = w / w.sum()
    arc_plus, arc_minus = r / 2 + tau * x[:, None], -r / 2 + tau * x[None, :]
    if kappa == 0:
        proj_plus, proj_minus = arc_plus, arc_minus
    else:
        radius = 1 / np.sqrt(kappa)
        proj_plus, proj_minus = radius * np.sin(arc_plus / radius), radius * np.sin(arc_minus / radius)
    return float(w @ norm.cdf((proj_plus - proj_minus) / (np.sqrt(2.0) * sigma_w)) @ w)


def hypercube_bayes_excess(n: int, intrinsic_dim: int) -> float:
    """Bayes excess risk of the hypercube family behind the minimax lower bound (Proposition 1).

    Derived here (Prop. 1 states Ω(√(d_B/n)); its proof was lost). Assouad's construction: the text
    sits at one of d_B well-separated points of the bias manifold, each with probability 1/d_B, and
    P(y = 1 | point j) = ½ + σ_j ε with unknown signs σ ∈ {±1}^{d_B} and ε = ½·√(d_B/n). Under a
    uniform prior on σ the Bayes rule is a majority vote in each point, so with m ~ Bin(n, 1/d_B)
    texts per point the excess risk is 2ε·P(majority wrong), averaged over m (ties broken by a coin).
    As n grows the per-point vote is wrong with probability → Φ(−2ε√(n/d_B)) = Φ(−1), so the excess
    tends to Φ(−1)·√(d_B/n) ≈ 0.159·√(d_B/n): no estimator, linear or not, beats the rate.
    """
    if intrinsic_dim < 1 or n < 4 * intrinsic_dim:
        raise ValueError(f"need intrinsic_dim >= 1 and n >= 4*intrinsic_dim; got n={n!r}, "
                         f"intrinsic_dim={intrinsic_dim!r}")

    eps = 0.5 * np.sqrt(intrinsic_dim / n)
    counts = np.arange(n + 1)
    # A vote over m texts is wrong below m/2 true-sign votes, and half the time at a tie.
    wrong = binom.cdf(np.ceil(counts / 2) - 1, counts, 0.5 + eps)
    wrong = wrong + np.where(counts % 2 == 0, 0.5 * binom.pmf(counts // 2, counts, 0.5 + eps), 0.0)
    p_count = binom.pmf(counts, n, 1.0 / intrinsic_dim)
    return float(2 * eps * (p_count @ wrong))
