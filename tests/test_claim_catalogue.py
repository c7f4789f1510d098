"""lib.claim_catalogue: the pre-registered claims, their refusals, the evaluation of a closing cell's evidence, and
the lint that holds catalogue and notebook together."""

from __future__ import annotations

import dataclasses
import math
import textwrap

import pytest
from scipy import stats

from lib import claim_catalogue, claims
from lib.claims import Evidence

ENTRY = """
- id: slope
  kind: paper
  section: "Thm 4"
  paper_says: "-0.5"
  measures: "log-log slope of the gap against n"
  test: {point: -0.5, se_k: 3}
  null_hypothesis: "no decay (slope 0)"
  power: {normal: {if_paper: -0.5, if_null: 0.0}}
  decisive_with: "a grid of n spanning two decades"
"""


def _parse(text: str) -> dict[str, claim_catalogue.Entry]:
    return claim_catalogue.parse(textwrap.dedent(text), "test.yaml")


def test_an_entry_is_evaluated_with_power_drawn_from_the_logged_se():
    entry = _parse(ENTRY)["slope"]
    held = claim_catalogue.evaluate(entry, Evidence(-0.48, se=0.05), "default")
    assert (held.outcome, held.verdict, held.comparison) == ("holds", "holds", "within 3 s.e. of -0.5 (s.e. 0.05)")
    assert held.power["if_paper"] > 0.99 and held.power["if_null"] < 0.01 and held.power["null"] == "no decay (slope 0)"
    weak = claim_catalogue.evaluate(entry, Evidence(-0.48, se=0.3, note="4 points"), "default")
    assert weak.verdict == "not measured, no power at this scale" and weak.reason.endswith("a grid of n spanning "
                                                                                          "two decades")
    # The planner's scale: 3 s.e. of se/√m must exclude the null's 0 from -0.5 ± 3·se/√m in 80% of draws.
    assert "decisive with about 6× the units its draws resample" in weak.reason
    assert weak.statement == "log-log slope of the gap against n (4 points)"
    unknown = claim_catalogue.evaluate(entry, Evidence(-0.48, se=math.nan), "default")
    assert unknown.verdict == "not measured, no power at this scale" and "power is unknown" in unknown.reason
    with pytest.raises(ValueError, match="its test is widened by the measurement's s.e.; pass Evidence"):
        claim_catalogue.evaluate(entry, Evidence(-0.48), "default")


MECHANISM = ENTRY + """
- id: short_grid
  kind: mechanism
  measures: "slope of the gap over the grid's n, predicted from the grid's largest n alone"
  test: {point: -0.1, se_k: 3}
  null_hypothesis: "the grid's n leave the slope at the paper's -0.5"
  power: {normal: {if_paper: -0.1, if_null: -0.5}}
  explains: [slope]
"""


def test_a_failure_is_explained_only_by_a_mechanism_claim_that_holds_decisively():
    entry = _parse(ENTRY)["slope"]
    bare = claim_catalogue.evaluate(entry, Evidence(-0.1, se=0.02), "default")
    assert bare.verdict == "fails, unexplained" and bare.reason.startswith("fails — unexplained: ")
    told = claim_catalogue.evaluate(entry, Evidence(-0.1, se=0.02, mechanism="the grid stops at n = 300 "
                                                    "(`gaps.parquet`)"), "default")
    assert told.verdict == "fails, unexplained" and "candidate cause" in told.reason
    catalogue = _parse(MECHANISM)
    assert catalogue["short_grid"].explains == ("slope",)
    measured = {"slope": Evidence(-0.1, se=0.02), "short_grid": Evidence(-0.11, se=0.02)}
    judged = {c.id: c for c in _evaluate_all(catalogue, measured)}
    assert judged["short_grid"].verdict == "holds" and judged["short_grid"].kind == "mechanism"
    assert judged["slope"].verdict == "fails, explained" and judged["slope"].explained_by == "short_grid"
    missed = {"slope": Evidence(-0.1, se=0.02), "short_grid": Evidence(-0.45, se=0.02)}
    judged = {c.id: c for c in _evaluate_all(catalogue, missed)}
    assert judged["short_grid"].verdict == "fails, unexplained"
    assert judged["slope"].verdict == "fails, unexplained"
    assert "short_grid (fails, unexplained)" in judged["slope"].reason
    count = claims.counts(claims.frame(claims.records(list(judged.values()), "000")))
    assert count["mechanism"].failed_unexplained == 1 and count["paper"].failed_unexplained == 1


