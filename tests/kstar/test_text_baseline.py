"""lib.kstar.order.text_baseline: TF-IDF through Algorithm 1 and the prefix score s(k) (paper 002, A.2.3)."""

import math

import numpy as np
import pandas as pd
import pytest

from lib.kstar import measure
from lib.kstar.order import text_baseline


def _rows(curve, dense=0.98):
    common = {"model": "tfidf", "task": "t", "decision": "yes", "block": 0, "seed": 0}
    rows = [{**common, "path": "dense", "size": 512, "auroc": dense}]
    return pd.DataFrame(rows + [{**common, "path": "prefix", "size": k, "auroc": a} for k, a in curve.items()])


def test_prefix_scores_first_and_stable_sizes():
    curve = {1: 0.6, 2: 0.97, 4: 0.9, 8: 0.975, 16: 0.98}
    rows = _rows(curve)
    scores = text_baseline.prefix_scores(rows)
    assert scores.s_raw.iloc[0] == pytest.approx((0.6 - 0.5) / 0.48)
    both = text_baseline.first_and_stable(scores).iloc[0]
    assert (both.k_first, both.k_stable) == (2, 8)  # the raw s(4) dips below 0.95 after s(2) first reaches it
    task = text_baseline.task_prefix_scores(scores, [2, 3, 4, 64]).iloc[0]
    assert task.s_3 == task.s_2 and task.s_64 == pytest.approx((0.98 - 0.5) / 0.48)
    assert task.s_4 == task.s_2 and task.s_raw_4 == pytest.approx((0.9 - 0.5) / 0.48)  # Eq. 30 keeps s(2)


def test_the_prefix_score_is_the_running_maximum_of_eq_30():
    falling = text_baseline.prefix_scores(_rows({1: 0.6, 2: 0.97, 4: 0.9, 8: 0.975, 16: 0.7}))
    assert falling.s.is_monotonic_increasing and (falling.s >= falling.s_raw).all()
    assert falling.s.to_numpy() == pytest.approx(np.maximum.accumulate(falling.s_raw.to_numpy()))
    rising = text_baseline.prefix_scores(_rows({1: 0.6, 2: 0.7, 4: 0.9, 8: 0.95, 16: 0.98}))
    assert rising.s.to_numpy() == pytest.approx(rising.s_raw.to_numpy())  # already non-decreasing: unchanged
    two = pd.concat([_rows({1: 0.9, 2: 0.6}), _rows({1: 0.6, 2: 0.9}).assign(decision="no")], ignore_index=True)
    scores = text_baseline.prefix_scores(two).set_index(["decision", "size"]).s
    assert scores.loc[("no", 1)] == pytest.approx(0.1 / 0.48)  # each search has its own running maximum


def test_text_ceiling_is_the_models_search_and_gates_unreadable_tasks():
    rows = pd.DataFrame({"model": "tfidf", "task": ["t"] * 6 + ["u"] * 2, "decision": "yes", "block": 0,
                         "seed": [1, 2, 3, 1, 2, 3, 1, 2], "path": "dense", "n_test_pos": 10, "n_test_neg": 10,
                         "auroc": [0.95, 0.97, 0.96, 0.5, 0.5, 0.5, 0.51, 0.507]})
    rows.loc[3:5, "decision"] = "no"
    ceilings = text_baseline.text_ceilings(rows[rows.decision.eq("yes") | rows.task.eq("u")]).set_index("task")
    assert ceilings.loc["t", "text_ceiling"] == pytest.approx(0.97)  # the largest over seeds, as the model's
    assert not ceilings.loc["t", "text_flagged"] and ceilings.loc["u", "text_flagged"]
    assert not text_baseline.near_chance(0.90, 0.05) and text_baseline.near_chance(0.507, 0.05)
    assert text_baseline.near_chance(0.6, 0.06) and not text_baseline.near_chance(0.6, 0.04)  # 0.1 against 1.96·s.e.


def test_tfidf_ceiling_searches_fit_dense_probes_on_subsampled_seeds():
    pools = measure.pools(["rt_sentiment"], cap=60, seed=0, max_classes=2)
    items = text_baseline.tfidf_ceiling_items(pools, max_features=300, min_positives=5, seeds=[1, 2], subsample=0.85)
    assert [item.seed for item in items] == [1, 2] and all(item.dense_only and not item.centre for item in items)
    assert items[0].Z_train.shape[0] < 60
    rows = measure.run_searches(items)
    assert set(rows.path) == {"dense"} and len(text_baseline.text_ceilings(rows)) == 1


