"""The Representational Bias Shift ΔB of paper 001 and its baselines (Sec. 3, Sec. 4.5).

Embeddings are final-layer, token-mean pooled sentence vectors (rows). SEAT scores targets by mean
cosine similarity to positive and negative attribute sentences (Eq. 2–3); relative representations
re-encode every sentence by its cosine similarities to a shared anchor set (Eq. 4), where
associations are negated Euclidean distances (Eq. 5–6); ΔB = B_aud − B_ref (Eq. 7), one value per
target group. Baselines: Procrustes-SEAT and CKA drift (Sec. 4.5).
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import orthogonal_procrustes
from scipy.spatial.distance import cdist


def _matrix(E: ArrayLike, name: str) -> np.ndarray:
    E = np.asarray(E, dtype=float)
    if E.ndim != 2 or E.shape[0] == 0:
        raise ValueError(f"{name} has shape {E.shape}; allowed: (n_sentences >= 1, d)")
    if not np.isfinite(E).all():
        raise ValueError(f"{name} holds non-finite values")
    return E


def cosine_matrix(A: ArrayLike, B: ArrayLike) -> np.ndarray:
    """cos(a_i, b_j) for every row pair (paper 001, Eq. 1)."""
    A, B = _matrix(A, "A"), _matrix(B, "B")
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"A and B have {A.shape[1]} and {B.shape[1]} columns; they must agree")
    A = A / np.linalg.norm(A, axis=1, keepdims=True)
    B = B / np.linalg.norm(B, axis=1, keepdims=True)
    return A @ B.T


def seat_bias(E_t: ArrayLike, E_p: ArrayLike, E_n: ArrayLike) -> float:
    """SEAT bias B = mean_s [S⁺(s) − S⁻(s)] with S^± the mean cosine to the attribute sets (Eq. 2–3)."""
    return float((cosine_matrix(E_t, E_p).mean(axis=1) - cosine_matrix(E_t, E_n).mean(axis=1)).mean())


def relative(E: ArrayLike, E_anchors: ArrayLike) -> np.ndarray:
    """Relative representation r(x) = [cos(e(x), e(a_i))]_{i=1..m} of every row (Eq. 4)."""
    return cosine_matrix(E, E_anchors)


def rel_bias(R_t: ArrayLike, R_p: ArrayLike, R_n: ArrayLike) -> float:
    """B_rel = mean_s [S⁺_rel(s) − S⁻_rel(s)], S^±_rel = −mean Euclidean distance in relative space (Eq. 5–6)."""
    R_t, R_p, R_n = _matrix(R_t, "R_t"), _matrix(R_p, "R_p"), _matrix(R_n, "R_n")
    positive = -cdist(R_t, R_p).mean(axis=1)
    negative = -cdist(R_t, R_n).mean(axis=1)
    return float((positive - negative).mean())


def delta_b(b_audited: float, b_reference: float) -> float:
    """The Representational Bias Shift ΔB = B_aud − B_ref (Eq. 7); negative: moved toward the negative set."""
    return float(b_audited - b_reference)


def _groups(model: dict, name: str) -> dict[str, np.ndarray]:
    targets = model.get("targets")
    if not isinstance(targets, dict) or not targets:
        raise ValueError(f"{name}['targets'] must map each target group to its sentence embeddings")
    return targets


def _same_groups(reference: dict, audited: dict) -> list[str]:
    ref, aud = _groups(reference, "reference"), _groups(audited, "audited")
    if set(ref) != set(aud):
        raise ValueError(f"target groups differ: reference {sorted(ref)} vs audited {sorted(aud)}")
    return sorted(ref)


def rr_biases(model: dict) -> dict[str, float]:
    """B_rel of every target group of one model (Eq. 4–6); the attribute sets are encoded once.

    ``model`` holds embeddings: ``anchors``, ``positive``, ``negative`` arrays and ``targets``, a
    mapping group → array. Each model encodes the shared sentences with its own parameters.
    """
    anchors = model["anchors"]
    R_p, R_n = relative(model["positive"], anchors), relative(model["negative"], anchors)
    return {group: rel_bias(relative(E_t, anchors), R_p, R_n) for group, E_t in _groups(model, "model").items()}


def seat_biases(model: dict) -> dict[str, float]:
    """SEAT B of every target group of one model, in its own embedding space (Eq. 2–3)."""
    return {group: seat_bias(E_t, model["positive"], model["negative"])
            for group, E_t in _groups(model, "model").items()}


def rr_delta_b(reference: dict, audited: dict) -> dict[str, float]:
    """ΔB per target group in relative space (Sec. 3.3–3.4, Eq. 7): the paper's measure."""
    groups = _same_groups(reference, audited)
    ref, aud = rr_biases(reference), rr_biases(audited)
    return {g: delta_b(aud[g], ref[g]) for g in groups}


