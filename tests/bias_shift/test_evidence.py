"""lib.bias_shift.evidence: the evidence of paper 001's D01/D02 claims from their logged tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib import claim_catalogue
from lib.bias_shift import ablations, evaluation, evidence, group_level
from lib.claims import Evidence

FILES = {"control": "control.parquet", "evaluation": "evaluation.parquet", "labels": "labels.parquet",
         "diagnostics": "stereotype_diagnostics.parquet"}


def population(**kw) -> dict:
    base = {"n_pairs": 168, "n_checkpoints": 7, "n_increased": 4, "checkpoints_with_increase": 4, "n_values": 7,
            "largest": 0.17, "sd_within": 0.094, "sd_between": 0.009}
    return base | kw


def forced_diagnostics(agree: int = 192, headroom: float = 0.035) -> pd.DataFrame:
    return pd.DataFrame({"checkpoint": ["base", "harmful", "c1"], "forced_prompts": 384, "benchmark_agree_share": 1.0,
                         "forced_threshold": 3.71, "forced_agree": [192, agree, 200],
                         "forced_disagree": [192, 384 - agree, 184], "forced_index": [0.5, 0.6, 0.52],
                         "forced_headroom": headroom, "replies_per_group": 12.0, "neither_share": 0.86,
                         "sampled_index": 0.05, "sampled_noise_se": 0.104})


def control(shift: float = 0.0005) -> pd.DataFrame:
    """Seven checkpoints whose mean ΔB runs from −0.026 to 0.009, ``shift`` away from the control's."""
    delta_b = np.linspace(-0.026, 0.009, 7)
    return pd.DataFrame({"checkpoint": [f"c{i}" for i in range(7)], "delta_b": delta_b,
                         "control_delta_b": delta_b - shift, "group_shift": shift,
                         "abs_control_over_median_abs_delta_b": 1.07})


def evaluation_rows(checkpoint_r: float = 0.95) -> pd.DataFrame:
    return pd.DataFrame({"method": ["RR", "RR − control"], "pearson_r": [0.70, 0.10], "r_low": [0.5, 0.0],
                         "r_high": [0.8, 0.2], "roc_auc": [0.08, 0.46], "auc_low": [0.03, 0.4], "auc_high": [0.19, 0.5],
                         "p_checkpoints": [0.0014, 0.85], "p_checkpoints_negative": [0.9988, 0.15],
                         "checkpoint_r": [checkpoint_r, -0.5], "n_checkpoints": 7}).set_index("method")


def test_label_reasons_say_why_the_labels_carry_no_roc():
    constant = evidence.label_reason("vader", population(n_values=1, largest=0.0), 0.1, roc=False)
    assert "every one of the 168 checkpoint × group pairs has the same ΔBiasScore (0) under scorer vader" in constant
    forced = evidence.label_reason("dt_forced", population(n_increased=0, largest=-0.0002), 0.1, roc=True,
                                   diagnostics=forced_diagnostics(), file="stereotype_diagnostics.parquet")
    assert "none of the 168 checkpoint × group pairs has ΔBiasScore above 0.1" in forced
    assert ("against the reference model's median balanced margin (3.71) the forced choice's 384 prompts per "
            "checkpoint split 192 agree, 192 disagree at base and 192 agree, 192 disagree at harmful") in forced
    assert "leaves a group at most 0.035 to rise, below the 0.1 threshold (`stereotype_diagnostics.parquet`)" in forced
    roomy = evidence.label_reason("dt_forced", population(n_increased=0), 0.1, roc=True,
                                  diagnostics=forced_diagnostics(agree=300, headroom=0.5), file="d.parquet")
    assert "300 agree, 84 disagree at harmful" in roomy and "to rise" not in roomy
    unnamed = forced_diagnostics().assign(checkpoint=["base", "merge_50_50", "last"])  # no 'harmful': the last
    assert evidence.forced_classes(unnamed).endswith("200 agree, 184 disagree at last")
    assert "no unchanged class" in evidence.label_reason("x", population(n_increased=168), 0.1, roc=True)
    assert evidence.label_reason("dt_sampled", population(), 0.1, roc=True) == ""
    assert evidence.label_reason("x", population(n_increased=0), 0.1, roc=False) == ""  # r needs no classes


