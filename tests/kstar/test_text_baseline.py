"""lib.kstar.text_baseline: TF-IDF through Algorithm 1 and the prefix score s(k) (paper 002, A.2.3)."""

import numpy as np
import pandas as pd
import pytest

from lib.kstar import measure, text_baseline


def _rows(curve, dense=0.98):
    common = {"model": "tfidf", "task": "t", "decision": "yes", "block": 0, "seed": 0}
    rows = [{**common, "path": "dense", "size": 512, "auroc": dense}]
    return pd.DataFrame(rows + [{**common, "path": "prefix", "size": k, "auroc": a} for k, a in curve.items()])


def test_prefix_scores_first_and_stable_sizes():
    curve = {1: 0.6, 2: 0.97, 4: 0.9, 8: 0.975, 16: 0.98}
    rows = _rows(curve)
    scores = text_baseline.prefix_scores(rows)
    assert scores.s.iloc[0] == pytest.approx((0.6 - 0.5) / 0.48)
    assert scores.s_running_max.is_monotonic_increasing
    both = text_baseline.first_and_stable(scores).iloc[0]
    assert (both.k_first, both.k_stable) == (2, 8)  # s(4) dips below 0.95 after s(2) first reaches it
    task = text_baseline.task_prefix_scores(scores, [2, 3, 64]).iloc[0]
    assert task.s_3 == task.s_2 and task.s_64 == pytest.approx((0.98 - 0.5) / 0.48)
    assert np.isclose(task.smax_3, task.s_2)


def test_tfidf_searches_read_the_raw_text_sparse_and_uncentred():
    pools = measure.pools(["rt_sentiment"], cap=60, seed=0, max_classes=2)
    items = text_baseline.tfidf_items(pools, max_features=300, min_positives=5)
    assert len(items) == 1 and not items[0].centre and items[0].Z_train.shape == (60, 300)
    assert hasattr(items[0].Z_train, "tocsr")  # scipy sparse: standardised without densifying
    rows = measure.run_searches(items)
    assert set(rows.model) == {text_baseline.TEXT_MODEL} and rows.auroc.between(0, 1).all()
