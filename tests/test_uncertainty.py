"""lib.uncertainty: the standard errors a claim reads, checked against Monte Carlo."""

import numpy as np
import pandas as pd
import pytest

from lib import uncertainty


def test_loglog_slope_se_matches_the_spread_of_refitted_slopes():
    rng = np.random.default_rng(0)
    n = np.array([100.0, 200, 400, 800, 1600])
    truth, se = n**-0.5, 0.02 * n**-0.5
    slopes = [np.polyfit(np.log(n), np.log(truth + se * rng.standard_normal(5)), 1)[0] for _ in range(4000)]
    assert uncertainty.loglog_slope_se(n, truth, se) == pytest.approx(np.std(slopes), rel=0.05)
    assert np.isnan(uncertainty.loglog_slope_se(n, [1, 1, 0, 1, 1], se))  # a non-positive value: no slope


def test_median_se_matches_the_spread_of_medians_and_needs_two_values():
    rng = np.random.default_rng(1)
    samples = rng.standard_normal((4000, 41))
    one = samples[0]
    assert uncertainty.median_se(one) == pytest.approx(np.std(np.median(samples, axis=1)), rel=0.2)
    assert np.isnan(uncertainty.median_se([1.0, np.nan]))


def test_interval_and_sd_formulas():
    assert uncertainty.interval_se(-1.959964, 1.959964) == pytest.approx(1.0, abs=1e-6)
    assert uncertainty.sd_se(2.0, 3) == pytest.approx(1.0)
    assert np.isnan(uncertainty.sd_se(2.0, 1))
    assert uncertainty.one_swap_spearman(4) == pytest.approx(0.8)  # ranks 1 2 4 3
    assert uncertainty.mean_se([1.0, 3.0, np.nan]) == pytest.approx(1.0) and np.isnan(uncertainty.mean_se([1.0]))


def test_grid_step_is_the_step_that_brackets_a_target():
    assert uncertainty.grid_step([0.1, 0.2, 0.8], [0.5]) == pytest.approx(4.0)
    assert uncertainty.grid_step([0.1, 0.2, 0.8], [5.0]) == pytest.approx(4.0)  # none bracketed: the largest step


def test_crossing_slope_se_is_zero_without_noise_and_grows_with_it():
    rows = [{"n": n, "alpha": a, "rate": min(1.0, a * np.sqrt(n) / 10), "se": s}
            for n in (100, 400, 1600) for a in (0.1, 0.2, 0.4, 0.8, 1.6) for s in (0.0,)]
    rates = pd.DataFrame(rows)
    assert uncertainty.crossing_slope_se(rates, "rate", "se", 0.5, [100, 400, 1600]) == 0.0
    noisy = rates.assign(se=0.01)
    assert uncertainty.crossing_slope_se(noisy, "rate", "se", 0.5, [100, 400, 1600]) > 0
    assert np.isnan(uncertainty.crossing_slope_se(noisy, "rate", "se", 0.5, [100]))


def test_binomial_se_matches_simulated_rates():
    rng = np.random.default_rng(2)
    rates = rng.binomial(200, 0.05, size=20000) / 200
    assert uncertainty.binomial_se(0.05, 200) == pytest.approx(rates.std(), rel=0.03)
    assert np.isnan(uncertainty.binomial_se(0.5, 0))
