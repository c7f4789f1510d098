"""The diagnostics and power draws behind paper 000's regime claims (lib.bias_probes.regime_checks)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from lib import probes, stats
from lib.bias_probes import regime_checks, synth, theory


def test_best_linear_auc_meets_eq8_and_cor2_at_the_ends_and_beats_cor2_between():
    s, alpha, shift = 2.0, 0.5, 1.5
    angles = np.array([0.0, 15.0, 45.0, 75.0, 90.0])
    best = regime_checks.best_linear_offset_auc(s, alpha, shift, angles)
    cor2 = theory.offset_purity_auc(s, alpha, shift * np.cos(np.deg2rad(angles)))
    assert best[-1] == pytest.approx(float(theory.purity_auc(s, alpha)), abs=1e-6)  # C3 holds: Eq. 8
    assert best[0] == pytest.approx(float(cor2[0]), abs=1e-6)  # offset along Δ: Δ is still best
    assert np.all(best >= cor2 - 1e-9)
    assert best[2] - cor2[2] > 0.005  # at 45° tilting w away from the offset beats Δ


def test_a_tilted_direction_scores_corollary_2_at_its_projections_by_monte_carlo():
    """The derivation behind best_linear_offset_auc: a unit score w has Cor. 2's AUC at (wᵀΔ, wᵀo)."""
    s, alpha, shift, theta, phi = 2.0, 0.5, 1.5, np.deg2rad(45.0), np.deg2rad(-16.5)
    offset = np.zeros(4)
    offset[:2] = shift * np.array([np.cos(theta), np.sin(theta)])
    w = np.zeros(4)
    w[:2] = [np.cos(phi), np.sin(phi)]
    sample = synth.purity_mixture(np.random.default_rng(0), 200_000, s, alpha, 4, neutral_offset=offset)
    measured = float(stats.auroc(sample.y, sample.X @ w))
    predicted = float(theory.offset_purity_auc(s * w[0], alpha, w @ offset))
    se = float(stats.hanley_mcneil_se(measured, sample.y.sum(), len(sample.y) - sample.y.sum()))
    assert abs(measured - predicted) < 4 * se
    assert predicted <= regime_checks.best_linear_offset_auc(s, alpha, shift, 45.0)[0] + 1e-9
    assert predicted > float(theory.offset_purity_auc(s, alpha, shift * np.cos(theta)))  # and above Δ's AUC


def _scan(aucs: dict[tuple[str, str], list[float]]) -> pd.DataFrame:
    rows = [{"model": m, "dimension": d, "layer": layer, "n_layers": len(values) - 1, "auc_mean": auc}
            for (m, d), values in aucs.items() for layer, auc in enumerate(values)]
    return pd.DataFrame(rows)


def test_held_out_layer_is_chosen_on_the_other_dimensions():
    scan = _scan({("m", "a"): [0.5, 0.6, 0.7, 0.9, 0.6], ("m", "b"): [0.5, 0.6, 0.7, 0.8, 0.6],
                  ("m", "c"): [0.5, 0.6, 0.7, 0.6, 0.95], ("solo", "a"): [0.5, 0.7, 0.6]})
    table = regime_checks.held_out_layer_shortfall(scan).set_index(["model", "dimension"])
    assert table.loc[("m", "a"), "mid_layer"] == 2
    # a: layers 3 (0.7 mean over b, c) and 4 (0.775) — 4 is chosen; c's own 0.95 at layer 4 never chooses for c
    assert table.loc[("m", "a"), "chosen_layer"] == 4
    assert table.loc[("m", "a"), "shortfall"] == pytest.approx(0.6 - 0.7)
    assert table.loc[("m", "c"), "chosen_layer"] == 3  # mean of a and b: 0.85 at layer 3
    assert table.loc[("m", "c"), "shortfall"] == pytest.approx(0.6 - 0.7)
    assert np.isnan(table.loc[("solo", "a"), "shortfall"])  # one dimension: nothing held out


def test_max_abs_z_draws_follow_the_normal_and_the_t_law():
    one = regime_checks.max_abs_z_draws([0.0], n=20_000, seed=3)
    assert np.mean(one <= 1.96) == pytest.approx(0.95, abs=0.01)
    t1 = regime_checks.max_abs_z_draws([0.0], dof=1, n=20_000, seed=3)
    assert np.mean(t1 <= 1.96) == pytest.approx(2 / np.pi * np.arctan(1.96), abs=0.01)  # Cauchy: heavier tails
    seven = regime_checks.max_abs_z_draws([0.0] * 7, n=20_000, seed=4)
    assert np.mean(seven <= 2.5) == pytest.approx((1 - 2 * norm.sf(2.5)) ** 7, abs=0.01)
    shifted = regime_checks.max_abs_z_draws([0.0, 6.0], n=2_000, seed=5)
    assert np.mean(shifted > 4) > 0.95  # a truth 6 s.e. from the closed form is found


