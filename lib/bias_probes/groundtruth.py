"""Probes and estimators on generators with known truth: paper 000's synthetic experiments (E3, E5, E6, E10).

The probe functions run the paper's probing protocol (:func:`lib.probes.probe_auc`: grouped 5-fold ×
5 seeds, pooled out-of-fold AUC) on :mod:`lib.bias_probes.synth` generators; the calibration functions run the
:mod:`lib.bias_probes.estimators` on manifolds whose s, κ and d_B are known (E3 Part D). Each returns a tidy
table with the truth or the closed form of :mod:`lib.bias_probes.theory` beside the measurement. Cells are
spread over processes with :func:`lib.parallel.parallel_map`, one seed per cell.
"""

from __future__ import annotations

from collections.abc import Sequence
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


def _purity_probe_cell(cell: tuple, seed: int) -> dict:
    s, alpha, n, d, reps, probe = cell
    rng = np.random.default_rng(seed)
    aucs, realised = [], alpha
    for _ in range(reps):
        sample = synth.purity_mixture(rng, n, s, alpha, d)
        realised = sample.marked.mean()
        estimator = _estimator(probe, sample, parallel.draw_seed(rng))
        aucs.append(_cv_auc(sample, estimator, rng))
    mean, se = _mean_se(aucs)
    return {"s": s, "alpha": alpha, "alpha_realised": realised, "n": n, "d": d, "probe": probe, "reps": reps,
            "probe_auc": mean, "probe_se": se, "bound": float(theory.purity_auc(s, realised))}


def probes_vs_purity_law(
    s_values: Sequence[float], alphas: Sequence[float], n: int, d: int, reps: int,
    probe_names: Sequence[str] = ("linear",), seed: int = 0, n_jobs: int = 1,
) -> pd.DataFrame:
    """Cross-validated AUC of each probe on the purity mixture beside the Theorem 3 bound (E3-A, E10).

    ``excess_z`` = (probe AUC − bound)/s.e.: the bound is the exact maximum, so it should not be
    materially positive.
    """
    cells = [(float(s), float(a), n, d, reps, p) for p, s, a in product(probe_names, s_values, alphas)]
    frame = pd.DataFrame(parallel.parallel_map(_purity_probe_cell, cells, seed=seed, n_jobs=n_jobs))
    frame["excess_z"] = (frame.probe_auc - frame.bound) / frame.probe_se.where(frame.probe_se > 0)
    return frame


# --------------------------------------------------------------------------- E3-C: detection rates


def _detection_cell(cell: tuple, seed: int) -> dict:
    s, n, alpha, d, reps, null_multiplier = cell
    rng = np.random.default_rng(seed)
    detected, aucs = [], []
    for _ in range(reps):
        sample = synth.purity_mixture(rng, n, s, alpha, d)
        result = probes.probe_auc(sample.X, sample.y, sample.groups, null_multiplier=null_multiplier,
                                  seed=parallel.draw_seed(rng))
        detected.append(result.detection.detected)
        aucs.append(result.auc_mean)
    rate, rate_se = _mean_se(detected)
    return {"s": s, "n": n, "alpha": alpha, "d": d, "reps": reps, "detection_rate": rate, "detection_rate_se": rate_se,
            "mean_auc": float(np.mean(aucs))}


def probe_detection_rates(
    cells: Sequence[tuple[float, int, float]], d: int, reps: int, null_multiplier: float = stats.DETECTION_NULL_MULTIPLIER,
    seed: int = 0, n_jobs: int = 1,
) -> pd.DataFrame:
    """Detection rate of the full protocol (learned probe, 1.4·σ₀ test) per (s, n, α) cell (E3-C)."""
    items = [(float(s), int(n), float(a), d, reps, null_multiplier) for s, n, a in cells]
    return pd.DataFrame(parallel.parallel_map(_detection_cell, items, seed=seed, n_jobs=n_jobs))


# --------------------------------------------------------------------------- E6: generalisation gap


def _gap_cell(cell: tuple, seed: int) -> dict:
    n, d, s, alpha, reps, n_test = cell
    rng = np.random.default_rng(seed)
    test = synth.purity_mixture(rng, n_test, s, alpha, d)
    gaps, test_aucs = [], []
    for _ in range(reps):
        train = synth.purity_mixture(rng, n, s, alpha, d)
        probe = probes.linear_probe().fit(train.X, train.y)
        train_auc = stats.auroc(train.y, probe.decision_function(train.X))
        test_aucs.append(float(stats.auroc(test.y, probe.decision_function(test.X))))
        gaps.append(float(train_auc) - test_aucs[-1])
    gap, gap_se = _mean_se(gaps)
    return {"n": n, "d": d, "s": s, "alpha": alpha, "reps": reps, "auc_gap": gap, "auc_gap_se": gap_se,
            "test_auc": float(np.mean(test_aucs)), "bound_auc": float(theory.purity_auc(s, test.marked.mean()))}


