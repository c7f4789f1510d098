"""lib.stats: AUROC with ties, its null, Hanley–McNeil, survival-function z-tests, corrections."""

import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from lib import stats
from lib.bias_probes import theory


def test_auroc_matches_sklearn_with_ties_and_batches():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, size=(20, 60))
    labels[:, :2] = [1, 0]
    scores = rng.integers(0, 5, size=(20, 60)).astype(float)  # many ties
    batched = stats.auroc(labels, scores)
    expected = [roc_auc_score(y, s) for y, s in zip(labels, scores, strict=True)]
    np.testing.assert_allclose(batched, expected)


def test_auroc_ties_count_one_half_and_needs_both_classes():
    assert stats.auroc([1, 0], [0.3, 0.3]) == 0.5
    assert stats.auroc([1, 0, 1, 0], [4, 1, 3, 2]) == 1.0
    with pytest.raises(ValueError, match="both classes"):
        stats.auroc([1, 1], [0.1, 0.2])


def test_hanley_mcneil_reduces_to_null_variance_at_half():
    for n_pos, n_neg in [(5, 7), (100, 300)]:
        assert stats.hanley_mcneil_se(0.5, n_pos, n_neg) ** 2 == pytest.approx(theory.null_auc_var(n_pos, n_neg))


def test_hanley_mcneil_against_monte_carlo_binormal():
    rng = np.random.default_rng(4)
    n_pos = n_neg = 200
    aucs = stats.auroc(np.r_[np.ones(n_pos), np.zeros(n_neg)],
                       np.c_[rng.normal(1.0, 1, (4000, n_pos)), rng.normal(0, 1, (4000, n_neg))])
    se = stats.hanley_mcneil_se(theory.binormal_auc(1.0), n_pos, n_neg)
    assert aucs.std() == pytest.approx(se, rel=0.1)  # H–M is an approximation (exponential model)


def test_survival_function_p_values_do_not_underflow():
    z, p, log10_p = stats.one_sided_z(np.array([8.0, 40.0]), 0.0, 1.0)
    assert p[0] > 0 and 1 - __import__("scipy").stats.norm.cdf(9.0) == 0  # the old bug
    assert np.isfinite(log10_p[1]) and log10_p[1] == pytest.approx(-349.4, abs=0.1)


def test_detection_test_uses_the_calibrated_null():
    sigma0 = stats.null_auc_sd(150, 150)
    at_edge = stats.detection_test(0.5 + 1.645 * 1.4 * sigma0 * 1.01, 150, 150)
    assert at_edge.detected and at_edge.null_multiplier == 1.4
    assert not stats.detection_test(0.5 + 1.645 * sigma0 * 1.01, 150, 150).detected  # passes σ₀, not 1.4σ₀
    with pytest.raises(ValueError, match="level"):
        stats.detection_test(0.6, 10, 10, level=1.5)


def test_detection_test_level_under_the_null():
    rng = np.random.default_rng(5)
    labels = np.r_[np.ones(100), np.zeros(100)].astype(bool)
    aucs = stats.auroc(labels, rng.standard_normal((20000, 200)))
    _, p, _ = stats.one_sided_z(aucs, 0.5, stats.null_auc_sd(100, 100))
    assert (p < 0.05).mean() == pytest.approx(0.05, abs=0.006)


def test_adjust_pvalues():
    p = np.array([0.001, 0.01, 0.02, 0.5])
    reject, adjusted = stats.adjust_pvalues(p, "bonferroni")
    np.testing.assert_allclose(adjusted, np.minimum(p * 4, 1))
    assert reject.tolist() == [True, True, False, False]
    reject_bh, _ = stats.adjust_pvalues(p, "fdr_bh")
    assert reject_bh.tolist() == [True, True, True, False]
    with pytest.raises(ValueError, match="allowed: bonferroni, fdr_bh"):
        stats.adjust_pvalues(p, "holm-ish")


def test_spearman_ties_infinite_counts_at_the_top_and_is_invariant_to_log():
    counts = [4, 256, math.inf, 16, 2]
    other = [8, 64, math.inf, 32, 1]
    assert stats.spearman(counts, other) == pytest.approx(1.0)
    assert stats.spearman(np.log(counts), other) == pytest.approx(stats.spearman(counts, other))  # A.2.1: log k*
    assert stats.spearman([1, math.inf, math.inf], [1, 2, 3]) == pytest.approx(0.8660254)  # ∞ share the top rank
    assert math.isnan(stats.spearman([1, 1, 1], [1, 2, 3]))


def test_partial_spearman_removes_a_shared_control():
    rng = np.random.default_rng(0)
    z = rng.normal(size=400)
    x, y = z + 0.3 * rng.normal(size=400), z + 0.3 * rng.normal(size=400)
    assert stats.spearman(x, y) > 0.8
    assert abs(stats.partial_spearman(x, y, z)) < 0.15


def test_partial_spearman_needs_four_observations():
    """On three observations the formula gives ±1 (or NaN) whatever the orders: the guard refuses them."""
    from itertools import permutations

    for y in permutations([1, 2, 3]):
        for z in permutations([1, 2, 3]):
            r_xy, r_xz, r_yz = stats.spearman([1, 2, 3], y), stats.spearman([1, 2, 3], z), stats.spearman(y, z)
            denominator = np.sqrt((1 - r_xz**2) * (1 - r_yz**2))
            if denominator > 0:
                assert abs((r_xy - r_xz * r_yz) / denominator) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="3 observations; allowed: at least 4"):
        stats.partial_spearman([1, 2, 3], [1, 3, 2], [2, 1, 3])
    assert stats.partial_spearman([1, 2, 3, 4], [1, 2, 4, 3], [2, 1, 3, 4]) == pytest.approx(2 / 3)  # off ±1


def test_order_permutation_test_separates_shared_and_independent_orders():
    rng = np.random.default_rng(1)
    base = rng.permutation(12).astype(float)
    shared = np.vstack([base, base + rng.normal(0, 0.5, 12), base + rng.normal(0, 0.5, 12)])
    observed, p = stats.order_permutation_test(shared, n_permutations=20_000, seed=0)
    assert observed > 0.9 and p < 1e-3
    independent = np.vstack([rng.permutation(12) for _ in range(3)]).astype(float)
    p_values = [stats.order_permutation_test(independent[[0, k]], n_permutations=2000, seed=k)[1] for k in (1, 2)]
    assert min(p_values) > 0.01
    with pytest.raises(ValueError, match="models >= 2, tasks >= 3"):
        stats.order_permutation_test(base[None, :])


def test_paired_wilcoxon_reports_the_median_difference():
    a = np.array([0.9, 0.8, 0.95, 0.7, 0.85, 0.9, 0.99, 0.75])
    result = stats.paired_wilcoxon(a, a - 0.05 - 0.01 * np.arange(8))
    assert result["median_difference"] == pytest.approx(0.085)
    assert result["p_value"] < 0.05 and result["n"] == 8