def seat_delta_b(reference: dict, audited: dict) -> dict[str, float]:
    """ΔB per target group with SEAT in each model's own, unaligned space (baseline, Sec. 4.5)."""
    groups = _same_groups(reference, audited)
    ref, aud = seat_biases(reference), seat_biases(audited)
    return {g: delta_b(aud[g], ref[g]) for g in groups}


#: Forms of the Procrustes-SEAT map (:func:`procrustes_seat_delta_b`).
PROCRUSTES_FORMS: tuple[str, ...] = ("auto", "full", "span")

#: Relative norm of an audited target outside the directions the anchors fix above which the map is free on it.
UNDETERMINED_SHARE = 1e-6


def _rank(s: np.ndarray, shape: tuple[int, ...]) -> int:
    """Singular values above NumPy's default cut-off: the largest × max(shape) × float64 epsilon."""
    return int((s > float(s.max(initial=0.0)) * max(shape) * np.finfo(float).eps).sum())


def procrustes_determination(A_aud: ArrayLike, A_ref: ArrayLike, E_aud: ArrayLike) -> tuple[int, float]:
    """How far the anchors fix the orthogonal map Q of Procrustes-SEAT on the audited rows ``E_aud`` (Sec. 4.5).

    Returns the rank r of the cross-covariance A_audᵀ A_ref (Q is unique at r = d, which needs m ≥ d
    anchors) and the largest relative norm of a row of E_aud outside the r directions that fix Q; at
    most :data:`UNDETERMINED_SHARE` the map is determined where it is applied (dead features, say).
    """
    M = _matrix(A_aud, "audited anchors").T @ _matrix(A_ref, "reference anchors")
    U, s, _ = np.linalg.svd(M)
    rank = _rank(s, M.shape)
    E = _matrix(E_aud, "audited targets")
    outside = E - (E @ U[:, :rank]) @ U[:, :rank].T
    return rank, float((np.linalg.norm(outside, axis=1) / np.linalg.norm(E, axis=1)).max())


def _span_basis(A: np.ndarray, r: int) -> np.ndarray:
    """The top-r right singular vectors (d, r) of an anchor matrix: an orthonormal basis of the anchors' span."""
    return np.linalg.svd(A, full_matrices=False)[2][:r].T


def _in_span(E: ArrayLike, basis: np.ndarray, name: str) -> np.ndarray:
    """Coordinates of the rows of E in ``basis`` (their projection onto the anchors' span)."""
    E = _matrix(E, name)
    coordinates = E @ basis
    if (np.linalg.norm(coordinates, axis=1) <= 1e-12 * np.linalg.norm(E, axis=1)).any():
        raise ValueError(f"{name} has a row orthogonal to the anchors' span; its cosine there is undefined")
    return coordinates