def _evaluate_all(catalogue: dict[str, claim_catalogue.Entry], evidence: dict[str, Evidence]) -> list[claims.Claim]:
    original = claim_catalogue.load
    claim_catalogue.load = lambda notebook: catalogue  # type: ignore[assignment]
    try:
        return claim_catalogue.evaluate_all("T00_test", evidence, "default")
    finally:
        claim_catalogue.load = original  # type: ignore[assignment]


def test_a_mechanism_must_list_what_it_explains_and_explain_only_claims_of_its_catalogue():
    with pytest.raises(ValueError, match="a mechanism claim, and only one, lists the failures it explains"):
        _parse(MECHANISM.replace("  explains: [slope]\n", ""))
    with pytest.raises(ValueError, match="explains 'nothing', which is not a non-mechanism claim"):
        _parse(MECHANISM.replace("explains: [slope]", "explains: [nothing]"))


def test_a_tolerance_that_covers_every_value_the_statistic_can_take_is_refused_as_unable_to_fail():
    with pytest.raises(ValueError, match=r"claim 'share': the test in \[0, 1\] holds for every value the statistic "
                                         r"can take \(support \[0, 1\]\): it cannot fail"):
        _parse("""
        - {id: share, kind: extension, section: E8, paper_says: "none", measures: "a share",
           test: {range: [0, 1]}, support: [0, 1], null_hypothesis: "chance", power: {exact: "counted"}}
        """)
    with pytest.raises(ValueError, match="within 1 of 0.5 holds for every value"):
        _parse("""
        - {id: auc, kind: paper, section: E8, paper_says: "0.5", measures: "an AUC", support: [0, 1],
           test: {point: 0.5, tol: 1, reason: "wide"}, null_hypothesis: "chance", power: {exact: "counted"}}
        """)
    with pytest.raises(ValueError, match=">= -1 holds for every value"):
        _parse("""
        - {id: rho, kind: paper, section: E8, paper_says: "positive", measures: "ρ", support: [-1, 1],
           test: {bound: ">=", value: -1}, null_hypothesis: "no association", power: {exact: "counted"}}
        """)
    assert claim_catalogue.cannot_fail(claims.Bound(">", 0), (0.0, 1.0)) is False


def test_malformed_entries_are_refused_naming_the_claim_and_the_file():
    with pytest.raises(ValueError, match=r"test.yaml: claim 'x': unknown key 'null'"):
        _parse("""
        - {id: x, kind: paper, section: s, paper_says: "1", measures: m, test: {point: 1}, "null": chance,
           null_hypothesis: chance, power: {exact: why}}
        """)
    with pytest.raises(ValueError, match="names the null\\(s\\) it is tested against"):
        _parse("- {id: x, kind: paper, section: s, paper_says: '1', measures: m, test: {point: 1}, "
               "power: {exact: why}}")
    with pytest.raises(ValueError, match="power=None must be 'simulated'"):
        _parse("- {id: x, kind: extension, section: s, paper_says: '1', measures: m, test: {point: 1}, "
               "null_hypothesis: chance}")
    with pytest.raises(ValueError, match="must have exactly one of range, point, bound"):
        _parse("- {id: x, kind: sanity, section: s, paper_says: '1', measures: m, test: {point: 1, range: [0, 1]}}")
    with pytest.raises(ValueError, match="claim id 'x' appears 2 times"):
        _parse("- {id: x, kind: sanity, section: s, paper_says: '1', measures: m, test: {point: 1}}\n"
               "- {id: x, kind: sanity, section: s, paper_says: '1', measures: m, test: {point: 1}}")
    sanity = _parse("- {id: x, kind: sanity, section: s, paper_says: '1', measures: m, test: {point: 1}}")["x"]
    assert claim_catalogue.evaluate(sanity, Evidence(1.0), "smoke").power is None


def test_a_claim_only_the_paper_profile_reaches_is_not_measured_elsewhere():
    entry = _parse("""
    - id: count
      kind: paper
      section: A.3.2
      paper_says: "253–341"
      measures: "k* of harmfulness on Gemma-2-9B"
      test: {range: [253, 341]}
      null_hypothesis: "a dense readout (k* = d)"
      power: {exact: "the count of a fixed protocol"}
      paper_profile_only: "Gemma-2-9B is not offline"
    """)["count"]
    elsewhere = claim_catalogue.evaluate(entry, Evidence(300.0), "default")
    assert elsewhere.verdict == "not measured, needs the paper's data or models"
    assert claim_catalogue.evaluate(entry, Evidence(300.0), "paper").verdict == "holds"


