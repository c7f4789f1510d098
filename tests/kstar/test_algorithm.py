"""lib.kstar.protocol.algorithm: Algorithm 2 on arrays gives a small k* for a planted sparse signal and the same table
as the hand-built measure/counts path on the same arrays."""

import doctest
import math

import numpy as np
import pandas as pd
import pytest

from lib.kstar import measure
from lib.kstar.protocol import algorithm, counts, rules, splits

SEEDS = (1, 2, 3)
BLOCKS = (0, 2, 4, 6, 8)


def planted(seed: int = 0, n_train: int = 120, n_test: int = 100, d: int = 24):
    """Five blocks of noise; three coordinates carry the label, most strongly at blocks 4 and 6."""
    rng = np.random.default_rng(seed)
    y_train, y_test = rng.permutation(np.arange(n_train) % 2), rng.permutation(np.arange(n_test) % 2)
    strength = {0: 0.3, 2: 1.0, 4: 2.5, 6: 2.5, 8: 1.0}
    features = {}
    for block in BLOCKS:
        pair = []
        for y in (y_train, y_test):
            Z = rng.standard_normal((len(y), d)) * 10 ** rng.uniform(-1, 1, d) + rng.normal(0, 5, d)
            Z[:, [2, 7, 11]] += strength[block] * 10 * np.array([1.0, -1.0, 0.5]) * y[:, None]
            pair.append(Z)
        features[(block, "mean")] = tuple(pair)
    return features, y_train, y_test


@pytest.fixture(scope="module")
def measured():
    features, y_train, y_test = planted()
    return features, y_train, y_test, algorithm.measure_kstar(features, y_train, y_test, seeds=SEEDS)


def test_a_planted_sparse_signal_gives_a_small_readable_count(measured):
    *_, result = measured
    assert result.kstar <= 4 and result.seed_range[0] <= result.kstar <= result.seed_range[1]
    assert result.ceiling > 0.95 and not result.flagged and result.precise
    assert result.best_block in (4, 6) and len(result.window) == rules.WINDOW_SIZE
    assert set(result.window) <= set(BLOCKS) and result.blocks == BLOCKS
    assert set(result.sweep.path) == {"dense", "prefix", "l1"} and set(result.window_rows.seed) == set(SEEDS)
    assert len(result.confirmed) == len(SEEDS) and list(result.decisions.decision) == [algorithm.DECISION]
    summary = result.as_dict()
    assert summary["kstar"] == result.kstar and summary["decisions"][0]["kstar"] == result.kstar


def test_it_equals_the_hand_built_measure_and_counts_path(measured):
    features, y_train, y_test, result = measured
    labels = {"model": "model", "task": "task", "decision": algorithm.DECISION}
    sweep = measure.run_searches([
        measure.SearchItem({**labels, "pooling": "mean", "block": b}, features[(b, "mean")][0], y_train,
                           features[(b, "mean")][1], y_test, measure.SWEEP_SEED, False) for b in BLOCKS])
    window = [int(b) for b in counts.best_blocks(sweep).window.iloc[0]]
    items = []
    for seed in SEEDS:
        keep = splits.stratified_subsample(y_train, seed=seed)
        for b in window:
            Z_tr, Z_te = features[(b, "mean")]
            items.append(measure.SearchItem({**labels, "block": b}, Z_tr[keep], y_train[keep], Z_te, y_test, seed,
                                            False))
    rows = measure.run_searches(items)
    table = counts.window_counts(rows).iloc[0]
    assert tuple(window) == result.window
    assert (result.kstar, result.seed_range) == (table.kstar, (table.seed_min, table.seed_max))
    assert result.ceiling == table.ceiling and result.flagged == table.flagged
    pd.testing.assert_frame_equal(sweep, result.sweep)
    pd.testing.assert_frame_equal(rows, result.window_rows)


