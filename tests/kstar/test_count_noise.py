"""lib.kstar.evidence.count_noise: per-seed counts, their bootstrap and the test-split precision (paper 002,
A.1.6, A.1.8)."""

import math

import numpy as np
import pandas as pd
import pytest

from lib.kstar.evidence import count_noise, seed_draws
from lib.kstar.protocol import counts, rules


def _window(counts_by_seed, task="t", n_test=100, dense=0.98):
    """Window rows of one decision over two blocks whose local count at every block of a seed is the given value."""
    rows = []
    for seed, value in counts_by_seed.items():
        for block in (3, 7):
            common = {"model": "m", "task": task, "decision": "yes", "block": block, "seed": seed,
                      "n_test_pos": n_test // 2, "n_test_neg": n_test // 2, "n_fits": 60, "gamma": 1.0}
            rows.append({**common, "path": "dense", "size": 512, "auroc": dense})
            rows += [{**common, "path": "prefix", "size": k, "auroc": dense if k >= value else 0.6}
                     for k in (1, 2, 4, 8, 16, 32)]
    return pd.DataFrame(rows)


def test_seed_values_are_the_values_whose_median_is_k_star():
    window = pd.concat([_window({1: 4, 2: 8, 3: 8, 4: 16, 5: math.inf}),
                        _window({1: 2, 2: 2, 3: 4}, task="u")], ignore_index=True)
    seeds = seed_draws.per_seed_values(window)
    assert seeds[seeds.task == "t"].value.tolist() == [4, 8, 8, 16, math.inf]
    table = counts.window_counts(window).set_index("task").kstar
    for task, cell in seeds.groupby("task"):
        assert rules.ext_median(cell.value) == table[task]


def test_bootstrap_medians_follow_eq_15_with_infinity():
    assert np.all(count_noise.bootstrap_medians([8.0, 8.0, 8.0], n=50) == 8.0)
    draws = count_noise.bootstrap_medians([2.0, math.inf], n=4000, seed=1)
    # two values: the median is 2 when both draws are 2 (1/4), ∞ otherwise (an ∞ in the upper middle)
    assert np.mean(draws == 2.0) == pytest.approx(0.25, abs=0.02) and set(draws) == {2.0, math.inf}
    with pytest.raises(ValueError, match="counts > 0"):
        count_noise.bootstrap_medians([0.0, 2.0])


def test_log2_ratio_draws_are_nan_where_a_count_is_infinite_and_centre_on_the_ratio():
    draws = count_noise.log2_ratio_draws([16.0] * 5, [4.0] * 5, n=100)
    assert np.allclose(draws, 2.0) and count_noise.finite_sd(draws) == pytest.approx(0.0)
    assert np.isnan(count_noise.log2_ratio_draws([math.inf] * 3, [4.0] * 3, n=10)).all()
    assert math.isnan(count_noise.finite_sd(np.array([np.nan, 1.0])))


def test_log_count_se_is_the_spread_of_the_bootstrap_on_the_log_scale():
    seeds = pd.DataFrame({"model": "m", "task": ["a"] * 5 + ["b"] * 5, "seed": list(range(5)) * 2,
                          "value": [8.0] * 5 + [4.0, 8.0, 16.0, 32.0, 64.0]})
    se = count_noise.log_count_se(seeds).set_index("task").log_se
    assert se["a"] == pytest.approx(0.0) and 0.3 < se["b"] < 1.5


def test_precision_flags_a_ceiling_whose_se_exceeds_the_gap():
    thin, large = _window({1: 4}, task="thin", n_test=104, dense=0.93), _window({1: 4}, task="large", n_test=4000)
    precision = count_noise.task_precision(pd.concat([thin, large], ignore_index=True)).set_index("task")
    assert precision.loc["thin", "gap"] == pytest.approx(0.05 * 0.43)
    assert precision.loc["thin", "imprecise"] and not precision.loc["large", "imprecise"]
    note = count_noise.imprecise_note(precision.reset_index(), ["thin", "large"])
    assert "thin's test split of 104 texts" in note and "large" not in note
    assert count_noise.imprecise_note(precision.reset_index(), ["large"]) == ""
