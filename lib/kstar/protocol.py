"""The k* protocol of paper 002 (App. A.1.1–A.1.8): FitScore, Algorithm 1, counts, Algorithm 2, precision.

One class decision at one layer and one seed (Algorithm 1, A.1.5):

1. standardise the training split with its own mean and population s.d. (A.1.4, Eq. 6);
2. FitScore the dense probe: class-balanced ℓ2 logistic regression with intercept (LIBLINEAR primal
   trust-region Newton, at most 2,000 iterations, Eq. 7), γ chosen from {0.01, 0.1, 1, 10} on a
   stratified 20% validation portion with ties toward the smaller γ (Eq. 8), refit, test AUROC (Eq. 3);
3. rank the features by |Welch t| (Eq. 11) and FitScore every prefix of size 2^i ≤ min(d, 1024) (Eq. 12);
4. fit the L1 path: ten LIBLINEAR ℓ1 fits on all features at ``np.logspace(-3, 1.5, 10)`` (Eq. 9), each
   scored by its own test AUROC, empty supports dropped;
5. record every candidate (Eq. 13) *before* any threshold: :class:`SearchResult`.

The threshold τ = ½ + 0.95·(C − ½) (Eq. 4) is applied afterwards: :func:`local_count` (Eq. 5),
:func:`neighbor_confirm` (Eq. 14), :func:`ext_median` (Eq. 15), :func:`task_value` and
:func:`seed_range` (Eq. 16); Algorithm 2's helpers (A.1.6) are :func:`best_layer`, :func:`window`,
:func:`stratified_subsample`, :func:`ceiling`, :func:`readability_flag` and :func:`skip_reason`; the
precision of A.1.8 is :func:`ceiling_se`, :func:`threshold_gap`, :func:`mcdiarmid_radius` (Lemma 2,
Eq. 18) and :func:`count_bracket` (Proposition 2).

The paper's displayed equations, its algorithm boxes and the statements of Lemma 1 (A.1.6),
Proposition 1 (A.1.5), Lemma 2 and Proposition 2 (A.1.8) were lost in the text extraction. Equation
numbers below follow the prose references ("Equation 14", ...); every formula marked *re-derived* was
rebuilt from the surrounding prose and proofs.

Choices where the paper is silent (each is documented where it acts and tested):

- ε₀ of Eq. 11 = 1e-12, added under the square root: t_j = |z̄₁ − z̄₀| / √(s₁²/n₁ + s₀²/n₀ + ε₀). It acts
  on standardised features (variances O(1)), so it only separates constant columns (t = 0) and
  within-class-constant separators (t large); ties in |t| keep the lower feature index first.
- Constant training columns: μ_j is the column's own value, so they standardise to exact zeros and get a
  zero coefficient in every fit (the proof of Proposition 1). With ``centre=False`` (SAE features) a
  column that is constant and non-zero is divided by |value| instead of 1, so that the paper's
  SAE-mode invariance under pure rescaling holds for it too (σ = 1 would break it); all-zero columns
  keep σ = 1, as the paper says.
- Columns of every probe are taken in increasing feature index (a permutation of the same problem);
  a prefix equal to the full feature set (k = d) reuses the dense fit, which is then the same fit.
- The validation portion and the 85% subsample are drawn per class (negatives first) by
  ``numpy.random.default_rng([purpose, seed])`` with distinct purposes, so the two draws of one seed
  are independent. LIBLINEAR's ``random_state`` is ``seed mod 2³²`` (the paper did not seed it).
- :func:`local_count`: a candidate qualifies when its AUROC is ≥ τ; between qualifying candidates of
  the same size the larger AUROC supplies the support, then the first recorded (prefixes before L1,
  L1 in increasing γ).
- :func:`window`: the best layer sits second (one grid layer before it, two after), as in the worked
  example (best layer 20 in the window 17, 20, 24, 28); at a grid edge the window shifts inward.
- :func:`best_layer`: a layer's dense AUROC for the tie-break is the mean over class decisions; a
  remaining tie goes to the shallower layer.

Parallelism: ``search(..., n_jobs=2)`` runs the fits as independent tasks in worker *processes*
(:func:`lib.parallel.parallel_map`), the data shared through memory-mapped files. Threads are not
used: scikit-learn's LIBLINEAR seeds one process-global random generator at the start of every fit
(``liblinear_helper.c``: ``set_seed``) and the ℓ1 solver draws from it while the GIL is released,
so concurrent fits in one process would make the L1 supports depend on timing. Every fit is a pure
function of (data, columns, γ, seed), so the result is identical for every ``n_jobs``.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn.linear_model import LogisticRegression

from lib import parallel, stats

GAMMAS = (0.01, 0.1, 1.0, 10.0)  #: Γ₂, the ℓ2 strengths of Eq. 8 (A.1.4)
L1_GRID = tuple(float(g) for g in np.logspace(-3, 1.5, 10))  #: Γ₁, the ℓ1 strengths of Eq. 9 (A.1.4)
PREFIX_MAX = 1024  #: the largest prefix of Eq. 12 (A.1.5)
MAX_ITER = 2000  #: LIBLINEAR iteration cap (A.1.4)
VAL_FRAC = 0.2  #: validation portion per class, rounded down (A.1.4)
SUBSAMPLE_FRAC = 0.85  #: training subsample per class and seed, rounded down (A.1.6)
FRAC = 0.95  #: the factor of Eq. 4 (A.1.1)
WINDOW_SIZE = 4  #: layers in the five-seed window (A.1.6)
SEEDS = (1, 2, 3, 4, 5)  #: R of the five-seed measurement (A.1.6)
MIN_POSITIVES = 5  #: positives per split for a class decision of the core tasks (A.1.3)
READABLE_ABOVE = 0.90  #: task ceilings at or below are flagged (A.1.6, "Readability flag")
EPS0 = 1e-12  #: ε₀ of Eq. 11 (the paper leaves its value open)

_SUBSAMPLE, _VALIDATION = 0, 1  # purposes of the two draws of one seed
_SKLEARN = tuple(int(part) for part in re.findall(r"\d+", sklearn.__version__)[:2])


# ---------------------------------------------------------------------------------------------
# Threshold (A.1.1, Eq. 4)
# ---------------------------------------------------------------------------------------------


def threshold(ceiling: float, frac: float = FRAC) -> float:
    """τ = ½ + frac·(C − ½): paper 002, App. A.1.1, Eq. 4 (C = 0.98 → 0.956, C = 0.90 → 0.88).

    ``ceiling`` must lie in [0, 1] and ``frac`` in (0, 1]; the paper's factor is 0.95 (A.1.11 varies it
    to 0.90 and 0.975).
    """
    c, f = float(ceiling), float(frac)
    if not 0.0 <= c <= 1.0:
        raise ValueError(f"ceiling={ceiling!r} is out of range; allowed: an AUROC in [0, 1]")
    if not 0.0 < f <= 1.0:
        raise ValueError(f"frac={frac!r} is out of range; allowed: (0, 1]")
    return 0.5 + f * (c - 0.5)


# ---------------------------------------------------------------------------------------------
# Inputs, standardisation, ranking, splits (A.1.4, A.1.5, A.1.6)
# ---------------------------------------------------------------------------------------------


def _labels(y, name: str) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {y.shape}")
    values = set(np.unique(y).tolist())
    if not values <= {0, 1}:
        raise ValueError(f"{name} holds the labels {sorted(values)!r}; allowed: 0 and 1 (or booleans)")
    return y.astype(np.int8)


def _class_counts(y: np.ndarray) -> tuple[int, int]:
    n_pos = int(y.sum())
    return n_pos, int(y.size - n_pos)


def _floor_frac(n: int, frac: float) -> int:
    """⌊frac·n⌋ in exact arithmetic (0.85·20 is 16.999… in floating point on some inputs)."""
    return int(Fraction(str(frac)) * n)


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


def _check_inputs(Z_tr, y_tr, Z_te, y_te, val_frac: float):
    Z_tr, Z_te = _matrix(Z_tr, "Z_tr"), _matrix(Z_te, "Z_te")
    y_tr, y_te = _labels(y_tr, "y_tr"), _labels(y_te, "y_te")
    if Z_tr.shape[0] != y_tr.size:
        raise ValueError(f"Z_tr has {Z_tr.shape[0]} rows but y_tr has {y_tr.size} labels")
    if Z_te.shape[0] != y_te.size:
        raise ValueError(f"Z_te has {Z_te.shape[0]} rows but y_te has {y_te.size} labels")
    if Z_tr.shape[1] != Z_te.shape[1]:
        raise ValueError(f"Z_tr has {Z_tr.shape[1]} features but Z_te has {Z_te.shape[1]}")
    if Z_tr.shape[1] == 0:
        raise ValueError("Z_tr has 0 features")
    for split, y in (("training", y_tr), ("test", y_te)):
        n_pos, n_neg = _class_counts(y)
        if n_pos == 0 or n_neg == 0:
            raise ValueError(
                f"the {split} split holds {n_pos} positives and {n_neg} negatives; both classes are needed"
            )
    n_pos, n_neg = _class_counts(y_tr)
    if min(_floor_frac(n_pos, val_frac), _floor_frac(n_neg, val_frac)) < 1:
        need = math.ceil(1 / val_frac)
        raise ValueError(
            f"the training split holds {n_pos} positives and {n_neg} negatives; the {val_frac:.0%} validation "
            f"portion of A.1.4 (rounded down) needs at least {need} of each class"
        )
    return Z_tr, y_tr, Z_te, y_te


def _col_mean_var(Z) -> tuple[np.ndarray, np.ndarray]:
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
    _, var = _col_mean_var(X_tr)
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


def welch_t(Z, y, eps0: float = EPS0) -> np.ndarray:
    """|Welch t| per feature with population variances: paper 002, App. A.1.5, Eq. 11 (re-derived).

    t_j = |z̄₁ⱼ − z̄₀ⱼ| / √(s²₁ⱼ/n₁ + s²₀ⱼ/n₀ + ε₀), with s² the population variance within each class.
    Where ε₀ enters was lost with the equation; it sits under the root here (a choice, ε₀ = 1e-12),
    so a constant feature scores 0 and a feature constant within each class but different between
    them scores very high. Computed on standardised features, so units never enter.
    """
    y = np.asarray(y).astype(bool)
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    pos_mean, pos_var = _col_mean_var(Z[pos])
    neg_mean, neg_var = _col_mean_var(Z[neg])
    n_pos, n_neg = pos.size, neg.size
    return np.abs(pos_mean - neg_mean) / np.sqrt(pos_var / n_pos + neg_var / n_neg + eps0)


def ranking(Z, y, eps0: float = EPS0) -> np.ndarray:
    """π: features by decreasing |Welch t| (paper 002, App. A.1.5, Eq. 11); ties keep the lower index first."""
    return np.argsort(-welch_t(Z, y, eps0), kind="stable")


def prefix_sizes(n_features: int, prefix_max: int = PREFIX_MAX) -> tuple[int, ...]:
    """K = {2^i : 2^i ≤ min(d, 1024)}: paper 002, App. A.1.5, Eq. 12 (d = 640 stops at 512)."""
    if n_features < 1 or prefix_max < 1:
        raise ValueError(f"n_features={n_features!r}, prefix_max={prefix_max!r}; allowed: both >= 1")
    top = min(n_features, prefix_max)
    return tuple(2**i for i in range(top.bit_length()) if 2**i <= top)


def _per_class_draw(y, frac: float, seed: int, purpose: int) -> np.ndarray:
    y = _labels(y, "y")
    if seed < 0:
        raise ValueError(f"seed={seed!r} is out of range; allowed: >= 0")
    rng = np.random.default_rng([purpose, int(seed)])
    drawn = [rng.permutation(np.flatnonzero(y == cls))[: _floor_frac(int((y == cls).sum()), frac)] for cls in (0, 1)]
    return np.sort(np.concatenate(drawn))


def stratified_subsample(y, frac: float = SUBSAMPLE_FRAC, *, seed: int) -> np.ndarray:
    """Rows of one seed's training subsample: ⌊85%⌋ of each class (paper 002, App. A.1.6, "Seeds and subsamples").

    Sorted row indices, drawn without replacement per class (negatives first) by
    ``default_rng([0, seed])``; the test split is never subsampled.
    """
    if not 0.0 < frac <= 1.0:
        raise ValueError(f"frac={frac!r} is out of range; allowed: (0, 1]")
    return _per_class_draw(y, frac, seed, _SUBSAMPLE)


def validation_split(y, frac: float = VAL_FRAC, *, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(fit rows, validation rows): ⌊20%⌋ of each class held out (paper 002, App. A.1.4, "Regularization selection").

    Drawn with the fit's seed (``default_rng([1, seed])``, negatives first) and shared by every γ and
    every subset of one cell, so γ is compared on the same texts.
    """
    if not 0.0 < frac < 1.0:
        raise ValueError(f"frac={frac!r} is out of range; allowed: (0, 1)")
    val = _per_class_draw(y, frac, seed, _VALIDATION)
    return np.setdiff1d(np.arange(len(y)), val), val


