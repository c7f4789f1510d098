"""Algorithm 1 of paper 002 (App. A.1.5, Eq. 11–13): every candidate subset of one class decision, no threshold.

One class decision at one block and one seed:

1. standardise the training split with its own mean and population s.d. (A.1.4, Eq. 6);
2. FitScore the dense probe (A.1.4, Eq. 7–8; :mod:`lib.kstar.protocol.fitscore`);
3. rank the features by |Welch t| (Eq. 11) and FitScore every prefix of size 2^i ≤ min(d, 1024) (Eq. 12);
4. fit the L1 path: ten LIBLINEAR ℓ1 fits on all features at ``np.logspace(-3, 1.5, 10)`` (Eq. 9), each
   scored by its own test AUROC, empty supports dropped;
5. record every candidate (Eq. 13) *before* any threshold: :class:`SearchResult`. The threshold and the
   counts are applied afterwards (:mod:`lib.kstar.protocol.rules`).

The paper's displayed equations and algorithm boxes were lost in the text extraction; equation numbers
follow the prose references. Choices where the paper is silent:

- ε₀ of Eq. 11 = 1e-12, added under the square root: t_j = |z̄₁ − z̄₀| / √(s₁²/n₁ + s₀²/n₀ + ε₀). It acts
  on standardised features (variances O(1)), so it only separates constant columns (t = 0) and
  within-class-constant separators (t large); ties in |t| keep the lower feature index first.
- A prefix equal to the full feature set (k = d) reuses the dense fit, which is then the same fit.

Parallelism: ``search(..., n_jobs=2)`` runs the fits as independent tasks in worker *processes*
(:func:`lib.parallel.map_shared`, the standardised splits shared through memory-mapped files). Threads are
not used: scikit-learn's LIBLINEAR seeds one process-global random generator at the start of every fit
(``liblinear_helper.c``: ``set_seed``) and the ℓ1 solver draws from it while the GIL is released,
so concurrent fits in one process would make the L1 supports depend on timing. Every fit is a pure
function of (data, columns, γ, seed), so the result is identical for every ``n_jobs``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lib import parallel
from lib.kstar.protocol.fitscore import (
    GAMMAS,
    L1_GRID,
    MAX_ITER,
    Fit,
    Labels,
    check_inputs,
    check_seed,
    column_mean_var,
    run_fit,
    standardise,
    strengths,
)
from lib.kstar.protocol.splits import VAL_FRAC, label_counts, validation_split

PREFIX_MAX = 1024  #: the largest prefix of Eq. 12 (A.1.5)
EPS0 = 1e-12  #: ε₀ of Eq. 11 (the paper leaves its value open)


def welch_t(Z, y, eps0: float = EPS0) -> np.ndarray:
    """|Welch t| per feature with population variances: paper 002, App. A.1.5, Eq. 11 (re-derived).

    t_j = |z̄₁ⱼ − z̄₀ⱼ| / √(s²₁ⱼ/n₁ + s²₀ⱼ/n₀ + ε₀), with s² the population variance within each class.
    Where ε₀ enters was lost with the equation; it sits under the root here (a choice, ε₀ = 1e-12),
    so a constant feature scores 0 and a feature constant within each class but different between
    them scores very high. Computed on standardised features, so units never enter.
    """
    y = np.asarray(y).astype(bool)
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    pos_mean, pos_var = column_mean_var(Z[pos])
    neg_mean, neg_var = column_mean_var(Z[neg])
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
    """Everything Algorithm 1 records for one class decision, block and seed (paper 002, App. A.1.5).

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
    seed = check_seed(seed)
    if not 0.0 < val_frac < 1.0:
        raise ValueError(f"val_frac={val_frac!r} is out of range; allowed: (0, 1)")
    if n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs={n_jobs!r} is out of range; allowed: -1 or >= 1")
    gammas, l1_grid = strengths(gammas, "gammas"), strengths(l1_grid, "l1_grid")
    Z_tr, y_tr, Z_te, y_te = check_inputs(Z_tr, y_tr, Z_te, y_te, val_frac)
    Z_tr, Z_te = standardise(Z_tr, Z_te, centre=centre)
    n_features = Z_tr.shape[1]
    order = ranking(Z_tr, y_tr, eps0)
    sizes = prefix_sizes(n_features, prefix_max)
    fit_rows, val_rows = validation_split(y_tr, val_frac, seed=seed)

    prefix_cols = {k: (None if k == n_features else tuple(int(j) for j in np.sort(order[:k]))) for k in sizes}
    fitscore_cols = [None, *dict.fromkeys(c for c in prefix_cols.values() if c is not None)]
    fits = [Fit("fitscore", cols) for cols in fitscore_cols] + [Fit("l1", None, g) for g in l1_grid]
    # Longest first, so two workers finish together (the order never changes a result).
    cost = {f: (len(f.cols) if f.cols else n_features) * (5 if f.kind == "fitscore" else 1 + l1_grid.index(f.gamma))
            for f in fits}
    scheduled = sorted(fits, key=lambda f: -cost[f])
    labels = Labels(y_tr, y_te, fit_rows, val_rows)
    items = [(labels, fit, gammas, seed, max_iter) for fit in scheduled]
    outputs = parallel.map_shared(run_fit, items, {"train": Z_tr, "test": Z_te}, n_jobs=n_jobs)
    done = dict(zip(scheduled, outputs, strict=True))

    _, dense_auroc, dense_gamma = done[Fit("fitscore", None)]
    candidates = []
    for k in sizes:
        _, score, chosen = done[Fit("fitscore", prefix_cols[k])]
        support = prefix_cols[k] if prefix_cols[k] is not None else tuple(range(n_features))
        candidates.append(Candidate("prefix", k, support, score, chosen))
    dropped = []
    for gamma in l1_grid:
        support, score, _ = done[Fit("l1", None, gamma)]
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
        n_train=label_counts(y_tr),
        n_test=label_counts(y_te),
    )