def procrustes_seat_delta_b(reference: dict, audited: dict, *, procrustes: str = "auto") -> dict[str, float]:
    """Procrustes-SEAT per target group (Sec. 4.5).

    The orthogonal map Q minimising ‖A_aud Q − A_ref‖_F is fitted on the anchor embeddings
    (uncentred; the paper leaves this open), and the mapped audited targets are scored against the
    *reference* attribute sets — within one model an orthogonal map would leave SEAT unchanged.

    Q is unique only when the anchors' cross-covariance A_audᵀ A_ref has rank d, which needs m ≥ d
    anchors; with m < d (the paper's 1,000 anchors in ℝ^4096, Sec. 4.1) Q is free off the anchors' span,
    and even an exact rotation of the reference gets ΔB ≠ 0 (:func:`procrustes_determination`).

    * ``"full"``: Q in ℝ^d; refuses (ValueError) when it is not determined on the audited targets.
    * ``"span"``: each model's embeddings are projected onto its own anchors' span (top-r right singular
      vectors, r = the smaller anchor rank ≤ m), Q is solved there and the reference is scored in its
      projection too, so an exact rotation gives ΔB = 0; equal to ``"full"`` when Q is determined.
    * ``"auto"`` (default): ``"full"`` when Q is determined (the former numbers), else ``"span"`` with a
      warning, so under-determined settings (the paper's widths) run and give a defined value.
    """
    if procrustes not in PROCRUSTES_FORMS:
        raise ValueError(f"procrustes={procrustes!r} is not supported; allowed: {', '.join(PROCRUSTES_FORMS)}")
    groups = _same_groups(reference, audited)
    A_ref, A_aud = _matrix(reference["anchors"], "reference anchors"), _matrix(audited["anchors"], "audited anchors")
    if A_ref.shape != A_aud.shape:
        raise ValueError(f"anchor embeddings have shapes {A_aud.shape} and {A_ref.shape}; they must agree")
    if procrustes != "span":
        (m, d), targets = A_ref.shape, np.vstack([_matrix(audited["targets"][g], "audited targets") for g in groups])
        rank, share = procrustes_determination(A_aud, A_ref, targets)
        if share > UNDETERMINED_SHARE:
            message = (f"Procrustes-SEAT is under-determined: {m} anchors (cross-covariance rank {rank}) do not "
                       f"fix an orthogonal map of width {d}; use procrustes='span' (the map in the anchors' span) "
                       f"or at least {d} anchors")
            if procrustes == "full":
                raise ValueError(message)
            warnings.warn(message + "; using the span form", UserWarning, stacklevel=2)
            procrustes = "span"
    if procrustes != "span":
        rotation, _ = orthogonal_procrustes(A_aud, A_ref)
        ref = seat_biases(reference)
        return {g: delta_b(seat_bias(_matrix(audited["targets"][g], "audited targets") @ rotation,
                                     reference["positive"], reference["negative"]), ref[g]) for g in groups}
    r = min(_rank(np.linalg.svd(A, compute_uv=False), A.shape) for A in (A_ref, A_aud))
    V_ref, V_aud = _span_basis(A_ref, r), _span_basis(A_aud, r)
    rotation, _ = orthogonal_procrustes(A_aud @ V_aud, A_ref @ V_ref)
    P_ref, N_ref = (_in_span(reference[side], V_ref, f"reference {side}") for side in ("positive", "negative"))
    out = {}
    for g in groups:
        b_ref = seat_bias(_in_span(reference["targets"][g], V_ref, "reference targets"), P_ref, N_ref)
        b_aud = seat_bias(_in_span(audited["targets"][g], V_aud, "audited targets") @ rotation, P_ref, N_ref)
        out[g] = delta_b(b_aud, b_ref)
    return out


def cka_drift_by_group(reference: dict, audited: dict, *, debiased: bool = False) -> dict[str, float]:
    """1 − linear CKA between reference and audited target embeddings, per group (undirected, Sec. 4.5);
    ``debiased``: the unbiased-HSIC CKA (:func:`linear_cka`)."""
    return {g: cka_drift(reference["targets"][g], audited["targets"][g], debiased=debiased)
            for g in _same_groups(reference, audited)}


def _u_centred_gram(X: np.ndarray) -> np.ndarray:
    """The U-centred linear Gram matrix (zero diagonal): ⟨K̃, L̃⟩ / (n(n − 3)) is Song et al.'s (2012) HSIC_1."""
    n = X.shape[0]
    K = X @ X.T
    np.fill_diagonal(K, 0.0)
    means = K.sum(axis=0) / (n - 2)
    means -= means.sum() / (2 * (n - 1))
    K -= means[:, None] + means[None, :]
    np.fill_diagonal(K, 0.0)
    return K


