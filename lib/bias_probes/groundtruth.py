"""Probes and estimators on generators with known truth: paper 000's synthetic experiments (E3, E5, E6, E10).

The probe functions run the paper's probing protocol (:func:`lib.probes.probe_auc`: grouped 5-fold ×
5 seeds, pooled out-of-fold AUC) on :mod:`lib.bias_probes.synth` generators; the calibration functions run the
:mod:`lib.bias_probes.estimators` on manifolds whose s, κ and d_B are known (E3 Part D). Each returns a tidy
table with the truth or the closed form of :mod:`lib.bias_probes.theory` beside the measurement. Cells are
spread over processes with :func:`lib.parallel.parallel_map`, one seed per cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

import numpy as np
import pandas as pd
from scipy.stats import norm

from lib import parallel, probes, stats
from lib.bias_probes import estimators, synth, theory

PROBES = ("linear", "rbf_svm", "mlp", "oracle")


def _estimator(name: str, sample: synth.LabelledSample, seed: int, kappa: float = 0.0, r: float = 0.0):
    if name in probes.LEARNED_PROBES:
        return probes.make_probe(name, seed)
    if name == "oracle":
        return probes.OracleProbe(sample.oracle_direction)
    if name == "geodesic_oracle":
        return probes.GeodesicOracle(kappa, r)
    raise ValueError(f"probe={name!r} is unknown; allowed: {', '.join((*PROBES, 'geodesic_oracle'))}")


def _cv_auc(sample: synth.LabelledSample, estimator, rng: np.random.Generator) -> float:
    """Seed-averaged pooled out-of-fold AUC of ``estimator`` under the paper's protocol."""
    return probes.probe_auc(sample.X, sample.y, sample.groups, estimator, seed=parallel.draw_seed(rng)).auc_mean


def _mean_se(values: Sequence[float]) -> tuple[float, float]:
    values = np.asarray(values, dtype=float)
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else 0.0


# --------------------------------------------------------------------------- E3-A, E10: purity law


@dataclass(frozen=True)
class PurityProbeCell:
    """One (probe, s, α) cell of the probes-vs-purity-law grid (paper 000, E3-A and E10)."""

    s: float
    alpha: float
    n: int
    d: int
    reps: int
    probe: str