# ---------------------------------------------------------------------------------------------
# FitScore and the L1 path (A.1.4), run as independent tasks
# ---------------------------------------------------------------------------------------------


def _logistic(gamma: float, l1: bool, seed: int, max_iter: int) -> LogisticRegression:
    """The probe of Eq. 7 (or its ℓ1 variant): LIBLINEAR, intercept, class-balanced weights n/(2n_y)."""
    options = dict(C=gamma, solver="liblinear", class_weight="balanced", max_iter=max_iter, random_state=seed % 2**32)
    if _SKLEARN >= (1, 8):  # `penalty` is deprecated from scikit-learn 1.8 on
        options["l1_ratio"] = 1.0 if l1 else 0.0
    else:
        options["penalty"] = "l1" if l1 else "l2"
    return LogisticRegression(**options)


@dataclass(frozen=True)
class _Data:
    """The standardised splits (arrays, or paths of memory-mapped copies for worker processes)."""

    Z_tr: object
    Z_te: object
    y_tr: np.ndarray
    y_te: np.ndarray
    fit_rows: np.ndarray
    val_rows: np.ndarray


@dataclass(frozen=True)
class _Task:
    kind: str  # "fitscore" or "l1"
    cols: tuple[int, ...] | None  # None: every feature
    gamma: float = 0.0  # the ℓ1 strength (kind "l1")


