"""lib.probes: the paper's probe, its protocol and the detection test."""

import numpy as np
import pytest
from sklearn.neural_network import MLPClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from lib import probes, stats
from lib.bias_probes import purity, synth


def _expected_failures(estimator) -> dict[str, str]:
    if isinstance(estimator.estimator, MLPClassifier):
        reason = "MLPClassifier's early stopping holds out 10% of the checks' tiny data sets"
        failing = ("check_estimators_nan_inf", "check_classifiers_train", "check_classifiers_classes",
                   "check_classifiers_one_label", "check_fit2d_1feature")
        return dict.fromkeys(failing, reason)
    return {}


@parametrize_with_checks(
    [probes.linear_probe(), probes.rbf_svm_probe(), probes.mlp_probe(hidden=8)],
    expected_failed_checks=_expected_failures,
)
def test_probes_are_scikit_learn_estimators(estimator, check):
    check(estimator)


def test_standardisation_makes_the_linear_probe_affine_invariant():
    """Per-feature affine maps of the features leave every out-of-fold score unchanged (Sec. VI-A)."""
    rng = np.random.default_rng(0)
    sample = synth.purity_mixture(rng, 200, 2.0, 0.5, d=6)
    scale, shift = rng.uniform(0.1, 10, 6), rng.normal(0, 50, 6)
    folds = probes.grouped_folds(sample.groups, 5, seed=1)
    raw = probes.oof_scores(probes.linear_probe(), sample.X, sample.y, folds)
    mapped = probes.oof_scores(probes.linear_probe(), sample.X * scale + shift, sample.y, folds)
    np.testing.assert_allclose(raw, mapped, rtol=1e-4, atol=1e-6)


def test_grouped_folds_keep_groups_together_and_cover_everything():
    groups = np.repeat(np.arange(30), 2)
    folds = probes.grouped_folds(groups, 5, seed=3)
    tests = np.concatenate([test for _, test in folds])
    assert sorted(tests.tolist()) == list(range(60))
    for train, test in folds:
        assert not set(groups[train]) & set(groups[test])
    assert probes.grouped_folds(groups, 5, seed=3)[0][1].tolist() == folds[0][1].tolist()
    with pytest.raises(ValueError, match="cannot fill n_splits=5"):
        probes.grouped_folds(np.arange(3), 5)


def test_oracles_score_by_the_truth():
    rng = np.random.default_rng(1)
    sample = synth.sphere_clusters(rng, 4000, kappa=1.0, r=2.0, sigma_w=0.01, d=3)
    for oracle in (probes.OracleProbe(sample.oracle_direction), probes.GeodesicOracle(kappa=1.0, r=2.0)):
        assert stats.auroc(sample.y, oracle.fit(sample.X, sample.y).decision_function(sample.X)) > 0.999
    on_circle = np.array([[np.sin(0.5), np.cos(0.5), 0.0]])  # angle 0.5 from the second axis
    score = probes.GeodesicOracle(kappa=1.0, r=2.0).fit(sample.X, sample.y).decision_function(on_circle)
    assert score.item() == pytest.approx(abs(0.5 + 1.0) - abs(0.5 - 1.0))


def test_probe_auc_protocol_and_detection():
    rng = np.random.default_rng(2)
    sample = synth.purity_mixture(rng, 400, 3.0, 1.0, d=5)
    result = probes.probe_auc(sample.X, sample.y, sample.groups, n_seeds=3)
    assert len(result.aucs) == 3 and result.auc_min <= result.auc_mean <= result.auc_max
    assert result.detection.detected and result.detection.null_multiplier == 1.4
    row = result.as_row()
    assert row["n_pos"] == 200 and "detection_z" in row and "aucs" not in row
    with pytest.raises(ValueError, match="both classes"):
        probes.probe_auc(sample.X, np.zeros(400), sample.groups)
    with pytest.raises(ValueError, match="must agree"):
        probes.probe_auc(sample.X[:10], sample.y, sample.groups)


def test_detection_test_level_on_exact_nulls_is_calibrated():
    """Fast version of E09: the 1.4·σ₀ test rejects label-free pools at most at the nominal level."""
    rng = np.random.default_rng(3)
    rejections = []
    for _ in range(60):
        pool = synth.null_pool(rng, n_cells=60, d=8)
        sample = purity.draw_purity_sample(rng, pool, 120, 0.5)
        result = probes.probe_auc(pool.X[sample.index], sample.y, sample.groups, n_seeds=2,
                                  seed=int(rng.integers(1000)))
        rejections.append(result.detection.detected)
    assert np.mean(rejections) <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 60)


def test_make_probe_names():
    assert isinstance(probes.make_probe("linear").estimator, type(probes.linear_probe().estimator))
    assert probes.make_probe("mlp", seed=3).estimator.random_state == 3
    with pytest.raises(ValueError, match="probe='lasso' is unknown; allowed: linear, rbf_svm, mlp"):
        probes.make_probe("lasso")
