"""lib.bias_shift.ablations: the one-at-a-time grid of Sec. 4.5, nested anchor subsets, AUCs and seed summaries."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

from lib.bias_shift import ablations, deltab, sentences
from lib.models import extraction

GROUPS = ["Women", "Men", "Old people"]


def text_vector(text: str, d: int = 12) -> np.ndarray:
    """A fixed pseudo-embedding per sentence (input data for the bookkeeping under test)."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    return np.random.default_rng(seed).normal(size=d)


def embed(blocks: dict[str, list[str]], transform=lambda x: x) -> dict[str, dict[str, np.ndarray]]:
    return {pooling: {name: transform(np.stack([text_vector(t + pooling) for t in texts]))
                      for name, texts in blocks.items()} for pooling in extraction.POOLINGS}


def full_grid() -> pd.DataFrame:
    return ablations.one_at_a_time(sentences.ANCHOR_SOURCES, [50, 100, 250, 500, 1000],
                                          sentences.ATTRIBUTE_VARIANTS, sentences.TARGET_VARIANTS,
                                          extraction.POOLINGS)


def test_the_grid_varies_one_component_around_the_base():
    grid = full_grid()
    assert grid.groupby("axis", sort=False).size().to_dict() == {"anchors": 15, "attributes": 6, "targets": 6,
                                                                "pooling": 3}
    others = grid[grid.axis != "anchors"]
    changed = (others[["anchor_source", "anchor_size", "attribute_variant", "target_variant", "pooling"]]
               != ["neutral", 1000, "base", "base", "mean"]).sum(axis=1)
    assert changed.max() == 1 and (changed == 0).sum() == 3  # the base appears once on each of those axes
    small = ablations.one_at_a_time(["words"], [100, 50], ["base"], ["passive"], ["last"])
    assert small[small.axis == "pooling"].anchor_size.item() == 100 and small.anchor_source.tolist()[-1] == "neutral"


@pytest.mark.parametrize(("kw", "match"), [
    ({"anchor_sources": ["tulu"]}, "anchor_source='tulu'"),
    ({"anchor_sizes": [10]}, "anchor_size=10"),
    ({"attribute_variants": ["base", "base"]}, "attribute_variants=.*distinct"),
    ({"target_variants": []}, "target_variants=.*non-empty"),
    ({"poolings": ["median"]}, "pooling='median'"),
])
def test_bad_settings_are_named(kw, match):
    args = {"anchor_sources": ["neutral"], "anchor_sizes": [50], "attribute_variants": ["base"],
            "target_variants": ["base"], "poolings": ["mean"]} | kw
    with pytest.raises(ValueError, match=match):
        ablations.one_at_a_time(**args)


def test_blocks_hold_each_sentence_set_once_at_the_largest_anchor_size():
    grid = ablations.one_at_a_time(["neutral", "words"], [50, 200], ["base", "subject_v1"], ["passive"],
                                          ["mean", "max"])
    blocks = ablations.blocks(grid, GROUPS, seed=3)
    assert sorted(blocks) == ["anchors:neutral", "anchors:words", "attributes:base", "attributes:subject_v1",
                              "controls:base", "controls:passive", "targets:base", "targets:passive"]
    assert blocks["controls:passive"] == sentences.control_sentences("passive") and len(blocks["controls:base"]) == 150
    assert blocks["anchors:words"] == sentences.anchor_sentences("words", 200, seed=3)
    assert len(blocks["attributes:subject_v1"]) == 200 and len(blocks["targets:passive"]) == 50 * len(GROUPS)
    assert blocks["targets:passive"][50] == sentences.target_sentences("passive")["Men"][0]


def test_smaller_anchor_sets_are_rows_of_the_largest():
    grid = ablations.one_at_a_time(["instructions"], [50, 300], ["base"], ["base"], ["mean"])
    blocks = ablations.blocks(grid, GROUPS, seed=1)
    space = ablations.setting_space(embed(blocks), ablations.Setting("instructions", 50), GROUPS,
                                           largest=300, seed=1)
    expected = np.stack([text_vector(t + "mean") for t in sentences.anchor_sentences("instructions", 50, seed=1)])
    np.testing.assert_array_equal(space["anchors"], expected)
    assert space["positive"].shape == (100, 12) and set(space["targets"]) == set(GROUPS)