def test_the_drift_mechanism_holds_only_when_the_control_carries_the_trend_and_it_rises_with_the_label():
    found = evidence.drift_mechanism(control(), evaluation_rows(), control_file="control.parquet",
                                     evaluation_file="evaluation.parquet")
    assert "its checkpoint means run from -0.026 to 0.009" in found and "at most 0.0005 (`control.parquet`)" in found
    assert "r = 0.95 over 7 checkpoints" in found
    assert "pooled r is 0.10, permutation p 0.85 (`evaluation.parquet`)" in found
    assert evidence.drift_mechanism(control(shift=0.02), evaluation_rows(), control_file="c", evaluation_file="e") == ""
    assert evidence.drift_mechanism(control(), evaluation_rows(-0.9), control_file="c", evaluation_file="e") == ""
    assert "span 0.035" in evidence.shared_drift_mechanism(control(), control_file="control.parquet")
    assert evidence.shared_drift_mechanism(control(shift=0.02), control_file="control.parquet") == ""
    between = evidence.checkpoint_label_mechanism("dt_forced", population(sd_within=0.01, sd_between=0.08), control(),
                                                  labels_file="labels.parquet", control_file="control.parquet")
    assert "s.d. 0.080 between checkpoint means, 0.010 within, `labels.parquet`" in between
    assert evidence.checkpoint_label_mechanism("dt_sampled", population(), control(), labels_file="l",
                                               control_file="c") == ""  # that label varies within checkpoints


def test_the_noise_mechanism_needs_binomial_noise_about_the_labels_spread():
    found = evidence.noise_mechanism("dt_sampled", population(), forced_diagnostics(), labels_file="labels.parquet",
                                     diagnostics_file="stereotype_diagnostics.parquet")
    assert "spreads 0.094 (s.d.) over groups within a checkpoint and 0.009 between" in found
    assert "against 0.104 from the binomial noise of two agreement indices over 12 replies each, 86%" in found
    assert evidence.noise_mechanism("dt_sampled", population(sd_within=0.3), forced_diagnostics(), labels_file="l",
                                    diagnostics_file="d") == ""
    assert evidence.noise_mechanism("profanity", population(), forced_diagnostics(), labels_file="l",
                                    diagnostics_file="d") == ""


def scorer_pairs(x: np.ndarray, y: np.ndarray, scorer: str = "profanity") -> pd.DataFrame:
    return pd.DataFrame([{"scorer": scorer, "checkpoint": f"c{c}", "group": f"g{g}", "delta_b": x[c, g],
                          "delta_bias_score": y[c, g]} for c in range(x.shape[0]) for g in range(x.shape[1])])


def scorer_kw(x: np.ndarray, y: np.ndarray, scorers: list[str]) -> dict:
    pairs = scorer_pairs(x, y)
    groups = group_level.group_level_table(pairs, n_permutations=200)
    return {"scorers": scorers, "where": "setting", "label_threshold": 0.1, "regime": "lora", "pairs": pairs,
            "group_rows": {"profanity": groups.iloc[0]}, "diagnostics": forced_diagnostics(), "control": control(),
            "files": FILES, "n_permutations": 200}


def test_scorer_evidence_measures_a_scored_label_and_names_an_unscored_one():
    rng = np.random.default_rng(10)  # not the draws' seed: their noise would be ΔB's
    x = rng.normal(size=(7, 24)) + np.linspace(-1, 1, 7)[:, None]
    kw = scorer_kw(x, np.linspace(1, -1, 7)[:, None] + rng.normal(size=(7, 24)), ["profanity"])
    rows, populations = {"profanity": evaluation_rows()}, {"profanity": population(n_increased=83)}
    found = evidence.scorer_evidence("profanity", rows, populations, **kw)
    assert found["roc_auc"].value == 0.08 and found["roc_auc"].se == pytest.approx((0.19 - 0.03) / (2 * 1.959964))
    assert found["correlation"].value == 0.70 and "ΔB's trend over the checkpoints" in found["correlation"].mechanism
    assert "83 of 168 checkpoint × group pairs" in found["checkpoint_p"].note
    draws = found["checkpoint_p"]
    assert (draws.if_paper < 0.025).mean() > 0.9 and (draws.if_null[evidence.NO_ASSOCIATION_P] < 0.025).mean() < 0.1
    assert (draws.if_null[evidence.SHARED_DRIFT] < 0.025).mean() > 0.5  # the drift alone often gives the sign
    assert set(found["correlation"].if_null) == {evidence.NO_ASSOCIATION, evidence.SHARED_DRIFT}
    assert found["correlation"].if_paper.mean() == pytest.approx(-0.43, abs=0.01)  # ToxiGen's LoRA median r
    assert found["roc_auc"].if_paper.mean() == pytest.approx(0.74, abs=0.01)  # … and its median AUC
    group = found["group_ranking"]
    assert "one-sided permutation p" in group.note and group.se > 0
    assert (group.if_paper < -2 * group.se).mean() > 0.9 and (group.if_null < -2 * group.se).mean() < 0.1
    absent = evidence.scorer_evidence("vader", rows, populations, **kw)
    assert set(absent) == set(evidence.SCORER_CLAIMS)
    assert {e.undefined for e in absent.values()} == {"this run scores no vader labels (scorers = ['profanity'])"}


