"""lib.kstar.evidence.seed_draws: resampled seeds, permuted orders and null maxima, against closed forms and
Monte Carlo."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from lib import claim_power, claims, stats
from lib.kstar.evidence import count_noise, power_draws, seed_draws
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


def _two_bases(main, control, n_test=40000, dense=0.98):
    """The main and the rotated window of one task: a step from 0.6 to 0.97 at each seed's value, τ 0.956 under a
    ceiling of 0.98; on 40,000 test texts the step lies 7 s.d. of the crossing above τ, so no split moves a count."""
    return (_window({"t": main}, dense=dense, n_pos=n_test // 2, n_neg=n_test // 2),
            _window({"t": control}, dense=dense, n_pos=n_test // 2, n_neg=n_test // 2))


def test_paired_ratios_read_each_seed_in_both_bases():
    main, control = _two_bases({1: 4, 2: 8, 3: math.inf}, {1: 8, 2: 8, 3: math.inf})
    pairs = seed_draws.paired_ratios(seed_draws.per_seed_values(main), seed_draws.per_seed_values(control))
    assert pairs.log_ratio.tolist() == pytest.approx([math.log(2), 0.0, 0.0])  # ∞/∞ reads a ratio of 1
    assert seed_draws.paired_factors(pairs).to_dict() == pytest.approx({"t": 1.0})  # the median seed's ratio
    wider = seed_draws.paired_ratios(*(seed_draws.per_seed_values(w) for w in _two_bases({1: 4, 2: 4}, {1: 8, 2: 2})))
    assert seed_draws.paired_factors(wider)["t"] == pytest.approx(1.0)  # log 2 and −log 2: a median of 0


def test_pairing_cancels_the_seed_noise_the_two_bases_share():
    """Counts that spread sixteenfold over the seeds, the rotation doubling each one: the paired factor is 2 at
    every resample (the shared seed noise cancels in each seed's ratio), while two independent resamples of the
    counts' medians would move their ratio by up to a factor 4."""
    main, control = _two_bases({1: 1, 2: 2, 3: 4, 4: 8, 5: 16}, {1: 2, 2: 4, 3: 8, 4: 16, 5: 32})
    pairs = seed_draws.paired_ratios(seed_draws.per_seed_values(main), seed_draws.per_seed_values(control))
    assert seed_draws.paired_factors(pairs)["t"] == pytest.approx(2.0)
    errors = seed_draws.paired_noise_draws(main, control, [("m", "t")], n=2000)
    assert errors.shape == (2000, 1) and errors == pytest.approx(0.0, abs=1e-12)
    assert seed_draws.factor_draws(errors, smallest=True) == pytest.approx(1.0)  # the null: no move, no noise
    assert seed_draws.factor_draws(errors, smallest=True, true_factor=2.0) == pytest.approx(2.0)
    rng = np.random.default_rng(0)
    unpaired = (seed_draws.resampled_values(np.array([[2.0, 4, 8, 16, 32]]), 2000, rng)
                / seed_draws.resampled_values(np.array([[1.0, 2, 4, 8, 16]]), 2000, rng))[:, 0]
    assert np.mean(np.abs(np.log2(unpaired) - 1) >= 1) > 0.2


def test_paired_noise_draws_carry_each_bases_test_split():
    """The same step in both bases on 100 test texts: the seeds agree, so every spread of the paired factor is the two
    bases' test splits moving each count past the step (the step at 0.97 lies 0.6 s.d. of the crossing above τ)."""
    main, control = _two_bases({1: 4, 2: 4, 3: 4}, {1: 4, 2: 4, 3: 4}, n_test=100)
    errors = seed_draws.paired_noise_draws(main, control, [("m", "t")], n=4000, seed=1)
    moved = np.isinf(errors[:, 0])  # one basis's τ pushed above 0.97: its count ∞, the other's 4
    p_one = norm.sf((0.97 - rules.threshold(0.98)) / count_noise.crossing_sd(0.98, 50, 50))
    assert np.mean(moved) == pytest.approx(2 * p_one * (1 - p_one), abs=0.02)
    assert np.all(errors[~moved & ~np.isnan(errors[:, 0]), 0] == 0.0)
    assert np.all(np.isnan(seed_draws.factor_draws(errors[moved], smallest=True)))  # no finite task: left out


def test_paired_noise_draws_need_the_same_seeds_and_two_of_them():
    main, control = _two_bases({1: 4, 2: 8}, {1: 4, 3: 8})
    with pytest.raises(ValueError, match="seeds"):
        seed_draws.paired_noise_draws(main, control, [("m", "t")])
    assert seed_draws.paired_noise_draws(*_two_bases({1: 4}, {1: 8}), [("m", "t")]) is None
    assert seed_draws.paired_noise_draws(*_two_bases({1: 4, 2: 4}, {1: 8, 2: 8}), [("m", "u")]) is None


def test_factor_draws_leave_out_the_cells_whose_draw_is_infinite():
    errors = np.array([[0.0, np.inf], [np.log(3), -np.log(2)], [np.nan, np.inf]])
    assert seed_draws.factor_draws(errors, smallest=True)[:2].tolist() == pytest.approx([1.0, 2.0])
    assert seed_draws.factor_draws(errors, smallest=False)[:2].tolist() == pytest.approx([1.0, 3.0])
    assert math.isnan(seed_draws.factor_draws(errors, smallest=True)[2])
    moved = seed_draws.factor_draws(np.zeros((100, 3)), smallest=True, true_factor=5.0, seed=1)
    assert moved == pytest.approx(5.0)  # either direction is a factor of 5


def test_paper_factor_draws_weigh_a_range_claim_at_its_end_nearest_to_failing():
    errors = 0.3 * np.random.default_rng(2).standard_normal((4000, 3))
    test = claims.Range(1.5, 20.0)
    where, smallest = seed_draws.paper_factor_draws(errors, test, smallest=True)
    assert "lower end" in where
    # three tasks at 1.5 with symmetric noise: the smallest clears 1.5 only when all three do
    assert power_draws.held_share(test, smallest) == pytest.approx(0.5**3, abs=0.03)
    centre = seed_draws.factor_draws(errors, smallest=True, true_factor=math.sqrt(30))
    assert power_draws.held_share(test, centre) > 0.95
    where, largest = seed_draws.paper_factor_draws(errors, test, smallest=False)
    assert "upper end" in where and power_draws.held_share(test, largest) == pytest.approx(0.5**3, abs=0.03)


def test_ceiling_change_draws_are_zero_without_seed_noise():
    window = _window({"a": {1: 4, 2: 4}, "b": {1: 8, 2: 8}}, dense=0.95)
    assert np.all(seed_draws.ceiling_change_draws(window, [("m", "a"), ("m", "b")], n=100) == 0.0)
    noisy = _window({"a": {1: 4, 2: 4}}, dense={"a": {1: 0.95, 2: 0.91}})
    draws = seed_draws.ceiling_change_draws(noisy, [("m", "a")], n=2000)
    # the ceiling of a resample is 0.95 unless both picks are seed 2 (chance 1/4): |change| 0.04 w.p. 2·¼·¾
    assert np.mean(draws > 0.03) == pytest.approx(0.375, abs=0.03)


def test_reshuffled_ceilings_keep_a_task_by_task_match_only_by_chance():
    compare = pd.DataFrame({"task": ["a", "b", "c"], "ceiling_main": [0.80, 0.90, 0.99],
                            "ceiling_control": [0.81, 0.89, 0.99]})
    draws = seed_draws.reshuffled_ceiling_draws(compare, n=6000, seed=3)
    # only the identity of 3! permutations keeps every change within 0.03 (its largest change is 0.01)
    assert np.mean(draws <= 0.03) == pytest.approx(1 / 6, abs=0.02)
    assert draws.min() == pytest.approx(0.01) and draws.max() == pytest.approx(0.19)
    assert seed_draws.reshuffled_ceiling_draws(compare.iloc[:1]) is None


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