def _open(ref):
    if isinstance(ref, str):
        return sp.load_npz(ref).tocsr() if ref.endswith(".npz") else np.load(ref, mmap_mode="r")
    return ref


def _columns(Z, cols):
    return Z if cols is None else Z[:, np.asarray(cols)]


def _run_task(item, _spawned_seed=None):
    """One FitScore (A.1.4, Eq. 7–8: four validation fits, a refit, test AUROC of Eq. 3) or one ℓ1 fit (Eq. 9).

    A pure function of ``item``, so where it runs (inline or a worker process) never changes the result.
    """
    data, task, gammas, seed, max_iter = item
    Z_tr = _columns(_open(data.Z_tr), task.cols)
    Z_te = _columns(_open(data.Z_te), task.cols)
    if task.kind == "l1":
        model = _logistic(task.gamma, True, seed, max_iter).fit(Z_tr, data.y_tr)
        support = tuple(int(j) for j in np.flatnonzero(model.coef_[0]))
        score = float(stats.auroc(data.y_te, model.decision_function(Z_te))) if support else math.nan
        return support, score, math.nan
    Z_fit, Z_val = Z_tr[data.fit_rows], Z_tr[data.val_rows]
    y_fit, y_val = data.y_tr[data.fit_rows], data.y_tr[data.val_rows]
    val = []
    for gamma in gammas:
        model = _logistic(gamma, False, seed, max_iter).fit(Z_fit, y_fit)
        val.append(float(stats.auroc(y_val, model.decision_function(Z_val))))
    chosen = gammas[val.index(max(val))]  # Eq. 8: first maximum over increasing γ = the smaller γ
    model = _logistic(chosen, False, seed, max_iter).fit(Z_tr, data.y_tr)
    return None, float(stats.auroc(data.y_te, model.decision_function(Z_te))), chosen