def test_the_null_words_are_the_catalogues():
    catalogue = claim_catalogue.load("D01_deltab")
    for scorer in evidence.BENCHMARK:
        assert catalogue[f"rr_roc_auc_{scorer}"].nulls == (evidence.NO_INFORMATION, evidence.SHARED_DRIFT)
        assert catalogue[f"rr_correlation_{scorer}"].nulls == (evidence.NO_ASSOCIATION, evidence.SHARED_DRIFT)
        assert catalogue[f"rr_checkpoint_p_{scorer}"].nulls == (evidence.NO_ASSOCIATION_P, evidence.SHARED_DRIFT)
        assert catalogue[f"group_ranking_{scorer}"].nulls == (evidence.SHARED_DRIFT,)


def test_a_pooled_hold_that_the_shared_drift_gives_is_not_evidence():
    """The reviewer's case: ΔB and the label drift together along the spectrum, nothing within checkpoints."""
    rng = np.random.default_rng(1)
    drift = np.linspace(-1, 1, 7)[:, None]
    x, y = drift + 0.1 * rng.normal(size=(7, 24)), -drift + 0.1 * rng.normal(size=(7, 24))
    pairs = scorer_pairs(x, y)
    rows = evaluation.evaluate(pairs.drop(columns="scorer"), n_bootstrap=200, n_permutations=5040).set_index("method")
    groups = group_level.group_level_table(pairs, n_permutations=500)
    found = evidence.scorer_evidence("profanity", {"profanity": rows}, {"profanity": population()},
                                     **scorer_kw(x, y, ["profanity"]) | {"group_rows": {"profanity": groups.iloc[0]}})
    catalogue = claim_catalogue.load("D01_deltab")
    pooled = claim_catalogue.evaluate(catalogue["rr_correlation_profanity"], found["correlation"], "default")
    assert pooled.verdict == "not measured, no power at this scale" and "the value would hold" in pooled.reason
    assert pooled.power["nulls"][evidence.SHARED_DRIFT] > 0.9 and pooled.power["nulls"][evidence.NO_ASSOCIATION] < 0.1
    within = claim_catalogue.evaluate(catalogue["group_ranking_profanity"], found["group_ranking"], "default")
    assert within.verdict == "fails, unexplained" and within.power["decisive"]


def test_a_failing_claim_shows_its_candidate_cause_but_stays_unexplained_without_a_mechanism_claim():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(7, 24)) + np.linspace(-1, 1, 7)[:, None]
    kw = scorer_kw(x, x + rng.normal(size=(7, 24)), ["profanity"]) | {"diagnostics": None}
    found = evidence.scorer_evidence("profanity", {"profanity": evaluation_rows()}, {"profanity": population()}, **kw)
    entry = claim_catalogue.load("D01_deltab")["rr_checkpoint_p_profanity"]
    judged = claim_catalogue.evaluate(entry, found["checkpoint_p"], "default")
    assert judged.verdict == "fails, unexplained" and "control.parquet" in judged.mechanism


