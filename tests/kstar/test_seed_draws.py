"""lib.kstar.evidence.seed_draws: resampled seeds, permuted orders and null maxima, against closed forms and
Monte Carlo."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from lib import claim_power, stats
from lib.kstar.evidence import seed_draws
from lib.kstar.protocol import counts, rules


def _window(values_by_task_seed, dense=0.98, blocks=(1, 2), n_pos=100, n_neg=100, model="m"):
    """A window whose local count is ``values_by_task_seed[task][seed]`` at every block (∞: never qualifies)."""
    rows = []
    for task, by_seed in values_by_task_seed.items():
        for seed, value in by_seed.items():
            for block in blocks:
                common = {"model": model, "task": task, "decision": "yes", "block": block, "seed": seed,
                          "n_test_pos": n_pos, "n_test_neg": n_neg, "n_fits": 60}
                auroc = dense[task][seed] if isinstance(dense, dict) else dense
                rows.append({**common, "path": "dense", "size": 512, "auroc": auroc, "gamma": 1.0})
                rows += [{**common, "path": "prefix", "size": k, "gamma": 1.0,
                          "auroc": 0.97 if value != math.inf and k >= value else 0.6} for k in (1, 2, 4, 8, 16, 32)]
    return pd.DataFrame(rows)


def test_per_seed_values_give_the_task_value_as_their_median():
    window = _window({"a": {1: 4, 2: 8, 3: 16}, "b": {1: 2, 2: math.inf, 3: math.inf}})
    per_seed = seed_draws.per_seed_values(window)
    assert per_seed.set_index(["task", "seed"]).value.to_dict() == {
        ("a", 1): 4, ("a", 2): 8, ("a", 3): 16, ("b", 1): 2, ("b", 2): math.inf, ("b", 3): math.inf}
    kstar = counts.window_counts(window).set_index("task").kstar
    medians = per_seed.groupby("task").value.agg(rules.ext_median)
    assert medians.to_dict() == kstar.to_dict() == {"a": 8, "b": math.inf}


def test_resampled_values_are_medians_of_seed_resamples():
    rng = np.random.default_rng(0)
    values = np.array([[1.0, 2.0, 3.0], [5.0, 5.0, 5.0], [2.0, math.inf, math.inf]])
    draws = seed_draws.resampled_values(values, 2000, rng)
    assert draws.shape == (2000, 3)
    assert set(np.unique(draws[:, 0])) == {1.0, 2.0, 3.0}  # a median of three draws from {1, 2, 3}
    assert np.all(draws[:, 1] == 5.0)
    assert set(np.unique(draws[:, 2])) == {2.0, math.inf}
    # P(median = 1) = P(median = 3) = 7/27 (two or three picks at that end), so P(median = 2) = 13/27
    assert np.mean(draws[:, 0] == 2.0) == pytest.approx(13 / 27, abs=0.03)


def test_spearman_rows_match_the_scalar_spearman_with_ties_and_infinity():
    reference = np.array([1.0, 4.0, math.inf, 2.0, math.inf, 8.0])
    rows = np.random.default_rng(1).permuted(np.tile(reference, (50, 1)), axis=1)
    found = seed_draws._spearman_rows(reference, rows)
    assert found == pytest.approx([stats.spearman(reference, r) for r in rows])
    assert math.isnan(seed_draws._spearman_rows(reference, np.ones((1, 6)))[0])


def test_self_agreement_is_one_without_seed_noise_and_none_with_one_seed():
    steady = _window({t: {s: v for s in (1, 2, 3)} for t, v in zip("abcdef", (1, 2, 4, 8, 16, 32), strict=True)})
    draws = seed_draws.self_agreement_draws(seed_draws.per_seed_values(steady), 6, n=200)
    assert np.all(draws == 1.0)
    assert seed_draws.self_agreement_draws(seed_draws.per_seed_values(steady), 7, n=200) is None  # too few tasks
    one_seed = _window({t: {1: v} for t, v in zip("abcdef", (1, 2, 4, 8, 16, 32), strict=True)})
    assert seed_draws.self_agreement_draws(seed_draws.per_seed_values(one_seed), 6) is None


def test_self_agreement_falls_with_seed_noise():
    steps = np.random.default_rng(2).integers(-1, 2, size=(6, 5))  # each seed moves each task by a grid step
    noisy = _window({t: {s + 1: v * 2.0 ** steps[i, s] for s in range(5)}
                     for i, (t, v) in enumerate(zip("abcdef", (2, 4, 4, 8, 8, 16), strict=True))})
    draws = seed_draws.self_agreement_draws(seed_draws.per_seed_values(noisy), 6, n=500)
    assert 0.5 < np.mean(draws) < 1.0 and np.mean(draws >= 0.97) < 0.9


def test_permuted_agreement_matches_independent_orders():
    tasks = pd.DataFrame({"model": "m", "task": list("abcdefg"), "kstar": [1.0, 2, 4, 8, 16, 32, 64]})
    draws = seed_draws.permuted_agreement_draws(tasks, 6, n=4000, seed=3)
    reference = claim_power.independent_spearman_draws(7, n=4000, seed=4)
    assert np.mean(draws) == pytest.approx(0.0, abs=0.03)
    assert np.quantile(draws, 0.9) == pytest.approx(np.quantile(reference, 0.9), abs=0.05)
    assert seed_draws.permuted_agreement_draws(tasks, 8) is None


def test_factor_draws_without_noise_return_the_true_move():
    ratios = np.ones((100, 3))
    assert np.all(seed_draws.factor_draws(ratios, smallest=True) == 1.0)
    assert seed_draws.factor_draws(ratios, smallest=False, true_factors=(2.0, 2.0)) == pytest.approx(2.0)
    moved = seed_draws.factor_draws(ratios, smallest=True, true_factors=(1.5, 20.0), seed=1)
    assert np.all((moved >= 1.5 - 1e-9) & (moved <= 20 + 1e-9))
    assert np.all(seed_draws.factor_draws(np.array([[0.0, 2.0]]), smallest=False) == math.inf)  # one side ∞


def test_noise_ratios_read_infinite_pairs_as_one():
    window = _window({"a": {1: math.inf, 2: math.inf}, "b": {1: 4, 2: 8}})
    ratios = seed_draws.noise_ratios(seed_draws.per_seed_values(window), [("m", "a"), ("m", "b")], n=500)
    assert np.all(ratios[:, 0] == 1.0)
    medians = (4.0, 6.0, 8.0)  # the median of two picks from seeds {4, 8}
    assert set(np.unique(ratios[:, 1])) == {a / b for a in medians for b in medians}
    assert seed_draws.noise_ratios(seed_draws.per_seed_values(window), [], n=5) is None


def test_ceiling_change_draws_are_the_shift_without_seed_noise():
    window = _window({"a": {1: 4, 2: 4}, "b": {1: 8, 2: 8}}, dense=0.95)
    cells = [("m", "a"), ("m", "b")]
    assert np.all(seed_draws.ceiling_change_draws(window, cells, n=100) == 0.0)
    assert seed_draws.ceiling_change_draws(window, cells, shift=0.06, n=100) == pytest.approx(0.06)
    noisy = _window({"a": {1: 4, 2: 4}}, dense={"a": {1: 0.95, 2: 0.91}})
    draws = seed_draws.ceiling_change_draws(noisy, [("m", "a")], n=2000)
    # the ceiling of a resample is 0.95 unless both picks are seed 2 (chance 1/4): |change| 0.04 w.p. 2·¼·¾
    assert np.mean(draws > 0.03) == pytest.approx(0.375, abs=0.03)


def test_seed_se_is_zero_without_seed_noise_and_nan_with_one_seed():
    window = _window({"a": {1: 4, 2: 4, 3: 4}, "b": {1: 2, 2: 8, 3: 32}})
    per_seed = seed_draws.per_seed_values(window)
    tasks = counts.window_counts(window)
    assert seed_draws.seed_se(per_seed, tasks[tasks.task == "a"], lambda t: t.kstar.sum()) == 0.0
    assert seed_draws.seed_se(per_seed, tasks, lambda t: t.kstar.max()) > 0
    one = _window({"a": {1: 4}})
    assert math.isnan(seed_draws.seed_se(seed_draws.per_seed_values(one), counts.window_counts(one),
                                         lambda t: t.kstar.sum()))


def test_family_limit_and_null_maximum_agree_with_monte_carlo():
    fits = 50
    limit = counts.sidak_z_limit(fits, 0.05)
    simulated = np.random.default_rng(5).standard_normal((20000, fits)).max(axis=1)
    assert np.mean(simulated > limit) == pytest.approx(0.05, abs=0.006)
    draws = seed_draws.null_max_z_draws(fits, n=20000, seed=6)
    assert np.quantile(draws, [0.1, 0.5, 0.9]) == pytest.approx(np.quantile(simulated, [0.1, 0.5, 0.9]), abs=0.03)
    assert counts.sidak_z_limit(10**6) == pytest.approx(norm.isf(0.05 / 10**6), rel=1e-3)


def test_readable_by_chance_is_the_exceedance_of_the_largest_dense_fit():
    window = _window({"a": {1: 4, 2: 4}}, dense=0.6, blocks=(1, 2, 3), n_pos=20, n_neg=20)  # 6 dense fits
    sigma0 = math.sqrt(41 / (12 * 20 * 20))
    expected = 1 - norm.cdf(0.1 / sigma0) ** 6
    assert seed_draws.readable_by_chance(window, cut=0.6).item() == pytest.approx(expected)
    simulated = (0.5 + sigma0 * np.random.default_rng(7).standard_normal((40000, 6))).max(axis=1) > 0.6
    assert simulated.mean() == pytest.approx(expected, abs=0.01)
    shares = seed_draws.unreadable_share_draws([0.0, 1.0], n=10)
    assert np.all(shares == 0.5)


def test_family_ratio_holds_at_the_level_under_independent_null_fits():
    shuffled = pd.DataFrame({"z": [2.0, 4.0], "sigma0": [0.03, 0.05]})
    limit = counts.sidak_z_limit(1000)
    assert seed_draws.family_ratio(shuffled, 1000) == pytest.approx(4.0 / limit)
    if_paper, if_null = seed_draws.family_ratio_draws(shuffled, 1000, n=20000, seed=8)
    assert np.mean(if_paper <= 1) == pytest.approx(0.95, abs=0.005)
    assert np.all(if_null >= (0.9 - 0.5) / 0.05 / limit) and np.all(if_null >= if_paper)


def test_lowest_of_two_copies_lies_below_one_copy():
    steps = np.random.default_rng(2).integers(-1, 2, size=(6, 5))
    noisy = _window({t: {s + 1: v * 2.0 ** steps[i, s] for s in range(5)}
                     for i, (t, v) in enumerate(zip("abcdef", (2, 4, 4, 8, 8, 16), strict=True))})
    per_seed = seed_draws.per_seed_values(noisy)
    one = seed_draws.self_agreement_draws(per_seed, 6, n=2000, seed=1)
    two = seed_draws.self_agreement_draws(per_seed, 6, lowest_of=2, n=2000, seed=1)
    assert np.mean(two) < np.mean(one)
    tasks = counts.window_counts(noisy)
    assert np.mean(seed_draws.permuted_agreement_draws(tasks, 6, lowest_of=2, n=2000)) < -0.2
