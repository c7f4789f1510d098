"""lib.kstar.protocol.splits: the per-class draws of paper 002 — validation portion (App. A.1.4), seed
subsample (A.1.6)."""

import numpy as np
import pytest

from lib.kstar.protocol import splits


def test_validation_split_and_subsample_keep_a_floor_fraction_of_each_class():
    y = np.r_[np.ones(23), np.zeros(57)].astype(int)
    fit, val = splits.validation_split(y, seed=1)
    assert (y[val] == 1).sum() == 4 and (y[val] == 0).sum() == 11  # ⌊0.2·23⌋, ⌊0.2·57⌋
    assert sorted(np.r_[fit, val]) == list(range(80))
    assert np.array_equal(splits.validation_split(y, seed=1)[1], val)
    assert not np.array_equal(splits.validation_split(y, seed=2)[1], val)
    rows = splits.stratified_subsample(y, seed=1)
    assert (y[rows] == 1).sum() == 19 and (y[rows] == 0).sum() == 48  # ⌊0.85·23⌋, ⌊0.85·57⌋
    assert list(rows) == sorted(set(rows))
    assert len(splits.stratified_subsample(np.arange(20) % 2, seed=0)) == 2 * 8  # ⌊0.85·10⌋ in exact arithmetic
    assert len(splits.stratified_subsample(np.r_[np.ones(20), np.zeros(20)], seed=0)) == 34  # 0.85·20 = 17


def test_bad_labels_seeds_and_fractions_are_refused():
    with pytest.raises(ValueError, match="labels"):
        splits.validation_split(np.array([0, 1, 2]), seed=0)
    with pytest.raises(ValueError, match="seed"):
        splits.stratified_subsample(np.array([0, 1]), seed=-1)
    with pytest.raises(ValueError, match="frac"):
        splits.validation_split(np.array([0, 1]), 1.0, seed=0)
