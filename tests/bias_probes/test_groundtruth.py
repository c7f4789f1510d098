"""lib.bias_probes.groundtruth: the probe-based synthetic experiments on tiny grids."""

import numpy as np
import pytest

from lib.bias_probes import groundtruth, theory


def test_probes_never_beat_the_purity_law():
    frame = groundtruth.probes_vs_purity_law([2.0], [0.5], n=200, d=4, reps=3, probe_names=("linear", "oracle"))
    assert set(frame.probe) == {"linear", "oracle"}
    assert (frame.excess_z < 4).all()
    np.testing.assert_allclose(frame.bound, theory.purity_auc(2.0, 0.5))


def test_detection_rates_rise_with_purity():
    frame = groundtruth.probe_detection_rates([(2.0, 200, 0.05), (2.0, 200, 1.0)], d=4, reps=4)
    assert frame.detection_rate.iloc[1] == 1.0 and frame.detection_rate.iloc[0] < 1.0


def test_generalization_gap_shrinks():
    frame = groundtruth.probe_generalization_gap([40, 640], d=10, s=2.0, alpha=0.5, reps=3, n_test=2000)
    assert frame.auc_gap.iloc[0] > frame.auc_gap.iloc[1] > -0.05


def test_orthogonality_stress_follows_corollary_2():
    frame = groundtruth.orthogonality_stress([0.0, 90.0], s=2.0, alpha=0.5, shift=2.0, n=2000, d=3, reps=6)
    aligned, orthogonal = frame.iloc[0], frame.iloc[1]
    assert orthogonal.b_w == pytest.approx(0.0, abs=1e-12) and orthogonal.offset_law == orthogonal.purity_law
    assert aligned.offset_law < aligned.purity_law
    assert abs(aligned.oracle_auc - aligned.offset_law) < 4 * aligned.oracle_se + 1e-3


def test_probes_on_spheres_and_unknown_probe():
    names = ("oracle", "geodesic_oracle")
    frame = groundtruth.probes_on_spheres(4.0, [1.5], 1.0, n=200, d=3, reps=2, probe_names=names)
    assert set(frame.probe) == {"oracle", "geodesic_oracle"}
    assert (frame.geodesic_auc > frame.chordal_auc).all()
    with pytest.raises(ValueError, match="probe='lasso' is unknown"):
        groundtruth.probes_on_spheres(4.0, [1.5], 1.0, n=50, d=3, reps=2, probe_names=("lasso",))


def test_estimator_calibration_tables():
    curvature = groundtruth.curvature_calibration([0.5, 2.0], 2, 5, 800, 0.0, 1)
    assert (curvature.relative_error.abs() < 0.35).all() and curvature.kappa_hat.is_monotonic_increasing
    dims = groundtruth.dimension_calibration("linear", [2, 8], 10, 800, 1)
    assert dims.mle_relative_error.iloc[1] < dims.mle_relative_error.iloc[0]  # underestimation grows with d
    with pytest.raises(ValueError, match="manifold='torus'"):
        groundtruth.dimension_calibration("torus", [2], 5, 100, 1)
    separation = groundtruth.separation_calibration([0.0], d=200, n=100, reps=2)
    assert separation.naive.item() > 2 * separation.crossfit.item()


def test_separation_calibration_logs_the_monte_carlo_se_of_its_means():
    """naive_se / crossfit_se are s.d. / √reps of the replicates whose means the table logs: more replicates shrink
    the s.e., and two runs' means agree within it."""
    few = groundtruth.separation_calibration([0.0], d=100, n=80, reps=4, seed=3).iloc[0]
    many = groundtruth.separation_calibration([0.0], d=100, n=80, reps=16, seed=3).iloc[0]
    assert 0 < many.naive_se < few.naive_se and 0 < many.crossfit_se
    assert abs(many.naive - few.naive) < 6 * few.naive_se  # the two means agree within their s.e.
