"""lib.verdict: the directional decision rule, the likelihood ratio of an outcome, Jeffreys shares."""

from __future__ import annotations

import math

import pytest

from lib import verdict


def test_a_hold_counts_when_every_null_would_rarely_hold_and_the_paper_far_more_often():
    assert verdict.decide("hold", 0.5, {"chance": 0.05}).decisive  # LR 10
    assert not verdict.decide("hold", 0.5, {"chance": 0.05, "shared drift": 0.25}).decisive  # a null above 0.2
    weak = verdict.decide("hold", 0.3, {"chance": 0.1})
    assert not weak.decisive and weak.ratio == pytest.approx(3.0)  # p0 ≤ 0.2 but LR < 4
    two = verdict.decide("hold", 0.9, {"chance": 0.01, "drift": 0.15})
    assert two.decisive and two.against == "drift" and two.ratio == pytest.approx(6.0)


def test_a_fail_counts_when_the_paper_would_usually_have_held():
    # D01's profanity AUC: the paper's range would always have held, a null a quarter of the time.
    found = verdict.decide("fail", 0.999, {"chance": 0.25})
    assert found.decisive and found.ratio == pytest.approx(0.75 / 0.001)
    assert not verdict.decide("fail", 0.7, {"chance": 0.0}).decisive  # the paper itself fails 30% of the time
    assert not verdict.decide("fail", 0.9, {"chance": 0.7}).decisive  # LR 3 < 4
    best = verdict.decide("fail", 0.95, {"near": 0.9, "far": 0.1})
    assert best.decisive and best.against == "far"  # the null that best accounts for the miss


def test_the_same_shares_decide_one_outcome_and_not_the_other():
    # A test the paper nearly always passes and a null passes 40% of the time: a fail is evidence, a hold is not.
    assert verdict.decide("fail", 0.98, {"chance": 0.4}).decisive
    assert not verdict.decide("hold", 0.98, {"chance": 0.4}).decisive


def test_ratios_at_the_edges_and_shares_that_could_not_be_computed():
    assert verdict.hold_ratio(0.5, 0.0) == math.inf and verdict.hold_ratio(0.0, 0.0) == 1.0
    assert verdict.fail_ratio(1.0, 0.5) == math.inf and verdict.fail_ratio(1.0, 1.0) == 1.0
    assert not verdict.decide("hold", math.nan, {"chance": 0.0}).decisive
    with pytest.raises(ValueError, match="side='both'"):
        verdict.decide("both", 0.5, {"chance": 0.1})
    with pytest.raises(ValueError, match="at least one null"):
        verdict.decide("hold", 0.5, {})


def test_jeffreys_shares_are_never_zero_or_one_and_carry_their_monte_carlo_error():
    none, every = verdict.Share(0, 4000), verdict.Share(4000, 4000)
    assert 0 < none.value < 1e-3 and 1 - 1e-3 < every.value < 1
    assert verdict.hold_ratio(every.value, none.value) == pytest.approx(4000.5 / 0.5, rel=1e-6)
    half = verdict.Share(2000, 4000)
    assert half.mc_se == pytest.approx(math.sqrt(0.25 / 4000), rel=1e-3)
    assert verdict.borderline(verdict.Share(810, 1000))  # 0.81 ± 0.012: within two MC s.e. of 0.8
    assert not verdict.borderline(verdict.Share(900, 1000))
