"""Closed forms of paper 000 (lib.bias_probes.theory): Monte Carlo checks, invariances and limits."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import norm

from lib import stats
from lib.bias_probes import synth, theory

separations = st.floats(min_value=0.01, max_value=50)
purities = st.floats(min_value=0.0, max_value=1.0)
curvatures = st.floats(min_value=1e-4, max_value=100)


@given(s=separations, a=purities, b=purities)
def test_purity_law_is_increasing_in_alpha(s, a, b):
    lo, hi = sorted((a, b))
    if hi - lo > 1e-6:
        assert theory.purity_auc(s, hi) > theory.purity_auc(s, lo)


@given(s=separations, alpha=purities)
def test_purity_law_lies_between_chance_and_binormal(s, alpha):
    value = theory.purity_auc(s, alpha)
    assert 0.5 - 1e-12 <= value <= theory.binormal_auc(s) + 1e-12
    assert value <= theory.saturated_purity_auc(alpha) + 1e-12


def test_purity_law_endpoints_and_saturation():
    s = np.array([0.3, 2.0, 9.0])
    np.testing.assert_allclose(theory.purity_auc(s, 1.0), theory.binormal_auc(s))
    np.testing.assert_allclose(theory.purity_auc(s, 0.0), 0.5)
    np.testing.assert_allclose(theory.purity_auc(60.0, np.linspace(0, 1, 11)),
                               theory.saturated_purity_auc(np.linspace(0, 1, 11)), atol=1e-12)


def test_saturation_threshold_matches_paper_statement():
    threshold = theory.saturation_threshold(0.005)
    assert 6.0 < threshold <= 6.6  # paper 000, Thm 3 (ii): "for s >= 6.6 ... within 0.005"
    alphas = np.linspace(0, 1, 2001)
    gap = theory.saturated_purity_auc(alphas) - theory.purity_auc(threshold + 1e-3, alphas)
    assert gap.max() <= 0.005


def test_purity_law_against_monte_carlo():
    rng = np.random.default_rng(1)
    cov = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, 0.3], [0.0, 0.3, 0.5]])
    aucs = []
    for _ in range(60):
        sample = synth.purity_mixture(rng, 3000, 1.5, 0.4, d=3, covariance=cov)
        aucs.append(stats.auroc(sample.y, sample.X @ sample.oracle_direction))
    se = np.std(aucs, ddof=1) / np.sqrt(len(aucs))
    assert abs(np.mean(aucs) - theory.purity_auc(1.5, 0.4)) < 4 * se


@given(r=st.floats(min_value=0, max_value=10), kappa=curvatures)
def test_chord_is_at_most_geodesic_and_diameter(r, kappa):
    chord = theory.chord_length(r, kappa)
    assert chord <= r + 1e-9
    assert chord <= 2 / np.sqrt(kappa) + 1e-9


def test_chord_limits():
    r = np.linspace(0, 3, 7)
    np.testing.assert_allclose(theory.chord_length(r, 1e-12), r, atol=1e-9)  # κ → 0: flat
    np.testing.assert_array_equal(theory.chord_length(r, 0.0), r)
    np.testing.assert_allclose(theory.chord_length(np.pi, 1.0), 2.0)  # antipodal: diameter
    with pytest.raises(ValueError, match="kappa"):
        theory.chord_length(1.0, -1.0)


def test_curvature_ceiling_limits_and_monotonicity():
    kappas = np.logspace(-6, 6, 50)
    ceiling = theory.curvature_ceiling(kappas, 0.5)
    assert np.all(np.diff(ceiling) <= 0)
    assert np.all(np.diff(theory.curvature_ceiling(np.logspace(-1, 6, 50), 0.5)) < 0)
    assert ceiling[0] > 1 - 1e-9 and abs(theory.curvature_ceiling(1e12, 0.5) - 0.5) < 1e-5  # κ → 0: 1; κ → ∞: ½
    assert theory.curvature_ceiling(0.0, 0.5) == 1.0
    r = np.linspace(0, np.pi, 100)
    assert np.all(theory.chordal_auc(r, 1.0, 0.5) <= theory.curvature_ceiling(1.0, 0.5) + 1e-12)


def test_chordal_auc_against_monte_carlo():
    rng = np.random.default_rng(2)
    aucs = []
    for _ in range(40):
        sample = synth.sphere_clusters(rng, 2000, kappa=1.0, r=2.0, sigma_w=0.6, d=4)
        aucs.append(stats.auroc(sample.y, sample.X @ sample.oracle_direction))
    se = np.std(aucs, ddof=1) / np.sqrt(len(aucs))
    assert abs(np.mean(aucs) - theory.chordal_auc(2.0, 1.0, 0.6)) < 4 * se


def test_null_variance_is_exact_for_the_permutation_null():
    for n_pos, n_neg in [(1, 1), (3, 4), (7, 5)]:
        values = stats.permutation_null_aucs(n_pos, n_neg)
        assert values.mean() == pytest.approx(0.5)
        assert values.var() == pytest.approx(theory.null_auc_var(n_pos, n_neg), rel=1e-12)


def test_critical_purity_constant_and_budget_are_inverse():
    assert theory.CRITICAL_PURITY_CONSTANT == pytest.approx(2.05, abs=0.005)
    z = norm.isf(0.05) + norm.isf(0.2)
    assert theory.critical_purity(100, 1.0) == pytest.approx(2 * np.sqrt(np.pi) / np.sqrt(3) * z / 10)
    n = np.array([50.0, 300.0, 5000.0])
    alpha_star = theory.critical_purity(n, 0.7)
    np.testing.assert_allclose(theory.sample_budget(alpha_star, 0.7), n)
    slope = np.polyfit(np.log(n), np.log(alpha_star), 1)[0]
    assert slope == pytest.approx(-0.5)


def test_exact_critical_purity_agrees_where_linearisation_holds():
    assert theory.critical_purity_exact(3000, 0.25) == pytest.approx(theory.critical_purity(3000, 0.25), rel=0.02)
    assert theory.critical_purity_exact(300, 4.0) > 1.2 * theory.critical_purity(300, 4.0)  # Φ concave
    assert theory.critical_purity_exact(10, 0.1) == float("inf")


def test_generalization_bound():
    n = np.array([10, 100, 1000, 10000])
    np.testing.assert_allclose(theory.rademacher_linear(n, 2.0, 3.0), 6.0 / np.sqrt(n))
    bound = theory.generalization_bound(n, 2.0, 3.0, delta=0.05)
    assert np.all(np.diff(bound) < 0)
    np.testing.assert_allclose(bound * np.sqrt(n), 12.0 + np.sqrt(np.log(20) / 2))


def test_offset_purity_law_against_monte_carlo_and_limits():
    """Corollary 2 (re-derived): neutral texts at b_w from the midpoint along the discriminant."""
    np.testing.assert_allclose(theory.offset_purity_auc(2.0, 0.4, 0.0), theory.purity_auc(2.0, 0.4))
    assert theory.offset_purity_auc(2.0, 0.4, 0.7) < theory.purity_auc(2.0, 0.4)
    assert theory.offset_purity_auc(2.0, 0.4, 0.7) == pytest.approx(theory.offset_purity_auc(2.0, 0.4, -0.7))
    rng = np.random.default_rng(6)
    aucs = []
    for _ in range(60):
        sample = synth.purity_mixture(rng, 3000, 2.0, 0.4, d=2, neutral_offset=np.array([0.7, 0.0]))
        aucs.append(stats.auroc(sample.y, sample.X @ sample.oracle_direction))
    se = np.std(aucs, ddof=1) / np.sqrt(len(aucs))
    assert abs(np.mean(aucs) - theory.offset_purity_auc(2.0, 0.4, 0.7)) < 4 * se


@pytest.mark.parametrize(("kappa", "tau"), [(1.0, 0.6), (0.0, 0.4), (4.0, 0.3)])
def test_chordal_auc_with_intrinsic_spread_against_monte_carlo(kappa, tau):
    rng = np.random.default_rng(3)
    aucs = []
    for _ in range(40):
        sample = synth.sphere_clusters(rng, 2000, kappa=kappa, r=1.2, sigma_w=0.4, d=4, tau=tau)
        aucs.append(stats.auroc(sample.y, sample.X @ sample.oracle_direction))
    se = np.std(aucs, ddof=1) / np.sqrt(len(aucs))
    predicted = theory.chordal_auc_spread(1.2, kappa, 0.4, tau)
    assert abs(np.mean(aucs) - predicted) < 4 * se
    assert predicted < theory.chordal_auc(1.2, kappa, 0.4) - 10 * se  # the spread is visible at this size


def test_hypercube_bayes_excess_against_a_simulated_majority_vote():
    n, dim = 120, 6
    rng = np.random.default_rng(4)
    eps = 0.5 * np.sqrt(dim / n)
    excess = []
    for _ in range(4000):
        signs = rng.choice([-1, 1], size=dim)
        point = rng.integers(dim, size=n)
        y = rng.random(n) < 0.5 + eps * signs[point]
        votes = np.bincount(point, weights=2 * y - 1.0, minlength=dim)
        guess = np.where(votes == 0, rng.choice([-1, 1], size=dim), np.sign(votes))
        excess.append(2 * eps * np.mean(guess != signs))
    se = np.std(excess, ddof=1) / np.sqrt(len(excess))
    assert abs(np.mean(excess) - theory.hypercube_bayes_excess(n, dim)) < 4 * se


def test_hypercube_bayes_excess_has_the_minimax_rate():
    grid = [(200, 2), (800, 2), (800, 32), (3200, 8)]
    ratios = [theory.hypercube_bayes_excess(n, d) / np.sqrt(d / n) for n, d in grid]
    assert np.ptp(ratios) < 0.01 and ratios[0] == pytest.approx(norm.cdf(-1), abs=0.01)
    with pytest.raises(ValueError, match="n=10"):
        theory.hypercube_bayes_excess(10, 4)
