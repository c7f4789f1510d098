"""Geometry estimators of paper 000 (Sec. V-F), calibrated on ground truth in E3 Part D.

Separation ŝ (naive plug-in and cross-fitted Mahalanobis), intrinsic dimension d̂_B
(Levina–Bickel MLE with the MacKay–Ghahramani correction, Two-NN as a cross-check), curvature κ̂
(local quadratic "sagitta" fit) and the label-free concentration index β_B (Definition 1) with
its link to s. Several definitions were lost in the text extraction of the paper; each function states the definition it
implements and which choices are ours. ``tests/test_estimators.py``
checks them on the generators of :mod:`lib.bias_probes.synth` and against scikit-dimension.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import linalg
from sklearn.covariance import ledoit_wolf_shrinkage
from sklearn.neighbors import NearestNeighbors

#: Fraction of the largest ratios μ = r₂/r₁ that Two-NN discards before its linear fit
#: (Facco et al. 2017; scikit-dimension's ``TwoNN`` default).
TWONN_DISCARD_FRACTION: float = 0.1


# --------------------------------------------------------------------------- input checks


def _as_matrix(X: ArrayLike, name: str = "X", min_rows: int = 2) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"{name} has shape {X.shape}; allowed: a 2-D array (n_samples, n_features)")
    if X.shape[0] < min_rows:
        raise ValueError(f"{name} has {X.shape[0]} rows; allowed: >= {min_rows}")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} holds {int(np.sum(~np.isfinite(X)))} non-finite values; allowed: finite values only")
    return X


def _two_classes(X: ArrayLike, y: ArrayLike, min_per_class: int) -> tuple[np.ndarray, np.ndarray]:
    X = _as_matrix(X)
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y has shape {y.shape}; allowed: ({X.shape[0]},), one label per row of X")
    classes, counts = np.unique(y, return_counts=True)
    if len(classes) != 2:
        raise ValueError(f"y holds {len(classes)} classes {classes.tolist()!r}; allowed: exactly 2")
    if counts.min() < min_per_class:
        raise ValueError(
            f"class sizes {dict(zip(classes.tolist(), counts.tolist(), strict=True))!r} are too small; "
            f"allowed: >= {min_per_class} rows per class"
        )
    return X, (y == classes[1])


def _no_duplicates(X: np.ndarray) -> None:
    """Zero nearest-neighbour distances make log(T_k/T_j) and r₂/r₁ infinite: refuse them."""
    n_unique = np.unique(X, axis=0).shape[0]
    if n_unique < X.shape[0]:
        raise ValueError(
            f"X holds {X.shape[0] - n_unique} duplicate rows (zero nearest-neighbour distances make the "
            "log distance ratios infinite); allowed: distinct rows only, de-duplicate with np.unique(X, axis=0)"
        )


def _check_int(name: str, value: object, low: int, high: float = np.inf, allowed: str | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not low <= value <= high:
        bound = allowed or (f"an integer >= {low}" if high == np.inf else f"an integer {low} <= {name} <= {high}")
        raise ValueError(f"{name}={value!r} is out of range; allowed: {bound}")
    return int(value)


# --------------------------------------------------------------------------- separation


def _within_class_residuals(X: np.ndarray, positive: np.ndarray) -> np.ndarray:
    Z = X.copy()
    for mask in (positive, ~positive):
        Z[mask] -= Z[mask].mean(axis=0)
    return Z


def _shrunk_solve(Z: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Σ̂⁻¹ rhs for Σ̂ the Ledoit–Wolf covariance of the within-class residuals Z (n − 2 degrees of freedom).

    Σ̂ = (n/(n − 2))·((1 − δ)ZᵀZ/n + δμI) with δ from sklearn's ``ledoit_wolf_shrinkage`` and μ = tr(ZᵀZ/n)/d,
    which is what ``LedoitWolf(assume_centered=True)`` builds (it divides by n; the two class means used two
    degrees of freedom, hence the factor). We do not call ``LedoitWolf(...).covariance_`` and a dense solve because
    when d > n the Woodbury identity solves the same system through an n×n matrix instead of a d×d one (at the
    paper's d = 768, n = 150 per half that is the whole cost of the estimator); the tests check both agree.
    """
    n, d = Z.shape
    delta = float(ledoit_wolf_shrinkage(Z, assume_centered=True))
    mu = float(np.sum(Z**2)) / (n * d)
    scale = n / (n - 2)
    ridge = scale * delta * mu
    if d <= n or ridge <= 0:
        sigma = scale * (1 - delta) * (Z.T @ Z) / n + ridge * np.eye(d)
        return linalg.solve(sigma, rhs, assume_a="pos")
    U = np.sqrt(scale * (1 - delta) / n) * Z.T  # Σ̂ = ridge·I + U Uᵀ, U is d×n
    inner = ridge * np.eye(n) + U.T @ U
    return (rhs - U @ linalg.solve(inner, U.T @ rhs, assume_a="pos")) / ridge


