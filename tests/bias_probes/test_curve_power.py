"""lib.bias_probes.curve_power: E02's curve statistics drawn under Eq. 8 and its competitors, and the shortfall
mechanism."""

import numpy as np
import pandas as pd
import pytest

from lib.bias_probes import curve_power, theory


def test_linear_dilution_meets_eq8_at_the_ends_and_lies_below_by_alpha_one_minus_alpha_over_two_at_saturation():
    s, alpha = 20.0, np.array([0.0, 0.3, 0.5, 1.0])
    dilution = curve_power.linear_dilution_auc(s, alpha)
    assert dilution[0] == pytest.approx(0.5) and dilution[-1] == pytest.approx(float(theory.binormal_auc(s)))
    assert theory.purity_auc(s, alpha) - dilution == pytest.approx(alpha * (1 - alpha) / 2, abs=1e-6)


def test_abs_error_draws_match_the_half_normal_mean_and_shift_with_the_offset():
    draws = curve_power.abs_error_draws(0.0, [0.02] * 50, "mean", n=4000)
    assert draws.mean() == pytest.approx(0.02 * np.sqrt(2 / np.pi), rel=0.01)  # E|N(0, σ²)| = σ√(2/π)
    single = curve_power.abs_error_draws(0.0, 0.02, "max", n=20000, seed=3)
    assert single.mean() == pytest.approx(0.02 * np.sqrt(2 / np.pi), rel=0.03)
    assert curve_power.abs_error_draws([0.1, -0.2], 0.0, "max", n=5).tolist() == [0.2] * 5
    assert np.isnan(curve_power.abs_error_draws(0.0, [np.nan], "mean", n=3)).all()
    grouped = curve_power.abs_error_draws([0.1, -0.3, 0.05, 0.0], 0.0, "max", ["a", "a", "b", "b"], n=2)
    assert grouped.tolist() == pytest.approx([0.2, 0.2])  # the largest of the groups' mean |error|
    with pytest.raises(ValueError, match="statistic='median'"):
        curve_power.abs_error_draws(0.0, 0.1, "median")


def _curves() -> pd.DataFrame:
    return pd.DataFrame({"model": ["m"] * 3 + ["k"] * 3, "dimension": ["d"] * 6,
                         "alpha": [1.0, 0.1, 0.5, 0.1, 0.5, 1.0]})


def test_with_dip_lowers_each_curves_middle_purity_below_its_predecessor():
    curves = _curves()
    truth = np.array([0.9, 0.6, 0.8, 0.6, 0.8, 0.9])
    dipped = curve_power.with_dip(curves, truth, 0.06)
    assert dipped.tolist() == pytest.approx([0.9, 0.6, 0.54, 0.6, 0.54, 0.9])
    assert truth.tolist() == [0.9, 0.6, 0.8, 0.6, 0.8, 0.9]  # the input is left alone


def test_largest_drop_draws_read_each_curve_in_purity_order_and_never_across_curves():
    curves = _curves()
    truth = np.array([0.9, 0.6, 0.8, 0.6, 0.8, 0.9])
    assert curve_power.largest_drop_draws(curves, truth, 0.0, n=4).tolist() == pytest.approx([-0.1] * 4)
    dipped = curve_power.with_dip(curves, truth, 0.06)
    assert curve_power.largest_drop_draws(curves, dipped, 0.0, n=2).tolist() == pytest.approx([0.06] * 2)
    two = pd.DataFrame({"model": ["m", "m"], "dimension": ["d", "d"], "alpha": [0.1, 0.5]})
    flat = curve_power.largest_drop_draws(two, [0.7, 0.7], 0.01, n=20000)
    assert flat.mean() == pytest.approx(0.0, abs=5e-4) and flat.std() == pytest.approx(0.01 * np.sqrt(2), rel=0.03)
    assert np.isnan(curve_power.largest_drop_draws(two.iloc[:1], [0.7], 0.01, n=2)).all()


def _measured(error: float) -> pd.DataFrame:
    return pd.DataFrame({"model": ["m", "m", "k", "k"], "dimension": ["d"] * 4, "alpha": [0.2, 1.0, 0.2, 1.0],
                         "auc": [0.7 + error, 1.0, 0.7 + error / 2, 1.0], "predicted_auc": [0.7, 1.0, 0.7, 1.0]})


def _synthetic(probe_auc: float) -> pd.DataFrame:
    return pd.DataFrame({"model": ["m", "k"], "dimension": ["d", "d"], "s": [9.0, 12.0], "alpha": [0.2, 0.2],
                         "n": [300, 300], "d": [384, 576], "probe_auc": [probe_auc, probe_auc],
                         "probe_se": [0.01, 0.01], "bound": [0.7, 0.7]})


def test_worst_purity_reads_the_largest_mean_absolute_error():
    assert curve_power.worst_purity(_measured(-0.1)) == 0.2


def test_synthetic_shortfall_runs_the_probe_at_each_points_own_separation_and_dimension():
    points = pd.DataFrame({"model": ["m", "k"], "dimension": ["d", "d"], "s_hat": [3.0, 6.0], "alpha": [0.5, 0.5],
                           "d": [4, 6]})
    table = curve_power.synthetic_shortfall(points, 120, 2, seed=1)
    assert table[["model", "s", "d"]].values.tolist() == [["m", 3.0, 4], ["k", 6.0, 6]]
    assert (table.probe_auc < table.bound + 4 * table.probe_se.clip(lower=0.01)).all()  # never above the Bayes AUC


def test_shortfall_mechanism_holds_only_when_the_synthetic_probe_falls_at_least_as_far_below_eq8():
    sentence = curve_power.shortfall_mechanism(_measured(-0.1), _synthetic(0.58), "curve_shortfall.parquet")
    assert "curve_shortfall.parquet" in sentence and "2 of 2 curves" in sentence and "α = 0.2" in sentence
    assert "d = 384, 576" in sentence and "mean -0.075" in sentence
    assert curve_power.shortfall_mechanism(_measured(-0.1), _synthetic(0.66), "f.parquet") == ""  # shallower
    assert curve_power.shortfall_mechanism(_measured(0.1), _synthetic(0.58), "f.parquet") == ""  # above Eq. 8
    assert curve_power.shortfall_mechanism(_measured(-0.1), _synthetic(0.58).iloc[:0], "f.parquet") == ""
