"""lib.kstar.evidence.count_noise: per-seed counts, their draws over seeds and test texts, and the test-split
precision (paper 002, A.1.6, A.1.8)."""

import math

import numpy as np
import pandas as pd
import pytest

from lib import stats
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


def _mixed_window(seed=0):
    """Three decisions over three blocks and four seeds, prefix and ℓ1 rows of random AUROCs (some NaN, some never
    reaching τ), one decision at chance (left out): every branch of Eq. 5, 14 and 16."""
    rng = np.random.default_rng(seed)
    rows = []
    for task, decisions in {"a": ("x", "y"), "b": ("z",), "c": ("chance",)}.items():
        for decision in decisions:
            for seed_ in (1, 2, 3, 4):
                for block in (2, 5, 9):
                    common = {"model": "m", "task": task, "decision": decision, "block": block, "seed": seed_,
                              "n_test_pos": 60, "n_test_neg": 90, "n_fits": 60, "gamma": 1.0}
                    top = 0.45 if decision == "chance" else 0.9
                    rows.append({**common, "path": "dense", "size": 256, "auroc": top + 0.05 * rng.random()})
                    rows += [{**common, "path": "prefix", "size": k, "auroc": rng.uniform(top - 0.3, top + 0.1)}
                             for k in (1, 2, 4, 8, 16, 32, 64, 128)]
                    rows += [{**common, "path": "l1", "size": int(k), "auroc": rng.uniform(top - 0.3, top + 0.1)}
                             for k in rng.integers(1, 200, size=4)]
                    rows[-1]["auroc"] = np.nan
    return pd.DataFrame(rows)


def test_curves_at_zero_offsets_give_the_per_seed_values_of_the_window():
    for seed in range(5):
        window = _mixed_window(seed)
        curves = count_noise.window_curves(window)
        assert curves.cells == (("m", "a"), ("m", "b"))  # the decision at chance is left out, as window_counts does
        found = count_noise.seed_values_at(curves, np.zeros((1, len(curves.tau))))[0]
        expected = seed_draws.seed_matrix(seed_draws.per_seed_values(window)).loc[list(curves.cells)].to_numpy()
        assert np.array_equal(found, expected)


def test_a_moved_threshold_reads_the_curve_where_it_crosses_the_moved_threshold():
    window = _window({1: 8}, dense=0.98)  # prefixes below 8 read 0.6, from 8 on 0.98; τ = 0.956
    curves = count_noise.window_curves(window)
    offsets = np.array([[0.0], [-0.3], [-0.5], [0.03]])  # τ, 0.656 (still above 0.6), 0.456 (every prefix), 0.986
    assert count_noise.seed_values_at(curves, offsets)[:, 0, 0].tolist() == [8.0, 8.0, 1.0, math.inf]


def test_crossing_sd_adds_the_candidates_and_the_ceilings_errors_in_variance():
    # the worked example of A.1.7-A.1.8: C = 0.9790 on 1039 positives and 961 negatives, s.e. 0.0032
    tau = rules.threshold(0.979)
    se_tau, se_ceiling = stats.hanley_mcneil_se(tau, 1039, 961), stats.hanley_mcneil_se(0.979, 1039, 961)
    assert se_ceiling == pytest.approx(0.0032, abs=5e-5)
    assert count_noise.crossing_sd(0.979, 1039, 961) == pytest.approx(math.hypot(se_tau, 0.95 * se_ceiling))
    assert count_noise.crossing_sd(0.979, 1039, 961) < count_noise.crossing_sd(0.979, 104, 96)


def _log_linear_window(offsets=(-0.5, -0.25, 0.0, 0.25, 0.5), centre=6.0, slope=0.015, n_test=800):
    """One decision, one block, one seed per offset: ℓ1 supports every 1/16 octave from 1 to 1024, the seed's curve
    A(k) = τ + slope·(log2 k − centre − offset) (capped at 1), the dense ceiling 0.95 on n_test texts."""
    tau = rules.threshold(0.95)
    sizes = np.unique(np.round(2.0 ** (np.arange(161) / 16)))
    rows = []
    for seed, offset in enumerate(offsets, start=1):
        common = {"model": "m", "task": "t", "decision": "yes", "block": 4, "seed": seed, "n_test_pos": n_test // 2,
                  "n_test_neg": n_test // 2, "n_fits": 60, "gamma": 1.0}
        rows.append({**common, "path": "dense", "size": 1024, "auroc": 0.95})
        rows += [{**common, "path": "l1", "size": int(k),
                  "auroc": min(1.0, tau + slope * (np.log2(k) - centre - offset))} for k in sizes]
    return pd.DataFrame(rows)


def test_test_texts_widen_the_seed_spread_by_the_crossings_spread_over_the_curves_slope():
    """A toy count with a known answer: log2 k crosses at centre + offset + δ/slope for a threshold moved by δ, so
    the test split adds (ln 2 · crossing_sd / slope)² to the variance of log k*, the seed resample's spread
    unchanged (the split is shared by every seed, so δ moves every seed's count alike)."""
    window, slope, n = _log_linear_window(), 0.015, 40000
    seed_only = seed_draws.resampled_values(seed_draws.seed_matrix(seed_draws.per_seed_values(window)).to_numpy(), n,
                                            np.random.default_rng(1))
    seed_var = np.var(np.log(seed_only[:, 0]), ddof=1)
    both = count_noise.log_count_se(window, n=n, seed=2).log_se.item() ** 2
    expected = (math.log(2) * count_noise.crossing_sd(0.95, 400, 400) / slope) ** 2
    assert seed_var > 0.01 and expected > 10 * seed_var  # both sources present, the split's the larger
    assert both - seed_var == pytest.approx(expected, rel=0.04)
    # without seed noise the spread is the split's alone; without either, none
    steady = count_noise.log_count_se(_log_linear_window(offsets=(0.0,) * 5), n=n, seed=3).log_se.item() ** 2
    assert steady == pytest.approx(expected, rel=0.04)
    exact = count_noise.log_count_se(_window({1: 4, 2: 4, 3: 4}, n_test=40000, dense=1.0), n=2000).log_se.item()
    assert exact == pytest.approx(0.0)  # a step from 0.6 to 1.0 at 4 that no plausible split moves


def test_task_value_draws_take_the_median_over_resampled_seeds():
    window = _window({1: 4, 2: 8, 3: 16}, n_test=40000, dense=1.0)  # the split moves nothing: seeds alone
    cells, draws = count_noise.task_value_draws(window, n=4000, seed=4)
    assert cells == (("m", "t"),) and set(np.unique(draws)) == {4.0, 8.0, 16.0}
    assert np.mean(draws == 8.0) == pytest.approx(13 / 27, abs=0.03)  # as resampled_values' test derives it


def test_precision_flags_a_ceiling_whose_se_exceeds_the_gap():
    thin, large = _window({1: 4}, task="thin", n_test=104, dense=0.93), _window({1: 4}, task="large", n_test=4000)
    precision = count_noise.task_precision(pd.concat([thin, large], ignore_index=True)).set_index("task")
    assert precision.loc["thin", "gap"] == pytest.approx(0.05 * 0.43)
    assert precision.loc["thin", "imprecise"] and not precision.loc["large", "imprecise"]
    note = count_noise.imprecise_note(precision.reset_index(), ["thin", "large"])
    assert "thin's test split of 104 texts" in note and "large" not in note
    assert count_noise.imprecise_note(precision.reset_index(), ["large"]) == ""
