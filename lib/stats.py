"""Statistics shared by every experiment: AUROC, its null, z-tests, multiplicity (paper 000, Sec. V-E).

Theorem 4 of paper 000 gives the null of the empirical AUC; the detection test of every
experiment is a one-sided z-test of the seed-averaged pooled out-of-fold AUC against
``null_multiplier``·σ₀ (1.4 in the paper) at level .05, with p-values from the survival
function so that they never underflow.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

#: The detection test's null multiplier: AUC against 1.4·σ₀, calibrated on label-free pools (paper 000, Sec. V-E).
DETECTION_NULL_MULTIPLIER: float = 1.4


def auroc(labels: ArrayLike, scores: ArrayLike) -> np.ndarray:
    """AUROC as the Mann–Whitney statistic U/(n₊n₋), ties counting one half.

    Works along the last axis so that thousands of Monte Carlo replicates are scored in one
    call (scikit-learn's ``roc_auc_score`` takes one sample at a time; the tests check both
    agree). ``labels`` is boolean or 0/1 and must hold both classes in every row.
    """
    labels = np.asarray(labels).astype(bool)
    scores = np.asarray(scores, dtype=float)
    labels = np.broadcast_to(labels, scores.shape)
    n_pos = labels.sum(axis=-1)
    n_neg = labels.shape[-1] - n_pos
    if np.any(n_pos == 0) or np.any(n_neg == 0):
        raise ValueError("auroc needs both classes present in every sample")
    ranks = sps.rankdata(scores, axis=-1)  # average ranks: ties count one half
    rank_sum = np.where(labels, ranks, 0.0).sum(axis=-1)
    u_stat = rank_sum - n_pos * (n_pos + 1) / 2.0
    return u_stat / (n_pos * n_neg)


def null_auc_var(n_pos: ArrayLike, n_neg: ArrayLike) -> np.ndarray:
    """Null variance of the empirical AUC (Mann–Whitney U / n₊n₋), paper 000 Theorem 4.

    (n₊ + n₋ + 1) / (12·n₊·n₋), exact for continuous scores under label exchangeability.
    """
    n_pos = np.asarray(n_pos, dtype=float)
    n_neg = np.asarray(n_neg, dtype=float)
    return (n_pos + n_neg + 1.0) / (12.0 * n_pos * n_neg)


def null_auc_sd(n_pos: ArrayLike, n_neg: ArrayLike) -> np.ndarray:
    """σ₀ = √((n₊+n₋+1)/(12n₊n₋)), the null s.d. of the empirical AUC (Theorem 4)."""
    return np.sqrt(null_auc_var(n_pos, n_neg))


def permutation_null_aucs(n_pos: int, n_neg: int) -> np.ndarray:
    """Every AUC value of the exact permutation null for continuous scores (small n only).

    Enumerates all C(n₊+n₋, n₊) label assignments of the ranks 1..n₊+n₋.
    """
    n = n_pos + n_neg
    if n > 22:
        raise ValueError(f"n_pos + n_neg = {n} is too large to enumerate; allowed: <= 22")
    aucs = []
    for positives in itertools.combinations(range(1, n + 1), n_pos):
        aucs.append((sum(positives) - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))
    return np.asarray(aucs)


def hanley_mcneil_se(auc: ArrayLike, n_pos: ArrayLike, n_neg: ArrayLike) -> np.ndarray:
    """Standard error of an empirical AUC under the alternative (Hanley & McNeil, 1982)."""
    a = np.asarray(auc, dtype=float)
    n_pos = np.asarray(n_pos, dtype=float)
    n_neg = np.asarray(n_neg, dtype=float)
    q1 = a / (2.0 - a)
    q2 = 2.0 * a**2 / (1.0 + a)
    var = (a * (1 - a) + (n_pos - 1) * (q1 - a**2) + (n_neg - 1) * (q2 - a**2)) / (n_pos * n_neg)
    return np.sqrt(var)


def one_sided_z(
    stat: ArrayLike, null_mean: ArrayLike, null_sd: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """z = (stat − null_mean)/null_sd, its upper-tail p-value and log10 p-value.

    The p-value is the normal survival function (1 − Φ(z) loses everything beyond z ≈ 8);
    below float64's range (z ≳ 38) it is 0, and log10 p from ``logsf`` stays finite
    (≈ −349.4 at z = 40), so strong detections remain comparable.
    """
    z = (np.asarray(stat, dtype=float) - np.asarray(null_mean, dtype=float)) / np.asarray(
        null_sd, dtype=float
    )
    return z, sps.norm.sf(z), sps.norm.logsf(z) / np.log(10.0)


@dataclass(frozen=True)
class Detection:
    """Outcome of the detection test; raw AUC and class sizes are kept for recalibration."""

    auc: float
    n_pos: int
    n_neg: int
    null_multiplier: float
    z: float
    p_value: float
    log10_p: float
    level: float
    detected: bool


def detection_test(
    auc: float, n_pos: int, n_neg: int, null_multiplier: float = DETECTION_NULL_MULTIPLIER, level: float = 0.05
) -> Detection:
    """One-sided z-test of an AUC against ½ with null s.d. ``null_multiplier``·σ₀ (Sec. V-E)."""
    if not 0 < level < 1:
        raise ValueError(f"level={level!r} is out of range; allowed: 0 < level < 1")
    if null_multiplier <= 0:
        raise ValueError(f"null_multiplier={null_multiplier!r} is out of range; allowed: > 0")
    z, p, log10_p = one_sided_z(auc, 0.5, null_multiplier * null_auc_sd(n_pos, n_neg))
    return Detection(
        auc=float(auc), n_pos=int(n_pos), n_neg=int(n_neg), null_multiplier=float(null_multiplier),
        z=float(z), p_value=float(p), log10_p=float(log10_p), level=float(level),
        detected=bool(p < level),
    )


def adjust_pvalues(p_values: ArrayLike, method: str = "fdr_bh", alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Family-wise correction (Sec. V-E): ``bonferroni`` or ``fdr_bh`` (Benjamini–Hochberg).

    Returns (reject, adjusted p-values), via statsmodels.
    """
    allowed = ("bonferroni", "fdr_bh")
    if method not in allowed:
        raise ValueError(f"method={method!r} is not supported; allowed: {', '.join(allowed)}")
    reject, adjusted, _, _ = multipletests(np.asarray(p_values, dtype=float), alpha=alpha, method=method)
    return reject, adjusted