def _mean_difference(X: np.ndarray, positive: np.ndarray) -> np.ndarray:
    return X[positive].mean(axis=0) - X[~positive].mean(axis=0)


def _within_class_scale(X: np.ndarray, positive: np.ndarray) -> np.ndarray:
    """Per-coordinate within-class s.d. of ``X`` (constant columns: 1), the scale ŝ standardises by.

    Within-class, not total: the total s.d. of a coordinate that carries the class difference folds
    that difference into its scale, which leaves the population Mahalanobis distance unchanged but
    makes the within-class covariance anisotropic, and Ledoit–Wolf then shrinks it toward the wrong
    target (ŝ = 1.93 instead of 2.02 at s = 2, d = 10, n = 4000). Scaled by the within-class s.d.,
    the within-class covariance is a correlation matrix and its target (tr/d)·I = I fits. Centring is
    not needed: class-mean differences and within-class residuals are shift-invariant.
    """
    scale = _within_class_residuals(X, positive).std(axis=0)
    return np.where(scale > 0, scale, 1.0)


def separation_naive(X: ArrayLike, y: ArrayLike, standardize: bool = True) -> float:
    """Plug-in Mahalanobis separation ŝ = √(Δ̂ᵀ Σ̂⁻¹ Δ̂) on all rows (paper 000, Sec. V-F, Table VI).

    Δ̂ is the difference of the two class means and Σ̂ the pooled within-class covariance,
    estimated with Ledoit–Wolf shrinkage on the within-class-centred rows (n − 2 degrees of
    freedom) so that it is invertible when d > n. Pass the marked rows only. The noise in Δ̂
    inflates ŝ² by O(d/n) (≈ 4d/n for balanced classes): the paper reports 3.24 at d = 768,
    n = 300 and true s = 0; use :func:`separation_crossfit` instead. ``standardize`` scales every
    coordinate to unit within-class s.d. first (see :func:`separation_crossfit`).
    """
    X, positive = _two_classes(X, y, min_per_class=2)
    if standardize:
        X = X / _within_class_scale(X, positive)
    delta = _mean_difference(X, positive)
    return float(np.sqrt(max(float(delta @ _shrunk_solve(_within_class_residuals(X, positive), delta)), 0.0)))