def test_tfidf_searches_read_the_raw_text_sparse_and_uncentred():
    pools = measure.pools(["rt_sentiment"], cap=60, seed=0, max_classes=2)
    items = text_baseline.tfidf_items(pools, max_features=300, min_positives=5)
    assert len(items) == 1 and not items[0].centre and items[0].Z_train.shape == (60, 300)
    assert hasattr(items[0].Z_train, "tocsr")  # scipy sparse: standardised without densifying
    rows = measure.run_searches(items)
    assert set(rows.model) == {text_baseline.TEXT_MODEL} and rows.auroc.between(0, 1).all()


def test_first_and_stable_per_task_is_the_median_over_decisions_then_seeds():
    searches = pd.DataFrame({"task": ["t"] * 6 + ["u"] * 2, "decision": ["a", "b", "c"] * 2 + ["a", "a"],
                             "seed": [0, 0, 0, 1, 1, 1, 0, 1],
                             "k_first": [2.0, 4, 8, 2, 2, 4, 16, 16], "k_stable": [2.0, 8, 8, 2, 4, 4, 16, math.inf]})
    task = text_baseline.task_first_and_stable(searches).set_index("task")
    # t: seed 0 first 4 / stable 8, seed 1 first 2 / stable 4 → medians 3 and 6; u: 16 against median(16, ∞) = ∞
    assert (task.loc["t", "k_first"], task.loc["t", "k_stable"]) == (3.0, 6.0) and task.loc["t", "differs"]
    assert task.loc["u", "k_stable"] == math.inf and task.loc["u", "differs"]
    same = text_baseline.task_first_and_stable(searches.assign(k_stable=searches.k_first).drop(columns="seed"))
    assert not same.differs.any() and len(same) == 2


CURVE_ARGS = {"tasks": ["rt_sentiment"], "cap": 20, "pool_seed": 0, "max_classes": 2, "min_positives": 5}


def test_the_learning_curve_scores_every_size_on_the_largest_pools_test_split():
    rows = text_baseline.tfidf_learning_curve(**CURVE_ARGS, max_features=300)
    assert sorted(set(rows.n_train)) == [20 * m for m in text_baseline.CURVE_MULTIPLES]
    assert rows.groupby("n_train").n_test_pos.nunique().eq(1).all() and rows.n_test_pos.nunique() == 1
    curve = text_baseline.learning_curve(rows)
    assert curve.rise.iloc[0] == 0 and list(curve.n_train) == [20, 80, 320]
    assert set(curve.model) == {text_baseline.TEXT_MODEL} and curve.n_test.nunique() == 1


def test_the_model_curve_fits_the_text_curves_subsets_on_its_test_split(sandbox):
    """A real (tiny) model at the block given, on the same training sizes and test texts as the TF-IDF side."""
    text = text_baseline.tfidf_learning_curve(**CURVE_ARGS, max_features=300)
    model = text_baseline.model_learning_curve("tiny-bert", {"rt_sentiment": 1}, **CURVE_ARGS, max_tokens=16)
    assert set(model.model) == {"tiny-bert"} and set(model.path) == {"dense"} and model.auroc.between(0, 1).all()
    keys = ["task", "decision", "n_train"]
    both = model.merge(text, on=keys, suffixes=("", "_text"), validate="one_to_one")
    assert len(both) == len(model) == len(text)  # every size of each side on the other
    assert (both.n_test_pos == both.n_test_pos_text).all() and (both.n_test_neg == both.n_test_neg_text).all()
    assert text_baseline.model_learning_curve("tiny-bert", {}, **CURVE_ARGS, max_tokens=16).empty  # no block: no fit
    curve = text_baseline.learning_curve(pd.concat([model, text], ignore_index=True))
    assert set(curve.model) == {"tiny-bert", text_baseline.TEXT_MODEL} and curve.groupby("model").size().eq(3).all()


def _curve(rows, model="m"):
    """A two-sided :func:`text_baseline.learning_curve`: (task, n_train, model AUROC, text AUROC) per row."""
    frame = pd.DataFrame(rows, columns=["task", "n_train", model, text_baseline.TEXT_MODEL]).assign(n_test=100)
    return frame.melt(["task", "n_train", "n_test"], var_name="model", value_name="auroc")


