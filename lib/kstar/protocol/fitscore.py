"""FitScore and the ℓ1 fit of paper 002 (App. A.1.4, Eq. 6–9), each a pure function of its inputs.

- :func:`standardise`: the training split's own mean and population s.d. for both splits (Eq. 6).
- FitScore (Eq. 7–8): class-balanced ℓ2 logistic regression with intercept (LIBLINEAR primal trust-region
  Newton, at most 2,000 iterations), γ chosen from {0.01, 0.1, 1, 10} on a stratified 20% validation
  portion with ties toward the smaller γ, refit on the whole training split, test AUROC (Eq. 3).
- The ℓ1 fit (Eq. 9): one LIBLINEAR ℓ1 fit on the given columns, its non-zero coefficients and test AUROC.

Choices where the paper is silent:

- Constant training columns: μ_j is the column's own value, so they standardise to exact zeros and get a
  zero coefficient in every fit (the proof of Proposition 1). With ``centre=False`` (SAE features) a
  column that is constant and non-zero is divided by |value| instead of 1, so that the paper's
  SAE-mode invariance under pure rescaling holds for it too (σ = 1 would break it); all-zero columns
  keep σ = 1, as the paper says.
- Columns of every probe are taken in increasing feature index (a permutation of the same problem).
- LIBLINEAR's ``random_state`` is ``seed mod 2³²`` (the paper did not seed it).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn.linear_model import LogisticRegression

from lib import stats
from lib.kstar.protocol.splits import VAL_FRAC, binary_labels, floor_fraction, label_counts, validation_split

GAMMAS = (0.01, 0.1, 1.0, 10.0)  #: Γ₂, the ℓ2 strengths of Eq. 8 (A.1.4)
L1_GRID = tuple(float(g) for g in np.logspace(-3, 1.5, 10))  #: Γ₁, the ℓ1 strengths of Eq. 9 (A.1.4)
MAX_ITER = 2000  #: LIBLINEAR iteration cap (A.1.4)

_SKLEARN = tuple(int(part) for part in re.findall(r"\d+", sklearn.__version__)[:2])


def _matrix(Z, name: str):
    if sp.issparse(Z):
        Z = sp.csr_matrix(Z, dtype=np.float64)
        values = Z.data
    else:
        Z = np.asarray(Z, dtype=np.float64)
        values = Z
    if Z.ndim != 2:
        raise ValueError(f"{name} must be a two-dimensional (texts × features) matrix; got shape {Z.shape}")
    bad = int(np.count_nonzero(~np.isfinite(values)))
    if bad:
        raise ValueError(f"{name} holds {bad} non-finite entries (NaN or inf) among {Z.shape[0]}×{Z.shape[1]}")
    return Z


def check_inputs(Z_tr, y_tr, Z_te, y_te, val_frac: float = VAL_FRAC):
    """``(Z_tr, y_tr, Z_te, y_te)`` as float64 matrices and 0/1 labels, or ValueError naming the problem.

    Both classes in both splits, matching rows and columns, finite entries, and a training split whose
    classes each hold at least one validation row (A.1.4, rounded down).
    """
    Z_tr, Z_te = _matrix(Z_tr, "Z_tr"), _matrix(Z_te, "Z_te")
    y_tr, y_te = binary_labels(y_tr, "y_tr"), binary_labels(y_te, "y_te")
    if Z_tr.shape[0] != y_tr.size:
        raise ValueError(f"Z_tr has {Z_tr.shape[0]} rows but y_tr has {y_tr.size} labels")
    if Z_te.shape[0] != y_te.size:
        raise ValueError(f"Z_te has {Z_te.shape[0]} rows but y_te has {y_te.size} labels")
    if Z_tr.shape[1] != Z_te.shape[1]:
        raise ValueError(f"Z_tr has {Z_tr.shape[1]} features but Z_te has {Z_te.shape[1]}")
    if Z_tr.shape[1] == 0:
        raise ValueError("Z_tr has 0 features")
    for split, y in (("training", y_tr), ("test", y_te)):
        n_pos, n_neg = label_counts(y)
        if n_pos == 0 or n_neg == 0:
            raise ValueError(
                f"the {split} split holds {n_pos} positives and {n_neg} negatives; both classes are needed"
            )
    n_pos, n_neg = label_counts(y_tr)
    if min(floor_fraction(n_pos, val_frac), floor_fraction(n_neg, val_frac)) < 1:
        need = math.ceil(1 / val_frac)
        raise ValueError(
            f"the training split holds {n_pos} positives and {n_neg} negatives; the {val_frac:.0%} validation "
            f"portion of A.1.4 (rounded down) needs at least {need} of each class"
        )
    return Z_tr, y_tr, Z_te, y_te


def column_mean_var(Z) -> tuple[np.ndarray, np.ndarray]:
    """Column means and population variances (dense: two-pass; sparse: E[z²] − E[z]²)."""
    if sp.issparse(Z):
        mean = np.asarray(Z.mean(axis=0)).ravel()
        mean_sq = np.asarray(Z.multiply(Z).mean(axis=0)).ravel()
        return mean, np.maximum(mean_sq - mean * mean, 0.0)
    return Z.mean(axis=0), Z.var(axis=0)


def standardise(X_tr, X_te, *, centre: bool = True):
    """Training-split standardisation of both splits: paper 002, App. A.1.4, Eq. 6.

    z_j = (x_j − μ_j)/σ_j with the training mean μ_j and population s.d. σ_j (ddof 0), in float64; the
    test split is transformed with the *training* μ and σ. A column constant on the training split
    gets σ_j = 1 and μ_j = its value, so it standardises to exact zeros there (and receives a zero
    coefficient in every fit). ``centre=False`` (SAE features, A.1.10) divides by σ_j only, which keeps
    zeros at zero; scipy sparse input is accepted in that mode and stays sparse (CSR). In that mode a
    constant non-zero column is divided by its |value| rather than 1 — a choice: it keeps Proposition 1's
    rescaling invariance exact for such columns, where σ = 1 would not.
    Returns ``(Z_tr, Z_te)``: C-contiguous float64 arrays, or CSR matrices for sparse input.
    """
    if sp.issparse(X_tr) or sp.issparse(X_te):
        if centre:
            raise ValueError("sparse input cannot be centred without densifying it; pass centre=False (A.1.10)")
        X_tr, X_te = sp.csr_matrix(X_tr, dtype=np.float64), sp.csr_matrix(X_te, dtype=np.float64)
        lo = X_tr.min(axis=0).toarray().ravel()
        hi = X_tr.max(axis=0).toarray().ravel()
    else:
        X_tr, X_te = np.asarray(X_tr, dtype=np.float64), np.asarray(X_te, dtype=np.float64)
        lo, hi = X_tr.min(axis=0), X_tr.max(axis=0)
    constant = lo == hi
    _, var = column_mean_var(X_tr)
    sd = np.sqrt(var)
    if centre:
        mu = X_tr.mean(axis=0)
        mu[constant] = lo[constant]
        sd[constant] = 1.0
    else:
        sd[constant] = np.where(hi[constant] != 0.0, np.abs(hi[constant]), 1.0)
    sd[sd == 0.0] = 1.0  # a non-constant column whose variance underflowed
    if sp.issparse(X_tr):
        scale = sp.diags(1.0 / sd)
        return sp.csr_matrix(X_tr @ scale), sp.csr_matrix(X_te @ scale)
    if centre:
        return np.ascontiguousarray((X_tr - mu) / sd), np.ascontiguousarray((X_te - mu) / sd)
    return np.ascontiguousarray(X_tr / sd), np.ascontiguousarray(X_te / sd)


def strengths(values: Sequence[float], name: str) -> tuple[float, ...]:
    """A regularisation grid (Γ₁ or Γ₂ of A.1.4) sorted and deduplicated; ValueError unless positive and finite."""
    grid = tuple(sorted({float(v) for v in values}))
    if not grid or not all(math.isfinite(v) and v > 0 for v in grid):
        raise ValueError(f"{name}={values!r}; allowed: a non-empty set of positive finite strengths")
    return grid


def _logistic(gamma: float, l1: bool, seed: int, max_iter: int) -> LogisticRegression:
    """The probe of Eq. 7 (or its ℓ1 variant): LIBLINEAR, intercept, class-balanced weights n/(2n_y)."""
    options = dict(C=gamma, solver="liblinear", class_weight="balanced", max_iter=max_iter, random_state=seed % 2**32)
    if _SKLEARN >= (1, 8):  # `penalty` is deprecated from scikit-learn 1.8 on
        options["l1_ratio"] = 1.0 if l1 else 0.0
    else:
        options["penalty"] = "l1" if l1 else "l2"
    return LogisticRegression(**options)


@dataclass(frozen=True)
class Labels:
    """What every fit of one cell shares besides the features: both splits' labels and the validation rows."""

    y_tr: np.ndarray
    y_te: np.ndarray
    fit_rows: np.ndarray
    val_rows: np.ndarray