@contextmanager
def _shared(Z_tr, Z_te, n_jobs: int):
    """The standardised splits (A.1.4, Eq. 6) as they are (inline), or written once for worker processes."""
    if n_jobs == 1:
        yield Z_tr, Z_te
        return
    root = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    folder = tempfile.mkdtemp(prefix="kstar-", dir=root)
    try:
        refs = []
        for name, Z in (("train", Z_tr), ("test", Z_te)):
            if sp.issparse(Z):
                path = os.path.join(folder, f"{name}.npz")
                sp.save_npz(path, Z, compressed=False)
            else:
                path = os.path.join(folder, f"{name}.npy")
                np.save(path, Z)
            refs.append(path)
        yield tuple(refs)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Algorithm 1 (A.1.5): the search
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """One candidate subset of Eq. 13 (paper 002, App. A.1.5) with its test AUROC.

    ``path``: "prefix" (a FitScore on the top-k ranked features) or "l1" (one ℓ1 fit's nonzero
    coefficients); ``support``: sorted feature indices, ``size == len(support)``; ``gamma``: the γ
    the validation chose (prefix) or the ℓ1 strength (l1).
    """

    path: str
    size: int
    support: tuple[int, ...]
    auroc: float
    gamma: float


@dataclass(frozen=True)
class SearchResult:
    """Everything Algorithm 1 records for one class decision, layer and seed (paper 002, App. A.1.5).

    Recorded before any threshold ("the threshold therefore never influences which probes we fit").
    ``candidates``: prefixes in increasing k, then non-empty L1 supports in increasing γ;
    ``ranking``: the first max(K) entries of π (Eq. 11); ``n_fits``: logistic fits made
    (≤ 5·(1 + |K|) + |Γ₁| = 70, A.1.5 "Cost"); ``l1_dropped``: the γ of L1 fits with an empty support.
    """

    dense_auroc: float
    dense_gamma: float
    candidates: tuple[Candidate, ...]
    ranking: tuple[int, ...]
    n_features: int
    n_fits: int
    l1_dropped: tuple[float, ...]
    n_train: tuple[int, int]  # (positives, negatives)
    n_test: tuple[int, int]

    @property
    def best_auroc(self) -> float:
        """The largest test AUROC of any probe of this search (the sweep ceiling's ingredient, A.1.6)."""
        return max([self.dense_auroc, *(c.auroc for c in self.candidates)])

    def curve(self, path: str) -> tuple[tuple[int, float], ...]:
        """(size, AUROC) pairs of one path, as plotted in Fig. 6."""
        return tuple((c.size, c.auroc) for c in self.candidates if c.path == path)


def _grid(values, name: str) -> tuple[float, ...]:
    grid = tuple(sorted({float(v) for v in values}))
    if not grid or not all(math.isfinite(v) and v > 0 for v in grid):
        raise ValueError(f"{name}={values!r}; allowed: a non-empty set of positive finite strengths")
    return grid


