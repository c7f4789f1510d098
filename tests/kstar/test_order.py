"""lib.kstar.order.order: cross-model agreement of task orders and the text-side comparison, on tables with
known answers."""

import math

import numpy as np
import pandas as pd
import pytest

from lib import stats
from lib.kstar.order import order, text_baseline


def _tasks(model, kstar, ceiling, flagged=()):
    names = [f"t{i}" for i in range(len(kstar))]
    return pd.DataFrame({"model": model, "task": names, "kstar": kstar, "ceiling": ceiling,
                         "flagged": [n in flagged for n in names]})


@pytest.fixture
def tasks():
    return pd.concat([_tasks("a", [1, 4, 16, 64, math.inf], [0.99, 0.97, 0.95, 0.93, 0.91]),
                      _tasks("b", [2, 4, 32, 128, math.inf], [0.98, 0.96, 0.95, 0.92, 0.85], flagged=("t4",))],
                     ignore_index=True)


def test_spread_and_ceiling_range_read_readable_finite_cells(tasks):
    spread = order.spread_ratios(tasks)
    assert spread.to_dict() == {"t0": 2.0, "t1": 1.0, "t2": 2.0, "t3": 2.0}  # t4: ∞ everywhere, not a size
    assert order.ceiling_ranges(tasks)["t0"] == pytest.approx(0.01) and np.isnan(order.ceiling_ranges(tasks)["t4"])


def test_pairwise_agreement_and_the_shared_order_test(tasks):
    pairs = order.pairwise_agreement(tasks, ["a", "b"]).set_index("treatment")
    assert pairs.loc["all", "rho"] == pytest.approx(1.0) and pairs.loc["gated", "shared_tasks"] == 4
    test = order.shared_order_test(tasks, ["a", "b"], 2000, seed=0)
    assert test.common == ["t0", "t1", "t2", "t3"] and test.observed == pytest.approx(1.0) and test.n_pairs == 1
    assert test.p_value == pytest.approx(1 / 24, abs=0.02)  # 4 tasks: a perfect match has chance 1/4!
    assert math.isnan(order.shared_order_test(tasks[tasks.task.isin(["t0", "t1"])], ["a", "b"], 10, 0).p_value)
    nobody = order.shared_order_test(tasks, [], 10, 0)  # a panel with no model (no base causal LM in the run)
    assert nobody.common == [] and nobody.n_pairs == 0 and math.isnan(nobody.observed)


