"""lib.bias_shift.evaluation: pooled and checkpoint-level statistics of ΔB against ΔBiasScore (Sec. 4.1)."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import pearsonr
from sklearn.metrics import roc_auc_score

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


def test_row_statistics_equal_the_library_calls_they_replace():
    """rows_auc, rows_pearson and rows_fit_mae equal roc_auc_score, pearsonr and np.polyfit row by row, ties
    (scores rounded to one decimal) and one-class or constant rows included."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(40, 30)).round(1)
    y = (0.5 * x + rng.normal(size=x.shape)).round(1)
    labels = y > 0.2
    labels[0], labels[1] = True, False
    x[2], y[3] = 1.0, -2.0
    auc = evaluation.rows_auc(labels, x)
    r, mae = evaluation.rows_pearson(x, y), evaluation.rows_fit_mae(x, y)
    for i in range(len(x)):
        one_class = labels[i].all() or not labels[i].any()
        assert np.isnan(auc[i]) if one_class else auc[i] == pytest.approx(roc_auc_score(labels[i], x[i]), abs=1e-12)
        constant = np.ptp(x[i]) == 0 or np.ptp(y[i]) == 0
        assert np.isnan(r[i]) if constant else r[i] == pytest.approx(pearsonr(x[i], y[i])[0], abs=1e-12)
        if np.ptp(x[i]) == 0:
            assert np.isnan(mae[i])
        else:
            slope, intercept = np.polyfit(x[i], y[i], 1)
            assert mae[i] == pytest.approx(np.abs(y[i] - intercept - slope * x[i]).mean(), abs=1e-12)
    shared = evaluation.rows_pearson(x[4], y[:5])  # a 1-d x is shared by every row
    assert shared == pytest.approx([pearsonr(x[4], row)[0] for row in y[:5]], abs=1e-12, nan_ok=True)


def test_permutation_and_bootstrap_distributions_match_a_per_resample_loop():
    """evaluate's vectorised distributions give the p-values, intervals and MAE of one library call per resample."""
    table = pairs(np.random.default_rng(4), n_checkpoints=5, per_checkpoint=False, noise=0.3)
    got = evaluation.evaluate(table, n_bootstrap=200, seed=7, methods=["delta_b"]).iloc[0]
    X, Y = evaluation.paired_matrices(table, "delta_b")
    x, y = X.ravel(), Y.ravel()
    r, auc = pearsonr(x, y)[0], roc_auc_score(y > 0.1, -x)
    perms = evaluation.block_permutations(5, 5040, 7)
    perm_r = [pearsonr(x, Y[p].ravel())[0] for p in perms]
    perm_auc = [roc_auc_score(Y[p].ravel() > 0.1, -x) for p in perms]
    rng = np.random.default_rng(7)
    boot = rng.integers(0, 5, size=(200, 5))
    boot_r = [pearsonr(X[b].ravel(), Y[b].ravel())[0] for b in boot]
    boot_auc = [roc_auc_score(Y[b].ravel() > 0.1, -X[b].ravel()) if 0 < (Y[b] > 0.1).mean() < 1 else np.nan
                for b in boot]
    pair_boot = rng.integers(0, x.size, size=(200, x.size))
    fits = [np.polyfit(x[b], y[b], 1) for b in pair_boot]
    mae = np.mean([np.abs(y[b] - a - s * x[b]).mean() for b, (s, a) in zip(pair_boot, fits, strict=True)])
    assert got.p_checkpoints == pytest.approx(np.mean(np.abs(perm_r) >= abs(r) - 1e-12))
    assert got.p_checkpoints_negative == pytest.approx(np.mean(np.array(perm_r) <= r + 1e-12))
    assert got.auc_p_checkpoints == pytest.approx(np.mean(np.array(perm_auc) >= auc - 1e-12))
    assert (got.r_low, got.r_high) == pytest.approx(tuple(np.nanpercentile(boot_r, [2.5, 97.5])), abs=1e-12)
    assert (got.auc_low, got.auc_high) == pytest.approx(tuple(np.nanpercentile(boot_auc, [2.5, 97.5])), abs=1e-12)
    assert got.mae == pytest.approx(mae, abs=1e-12)


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
    assert evaluation.first_scorer_with_both_classes(pairs, among=["forced", "vader"]) == "vader"
    assert evaluation.first_scorer_with_both_classes(pairs, within=["family"], among=["forced", "sampled"]) is None
    assert evaluation.first_scorer_with_both_classes(pairs, label_threshold=1.0) is None  # none qualifies
    with pytest.raises(ValueError, match="no scorer"):
        evaluation.first_scorer_with_both_classes(pairs.iloc[:0])