def test_the_closing_cell_must_pass_every_catalogued_id_and_no_other(monkeypatch):
    catalogue = _parse(ENTRY)
    monkeypatch.setattr(claim_catalogue, "load", lambda notebook: catalogue)
    with pytest.raises(ValueError, match="disagree: no evidence for slope; evidence for uncatalogued slop"):
        claim_catalogue.evaluate_all("E06_scaling", {"slop": Evidence(1.0)}, "smoke")
    assert [c.id for c in claim_catalogue.evaluate_all("E06_scaling", {"slope": Evidence(-0.5, se=0.01)}, "smoke")] \
        == ["slope"]


def test_the_lint_finds_a_catalogue_notebook_mismatch_a_loop_and_inline_claims(monkeypatch):
    monkeypatch.setattr(claim_catalogue, "load", lambda notebook: _parse(ENTRY))
    agreeing = 'claims_table, claims_file = run.record_claims({"slope": Evidence(b, se=s)})\n'
    assert claim_catalogue.lint("E06_scaling", agreeing) == []
    mismatched = claim_catalogue.lint("E06_scaling", 'run.record_claims({"slope": E(1), "gap": E(2)})\n')
    assert len(mismatched) == 1 and "evidence for uncatalogued gap" in mismatched[0]
    looped = claim_catalogue.lint("E06_scaling", "run.record_claims({k: E(v) for k, v in found.items()})\n")
    assert looped == ["E06_scaling passes record_claims something other than a dict literal "
                      '{"<claim id>": Evidence(…), …}']
    inline = claim_catalogue.lint("E06_scaling", agreeing + 'x = claim("a", "s", "m", "1", 1, Point(1))\n')
    assert inline == ["E06_scaling declares 1 claim(s) inline: the paper's words belong in its catalogue"]
    assert "calls record_claims 0 times" in claim_catalogue.lint("E06_scaling", "x = 1\n")[0]


def test_the_catalogue_of_a_notebook_lives_in_its_papers_package_and_counts_in_its_code():
    from lib import paths, sources

    file = claim_catalogue.path("E08_leakage")
    assert file == paths.LIB_DIR / "bias_probes" / "claims" / "E08_leakage.yaml" and file.is_file()
    assert file in sources.of_file(paths.notebook_script("E08_leakage"))
    assert claim_catalogue.path("K01_kstar").parent == paths.LIB_DIR / "kstar" / "claims"


def test_every_notebook_agrees_with_its_catalogue():
    assert claim_catalogue.check() == []


def test_a_smoke_failure_says_its_setting_in_words_and_stays_unexplained():
    entry = _parse(ENTRY)["slope"]
    smoke = claim_catalogue.evaluate(entry, Evidence(-0.1, se=0.02), "smoke")
    assert smoke.verdict == "fails, unexplained" and smoke.reason.endswith(f"({claim_catalogue.SMOKE_FAILURE})")
    default = claim_catalogue.evaluate(entry, Evidence(-0.1, se=0.02), "default")
    assert claim_catalogue.SMOKE_FAILURE not in default.reason


def test_a_setting_the_paper_does_not_state_is_swept_and_holds_only_where_every_value_holds():
    entry = _parse(ENTRY)["slope"]
    at = {"n = 500": Evidence(-0.5, se=0.02), "n = 2,000": Evidence(-0.1, se=0.02)}
    mixed = claim_catalogue.evaluate(entry, Evidence(-0.1, se=0.02, settings=at, unstated="the sample size n"),
                                     "default")
    assert mixed.verdict == claims.UNDEFINED and mixed.reason == (
        "the outcome depends on the sample size n, which the paper does not state: holds at n = 500 (-0.5); "
        "fails, unexplained at n = 2,000 (-0.1)")
    every = claim_catalogue.evaluate(entry, Evidence(-0.5, se=0.02, settings={k: Evidence(-0.5, se=0.02) for k in at},
                                                     unstated="n"), "default")
    assert every.verdict == "holds" and "swept over n, which the paper does not state" in every.statement
    none = claim_catalogue.evaluate(entry, Evidence(-0.1, se=0.02, settings={k: Evidence(-0.1, se=0.02) for k in at},
                                                    unstated="n"), "default")
    assert none.verdict == "fails, unexplained" and none.reason.endswith("fails, unexplained at n = 2,000 (-0.1)")
    with pytest.raises(ValueError, match="names the setting the paper leaves unstated"):
        claim_catalogue.evaluate(entry, Evidence(-0.1, se=0.02, settings=at), "default")


