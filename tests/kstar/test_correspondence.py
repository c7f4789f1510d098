"""lib.kstar.sae.correspondence: Lemma 3, the null's calibration and power, the aggregation (paper 002, A.2.4)."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from lib.kstar.sae import correspondence as corr


def _labels(n, rng):
    return rng.permutation(np.arange(n) % 2)


def _world(rng, n=200, d_b=120, k=3, planted=True, shift=1.0):
    """A's k selected features; B's d_b features, of which the first k are selected. Every feature reads the
    label (a class shift drawn per feature); with ``planted`` B's selected features share A's within-class
    variation (correlation ~0.7), else all of B is independent of A within class."""
    y = _labels(n, rng)
    latent = rng.standard_normal((n, k))
    XA = latent + 0.6 * rng.standard_normal((n, k)) + shift * rng.uniform(0.2, 1.5, k) * y[:, None]
    XB = rng.standard_normal((n, d_b)) + shift * rng.uniform(0.2, 1.5, d_b) * y[:, None]
    if planted:
        XB[:, :k] = latent + 0.6 * rng.standard_normal((n, k)) + shift * rng.uniform(0.2, 1.5, k) * y[:, None]
    return XA, XB, list(range(k)), y


def test_lemma3_class_constant_shifts_scale_and_sign_leave_the_score_unchanged():
    rng = np.random.default_rng(0)
    XA, XB, support, y = _world(rng, k=4)
    XB = XB[:, support]
    base = corr.match_score(XA, XB, y)
    shifts = rng.normal(0, 50, (2, XA.shape[1]))  # any per-class, per-feature constant
    shifted = XA + shifts[y]
    scaled = XB * np.array([3.0, -0.01, 7e3, -2.0])
    assert corr.match_score(shifted, scaled, y) == pytest.approx(base, abs=1e-10)
    assert corr.match_score(XB, XA, y) == pytest.approx(base, abs=1e-12)  # symmetry (transposed R)


def test_lemma3_correlations_are_bounded_by_one_and_a_constant_column_reads_zero():
    rng = np.random.default_rng(1)
    y = _labels(60, rng)
    X = rng.standard_normal((60, 5))
    X[:, 1] = 3.0  # constant
    X[:, 2] = 4.0 * y - 1.0  # constant within each class: centres to zero
    X[:, 3] = X[:, 0] * -2.5 + 10 * y  # perfectly correlated with column 0 within class
    P = corr.profiles(X, y)
    R = corr.correlations(P, P)
    assert R.max() <= 1.0 + 1e-12
    assert np.all(R[:, 1] == 0) and np.all(R[:, 2] == 0)
    assert R[0, 3] == pytest.approx(1.0)
    assert np.allclose((P[:, [0, 3, 4]] ** 2).sum(axis=0), 60)  # ‖P_:j‖² = n for non-constant columns


def test_q1_score_is_the_largest_within_class_absolute_correlation():
    rng = np.random.default_rng(2)
    XA, XB, _, y = _world(rng, n=80, d_b=4, k=1)
    centred = [np.concatenate([c[y == 0] - c[y == 0].mean(), c[y == 1] - c[y == 1].mean()]) for c in
               [XA[:, 0], *XB.T]]
    expected = max(abs(np.corrcoef(centred[0], other)[0, 1]) for other in centred[1:])
    assert corr.match_score(XA, XB, y) == pytest.approx(expected, abs=1e-12)


def test_hungarian_matching_beats_the_greedy_choice_on_a_worked_example():
    # greedy takes 0.9 then is left with 0.1 (mean 0.5); the optimum takes 0.8 + 0.8 (mean 0.8)
    R = np.array([[0.9, 0.8], [0.8, 0.1]])
    assert corr.matched_mean(R) == pytest.approx(0.8)
    assert corr.matched_mean(np.array([[0.2, 0.7, 0.4]])) == pytest.approx(0.7)  # q = 1: the largest entry


def test_vectorised_null_equals_the_direct_loop():
    rng = np.random.default_rng(3)
    XA, XB, support, y = _world(rng, k=3)
    fast = corr.label_matched_null(XA, XB, support, y, n_draws=200, seed=7)
    slow = corr.label_matched_null_loop(XA, XB, support, y, n_draws=200, seed=7)
    for field in ("score", "null_mean", "null_sd", "q99", "z"):
        assert getattr(fast, field) == pytest.approx(getattr(slow, field), abs=1e-10)
    assert fast.passed == slow.passed and fast.q == 3 and fast.n_candidates == 50


def test_candidates_are_unselected_nonconstant_and_nearest_in_label_correlation():
    rng = np.random.default_rng(4)
    XA, XB, support, y = _world(rng, k=2, d_b=80)
    XB[:, 5] = 1.0  # constant: never a candidate
    lists = corr.candidate_lists(XB, y, support, n_nearest=10)
    assert lists.shape == (2, 10)
    assert not set(lists.ravel()) & {0, 1, 5}
    lam = corr.label_correlations(XB, y)
    for j, row in zip(support, lists, strict=True):
        others = np.setdiff1d(np.flatnonzero(~np.isnan(lam)), support)
        worst = np.abs(lam[row] - lam[j]).max()
        outside = np.setdiff1d(others, row)
        assert np.abs(lam[outside] - lam[j]).min() >= worst


def test_planted_correspondence_passes_at_least_90_percent():
    rng = np.random.default_rng(5)
    passed = [corr.label_matched_null(*_world(rng, k=3), n_draws=200, seed=s).passed for s in range(30)]
    assert np.mean(passed) >= 0.9


def test_independent_features_pass_near_the_nominal_one_percent():
    rng = np.random.default_rng(6)
    n_tests = 400
    passed = sum(corr.label_matched_null(*_world(rng, n=100, d_b=80, k=2, planted=False), n_draws=200,
                                         seed=s).passed for s in range(n_tests))
    low, high = stats.binom.interval(0.999, n_tests, 0.01)  # nominal 1% (exceedance of Q0.99)
    assert low <= passed <= high, f"{passed} of {n_tests} passed; 99.9% binomial interval at 1%: [{low}, {high}]"


def test_seeds_are_per_pair_and_decision_and_tests_aggregate():
    rng = np.random.default_rng(8)
    XA, XB, support, y = _world(rng, k=2)
    XC = rng.standard_normal(XB.shape)
    codes = {"a": np.hstack([XA, rng.standard_normal((len(y), 30))]), "b": XB, "c": XC}
    supports = {("a", "d1"): [0, 1], ("b", "d1"): support, ("c", "d1"): [3], ("a", "d2"): [0],
                ("b", "d2"): [], ("c", "d2"): None}
    labels = {"d1": y, "d2": y}
    table = corr.correspondence_tests("t", ["a", "b", "c"], supports, codes, labels, n_draws=100)
    assert len(table) == 4  # (a,b,d1), (a,b,d2: q=0), (a,c,d1), (b,c,d1); c holds no support for d2
    assert (table.status == "q=0").sum() == 1
    again = corr.correspondence_tests("t", ["a", "b"], supports, codes, labels, n_draws=100)
    first = table[(table.model_b == "b") & (table.status == "tested")].reset_index(drop=True)
    pd.testing.assert_frame_equal(first, again[again.status == "tested"].reset_index(drop=True))
    rates = corr.pass_rates(table).set_index("split")
    assert rates.loc["all", "tests"] == 3 and rates.loc["all", "skipped_q0"] == 1
    assert rates.loc["q=1", "tests"] == 2 and rates.loc["q>1", "tests"] == 1
    assert rates.loc["all", "passed"] == table.passed.sum()


def test_bad_input_is_refused_before_compute():
    rng = np.random.default_rng(9)
    XA, XB, support, y = _world(rng, k=2)
    with pytest.raises(ValueError, match="inputs must be shared"):
        corr.match_score(XA[:10], XB, y)
    with pytest.raises(ValueError, match="q = min"):
        corr.match_score(XA[:, :0], XB, y)
    with pytest.raises(ValueError, match="support_B"):
        corr.label_matched_null(XA, XB, [500], y)
    with pytest.raises(ValueError, match="allowed: 0 and 1"):
        corr.match_score(XA, XB, y + 1)


def test_paper_pooled_rate_weighs_each_task_by_its_tests():
    assert corr.paper_pooled_rate() == pytest.approx((0.562 * 447 + 0.489 * 280 + 0.343 * 105) / 832)
    assert corr.PAPER_RATE_SPAN[0] < corr.paper_pooled_rate() < corr.PAPER_RATE_SPAN[1]


def test_median_z_clips_a_degenerate_null_and_gives_the_median_se():
    z, se = corr.median_z([1.0, 2.0, np.inf, 3e16, -1.0])
    assert z == 2.0  # two values clipped to 10 leave the median where it was
    clipped = np.array([1.0, 2.0, 10.0, 10.0, -1.0])
    assert se == pytest.approx(np.sqrt(np.pi / 2) * clipped.std(ddof=1) / np.sqrt(5))
    assert all(np.isnan(v) for v in corr.median_z([]))
    assert np.isnan(corr.median_z([1.5])[1])
