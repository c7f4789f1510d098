"""lib.kstar.order.order_power: draws of K03's rank statistics against closed forms, scipy and Monte Carlo."""

import math

import numpy as np
import pytest
from scipy import stats

from lib import stats as lib_stats
from lib.kstar.order import order_power as op


def test_the_latent_model_has_the_stated_spearman_correlations():
    models, text = op.latent_tasks(3000, 2, 0.9, -0.6, n=2, seed=0)
    assert stats.spearmanr(models[0, 0], models[0, 1]).statistic == pytest.approx(0.9, abs=0.02)
    assert stats.spearmanr(models[1, 0], text[1]).statistic == pytest.approx(-0.6, abs=0.03)
    assert op.pearson_for_spearman(1.0) == pytest.approx(1.0) and op.pearson_for_spearman(0.0) == 0.0
    with pytest.raises(ValueError, match="no such model"):
        op.latent_tasks(5, 2, 0.1, -0.9)


def test_spearman_rows_is_scipys_with_ties_and_infinity():
    a = np.array([[1.0, 4.0, math.inf, 2.0, math.inf], [3.0, 1.0, 2.0, 5.0, 4.0]])
    b = np.array([[2.0, 3.0, 9.0, 1.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0]])
    for row in range(2):
        assert op.spearman_rows(a[row], b[row]) == pytest.approx(lib_stats.spearman(a[row], b[row]))


def test_independent_orders_on_three_tasks_match_perfectly_one_time_in_six():
    draws = op.pair_spearman_draws(3, 2, [(0, 1)], 0.0, n=60000, seed=1)[:, 0]
    assert np.mean(np.isclose(draws, 1.0)) == pytest.approx(1 / 6, abs=0.01)
    assert draws.mean() == pytest.approx(0.0, abs=0.01)


def test_partial_draws_centre_on_the_closed_form_and_vanish_at_the_null():
    # ρ_ab 0.93, ρ_az = ρ_bz = −0.61: partial (0.93 − 0.61²)/(1 − 0.61²) on the Spearman scale, about 0.89
    paper = op.partial_median_draws(400, 2, [(0, 1)], 0.93, -0.61, n=300, seed=2)
    assert np.median(paper) == pytest.approx((0.93 - 0.61**2) / (1 - 0.61**2), abs=0.02)
    null = op.partial_median_draws(400, 2, [(0, 1)], op.null_rho_for_partial(-0.61), -0.61, n=300, seed=3)
    assert np.median(null) == pytest.approx(0.0, abs=0.02)
    r = np.array([0.5, 0.9])
    assert op.partial_from_spearman(r, np.array([0.2, 1.0]), np.array([0.3, 0.5]))[0] == pytest.approx(
        (0.5 - 0.06) / math.sqrt(0.96 * 0.91))
    assert np.isnan(op.partial_from_spearman(r, np.array([0.2, 1.0]), np.array([0.3, 0.5]))[1])


def test_permutation_p_counts_null_draws_at_or_above_as_the_order_test_does():
    null = np.array([0.1, 0.5, 0.5, 0.9])
    assert op.permutation_p(np.array([0.5, 1.0, 0.0]), null).tolist() == pytest.approx([4 / 5, 1 / 5, 1.0])
    # independent draws give a uniform p
    p = op.permutation_p(np.median(op.pair_spearman_draws(8, 3, [(0, 1), (1, 2)], 0.0, n=3000, seed=4), axis=1),
                         np.median(op.pair_spearman_draws(8, 3, [(0, 1), (1, 2)], 0.0, n=20000, seed=5), axis=1))
    assert np.mean(p <= 0.2) == pytest.approx(0.2, abs=0.03)


def test_wilcoxon_draws_have_the_exact_floor_and_level():
    assert op.wilcoxon_p_draws(1.0, 0.01, 5, n=50).min() == pytest.approx(2 / 2**5)  # every sign positive
    null = op.wilcoxon_p_draws(0.0, 1.0, 12, n=3000, seed=1)
    assert np.mean(null < 0.05) == pytest.approx(0.05, abs=0.012)


def test_treatments_agree_exactly_without_unreadable_cells_and_less_when_infinity_is_apart():
    none = op.treatment_spread_draws(6, [0, 0], [0, 0], [(0, 1)], 0.9, infinite_at_top=True, n=50)
    assert np.allclose(none, 0.0)
    top = op.treatment_spread_draws(8, [2, 2], [0, 0], [(0, 1)], 0.93, infinite_at_top=True, n=400, seed=1)
    apart = op.treatment_spread_draws(8, [2, 2], [0, 0], [(0, 1)], 0.93, infinite_at_top=False, n=400, seed=1)
    assert np.nanmean(top) < np.nanmean(apart)


def test_common_values_spread_only_by_their_noise_and_shuffled_values_spread_widely():
    values = np.log(np.array([[1.0, 16.0, 256.0], [1.0, 16.0, 256.0]]))
    paper, null = op.common_value_draws(values, np.zeros_like(values), log=True, n=500)
    assert np.allclose(paper, 1.0)  # no noise: every model at the common size, σ_t = 1
    assert np.mean(null >= 16) > 0.5  # shuffled: a task read at 1 in one model and 16 or 256 in the other
    ceilings = np.array([[0.95, np.nan], [0.97, 0.93]])
    paper, _ = op.common_value_draws(ceilings, np.full((2, 2), 0.01), log=False, n=20000, seed=1)
    # one task read by both: |N(0, 0.01) − N(0, 0.01)| has mean 0.01·√2·√(2/π)
    assert np.mean(paper) == pytest.approx(0.01 * math.sqrt(2) * math.sqrt(2 / math.pi), rel=0.03)
    assert np.isnan(op.common_value_draws(np.empty((2, 0)), np.empty((2, 0)), log=False, n=3)[0]).all()
