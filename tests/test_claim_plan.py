"""lib.claim_plan: the scale at which an undecided claim would be decisive, against the closed form of a normal
statistic, and its price from the notebook's logged time."""

from __future__ import annotations

import math
import textwrap

import pytest
from scipy import stats

from lib import claim_catalogue, claim_plan

ENTRY = claim_catalogue.parse(textwrap.dedent("""
    - id: gap
      kind: paper
      section: "Sec. 4"
      paper_says: "0.3"
      measures: "a mean gap"
      test: {bound: ">", value: 0.15, reason: "half-way to the paper's value"}
      null_hypothesis: "no gap"
      power: {normal: {if_paper: 0.3, if_null: 0.0}}
    """), "test.yaml")["gap"]


def _closed_form_scale(se: float) -> float:
    """The smallest m with Φ((0.3 − 0.15)/(se/√m)) ≥ 0.8 and Φ((0 − 0.15)/(se/√m)) ≤ 0.2, i.e.
    0.15·√m/se ≥ z_0.8."""
    return (stats.norm.ppf(0.8) * se / 0.15) ** 2


@pytest.mark.parametrize("se", [0.2, 0.4])
def test_the_planned_scale_is_the_smallest_on_the_grid_past_the_closed_form(se):
    row = {"id": "gap", "measured": 0.2, "se": se, "verdict": "not measured, no power at this scale",
           "power": {"if_paper": 0.0, "if_null": 0.0, "null": "no gap"}}
    found = claim_plan.plan_claim("E99_toy", ENTRY, row, minutes_now=10.0)
    exact = _closed_form_scale(se)
    assert found.scale == min(m for m in claim_plan.SCALES if m >= exact * 1.02)  # Monte Carlo slack
    assert found.p1_at >= 0.8 and found.p0_at <= 0.2
    assert found.added_minutes == pytest.approx(10.0 * (found.scale - 1))


def test_a_logged_spread_is_used_and_a_missing_one_is_said():
    logged = {"id": "gap", "measured": 0.2, "se": math.nan, "verdict": "not measured, no power at this scale",
              "power": {"if_paper": 0.5, "if_null": 0.2, "null": "no gap",
                        "spread": {"paper": [0.3, 0.2], "no gap": [0.0, 0.2]}}}
    assert claim_plan.plan_claim("E99_toy", ENTRY, logged, 1.0).scale == 1.5  # closed form 1.26
    simulated = claim_catalogue.Entry(**{**ENTRY.__dict__, "power": "simulated"})
    bare = {**logged, "power": {"if_paper": 0.5, "if_null": 0.2, "null": "no gap"}}
    assert "logged no spread" in claim_plan.plan_claim("E99_toy", simulated, bare, 1.0).why


def test_a_claim_the_test_cannot_separate_is_reported_as_needing_a_redesign():
    close = {"id": "gap", "measured": 0.2, "se": 1.0, "verdict": "not measured, no power at this scale",
             "power": {"if_paper": 0.5, "if_null": 0.5, "null": "no gap",
                       "spread": {"paper": [0.151, 1.0], "no gap": [0.149, 1.0]}}}
    found = claim_plan.plan_claim("E99_toy", ENTRY, close, 1.0)
    assert found.scale is None and "redesign" in found.why


def test_a_logged_no_power_row_that_the_directional_rule_decides_is_not_planned():
    row = {"id": "gap", "measured": 0.0, "se": 0.01, "verdict": "not measured, no power at this scale",
           "power": {"if_paper": 0.99, "if_null": 0.5, "null": "no gap"}}
    decision = claim_plan.decided(ENTRY, row)
    assert decision.side == "fail" and decision.decisive  # the paper would have held 99% of the time


@pytest.mark.parametrize(("measured", "constant", "asserted"), [
    (0.3, ["no gap"], True),  # a hold rests on the null's share, which its equal draws assert
    (0.0, ["paper"], True),  # a fail rests on the paper's share
    (0.3, ["paper"], False),  # a hold on a paper asserted always to hold: the null's share is estimated
])
def test_an_outcome_resting_on_asserted_draws_is_planned_and_said_to_need_noise(measured, constant, asserted):
    """The engine never counts an outcome whose share is asserted (draws all equal: lib.claim_power.Power.asserted);
    the planner reads the logged ``constant`` the same way, so the row is planned, not dropped as decided."""
    row = {"id": "gap", "measured": measured, "se": 0.01, "verdict": "not measured, no power at this scale",
           "power": {"if_paper": 0.9999, "if_null": 0.0001, "null": "no gap", "constant": constant,
                     "spread": {"paper": [0.3, 0.0 if "paper" in constant else 0.01],
                                "no gap": [0.0, 0.0 if "no gap" in constant else 0.01]}}}
    assert claim_plan.decided(ENTRY, row).decisive is not asserted
    found = claim_plan.plan_claim("E99_toy", ENTRY, row, 1.0)
    assert (found.scale is None and "asserted" in found.why and repr(constant[0]) in found.why) is asserted


def test_a_run_that_reused_its_results_is_priced_at_its_lane_time(sandbox):
    """A rerun that reuses every logged result writes ``claims.json`` seconds after its kernel starts; the plan
    prices from the stamp's lane time, which counts the attempt that computed them (lib.runner.lane_seconds)."""
    import time

    from lib import config, paths, results, runner, strict_json

    params = config.validate("00_theory_checks", {"profile": "smoke"})
    kept = results.start(params).save_json("kept", {"a": 1})
    time.sleep(0.01)
    rerun = results.start(params)
    claims_file = rerun.save_json("claims", {"claims": []})
    assert claim_plan._lane_minutes("smoke", "00_theory_checks", results.read_manifest(claims_file)) == \
        pytest.approx(results.read_manifest(claims_file)["wall_time_s"] / 60)  # no stamp: the kernel's seconds
    stamp = {"seconds": 5.0, "results": [paths.relative_to_root(claims_file), paths.relative_to_root(kept)]}
    paths.run_stamp("smoke", "00_theory_checks").parent.mkdir(parents=True, exist_ok=True)
    paths.run_stamp("smoke", "00_theory_checks").write_text(strict_json.dumps(stamp))
    lane = (5.0 + results.read_manifest(kept)["wall_time_s"]) / 60
    assert claim_plan._lane_minutes("smoke", "00_theory_checks", results.read_manifest(claims_file)) == \
        pytest.approx(lane) == pytest.approx(runner.lane_seconds(stamp) / 60)
    assert claim_plan._minutes({"lane_time_s": 600.0, "wall_time_s": 6.0}) == 10.0  # a published manifest
    assert runner.logged_lane_seconds("smoke", "00_theory_checks") == pytest.approx(runner.lane_seconds(stamp))
    paths.run_stamp("smoke", "00_theory_checks").write_text("{half")  # unreadable: the kernel's seconds again
    assert claim_plan._lane_minutes("smoke", "00_theory_checks", results.read_manifest(claims_file)) == \
        pytest.approx(results.read_manifest(claims_file)["wall_time_s"] / 60)