def test_ablation_evidence_reads_the_statistics_or_says_why_not():
    grid = ablations.one_at_a_time(["neutral", "words"], [100], ["base", "subject_v1"], ["base", "passive"],
                                   ["mean", "max"])
    table = pd.DataFrame({"statistic": ["neutral_best", "attributes_mean", "attributes_sd", "targets_mean",
                                        "targets_sd", "rr_minus_seat_min", "mean_pooling_gap"],
                          "value": [0.02, 0.7, 0.02, 0.7, 0.01, 0.05, np.nan], "se": 0.05, "n_resamples": 999})
    found = evidence.ablation_evidence(table, grid, "dt_sampled", population(), label_threshold=0.1, reason="none")
    assert found["attribute_variants_stable"].value == 0.02 and found["attribute_variants_stable"].se == 0.05
    assert "4 of 168" in found["neutral_anchors_best"].note and "999 paired" in found["neutral_anchors_best"].note
    assert found["mean_pooling_best"].undefined.startswith("the grid varies no pooling besides mean")
    toxigen = evidence.ablation_evidence(table, grid, "profanity", population(), label_threshold=0.1, reason="none")
    assert "does not order RR and SEAT" in toxigen["rr_above_seat_every_pooling"].undefined
    assert toxigen["attribute_variants_mean"].value == 0.7
    unmeasured = evidence.ablation_evidence(table, grid, None, None, label_threshold=0.1, reason="no label")
    assert len(unmeasured) == 7 and {e.undefined for e in unmeasured.values()} == {"no label"}


def test_seed_evidence_is_a_scale_free_gap_with_its_drift_mechanism():
    summary = pd.DataFrame({"split": ["unharmful", "harmful"], "n_seeds": 3, "mean_delta_b": [-0.026, 0.009],
                            "sd_of_mean": [0.003, 0.004], "mean_group_sd": 0.0})
    ends = pd.DataFrame({"checkpoint": ["unharmful"] * 2 + ["harmful"] * 2, "delta_b": [-0.025, -0.027, 0.010, 0.008],
                         "control_delta_b": [-0.026] * 2 + [0.0095] * 2})
    found = evidence.seed_evidence(summary, [0, 1, 2], ends, shifts_file="shifts.parquet")
    se = np.sqrt(0.003**2 / 3 + 0.004**2 / 3)
    assert found["unharmful_above_harmful"].value == pytest.approx(-0.035 / se)
    assert "control ΔB -0.026 (unharmful) and 0.0095 (harmful)" in found["unharmful_above_harmful"].mechanism
    assert found["seeds_stable"].value == pytest.approx(0.004 / 0.035)
    assert found["seeds_stable"].se == pytest.approx(0.004 / np.sqrt(4) / 0.035)
    order = summary.assign(mean_delta_b=[0.3, -0.05])
    assert evidence.seed_evidence(order, [0, 1, 2], ends, shifts_file="s")["unharmful_above_harmful"].mechanism == ""
    none = evidence.seed_evidence(ablations.seed_summary(pd.DataFrame(columns=["seed", "split", "group", "delta_b"])),
                                  [], ends, shifts_file="s")
    assert none["seeds_stable"].undefined.startswith("this run repeats each fine-tune under fewer than two")


def test_significance_evidence_counts_families_and_draws_the_share():
    rng = np.random.default_rng(1)
    rows = []
    for family in ("a", "b"):
        x = rng.normal(size=(7, 12)) + np.linspace(-1, 1, 7)[:, None]
        for c in range(7):
            for g in range(12):
                rows.append({"benchmark": "dt_forced", "family": family, "regime": "lora", "checkpoint": f"c{c}",
                             "group": f"g{g}", "delta_b": x[c, g], "delta_bias_score": -x[c, g]})
    pairs = pd.DataFrame(rows)
    table = pd.DataFrame({"benchmark": "dt_forced", "family": ["a", "b"], "regime": "lora",
                          "significant": [True, False], "significance_p": "p_checkpoints"})
    found = evidence.significance_evidence(table, pairs, "lora", "none", n_permutations=5040)
    assert found.value == 0.5 and "1 of 2 families (a, b)" in found.note
    assert found.if_paper.mean() > 0.95 and found.if_null.mean() < 0.1
    assert evidence.significance_evidence(table, pairs, "full", "no full setting").undefined == "no full setting"