def separation_crossfit(X: ArrayLike, y: ArrayLike, n_splits: int = 4, seed: int | np.random.Generator = 0,
                        standardize: bool = True) -> float:
    """Cross-fitted Mahalanobis separation (paper 000, Sec. V-F; "all ŝ values are cross-fitted").

    Each of ``n_splits`` random splits cuts the sample, stratified by class, into halves A and B;
    with Δ̂_A, Δ̂_B the class-mean differences on each half and Σ̂_A the Ledoit–Wolf covariance of
    the within-class-centred rows of A, the cross product Δ̂_Aᵀ Σ̂_A⁻¹ Δ̂_B has independent noise in
    its two factors, so the O(d/n) plug-in inflation of :func:`separation_naive` cancels: it
    estimates s² without the additive bias (up to the shrinkage bias of Σ̂_A⁻¹). At s ≈ 0 it is
    negative about half the time; we average the cross products over splits, clip the *average*
    at 0 and return its square root (0 means "no measurable separation"). The paper reports 0.50
    at d = 768, n = 300, s = 0, where the naive estimate is 3.24. Pass the marked rows only.

    ``standardize`` (default) scales every coordinate by its within-class s.d. on half A — the
    training fold of that split — before both halves are used, as the probe standardises its
    features. Ledoit–Wolf shrinks toward a scaled identity (tr/d)·I, which is not affine-invariant:
    one massive-activation coordinate (SmolLM2's mid layer: variance ~10⁵ times the median)
    dominates tr/d and collapses raw ŝ. Standardised, ŝ is invariant to any
    per-coordinate rescaling.
    """
    n_splits = _check_int("n_splits", n_splits, 1)
    X, positive = _two_classes(X, y, min_per_class=4)
    rng = np.random.default_rng(seed)
    # Own stratified halving: sklearn's StratifiedShuffleSplit takes a legacy RandomState, not a Generator.
    rows = [np.flatnonzero(positive), np.flatnonzero(~positive)]
    products = []
    for _ in range(n_splits):
        in_a = np.zeros(X.shape[0], dtype=bool)
        for members in rows:
            in_a[rng.permutation(members)[: len(members) // 2]] = True
        XA, pos_a, XB, pos_b = X[in_a], positive[in_a], X[~in_a], positive[~in_a]
        if standardize:
            scale = _within_class_scale(XA, pos_a)
            XA, XB = XA / scale, XB / scale
        solved = _shrunk_solve(_within_class_residuals(XA, pos_a), _mean_difference(XB, pos_b))
        products.append(_mean_difference(XA, pos_a) @ solved)
    return float(np.sqrt(max(float(np.mean(products)), 0.0)))


# --------------------------------------------------------------------------- intrinsic dimension


def _neighbour_distances(X: np.ndarray, k: int) -> np.ndarray:
    """Distances T_1..T_k of every row to its k nearest other rows (the row itself excluded)."""
    distances, _ = NearestNeighbors(n_neighbors=k).fit(X).kneighbors()
    return distances


def intrinsic_dim_mle(X: ArrayLike, k_min: int = 10, k_max: int = 20) -> float:
    """Levina–Bickel MLE of the intrinsic dimension with the MacKay–Ghahramani correction (Sec. V-F).

    For each k the *inverse* per-point estimates are averaged and then inverted,
    m̂_k = [ (1/n) Σ_i (1/(k−1)) Σ_{j<k} log(T_k(x_i)/T_j(x_i)) ]⁻¹, with T_j(x) the distance of x
    to its j-th nearest other row; d̂_B is the mean of m̂_k over k = k_min..k_max (the paper uses
    10..20). This equals scikit-dimension's ``MLE`` with ``comb="mle"`` averaged over
    ``n_neighbors = k``. Known bias (E3 Part D): underestimates, increasingly with d (≈ 40 % at d = 25
    on linear manifolds). Duplicate rows (zero distances, infinite log ratios) raise ValueError
    naming how many there are; de-duplicate with ``np.unique(X, axis=0)``.
    """
    X = _as_matrix(X)
    if isinstance(k_max, bool) or not isinstance(k_max, int | np.integer) or not 2 <= k_max < X.shape[0]:
        raise ValueError(f"k_max={k_max!r} is out of range; allowed: an integer 2 <= k_max < n_samples={X.shape[0]}")
    _check_int("k_min", k_min, 2, int(k_max), allowed="an integer 2 <= k_min <= k_max")
    _no_duplicates(X)
    log_t = np.log(_neighbour_distances(X, int(k_max)))
    estimates = []
    for k in range(int(k_min), int(k_max) + 1):
        inverse = np.mean(log_t[:, k - 1] - log_t[:, : k - 1].mean(axis=1))
        estimates.append(1.0 / inverse)
    return float(np.mean(estimates))


def intrinsic_dim_twonn(X: ArrayLike) -> float:
    """Two-NN intrinsic dimension (Facco et al. 2017), the cross-check of d̂_B in paper 000 (Sec. V-F).

    μ_i = r₂/r₁ (second over first nearest-neighbour distance) is Pareto(1, d) on a locally uniform
    d-manifold, so −log(1 − F(μ)) = d·log μ. Variant: the paper's linear fit through the origin of
    −log(1 − F_emp(μ_(i))) against log μ_(i), F_emp(μ_(i)) = i/n, after discarding the largest
    ``TWONN_DISCARD_FRACTION`` = 10 % of the μ — scikit-dimension's ``TwoNN`` default
    (``method="linear"``), not the closed-form MLE n/Σ log μ_i. Like the MLE it drifts downward as d
    grows. Duplicate rows raise ValueError (scikit-dimension drops them with a warning instead).
    """
    X = _as_matrix(X, min_rows=3)
    _no_duplicates(X)
    r = _neighbour_distances(X, 2)
    mu = np.sort(r[:, 1] / r[:, 0])
    n = len(mu)
    n_keep = int(n * (1 - TWONN_DISCARD_FRACTION))
    if n_keep < 2:
        raise ValueError(f"X has {n} rows; allowed: enough rows to keep >= 2 ratios after discarding 10 %")
    x = np.log(mu[:n_keep])
    target = -np.log(1.0 - np.arange(1, n_keep + 1) / n)
    return float(x @ target / (x @ x))  # least-squares slope through the origin


# --------------------------------------------------------------------------- curvature


def default_sagitta_neighbors(intrinsic_dim: int) -> int:
    """Neighbourhood size of :func:`curvature_sagitta`: 10·(m + 1), at least 20.

    The quadratic part of an m-manifold has m(m+1)/2 coefficients per normal direction; 10(m+1)
    neighbours keep several points per coefficient up to m ≈ 20 while keeping the neighbourhood
    small enough that the quartic term of the sagitta stays negligible.
    """
    return max(20, 10 * (int(intrinsic_dim) + 1))


def curvature_sagitta(
    X: ArrayLike,
    intrinsic_dim: int | None = None,
    n_neighbors: int | None = None,
    n_centres: int = 200,
    seed: int | np.random.Generator = 0,
    fit: str = "origin",
) -> float:
    """Curvature κ̂ = 1/R̂² by a local quadratic (sagitta) fit (paper 000, Sec. V-F; E3 Part D).

    At ``n_centres`` random rows p (all rows if there are fewer), take its ``n_neighbors``
    nearest other rows (default :func:`default_sagitta_neighbors`), estimate the tangent space by
    PCA of the neighbours about their centroid with ``intrinsic_dim`` components (default
    ``round(intrinsic_dim_mle(X))``), and split each offset x − p *from the centre point p* into a
    tangential part t and a normal residual h = ‖(I − P)(x − p)‖. We measure from p rather than
    from the centroid because the model h ≈ ‖t‖²/(2R) (the sagitta of a sphere of radius R) holds
    at the point where the tangent space touches; the centroid sits off the manifold. The slope
    b of h on ‖t‖² through the origin gives R̂ = 1/(2b) and κ̂ = 4b²; centres are combined by the
    median. Flat manifolds give κ̂ ≈ 0; ambient noise adds a floor to h and biases κ̂ upward.
    Paper target: median relative error 0.17 (max 0.28) on spheres with κ ∈ [0.25, 4].

    ``fit="floor"`` corrects for that floor (re-derived here, tested against simulation): with
    isotropic ambient noise σ in the D − m normal directions of both x and p, E[h²] ≈ (‖t‖²/2R)² +
    2σ²(D − m), so the least-squares line of h² on ‖t‖⁴ *with an intercept* has slope κ/4 and the
    intercept absorbs the floor: κ̂ = 4·slope (clipped at 0). ``fit="origin"`` is the paper's fit.
    """
    if fit not in ("origin", "floor"):
        raise ValueError(f"fit={fit!r} is not a sagitta fit; allowed: 'origin', 'floor'")
    X = _as_matrix(X, min_rows=3)
    n, ambient = X.shape
    if intrinsic_dim is not None:
        _check_int("intrinsic_dim", intrinsic_dim, 1, ambient - 1,
                   allowed=f"None or an integer 1 <= intrinsic_dim < n_features={ambient}")
    if n_neighbors is not None:
        _check_int("n_neighbors", n_neighbors, 2, n - 1, allowed=f"None or an integer 2 <= n_neighbors < n_samples={n}")
    n_centres = _check_int("n_centres", n_centres, 1)
    if intrinsic_dim is None:
        _no_duplicates(X)
        intrinsic_dim = int(np.clip(round(intrinsic_dim_mle(X)), 1, ambient - 1))
    m = int(intrinsic_dim)
    k = default_sagitta_neighbors(m) if n_neighbors is None else int(n_neighbors)
    if not m < k < n:
        raise ValueError(f"n_neighbors={k!r} is out of range; allowed: intrinsic_dim={m} < n_neighbors < n_samples={n}")
    rng = np.random.default_rng(seed)
    centres = rng.choice(n, size=min(n_centres, n), replace=False)
    _, neighbours = NearestNeighbors(n_neighbors=k + 1).fit(X).kneighbors(X[centres])
    slopes = np.empty(len(centres))
    for c, (centre, idx) in enumerate(zip(centres, neighbours, strict=True)):
        local = X[idx[idx != centre][:k]]
        _, _, vt = np.linalg.svd(local - local.mean(axis=0), full_matrices=False)
        offsets = local - X[centre]
        t = offsets @ vt[:m].T
        t2 = np.sum(t**2, axis=1)
        h = np.linalg.norm(offsets - t @ vt[:m], axis=1)
        if fit == "origin":
            slopes[c] = (h @ t2) / (t2 @ t2)
        else:
            t4 = t2**2
            slopes[c] = np.cov(t4, h**2, bias=True)[0, 1] / np.var(t4)  # h² on ‖t‖⁴ with an intercept
    if fit == "floor":
        return float(4.0 * max(np.median(slopes), 0.0))  # slope of h² on ‖t‖⁴ is 1/(4R²) = κ/4
    return float(4.0 * np.median(slopes) ** 2)  # κ = 1/R² = (2b)²; squaring is monotone on b >= 0


# --------------------------------------------------------------------------- concentration index


def concentration_index(X: ArrayLike) -> float:
    """Label-free concentration index β_B = λ_max(Σ̂)/tr(Σ̂) − 1/d (paper 000, Definition 1).

    The paper's formula was lost in extraction; its stated range is [0, 1 − 1/d], which the
    top-eigenvalue share of the sample covariance minus 1/d has exactly: 0 for isotropic
    covariance (λ_max = tr/d), 1 − 1/d for rank-one data. Computed from the singular values of the
    centred data, so d > n costs no d×d eigendecomposition.
    """
    X = _as_matrix(X)
    centred = X - X.mean(axis=0)
    total = float(np.sum(centred**2))
    if total == 0:
        raise ValueError("X has zero variance (all rows equal); allowed: data with tr(Σ̂) > 0")
    top = float(linalg.svdvals(centred)[0] ** 2)
    return top / total - 1.0 / X.shape[1]


def separation_from_concentration(beta: float, d: int, alpha: float = 1.0) -> float:
    """Invert the β_B–s link for two clusters plus isotropic noise (re-derived; the paper's Eq. 13 was lost).

    Model: a fraction α of the points is marked, half at +Δ/2 and half at −Δ/2, the rest sit at the
    midpoint 0, and every point adds N(0, σ²I_d) noise; s = ‖Δ‖/σ. The mean is 0 and the marked
    points contribute second moment α·ΔΔᵀ/4, so Σ_total = σ²I + αΔΔᵀ/4 with
    λ_max = σ²(1 + a), tr = σ²(d + a), a = α s²/4. Hence
    β = (1 + a)/(d + a) − 1/d = a(d − 1)/(d(d + a)), and solving for a,
    a = β d²/(d − 1 − β d), i.e. s² = 4 β d² / (α (d − 1 − β d)).
    β = 1 − 1/d (rank one) maps to s = ∞. Only the β_B of this isotropic model is inverted exactly;
    anisotropic within-class noise inflates β_B on its own.
    """
    d = _check_int("d", d, 2)
    if not 0 < alpha <= 1:
        raise ValueError(f"alpha={alpha!r} is out of range; allowed: 0 < alpha <= 1")
    top = 1.0 - 1.0 / d
    if not 0 <= beta <= top:
        raise ValueError(f"beta={beta!r} is out of range; allowed: 0 <= beta <= 1 - 1/d = {top:.6g}")
    gap = d - 1 - beta * d
    if gap <= 0:
        return float("inf")
    return float(np.sqrt(4.0 * beta * d**2 / (alpha * gap)))


def neutral_offset(X_marked: ArrayLike, y_marked: ArrayLike, X_neutral: ArrayLike) -> float:
    """Standardised offset b_w of the neutral texts from the marked midpoint (paper 000, Sec. VI-C, Cor. 2).

    With w = Σ̂⁻¹Δ̂ (Ledoit–Wolf within-class covariance of the marked rows), b_w is the projection of
    mean(neutral) − (μ̂₊ + μ̂₋)/2 on w in units of the within-class s.d. along w, √(wᵀΣ̂w). The neutral
    midpoint condition of Theorem 3 is b_w = 0; Corollary 2 gives the AUC when it is not.
    """
    X, positive = _two_classes(X_marked, y_marked, min_per_class=2)
    neutral = _as_matrix(X_neutral, name="X_neutral", min_rows=1)
    if neutral.shape[1] != X.shape[1]:
        raise ValueError(f"X_neutral has {neutral.shape[1]} columns; allowed: {X.shape[1]}, as X_marked")
    residuals = _within_class_residuals(X, positive)
    w = _shrunk_solve(residuals, _mean_difference(X, positive))
    midpoint = (X[positive].mean(axis=0) + X[~positive].mean(axis=0)) / 2
    scale = np.sqrt(np.mean((residuals @ w) ** 2) * len(residuals) / max(len(residuals) - 2, 1))
    return float((neutral.mean(axis=0) - midpoint) @ w / scale)


def concentration_from_separation(s: float, d: int, alpha: float = 1.0) -> float:
    """β_B of two clusters at separation s plus isotropic noise: the inverse of :func:`separation_from_concentration`.

    β = a(d − 1)/(d(d + a)) with a = α s²/4 (re-derived; paper 000, Eq. 13 was lost). With the chord of
    Theorem 2 in place of s (s = chord(r, κ)/σ_w) this is the β_B–curvature link: at fixed geodesic
    distance, curvature shortens the chord and lowers β_B. The same β holds on standardised features when
    Δ's energy is spread over the coordinates (per-coordinate scaling is then a global rescale).
    """
    d = _check_int("d", d, 2)
    if s < 0 or not 0 < alpha <= 1:
        raise ValueError(f"need s >= 0 and 0 < alpha <= 1; got s={s!r}, alpha={alpha!r}")
    a = alpha * s**2 / 4
    return float(a * (d - 1) / (d * (d + a)))