def linear_cka(X: ArrayLike, Y: ArrayLike, *, debiased: bool = False) -> float:
    """Linear CKA of two representations of the same rows (Kornblith et al., 2019); the CKA of Sec. 4.5.

    Biased (default, the paper's): ‖Ycᵀ Xc‖²_F / (‖Xcᵀ Xc‖_F ‖Ycᵀ Yc‖_F) with column-centred X, Y, in
    [0, 1]. Its value for unrelated data grows with the width d at fixed n (≈ 0.57, 0.92, 0.99 for
    independent Gaussians at n = 50, d = 64, 576, 4,096), so drifts do not compare across model widths.
    ``debiased``: HSIC replaced by the unbiased estimator HSIC_1 of Song et al. (2012) (as in Kornblith et
    al., 2019; Nguyen et al., 2021), ≈ 0 for unrelated data at any width, can be negative, needs n ≥ 4.
    Both are invariant to rotations, isotropic scaling and shifts of either side.
    """
    X, Y = _matrix(X, "X"), _matrix(Y, "Y")
    if X.shape[0] != Y.shape[0]:
        raise ValueError(f"X and Y have {X.shape[0]} and {Y.shape[0]} rows; CKA compares the same sentences")
    X = X - X.mean(axis=0)
    Y = Y - Y.mean(axis=0)
    if debiased:
        if X.shape[0] < 4:
            raise ValueError(f"debiased CKA needs at least 4 rows; got {X.shape[0]}")
        K, L = _u_centred_gram(X), _u_centred_gram(Y)
        return float((K * L).sum() / np.sqrt((K * K).sum() * (L * L).sum()))
    cross = np.linalg.norm(Y.T @ X) ** 2
    return float(cross / (np.linalg.norm(X.T @ X) * np.linalg.norm(Y.T @ Y)))


def cka_drift(reference_targets: ArrayLike, audited_targets: ArrayLike, *, debiased: bool = False) -> float:
    """CKA drift 1 − CKA between the reference and audited target representations (undirected, Sec. 4.5);
    ``debiased``: with the unbiased-HSIC CKA, whose zero point does not move with the width."""
    return 1.0 - linear_cka(reference_targets, audited_targets, debiased=debiased)


def rr_decomposition(reference: dict, audited: dict) -> dict[str, dict[str, float]]:
    """ΔB per group split by which side moved, in the shared relative space (not in the paper).

    ``targets_only`` = B_rel(T_aud; P_ref, N_ref) − B_rel(T_ref; P_ref, N_ref): the audited targets
    against the reference attributes; ``attributes_only`` = B_rel(T_ref; P_aud, N_aud) − B_rel(T_ref; P_ref,
    N_ref). Both models' relative coordinates index the same anchors (Eq. 4), so the mixed terms are
    defined; ΔB minus their sum is the interaction. A shift only in the attributes is common to every group.
    """
    groups = _same_groups(reference, audited)
    ref_p, ref_n = (relative(reference[side], reference["anchors"]) for side in ("positive", "negative"))
    aud_p, aud_n = (relative(audited[side], audited["anchors"]) for side in ("positive", "negative"))
    out = {}
    for g in groups:
        t_ref = relative(reference["targets"][g], reference["anchors"])
        t_aud = relative(audited["targets"][g], audited["anchors"])
        base = rel_bias(t_ref, ref_p, ref_n)
        out[g] = {"targets_only": rel_bias(t_aud, ref_p, ref_n) - base,
                  "attributes_only": rel_bias(t_ref, aud_p, aud_n) - base}
    return out


def control_delta_b(reference: dict, audited: dict) -> float:
    """ΔB (Eq. 7, relative space) of the group-free control targets ``control`` of both models."""
    if "control" not in reference or "control" not in audited:
        raise ValueError("both models need 'control' embeddings (the group-free targets) for the control ΔB")
    as_group = [{**model, "targets": {"control": model["control"]}} for model in (reference, audited)]
    return rr_delta_b(*as_group)["control"]
