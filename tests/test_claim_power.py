"""lib.claim_power: the power of a claim's test against simulation of the statistic itself, for a point, a range
and a rank correlation on a few tasks."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from lib import claim_power
from lib.claims import Bound, Point, Range


def _simulated_means(truth: float, sd: float, m: int, reps: int, seed: int) -> tuple[np.ndarray, float]:
    """The statistic itself: the mean of ``m`` noisy observations, ``reps`` times, with its standard error."""
    draws = np.random.default_rng(seed).normal(truth, sd, size=(reps, m)).mean(axis=1)
    return draws, sd / math.sqrt(m)


def test_the_power_of_a_point_test_matches_simulating_the_mean_it_reads():
    se = 0.2 / math.sqrt(100)
    test = Point(0.5, se=se, k=3)
    found = claim_power.power(test, claim_power.normal_draws(0.5, se), claim_power.normal_draws(0.6, se, seed=1),
                              "a mean of 0.6")
    direct_paper = np.mean([test.check(v)[0] == "holds" for v in _simulated_means(0.5, 0.2, 100, 4000, 2)[0]])
    direct_null = np.mean([test.check(v)[0] == "holds" for v in _simulated_means(0.6, 0.2, 100, 4000, 3)[0]])
    closed_paper = stats.norm.cdf(3) - stats.norm.cdf(-3)  # 0.9973
    closed_null = stats.norm.cdf(-2) - stats.norm.cdf(-8)  # |0.1 + 0.02 Z| <= 0.06
    assert found.if_paper == pytest.approx(closed_paper, abs=0.004) == pytest.approx(direct_paper, abs=0.005)
    assert found.if_null == pytest.approx(closed_null, abs=0.008) and abs(found.if_null - direct_null) < 0.012
    assert found.decision("hold").decisive and found.decision("fail").decisive
    record = found.record("hold")
    assert {k: record[k] for k in ("if_paper", "if_null", "null", "draws")} == {
        "if_paper": round(found.if_paper, 4), "if_null": round(found.if_null, 4), "null": "a mean of 0.6",
        "draws": 4000}
    assert record["decisive"] is True and record["lr"] == pytest.approx(found.if_paper / found.if_null, rel=1e-3)
    assert record["spread"]["paper"] == pytest.approx([0.5, se], rel=0.05)


def test_the_power_of_a_range_test_matches_its_closed_form_and_is_not_decisive_when_the_se_is_wide():
    test = Range(0.44, 0.91)
    found = claim_power.power(test, claim_power.normal_draws(0.65, 0.1), claim_power.normal_draws(0.0, 0.1, seed=1),
                              "b = 0")
    assert found.if_paper == pytest.approx(stats.norm.cdf(2.6) - stats.norm.cdf(-2.1), abs=0.01)  # 0.977
    assert found.if_null < 0.001 and found.decision("hold").decisive
    wide = claim_power.power(test, claim_power.normal_draws(0.65, 0.4), claim_power.normal_draws(0.0, 0.4, seed=1),
                             "b = 0")
    assert wide.if_paper == pytest.approx(stats.norm.cdf(0.65) - stats.norm.cdf(-0.525), abs=0.02)  # 0.442
    assert not wide.decision("fail").decisive  # the paper, if right, would fail more than half the time
    assert not wide.decision("hold").decisive  # nor a hold: a null at 0 holds 12% of the time, LR 3.6 < 4
    assert wide.describe() == f"holds {wide.if_paper:.0%} if the paper is right, {wide.if_null:.0%} if b = 0"


def test_a_rank_correlation_on_six_tasks_under_independence_matches_the_exact_permutation_distribution():
    n = 6
    exact = np.array([stats.spearmanr(range(n), p).statistic for p in itertools.permutations(range(n))])
    draws = claim_power.independent_spearman_draws(n, n=20000)
    test = Bound(">=", 0.943, reason="a rank agreement")
    share = claim_power.power(test, draws, draws, "independent orders").if_null
    assert share == pytest.approx(np.mean(exact >= 0.943 - 1e-12), abs=0.004)  # 6 of 720 orders
    assert sorted(set(np.round(draws, 6))) == pytest.approx(sorted(set(np.round(exact, 6))))


def test_spearman_draws_match_simulating_noisy_task_values():
    truth = np.array([0.55, 0.62, 0.70, 0.74, 0.81, 0.90])
    se = 0.03
    draws = claim_power.spearman_draws(truth, truth, se, n=4000, seed=4)
    rng = np.random.default_rng(5)
    direct = np.array([stats.spearmanr(truth, truth + se * rng.standard_normal(len(truth))).statistic
                       for _ in range(4000)])
    test = Bound(">=", 0.97, reason="a rank agreement")
    paper = claim_power.power(test, draws, claim_power.independent_spearman_draws(len(truth)), "independent orders")
    assert paper.if_paper == pytest.approx(np.mean(direct >= 0.97), abs=0.03)
    assert abs(np.median(draws) - np.median(direct)) < 0.03


def test_undefined_draws_are_left_out_and_none_left_is_not_decisive():
    test = Bound(">", 0)
    assert claim_power.power(test, [1.0, math.nan, -1.0], [math.nan], "zero shift").if_paper == 0.5  # (1 + ½)/3
    none = claim_power.power(test, [math.nan], [math.nan], "zero shift")
    assert not none.decision("hold").decisive and not none.decision("fail").decisive
    with pytest.raises(ValueError, match="needs each null in words"):
        claim_power.power(test, [1.0], [1.0], " ")
    with pytest.raises(ValueError, match="n_items=1 is below 2"):
        claim_power.independent_spearman_draws(1)


def test_normal_draws_stay_inside_the_support_and_an_exact_test_is_decisive():
    draws = claim_power.normal_draws(0.98, 0.05, support=(0.0, 1.0))
    assert draws.max() <= 1.0 and draws.min() >= 0.0
    exact = claim_power.Exact("a closed form evaluated at the grid points")
    assert exact.decision("fail").decisive and exact.record() == {"exact": "a closed form evaluated at the grid points"}


def test_a_borderline_share_is_drawn_again_with_more_draws_when_the_draws_are_a_function():
    asked = []

    def draws(n: int) -> np.ndarray:
        asked.append(n)
        return claim_power.normal_draws(-0.8416, 1.0, n=n, seed=len(asked))  # P(> 0) = 0.2, on the threshold

    found = claim_power.power(Bound(">", 0), draws, draws, "a null on the threshold")
    assert asked[:2] == [4000, 16000] and max(asked) <= claim_power.MAX_DRAWS
    assert found.paper.draws > 4000 and found.paper.mc_se < 0.005
    fixed = claim_power.power(Bound(">", 0), claim_power.normal_draws(-0.8416, 1.0), [0.0, 1.0], "n")
    assert fixed.paper.draws == 4000  # an array cannot be drawn again