def test_several_decisions_give_per_decision_rows_and_the_median_task_value():
    rng = np.random.default_rng(1)
    n_train, n_test = 90, 60
    classes_train, classes_test = np.arange(n_train) % 3, np.arange(n_test) % 3
    features = {}
    for block in (0, 1):
        pair = []
        for cls in (classes_train, classes_test):
            Z = rng.standard_normal((len(cls), 12))
            Z[np.arange(len(cls)), cls] += 4.0  # class c lives on coordinate c
            pair.append(Z)
        features[(block, "mean")] = tuple(pair)
    names = ("a", "b", "c")
    y_train = {n: (classes_train == i).astype(int) for i, n in enumerate(names)}
    y_test = {n: (classes_test == i).astype(int) for i, n in enumerate(names)}
    result = algorithm.measure_kstar(features, y_train, y_test, seeds=(1, 2, 3))
    assert list(result.decisions.decision) == list(names) and (result.decisions.kstar <= 2).all()
    per_seed = {s: list(g.confirmed) for s, g in result.confirmed.groupby("seed")}
    assert result.kstar == rules.task_value(per_seed) and result.seed_range == rules.seed_range(per_seed)


def test_a_second_pooling_enters_the_sweep_only():
    features, y_train, y_test = planted(seed=2, d=12)
    features = {key: value for key, value in features.items() if key[0] in (4, 6)}
    features.update({(b, "last"): v for (b, _), v in features.items()})
    result = algorithm.measure_kstar(features, y_train, y_test, seeds=(1,))
    assert set(result.sweep.pooling) == {"mean", "last"} and "pooling" not in result.window_rows
    assert result.pooling == "mean" and result.window == (4, 6)


@pytest.mark.parametrize(("change", "match"), [
    (lambda f, a, b: ({}, a, b), "features is empty"),
    (lambda f, a, b: ({("0", "mean"): f[(0, "mean")]}, a, b), "allowed: \\(block: int, pooling: str\\)"),
    (lambda f, a, b: ({(0, "last"): f[(0, "mean")]}, a, b), "pooling='mean' has no features"),
    (lambda f, a, b: ({(0, "mean"): (f[(0, "mean")][0][:10], f[(0, "mean")][1])}, a, b), "Z_train has shape"),
    (lambda f, a, b: ({(0, "mean"): (f[(0, "mean")][0] * np.nan, f[(0, "mean")][1])}, a, b), "non-finite"),
    (lambda f, a, b: (f, a * 2, b), "allowed: 0 and 1"),
    (lambda f, a, b: (f, np.r_[np.ones(3), np.zeros(len(a) - 3)], b), "fewer than 5 .*train has 3 positives"),
    (lambda f, a, b: (f, {"x": a}, {"y": b}), "must match"),
    (lambda f, a, b: (f, {"x": a}, b), "both be arrays"),
])
def test_bad_input_is_refused_before_any_fit(change, match):
    features, y_train, y_test = planted(d=12)
    with pytest.raises(ValueError, match=match):
        algorithm.measure_kstar(*change(features, y_train, y_test))


def test_the_smallest_measurable_training_class_follows_the_subsample_and_validation_portion():
    assert algorithm.smallest_training_class() == 6  # ⌊0.85·6⌋ = 5, ⌊0.2·5⌋ = 1; five would leave no validation row
    assert algorithm.decision_problem(np.r_[np.ones(5), np.zeros(20)], np.r_[np.ones(5), np.zeros(5)]) is not None
    assert algorithm.decision_problem(np.r_[np.ones(6), np.zeros(20)], np.r_[np.ones(5), np.zeros(5)]) is None


def test_an_unreadable_task_reads_nan_and_is_flagged():
    rng = np.random.default_rng(3)
    y_train, y_test = np.arange(60) % 2, np.arange(40) % 2
    features = {(0, "mean"): (3.0 * y_train[:, None] + rng.normal(0, 0.1, (60, 2)),
                              -3.0 * y_test[:, None] + rng.normal(0, 0.1, (40, 2)))}  # the sign flips on the test split
    result = algorithm.measure_kstar(features, y_train, y_test, seeds=(1,))
    assert math.isnan(result.kstar) and result.flagged and not result.precise
    assert bool(result.decisions.unreadable.iloc[0]) and result.ceiling <= 0.5


def test_the_module_example_runs():
    failures, tried = doctest.testmod(algorithm)
    assert tried > 0 and failures == 0
