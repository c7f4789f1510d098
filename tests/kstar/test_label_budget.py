"""lib.kstar.label_budget.label_budget: Eq. 51, the epoch rule, N* (Eq. 55–56) and the shared exponent (Eq. 57,
Prop. 8)."""

import math

import numpy as np
import pytest

from lib.kstar.label_budget import label_budget as lb


# --------------------------------------------------------------------------- Eq. 51
@pytest.mark.parametrize("n, n_pos, n_neg", [(16, 300, 700), (16, 5, 995), (2, 1, 999), (64, 500, 500),
                                            (5000, 300, 700), (3, 998, 2)])
def test_budget_keeps_the_class_ratio_and_both_classes(n, n_pos, n_neg):
    pos, neg = lb.class_counts(n, n_pos, n_neg)
    n_bar = min(n, n_pos + n_neg)
    assert pos + neg == n_bar and pos >= 1 and neg >= 1 and pos <= n_pos and neg <= n_neg
    assert abs(pos - n_bar * n_pos / (n_pos + n_neg)) <= 0.5 or pos in (1, n_bar - 1)  # ratio up to rounding


def test_stratified_draw_without_replacement_and_oversize_budgets_collapse():
    y = np.r_[np.ones(30, int), np.zeros(70, int)]
    idx = lb.stratified_budget(y, 20, seed=3)
    assert len(set(idx)) == 20 and y[idx].sum() == 6
    assert np.array_equal(lb.stratified_budget(y, 20, seed=3), idx)
    assert np.array_equal(lb.stratified_budget(y, 4096, seed=0), np.arange(100))  # above the pool: the full pool
    assert lb.realized_budgets([16, 64, 256, 1024, 4096], 300) == [16, 64, 256, 300]


def test_stratified_budget_bad_input():
    with pytest.raises(ValueError, match="n=1"):
        lb.stratified_budget([0, 1, 1], 1, seed=0)
    with pytest.raises(ValueError, match="at least one text of each class"):
        lb.stratified_budget([1, 1, 1], 2, seed=0)
    with pytest.raises(ValueError, match="allowed: 1-d labels 0/1"):
        lb.stratified_budget([0, 2, 1], 2, seed=0)


def test_epochs_match_the_two_stated_points():
    assert lb.epochs_for_budget(16) == 50 and lb.epochs_for_budget(4096) == 3
    epochs = [lb.epochs_for_budget(n) for n in (2, 16, 17, 64, 256, 267, 1024, 4096)]
    assert epochs == sorted(epochs, reverse=True) and epochs[:2] == [50, 50]
    assert lb.epochs_for_budget(64) == 13
    with pytest.raises(ValueError, match="n=0"):
        lb.epochs_for_budget(0)


# --------------------------------------------------------------------------- N*
def test_n_star_interpolates_geometrically_inside_the_bracket():
    n, a = [16, 64, 256, 1024], [0.60, 0.70, 0.85, 0.90]
    r = lb.n_star(n, a)
    assert r.threshold == pytest.approx(0.90 - 0.05 * 0.40) and not r.censored
    w = (0.88 - 0.85) / (0.90 - 0.85)
    assert r.value == pytest.approx(256 * 4 ** w)
    assert 256 < r.value <= 1024


def test_n_star_lies_in_its_half_open_bracket_on_random_curves():
    rng = np.random.default_rng(1)
    n = np.array([16, 32, 64, 128, 256, 512, 1024, 2048])
    for _ in range(500):
        a = np.clip(0.5 + np.cumsum(rng.normal(0.03, 0.05, len(n))), 0, 1)
        r = lb.n_star(n, a)
        if a[-1] <= 0.5:
            assert math.isnan(r.value) and "no threshold above chance" in r.reason
            continue
        j = int(np.argmax(a >= r.threshold))
        assert r.censored == (j == 0)
        if not r.censored:
            assert n[j - 1] < r.value <= n[j] and (a[:j] < r.threshold).all()


def test_crossing_exactly_at_a_grid_point_returns_that_point():
    r = lb.n_star([16, 64, 256], [0.6, 0.95, 0.96])  # τ = 0.9370: crossed at 64 with w < 1
    assert 16 < r.value < 64
    tau = 0.75 - lb.THRESHOLD_SHARE * (0.75 - 0.5)
    r = lb.n_star([16, 64, 256], [0.6, tau, 0.75])  # a point exactly at τ: w = 1, the bracket's closed end
    assert r.value == pytest.approx(64) and not r.censored


def test_left_censoring_and_the_running_maximum_reference():
    r = lb.n_star([16, 64, 256], [0.95, 0.93, 0.96])
    assert r.censored and r.value == 16 and "left-censored" in r.reason
    spike = [0.60, 0.99, 0.80, 0.82]
    assert lb.n_star([16, 64, 256, 1024], spike).censored is False
    late = lb.n_star([16, 64, 256, 1024], spike, reference="max")  # an early spike raises the reference (A.4)
    assert late.value > lb.n_star([16, 64, 256, 1024], spike).value and late.censored is False


