"""Generators with known ground truth for paper 000 (Sec. III–IV; E3 validates on them).

Every generator takes an explicit ``numpy.random.Generator`` and returns arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LabelledSample:
    """Features ``X`` (n, d), labels ``y`` (n,), which rows are marked, and the oracle direction."""

    X: np.ndarray
    y: np.ndarray
    marked: np.ndarray
    oracle_direction: np.ndarray


def _balanced_labels(rng: np.random.Generator, n: int) -> np.ndarray:
    labels = np.arange(n) % 2
    return rng.permutation(labels)


def purity_mixture(
    rng: np.random.Generator,
    n: int,
    s: float,
    alpha: float,
    d: int = 1,
    covariance: np.ndarray | None = None,
) -> LabelledSample:
    """The purity model of Theorem 3 (paper 000, Sec. IV-D).

    round(α·n/2) marked texts per group at ±Δ/2 with ΔᵀΣ⁻¹Δ = s²; the other texts are neutral,
    at the midpoint 0, with random balanced labels ("neutral texts carry no label
    information"). Noise is N(0, Σ) (identity by default). The oracle (Bayes-optimal linear)
    direction is Σ⁻¹Δ.
    """
    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha={alpha!r} is out of range; allowed: 0 <= alpha <= 1")
    if s < 0 or n < 2 or d < 1:
        raise ValueError(f"need s >= 0, n >= 2, d >= 1; got s={s!r}, n={n!r}, d={d!r}")
    cov = np.eye(d) if covariance is None else np.asarray(covariance, dtype=float)
    if cov.shape != (d, d):
        raise ValueError(f"covariance has shape {cov.shape}; allowed: ({d}, {d})")
    chol = np.linalg.cholesky(cov)
    delta = s * chol[:, 0]  # Δᵀ Σ⁻¹ Δ = s² e₁ᵀ Lᵀ (L Lᵀ)⁻¹ L e₁ = s²
    per_group = int(round(alpha * n / 2))
    n_neutral = n - 2 * per_group
    y = np.concatenate([np.ones(per_group), np.zeros(per_group), _balanced_labels(rng, n_neutral)])
    marked = np.arange(n) < 2 * per_group
    centers = np.where(marked, y - 0.5, 0.0)[:, None] * delta[None, :]
    X = centers + rng.standard_normal((n, d)) @ chol.T
    return LabelledSample(X, y.astype(int), marked, np.linalg.solve(cov, delta))


def sphere_clusters(
    rng: np.random.Generator, n: int, kappa: float, r: float, sigma_w: float, d: int = 3
) -> LabelledSample:
    """Two point clusters at geodesic distance r on a sphere of curvature κ, ambient noise σ_w.

    The centres lie on a great circle of radius 1/√κ (flat line when κ = 0) in the first two
    coordinates of ℝ^d, at angles ±√κ·r/2; each text adds isotropic N(0, σ_w² I_d) noise
    (Theorem 2, Sec. IV-C). Labels are balanced; the oracle direction is the chord.
    """
    if kappa < 0 or r < 0 or sigma_w <= 0 or d < 2:
        raise ValueError(
            f"need kappa >= 0, r >= 0, sigma_w > 0, d >= 2; got {kappa!r}, {r!r}, {sigma_w!r}, {d!r}"
        )
    if kappa > 0 and np.sqrt(kappa) * r > np.pi + 1e-12:
        raise ValueError(f"r={r!r} exceeds the sphere's diameter pi/sqrt(kappa)={np.pi / np.sqrt(kappa):.4g}")
    centers = np.zeros((2, d))
    if kappa == 0:
        centers[:, 0] = [r / 2, -r / 2]
    else:
        radius, half_angle = 1 / np.sqrt(kappa), np.sqrt(kappa) * r / 2
        centers[:, 0] = radius * np.sin([half_angle, -half_angle])
        centers[:, 1] = radius * np.cos(half_angle)
    y = _balanced_labels(rng, n)
    X = centers[1 - y] + sigma_w * rng.standard_normal((n, d))
    return LabelledSample(X, y, np.ones(n, dtype=bool), centers[0] - centers[1])


def _embed(rng: np.random.Generator, coords: np.ndarray, ambient_dim: int, noise: float) -> np.ndarray:
    """Place ``coords`` in ℝ^ambient_dim by a random rotation and add isotropic noise."""
    k = coords.shape[1]
    if ambient_dim < k:
        raise ValueError(f"ambient_dim={ambient_dim!r} is out of range; allowed: >= {k}")
    rotation, _ = np.linalg.qr(rng.standard_normal((ambient_dim, ambient_dim)))
    X = coords @ rotation[:, :k].T
    return X + noise * rng.standard_normal(X.shape) if noise > 0 else X


def linear_manifold(
    rng: np.random.Generator, n: int, intrinsic_dim: int, ambient_dim: int, noise: float = 0.0
) -> np.ndarray:
    """n points uniform in a unit cube of dimension d_B, rotated into ℝ^D (flat, κ = 0)."""
    if intrinsic_dim < 1:
        raise ValueError(f"intrinsic_dim={intrinsic_dim!r} is out of range; allowed: >= 1")
    return _embed(rng, rng.uniform(size=(n, intrinsic_dim)), ambient_dim, noise)


def sphere_manifold(
    rng: np.random.Generator, n: int, intrinsic_dim: int, ambient_dim: int, kappa: float = 1.0,
    noise: float = 0.0,
) -> np.ndarray:
    """n points uniform on the d_B-sphere of curvature κ (radius 1/√κ), rotated into ℝ^D."""
    if intrinsic_dim < 1 or kappa <= 0:
        raise ValueError(f"need intrinsic_dim >= 1 and kappa > 0; got {intrinsic_dim!r}, {kappa!r}")
    directions = rng.standard_normal((n, intrinsic_dim + 1))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    return _embed(rng, directions / np.sqrt(kappa), ambient_dim, noise)