def test_probe_shortfall_replays_a_cell_and_its_separation():
    cells = pd.DataFrame([{"model": "m", "dimension": "gender", "auc_mean": 0.7, "s_hat": 3.0, "alpha": 0.5,
                           "n": 80, "b_w": 1.5}])
    table = regime_checks.probe_shortfall(cells, {"m": 6}, n_marked=200, reps=3, seed=1)
    row = table.iloc[0]
    assert (row.model, row.dimension, row.d, row.auc) == ("m", "gender", 6, 0.7)
    assert row.eq8 == pytest.approx(float(theory.purity_auc(3.0, 0.5)))
    assert row.cor2 == pytest.approx(float(theory.offset_purity_auc(3.0, 0.5, 1.5)))
    assert row.synthetic_eq8 < row.eq8 + 4 * row.synthetic_eq8_se  # Eq. 8 is the maximum
    assert row.synthetic_eq8 > 0.6 and row.synthetic_eq8_se > 0
    assert row.s_hat_synthetic == pytest.approx(3.0, rel=0.3) and row.s_hat_sd > 0
    with pytest.raises(ValueError, match="reps=1"):
        regime_checks.probe_shortfall(cells, {"m": 6}, n_marked=200, reps=1)


def _diagnostics(auc: float, synthetic: float) -> pd.DataFrame:
    return pd.DataFrame({"auc": [auc, auc], "eq8": [0.755, 0.755], "synthetic_eq8": [synthetic, synthetic],
                         "synthetic_eq8_se": [0.01, 0.01], "cor2": [0.7, 0.6], "synthetic_cor2": [0.6, 0.5],
                         "synthetic_cor2_se": [0.01, 0.01], "n": [300, 300], "d": [384, 576]})


def test_shortfall_mechanism_only_when_the_probe_shortfall_covers_the_failure():
    explained = regime_checks.probe_shortfall_mechanism(_diagnostics(0.69, 0.60), "eq8", "diagnostics.parquet")
    assert "240 texts per training fold in 384–576 dimensions" in explained
    assert "reaches 0.600 on average" in explained and "Eq. 8 gives 0.755" in explained
    assert explained.endswith("(diagnostics.parquet)")
    # the measured AUC falls further than a probe at these sizes does: not explained by the shortfall
    assert regime_checks.probe_shortfall_mechanism(_diagnostics(0.55, 0.70), "eq8", "d.parquet") == ""
    # the probe reaches the law on synthetic data: no finite-sample shortfall to explain anything
    assert regime_checks.probe_shortfall_mechanism(_diagnostics(0.69, 0.75), "eq8", "d.parquet") == ""
    assert regime_checks.probe_shortfall_mechanism(_diagnostics(0.80, 0.60), "eq8", "d.parquet") == ""
    assert "Corollary 2" in regime_checks.probe_shortfall_mechanism(_diagnostics(0.6, 0.5), "cor2", "d.parquet")
    with pytest.raises(ValueError, match="law='eq9'"):
        regime_checks.probe_shortfall_mechanism(_diagnostics(0.6, 0.5), "eq9", "d.parquet")


def test_shortfall_share_is_the_ratio_of_the_mean_shortfalls_with_each_source_by_the_delta_method():
    measured, measured_se = np.array([0.05, 0.08]), np.array([0.03, 0.04])
    simulated, simulated_se = np.array([0.15, 0.17, 0.16]), np.array([0.006, 0.008, 0.0])
    share = regime_checks.shortfall_share(measured, measured_se, simulated, simulated_se)
    a, b = 0.065, 0.16
    assert share.value == pytest.approx(a / b) and share.measured == pytest.approx(a)
    assert share.simulated == pytest.approx(b) and share.undefined == ""
    assert share.measured_se == pytest.approx(0.05 / 2 / b)  # √(0.03² + 0.04²)/2, through 1/b
    assert share.simulated_se == pytest.approx(a * 0.01 / 3 / b**2)  # √(0.006² + 0.008²)/3, through a/b²
    # the finite-sample reading: a measured shortfall as large as the simulated one is a share of 1
    assert regime_checks.shortfall_share(simulated, simulated_se, simulated, simulated_se).value == pytest.approx(1)


def test_shortfall_share_is_undefined_without_a_simulated_shortfall_and_refuses_unpaired_errors():
    share = regime_checks.shortfall_share([0.05], [0.01], [-0.01, 0.0], [0.01, 0.01])
    assert np.isnan(share.value) and "does not fall short" in share.undefined
    with pytest.raises(ValueError, match="one s.e. per shortfall"):
        regime_checks.shortfall_share([0.05, 0.06], [0.01], [0.1], [0.01])


def test_shortfall_share_on_a_probe_replayed_against_itself_is_near_one():
    """The statistic's premise end to end: two independent sets of the paper's probe on the same purity mixture
    (ŝ, α, n, d) give shortfalls below Eq. 8 whose share is 1 within its s.e."""
    rng = np.random.default_rng(3)
    eq8 = float(theory.purity_auc(6.0, 0.3))

    def shortfalls() -> np.ndarray:
        return np.array([eq8 - _probe_auc(synth.purity_mixture(rng, 120, 6.0, 0.3, 40), rng) for _ in range(6)])

    first, second = shortfalls(), shortfalls()
    share = regime_checks.shortfall_share(first, np.full(6, first.std(ddof=1)), second,
                                          np.full(6, second.std(ddof=1)))
    assert share.simulated > 0.02  # a fitted probe falls short of Eq. 8 at these sizes
    assert abs(share.value - 1) < 3 * np.hypot(share.measured_se, share.simulated_se)


def _probe_auc(sample: synth.LabelledSample, rng: np.random.Generator) -> float:
    return probes.probe_auc(sample.X, sample.y, sample.groups, n_seeds=1, seed=int(rng.integers(2**31))).auc_mean