def test_labs_come_from_the_model_ids_organisations():
    assert order.lab("google/gemma-2-9b") == order.lab("google/gemma-3-4b") == "google"
    assert order.lab("meta-llama/Llama-3.1-8B") == "meta-llama"
    assert order.lab("minilm") != order.lab("smollm2-135m") and order.lab("tiny-bert") != order.lab("tiny-llama")
    models = ["google/a", "google/b", "meta-llama/c", "Qwen/d"]
    assert order.cross_lab_pairs(models) == [(0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]  # (0, 1): same lab


def test_the_permutation_statistic_is_the_median_over_cross_lab_pairs():
    ranks = {"google/a": [1, 2, 3, 4], "google/b": [4, 3, 2, 1], "meta-llama/c": [1, 2, 4, 3], "Qwen/d": [2, 1, 3, 4]}
    table = pd.DataFrame([{"model": m, "task": f"t{i}", "kstar": float(k), "ceiling": 0.95, "flagged": False}
                          for m, ks in ranks.items() for i, k in enumerate(ks)])
    # cross-lab ρ by hand: a–c 0.8, a–d 0.8, b–c −0.8, b–d −0.8, c–d 0.6 → median 0.6; the same-lab a–b (−1) is out
    test = order.shared_order_test(table, list(ranks), 200, seed=0)
    assert test.n_pairs == 5 and test.observed == pytest.approx(0.6)
    assert stats.order_permutation_test(table.pivot(index="model", columns="task", values="kstar").loc[list(ranks)]
                                        .to_numpy(), 10, 0)[0] == pytest.approx(-0.1)  # all six pairs: median −0.1
    lonely = order.shared_order_test(table[table.model.str.startswith("google")], ["google/a", "google/b"], 10, 0)
    assert lonely.n_pairs == 0 and math.isnan(lonely.observed)


def test_largest_ratio_near_equal_ceilings(tasks):
    assert order.largest_ratio_near_ceiling(tasks, 0.035) == 16.0  # b: t0 (2, 0.98) vs t2 (32, 0.95)
    assert order.largest_ratio_near_ceiling(tasks, 0.015) == 8.0  # only b: t1 (4, 0.96) vs t2 (32, 0.95)
    assert math.isnan(order.largest_ratio_near_ceiling(tasks, 0.001))


def test_model_against_text_and_the_partial_correlations(tasks):
    readings = pd.DataFrame({
        "model": ["a"] * 4 + ["b"] * 4 + [text_baseline.TEXT_MODEL] * 4, "task": ["t0", "t1", "t2", "t3"] * 3,
        "s_64": [0.99, 0.98, 0.97, 0.96, 0.98, 0.97, 0.96, 0.95, 0.90, 0.80, 0.70, 0.60],
        "s_256": [1.0] * 12, "text_ceiling": [0.99, 0.97, 0.95, 0.93] * 3, "text_flagged": [False] * 12})
    compared = order.model_vs_text(readings, tasks, ["a", "b"]).set_index(["model", "k"])
    assert compared.loc[("a", 64), "median_difference"] == pytest.approx(0.225)
    assert compared.loc[("a", 256), "p_value"] == 1.0  # identical readings: nothing to test
    assert compared.loc[("a", 0), "ceiling_correlation"] == pytest.approx(1.0)
    partial = order.partial_agreement(readings, tasks, ["a", "b"], ["s_64"], ["t0", "t1", "t2", "t3"]
                                      ).set_index("control")
    assert partial.loc["log k* (invariance)", "partial_rho"] == partial.loc["log k* (invariance)", "rho"]
    assert np.isnan(partial.loc["s_64", "partial_rho"])  # the control orders the tasks exactly as both models


def test_tasks_unreadable_from_text_leave_the_normalised_statistics(tasks):
    readings = pd.DataFrame({
        "model": ["a"] * 4 + ["b"] * 4 + [text_baseline.TEXT_MODEL] * 4, "task": ["t0", "t1", "t2", "t3"] * 3,
        "s_64": [0.99, 0.98, 0.97, 0.96, 0.98, 0.97, 0.96, 0.95, 0.90, 0.80, 0.70, 5.0],
        "text_ceiling": [0.99, 0.97, 0.95, 0.507] * 3, "text_flagged": [False, False, False, True] * 3})
    compared = order.model_vs_text(readings, tasks, ["a", "b"], ks=(64,)).set_index(["model", "k"])
    assert compared.loc[("a", 64), "n_tasks"] == 3 and compared.loc[("a", 64), "text_unreadable"] == "t3"
    assert compared.loc[("a", 64), "text_median"] == pytest.approx(0.80)  # t3's 5.0 (noise over 0.007) is out
    assert compared.loc[("a", 0), "n_tasks"] == 4  # the ceiling axis keeps every task
    partial = order.partial_agreement(readings, tasks, ["a", "b"], ["s_64", "text_ceiling"], ["t0", "t1", "t2", "t3"]
                                      ).set_index("control")
    assert partial.loc["s_64", "n_tasks"] == 3 and partial.loc["text_ceiling", "n_tasks"] == 4
    narrower = order.partial_agreement(readings, tasks, ["a", "b"], ["text_ceiling"], ["t0", "t1", "t2"])
    assert set(narrower.n_tasks) == {3}  # every pair reads the common task set, not all the tasks it shares
    # three tasks: ρ is read, the partial is not (±1 by construction), and the row says why
    three = narrower.set_index("control").loc["text_ceiling"]
    assert np.isfinite(three.rho) and np.isnan(three.partial_rho) and "fewer than four" in three.undefined
    assert partial.loc["s_64", "undefined"].startswith("3 tasks, fewer than four")


def test_a_reading_is_undefined_when_a_pair_is_and_the_lowest_names_every_undefined_one():
    partial = pd.DataFrame({
        "model_a": ["a", "a", "a", "a", "a", "b", "a"], "model_b": ["b", "b", "c", "c", "b", "c", "b"],
        "control": ["s_4", "text_ceiling", "s_4", "text_ceiling", "s_64", "s_4", order.LOG_CONTROL],
        "rho": 0.9, "partial_rho": [0.9, 0.7, 0.8, np.nan, np.nan, -0.5, 0.9], "n_tasks": [5, 5, 5, 5, 3, 5, 5],
        "undefined": ["", "", "", "the reading orders the tasks exactly as a model does", "3 tasks, fewer than four",
                      "", ""]})
    readings = order.partial_readings(partial, [("a", "b"), ("a", "c")]).set_index("control")
    assert list(readings.index) == ["s_4", "text_ceiling", "s_64"]  # the invariance row and the pair b–c left out
    assert readings.loc["s_4", "median_partial_rho"] == pytest.approx(0.85) and readings.loc["s_4", "pairs"] == 2
    # text_ceiling: a–c undefined, so no median over a–b alone
    assert np.isnan(readings.loc["text_ceiling", "median_partial_rho"])
    assert readings.loc["text_ceiling", "undefined_pairs"] == 1
    lowest = order.lowest_partial(readings.reset_index())
    assert lowest.value == pytest.approx(0.85) and lowest.undefined == ""
    assert lowest.note.startswith("1 of 3 text-side readings defined, undefined text_ceiling: the reading orders")
    assert "s_64: 3 tasks, fewer than four" in lowest.note
    none = order.lowest_partial(readings.reset_index().iloc[1:])
    assert math.isnan(none.value) and none.undefined.startswith("no text-side reading has a partial ρ")
    assert "fewer than four" in none.undefined


def test_the_ceiling_correlation_is_spearmans_rank_correlation(tasks):
    readings = pd.DataFrame({"model": ["a"] * 4 + [text_baseline.TEXT_MODEL] * 4, "task": ["t0", "t1", "t2", "t3"] * 2,
                             "s_64": [1.0] * 8, "text_flagged": [False] * 8,
                             "text_ceiling": [0.99, 0.97, 0.95, 0.93, 0.99, 0.70, 0.69, 0.51]})
    compared = order.model_vs_text(readings, tasks, ["a"], ks=()).set_index(["model", "k"])
    # the same order on a non-linear scale: Spearman 1, Pearson about 0.85
    assert compared.loc[("a", 0), "ceiling_correlation"] == pytest.approx(1.0)


def test_the_treatment_gap_and_its_granularity_mechanism():
    pairs = pd.DataFrame({"model_a": "a", "model_b": "b", "treatment": ["all", "finite", "gated"],
                          "rho": [0.94, 0.8333, np.nan], "shared_tasks": [6, 4, 2]})
    assert order.treatment_gap(pairs) == pytest.approx(0.94 - 0.8333)
    assert math.isnan(order.treatment_gap(pairs.assign(rho=[0.9, np.nan, np.nan])))
    text = order.granularity_mechanism(pairs, 0.05, "pairs.parquet")
    assert "finite treatment on only 4" in text and "0.20" in text and "pairs.parquet" in text
    assert order.granularity_mechanism(pairs.assign(shared_tasks=[12, 11, 2]), 0.05, "pairs.parquet") == ""


def test_text_differences_and_ceiling_gains_read_one_instrument(tasks):
    readings = pd.DataFrame({"model": ["a"] * 3 + [text_baseline.TEXT_MODEL] * 3, "task": ["t0", "t1", "t2"] * 2,
                             "s_64": [0.99, 0.98, 0.97, 0.90, 0.95, 0.5],
                             "text_ceiling": [np.nan] * 3 + [0.9, 0.9, 0.5], "text_flagged": [False] * 5 + [True]})
    assert order.text_differences(readings, "a", 64).to_dict() == pytest.approx({"t0": 0.09, "t1": 0.03})
    gains = order.ceiling_gains(readings, tasks, "a")
    assert gains.to_dict() == pytest.approx({"t0": 0.09, "t1": 0.07, "t2": 0.45})