@dataclass(frozen=True)
class Fit:
    """One fit of a cell: ``kind`` "fitscore" (Eq. 7–8) or "l1" (Eq. 9) on the columns ``cols`` (None: all)."""

    kind: str
    cols: tuple[int, ...] | None
    gamma: float = 0.0  # the ℓ1 strength (kind "l1")


def _columns(Z, cols):
    return Z if cols is None else Z[:, np.asarray(cols)]


def run_fit(item: tuple[Labels, Fit, tuple[float, ...], int, int], arrays: Mapping[str, Any]
            ) -> tuple[tuple[int, ...] | None, float, float]:
    """One FitScore (A.1.4, Eq. 7–8: four validation fits, a refit, test AUROC of Eq. 3) or one ℓ1 fit (Eq. 9).

    ``item``: (labels, fit, Γ₂, seed, max_iter); ``arrays``: the standardised ``"train"`` and ``"test"``
    features. Returns (ℓ1 support or None, test AUROC, chosen γ or NaN). A pure function of its inputs,
    so where it runs (inline or a worker process, :func:`lib.parallel.map_shared`) never changes the result.
    """
    labels, fit, gammas, seed, max_iter = item
    Z_tr, Z_te = _columns(arrays["train"], fit.cols), _columns(arrays["test"], fit.cols)
    if fit.kind == "l1":
        model = _logistic(fit.gamma, True, seed, max_iter).fit(Z_tr, labels.y_tr)
        support = tuple(int(j) for j in np.flatnonzero(model.coef_[0]))
        score = float(stats.auroc(labels.y_te, model.decision_function(Z_te))) if support else math.nan
        return support, score, math.nan
    Z_fit, Z_val = Z_tr[labels.fit_rows], Z_tr[labels.val_rows]
    y_fit, y_val = labels.y_tr[labels.fit_rows], labels.y_tr[labels.val_rows]
    val = []
    for gamma in gammas:
        model = _logistic(gamma, False, seed, max_iter).fit(Z_fit, y_fit)
        val.append(float(stats.auroc(y_val, model.decision_function(Z_val))))
    chosen = gammas[val.index(max(val))]  # Eq. 8: first maximum over increasing γ = the smaller γ
    model = _logistic(chosen, False, seed, max_iter).fit(Z_tr, labels.y_tr)
    return None, float(stats.auroc(labels.y_te, model.decision_function(Z_te))), chosen


