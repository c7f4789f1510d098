"""Draws of paper 002's claim statistics (lib.kstar.evidence.power_draws) against closed forms and scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from lib import claims
from lib.kstar.evidence import power_draws as pd_


def test_share_draws_are_binomial_rates():
    draws = pd_.share_draws(0.3, 10, n=20000, seed=1)
    assert set(np.round(draws * 10, 9)) <= set(range(11))
    assert draws.mean() == pytest.approx(0.3, abs=0.01)
    assert draws.std() == pytest.approx(np.sqrt(0.3 * 0.7 / 10), rel=0.03)
    with pytest.raises(ValueError, match="n_trials"):
        pd_.share_draws(0.3, 0)
    with pytest.raises(ValueError, match="p=1.5"):
        pd_.share_draws(1.5, 3)


def test_clopper_pearson_lower_is_scipys_and_covers_the_rate():
    for k, n in [(0, 5), (1, 2), (7, 20), (20, 20)]:
        assert pd_.clopper_pearson_lower([k], n)[0] == pytest.approx(stats.binomtest(k, n).proportion_ci(0.95).low)
    # its one-sided miss rate at the truth is at most 2.5%
    assert np.mean(pd_.clopper_pearson_lower_draws(0.01, 30, n=20000, seed=2) > 0.01) <= 0.025


def test_signed_rank_draws_hold_the_exact_level_under_fair_signs_and_the_floor_when_all_are_positive():
    d = np.array([0.3, 0.1, 0.5, 0.2, 0.4, 0.05, 0.6, 0.15])
    paper, null = pd_.signed_rank_draws(d, n=4000, seed=3)
    assert np.all(paper == pytest.approx(2.0 ** -len(d)))  # exact test, every sign positive
    patterns = np.array(np.meshgrid(*[(-1.0, 1.0)] * len(d))).reshape(len(d), -1).T  # all 256 sign patterns
    exact = np.mean([pd_.signed_rank_p(d * signs) < 0.05 for signs in patterns])
    assert exact <= 0.05 and np.mean(null < 0.05) == pytest.approx(exact, abs=0.01)
    assert pd_.signed_rank_p([0.0, 0.0]) == 1.0


def test_smallest_normal_draws_match_the_closed_form_of_a_minimum():
    draws = pd_.smallest_normal_draws([0.0, 0.0], [1.0, 1.0], n=40000, seed=4)
    assert draws.mean() == pytest.approx(-1 / np.sqrt(np.pi), abs=0.02)  # E[min of two N(0, 1)]
    assert np.allclose(pd_.smallest_normal_draws([0.9, 0.5], 0.0, n=3), 0.5)


def test_too_few_for_spread_names_the_units_below_the_minimum():
    assert pd_.too_few_for_spread(pd_.MIN_SPREAD, "tests") == ""
    assert pd_.too_few_for_spread(2, "class decisions").startswith("2 class decisions: fewer than 5")


def test_least_held_keeps_the_placement_the_test_holds_on_least_often():
    test = claims.Range(1.5, 20.0)
    placements = {"centre": np.full(100, 5.0), "lower end": np.array([1.4] * 60 + [1.6] * 40),
                  "upper end": np.array([19.0] * 70 + [21.0] * 30 + [np.nan] * 5)}
    assert pd_.held_share(test, placements["upper end"]) == pytest.approx(0.7)  # NaN draws not counted
    where, draws = pd_.least_held(test, placements)
    assert where == "lower end" and pd_.held_share(test, draws) == pytest.approx(0.4)
    assert math.isnan(pd_.held_share(test, [np.inf]))
    assert pd_.least_held(test, {"none": [np.nan], "some": [5.0]})[0] == "some"
    with pytest.raises(ValueError, match="placements"):
        pd_.least_held(test, {})