def test_a_rotated_copy_shows_no_rr_shift_and_a_changed_model_does():
    grid = ablations.one_at_a_time(["neutral"], [50], ["base"], ["base", "passive"], ["mean", "last"])
    blocks = ablations.blocks(grid, GROUPS)
    rotation = np.linalg.qr(np.random.default_rng(0).normal(size=(12, 12)))[0]
    reference = embed(blocks)
    noise = np.random.default_rng(1)
    audited = {"rotated": embed(blocks, lambda x: 3 * x @ rotation),
               "changed": embed(blocks, lambda x: x + noise.normal(scale=0.5, size=x.shape))}
    shifts = ablations.grid_shifts(reference, audited, grid, GROUPS)
    assert len(shifts) == 3 * 2 * len(GROUPS)  # distinct settings × checkpoints × groups
    rotated = shifts[shifts.checkpoint == "rotated"]
    np.testing.assert_allclose(rotated.delta_b, 0, atol=1e-9)  # RR is rotation invariant (Sec. 3.3)
    np.testing.assert_allclose(rotated.seat_delta_b, 0, atol=1e-9)  # so is cosine similarity
    np.testing.assert_allclose(rotated[["control_delta_b", "group_shift"]], 0, atol=1e-9)
    changed = shifts[shifts.checkpoint == "changed"]
    np.testing.assert_allclose(changed.group_shift, changed.delta_b - changed.control_delta_b)
    assert (shifts[shifts.checkpoint == "changed"].delta_b.abs() > 1e-6).all()
    one = shifts[(shifts.checkpoint == "rotated") & (shifts.target_variant == "passive")].iloc[0]
    ref_space = ablations.setting_space(reference, ablations.Setting(anchor_size=50,
                                               target_variant="passive"), GROUPS, largest=50)
    assert one.delta_b == pytest.approx(deltab.rr_delta_b(ref_space, ref_space)[one.group], abs=1e-9)


def test_auc_table_scores_each_setting_against_the_labels():
    grid = ablations.one_at_a_time(["neutral"], [50], ["base"], ["base"], ["mean", "max"])
    rng = np.random.default_rng(0)
    scores = pd.DataFrame({"checkpoint": np.repeat(["a", "b"], 3), "group": GROUPS * 2, "scorer": "dt_forced",
                           "delta_bias_score": [0.0, 0.3, 0.5, 0.2, 0.05, -0.1]})
    frames = []
    for pooling, sign in (("mean", -1.0), ("max", 1.0)):  # mean tracks the labels, max runs against them
        shift = sign * scores.delta_bias_score + rng.normal(scale=1e-3, size=6)
        frames.append(scores[["checkpoint", "group"]].assign(
            delta_b=shift, group_shift=shift, seat_delta_b=0.0, anchor_source="neutral", anchor_size=50,
            attribute_variant="base",
            target_variant="base", pooling=pooling))
    inverted = scores.assign(scorer="inverted", delta_bias_score=0.4 - scores.delta_bias_score)
    table = ablations.auc_table(grid, pd.concat(frames), pd.concat([scores, inverted]), label_threshold=0.1)
    assert table[table.scorer == "inverted"].set_index(["method", "value"]).roc_auc["RR", "mean"] == 0.0
    table = table[table.scorer == "dt_forced"]
    rr = table[table.method == "RR"].set_index(["axis", "value"]).roc_auc
    assert rr["pooling", "mean"] == 1.0 and rr["pooling", "max"] == 0.0 and rr["anchors", "neutral 50"] == 1.0
    assert table[table.method == "SEAT"].roc_auc.eq(0.5).all()  # a constant score cannot rank
    assert table.n_increased.eq(3).all() and table.n_pairs.eq(6).all()


