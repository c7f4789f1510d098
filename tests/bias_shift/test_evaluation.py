"""lib.bias_shift.evaluation: pooled and checkpoint-level statistics of ΔB against ΔBiasScore (Sec. 4.1)."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import pearsonr

from lib.bias_shift import evaluation, sentences


def pairs(rng, n_checkpoints=5, groups=sentences.GROUPS[:8], per_checkpoint=True, noise=0.02):
    """ΔBiasScore that varies by checkpoint only (or per pair), and ΔB tracking it with noise."""
    rows = []
    levels = rng.uniform(-0.3, 0.5, n_checkpoints)
    for c in range(n_checkpoints):
        for g in groups:
            y = levels[c] if per_checkpoint else rng.uniform(-0.3, 0.5)
            rows.append({"checkpoint": f"c{c}", "group": g, "topic": sentences.topic_of(g), "delta_bias_score": y,
                         "delta_b": -y + rng.normal(0, noise), "cka_drift": abs(y) + rng.normal(0, 0.01)})
    return pd.DataFrame(rows)


def test_pooled_statistics_agree_with_scipy_and_direction():
    table = pairs(np.random.default_rng(0), n_checkpoints=6)
    result = evaluation.evaluate(table, n_bootstrap=50).set_index("method")
    r, p = pearsonr(table.delta_b, table.delta_bias_score)
    assert result.loc["RR", "pearson_r"] == pytest.approx(r) and result.loc["RR", "p_pooled"] == pytest.approx(p)
    assert result.loc["RR", "roc_auc"] > 0.95 and result.loc["RR", "n_permutations"] == math.factorial(6)
    assert result.loc["RR", "r_low"] <= r <= result.loc["RR", "r_high"]
    flipped = evaluation.evaluate(table.assign(cka_drift=-table.cka_drift), n_bootstrap=20).set_index("method")
    assert flipped.loc["CKA drift", "roc_auc"] == pytest.approx(1 - result.loc["CKA drift", "roc_auc"])  # no max()


def test_checkpoint_permutations_are_honest_about_few_checkpoints():
    """Four checkpoints × 8 groups: the pooled p is tiny, but only 4! block orders exist, so p >= 1/24."""
    table = pairs(np.random.default_rng(1), n_checkpoints=4)
    result = evaluation.evaluate(table, n_bootstrap=20, methods=["delta_b"]).iloc[0]
    assert result.p_pooled < 1e-6
    assert result.p_checkpoints >= 1 / 24 and result.n_permutations == 24
    assert result.checkpoint_r < -0.9 and result.n_checkpoints == 4


def test_block_permutations_enumerate_or_sample():
    assert len(evaluation.block_permutations(4, 100)) == 24
    sampled = evaluation.block_permutations(9, 50, seed=0)
    assert sampled.shape == (50, 9) and (sampled[0] == np.arange(9)).all()
    with pytest.raises(ValueError, match="n_blocks=1"):
        evaluation.block_permutations(1, 10)


def test_topic_aggregation_and_bad_input():
    table = pairs(np.random.default_rng(2), groups=["Women", "Men", "Muslims"])
    topics = evaluation.aggregate(table, "topic")
    assert sorted(topics.group.unique()) == ["Gender", "Religion"] and len(topics) == 5 * 2
    women_men = table[table.group.isin(["Women", "Men"])].groupby("checkpoint").delta_b.mean()
    gender = topics[topics.group == "Gender"].set_index("checkpoint").delta_b
    assert gender.to_dict() == pytest.approx(women_men.to_dict())
    both = evaluation.evaluate_all(table.assign(scorer="x"), units=("group", "topic"), n_bootstrap=10)
    assert set(both.unit) == {"group", "topic"} and both.columns[:2].tolist() == ["unit", "scorer"]
    with pytest.raises(ValueError, match="unit='country'"):
        evaluation.aggregate(table, "country")
    with pytest.raises(ValueError, match="lacks the columns"):
        evaluation.evaluate(table, methods=["seat_delta_b"])
    with pytest.raises(ValueError, match="balanced"):
        evaluation.evaluate(table.iloc[1:], methods=["delta_b"])


def test_each_setting_is_evaluated_apart():
    rng = np.random.default_rng(4)
    lora, full = pairs(rng, n_checkpoints=4), pairs(rng, n_checkpoints=4, per_checkpoint=False, noise=0.3)
    both = pd.concat([lora.assign(family="f", regime="lora"), full.assign(family="f", regime="full")])
    table = evaluation.evaluate_all(both.assign(scorer="x"), units=("group", "topic"), n_bootstrap=10,
                                    n_permutations=24)
    assert table.columns[:4].tolist() == ["unit", "family", "regime", "scorer"] and len(table) == 2 * 2 * 2
    for regime, alone in (("lora", lora), ("full", full)):
        got = table[(table.unit == "group") & (table.regime == regime)].drop(columns=["unit", "family", "regime",
                                                                                      "scorer"])
        pd.testing.assert_frame_equal(got.reset_index(drop=True),
                                      evaluation.evaluate(alone, n_bootstrap=10, n_permutations=24))
    topic = evaluation.aggregate(both, "topic")
    assert len(topic) == 2 * 4 * topic.group.nunique() and set(topic.regime) == {"lora", "full"}


def test_the_first_scorer_with_both_classes_in_every_setting():
    pairs = pd.DataFrame({
        "scorer": ["forced"] * 4 + ["sampled"] * 4 + ["vader"] * 4,
        "family": ["a", "a", "b", "b"] * 3,
        "delta_bias_score": [0.0, 0.05, 0.0, 0.0, 0.2, 0.0, 0.0, 0.0, 0.2, 0.0, 0.3, 0.0],
    })
    assert evaluation.first_scorer_with_both_classes(pairs) == "sampled"  # forced never crosses 0.1
    assert evaluation.first_scorer_with_both_classes(pairs, within=["family"]) == "vader"  # sampled: b one class
    assert evaluation.first_scorer_with_both_classes(pairs, label_threshold=1.0) == "forced"  # none: the first
    with pytest.raises(ValueError, match="no scorer"):
        evaluation.first_scorer_with_both_classes(pairs.iloc[:0])