@pytest.mark.parametrize("budgets, aurocs, match", [
    ([64, 16], [0.6, 0.7], "strictly increasing"), ([16, 16], [0.6, 0.7], "strictly increasing"),
    ([16], [0.6], "equal lengths >= 2"), ([16, 64], [0.6], "equal lengths"), ([16, 64], [0.6, 1.2], "aurocs"),
    ([0, 64], [0.6, 0.7], "> 0")])
def test_n_star_bad_input(budgets, aurocs, match):
    with pytest.raises(ValueError, match=match):
        lb.n_star(budgets, aurocs)


def test_chance_endpoint_is_nan_with_reason():
    r = lb.n_star([16, 64], [0.7, 0.5])
    assert math.isnan(r.value) and "0.5000 <= 0.5" in r.reason
    assert not lb.in_panel(0.95, 8, r)


# --------------------------------------------------------------------------- Eq. 57, Prop. 8
def _panel(seed=0, b=0.65):
    rng = np.random.default_rng(seed)
    tasks = [f"t{i}" for i in range(16)]
    k = dict(zip(tasks, 2.0 ** rng.integers(0, 10, len(tasks)), strict=True))
    rows = []
    for m, a in zip(["G3-1B", "L3.2-1B", "Q3-0.6B", "OLMo"], [1.0, 1.4, 1.8, 1.2], strict=True):
        for t in rng.choice(tasks, 12, replace=False):
            rows.append((10 ** (a + b * np.log10(k[t]) + rng.normal(0, 0.15)), k[t], m, t))
    return [list(c) for c in zip(*rows, strict=True)]


def test_shared_exponent_is_the_weighted_mean_of_separate_slopes():
    ns, ks, students, tasks = _panel()
    fit = lb.shared_exponent(ns, ks, students, tasks, n_boot=50)
    x, y, s = np.log10(ks), np.log10(ns), np.array(students)
    sxx = {m: np.sum((x[s == m] - x[s == m].mean()) ** 2) for m in set(students)}
    sxy = {m: np.sum((x[s == m] - x[s == m].mean()) * (y[s == m] - y[s == m].mean())) for m in set(students)}
    assert fit.b == pytest.approx(sum(sxy.values()) / sum(sxx.values()))
    weights = {m: sxx[m] / sum(sxx.values()) for m in sxx}
    assert fit.b == pytest.approx(sum(weights[m] * fit.slopes[m] for m in sxx))
    assert min(fit.slopes.values()) <= fit.b <= max(fit.slopes.values())
    assert fit.intercepts["L3.2-1B"] == pytest.approx(np.mean(y[s == "L3.2-1B"]) - fit.b * np.mean(x[s == "L3.2-1B"]))


def test_shared_exponent_recovers_the_simulated_slope_and_ignores_student_offsets():
    ns, ks, students, tasks = _panel(seed=2, b=0.65)
    fit = lb.shared_exponent(ns, ks, students, tasks, n_boot=200, seed=1)
    assert fit.interval[0] < 0.65 < fit.interval[1] and fit.interval[1] - fit.interval[0] < 0.3
    shifted = lb.shared_exponent(np.array(ns) * np.where(np.array(students) == "OLMo", 100.0, 1.0), ks, students,
                                 tasks, n_boot=1)
    assert shifted.b == pytest.approx(fit.b)  # a student-level offset enters a_m, never b


def test_two_tasks_give_b_but_no_interval():
    ns, ks, students, tasks = [40.0, 200.0, 46.0, 160.0], [32, 76, 32, 76], ["a", "a", "b", "b"], ["s", "d", "s", "d"]
    fit = lb.shared_exponent(ns, ks, students, tasks, n_boot=100)
    assert np.isfinite(fit.b) and fit.n_boot_used == 0
    assert all(np.isnan(fit.interval))  # every fittable replicate would be the panel itself: zero width


def test_shared_exponent_bad_input():
    ns, ks, students, tasks = _panel()
    with pytest.raises(ValueError, match="kstar has inf"):
        lb.shared_exponent(ns, [math.inf, *ks[1:]], students, tasks)
    with pytest.raises(ValueError, match="n_star has 0.0"):
        lb.shared_exponent([0.0, *ns[1:]], ks, students, tasks)
    with pytest.raises(ValueError, match="within-student variation"):
        lb.shared_exponent([20, 30, 40], [4, 4, 4], ["a", "a", "b"], ["t", "u", "v"])


def _design():
    kstar = np.array([4, 16, 64, 256, 4, 16, 64, 256, 8, 32], dtype=float)
    student = np.array(["s1"] * 4 + ["s2"] * 4 + ["s3"] * 2)
    task = np.array(["t1", "t2", "t3", "t4"] * 2 + ["t1", "t3"])
    return kstar, student, task


