"""lib.claims: the claims contract (kinds, outcomes and verdicts, typed comparisons, power, mechanisms, citations,
counting)."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from conftest import claims_table

from lib import claim_power, claims, verdict
from lib.claims import Bound, Point, Range

#: Tests of the comparisons give their claims an exact power: the comparison alone decides.
EXACT = claim_power.Exact("a fixed value in a test")
claim = functools.partial(claims.claim, power=EXACT)
UNEXPLAINED = "fails — unexplained: "


def test_a_range_holds_inside_and_fails_outside_naming_the_side():
    inside = claim("b", "A.4.2", "exponent", "0.65 [0.44, 0.91]", 0.44, Range(0.44, 0.91))
    below = claim("b", "A.4.2", "exponent", "0.65 [0.44, 0.91]", 0.43, Range(0.44, 0.91))
    above = claim("b", "A.4.2", "exponent", "0.65 [0.44, 0.91]", 0.95, Range(0.44, 0.91))
    assert inside.outcome == "holds" and inside.reason == "" and inside.comparison == "in [0.44, 0.91]"
    assert (below.outcome, below.reason) == ("fails", UNEXPLAINED + "0.43 is below 0.44")
    assert (above.outcome, above.reason) == ("fails", UNEXPLAINED + "0.95 is above 0.91")
    assert below.verdict == "fails, unexplained" and inside.verdict == "holds"


def test_a_range_with_swapped_ends_is_refused_naming_the_claim():
    with pytest.raises(ValueError, match=r"claim 'swapped': Range\(0.9, 0.4\) has lo > hi"):
        claim("swapped", "A.4.2", "exponent", "0.4-0.9", 0.5, Range(0.9, 0.4))


def test_a_range_widens_by_k_logged_standard_errors():
    widened = Range(0.44, 0.91, se=0.01, k=2)
    assert widened.describe() == "in [0.44, 0.91] widened by 2 s.e. (s.e. 0.01)"
    assert claim("b", "A.4.2", "exponent", "[0.44, 0.91]", 0.425, widened).outcome == "holds"
    assert claim("b", "A.4.2", "exponent", "[0.44, 0.91]", 0.415, widened).reason == UNEXPLAINED + "0.415 is below 0.42"


def test_a_tolerance_without_a_reason_is_refused_naming_the_claim():
    with pytest.raises(ValueError, match=r"claim 'slope': the tolerance 0.15 around -0.5 has no reason"):
        claim("slope", "Thm 4", "log-log slope", "-0.5", -0.45, Point(-0.5, tol=0.15))
    kept = claim("slope", "Thm 4", "log-log slope", "-0.5", -0.45, Point(-0.5, tol=0.15, reason="three s.e."))
    assert (kept.outcome, kept.comparison, kept.comparison_reason) == ("holds", "within 0.15 of -0.5", "three s.e.")
    exact = claim("rule", "A.1.7", "confirmation", "341", 342, Point(341))  # an exact value needs no reason
    assert (exact.outcome, exact.comparison, exact.reason) == ("fails", "= 341", UNEXPLAINED + "342 is not 341")


def test_a_point_within_k_standard_errors_is_computed_from_the_logged_se():
    spec = Point(0.5, se=0.012, k=3)
    assert spec.describe() == "within 3 s.e. of 0.5 (s.e. 0.012)"
    assert claim("p", "Eq. 8", "AUC", "0.5", 0.535, spec).outcome == "holds"  # 0.035 <= 0.036
    missed = claim("p", "Eq. 8", "AUC", "0.5", 0.537, spec)
    assert (missed.outcome, missed.reason) == ("fails", UNEXPLAINED + "|0.537 − 0.5| = 0.037 exceeds 3 s.e. = 0.036")
    with pytest.raises(ValueError, match="tol or se, not both"):
        claim("p", "Eq. 8", "AUC", "0.5", 0.5, Point(0.5, tol=0.1, reason="r", se=0.01))
    assert claim("p", "Eq. 8", "AUC", "0.5", 0.5, Point(0.5, se=math.nan)).outcome == "not measured"


def test_a_one_sided_test_of_a_two_sided_paper_value_is_refused_unless_the_bound_says_why():
    with pytest.raises(ValueError, match=r"claim 'auc': the paper states '0.65–0.99', a value or range, and "
                                         r"'>= 0.65' tests one side of it"):
        claim("auc", "Sec. 4.2", "ROC AUC", "0.65–0.99", 0.8, Bound(">=", 0.65))
    for quote in ("0.17", "≈ 1.0", "[0, 1]", "-0.5 (bound rate)", "18 of 19 (0.947)"):
        assert claims.states_a_value(quote), quote
    for quote in ("> 0 (0.964 vs 0.778)", "<= 0.05", "negative (−0.77)", "exact", "not stated"):
        assert not claims.states_a_value(quote), quote
    said = claim("auc", "Sec. 4.2", "ROC AUC", "0.65–0.99", 0.8, Bound(">=", 0.65, reason="an AUC above 0.99 "
                                                                      "is no failure of the paper's statement"))
    assert said.outcome == "holds" and said.comparison_reason.startswith("an AUC above")
    assert claim("r", "Sec. 4.2", "Pearson r", "negative", -0.2, Bound("<", 0)).outcome == "holds"
    assert claim("s", "Thm 4", "z", "0", 0.2, Bound("<=", 3), kind="sanity").outcome == "holds"  # not a paper claim


def test_a_paper_claim_needs_its_section_and_quote_and_kinds_are_checked():
    with pytest.raises(ValueError, match="claim 'q': a paper claim needs the paper's section and its words"):
        claim("q", "", "AUC", "0.5", 0.5, Point(0.5))
    assert claim("q", "", "AUC", "", 0.5, Point(0.5), kind="extension").kind == "extension"
    with pytest.raises(ValueError, match="kind='proof' is not a claim kind; allowed: paper, extension, sanity"):
        claim("q", "s", "AUC", "0.5", 0.5, Point(0.5), kind="proof")
    with pytest.raises(ValueError, match="is not a Range, Point or Bound"):
        claim("q", "s", "AUC", "0.5", 0.5, "within 0.1 of 0.5")
    with pytest.raises(ValueError, match="Bound op='=>'"):
        claim("q", "s", "AUC", "> 0.5", 0.5, Bound("=>", 0.5))


def test_nan_and_an_explicit_reason_give_not_measured():
    nan = claim("n", "A.3.1", "ratio", "7.26", math.nan, Point(7.26, tol=0.005, reason="two decimals"))
    assert nan.outcome == "not measured" and nan.verdict == "not measured, undefined here"
    assert nan.reason.endswith("the notebook gives no reason: unexplained")  # never "the measured value is NaN"
    assert claim("n", "A.3.1", "ratio", "7.26", None, Point(7.26)).outcome == "not measured"
    unreachable = claim("w", "A.4", "pruning", "figure panel c", math.nan, Point(0),
                        undefined="the section survives only as a caption")
    assert (unreachable.outcome, unreachable.reason) == ("not measured", "the section survives only as a caption")
    assert unreachable.verdict == claims.UNDEFINED
    paper_only = claim("g", "A.3.2", "count", "253", 10.0, Point(253), needs_paper_profile="Gemma-2-9B is paper-only")
    assert (paper_only.outcome, paper_only.verdict) == ("not measured", claims.NEEDS_PAPER)
    assert claims.NEEDS_PAPER == "not measured, needs the paper's data or models"


def test_counts_keep_not_measured_and_cited_apart():
    table = claims_table(claim("a", "s", "x", "> 1", 2.0, Bound(">", 1)),
                         claim("b", "s", "x", "> 1", 0.0, Bound(">", 1)),
                         claim("c", "s", "x", "> 1", math.nan, Bound(">", 1)),
                         claim("d", "s", "x", "> 1", 2.0, Bound(">", 1), cites="E03_ground_truth:a"),
                         claim("e", "s", "x", "", 0.0, Bound("<=", 1), kind="sanity"))
    count = claims.counts(table)
    assert count["paper"] == claims.Count(held=1, failed_unexplained=1, undefined=1, cited=1)
    assert count["paper"].measured == 2 and count["paper"].cell() == "1/2 +1 n.m."
    assert count["extension"].cell() == "-" and count["sanity"].cell() == "1/1"
    assert claims.summary(table).splitlines() == [
        "paper claims (the paper's values and statements: reproduction): 1 of 2 measured hold (1 fail: 0 explained, "
        "1 unexplained), 1 not measured (0 no power at this scale, 0 needs the paper's data or models, "
        "1 undefined here), "
        "1 cited (counted at their owner)",
        "sanity claims (true by construction or arithmetic on the paper's numbers: not counted as reproduction): "
        "1 of 1 measured hold"]
    with pytest.raises(ValueError, match="cites='E03' is not '<notebook>:<claim id>'"):
        claim("f", "s", "x", "> 1", 2.0, Bound(">", 1), cites="E03")



def test_a_closing_cell_shows_reasons_counts_and_the_smoke_note(capsys):
    table = claims_table(claim("a", "Thm 1", "the gap closes", "< 0.05", 0.2, Bound("<", 0.05)),
                   claim("b", "Thm 1", "the gap closes", "< 0.05", 0.01, Bound("<", 0.05), cites="E06_scaling:c"))
    shown = claims.readable_table(table)
    assert shown.columns.tolist() == ["id", "kind", "statement", "paper says", "measured", "comparison", "verdict",
                                      "power", "reason"]
    assert shown["paper says"][0] == "< 0.05 (Thm 1)" and shown.reason.tolist() == [
        UNEXPLAINED + "0.2 is not < 0.05", "cites E06_scaling:c (counted there)"]
    assert shown.power[0] == "exact: a fixed value in a test"
    claims.show_claims(table, "smoke")
    out = " ".join(capsys.readouterr().out.split())  # wrapped to whatever terminal runs the test
    assert "1 of 1 measured hold" not in out
    assert "0 of 1 measured hold (1 fail: 0 explained, 1 unexplained), 1 cited" in out
    assert out.endswith(claims.SMOKE_NOTE)
    claims.show_claims(table, "default")
    assert claims.SMOKE_NOTE not in capsys.readouterr().out


def test_a_closing_cell_wraps_its_text_to_the_terminal_and_keeps_every_word(monkeypatch, capsys):
    statement = "pooled Pearson r of the shift with the change in the bias score, " * 6
    table = claims_table(claim("long_claim", "Sec. 4.2", statement, "negative", -0.25, Bound("<", 0)),
                         claim("unmeasured", "Sec. 4.3", "the AUC", "0.9", math.nan, Point(0.9, tol=0.1,
                                                                                            reason="rounding")))
    text = claims.claims_text(table, width=60)
    lines = text.splitlines()
    assert max(map(len, lines)) <= 60 and len(lines) > 8
    assert lines[0] == "long_claim · paper · holds · measured -0.25 · < 0"
    assert "    power      exact: a fixed value in a test" in lines
    assert " ".join(" ".join(lines).split()).count(" ".join(statement.split())) == 1
    assert ("unmeasured · paper · not measured, undefined here · within 0.1 of 0.9" in " ".join(text.split())
            and "measured nan" not in text)
    monkeypatch.setenv("COLUMNS", "72")
    view = claims._ClaimsView(table)
    assert repr(view) == claims.claims_text(table, width=72)
    assert statement.strip() in view._repr_html_()  # the notebook's HTML keeps each cell whole
    claims.show_claims(table, "smoke")
    assert max(map(len, capsys.readouterr().out.splitlines())) <= 72


def test_claims_logged_before_outcomes_read_as_outcomes():
    old = claims.frame([{"paper": "000", "id": "a", "section": "s", "statement": "x", "paper_value": "1",
                         "measured": 1.0, "comparison": "<= 1", "holds": True},
                        {"paper": "000", "id": "b", "section": "s", "statement": "x", "paper_value": "1",
                         "measured": float("nan"), "comparison": "<= 1", "holds": False, "kind": "sanity"}])
    assert old.columns.tolist() == claims.COLUMNS
    assert old.outcome.tolist() == ["holds", "not measured"] and old.kind.tolist() == ["paper", "sanity"]
    assert old.verdict.tolist() == ["holds", "not measured, no power at this scale"]


def test_a_paper_claim_without_its_power_is_refused():
    with pytest.raises(ValueError, match=r"claim 'p': a paper claim needs its power"):
        claims.claim("p", "Eq. 8", "AUC", "0.5", 0.5, Point(0.5))
    assert claims.claim("s", "Eq. 8", "AUC", "0.5", 0.5, Point(0.5), kind="sanity").outcome == "holds"
    assert claims.claim("c", "Eq. 8", "AUC", "0.5", 0.5, Point(0.5), cites="E03_ground_truth:a").outcome == "holds"


def _power(p1: float, p0: float, null: str = "no association", draws: int = 1000) -> claim_power.Power:
    """A power whose shares are p1 and p0 of ``draws`` draws (Jeffreys-estimated, as the engine logs them)."""
    return claim_power.Power(verdict.Share(round(p1 * draws), draws), {null: verdict.Share(round(p0 * draws), draws)})


def test_a_test_without_power_at_this_scale_reads_not_measured_with_its_shares_and_likelihood_ratio():
    found = claims.claim("rho", "A.2.3", "Spearman ρ", "0.89", 0.95, Bound(">=", 0.8, reason="r"),
                         power=_power(0.35, 0.10), decisive_with="≥ 12 tasks")
    assert (found.outcome, found.verdict) == ("not measured", "not measured, no power at this scale")
    assert "holds 35% if the paper is right, 10% if no association" in found.reason
    assert "the value would hold" in found.reason and found.reason.endswith("decisive with ≥ 12 tasks")
    assert "likelihood ratio 3.49" in found.reason  # p1/p0 ≈ 0.35/0.10 < 4 (Jeffreys shares)
    assert found.power["lr"] == pytest.approx(3.5, rel=0.01) and found.power["decisive"] is False
    assert found.power["draws"] == 1000 and 0 < found.power["mc_se"] < 0.02
    decisive = claims.claim("rho", "A.2.3", "ρ", "0.89", 0.95, Bound(">=", 0.8, reason="r"), power=_power(0.9, 0.05))
    assert decisive.outcome == "holds" and decisive.power["decisive"] is True


def test_decisiveness_follows_the_outcome_a_fail_that_the_paper_would_rarely_produce_is_evidence():
    test = Range(0.65, 0.99)
    # If the paper were right the test would always have held; a null holds a quarter of the time. Judged by
    # p0 alone this fail read "no power"; it is decisive evidence against the paper: LR (1 − .25)/(1 − 1) ≫ 4.
    fail = claims.claim("auc", "Sec. 4", "ROC AUC", "0.65–0.99", 0.094, test, power=_power(1.0, 0.25))
    assert fail.verdict == claims.FAILS_UNEXPLAINED and fail.power["decisive"] is True
    assert fail.power["lr"] > 100
    # The same shares make a hold no evidence: a null holds 25% of the time.
    hold = claims.claim("auc", "Sec. 4", "ROC AUC", "0.65–0.99", 0.8, test, power=_power(1.0, 0.25))
    assert hold.verdict == claims.NO_POWER and "a hold counts when every null holds ≤ 20%" in hold.reason
    # A weak test: the paper would hold only 60% of the time, so a fail is not evidence, though a hold is.
    weak = _power(0.6, 0.01)
    assert claims.claim("a", "s", "x", "v", 0.5, test, power=weak).verdict == claims.NO_POWER
    assert claims.claim("a", "s", "x", "v", 0.8, test, power=weak).verdict == claims.HOLDS


def test_a_hold_must_beat_every_null_and_its_likelihood_ratio_is_against_the_closest():
    two = claim_power.Power(verdict.Share(900, 1000), {"chance": verdict.Share(10, 1000),
                                                       "shared drift": verdict.Share(450, 1000)})
    found = claims.claim("r", "Sec. 4", "r", "< 0", -0.5, Bound("<", 0, reason="r"), power=two)
    assert found.verdict == claims.NO_POWER and "if shared drift" in found.reason
    assert found.power["nulls"] == {"chance": pytest.approx(0.0105, abs=1e-3),
                                    "shared drift": pytest.approx(0.45, abs=1e-3)}
    assert found.power["lr"] == pytest.approx(0.9 / 0.45, rel=0.01)


def test_an_outcome_resting_on_draws_that_are_all_equal_decides_nothing():
    test = Bound(">=", 1, reason="r")
    found = claim_power.power(test, np.ones(500), np.zeros(500), "never readable")
    assert found.constant == ("paper", "never readable")
    held = claims.claim("t", "A.3", "share", "all", 1.0, test, power=found)  # rests on the null's asserted 0
    assert held.verdict == claims.NO_POWER and "under never readable are all equal" in held.reason
    failed = claims.claim("t", "A.3", "share", "all", 0.5, test, power=found)  # rests on the paper's asserted 1
    assert failed.verdict == claims.NO_POWER and "under paper are all equal" in failed.reason
    # A simulation that lands on one value under the paper (ρ = 1 on a well-separated order) does not assert the
    # null's share a hold rests on: the hold counts.
    spread = claim_power.power(test, np.ones(500), np.random.default_rng(0).uniform(-1, 1, 500), "independent")
    assert claims.claim("t", "A.3", "ρ", "1", 1.0, test, power=spread).verdict == claims.HOLDS
    assert claims.claim("t", "A.3", "ρ", "1", 0.5, test, power=spread).verdict == claims.NO_POWER


def test_a_value_declared_undefined_is_set_aside_in_its_own_bucket_never_as_no_power():
    aside = claims.claim("share", "A.1.8", "share", "0.994", 0.5, Point(0.994, tol=0.01, reason="r"),
                         power=_power(0.95, 0.01), undefined="measured at n = 100, not the paper's 300")
    assert aside.verdict == claims.UNDEFINED and math.isnan(aside.measured)
    assert aside.reason == "measured at n = 100, not the paper's 300 (the value 0.5 this run computed is set aside)"


def test_a_failure_is_explained_only_by_a_mechanism_claim_that_holds():
    failing = functools.partial(claim, "a", "Eq. 8", "AUC", "0.76", 0.58, Point(0.76, tol=0.05, reason="r"))
    assert failing().verdict == "fails, unexplained"
    words = failing(mechanism="the probe is data-starved (`diagnostics.parquet`)")
    assert words.verdict == "fails, unexplained"  # a cause in words, a file named: still not measured
    assert "candidate cause, not measured as a mechanism: the probe is data-starved" in words.reason
    tried = failing(mechanisms="starved (no power at this scale)")
    assert tried.verdict == "fails, unexplained" and "did not hold decisively: starved" in tried.reason
    explained = failing(explained_by="starved", mechanism="the probe is data-starved")
    assert explained.verdict == "fails, explained" and explained.explained_by == "starved"
    assert claims.readable_table(claims_table(explained)).reason[0].endswith(
        "explained by mechanism claim starved; mechanism: the probe is data-starved")
    assert claim("b", "Eq. 8", "AUC", "0.76", 0.76, Point(0.76), mechanism="x").mechanism == ""
    with pytest.raises(ValueError, match="a mechanism claim lists the failures it explains"):
        claim("m", "", "shortfall", "", 0.1, Point(0.1), kind="mechanism")


def test_a_bound_with_a_standard_error_must_be_cleared_by_k_of_them():
    bound = Bound(">", 0, se=0.01, k=2)
    assert bound.describe() == "> 0 by 2 s.e. (s.e. 0.01)"
    assert bound.check(0.021) == ("holds", "")
    assert bound.check(0.019) == ("fails", "0.019 is not > 0.02 (0 + 2 s.e.)")
    assert Bound("<", 0, se=0.01, k=2).check(-0.019)[0] == "fails"
    assert Bound(">", 0, se=math.nan).check(1.0)[0] == "not measured"
