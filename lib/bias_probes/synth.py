"""Generators with known ground truth for paper 000 (Sec. III–IV; E3 validates on them).

Every generator takes an explicit ``numpy.random.Generator`` and returns arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lib.bias_probes.purity import Pool


@dataclass(frozen=True)
class LabelledSample:
    """Features ``X`` (n, d), labels ``y``, marked rows, the oracle direction and CV ``groups``.

    ``groups`` keeps each counterfactual pair (one marked text per group) together; every other
    text is its own group.
    """

    X: np.ndarray
    y: np.ndarray
    marked: np.ndarray
    oracle_direction: np.ndarray
    groups: np.ndarray


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
    neutral_offset: np.ndarray | None = None,
) -> LabelledSample:
    """The purity model of Theorem 3 (paper 000, Sec. IV-D).

    round(α·n/2) marked texts per group at ±Δ/2 with ΔᵀΣ⁻¹Δ = s²; the other texts are neutral,
    at the midpoint 0, with random balanced labels ("neutral texts carry no label
    information"). Noise is N(0, Σ) (identity by default). The oracle (Bayes-optimal linear)
    direction is Σ⁻¹Δ. ``neutral_offset`` moves every neutral text off the midpoint (E05 stress).
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
    if neutral_offset is not None:
        X[~marked] += np.asarray(neutral_offset, dtype=float)
    groups = np.concatenate([np.arange(per_group), np.arange(per_group), per_group + np.arange(n_neutral)])
    return LabelledSample(X, y.astype(int), marked, np.linalg.solve(cov, delta), groups)


def sphere_clusters(
    rng: np.random.Generator, n: int, kappa: float, r: float, sigma_w: float, d: int = 3, tau: float = 0.0
) -> LabelledSample:
    """Two clusters at geodesic distance r on a sphere of curvature κ, ambient noise σ_w.

    The centres lie on a great circle of radius 1/√κ (flat line when κ = 0) in the first two
    coordinates of ℝ^d, at angles ±√κ·r/2; each text is displaced along the circle by a geodesic
    N(0, τ²) step (intrinsic spread, 0 by default) and adds isotropic N(0, σ_w² I_d) ambient noise
    (Theorem 2, Sec. IV-C). With τ = 0 the classes are Gaussian and Eq. 6 is exact. Labels are
    balanced; the oracle direction is the chord.
    """
    if kappa < 0 or r < 0 or sigma_w <= 0 or d < 2:
        raise ValueError(
            f"need kappa >= 0, r >= 0, sigma_w > 0, d >= 2; got {kappa!r}, {r!r}, {sigma_w!r}, {d!r}"
        )
    if kappa > 0 and np.sqrt(kappa) * r > np.pi + 1e-12:
        raise ValueError(f"r={r!r} exceeds the sphere's diameter pi/sqrt(kappa)={np.pi / np.sqrt(kappa):.4g}")
    y = _balanced_labels(rng, n)
    position = np.where(y == 1, r / 2, -r / 2) + tau * rng.standard_normal(n)  # signed arc length

    def on_manifold(arc: np.ndarray) -> np.ndarray:
        points = np.zeros((len(arc), d))
        if kappa == 0:
            points[:, 0] = arc
        else:
            radius = 1 / np.sqrt(kappa)
            points[:, 0] = radius * np.sin(arc / radius)
            points[:, 1] = radius * np.cos(arc / radius)
        return points

    centers = on_manifold(np.array([r / 2, -r / 2]))
    X = on_manifold(position) + sigma_w * rng.standard_normal((n, d))
    return LabelledSample(X, y, np.ones(n, dtype=bool), centers[0] - centers[1], np.arange(n))


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


# --------------------------------------------------------------------------- label-free null pools (E09)


def null_pool(
    rng: np.random.Generator, n_cells: int = 340, neutral_per_cell: int = 2, d: int = 64, cell_scale: float = 1.0
) -> Pool:
    """Label-free noise features on the grid's structure: H0 holds exactly (E09).

    Every text's features are its cell's shared offset (scale ``cell_scale``, the context effect that
    grouped folds must respect) plus independent N(0, I_d) noise; nothing depends on the group label.
    """
    per_cell = 2 + neutral_per_cell
    cell = np.repeat(np.arange(n_cells), per_cell)
    slot = np.tile(np.arange(per_cell), n_cells)
    pair = np.where(slot < 2, cell, -1)
    group = np.where(slot < 2, slot, -1)
    X = cell_scale * rng.standard_normal((n_cells, d))[cell] + rng.standard_normal((len(cell), d))
    return Pool(X, cell, pair, group)