def test_a_test_that_excludes_every_value_the_statistic_can_take_is_refused_as_unable_to_hold():
    with pytest.raises(ValueError, match=r"claim 'share': the test in \[1.2, 1.5\] fails for every value the "
                                         r"statistic can take \(support \[0, 1\]\): it cannot hold"):
        _parse("""
        - {id: share, kind: extension, section: E8, paper_says: "none", measures: "a share",
           test: {range: [1.2, 1.5]}, support: [0, 1], null_hypothesis: "chance", power: {exact: "counted"}}
        """)
    with pytest.raises(ValueError, match="< 0 by 2 s.e. .* cannot hold"):  # widened bounds only grow stricter
        _parse("""
        - {id: sd, kind: paper, section: E8, paper_says: "small", measures: "an s.d.", support: [0, .inf],
           test: {bound: "<", value: 0, se_k: 2, reason: "r"}, null_hypothesis: "0.1", power: {exact: "counted"}}
        """)


WIDENED = """
- {id: sd, kind: paper, section: E8, paper_says: "small", measures: "an s.d.", support: [0, .inf],
   test: {bound: "<", value: 0.039, se_k: 2, reason: "stability"}, null_hypothesis: "0.039",
   power: {normal: {if_paper: 0.03, if_null: 0.039}}}
- {id: share, kind: paper, section: E8, paper_says: "0.58", measures: "a share", support: [0, 1],
   test: {point: 0.58, se_k: 3}, null_hypothesis: "0", power: {normal: {if_paper: 0.58, if_null: 0.0}}}
"""


def test_a_test_widened_by_a_logged_se_is_judged_at_that_se(monkeypatch):
    catalogue = _parse(WIDENED)
    monkeypatch.setattr(claim_catalogue, "load", lambda notebook: catalogue)
    small = [{"id": "sd", "se": 0.005}, {"id": "share", "se": 0.05}]
    assert claim_catalogue.logged_problems("T00_test", small, "a run") == []  # both can go either way
    wide = [{"id": "sd", "se": 0.028}, {"id": "share", "se": 0.2}, {"id": "share", "se": None}]
    found = claim_catalogue.logged_problems("T00_test", wide, "a run")
    assert len(found) == 2
    assert found[0].startswith("T00_test: claim 'sd': the test < 0.039 by 2 s.e. (s.e. 0.028) fails for every value")
    assert found[0].endswith("(support [0, inf] at the s.e. 0.028 logged in a run): it cannot hold")
    assert "claim 'share': the test within 3 s.e. of 0.58 (s.e. 0.2) holds for every value" in found[1]
    assert found[1].endswith("it cannot fail")


SOURCED = """
- id: auc
  kind: paper
  section: "E1"
  paper_says: "0.75"
  measures: "a mean AUC over seeds and test texts"
  test: {bound: ">=", value: 0.7, reason: "the paper's lower end"}
  support: [0, 1]
  null_hypothesis: "chance: 0.5"
  power: {normal: {if_paper: 0.75, if_null: 0.5}}
  sources: [seeds, test_texts]
"""


def test_every_source_of_noise_enters_the_power_and_a_missing_one_is_refused():
    entry = _parse(SOURCED)["auc"]
    # A toy claim with a known answer: the value's s.e. over seeds is 0.02 and over test texts 0.0447, so its
    # total s.e. is 0.049 and the test (>= 0.7) holds with probability Φ((0.75 − 0.7)/0.049) = 0.846 if the paper
    # is right. Draws from the seeds alone would claim Φ(2.5) = 0.994.
    found = claim_catalogue.evaluate(entry, Evidence(0.74, sources={"seeds": 0.02, "test_texts": 0.0447}),
                                     "default")
    assert found.se == pytest.approx(math.hypot(0.02, 0.0447))
    assert found.power["if_paper"] == pytest.approx(stats.norm.cdf(0.05 / math.hypot(0.02, 0.0447)), abs=0.015)
    assert found.power["sources"] == {"seeds": pytest.approx(0.167, abs=1e-3),
                                      "test_texts": pytest.approx(0.833, abs=1e-3)}
    seeds_only = claim_catalogue.evaluate(dataclasses.replace(entry, sources=()), Evidence(0.74, se=0.02), "default")
    assert seeds_only.power["if_paper"] > 0.99  # what omitting the test texts would have claimed
    with pytest.raises(ValueError, match=r"names the sources of noise \['seeds', 'test_texts'\], the closing cell "
                                         r"passes \['seeds'\]"):
        claim_catalogue.evaluate(entry, Evidence(0.74, sources={"seeds": 0.02}), "default")
    with pytest.raises(ValueError, match="pass the s.e. of each source of noise, not se="):
        claim_catalogue.evaluate(entry, Evidence(0.74, se=0.05, sources={"seeds": 0.02, "test_texts": 0.04}),
                                 "default")
    with pytest.raises(ValueError, match=r"sources \['coins'\] are not sources of noise"):
        _parse(SOURCED.replace("[seeds, test_texts]", "[seeds, coins]"))
