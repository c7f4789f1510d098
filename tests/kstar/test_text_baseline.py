"""lib.kstar.order.text_baseline: TF-IDF through Algorithm 1 and the prefix score s(k) (paper 002, A.2.3)."""

import math

import numpy as np
import pandas as pd
import pytest

from lib import stats
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


def test_the_learning_curve_scores_every_size_on_the_largest_pools_test_split():
    rows = text_baseline.tfidf_learning_curve(tasks=["rt_sentiment"], cap=20, pool_seed=0, max_classes=2,
                                              min_positives=5, max_features=300)
    assert sorted(set(rows.n_train)) == [20 * m for m in text_baseline.CURVE_MULTIPLES]
    assert rows.groupby("n_train").n_test_pos.nunique().eq(1).all() and rows.n_test_pos.nunique() == 1
    curve = text_baseline.learning_curve(rows)
    assert curve.rise.iloc[0] == 0 and list(curve.n_train) == [20, 80, 320]


def _curve(rows):
    return pd.DataFrame(rows, columns=["task", "n_train", "auroc"])


def test_the_starved_text_mechanisms_hold_only_where_more_text_moves_the_statistic_toward_the_paper():
    curve = _curve([("a", 300, 0.66), ("a", 4800, 0.83), ("b", 300, 0.95), ("b", 4800, 0.96),
                    ("c", 300, 0.80), ("c", 4800, 0.90)])
    model = pd.Series({"a": 0.86, "b": 0.98, "c": 0.91})
    gain = float((model - pd.Series({"a": 0.66, "b": 0.95, "c": 0.80})).median())
    text = text_baseline.starved_gain_mechanism(curve, model, gain, 0.026, "text_learning_curve.parquet")
    assert "0.66 → 0.83" in text and "text_learning_curve.parquet" in text and "0.020 instead of 0.110" in text
    assert text_baseline.starved_gain_mechanism(curve, model, 0.026, 0.026, "f.parquet") == ""
    rho = float(stats.spearman(model, pd.Series({"a": 0.66, "b": 0.95, "c": 0.80})))
    assert text_baseline.starved_correlation_mechanism(curve, model, rho - 0.5, 0.95, "f.parquet") != ""
    assert text_baseline.starved_correlation_mechanism(curve, model, rho, 0.95, "f.parquet") == ""
