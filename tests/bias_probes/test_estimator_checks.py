"""lib.bias_probes.estimator_checks: E3-D's per-replicate calibration tables, the propagation shifts, and the
mechanisms a failing estimator claim cites."""

import numpy as np
import pandas as pd
import pytest

from lib.bias_probes import estimator_checks, groundtruth, theory


def test_dimension_replicates_give_one_row_per_manifold_and_the_summary_its_mean_and_se():
    replicates = estimator_checks.dimension_replicates("linear", [2, 6], 10, [150, 300], reps=3, seed=1)
    assert len(replicates) == 2 * 2 * 3 and set(replicates.n) == {150, 300}
    assert replicates.groupby(["intrinsic_dim", "n"]).mle.nunique().eq(3).all()  # independent manifolds
    summary = estimator_checks.dimension_summary(replicates)
    cell = summary[(summary.intrinsic_dim == 6) & (summary.n == 300)].iloc[0]
    rows = replicates[(replicates.intrinsic_dim == 6) & (replicates.n == 300)]
    assert cell.reps == 3 and cell.mle_relative_error == pytest.approx(rows.mle.mean() / 6 - 1)
    assert cell.mle_relative_error_se == pytest.approx(rows.mle.std(ddof=1) / 6 / np.sqrt(3))
    low = summary[(summary.intrinsic_dim == 2) & (summary.n == 300)].mle_relative_error.item()
    assert cell.mle_relative_error < low  # the underestimation grows with d
    one = estimator_checks.dimension_summary(replicates[replicates.replicate == 0])
    assert one.mle_relative_error_se.isna().all()


def test_median_abs_error_by_n_and_the_size_mechanism():
    summary = pd.DataFrame({"manifold": ["sphere"] * 6, "intrinsic_dim": [2, 10, 25] * 2, "n": [500] * 3 + [2000] * 3,
                            "mle_relative_error": [-0.01, -0.16, -0.35, 0.0, -0.12, -0.26]})
    by_n = estimator_checks.median_abs_error_by_n(summary, "sphere", [2, 10, 25])
    assert by_n.to_dict() == pytest.approx({500: 0.16, 2000: 0.12})
    sentence = estimator_checks.size_mechanism(by_n, "the median", 0.15, 0.025, "dimension_calibration.parquet")
    assert "at n = 500" in sentence and "within 0.025" in sentence and "dimension_calibration.parquet" in sentence
    assert estimator_checks.size_mechanism(by_n, "the median", 0.40, 0.05, "d.parquet") == ""


def _curvature() -> pd.DataFrame:
    rows = [("origin", 0.0, [0.04, 0.05]), ("origin", 0.005, [0.3, 1.0]), ("floor", 0.005, [0.01, 0.05]),
            ("origin", 0.01, [1.0, 3.9]), ("floor", 0.01, [0.06, 0.27])]
    return pd.DataFrame([{"fit": fit, "noise": noise, "kappa": k, "relative_error": e}
                         for fit, noise, errors in rows for k, e in zip((0.5, 2.0), errors, strict=True)])


def test_curvature_noise_mechanism_brackets_the_paper_value_between_noise_levels():
    sentence = estimator_checks.curvature_noise_mechanism(_curvature(), "median", 0.17, "curvature_calibration.parquet")
    assert "σ = 0.005" in sentence and "0.045 noise-free" in sentence and "curvature_calibration.parquet" in sentence
    assert "σ = 0.01" in estimator_checks.curvature_noise_mechanism(_curvature(), "max", 1.5, "c.parquet")
    assert estimator_checks.curvature_noise_mechanism(_curvature(), "median", 0.02, "c.parquet") == ""  # below clean
    assert estimator_checks.curvature_noise_mechanism(_curvature(), "max", 9.0, "c.parquet") == ""  # never reached


def test_noise_floor_mechanism_needs_the_floor_fit_and_the_clean_fit_within_the_bound():
    sentence = estimator_checks.noise_floor_mechanism(_curvature(), 0.01, "median", 0.17, "c.parquet")
    assert "2.450" in sentence and "0.165" in sentence and "c.parquet" in sentence
    assert estimator_checks.noise_floor_mechanism(_curvature(), 0.01, "max", 0.17, "c.parquet") == ""  # floor 0.27


def test_separation_samples_and_summary_match_the_calibration_means():
    samples = estimator_checks.separation_samples([0.0, 2.0], d=20, n=80, reps=4, seed=2)
    assert len(samples) == 8 and samples.groupby("s").naive.nunique().eq(4).all()
    summary = estimator_checks.separation_summary(samples).set_index("s")
    at_two = samples[samples.s == 2.0]
    assert summary.loc[2.0, "naive"] == pytest.approx(at_two.naive.mean())
    assert summary.loc[2.0, "crossfit_se"] == pytest.approx(at_two.crossfit.std(ddof=1) / 2)
    assert summary.loc[2.0, "crossfit_median_relative_error"] == pytest.approx((at_two.crossfit / 2 - 1).median())
    assert np.isnan(summary.loc[0.0, "crossfit_median_relative_error"])
    assert summary.loc[0.0, "naive"] > summary.loc[0.0, "crossfit"]  # the plug-in inflation


def test_alpha_star_shift_reads_the_median_cell_and_its_se():
    summary = pd.DataFrame({"s": [0.0, 2.0, 4.0, 8.0], "crossfit_median_relative_error": [np.nan, -0.06, 0.008, 0.012],
                            "crossfit_median_relative_error_se": [np.nan, 0.01, 0.005, 0.02]})
    shift, se = estimator_checks.alpha_star_shift(summary)
    assert shift == pytest.approx(1 - 1 / 1.012) and se == pytest.approx(0.02 / 1.012**2)
    assert np.isnan(estimator_checks.alpha_star_shift(summary.iloc[:1])[0])


