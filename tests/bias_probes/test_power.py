"""lib.bias_probes.power and ``python -m lib power``: the auditor's power calculator (paper 000, Sec. VII)."""

import math

import numpy as np
import pytest

from lib import stats
from lib.bias_probes import power, theory


@pytest.mark.parametrize(("s", "alpha"), [(1.0, 0.3), (3.0, 0.1), (8.0, 0.05)])
def test_the_budget_is_where_alpha_star_reaches_the_purity(s, alpha):
    n, scale = power.required_n(s, alpha), stats.DETECTION_NULL_MULTIPLIER
    assert theory.critical_purity_exact(n, s, null_scale=scale) == pytest.approx(alpha, rel=1e-6)
    assert theory.critical_purity_exact(0.8 * n, s, null_scale=scale) > alpha
    assert math.isinf(power.required_n(0.0, alpha))


def test_eq11_budget_is_the_small_signal_limit_of_the_exact_one():
    s, alpha = 0.5, 0.2  # gain 0.028: Eq. 8 is nearly linear here
    exact = power.required_n(s, alpha) / stats.DETECTION_NULL_MULTIPLIER**2  # Eq. 11 is stated at σ₀
    assert exact == pytest.approx(float(theory.sample_budget(alpha, s)), rel=0.1)


def test_the_verdict_separates_underpowered_from_no_signal():
    s = 2.0
    report = power.power_report(s, 300, alpha=0.3)
    assert report.verdict is None and report.alpha_star < 0.3 < 1
    detected = power.power_report(s, 300, 0.3, auc=report.detection_auc + 0.01)
    assert detected.verdict == power.DETECTED and detected.z > 1.645
    assert power.power_report(s, 300, 0.3, auc=0.52).verdict == power.NO_SIGNAL  # α ≥ α*(300): it had power
    assert power.power_report(s, 300, report.alpha_star / 2, auc=0.52).verdict == power.UNDERPOWERED
    assert power.power_report(0.0, 300, 0.3).as_dict()["n_required"] is None  # no separation: no budget


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"n": 9, "alpha": 0.3}, "n=9 is out of range; allowed: an integer >= 10"),
    ({"n": 300, "alpha": 0.0}, "alpha=0.0 is out of range; allowed: 0 < alpha <= 1"),
    ({"n": 300, "alpha": 1.5}, "alpha=1.5 is out of range"),
    ({"n": 300, "alpha": 0.3, "auc": 1.2}, "auc=1.2 is out of range"),
])
def test_bad_input_is_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        power.check_audit_inputs(**kwargs)


def test_auc_curve_band_brackets_eq8():
    curve = power.auc_curve(2.0, 300, np.linspace(0.05, 1, 5))
    assert np.all(curve["low"] < curve["predicted_auc"]) and np.all(curve["predicted_auc"] < curve["high"])
    assert np.allclose(curve["predicted_auc"], theory.purity_auc(2.0, curve["alpha"]))
