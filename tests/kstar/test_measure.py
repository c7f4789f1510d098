"""lib.kstar.measure: the rotation control and one real sweep on MiniLM features of a real pool."""

import numpy as np
import pytest

from lib.kstar import measure
from lib.kstar.protocol import counts


def test_random_rotation_is_orthogonal_and_seeded():
    q = measure.random_rotation(16, seed=3)
    np.testing.assert_allclose(q @ q.T, np.eye(16), atol=1e-10)
    np.testing.assert_array_equal(q, measure.random_rotation(16, seed=3))
    assert not np.allclose(q, measure.random_rotation(16, seed=4))


def test_a_real_sweep_and_window_on_minilm(sandbox):
    kwargs = {"tasks": ["rt_sentiment"], "cap": 40, "pool_seed": 0, "max_classes": 2, "max_tokens": 32,
              "min_positives": 5}
    sweep = measure.sweep_table("minilm", layers="grid:4", poolings=("mean",), **kwargs)
    assert set(sweep.path) == {"dense", "prefix", "l1"} and sweep.block.nunique() == 4
    assert (sweep.n_fits <= 70).all() and sweep.auroc.between(0, 1).all()
    windows = counts.best_blocks(sweep)
    window = {"rt_sentiment": [int(b) for b in windows.window.iloc[0]]}
    plain = measure.window_table("minilm", window, seeds=(1, 2), subsample=0.85, **kwargs)
    assert set(plain.seed) == {1, 2} and (plain.groupby(["block", "seed"]).n_test_pos.first() == 20).all()
    shuffled = measure.window_table("minilm", window, seeds=(1,), subsample=0.85, label_seed=0, **kwargs)
    assert set(shuffled.control) == {"shuffled"} and set(shuffled.path) == {"dense", "prefix", "l1"}  # the whole search
    shuffled_sweep = measure.sweep_table("minilm", layers="grid:4", poolings=("mean",), label_seed=0, **kwargs)
    assert set(shuffled_sweep.control) == {"shuffled"} and not shuffled_sweep.auroc.equals(sweep.auroc)
    again = measure.window_table("minilm", window, seeds=(1,), subsample=0.85, label_seed=0, **kwargs)
    np.testing.assert_array_equal(shuffled.auroc, again.auroc)  # the shuffle is seeded
    with pytest.raises(ValueError, match="not a task pool"):
        measure.sweep_table("minilm", layers="grid:4", poolings=("mean",), **{**kwargs, "tasks": ["nope"]})


def test_a_task_without_readable_decisions_is_passed_over_and_a_missing_window_named(sandbox):
    kwargs = {"tasks": ["rt_sentiment"], "cap": 40, "pool_seed": 0, "max_classes": 2, "max_tokens": 32}
    none_readable = measure.window_table("minilm", {}, seeds=(1,), subsample=0.85, min_positives=1000, **kwargs)
    assert len(none_readable) == 0  # every decision excluded: no window, nothing measured, no error
    with pytest.raises(ValueError, match=r"task 'rt_sentiment' has 1 readable decisions but no window"):
        measure.window_table("minilm", {}, seeds=(1,), subsample=0.85, min_positives=5, **kwargs)


def test_an_unknown_model_stops_before_any_compute():
    from lib.models import registry

    with pytest.raises(registry.ModelUnavailableError):
        measure.prepare_models(["minilm", "/no/such/checkpoint"])


def test_shuffled_labels_are_one_seeded_permutation_per_decision():
    y_train, y_test = np.array([1] * 6 + [0] * 14), np.array([1] * 5 + [0] * 10)
    same = measure.shuffled_labels(y_train, y_test, "t", "d", None)
    assert np.array_equal(same[0], y_train) and np.array_equal(same[1], y_test)
    first = measure.shuffled_labels(y_train, y_test, "t", "d", 0)
    assert np.array_equal(first[0], measure.shuffled_labels(y_train, y_test, "t", "d", 0)[0])  # sweep = window
    assert first[0].sum() == 6 and first[1].sum() == 5 and not np.array_equal(first[0], y_train)
    other = measure.shuffled_labels(y_train, y_test, "t", "e", 0)
    assert not (np.array_equal(other[0], first[0]) and np.array_equal(other[1], first[1]))
