"""lib.bias_probes.cell_draws: draws of extremes and means over a run's cells, against their closed forms."""

from itertools import permutations

import numpy as np
import pytest
from scipy.stats import norm

from lib import stats
from lib.bias_probes import cell_draws


def test_the_largest_error_over_cells_has_the_closed_form_of_a_normal_maximum():
    """P(max_i Z_i ≤ x) = Φ(x)^m and P(max_i |Z_i| ≤ x) = (2Φ(x) − 1)^m for m independent unit normals."""
    signed = cell_draws.max_error_draws(np.zeros(5), 1.0, n=40_000)
    absolute = cell_draws.max_error_draws(np.zeros(5), 1.0, absolute=True, n=40_000)
    for x in (0.5, 1.5, 2.5):
        assert np.mean(signed <= x) == pytest.approx(norm.cdf(x) ** 5, abs=0.01)
        assert np.mean(absolute <= x) == pytest.approx((2 * norm.cdf(x) - 1) ** 5, abs=0.01)


def test_offsets_shift_and_scales_spread_each_cell():
    draws = cell_draws.max_error_draws([10.0, 0.0], [0.5, 3.0], n=20_000)  # the first cell is the max almost always
    assert draws.mean() == pytest.approx(10.0, abs=0.05) and draws.std() == pytest.approx(0.5, abs=0.02)
    z = cell_draws.max_abs_z_draws([0.2, np.nan], [0.1, 1.0], n=20_000)  # a NaN cell is left out: |2 + Z|
    assert np.median(z) == pytest.approx(2.0, abs=0.05)
    assert np.isnan(cell_draws.max_error_draws([], [], n=10)).all()


def test_mean_independent_spearman_matches_the_enumerated_null():
    """Two groups of four items: the exact distribution of the mean of two independent Spearman ρ."""
    rho = np.array([stats.spearman(range(4), p) for p in permutations(range(4))])
    exact = np.mean((rho[:, None] + rho[None, :]) / 2 > 0.5)
    draws = cell_draws.mean_independent_spearman_draws([4, 4], n=40_000)
    assert np.mean(draws > 0.5) == pytest.approx(exact, abs=0.01)
    assert np.isnan(cell_draws.mean_independent_spearman_draws([], n=5)).all()


def test_mean_spearman_draws_follow_the_truth_and_its_noise():
    reference = [np.array([1.0, 2.0, 3.0, 4.0])] * 2
    exact = cell_draws.mean_spearman_draws(reference, reference, [1e-6, 1e-6], n=200)
    assert np.allclose(exact, 1.0)
    noisy = cell_draws.mean_spearman_draws(reference, reference, [10.0, 10.0], n=4000)
    assert 0.02 < noisy.mean() < 0.3 and noisy.std() > 0.3  # noise ten times the spacing: a faint, noisy order
