"""lib.bias_probes.calibration: null replicates of the full pipeline and their false-positive rates."""

import numpy as np
import pandas as pd
import pytest

from lib.bias_probes import calibration


def test_null_replicates_and_rates_per_null_pool():
    replicates = calibration.null_replicates([(0.5, 60)], 4, broken_cells=[(1.0, 100)], n_cells=30, d=4, n_seeds=2)
    assert len(replicates) == 16 and replicates.broken.sum() == 8  # both null pools, the paper's first
    assert list(dict.fromkeys(replicates.pool)) == list(calibration.NULL_POOLS) == ["noise", "cell-structured"]
    assert (replicates[replicates.broken].n_duplicates > 0).all()
    rates = calibration.false_positive_rates(replicates, n_seeds=2)
    assert set(rates.broken) == {False, True} and len(rates) == 4
    for name in calibration.TESTS:
        assert ((rates[f"fpr_{name}"] >= 0) & (rates[f"fpr_{name}"] <= 1)).all()


def test_rates_are_ordered_by_null_scale():
    """A larger null scale can only reject less: σ₀/√5 ≥ σ₀ ≥ 1.4σ₀."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"pool": "noise", "alpha": 0.3, "n": 300, "broken": False,
                          "auc_mean": 0.5 + 0.04 * rng.standard_normal(400), "auc_seed0": 0.5, "n_pos": 150,
                          "n_neg": 150, "n_duplicates": 0})
    row = calibration.false_positive_rates(frame).iloc[0]
    assert row.fpr_sigma0_over_sqrt_seeds >= row.fpr_sigma0 >= row.fpr_calibrated
    assert row.inflation == pytest.approx(0.04 / row.sigma0, rel=0.1)


def test_the_paper_null_pool_shares_no_offset_within_a_cell():
    """Noise pool: a pair's two texts are independent; the stress pool correlates them through the cell offset."""
    from lib.bias_probes import synth

    rng = np.random.default_rng(0)
    for scale, low, high in ((0.0, -0.1, 0.1), (1.0, 0.4, 0.6)):
        pool = synth.null_pool(rng, n_cells=2000, d=8, cell_scale=scale)  # s.e. of r ≈ 0.022
        first, second = pool.X[pool.group == 0], pool.X[pool.group == 1]  # pair members, in cell order
        assert low < np.corrcoef(first[:, 0], second[:, 0])[0, 1] < high


def test_a_rate_s_e_is_wald_away_from_the_ends_and_positive_at_them():
    assert calibration.rate_se(125, 500) == pytest.approx(np.sqrt(0.25 * 0.75 / 500), rel=0.01)
    assert 0 < calibration.rate_se(0, 3) < 0.5 and calibration.rate_se(3, 3) == calibration.rate_se(0, 3)


def test_the_normal_level_matches_a_simulated_inflated_null():
    """Φ̄(z·m/inflation) against the rejection rate of normal draws with s.d. inflation·σ₀."""
    rng = np.random.default_rng(0)
    inflation, sigma0 = 1.25, 0.03
    draws = 0.5 + inflation * sigma0 * rng.standard_normal(200_000)
    for test, multiplier in calibration.null_multipliers(5).items():
        simulated = np.mean((draws - 0.5) / (multiplier * sigma0) > 1.6448536269514722)
        assert calibration.normal_level(inflation, multiplier) == pytest.approx(simulated, abs=0.003), test


def test_the_fpr_mechanism_names_the_inflation_only_when_it_accounts_for_the_rate():
    row = {"pool": "noise", "alpha": 0.3, "n": 300, "broken": False, "inflation": 1.2, "fpr_sigma0": 0.085,
           "fpr_sigma0_se": 0.012}
    text = calibration.fpr_mechanism(pd.DataFrame([row]), "sigma0", True, 5, 0.05, "rates.parquet")
    assert "1.20·σ₀" in text and "0.085" in text and "`rates.parquet`" in text
    far = pd.DataFrame([{**row, "fpr_sigma0": 0.2}])
    assert calibration.fpr_mechanism(far, "sigma0", True, 5, 0.05, "rates.parquet") == ""


def test_stress_reps_leave_the_papers_pool_as_it_was():
    """The stress pool's own replicate count: the paper's pool (drawn first, position-stable seeds) is unchanged."""
    shape = dict(broken_cells=[(1.0, 100)], n_cells=30, d=4, n_seeds=2)
    both = calibration.null_replicates([(0.5, 60)], 4, **shape)
    fewer = calibration.null_replicates([(0.5, 60)], 4, stress_reps=2, **shape)
    assert fewer.pool.value_counts().to_dict() == {"noise": 8, "cell-structured": 4}
    pd.testing.assert_frame_equal(fewer[fewer.pool == "noise"], both[both.pool == "noise"])