def test_seed_summary_reads_both_kinds_of_spread():
    frame = pd.DataFrame({"seed": [0, 0, 1, 1, 2, 2] * 2, "split": ["unharmful"] * 6 + ["harmful"] * 6,
                          "group": ["Women", "Men"] * 6,
                          "delta_b": [1.0, 3.0, 1.0, 3.0, 1.0, 3.0, -1.0, 1.0, -2.0, 2.0, -3.0, 3.0]})
    summary = ablations.seed_summary(frame).set_index("split")
    assert summary.mean_delta_b["unharmful"] == 2.0 and summary.sd_of_mean["unharmful"] == 0.0
    assert summary.mean_group_sd["unharmful"] == 0.0
    assert summary.sd_of_mean["harmful"] == 0.0 and summary.mean_group_sd["harmful"] == pytest.approx(1.0)
    assert summary.n_seeds.eq(3).all()


def test_spread_reproduces_the_papers_tables_5_and_6():
    table_5a = [0.892, 0.846, 0.840, 0.902, 0.882, 0.818]
    table_5b = [0.892, 0.912, 0.914, 0.898, 0.894, 0.900]
    table_6_rr, table_6_seat = [0.964, 0.882, 0.882], [0.778, 0.791, 0.760]
    for values, mean, sd in ((table_5a, 0.863, 0.030), (table_5b, 0.902, 0.008), (table_6_rr, 0.909, 0.039),
                             (table_6_seat, 0.776, 0.013)):
        got = ablations.spread(values)
        assert round(got["mean"], 3) == mean and round(got["sd"], 3) == sd
    assert ablations.spread(table_5a)["min"] == 0.818 and ablations.spread(table_5a)["max"] == 0.902


def test_variant_table_lists_values_then_their_spread():
    auc = pd.DataFrame({"axis": "pooling", "value": ["mean", "mean", "max", "max"], "method": ["RR", "SEAT"] * 2,
                        "roc_auc": [0.9, 0.7, 0.8, 0.6]})
    table = ablations.variant_table(auc, "pooling", methods=("RR", "SEAT"))
    assert table.index.tolist() == ["mean", "max", "across pooling: mean", "across pooling: sd", "across pooling: min",
                                    "across pooling: max"] and table.index.name == "pooling"
    assert table.RR.tolist() == pytest.approx([0.9, 0.8, 0.85, 0.05, 0.8, 0.9])


def test_claim_statistics_read_the_papers_tables_5_and_6_and_work_on_draws():
    grid = ablations.one_at_a_time(["neutral", "words"], [100, 1000], ["base", "subject_v1"], ["base", "passive"],
                                   ["mean", "max", "last"])
    aucs = {(r.axis, r.value, m): 0.5 for r in grid.itertuples() for m in ablations.ABLATION_METHODS.values()}
    aucs |= {("anchors", "neutral 1000", "RR"): 0.892, ("anchors", "words 1000", "RR"): 0.85,
             ("anchors", "words 100", "RR"): 0.99,  # not the largest size: never read
             ("attributes", "base", "RR"): 0.892, ("attributes", "subject_v1", "RR"): 0.846,
             ("pooling", "mean", "RR"): 0.964, ("pooling", "max", "RR"): 0.882, ("pooling", "last", "RR"): 0.882,
             ("pooling", "mean", "SEAT"): 0.778, ("pooling", "max", "SEAT"): 0.791, ("pooling", "last", "SEAT"): 0.760}
    found = ablations.claim_statistics(aucs, grid)
    assert found["neutral_best"] == pytest.approx(0.042)
    assert found["attributes_mean"] == pytest.approx(0.869) and found["attributes_sd"] == pytest.approx(0.023)
    assert found["targets_sd"] == 0.0 and found["rr_minus_seat_min"] == pytest.approx(0.091)
    assert found["mean_pooling_gap"] == pytest.approx(0.082)
    draws = ablations.claim_statistics({k: np.full(4, v) for k, v in aucs.items()}, grid)
    assert all(np.allclose(draws[k], v) for k, v in found.items())
    alone = ablations.one_at_a_time(["neutral"], [100], ["base"], ["base"], ["mean"])
    single = ablations.claim_statistics({(r.axis, r.value, m): 0.7 for r in alone.itertuples()
                                         for m in ablations.ABLATION_METHODS.values()}, alone)
    assert np.isnan(single["neutral_best"]) and np.isnan(single["mean_pooling_gap"])