def probe_generalization_gap(
    n_values: Sequence[int], d: int, s: float, alpha: float, reps: int, n_test: int = 20000,
    seed: int = 0, n_jobs: int = 1,
) -> pd.DataFrame:
    """Train − held-out AUC of the paper's probe (standardised ℓ2 logistic, C = 1) against n (E6)."""
    cells = [(int(n), d, s, alpha, reps, n_test) for n in n_values]
    return pd.DataFrame(parallel.parallel_map(_gap_cell, cells, seed=seed, n_jobs=n_jobs))


# --------------------------------------------------------------------------- E5: orthogonality stress


def _orthogonality_cell(cell: tuple, seed: int) -> dict:
    angle_deg, s, alpha, shift, n, d, reps = cell
    rng = np.random.default_rng(seed)
    angle = np.deg2rad(angle_deg)
    offset = np.zeros(d)
    offset[:2] = shift * np.array([np.cos(angle), np.sin(angle)])  # Δ ∝ e₁ under identity covariance
    oracle, learned = [], []
    for _ in range(reps):
        sample = synth.purity_mixture(rng, n, s, alpha, d, neutral_offset=offset)
        oracle.append(float(stats.auroc(sample.y, sample.X @ sample.oracle_direction)))
        learned.append(_cv_auc(sample, probes.linear_probe(), rng))
    b_w = shift * np.cos(angle)
    oracle_mean, oracle_se = _mean_se(oracle)
    probe_mean, probe_se = _mean_se(learned)
    return {"angle_deg": angle_deg, "s": s, "alpha": alpha, "shift": shift, "n": n, "d": d, "reps": reps, "b_w": b_w,
            "oracle_auc": oracle_mean, "oracle_se": oracle_se, "probe_auc": probe_mean, "probe_se": probe_se,
            "purity_law": float(theory.purity_auc(s, alpha)),
            "offset_law": float(theory.offset_purity_auc(s, alpha, b_w))}


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
    cells = [(float(a), s, alpha, shift, n, d, reps) for a in angles_deg]
    return pd.DataFrame(parallel.parallel_map(_orthogonality_cell, cells, seed=seed, n_jobs=n_jobs))


# --------------------------------------------------------------------------- E10: spheres


def _sphere_probe_cell(cell: tuple, seed: int) -> dict:
    kappa, r, sigma_w, tau, n, d, reps, probe = cell
    rng = np.random.default_rng(seed)
    aucs = []
    for _ in range(reps):
        sample = synth.sphere_clusters(rng, n, kappa, r, sigma_w, d, tau=tau)
        estimator = _estimator(probe, sample, parallel.draw_seed(rng), kappa, r)
        aucs.append(_cv_auc(sample, estimator, rng))
    mean, se = _mean_se(aucs)
    scale = np.sqrt(sigma_w**2 + tau**2)
    return {"kappa": kappa, "r": r, "sigma_w": sigma_w, "tau": tau, "n": n, "d": d, "probe": probe, "reps": reps,
            "probe_auc": mean, "probe_se": se,
            "chordal_auc": float(norm.cdf(theory.chord_length(r, kappa) / (np.sqrt(2) * scale))),
            "geodesic_auc": float(norm.cdf(r / (np.sqrt(2) * scale)))}


def probes_on_spheres(
    kappa: float, r_values: Sequence[float], sigma_w: float, n: int, d: int, reps: int,
    probe_names: Sequence[str] = (*PROBES, "geodesic_oracle"), tau: float = 0.0, seed: int = 0, n_jobs: int = 1,
) -> pd.DataFrame:
    """E10: each probe's AUC on sphere clusters beside the chordal (Eq. 6) and flat/geodesic predictions.

    ``recovered`` = (AUC − chordal)/(geodesic − chordal): the share of the chordal–geodesic gap a
    probe wins back (0: none, 1: all). Predictions use the within-class scale √(σ_w² + τ²).
    """
    cells = [(kappa, float(r), sigma_w, tau, n, d, reps, p) for p, r in product(probe_names, r_values)]
    frame = pd.DataFrame(parallel.parallel_map(_sphere_probe_cell, cells, seed=seed, n_jobs=n_jobs))
    gap = frame.geodesic_auc - frame.chordal_auc
    frame["recovered"] = (frame.probe_auc - frame.chordal_auc) / gap.where(gap > 1e-3)
    return frame