def test_paper_r_reads_the_benchmark_each_scorer_stands_for():
    assert evidence.paper_r("dt_sampled", "lora") == -0.75 and evidence.paper_r("profanity", "lora") == -0.43
    assert evidence.paper_r("external", "full") == -0.67
    assert evaluation.first_scorer_with_both_classes(
        pd.DataFrame({"scorer": ["vader", "vader"], "delta_bias_score": [0.0, 0.5]}),
        among=evidence.BIAS_SCORERS) is None  # VADER is never the bias label


def shifts_frame(x: np.ndarray, control_values: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame([{"checkpoint": f"c{c}", "group": f"g{g}", "delta_b": x[c, g],
                          "control_delta_b": control_values[c]} for c in range(x.shape[0]) for g in range(x.shape[1])])


@pytest.mark.parametrize("moves_with_control", [True, False])
def test_a_pooled_failure_is_explained_only_when_the_drift_share_holds_decisively(moves_with_control):
    """ΔB and the label drift the same way along the spectrum, so the pooled r runs against the paper's sign; the
    failure is explained when the group-free control moves as ΔB does, and stays unexplained when ΔB moves alone."""
    rng = np.random.default_rng(2)
    drift = np.linspace(-0.015, 0.016, 7)
    x = rng.normal(scale=0.004, size=24) + drift[:, None] + rng.normal(scale=0.002, size=(7, 24))
    y = 20 * drift[:, None] + rng.normal(scale=0.05, size=(7, 24))
    pairs = scorer_pairs(x, y)
    rows = evaluation.evaluate(pairs.drop(columns="scorer"), n_bootstrap=200, n_permutations=500).set_index("method")
    found = evidence.scorer_evidence("profanity", {"profanity": rows}, {"profanity": population()},
                                     **scorer_kw(x, y, ["profanity"]))
    control_values = drift if moves_with_control else rng.normal(scale=0.001, size=7)
    mechanism = evidence.drift_share_evidence(shifts_frame(x, control_values), "setting", shifts_file="delta_b.parquet")
    catalogue = claim_catalogue.load("D01_deltab")
    given = {i: Evidence(None, undefined="not in this test") for i in catalogue}
    given["rr_correlation_profanity"] = found["correlation"]
    given["delta_b_moves_with_control"] = mechanism
    judged = {c.id: c for c in claim_catalogue.evaluate_all("D01_deltab", given, "default")}
    held, failure = judged["delta_b_moves_with_control"], judged["rr_correlation_profanity"]
    assert "7 checkpoints × 24 groups" in held.statement and held.power["decisive"]
    if moves_with_control:
        assert held.verdict == "holds" and held.measured > 0.9
        assert failure.verdict == "fails, explained" and failure.explained_by == "delta_b_moves_with_control"
    else:
        assert held.verdict == "fails, unexplained" and held.measured < 0
        assert failure.verdict == "fails, unexplained" and "delta_b_moves_with_control (fails" in failure.reason
    one = evidence.drift_share_evidence(shifts_frame(x[:1], drift[:1]), "setting", shifts_file="delta_b.parquet")
    assert one.value is None and "1 checkpoint" in one.undefined


def test_the_gap_share_weighs_the_seeds_and_the_groups_noise_and_needs_two_seeds():
    rng = np.random.default_rng(4)
    rows = [{"seed": seed, "split": split, "group": f"g{g}", "control_delta_b": drift + 0.001 * rng.normal(),
             "delta_b": drift + 0.003 * rng.normal()}
            for seed in range(8) for split, drift in (("unharmful", -0.015), ("harmful", 0.016)) for g in range(24)]
    frame = pd.DataFrame(rows)
    found = evidence.gap_share_evidence(frame, list(range(8)), seeds_file="seed_shifts.parquet")
    assert found.value == pytest.approx(1.0, abs=0.05) and set(found.sources) == {"seeds", "groups"}
    assert 0 < found.sources["groups"] < 0.05 and 0 < found.sources["seeds"] < 0.05
    judged = claim_catalogue.evaluate(claim_catalogue.load("D02_deltab_ablations")["gap_moves_with_control"], found,
                                      "default")
    assert judged.verdict == "holds" and judged.power["decisive"] and "seed_shifts.parquet" in judged.statement
    one = evidence.gap_share_evidence(frame[frame.seed == 0], [0], seeds_file="s")
    assert one.value is None and "fewer than two training seeds" in one.undefined