def test_exponent_draws_are_eq_57s_fit_of_each_simulated_panel_and_spread_as_its_closed_form():
    kstar, student, task = _design()
    x, y, _ = lb.simulated_responses(kstar, student, b_true=0.65, residual_sd=0.2, n_sim=5, seed=3)
    draws = lb.exponent_draws(kstar, student, b_true=0.65, residual_sd=0.2, n_sim=5, seed=3)
    for row, value in zip(y, draws, strict=True):
        assert value == pytest.approx(lb._fit(lb._check_panel(10 ** row, kstar, student, task))[0], abs=1e-10)
    many = lb.exponent_draws(kstar, student, b_true=0.65, residual_sd=0.2, n_sim=20000, seed=1)
    frame = lb._check_panel(kstar, kstar, student, task)
    sxx = float(((frame.x - frame.groupby("student").x.transform("mean")) ** 2).sum())
    assert many.mean() == pytest.approx(0.65, abs=0.005)  # OLS is unbiased
    assert many.std() == pytest.approx(0.2 / math.sqrt(sxx), rel=0.03)  # σ/√ΣS^xx_m
    assert np.isnan(lb.exponent_draws([4.0, 4.0, 8.0], ["a", "a", "b"], b_true=0.65, residual_sd=0.1, n_sim=2)).all()
    with pytest.raises(ValueError, match="residual_sd"):
        lb.exponent_draws(kstar, student, b_true=0.65, residual_sd=-1.0)


def test_slope_distance_is_zero_inside_the_span_and_counts_standard_errors_outside():
    assert lb.slope_distance([0.5, 0.6], [0.1, 0.1]) == 0.0
    assert lb.slope_distance([0.254, 0.6], [0.1, 0.4]) == pytest.approx(2.0)  # 0.2 below 0.454, s.e. 0.1
    assert lb.slope_distance([0.9, 0.0], [0.1, 0.454]) == pytest.approx(2.0)  # 0.2 above 0.700 beats 1 s.e. below
    assert math.isnan(lb.slope_distance([math.nan], [0.1]))


def test_separate_slope_ses_use_the_pooled_residual_sd():
    kstar, student, task = _design()
    n_star = 10 ** (0.5 * np.log10(kstar) + np.random.default_rng(2).normal(0, 0.3, len(kstar)))
    sigma = lb.residual_sd(n_star, kstar, student, task)
    ses = lb.separate_slope_ses(n_star, kstar, student, task)
    x = np.log10(kstar)
    for name in ("s1", "s2", "s3"):
        mine = x[student == name]
        assert ses[name] == pytest.approx(sigma / np.sqrt(((mine - mine.mean()) ** 2).sum()))


def test_slope_distance_draws_are_the_statistic_of_each_simulated_panel():
    kstar, student, task = _design()
    _, y, _ = lb.simulated_responses(kstar, student, b_true=0.0, residual_sd=0.3, n_sim=6, seed=4)
    draws = lb.slope_distance_draws(kstar, student, b_true=0.0, residual_sd=0.3, n_sim=6, seed=4)
    for row, value in zip(y, draws, strict=True):
        slopes = lb.separate_slopes(10 ** row, kstar, student, task)
        ses = lb.separate_slope_ses(10 ** row, kstar, student, task)
        assert value == pytest.approx(lb.slope_distance([slopes[m] for m in ses], list(ses.values())), abs=1e-9)
    # a wide design tells slopes at 0.65 from slopes at 0; no residual degree of freedom gives NaN draws
    wide = {"residual_sd": 0.05, "n_sim": 400}
    assert np.mean(lb.slope_distance_draws(kstar, student, b_true=0.65, **wide) <= 3) > 0.95
    assert np.mean(lb.slope_distance_draws(kstar, student, b_true=0.0, **wide) <= 3) < 0.05
    assert np.isnan(lb.slope_distance_draws([4.0, 16.0, 4.0], ["a", "a", "b"], b_true=0.65, **wide)).all()


def test_grid_limit_compares_the_decades_an_exponent_needs_with_the_grid():
    needed, spanned = lb.grid_limit([1, 10, 100, math.inf], 16, 256, 0.65)
    assert needed == pytest.approx(1.3) and spanned == pytest.approx(math.log10(16))
    assert all(math.isnan(v) for v in lb.grid_limit([math.inf], 16, 256, 0.65))


def test_residual_sd_is_the_ols_scale():
    import statsmodels.api as sm

    kstar, student, task = _design()
    n_star = 10 ** (0.5 * np.log10(kstar) + np.random.default_rng(0).normal(0, 0.3, len(kstar)))
    frame = lb._check_panel(n_star, kstar, student, task)
    design = np.column_stack([frame.x, (student[:, None] == np.unique(student)[None, :]).astype(float)])
    assert lb.residual_sd(n_star, kstar, student, task) == pytest.approx(np.sqrt(sm.OLS(frame.y, design).fit().scale))
    # three rows of two students leave no degree of freedom (b and two intercepts)
    assert math.isnan(lb.residual_sd(n_star[[0, 1, 4]], kstar[[0, 1, 4]], ["m", "m", "n"], ["a", "b", "a"]))