def search(
    Z_tr,
    y_tr,
    Z_te,
    y_te,
    seed: int,
    *,
    centre: bool = True,
    prefix_max: int = PREFIX_MAX,
    l1_grid: Sequence[float] = L1_GRID,
    gammas: Sequence[float] = GAMMAS,
    val_frac: float = VAL_FRAC,
    max_iter: int = MAX_ITER,
    eps0: float = EPS0,
    n_jobs: int = 1,
) -> SearchResult:
    """Algorithm 1 with FitScore: paper 002, App. A.1.4–A.1.5 (Eq. 6–13); every candidate, no threshold.

    ``Z_tr``/``Z_te``: raw representations (texts × features; scipy sparse allowed with
    ``centre=False``), standardised here with training statistics (Eq. 6); ``y``: 0/1 labels of the
    class decision; ``seed``: the fit's seed (validation portion, LIBLINEAR's generator).
    ``n_jobs``: worker processes for the fits (1 = inline); the result does not depend on it.
    Raises ``ValueError`` naming the counts for one class in a split, non-finite entries,
    mismatched rows or columns, or a training class too small for the validation portion.
    """
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed={seed!r} is out of range; allowed: an integer >= 0")
    seed = int(seed)
    if not 0.0 < val_frac < 1.0:
        raise ValueError(f"val_frac={val_frac!r} is out of range; allowed: (0, 1)")
    if n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs={n_jobs!r} is out of range; allowed: -1 or >= 1")
    gammas, l1_grid = _grid(gammas, "gammas"), _grid(l1_grid, "l1_grid")
    Z_tr, y_tr, Z_te, y_te = _check_inputs(Z_tr, y_tr, Z_te, y_te, val_frac)
    Z_tr, Z_te = standardise(Z_tr, Z_te, centre=centre)
    n_features = Z_tr.shape[1]
    order = ranking(Z_tr, y_tr, eps0)
    sizes = prefix_sizes(n_features, prefix_max)
    fit_rows, val_rows = validation_split(y_tr, val_frac, seed=seed)

    prefix_cols = {k: (None if k == n_features else tuple(int(j) for j in np.sort(order[:k]))) for k in sizes}
    fitscore_cols = [None, *dict.fromkeys(c for c in prefix_cols.values() if c is not None)]
    tasks = [_Task("fitscore", cols) for cols in fitscore_cols] + [_Task("l1", None, g) for g in l1_grid]
    # Longest first, so two workers finish together (the order never changes a result).
    cost = {t: (len(t.cols) if t.cols else n_features) * (5 if t.kind == "fitscore" else 1 + l1_grid.index(t.gamma))
            for t in tasks}
    scheduled = sorted(tasks, key=lambda t: -cost[t])
    with _shared(Z_tr, Z_te, n_jobs) as (ref_tr, ref_te):
        data = _Data(ref_tr, ref_te, y_tr, y_te, fit_rows, val_rows)
        items = [(data, task, gammas, seed, max_iter) for task in scheduled]
        outputs = parallel.parallel_map(_run_task, items, n_jobs=n_jobs)
    done = dict(zip(scheduled, outputs, strict=True))

    _, dense_auroc, dense_gamma = done[_Task("fitscore", None)]
    candidates = []
    for k in sizes:
        _, score, chosen = done[_Task("fitscore", prefix_cols[k])]
        support = prefix_cols[k] if prefix_cols[k] is not None else tuple(range(n_features))
        candidates.append(Candidate("prefix", k, support, score, chosen))
    dropped = []
    for gamma in l1_grid:
        support, score, _ = done[_Task("l1", None, gamma)]
        if support:
            candidates.append(Candidate("l1", len(support), support, score, gamma))
        else:
            dropped.append(gamma)
    n_fits = (len(gammas) + 1) * len(fitscore_cols) + len(l1_grid)
    return SearchResult(
        dense_auroc=dense_auroc,
        dense_gamma=dense_gamma,
        candidates=tuple(candidates),
        ranking=tuple(int(j) for j in order[: sizes[-1]]),
        n_features=n_features,
        n_fits=n_fits,
        l1_dropped=tuple(dropped),
        n_train=_class_counts(y_tr),
        n_test=_class_counts(y_te),
    )


def fit_score(Z_tr, y_tr, Z_te, y_te, seed: int, *, centre: bool = True, gammas: Sequence[float] = GAMMAS,
              val_frac: float = VAL_FRAC, max_iter: int = MAX_ITER) -> tuple[float, float]:
    """(test AUROC, chosen γ) of the dense probe alone: FitScore on every feature (paper 002, App. A.1.4).

    The same fit as :func:`search`'s ``dense_auroc``/``dense_gamma`` (same standardisation, validation
    split and seed) without the prefix and ℓ1 candidates: for controls that only read the ceiling.
    """
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed={seed!r} is out of range; allowed: an integer >= 0")
    gammas = _grid(gammas, "gammas")
    Z_tr, y_tr, Z_te, y_te = _check_inputs(Z_tr, y_tr, Z_te, y_te, val_frac)
    Z_tr, Z_te = standardise(Z_tr, Z_te, centre=centre)
    fit_rows, val_rows = validation_split(y_tr, val_frac, seed=int(seed))
    data = _Data(Z_tr, Z_te, y_tr, y_te, fit_rows, val_rows)
    _, auroc, gamma = _run_task((data, _Task("fitscore", None), gammas, int(seed), max_iter))
    return auroc, gamma


# ---------------------------------------------------------------------------------------------
# Counts on the extended naturals (A.1.1, A.1.6)
# ---------------------------------------------------------------------------------------------


def _tidy(value: float) -> float | int:
    if math.isinf(value):
        return math.inf
    return int(value) if float(value).is_integer() else float(value)


def _counts(values, name: str) -> list[float | int]:
    values = list(values)
    if not values:
        raise ValueError(f"{name} needs at least one count; got none")
    out = []
    for value in values:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise ValueError(f"{name} got {value!r}; allowed: counts in {{1, 2, …}} ∪ {{inf}} (or their medians)")
        if math.isnan(value) or value <= 0:
            raise ValueError(f"{name} got {value!r}; allowed: counts > 0 or inf")
        out.append(_tidy(float(value)))
    return out


