"""lib.kstar.order.cross_model: A.2.1's cross-model evidence reads only the panel's models, and a panel that cannot
carry a cross-model statistic reads every claim as needing the paper's models."""

import numpy as np
import pandas as pd
import pytest

from lib import stats
from lib.kstar.order import cross_model, order, population, text_baseline

A, B, C = "google/a", "meta-llama/b", "Qwen/c"
COUNTS = {A: [1, 2, 4, 8, 16, 32], B: [2, 2, 8, 8, 32, 64], C: [64, 4, 2, 16, 16, 1]}  # C reverses most of the order
CEILINGS = {A: 0.95, B: 0.96, C: 0.99}  # on every task: ranges 0.01 (A, B) and 0.04 (all three)
TASKS = [f"t{i}" for i in range(6)]


@pytest.fixture
def tables():
    tasks = pd.DataFrame([{"model": m, "task": t, "kstar": float(k), "ceiling": CEILINGS[m], "flagged": False}
                          for m, ks in COUNTS.items() for t, k in zip(TASKS, ks, strict=True)])
    readings = pd.DataFrame({"model": text_baseline.TEXT_MODEL, "task": TASKS, "s_4": [0.9, 0.1, 0.5, 0.3, 0.7, 0.2],
                             "text_ceiling": [0.99, 0.98, 0.9, 0.95, 0.97, 0.92], "text_flagged": False})
    precision = tasks[["model", "task"]].assign(n_test=200, se=0.001, gap=0.02, imprecise=False)
    log_se = tasks[["model", "task"]].assign(log_se=0.1)
    return tasks, readings, precision, log_se


def _evidence(panel, tasks, readings, precision, log_se):
    test = order.shared_order_test(tasks, panel.models, 200, 0)
    partial = order.partial_agreement(readings, tasks, panel.models, ["s_4", "text_ceiling"], test.common)
    named = [(panel.models[a], panel.models[b]) for a, b in order.cross_lab_pairs(panel.models)]
    pairs = order.pairwise_agreement(tasks, list(COUNTS))
    return test, cross_model.evidence(panel, tasks, pairs, test, order.partial_readings(partial, named), precision,
                                      log_se, 200)


def test_each_statistic_reads_the_panels_models_only(tables):
    two = population.Panel((A, B), "two of three", "Qwen/c (left out here)", "")
    test, found = _evidence(two, *tables)
    assert list(found) == list(cross_model.CLAIMS)
    assert found["spread_ratio_max"].value == pytest.approx(2.0)  # C's 64 against A's 1 on t0 is not in the panel
    assert found["ceilings_across_models"].value == pytest.approx(0.01)
    assert found["pairwise_rho_min"].value == pytest.approx(stats.spearman(COUNTS[A], COUNTS[B]))
    assert found["permutation_p"].value == found["permutation_p_at_05"].value == test.p_value
    assert found["treatments_agree"].value == pytest.approx(0.0)  # no ∞, no flag: the treatments read one task set
    assert found["pairwise_rho_min"].if_paper is not None and found["permutation_p"].if_null is not None
    assert "two of three: google/a, meta-llama/b; left out: Qwen/c" in found["spread_ratio_max"].note
    everyone = population.all_models(list(COUNTS))
    _, found = _evidence(everyone, *tables)
    assert found["spread_ratio_max"].value == pytest.approx(64.0)
    assert found["ceilings_across_models"].value == pytest.approx(0.04)
    assert found["pairwise_rho_min"].value == pytest.approx(min(
        stats.spearman(COUNTS[x], COUNTS[y]) for x, y in ((A, B), (A, C), (B, C))))
    assert found["pairwise_rho_min"].value < 0  # C's order enters


def test_the_partial_reads_the_lowest_defined_reading_over_the_panels_cross_lab_pairs(tables):
    tasks, readings, _, _ = tables
    _, found = _evidence(population.all_models(list(COUNTS)), *tables)
    partial = order.partial_agreement(readings, tasks, list(COUNTS), ["s_4", "text_ceiling"], TASKS)
    by_reading = order.partial_readings(partial, [(A, B), (A, C), (B, C)])
    assert found["partial_rho_min"].value == pytest.approx(by_reading.median_partial_rho.min())
    assert found["partial_rho_min"].note.endswith("2 of 2 text-side readings defined")


def test_a_panel_without_two_models_needs_the_papers_models(tables):
    lonely = population.Panel((A,), "base causal LMs", "meta-llama/b (an encoder, not a causal LM)",
                              "base causal LMs in `models`: 1 (google/a); a cross-model statistic needs two")
    _, found = _evidence(lonely, *tables)
    assert set(found) == set(cross_model.CLAIMS)
    assert all(e.value is None and e.needs_data == lonely.missing and e.note == lonely.note for e in found.values())


def test_on_panel_filters_per_model_and_per_pair_tables(tables):
    tasks = tables[0]
    panel = population.Panel((A, C), "", "", "")
    assert set(cross_model.on_panel(tasks, panel).model) == {A, C}
    pairs = order.pairwise_agreement(tasks, list(COUNTS))
    assert set(map(tuple, cross_model.on_panel(pairs, panel)[["model_a", "model_b"]].to_numpy())) == {(A, C)}
    assert np.isfinite(cross_model.on_panel(pairs, panel).rho).all()