def check_seed(seed) -> int:
    """A fit's seed as an int; ValueError unless it is an integer ≥ 0 (booleans refused)."""
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed={seed!r} is out of range; allowed: an integer >= 0")
    return int(seed)


def fit_score(Z_tr, y_tr, Z_te, y_te, seed: int, *, centre: bool = True, gammas: Sequence[float] = GAMMAS,
              val_frac: float = VAL_FRAC, max_iter: int = MAX_ITER) -> tuple[float, float]:
    """(test AUROC, chosen γ) of the dense probe alone: FitScore on every feature (paper 002, App. A.1.4).

    The same fit as :func:`lib.kstar.protocol.probe_search.search`'s ``dense_auroc``/``dense_gamma`` (same
    standardisation, validation split and seed) without the prefix and ℓ1 candidates: for controls that
    only read the ceiling.
    """
    seed = check_seed(seed)
    gammas = strengths(gammas, "gammas")
    Z_tr, y_tr, Z_te, y_te = check_inputs(Z_tr, y_tr, Z_te, y_te, val_frac)
    Z_tr, Z_te = standardise(Z_tr, Z_te, centre=centre)
    fit_rows, val_rows = validation_split(y_tr, val_frac, seed=seed)
    labels = Labels(y_tr, y_te, fit_rows, val_rows)
    _, auroc, gamma = run_fit((labels, Fit("fitscore", None), gammas, seed, max_iter), {"train": Z_tr, "test": Z_te})
    return auroc, gamma