def local_count(
    candidates: SearchResult | Iterable[Candidate], tau: float
) -> tuple[int | float, tuple[int, ...] | None]:
    """(k*, support): the size of the smallest candidate whose test AUROC is ≥ τ (paper 002, App. A.1.1, Eq. 5).

    ``(math.inf, None)`` when no candidate qualifies. Qualifying means AUROC ≥ τ ("a probe qualifies
    exactly when its AUROC reaches τ"). Between qualifying candidates of the same size the one with the
    larger AUROC supplies the support, then the first recorded (prefix before L1, L1 by increasing γ)
    — a choice; the count does not depend on it.
    """
    if isinstance(candidates, SearchResult):
        candidates = candidates.candidates
    tau = float(tau)
    if math.isnan(tau):
        raise ValueError("tau is NaN; allowed: a real threshold")
    best = None
    for cand in candidates:
        if cand.auroc >= tau and (best is None or cand.size < best.size
                                  or (cand.size == best.size and cand.auroc > best.auroc)):
            best = cand
    return (math.inf, None) if best is None else (best.size, best.support)


def neighbor_confirm(counts: Sequence[float]) -> float | int:
    """k̃ = min over consecutive window layers of max(k_ℓᵢ, k_ℓᵢ₊₁): paper 002, App. A.1.6, Eq. 14.

    ``counts`` in window-layer order (∞ allowed). One layer: that layer's count (the paper's rule).
    32, 8, 16, ∞ → 16; 341, 137, 342, 369 → 341 (A.1.7). Empty input or a count ≤ 0 raises.
    """
    values = _counts(counts, "neighbor_confirm")
    if len(values) == 1:
        return values[0]
    return min(max(a, b) for a, b in zip(values[:-1], values[1:], strict=True))