def test_label_population_counts_the_classes_and_splits_the_spread():
    y = np.array([[0.0, 0.2, 0.4], [0.1, 0.1, 0.1], [0.3, 0.3, 0.3]])
    frame = pd.DataFrame([{"checkpoint": f"c{c}", "group": f"g{g}", "delta_bias_score": y[c, g]}
                          for c in range(3) for g in range(3)])
    found = evaluation.label_population(frame, 0.1)
    assert (found["n_pairs"], found["n_checkpoints"], found["n_increased"]) == (9, 3, 5)
    assert found["checkpoints_with_increase"] == 2 and found["n_values"] == 5 and found["largest"] == 0.4
    assert found["sd_within"] == pytest.approx(np.std([0.0, 0.2, 0.4]) / 3)
    assert found["sd_between"] == pytest.approx(np.std([0.2, 0.1, 0.3]))


def test_bootstrap_aucs_resample_whole_checkpoints_alike_for_every_score():
    rng = np.random.default_rng(4)
    labels = rng.random((6, 10)) < 0.4
    a = labels + rng.normal(0, 0.5, labels.shape)
    draws = evaluation.bootstrap_aucs({"a": a, "b": 2 * a - 7, "c": -a}, labels, n_bootstrap=200, seed=1)
    assert np.allclose(draws["a"], draws["b"], equal_nan=True)  # a monotone map: the same AUC on every resample
    finite = np.isfinite(draws["a"])
    assert np.allclose(draws["a"][finite] + draws["c"][finite], 1)  # paired: the same resamples for every score
    boot = np.random.default_rng(1).integers(0, 6, size=(200, 6))  # the resamples, drawn as bootstrap_aucs draws them
    for drawn, auc in zip(boot, draws["a"], strict=True):
        flat = labels[drawn].ravel()
        assert np.isnan(auc) if flat.all() or not flat.any() else auc == pytest.approx(
            roc_auc_score(flat, a[drawn].ravel()))


def test_auc_difference_is_the_difference_of_the_evaluated_aucs_with_a_bootstrap_se():
    table = pairs(np.random.default_rng(2), n_checkpoints=6, per_checkpoint=False, noise=0.3)
    table["seat_delta_b"] = table.delta_b + np.random.default_rng(3).normal(0, 0.5, len(table))
    found = evaluation.auc_difference(table, "delta_b", "seat_delta_b", n_bootstrap=300)
    methods = evaluation.evaluate(table, n_bootstrap=10).set_index("method")
    assert found["difference"] == pytest.approx(methods.roc_auc["RR"] - methods.roc_auc["SEAT"])
    assert 0 < found["se"] < 0.3 and found["n_resamples"] == 300


def test_checkpoint_p_draws_equal_the_permutation_test_of_evaluate():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(5, 6)) + rng.normal(size=(5, 1))
    draws = evaluation.checkpoint_p_draws(x, -0.6, n_draws=5, n_permutations=120, seed=7)
    simulated = np.random.default_rng(7)
    z = (x - x.mean()) / x.std()
    ys = -0.6 * z + np.sqrt(1 - 0.36) * simulated.standard_normal((5, *x.shape))
    for y, row in zip(ys, draws.itertuples(), strict=True):
        frame = pd.DataFrame([{"checkpoint": f"c{c}", "group": f"g{g}", "delta_b": x[c, g], "delta_bias_score": y[c, g]}
                              for c in range(5) for g in range(6)])
        evaluated = evaluation.evaluate(frame, n_bootstrap=2, n_permutations=120, methods=["delta_b"]).iloc[0]
        assert row.r == pytest.approx(evaluated.pearson_r)
        assert row.p_negative == pytest.approx(evaluated.p_checkpoints_negative)
        assert row.p_checkpoints == pytest.approx(evaluated.p_checkpoints)


def test_checkpoint_p_draws_hold_their_level_under_the_null_and_find_the_papers_r():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(7, 24)) + rng.normal(size=(7, 1))
    null = evaluation.checkpoint_p_draws(x, 0.0, n_draws=2000)
    assert abs((null.p_negative < 0.025).mean() - 0.025) < 0.015  # an exact permutation test keeps its level
    assert (evaluation.checkpoint_p_draws(x, -0.75).p_negative < 0.025).mean() > 0.95
    few = evaluation.checkpoint_p_draws(x[:3], -0.99)  # 3! = 6 orders: p is never below 1/6
    assert few.p_negative.min() >= 1 / 6
    with pytest.raises(ValueError, match="r=2"):
        evaluation.checkpoint_p_draws(x, 2)


def test_significant_share_draws_average_the_chances():
    draws = evaluation.significant_share_draws([0.9, 0.5, 0.1], n=20000)
    assert set(np.round(draws * 3)) <= {0, 1, 2, 3} and draws.mean() == pytest.approx(0.5, abs=0.01)
    assert (evaluation.significant_share_draws([1.0], n=10) == 1).all()
    with pytest.raises(ValueError, match="probabilities"):
        evaluation.significant_share_draws([1.5])