def test_the_gain_at_two_caps_is_model_minus_text_at_each_tasks_ends():
    # c's pool holds only the cap: its one size is both ends
    gains = text_baseline.gain_by_cap(_curve([("a", 300, 0.80, 0.66), ("a", 1200, 0.84, 0.75), ("a", 4800, 0.86, 0.83),
                                              ("b", 300, 0.98, 0.95), ("b", 456, 0.98, 0.96),
                                              ("c", 297, 0.90, 0.80)]), "m")
    tasks = gains[gains.task != text_baseline.MEDIAN_ROW].set_index(["task", "n_train"])
    assert tasks.gain.to_numpy() == pytest.approx([0.14, 0.09, 0.03, 0.03, 0.02, 0.10])
    assert list(tasks.at_cap) == [True, False, False, True, False, True]
    assert list(tasks.at_largest) == [False, False, True, False, True, True]
    medians = gains[gains.task == text_baseline.MEDIAN_ROW]
    assert list(medians.at_cap) == [True, False] and list(medians.at_largest) == [False, True]
    assert medians.gain.to_numpy() == pytest.approx([0.10, 0.03])  # median of (0.14, 0.03, 0.10), of (0.03, 0.02, 0.10)
    assert medians.n_train.to_numpy() == pytest.approx([300, 456])  # of (300, 300, 297), of (4800, 456, 297)
    assert medians.text_auroc.iloc[0] == pytest.approx(0.80) and medians.model_auroc.iloc[1] == pytest.approx(0.90)


def test_the_starved_mechanisms_hold_only_where_both_sides_raised_move_the_statistic_toward_the_paper():
    rows = [("a", 300, 0.80, 0.66), ("a", 4800, 0.86, 0.83), ("b", 300, 0.98, 0.95), ("b", 4800, 0.98, 0.96),
            ("c", 300, 0.90, 0.80), ("c", 4800, 0.92, 0.90)]
    raised = text_baseline.gain_by_cap(_curve(rows), "m")  # median gain 0.10 at the cap, 0.02 at 4800
    text = text_baseline.starved_gain_mechanism(raised, 0.026, "ceiling_gain_by_cap.parquet", "a note")
    assert "is 0.100, with both raised to 4800–4800" in text and "it is 0.020, closer" in text
    assert "`ceiling_gain_by_cap.parquet`" in text and text.endswith("; a note")
    # the model gains as much as the text from more data, or more: with both raised the gain moves away from 0.026
    level = text_baseline.gain_by_cap(_curve([("a", 300, 0.80, 0.66), ("a", 4800, 0.97, 0.83),
                                              ("b", 300, 0.98, 0.95), ("b", 4800, 0.99, 0.96),
                                              ("c", 300, 0.90, 0.80), ("c", 4800, 1.00, 0.88)]), "m")
    assert level[level.task == text_baseline.MEDIAN_ROW].gain.to_numpy() == pytest.approx([0.10, 0.12])
    assert text_baseline.starved_gain_mechanism(level, 0.026, "f.parquet") == ""
    assert text_baseline.starved_gain_mechanism(raised, 0.20, "f.parquet") == ""  # the cap's gain is the closer
    # the correlation: model and text agree in order at 4800 but not at the cap
    reorder = [("a", 300, 0.80, 0.95), ("a", 4800, 0.86, 0.83), ("b", 300, 0.98, 0.66), ("b", 4800, 0.98, 0.96),
               ("c", 300, 0.90, 0.80), ("c", 4800, 0.92, 0.90)]
    ranks = text_baseline.gain_by_cap(_curve(reorder), "m")
    text = text_baseline.starved_correlation_mechanism(ranks, 0.95, "ceiling_gain_by_cap.parquet")
    assert "-1.000 at the cap and 1.000 at the largest size" in text and "ceiling_gain_by_cap.parquet" in text
    assert text_baseline.starved_correlation_mechanism(ranks, -0.95, "f.parquet") == ""
    assert text_baseline.starved_correlation_mechanism(ranks[ranks.task != "c"], 0.95, "f.parquet") == ""


def test_the_precision_note_names_only_tasks_whose_curve_reads_the_caps_test_split():
    gains = pd.DataFrame({"task": ["debate_moderator", "debate_moderator", "rt_sentiment", "rt_sentiment",
                                   text_baseline.MEDIAN_ROW], "n_test": [104.0, 104.0, 2154.0, 2154.0, 1129.0]})
    precision = pd.DataFrame({"model": "minilm", "task": ["debate_moderator", "rt_sentiment"], "n_test": [104.0, 300.0],
                              "se": [0.028, 0.025], "gap": [0.021, 0.015], "imprecise": [True, True]})
    note = text_baseline.fixed_split_note(gains, precision)
    assert "debate_moderator's test split of 104 texts" in note and "rt_sentiment" not in note
    assert text_baseline.fixed_split_note(gains, precision.assign(imprecise=False)) == ""