def _purity_probe_cell(cell: PurityProbeCell, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    aucs, realised = [], cell.alpha
    for _ in range(cell.reps):
        sample = synth.purity_mixture(rng, cell.n, cell.s, cell.alpha, cell.d)
        realised = sample.marked.mean()
        estimator = _estimator(cell.probe, sample, parallel.draw_seed(rng))
        aucs.append(_cv_auc(sample, estimator, rng))
    mean, se = _mean_se(aucs)
    return {"s": cell.s, "alpha": cell.alpha, "alpha_realised": realised, "n": cell.n, "d": cell.d,
            "probe": cell.probe, "reps": cell.reps, "probe_auc": mean, "probe_se": se,
            "bound": float(theory.purity_auc(cell.s, realised))}


def probes_vs_purity_law(
    s_values: Sequence[float], alphas: Sequence[float], n: int, d: int, reps: int,
    probe_names: Sequence[str] = ("linear",), seed: int = 0, n_jobs: int = 1,
) -> pd.DataFrame:
    """Cross-validated AUC of each probe on the purity mixture beside the Theorem 3 bound (E3-A, E10).

    ``excess_z`` = (probe AUC − bound)/s.e.: the bound is the exact maximum, so it should not be
    materially positive.
    """
    cells = [PurityProbeCell(s=float(s), alpha=float(a), n=n, d=d, reps=reps, probe=p)
             for p, s, a in product(probe_names, s_values, alphas)]
    frame = pd.DataFrame(parallel.parallel_map(_purity_probe_cell, cells, seed=seed, n_jobs=n_jobs))
    frame["excess_z"] = (frame.probe_auc - frame.bound) / frame.probe_se.where(frame.probe_se > 0)
    return frame


# --------------------------------------------------------------------------- E3-C: detection rates


@dataclass(frozen=True)
class DetectionCell:
    """One (s, n, α) cell of the full protocol's detection rates (paper 000, E3-C)."""

    s: float
    n: int
    alpha: float
    d: int
    reps: int
    null_multiplier: float


def _detection_cell(cell: DetectionCell, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    detected, aucs = [], []
    for _ in range(cell.reps):
        sample = synth.purity_mixture(rng, cell.n, cell.s, cell.alpha, cell.d)
        result = probes.probe_auc(sample.X, sample.y, sample.groups, null_multiplier=cell.null_multiplier,
                                  seed=parallel.draw_seed(rng))
        detected.append(result.detection.detected)
        aucs.append(result.auc_mean)
    rate, rate_se = _mean_se(detected)
    return {"s": cell.s, "n": cell.n, "alpha": cell.alpha, "d": cell.d, "reps": cell.reps, "detection_rate": rate,
            "detection_rate_se": rate_se, "mean_auc": float(np.mean(aucs))}


def probe_detection_rates(
    cells: Sequence[tuple[float, int, float]], d: int, reps: int,
    null_multiplier: float = stats.DETECTION_NULL_MULTIPLIER,
    seed: int = 0, n_jobs: int = 1,
) -> pd.DataFrame:
    """Detection rate of the full protocol (learned probe, 1.4·σ₀ test) per (s, n, α) cell (E3-C)."""
    items = [DetectionCell(s=float(s), n=int(n), alpha=float(a), d=d, reps=reps, null_multiplier=null_multiplier)
             for s, n, a in cells]
    return pd.DataFrame(parallel.parallel_map(_detection_cell, items, seed=seed, n_jobs=n_jobs))


# --------------------------------------------------------------------------- E6: generalisation gap


@dataclass(frozen=True)
class ProbeGapCell:
    """One training size n of the probe's generalisation gap (paper 000, E6)."""

    n: int
    d: int
    s: float
    alpha: float
    reps: int
    n_test: int


def _gap_cell(cell: ProbeGapCell, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    test = synth.purity_mixture(rng, cell.n_test, cell.s, cell.alpha, cell.d)
    gaps, test_aucs = [], []
    for _ in range(cell.reps):
        train = synth.purity_mixture(rng, cell.n, cell.s, cell.alpha, cell.d)
        probe = probes.linear_probe().fit(train.X, train.y)
        train_auc = stats.auroc(train.y, probe.decision_function(train.X))
        test_aucs.append(float(stats.auroc(test.y, probe.decision_function(test.X))))
        gaps.append(float(train_auc) - test_aucs[-1])
    gap, gap_se = _mean_se(gaps)
    return {"n": cell.n, "d": cell.d, "s": cell.s, "alpha": cell.alpha, "reps": cell.reps, "auc_gap": gap,
            "auc_gap_se": gap_se, "test_auc": float(np.mean(test_aucs)),
            "bound_auc": float(theory.purity_auc(cell.s, test.marked.mean()))}


def probe_generalization_gap(
    n_values: Sequence[int], d: int, s: float, alpha: float, reps: int, n_test: int = 20000,
    seed: int = 0, n_jobs: int = 1,
) -> pd.DataFrame:
    """Train − held-out AUC of the paper's probe (standardised ℓ2 logistic, C = 1) against n (E6)."""
    cells = [ProbeGapCell(n=int(n), d=d, s=s, alpha=alpha, reps=reps, n_test=n_test) for n in n_values]
    return pd.DataFrame(parallel.parallel_map(_gap_cell, cells, seed=seed, n_jobs=n_jobs))


# --------------------------------------------------------------------------- E5: orthogonality stress


@dataclass(frozen=True)
class OrthogonalityCell:
    """One confound angle (degrees from Δ) of the orthogonality stress test (paper 000, E5)."""

    angle_deg: float
    s: float
    alpha: float
    shift: float
    n: int
    d: int
    reps: int


def _orthogonality_cell(cell: OrthogonalityCell, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    angle = np.deg2rad(cell.angle_deg)
    offset = np.zeros(cell.d)
    offset[:2] = cell.shift * np.array([np.cos(angle), np.sin(angle)])  # Δ ∝ e₁ under identity covariance
    oracle, learned = [], []
    for _ in range(cell.reps):
        sample = synth.purity_mixture(rng, cell.n, cell.s, cell.alpha, cell.d, neutral_offset=offset)
        oracle.append(float(stats.auroc(sample.y, sample.X @ sample.oracle_direction)))
        learned.append(_cv_auc(sample, probes.linear_probe(), rng))
    b_w = cell.shift * np.cos(angle)
    oracle_mean, oracle_se = _mean_se(oracle)
    probe_mean, probe_se = _mean_se(learned)
    return {"angle_deg": cell.angle_deg, "s": cell.s, "alpha": cell.alpha, "shift": cell.shift, "n": cell.n,
            "d": cell.d, "reps": cell.reps, "b_w": b_w, "oracle_auc": oracle_mean, "oracle_se": oracle_se,
            "probe_auc": probe_mean, "probe_se": probe_se, "purity_law": float(theory.purity_auc(cell.s, cell.alpha)),
            "offset_law": float(theory.offset_purity_auc(cell.s, cell.alpha, b_w))}


def orthogonality_stress(
    angles_deg: Sequence[float], s: float, alpha: float, shift: float, n: int, d: int, reps: int,
    seed: int = 0, n_jobs: int = 1,
) -> pd.DataFrame:
    """E5: a confound direction (the marked-vs-neutral shift) rotated from ⊥Δ (C3 holds) toward Δ.

    Reconstructed: paper 000 names its orthogonality condition C3 without stating it. Here C3 is
    "the confound direction along which neutral texts differ from marked ones is orthogonal to the
    bias direction Δ (in the Σ⁻¹ metric)"; at angle θ from Δ the neutral texts sit at
    b_w = shift·cos θ along the discriminant, and Corollary 2 (:func:`lib.bias_probes.theory.offset_purity_auc`)
    predicts the AUC; Eq. 8 is exact at θ = 90°.
    """
    cells = [OrthogonalityCell(angle_deg=float(a), s=s, alpha=alpha, shift=shift, n=n, d=d, reps=reps)
             for a in angles_deg]
    return pd.DataFrame(parallel.parallel_map(_orthogonality_cell, cells, seed=seed, n_jobs=n_jobs))


# --------------------------------------------------------------------------- E10: spheres


@dataclass(frozen=True)
class SphereProbeCell:
    """One (probe, r) cell of the probes on sphere clusters (paper 000, E10)."""

    kappa: float
    r: float
    sigma_w: float
    tau: float
    n: int
    d: int
    reps: int
    probe: str


def _sphere_probe_cell(cell: SphereProbeCell, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    aucs = []
    for _ in range(cell.reps):
        sample = synth.sphere_clusters(rng, cell.n, cell.kappa, cell.r, cell.sigma_w, cell.d, tau=cell.tau)
        estimator = _estimator(cell.probe, sample, parallel.draw_seed(rng), cell.kappa, cell.r)
        aucs.append(_cv_auc(sample, estimator, rng))
    mean, se = _mean_se(aucs)
    scale = np.sqrt(cell.sigma_w**2 + cell.tau**2)
    return {"kappa": cell.kappa, "r": cell.r, "sigma_w": cell.sigma_w, "tau": cell.tau, "n": cell.n, "d": cell.d,
            "probe": cell.probe, "reps": cell.reps, "probe_auc": mean, "probe_se": se,
            "chordal_auc": theory.chordal_auc_spread(cell.r, cell.kappa, cell.sigma_w, cell.tau),
            "geodesic_auc": float(norm.cdf(cell.r / (np.sqrt(2) * scale)))}


def probes_on_spheres(
    kappa: float, r_values: Sequence[float], sigma_w: float, n: int, d: int, reps: int,
    probe_names: Sequence[str] = (*PROBES, "geodesic_oracle"), tau: float = 0.0, seed: int = 0, n_jobs: int = 1,
) -> pd.DataFrame:
    """E10: each probe's AUC on sphere clusters beside the chordal (Eq. 6) and flat/geodesic predictions.

    ``recovered`` = (AUC − chordal)/(geodesic − chordal): the share of the chordal–geodesic gap a
    probe wins back (0: none, 1: all). The chordal prediction is Eq. 6 averaged over the spread τ
    (:func:`theory.chordal_auc_spread`); the geodesic one uses the within-class scale √(σ_w² + τ²).
    """
    cells = [SphereProbeCell(kappa=kappa, r=float(r), sigma_w=sigma_w, tau=tau, n=n, d=d, reps=reps, probe=p)
             for p, r in product(probe_names, r_values)]
    frame = pd.DataFrame(parallel.parallel_map(_sphere_probe_cell, cells, seed=seed, n_jobs=n_jobs))
    gap = frame.geodesic_auc - frame.chordal_auc
    frame["recovered"] = (frame.probe_auc - frame.chordal_auc) / gap.where(gap > 1e-3)
    return frame


# --------------------------------------------------------------------------- E3-D: estimator calibration


@dataclass(frozen=True)
class CurvatureCell:
    """One true curvature κ of the sagitta estimator's calibration (paper 000, E3 Part D)."""

    kappa: float
    intrinsic_dim: int
    ambient_dim: int
    n: int
    noise: float
    reps: int
    fit: str = "origin"


def _curvature_cell(cell: CurvatureCell, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    estimates = [
        estimators.curvature_sagitta(
            synth.sphere_manifold(rng, cell.n, cell.intrinsic_dim, cell.ambient_dim, cell.kappa, cell.noise),
            intrinsic_dim=cell.intrinsic_dim, seed=rng, fit=cell.fit)
        for _ in range(cell.reps)
    ]
    mean, se = _mean_se(estimates)
    return {"kappa": cell.kappa, "intrinsic_dim": cell.intrinsic_dim, "ambient_dim": cell.ambient_dim, "n": cell.n,
            "noise": cell.noise, "fit": cell.fit, "reps": cell.reps, "kappa_hat": mean, "kappa_hat_se": se,
            "relative_error": mean / cell.kappa - 1}


def curvature_calibration(
    kappas: Sequence[float], intrinsic_dim: int, ambient_dim: int, n: int, noise: float, reps: int,
    seed: int = 0, n_jobs: int = 1, fit: str = "origin",
) -> pd.DataFrame:
    """κ̂ (sagitta ``fit``, true tangent dimension) on spheres of known curvature (E3 Part D)."""
    cells = [CurvatureCell(kappa=float(k), intrinsic_dim=intrinsic_dim, ambient_dim=ambient_dim, n=n, noise=noise,
                           reps=reps, fit=fit) for k in kappas]
    return pd.DataFrame(parallel.parallel_map(_curvature_cell, cells, seed=seed, n_jobs=n_jobs))


@dataclass(frozen=True)
class DimensionCell:
    """One true intrinsic dimension of the d̂ estimators' calibration (paper 000, E3 Part D)."""

    manifold: str
    intrinsic_dim: int
    ambient_dim: int
    n: int
    reps: int


def _dimension_cell(cell: DimensionCell, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    mle, twonn = [], []
    for _ in range(cell.reps):
        if cell.manifold == "linear":
            X = synth.linear_manifold(rng, cell.n, cell.intrinsic_dim, cell.ambient_dim)
        else:
            X = synth.sphere_manifold(rng, cell.n, cell.intrinsic_dim, cell.ambient_dim)
        mle.append(estimators.intrinsic_dim_mle(X))
        twonn.append(estimators.intrinsic_dim_twonn(X))
    return {"manifold": cell.manifold, "intrinsic_dim": cell.intrinsic_dim, "ambient_dim": cell.ambient_dim,
            "n": cell.n, "reps": cell.reps, "mle": float(np.mean(mle)), "twonn": float(np.mean(twonn)),
            "mle_relative_error": float(np.mean(mle)) / cell.intrinsic_dim - 1,
            "twonn_relative_error": float(np.mean(twonn)) / cell.intrinsic_dim - 1}


def dimension_calibration(
    manifold: str, intrinsic_dims: Sequence[int], ambient_dim: int, n: int, reps: int, seed: int = 0, n_jobs: int = 1
) -> pd.DataFrame:
    """d̂ (Levina–Bickel MLE with MacKay–Ghahramani, Two-NN) on ``linear`` or ``sphere`` manifolds (E3-D)."""
    if manifold not in ("linear", "sphere"):
        raise ValueError(f"manifold={manifold!r} is unknown; allowed: linear, sphere")
    cells = [DimensionCell(manifold=manifold, intrinsic_dim=int(m), ambient_dim=ambient_dim, n=n, reps=reps)
             for m in intrinsic_dims]
    return pd.DataFrame(parallel.parallel_map(_dimension_cell, cells, seed=seed, n_jobs=n_jobs))


@dataclass(frozen=True)
class SeparationCell:
    """One true separation s of the naive vs cross-fitted ŝ calibration (paper 000, E3 Part D, Table VI)."""

    s: float
    d: int
    n: int
    reps: int


def _separation_cell(cell: SeparationCell, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    naive, crossfit = [], []
    for _ in range(cell.reps):
        sample = synth.purity_mixture(rng, cell.n, cell.s, 1.0, cell.d)
        naive.append(estimators.separation_naive(sample.X, sample.y))
        crossfit.append(estimators.separation_crossfit(sample.X, sample.y, seed=rng))
    (naive_mean, naive_se), (crossfit_mean, crossfit_se) = _mean_se(naive), _mean_se(crossfit)
    return {"s": cell.s, "d": cell.d, "n": cell.n, "reps": cell.reps, "naive": naive_mean, "crossfit": crossfit_mean,
            "naive_se": naive_se, "crossfit_se": crossfit_se,
            "crossfit_median_relative_error": float(np.median(np.asarray(crossfit) / cell.s - 1)) if cell.s > 0
            else np.nan}


def separation_calibration(
    s_values: Sequence[float], d: int, n: int, reps: int, seed: int = 0, n_jobs: int = 1
) -> pd.DataFrame:
    """Naive vs cross-fitted ŝ on counterfactual (α = 1) samples of known s (E3-D, Table VI): per s the means over
    ``reps`` samples and their Monte Carlo s.e. (``naive_se``, ``crossfit_se``)."""
    cells = [SeparationCell(s=float(s), d=d, n=n, reps=reps) for s in s_values]
    return pd.DataFrame(parallel.parallel_map(_separation_cell, cells, seed=seed, n_jobs=n_jobs))
