"""lib.bias_probes.theory_power: draws of the theory checks' statistics, against direct Monte Carlo."""

import numpy as np
import pandas as pd
import pytest

from lib.bias_probes import simulate, theory, theory_power


def test_effective_separation_agrees_with_eq8_only_to_first_order():
    alpha = np.array([0.0, 0.3, 1.0])
    np.testing.assert_allclose(theory_power.effective_separation_auc(4.0, alpha)[[0, 2]],
                               theory.purity_auc(4.0, alpha)[[0, 2]])
    small = (theory_power.effective_separation_auc(1e-3, 0.3) - 0.5) / (theory.purity_auc(1e-3, 0.3) - 0.5)
    assert small == pytest.approx(1.0, abs=1e-4)
    assert theory_power.effective_separation_auc(4.0, 0.5) - theory.purity_auc(4.0, 0.5) > 0.05


def test_max_abs_error_draws_match_the_normal_maximum():
    draws = theory_power.max_abs_error_draws(np.zeros(3), 0.01, n=20000)
    # P(max of 3 |N(0, 0.01)| ≤ 0.0196) = 0.95³
    assert np.mean(draws <= 0.0196) == pytest.approx(0.95**3, abs=0.01)
    shifted = theory_power.max_abs_error_draws([0.0, 0.1], [0.01, 0.01], n=2000)
    assert shifted.min() > 0.1 - 5 * 0.01
    assert np.isnan(theory_power.max_abs_error_draws([], 1.0, n=5)).all()


def test_max_abs_z_draws_leave_out_cells_without_an_se():
    kept = theory_power.max_abs_z_draws([0.3, 5.0], [0.1, 0.0], n=50, seed=4)
    np.testing.assert_allclose(kept, theory_power.max_abs_error_draws([3.0], 1.0, n=50, seed=4))


def test_variance_z_draws_match_sample_variances_of_normal_data():
    rng = np.random.default_rng(0)
    reps, ratio = 60, 1.3
    variances = ratio * rng.standard_normal((20000, reps)).var(axis=1, ddof=1)
    direct = np.abs(variances - 1) / (variances * np.sqrt(2 / (reps - 1)))
    drawn = theory_power.variance_z_draws(ratio, [reps], n=20000, seed=1)
    np.testing.assert_allclose(np.quantile(drawn, [0.2, 0.5, 0.8]), np.quantile(direct, [0.2, 0.5, 0.8]), atol=0.06)


def test_oracle_power_matches_the_simulated_test():
    s, n, alpha = 4.0, 300, float(theory.critical_purity(300, 4.0))
    simulated = simulate.detection_power([(s, n, alpha)], reps=2000, seed=5)
    predicted = theory_power.oracle_power(s, n, alpha, 0.05)
    assert abs(simulated.power.item() - predicted) < 4 * simulated.power_se.item()
    assert predicted < 0.7  # beyond the linearisation α*(n) is too small: power below 1 − γ


def test_binomial_power_draws():
    means = theory_power.mean_power_draws([0.6, 0.8], 400, n=5000)
    assert means.mean() == pytest.approx(0.7, abs=0.003)
    assert means.std() == pytest.approx(np.sqrt(0.6 * 0.4 / 400 + 0.8 * 0.2 / 400) / 2, rel=0.1)
    deviations = theory_power.power_deviation_draws([0.5, 0.5], 1000, 0.8, n=500)
    assert deviations.min() > 0.2
    assert np.isnan(theory_power.mean_power_draws([], 10, n=3)).all()
    assert np.isnan(theory_power.power_deviation_draws([], 10, 0.8, n=3)).all()


def test_bound_exceedance_counts_samples_above_the_fixed_class_bound():
    replicates = pd.DataFrame({"n": [100, 100, 400, 400], "replicate": [0, 1, 0, 1],
                               "erm_gap": [0.05, 0.9, 0.01, 0.02], "weight_norm": [0.5, 1.0, 0.2, 0.1],
                               "radius": [2.0, 3.0, 2.0, 2.0]})
    found = theory_power.bound_exceedance(replicates, 0.05).set_index("n")
    assert found.loc[100, "bound"] == pytest.approx(float(theory.generalization_bound(100, 1.0, 3.0, 0.05)))
    assert found.exceeded.tolist() == [1, 0]
    assert found.samples.tolist() == [2, 2]
    assert found.loc[100, "largest_ratio"] == pytest.approx(0.9 / found.loc[100, "bound"])


def test_gap_replicates_fit_one_probe_per_sample():
    rows = theory_power.gap_replicates([60, 120], d=3, s=2.0, alpha=0.5, reg=1.0, reps=3, n_test=500, seed=2)
    assert len(rows) == 6 and sorted(rows.replicate.unique()) == [0, 1, 2]
    assert rows.groupby("n").erm_gap.nunique().eq(3).all()  # independent samples, not one repeated
    assert (theory_power.bound_exceedance(rows, 0.05).exceeded == 0).all()


def test_fast_rate_mechanism_only_for_a_slope_near_minus_one():
    n = np.array([100, 400, 1600])
    fast = pd.DataFrame({"n": n, "erm_gap": 1.0 / n, "uniform_deviation": n**-0.5})
    text = theory_power.fast_rate_mechanism(fast, "generalization_gap.parquet")
    assert "-1.00" in text and "-0.50" in text and "`generalization_gap.parquet`" in text
    assert theory_power.fast_rate_mechanism(fast.assign(erm_gap=n**-0.5), "generalization_gap.parquet") == ""