def ext_median(values: Iterable[float]) -> float | int:
    """Median on the extended naturals N ∪ {∞}: paper 002, App. A.1.6, Eq. 15 (re-derived from the prose).

    Sorted u₁ ≤ … ≤ u_N: odd N → u₍N₊₁₎/₂, infinite exactly when more than half are ∞; even N →
    (u_N/2 + u_N/2+1)/2, infinite exactly when at least half are ∞. Not rounded (an even number of
    finite values may give a half-integer; round only for display). Empty input or ≤ 0 raises.
    """
    ordered = sorted(_counts(values, "ext_median"))
    n = len(ordered)
    if n % 2:
        return ordered[n // 2]
    low, high = ordered[n // 2 - 1], ordered[n // 2]
    return math.inf if math.isinf(high) else _tidy((low + high) / 2)


def _rows(counts) -> list[list[float]]:
    rows = list(counts.values()) if isinstance(counts, Mapping) else list(counts)
    if not rows:
        raise ValueError("task_value needs at least one seed; got none")
    return [[row] if np.ndim(row) == 0 else list(row) for row in rows]


def seed_values(counts_by_seed_and_decision) -> tuple[float | int, ...]:
    """Per-seed task values: the ext_median of the confirmed counts over class decisions (A.1.6, Eq. 16).

    Input: one row per seed (a mapping seed → row, or a sequence of rows); a row lists the
    neighbour-confirmed counts of the class decisions, or is one count for a single-decision task.
    """
    return tuple(ext_median(row) for row in _rows(counts_by_seed_and_decision))


def task_value(counts_by_seed_and_decision) -> float | int:
    """k* of a task–model cell: ext_median over seeds of the per-seed medians over class decisions.

    Paper 002, App. A.1.6, Eq. 16 (first expression); the worked example (A.1.7): seeds 341, 332,
    342, 344, 339 → 341.
    """
    return ext_median(seed_values(counts_by_seed_and_decision))


def seed_range(counts_by_seed_and_decision) -> tuple[float | int, float | int]:
    """(min, max) of the per-seed task values: paper 002, App. A.1.6, Eq. 16 (third expression); A.1.7: (332, 344)."""
    values = seed_values(counts_by_seed_and_decision)
    return min(values), max(values)


# ---------------------------------------------------------------------------------------------
# Algorithm 2 (A.1.6)
# ---------------------------------------------------------------------------------------------


def ceiling(results: Iterable[SearchResult | float]) -> float:
    """C: the largest dense-probe test AUROC over the window's layers and seeds (paper 002, App. A.1.1, Eq. 4; A.1.6).

    The common ceiling of Algorithm 2: one threshold for every layer and seed of the cell.
    Accepts search results or dense AUROCs.
    """
    values = [r.dense_auroc if isinstance(r, SearchResult) else float(r) for r in results]
    if not values:
        raise ValueError("ceiling needs at least one dense AUROC; got none")
    return max(values)


def sweep_ceiling(results: Iterable[SearchResult]) -> float:
    """The sweep's ceiling: the largest test AUROC of *any* probe across representations, layers and paths.

    Paper 002, App. A.1.6, "Preliminary sweep" (one seed, full training split).
    """
    values = [r.best_auroc for r in results]
    if not values:
        raise ValueError("sweep_ceiling needs at least one search result; got none")
    return max(values)


def best_layer(local_counts: Mapping[int, Sequence[float]], dense_aurocs: Mapping[int, float | Sequence[float]]) -> int:
    """The sweep's best layer: smallest ext_median local count over class decisions (paper 002, App. A.1.6).

    Ties go to the larger dense AUROC (the paper); a layer's dense AUROC is the mean over its class
    decisions when a sequence is given (a choice), and a remaining tie goes to the shallower layer.
    ``local_counts``: layer → local counts of the class decisions (one seed, the sweep's threshold).
    """
    if not local_counts:
        raise ValueError("best_layer needs at least one layer; got none")
    missing = sorted(set(local_counts) - set(dense_aurocs))
    if missing:
        raise ValueError(f"dense_aurocs lacks the layers {missing}")

    def key(layer):
        return ext_median(local_counts[layer]), -float(np.mean(dense_aurocs[layer])), layer

    return min(local_counts, key=key)


def window(grid_layers: Sequence[int], best: int, size: int = WINDOW_SIZE) -> tuple[int, ...]:
    """The five-seed window: ``size`` consecutive grid layers bracketing the best layer (paper 002, App. A.1.6).

    Where the grid allows, the best layer has a grid neighbour on each side and sits second: one grid
    layer before it and two after (as in A.1.7: best layer 20, window 17, 20, 24, 28). At a grid edge
    the window shifts inward to keep ``size`` layers (best first or last, without an outer neighbour,
    or third when it is the second-to-last grid layer); a grid with fewer layers than ``size`` is used
    whole. These edge rules are choices: the paper only says "wherever the grid allows".
    """
    grid = sorted(set(grid_layers))
    if best not in grid:
        raise ValueError(f"best layer {best!r} is not in the grid; allowed: {grid}")
    if size < 1:
        raise ValueError(f"size={size!r} is out of range; allowed: >= 1")
    if len(grid) <= size:
        return tuple(grid)
    start = grid.index(best) - (size - 1) // 2
    start = min(max(start, 0), len(grid) - size)
    return tuple(grid[start : start + size])


def readability_flag(ceiling_value: float, cutoff: float = READABLE_ABOVE) -> bool:
    """True when a task ceiling is ≤ 0.90: flagged, its counts not read as task sizes (A.1.6, "Readability flag")."""
    return float(ceiling_value) <= cutoff


def skip_reason(y_train, y_test, *, ceiling_value: float | None = None, minimum: int = MIN_POSITIVES) -> str | None:
    """Why a class decision is not evaluated, or None (paper 002, App. A.1.3 "Balance and caps"; A.1.8).

    A decision needs at least ``minimum`` positives in each split (5 for the core tasks, 20 for the
    additional ones); a decision whose ceiling is ≤ 0.5 reads nothing above chance and is unreadable.
    """
    for split, y in (("training", y_train), ("test", y_test)):
        n_pos = int(np.sum(np.asarray(y).astype(bool)))
        if n_pos < minimum:
            return f"{n_pos} positives in the {split} split; at least {minimum} are needed"
    if ceiling_value is not None and ceiling_value <= 0.5:
        return f"ceiling {ceiling_value:.4f} <= 0.5: unreadable"
    return None


# ---------------------------------------------------------------------------------------------
# Precision (A.1.8)
# ---------------------------------------------------------------------------------------------


def ceiling_se(ceiling_value: float, n_pos: int, n_neg: int) -> float:
    """Hanley–McNeil standard error of a ceiling from the test class counts: paper 002, App. A.1.8, Eq. 20.

    A.1.7–A.1.8: C = 0.9790 on 1039 positives and 961 negatives → 0.0032.
    """
    return float(stats.hanley_mcneil_se(ceiling_value, n_pos, n_neg))


def threshold_gap(ceiling_value: float, frac: float = FRAC) -> float:
    """C − τ = (1 − frac)(C − ½) = 0.05(C − ½): the gap a ceiling's error is compared with (A.1.8)."""
    return float(ceiling_value) - threshold(ceiling_value, frac)


def se_within_gap(ceiling_value: float, n_pos: int, n_neg: int, *, z: float = 1.96, frac: float = FRAC) -> bool:
    """True when z·se(C) < the gap 0.05(C − ½) (paper 002, App. A.1.8, Table 5: 99.4% of readable decisions)."""
    return z * ceiling_se(ceiling_value, n_pos, n_neg) < threshold_gap(ceiling_value, frac)


def mcdiarmid_radius(n_pos: int, n_neg: int, n_scorers: int, delta: float = 0.05) -> float:
    """ε_δ = √((1/n₁ + 1/n₀)·log(2M/δ)/2): paper 002, App. A.1.8, Lemma 2, Eq. 18 (re-derived).

    Under Assumption A, with probability ≥ 1 − δ every one of the M scorers' test AUROCs lies within
    ε_δ of its population AUROC (bounded differences 1/n₁ and 1/n₀, then a union bound over M).
    The paper uses δ = 0.05: 0.08 at 1500/1500 test texts and M = 440 (4 layers × 5 seeds × 22 scorers).
    """
    if min(n_pos, n_neg, n_scorers) < 1 or not 0.0 < delta < 1.0:
        raise ValueError(f"n_pos={n_pos}, n_neg={n_neg}, n_scorers={n_scorers}, delta={delta}; "
                         "allowed: counts >= 1 and delta in (0, 1)")
    return math.sqrt((1.0 / n_pos + 1.0 / n_neg) * math.log(2.0 * n_scorers / delta) / 2.0)


def count_bracket(candidates: SearchResult | Iterable[Candidate], tau: float, eps: float,
                  frac: float = FRAC) -> tuple[int | float, int | float]:
    """Proposition 2 (paper 002, App. A.1.8; statement re-derived from its proof): the count bracket.

    If every scorer's empirical and population AUROCs differ by at most ε (Lemma 2 gives ε = ε_δ with
    probability 1 − δ), the ceilings differ by ≤ ε and the thresholds by ≤ frac·ε, and

        k̄(τ̄ − (1+frac)ε) ≤ k̂(τ̂) ≤ k̄(τ̄ + (1+frac)ε)      (1 + frac = 1.95),

    where k̄(t) is the local count read on population AUROCs at threshold t. The premise is symmetric,
    so the same holds with the roles exchanged. This function returns
    ``(local_count(candidates, τ − (1+frac)ε), local_count(candidates, τ + (1+frac)ε))``: given
    population curves and τ̄ it brackets the empirical count; given empirical curves and τ̂ it brackets
    the population count. Aggregates follow by Lemma 1(iv): apply :func:`neighbor_confirm` and
    :func:`task_value` to the lower and to the upper counts.
    """
    if eps < 0 or math.isnan(eps):
        raise ValueError(f"eps={eps!r} is out of range; allowed: >= 0")
    if isinstance(candidates, SearchResult):
        candidates = candidates.candidates
    candidates = tuple(candidates)
    margin = (1.0 + frac) * eps
    return local_count(candidates, tau - margin)[0], local_count(candidates, tau + margin)[0]


# ---------------------------------------------------------------------------------------------
# The synthetic readout (A.3.4, Table 37)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SyntheticCount:
    """k^syn of one query (paper 002, App. A.3.4): ``count`` (None: unreadable, not a count), the ``layer``
    that attains it and the largest dense AUROC over the layers (``ceiling``)."""

    count: int | float | None
    layer: int | None
    ceiling: float

    @property
    def readable(self) -> bool:
        return self.count is not None


def _pairs(candidates) -> list[tuple[int, float]]:
    if isinstance(candidates, SearchResult):
        candidates = candidates.candidates
    return [(c.size, c.auroc) if isinstance(c, Candidate) else (int(c[0]), float(c[1])) for c in candidates]


def median_curve(candidates: SearchResult | Iterable[Candidate | tuple[int, float]]) -> dict[int, float]:
    """Ã(k): the median test AUROC over the ranked-prefix and L1 candidates of each size k (A.3.4), by size."""
    by_size: dict[int, list[float]] = {}
    for size, auroc in _pairs(candidates):
        by_size.setdefault(size, []).append(auroc)
    return {size: float(np.median(by_size[size])) for size in sorted(by_size)}


def synthetic_layer_count(dense_auroc: float, candidates: SearchResult | Iterable[Candidate | tuple[int, float]],
                          frac: float = FRAC) -> int | float:
    """The smallest k with Ã(k) ≥ τ = ½ + frac·(C_ℓ − ½), C_ℓ the layer's own dense AUROC (A.3.4); ∞ if none."""
    tau = threshold(dense_auroc, frac)
    sizes = [size for size, value in median_curve(candidates).items() if value >= tau]
    return min(sizes) if sizes else math.inf


def synthetic_count(layers: Mapping[int, SearchResult | tuple[float, Iterable]], frac: float = FRAC,
                    readable_above: float = READABLE_ABOVE) -> SyntheticCount:
    """k^syn: paper 002, App. A.3.4, Eq. 50 and Table 37 (both lost in extraction; re-derived from the prose).

    ``layers``: layer → a :class:`SearchResult` or ``(dense AUROC, candidates)`` with candidates as
    :class:`Candidate` or (size, AUROC) pairs. Differences from the main estimator (Table 37): the
    threshold uses each layer's own dense ceiling C_qℓ; a size qualifies when the *median* AUROC of its
    candidates reaches it (:func:`synthetic_layer_count`); the count is the minimum over layers, with no
    neighbour confirmation; one probe seed, no subsample. A query whose dense AUROC exceeds
    ``readable_above`` (0.90) at no layer is unreadable: ``count=None``, distinct from a large count.

    The minimum runs over the readable layers (C_qℓ > 0.90) only — a choice the lost table may have
    stated otherwise: at a layer that reads nothing (the embedding layer at the query position reads
    C ≈ ½) τ falls to about ½ and any candidate would qualify, so a count of one would be manufactured
    from chance. Ties between layers go to the shallower layer.
    """
    if not layers:
        raise ValueError("synthetic_count needs at least one layer; got none")
    dense = {}
    for layer, value in layers.items():
        dense[layer] = value.dense_auroc if isinstance(value, SearchResult) else float(value[0])
    top = max(dense.values())
    readable = sorted(layer for layer, c in dense.items() if c > readable_above)
    if not readable:
        return SyntheticCount(None, None, top)
    counts = {}
    for layer in readable:
        value = layers[layer]
        candidates = value if isinstance(value, SearchResult) else value[1]
        counts[layer] = synthetic_layer_count(dense[layer], candidates, frac)
    best = min(readable, key=lambda layer: (counts[layer], layer))
    return SyntheticCount(_tidy(float(counts[best])), best, top)
