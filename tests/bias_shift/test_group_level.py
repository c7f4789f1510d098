"""lib.bias_shift.group_level: ΔB against a label within checkpoints, and the shared-drift null (Sec. 3.4, 4.1)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib.bias_shift import evaluation, group_level

DRIFT = np.linspace(-1, 1, 7)[:, None]  # seven checkpoints along a merge path, every group moved alike


def noise(seed: int, scale: float = 0.05) -> np.ndarray:
    return scale * np.random.default_rng(seed).standard_normal((7, 24))


def test_a_drift_shared_by_every_group_correlates_pooled_but_not_within_checkpoints():
    x, y = DRIFT + noise(0), -DRIFT + noise(1)
    found = group_level.association(x, y, n_permutations=2000)
    assert found.pooled_r < -0.99 and found.between_r < -0.99
    assert abs(found.within_r) < 0.2 and found.p_within_negative > 0.1 and found.p_within > 0.1
    assert abs(found.within_r) < 2 * found.within_se and found.within_se == pytest.approx(1 / np.sqrt(168), rel=0.2)
    assert found.n_permutations == 2000


def test_a_group_specific_shift_is_found_within_checkpoints_on_top_of_the_drift():
    x = DRIFT + noise(0)
    y = DRIFT - 0.8 * group_level.centred(x) + noise(2, 0.02)  # the drift runs against the paper's sign
    found = group_level.association(x, y, n_permutations=2000)
    assert found.pooled_r > 0.9  # pooled, the shared drift wins: a reversal
    assert found.within_r < -0.8 and found.p_within_negative == pytest.approx(1 / 2000)
    reversed_ = group_level.association(x, DRIFT + 0.8 * group_level.centred(x), n_permutations=2000)
    assert reversed_.p_within_negative == 1.0 and reversed_.p_within == pytest.approx(1 / 2000)


def test_the_within_r_is_the_pearson_r_of_the_centred_matrices_and_order_free_within_checkpoints():
    x, y = DRIFT + noise(3, 1.0), noise(4, 1.0)
    found = group_level.association(x, y, n_permutations=50)
    expected = np.corrcoef(group_level.centred(x).ravel(), group_level.centred(y).ravel())[0, 1]
    assert found.within_r == pytest.approx(expected)
    order = np.random.default_rng(5).permutation(24)
    assert group_level.association(x[:, order], y[:, order], n_permutations=50).within_r == pytest.approx(expected)
    constant = group_level.association(x, np.repeat(DRIFT, 24, axis=1), n_permutations=50)
    assert np.isnan(constant.within_r) and np.isnan(constant.p_within_negative)
    with pytest.raises(ValueError, match="two checkpoints × groups matrices"):
        group_level.association(x, y[:, :3])


def test_drift_null_labels_keep_each_checkpoints_values_and_hold_the_tests_level():
    x, y = DRIFT + noise(6), -DRIFT + noise(7, 0.3)
    labels = group_level.drift_null_labels(y, 400, seed=1)
    np.testing.assert_allclose(np.sort(labels, axis=-1), np.broadcast_to(np.sort(y, axis=-1), labels.shape))
    se = group_level.association(x, y, n_permutations=2000).within_se
    within = group_level.within_r(x, labels)
    assert abs((within < -2 * se).mean() - 0.023) < 0.025  # the claim's test keeps its level under its own null
    pooled = evaluation.rows_pearson(x.ravel(), labels.reshape(400, -1))
    assert pooled.min() < -0.5  # the pooled r stays as strong as the shared drift makes it


def test_simulated_labels_keep_the_checkpoint_means_and_reach_the_papers_within_r():
    x, y = DRIFT + noise(8), -DRIFT + noise(9, 0.3)
    labels = group_level.simulated_labels(x, y, -0.75, 300, seed=2)
    np.testing.assert_allclose(labels.mean(axis=-1), np.broadcast_to(y.mean(axis=-1), (300, 7)))
    np.testing.assert_allclose(group_level.centred(labels).std(axis=(1, 2)), group_level.centred(y).std())
    within = group_level.within_r(x, labels)
    assert within.mean() == pytest.approx(-0.75, abs=0.05)
    assert (within < -2 * group_level.association(x, y, n_permutations=400).within_se).all()
    with pytest.raises(ValueError, match="r=1.5"):
        group_level.simulated_labels(x, y, 1.5, 3)


def test_the_table_has_one_row_per_setting_scorer_and_pooling():
    x, y = DRIFT + noise(10), -DRIFT + noise(11)
    rows = [{"family": "f", "regime": "lora", "scorer": s, "pooling": pooling, "checkpoint": f"c{c}",
             "group": f"g{g}", "delta_b": x[c, g] * sign, "delta_bias_score": y[c, g]}
            for s in ("a", "b") for pooling, sign in (("mean", 1), ("max", -1)) for c in range(7) for g in range(24)]
    table = group_level.group_level_table(pd.DataFrame(rows), n_permutations=100)
    assert list(table[["scorer", "pooling"]].itertuples(index=False, name=None)) == [
        ("a", "mean"), ("a", "max"), ("b", "mean"), ("b", "max")]
    assert table.pooled_r.iloc[0] == pytest.approx(-table.pooled_r.iloc[1])
    assert set(table.n_checkpoints) == {7} and set(table.n_groups) == {24}


def test_the_drift_share_is_one_when_every_group_moves_as_the_control_and_falls_when_groups_move_alone():
    rng = np.random.default_rng(12)
    levels, control = rng.normal(size=24), np.linspace(-0.015, 0.016, 7)
    shared = levels + control[:, None]  # each group at its own level, moved exactly as the group-free sentences
    assert group_level.drift_share(shared, control) == pytest.approx(1.0)
    own = rng.normal(scale=0.01, size=(7, 24))  # groups that move by their own shifts, as large as the drift
    assert group_level.drift_share(shared + own, control) == pytest.approx(0.5, abs=0.15)
    assert abs(group_level.drift_share(levels + own, np.zeros(7))) < 1e-12  # a flat control accounts for nothing
    assert group_level.drift_share(levels + own, control) < 0  # a control that moves apart from the groups
    draws = group_level.drift_share_draws(shared + own, control, 300, seed=3)
    columns = np.random.default_rng(3).integers(0, 24, (300, 24))
    assert draws[5] == pytest.approx(group_level.drift_share((shared + own)[:, columns[5]], control))
    assert 0.02 < draws.std() < 0.2 and abs(draws.mean() - group_level.drift_share(shared + own, control)) < 0.05
    with pytest.raises(ValueError, match="one control value per checkpoint"):
        group_level.drift_share_draws(shared, control[:3], 10)