def test_crossfit_null_mechanism_places_the_paper_value_among_single_samples():
    samples = pd.DataFrame({"s": [0.0] * 10, "crossfit": [0, 0, 0, 0, 0, 0.3, 0.45, 0.6, 0.8, 0.9]})
    sentence = estimator_checks.crossfit_null_mechanism(samples, 0.5, "separation_samples.parquet")
    assert "5 of 10 give 0" in sentence and "70% point" in sentence and "separation_samples.parquet" in sentence
    assert estimator_checks.crossfit_null_mechanism(samples, 3.24, "s.parquet") == ""


def test_propagation_shifts_against_the_closed_forms():
    assert estimator_checks.chordal_shifts([1.0, 4.0], [1.0, 1.5], 1.5, 0.0).max() == 0
    shifts = estimator_checks.chordal_shifts([1.0], [3.0], 1.5, 0.3)
    expected = [abs(theory.chordal_auc(3.0, k, 1.5) - theory.chordal_auc(3.0, 1.0, 1.5)) for k in (0.7, 1.3)]
    assert shifts.tolist() == pytest.approx(expected)
    ceiling = estimator_checks.ceiling_shift([0.25, 1.0], 1.5, 0.3)
    assert ceiling == pytest.approx(max(abs(theory.curvature_ceiling(k * f, 1.5) - theory.curvature_ceiling(k, 1.5))
                                        for k in (0.25, 1.0) for f in (0.7, 1.3)))
    table = estimator_checks.propagation_by_noise([1.0, 1.0], [1.0, 3.0], [0.25, 1.0], 1.5, 0.3, scales=(0.5, 1.5))
    assert table.sigma_w.tolist() == [0.5, 1.5] and table.run.tolist() == [False, True]
    assert table.ceiling_shift.iloc[1] == pytest.approx(ceiling)


def test_propagation_mechanism_names_the_noise_scales_or_the_cells():
    table = pd.DataFrame({"sigma_w": [0.5, 1.0, 1.5], "run": [False, False, True],
                          "median_shift": [0.001, 0.0028, 0.005], "ceiling_shift": [0.0425, 0.0427, 0.043]})
    near = estimator_checks.propagation_mechanism(table, "median_shift", 0.003, 0.0005, "the cells", "p.parquet")
    assert "σ_w = 1" in near and "0.0050 at the run's σ_w" in near
    far = estimator_checks.propagation_mechanism(table, "ceiling_shift", 0.041, 0.0005, "κ in [0.25, 8]", "p.parquet")
    assert "no noise scale" in far and "κ in [0.25, 8]" in far and "0.0425 and 0.0430" in far


def test_noise_matched_calibration_finds_the_noise_of_the_target_median_on_the_same_spheres():
    settings = {"kappas": [0.5, 1.0, 2.0], "intrinsic_dim": 2, "ambient_dim": 6, "n": 400, "reps": 2, "seed": 4}
    logged = pd.concat([groundtruth.curvature_calibration(noise=noise, **settings) for noise in (0.0, 0.02)])
    medians = logged.groupby("noise").relative_error.agg(lambda e: e.abs().median())
    target = float(medians.mean())  # between the two logged levels
    matched = estimator_checks.noise_matched_calibration(logged, target, seed=4)
    assert list(matched.groupby("level", sort=False).size().index) == ["below", "σ*", "above"]
    star = matched[matched.level == "σ*"]
    assert 0 < star.noise.iloc[0] < 0.02 and set(star.kappa) == {0.5, 1.0, 2.0}
    assert star.relative_error.abs().median() == pytest.approx(target, abs=0.02 * target)
    below, above = (matched[matched.level == level].noise.iloc[0] for level in ("below", "above"))
    assert below == pytest.approx(0.9 * star.noise.iloc[0]) and above == pytest.approx(1.1 * star.noise.iloc[0])
    # the same spheres at the found level: recomputing it gives the table's numbers
    again = groundtruth.curvature_calibration(noise=float(star.noise.iloc[0]), **settings)
    assert np.allclose(again.kappa_hat, star.kappa_hat)
    pair = estimator_checks.noise_pair(matched)
    assert pair.value == pytest.approx(star.relative_error.abs().max()) and pair.median == pytest.approx(
        star.relative_error.abs().median())
    assert pair.se > 0 and pair.undefined == ""
    assert estimator_checks.noise_matched_calibration(logged, 10 * float(medians.max()), seed=4).empty
    unmatched = estimator_checks.noise_pair(pd.DataFrame())
    assert np.isnan(unmatched.value) and "bracket" in unmatched.undefined


def test_noise_pair_carries_the_median_cells_error_through_the_matched_noise():
    def level(name: str, noise: float, errors: list[float]) -> pd.DataFrame:
        kappa = np.array([0.5, 1.0, 2.0])
        return pd.DataFrame({"level": name, "noise": noise, "kappa": kappa, "reps": 3,
                             "relative_error": errors, "kappa_hat_se": [0.01, 0.02, 0.08] * kappa})

    matched = pd.concat([level("below", 0.009, [0.08, 0.15, 0.45]), level("σ*", 0.01, [0.1, 0.17, 0.55]),
                         level("above", 0.011, [0.12, 0.19, 0.65])])
    pair = estimator_checks.noise_pair(matched)
    slope = (0.65 - 0.45) / (0.19 - 0.15)  # the largest moves five times as fast as the median
    assert pair.noise == 0.01 and pair.median == pytest.approx(0.17) and pair.value == pytest.approx(0.55)
    assert pair.se == pytest.approx(np.hypot(0.08, slope * 0.02))