# --------------------------------------------------------------------------- E3-D: estimator calibration


def _curvature_cell(cell: tuple, seed: int) -> dict:
    kappa, intrinsic_dim, ambient_dim, n, noise, reps = cell
    rng = np.random.default_rng(seed)
    estimates = [
        estimators.curvature_sagitta(synth.sphere_manifold(rng, n, intrinsic_dim, ambient_dim, kappa, noise),
                                     intrinsic_dim=intrinsic_dim, seed=rng)
        for _ in range(reps)
    ]
    mean, se = _mean_se(estimates)
    return {"kappa": kappa, "intrinsic_dim": intrinsic_dim, "ambient_dim": ambient_dim, "n": n, "noise": noise,
            "reps": reps, "kappa_hat": mean, "kappa_hat_se": se, "relative_error": mean / kappa - 1}


def curvature_calibration(
    kappas: Sequence[float], intrinsic_dim: int, ambient_dim: int, n: int, noise: float, reps: int,
    seed: int = 0, n_jobs: int = 1,
) -> pd.DataFrame:
    """κ̂ (sagitta fit, true tangent dimension) on spheres of known curvature (E3 Part D)."""
    cells = [(float(k), intrinsic_dim, ambient_dim, n, noise, reps) for k in kappas]
    return pd.DataFrame(parallel.parallel_map(_curvature_cell, cells, seed=seed, n_jobs=n_jobs))


def _dimension_cell(cell: tuple, seed: int) -> dict:
    manifold, intrinsic_dim, ambient_dim, n, reps = cell
    rng = np.random.default_rng(seed)
    mle, twonn = [], []
    for _ in range(reps):
        if manifold == "linear":
            X = synth.linear_manifold(rng, n, intrinsic_dim, ambient_dim)
        else:
            X = synth.sphere_manifold(rng, n, intrinsic_dim, ambient_dim)
        mle.append(estimators.intrinsic_dim_mle(X))
        twonn.append(estimators.intrinsic_dim_twonn(X))
    return {"manifold": manifold, "intrinsic_dim": intrinsic_dim, "ambient_dim": ambient_dim, "n": n, "reps": reps,
            "mle": float(np.mean(mle)), "twonn": float(np.mean(twonn)),
            "mle_relative_error": float(np.mean(mle)) / intrinsic_dim - 1,
            "twonn_relative_error": float(np.mean(twonn)) / intrinsic_dim - 1}


def dimension_calibration(
    manifold: str, intrinsic_dims: Sequence[int], ambient_dim: int, n: int, reps: int, seed: int = 0, n_jobs: int = 1
) -> pd.DataFrame:
    """d̂ (Levina–Bickel MLE with MacKay–Ghahramani, Two-NN) on ``linear`` or ``sphere`` manifolds (E3-D)."""
    if manifold not in ("linear", "sphere"):
        raise ValueError(f"manifold={manifold!r} is unknown; allowed: linear, sphere")
    cells = [(manifold, int(m), ambient_dim, n, reps) for m in intrinsic_dims]
    return pd.DataFrame(parallel.parallel_map(_dimension_cell, cells, seed=seed, n_jobs=n_jobs))


def _separation_cell(cell: tuple, seed: int) -> dict:
    s, d, n, reps = cell
    rng = np.random.default_rng(seed)
    naive, crossfit = [], []
    for _ in range(reps):
        sample = synth.purity_mixture(rng, n, s, 1.0, d)
        naive.append(estimators.separation_naive(sample.X, sample.y))
        crossfit.append(estimators.separation_crossfit(sample.X, sample.y, seed=rng))
    return {"s": s, "d": d, "n": n, "reps": reps, "naive": float(np.mean(naive)), "crossfit": float(np.mean(crossfit)),
            "crossfit_median_relative_error": float(np.median(np.asarray(crossfit) / s - 1)) if s > 0 else np.nan}


def separation_calibration(
    s_values: Sequence[float], d: int, n: int, reps: int, seed: int = 0, n_jobs: int = 1
) -> pd.DataFrame:
    """Naive vs cross-fitted ŝ on counterfactual (α = 1) samples of known s (E3-D, Table VI)."""
    cells = [(float(s), d, n, reps) for s in s_values]
    return pd.DataFrame(parallel.parallel_map(_separation_cell, cells, seed=seed, n_jobs=n_jobs))