def synthetic_grid_shifts(grid: pd.DataFrame, noise: float, seed: int = 0):
    """Shifts of every grid setting tracking one label (with ``noise``), and the labels."""
    rng = np.random.default_rng(seed)
    checkpoints = [f"c{i}" for i in range(6)]
    groups = sentences.GROUPS[:10]
    scores = pd.DataFrame([{"checkpoint": c, "group": g, "delta_bias_score": rng.uniform(-0.2, 0.4)}
                           for c in checkpoints for g in groups])
    fields = ["anchor_source", "anchor_size", "attribute_variant", "target_variant", "pooling"]
    frames = []
    for setting in grid[fields].drop_duplicates().itertuples(index=False):
        shift = -scores.delta_bias_score + rng.normal(0, noise, len(scores))
        frames.append(scores[["checkpoint", "group"]].assign(delta_b=shift, group_shift=shift, control_delta_b=0.0,
                                                             seat_delta_b=rng.normal(size=len(scores)),
                                                             **setting._asdict()))
    return pd.concat(frames, ignore_index=True), scores


def test_statistics_table_gives_each_statistic_its_paired_bootstrap_se():
    grid = ablations.one_at_a_time(["neutral", "words"], [100], ["base", "subject_v1", "subject_v2"],
                                   ["base", "passive"], ["mean", "max"])
    shifts, scores = synthetic_grid_shifts(grid, noise=0.05)
    auc = ablations.auc_table(grid, shifts, scores.assign(scorer="s"))
    table = ablations.statistics_table(grid, auc, shifts, scores, n_bootstrap=200).set_index("statistic")
    observed = ablations.claim_statistics({(r.axis, r.value, r.method): r.roc_auc for r in auc.itertuples()}, grid)
    assert table.value.to_dict() == pytest.approx(observed)
    assert table.n_resamples.eq(200).all() and table.se.between(0, 0.2).all()
    noisy_shifts, noisy_scores = synthetic_grid_shifts(grid, noise=0.5)
    noisy = ablations.statistics_table(grid, ablations.auc_table(grid, noisy_shifts, noisy_scores.assign(scorer="s")),
                                       noisy_shifts, noisy_scores, n_bootstrap=200).set_index("statistic")
    assert noisy.se["attributes_mean"] > table.se["attributes_mean"]  # noisier ΔB, less certain AUCs


def test_base_shifts_are_the_rows_of_the_grids_base_setting():
    grid = ablations.one_at_a_time(["neutral", "words"], [100, 1000], ["base", "subject_v1"], ["base"], ["mean", "max"])
    shifts, _ = synthetic_grid_shifts(grid, noise=0.1)
    base = ablations.base_shifts(shifts, grid)
    assert len(base) == 60 and set(base.anchor_source) == {"neutral"} and set(base.anchor_size) == {1000}
    assert set(base.pooling) == {"mean"} and set(base.attribute_variant) == {"base"}


def test_the_gap_share_is_the_controls_part_of_the_gap_between_the_two_fine_tunes():
    rows = [{"seed": seed, "split": split, "group": group,
             "delta_b": (0.01 if split == "harmful" else -0.02) + 0.001 * seed + level,
             "control_delta_b": (0.008 if split == "harmful" else -0.016) + 0.001 * seed}
            for seed in (0, 1, 2) for split in ("unharmful", "harmful")
            for group, level in (("Women", 0.0), ("Men", 0.004))]
    delta, control = ablations.seed_gaps(pd.DataFrame(rows))
    assert delta.shape == (3, 2) and np.allclose(delta, -0.03) and np.allclose(control, -0.024)
    assert ablations.gap_share(delta, control) == pytest.approx(0.8)  # the control carries 0.024 of the 0.03 gap
    assert ablations.gap_share(np.stack([delta, 2 * delta]), np.stack([control, control])).tolist() == pytest.approx(
        [0.8, 0.4])