# --------------------------------------------------------------------------- rank agreement (paper 002, A.2.1)


def spearman(x: ArrayLike, y: ArrayLike) -> float:
    """Spearman's ρ: Pearson's r of average ranks (paper 002, A.2.1).

    ``math.inf`` is a value like any other: every ∞ ties at the largest rank, as the paper's count
    convention needs (a count of ∞ exceeds every finite count). NaN if either side is constant.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) != len(y) or len(x) < 2:
        raise ValueError(f"spearman needs two sequences of equal length >= 2; got {len(x)} and {len(y)}")
    if np.all(x == x[0]) or np.all(y == y[0]):  # a constant order has no rank correlation (scipy would warn)
        return float("nan")
    return float(sps.spearmanr(x, y).statistic)


#: Observations a partial rank correlation given one control needs: on three, the centred ranks of x and y left
#: after removing z's lie on one line, so the partial is ±1 whatever the data.
PARTIAL_MIN_N = 4


def partial_spearman(x: ArrayLike, y: ArrayLike, z: ArrayLike) -> float:
    """Partial rank correlation of x and y given z (paper 002, A.2.1, the text-level control):
    (ρ_xy − ρ_xz·ρ_yz) / √((1 − ρ_xz²)(1 − ρ_yz²)) on Spearman's ρ; NaN when z orders x or y exactly (ρ = ±1).
    Fewer than :data:`PARTIAL_MIN_N` observations raise ValueError: on three the partial is ±1 by construction."""
    n = len(np.asarray(x))
    if n < PARTIAL_MIN_N:
        raise ValueError(f"partial_spearman got {n} observations; allowed: at least {PARTIAL_MIN_N} (on three the "
                         "partial rank correlation given one control is ±1 by construction)")
    r_xy, r_xz, r_yz = spearman(x, y), spearman(x, z), spearman(y, z)
    denominator = np.sqrt((1 - r_xz**2) * (1 - r_yz**2))
    return float((r_xy - r_xz * r_yz) / denominator) if denominator > 0 else float("nan")


def _row_ranks(table: np.ndarray) -> np.ndarray:
    ranks = sps.rankdata(table, axis=-1)
    ranks = ranks - ranks.mean(axis=-1, keepdims=True)
    return ranks / np.linalg.norm(ranks, axis=-1, keepdims=True)


def median_pair_spearman(table: ArrayLike, pairs: Sequence[tuple[int, int]]) -> float:
    """Median Spearman ρ (Eq. 25) over the given pairs of rows of ``table`` (rows: models, columns: tasks)."""
    z = _row_ranks(np.asarray(table, dtype=float))
    return float(np.median([z[i] @ z[j] for i, j in pairs]))


def order_permutation_test(table: ArrayLike, n_permutations: int = 100_000, seed: int = 0,
                           pairs: Sequence[tuple[int, int]] | None = None) -> tuple[float, float]:
    """(observed median ρ over ``pairs``, permutation p) for shared task orders (paper 002, A.2.1).

    The statistic is the median of Eq. 25 over ``pairs`` of rows (the paper's: its cross-lab pairs; None:
    every pair). The null shuffles the task labels within each model independently, so a shuffled model
    enters all its pairs; p = (1 + #{null ≥ observed}) / (1 + n_permutations), so it never reads 0. Needs
    ≥ 2 models, ≥ 3 tasks, no constant row and at least one pair.
    """
    values = np.asarray(table, dtype=float)
    if values.ndim != 2 or values.shape[0] < 2 or values.shape[1] < 3:
        raise ValueError(f"table has shape {values.shape}; allowed: (models >= 2, tasks >= 3)")
    if n_permutations < 1:
        raise ValueError(f"n_permutations={n_permutations!r}; allowed: >= 1")
    n_models, n_tasks = values.shape
    pairs = list(itertools.combinations(range(n_models), 2)) if pairs is None else [tuple(p) for p in pairs]
    if not pairs or any(not (0 <= i < n_models and 0 <= j < n_models and i != j) for i, j in pairs):
        raise ValueError(f"pairs={pairs!r}; allowed: at least one pair of distinct rows of {n_models}")
    z = _row_ranks(values)
    if not np.all(np.isfinite(z)):
        raise ValueError("a model ranks every task alike: its order carries no information")
    observed = median_pair_spearman(values, pairs)
    rng = np.random.default_rng(seed)
    exceed, done = 0, 0
    while done < n_permutations:  # in blocks: 10^5 permutations never hold 10^5 × models × tasks at once
        block = min(10_000, n_permutations - done)
        order = rng.random((block, n_models, n_tasks)).argsort(axis=-1)
        shuffled = np.take_along_axis(np.broadcast_to(z, (block, n_models, n_tasks)), order, axis=-1)
        null = np.median([np.einsum("bt,bt->b", shuffled[:, i], shuffled[:, j]) for i, j in pairs], axis=0)
        exceed += int(np.sum(null >= observed - 1e-12))
        done += block
    return observed, (1 + exceed) / (1 + n_permutations)


def paired_wilcoxon(a: ArrayLike, b: ArrayLike) -> dict[str, float]:
    """Two-sided Wilcoxon signed-rank test of paired readings (scipy), with the median of a − b."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"paired readings need two 1-d arrays of one length; got {a.shape} and {b.shape}")
    if np.all(a == b):  # no difference at all: nothing to test, and scipy refuses
        return {"statistic": 0.0, "p_value": 1.0, "median_difference": 0.0, "n": len(a)}
    test = sps.wilcoxon(a, b)
    return {"statistic": float(test.statistic), "p_value": float(test.pvalue),
            "median_difference": float(np.median(a - b)), "n": len(a)}
