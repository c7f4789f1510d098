"""Statistics shared by every experiment: AUROC, its null, z-tests, multiplicity (paper 000, Sec. V-E).

Theorem 4 of paper 000 gives the null of the empirical AUC; the detection test of every
experiment is a one-sided z-test of the seed-averaged pooled out-of-fold AUC against
``null_multiplier``·σ₀ (1.4 in the paper) at level .05, with p-values from the survival
function so that they never underflow.
"""

from __future__ import annotations

import itertools
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
