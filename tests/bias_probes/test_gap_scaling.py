"""lib.bias_probes.gap_scaling: Theorem 1's bound on the norm-bounded probe, the curvature geometry, the mechanisms."""

import numpy as np
import pandas as pd
import pytest

from lib.bias_probes import gap_scaling, purity, synth, theory


def _pool(seed: int = 0, shift: float = 1.0) -> purity.Pool:
    pool = synth.null_pool(np.random.default_rng(seed), n_cells=80, d=6, cell_scale=0.0)
    X = pool.X.copy()
    X[pool.group == 1, 0] += shift  # a marker along the first coordinate
    return purity.Pool(X, pool.cell, pool.pair, pool.group)


def test_bounded_probe_fits_and_their_bound():
    fits = gap_scaling.bounded_probe_fits({("toy", "gender"): _pool()}, [40, 80], alpha=0.5, draws=3, seed=1)
    assert len(fits) == 6 and set(fits.n) == {40, 80} and (fits.d == 6).all()
    assert (fits.ramp_gap.abs() <= 1).all() and (fits.weight_norm > 0).all() and (fits.radius > 1).all()
    check = gap_scaling.bound_check(fits, delta=0.05)
    assert len(check) == 2 and (check.fits == 3).all()
    first = check.iloc[0]
    assert first.bound == pytest.approx(float(theory.generalization_bound(40, first.weight_norm, first.radius, 0.05)))
    assert first.ratio == pytest.approx(first.ramp_gap / first.bound)


def test_bound_ratio_draws_hold_the_smallest_n_gap_under_the_null():
    check = pd.DataFrame({"model": "m", "dimension": "g", "d": 10, "n": [50, 400], "ramp_gap": [0.3, 0.05],
                          "ramp_gap_se": [0.01, 0.01], "bound": [3.0, 0.5]})
    if_paper, if_null = gap_scaling.bound_ratio_draws(check, n=4000)
    assert np.median(if_paper) == pytest.approx(0.1, abs=0.01)  # max(0.3/3, 0.05/0.5)
    assert np.median(if_null) == pytest.approx(0.6, abs=0.03)  # the n = 400 cell keeps the gap 0.3: 0.3/0.5
    assert gap_scaling.bound_ratio_draws(check.assign(ramp_gap_se=np.nan)) == (None, None)


def test_curvature_geometry_matches_the_flat_moments_and_the_radius_falls_with_kappa():
    """Flat: y·x₁ = r/2 + y·τZ + y·σ_w·ε, the other coordinates y·σ_w·ε: signal (r/2)², spread τ² + d·σ_w²."""
    r, tau, sigma_w, d = 1.5, 0.5, 0.1, 10
    geometry = gap_scaling.curvature_geometry([0.0, 4.0], r, tau, sigma_w, n=200, d=d, reps=20, n_moments=100_000)
    flat, curved = geometry.iloc[0], geometry.iloc[1]
    assert flat.signal == pytest.approx((r / 2) ** 2, abs=0.01)
    assert flat.spread == pytest.approx(tau**2 + d * sigma_w**2, abs=0.01)
    assert curved.radius < flat.radius and curved.signal < flat.signal and curved.bound < flat.bound
    assert flat.worst_case_rms == pytest.approx(np.sqrt(flat.spread / 200))


def test_last_over_first_by_the_delta_method():
    ratio, se = gap_scaling.last_over_first(pd.Series([2.0, 5.0, 1.0]), pd.Series([0.2, 9.0, 0.1]))
    assert ratio == 0.5 and se == pytest.approx(0.5 * np.hypot(0.1, 0.1))


def test_mechanisms_are_given_only_where_the_logged_numbers_support_them():
    n = np.array([50, 100, 200, 400, 800, 1600])
    gap = pd.DataFrame({"n": n, "auc_gap": [0.48, 0.47, 0.46, 0.26, 0.14, 0.07],
                        "test_auc": [0.52, 0.53, 0.54, 0.57, 0.59, 0.6]})
    text = gap_scaling.plateau_mechanism(gap, 100, "gap.parquet")
    assert "n ≤ 200" in text and "`gap.parquet`" in text
    assert gap_scaling.plateau_mechanism(gap.assign(test_auc=0.3), 100, "gap.parquet") == ""  # never interpolates
    model = pd.DataFrame({"n": [50, 400], "train_auc": [1.0, 0.98], "test_auc": [0.6, 0.7]})
    assert "0.980" in gap_scaling.interpolation_mechanism(model, [384], "model.parquet")
    assert gap_scaling.interpolation_mechanism(model.assign(train_auc=0.8), [384], "model.parquet") == ""
    geometry = pd.DataFrame({"kappa": [0.0, 4.0], "radius": [2.0, 0.8], "spread": [0.35, 0.26],
                             "signal": [0.56, 0.09]})
    assert "×0.40" in gap_scaling.curvature_mechanism(geometry, 0.9, "geometry.parquet")
    assert gap_scaling.curvature_mechanism(geometry, 0.45, "geometry.parquet") == ""  # the gap tracks the radius


def test_learning_curve_shares_read_the_gap_slope_against_the_learning_curve_and_minus_a_half():
    n = np.array([50, 100, 200, 400])
    test_auc = 1 - 0.4 * (n / 50.0) ** -0.1  # 1 − test AUC falls at −0.1
    interpolating = pd.DataFrame({"model": "m", "dimension": "a", "n": n, "test_auc": test_auc,
                                  "auc_gap": 1 - test_auc})  # train AUC 1: the gap is 1 − test AUC
    worst_case = pd.DataFrame({"model": "m", "dimension": "b", "n": n, "test_auc": test_auc,
                               "auc_gap": 0.3 * (n / 50.0) ** -0.5})  # Theorem 1's rate whatever the curve
    steep = pd.DataFrame({"model": "m", "dimension": "c", "n": n, "test_auc": 1 - 0.4 * (n / 50.0) ** -0.7,
                          "auc_gap": 0.3 * (n / 50.0) ** -0.7})
    shares = gap_scaling.learning_curve_shares(pd.concat([interpolating, worst_case, steep]))
    assert shares[("m", "a")] == pytest.approx(1.0)
    assert shares[("m", "b")] == pytest.approx(0.0, abs=1e-12)
    assert np.isnan(shares[("m", "c")])  # the learning curve falls faster than −½: nothing to account for
    train_below_one = interpolating.assign(auc_gap=interpolating.auc_gap - [0.0, 0.0, 0.005, 0.02])
    assert gap_scaling.learning_curve_shares(train_below_one)[("m", "a")] < 0.95  # the train AUC's fall shows
