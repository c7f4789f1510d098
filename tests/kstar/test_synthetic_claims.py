"""lib.kstar.world.synthetic_claims: the evidence of K04's claims (paper 002, A.3.4) against closed forms and
Monte Carlo."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from lib import stats
from lib.kstar.world import synthetic_claims as sc
from lib.kstar.world.convergence import Population


def _final(rows):
    return pd.DataFrame(rows, columns=["model", "query", "basis", "role", "function", "n_factors", "readable",
                                       "count"])


def test_the_log_se_of_a_median_of_lognormal_counts_matches_monte_carlo():
    draws = sc.family_median_draws([30.0], [25], 0.8, n=20000, seed=1)[:, 0]
    assert np.std(np.log(draws)) == pytest.approx(sc.median_log_se(0.8, 25), rel=0.05)
    assert np.median(draws) == pytest.approx(30.0, rel=0.02)
    with pytest.raises(ValueError, match="one size"):
        sc.family_median_draws([1.0, 2.0], [3], 0.5)


def test_the_pooled_log_sd_reads_families_read_by_two_or_more_models():
    final = _final([("a", "threshold2_control", "raw", "control", "threshold", 2, True, 8.0),
                    ("b", "threshold2_control", "raw", "control", "threshold", 2, True, 32.0),
                    ("a", "threshold4_control", "raw", "control", "threshold", 4, True, 16.0),
                    ("a", "threshold8_control", "raw", "control", "threshold", 8, False, math.nan)])
    assert sc.control_log_sd(final, "raw") == pytest.approx(np.std(np.log([8.0, 32.0]), ddof=1))
    assert math.isnan(sc.control_log_sd(final.iloc[2:], "raw"))


def _probes(model, query, basis, dense, singles):
    rows = [{"model": model, "kind": "probe", "update": 100, "query": query, "basis": basis, "layer": 0,
             "path": "dense", "size": 64, "value": dense}]
    rows += [{"model": model, "kind": "probe", "update": 100, "query": query, "basis": basis, "layer": 0,
              "path": path, "size": 1, "value": v} for path, v in zip(("prefix", "l1"), singles, strict=True)]
    return rows


def test_a_count_of_two_within_the_test_noise_of_one_coordinate_is_named():
    final = _final([("m", "threshold8_target", "raw", "target", "threshold", 8, True, 2.0),
                    ("m", "parity2_target", "raw", "target", "parity", 2, True, 1.0),
                    ("m", "parity4_target", "raw", "target", "parity", 4, True, 5.0)])
    runs = pd.DataFrame(_probes("m", "threshold8_target", "raw", 0.99, (0.971, 0.972))
                        + _probes("m", "parity2_target", "raw", 1.0, (1.0, 1.0))
                        + _probes("m", "parity4_target", "raw", 0.95, (0.6, 0.6)))
    gaps = sc.single_coordinate_gaps(runs, final, n_test=1000).set_index("query")
    assert "parity4_target" not in gaps.index  # not a learned family
    row = gaps.loc["threshold8_target"]
    assert row.tau == pytest.approx(0.5 + 0.95 * 0.49) and row.single_auroc == pytest.approx(0.9715)
    n_pos = round(0.63671875 * 1000)
    assert row.se == pytest.approx(float(stats.hanley_mcneil_se(0.9715, n_pos, 1000 - n_pos)))
    assert row.z == pytest.approx((row.tau - 0.9715) / row.se)
    text = sc.noise_mechanism(gaps.reset_index(), ["m"], "raw", "target_readouts.parquet")
    assert "target_readouts.parquet" in text and "threshold8_target" in text
    wide = gaps.reset_index().assign(z=5.0)
    assert sc.noise_mechanism(wide, ["m"], "raw", "x.parquet") == ""  # read wide beyond the noise: unexplained
    assert sc.noise_mechanism(gaps.reset_index(), ["other"], "raw", "x.parquet") == ""


def test_chance_queries_pass_the_gate_at_the_closed_form_rate():
    draws = sc.chance_readable_draws(10, 3, 160, 0.55, n=20000, seed=2)
    sigma0 = float(stats.null_auc_sd(80, 80))
    per_cell = 1 - (1 - sps.norm.sf(0.05 / sigma0)) ** 3
    assert draws.mean() == pytest.approx(10 * per_cell, rel=0.03)
    assert sc.chance_readable_draws(4, 6, 1000, 0.9, n=100).max() == 0  # 0.9 is 22 null s.d. above ½


def test_basis_evidence_reads_the_converged_models_and_the_controls():
    rows = [("m", "threshold2_target", "raw", "target", "threshold", 2, True, 1.0),
            ("m", "conjunction2_target", "raw", "target", "conjunction", 2, True, 2.0),
            ("n", "threshold2_target", "raw", "target", "threshold", 2, True, 8.0)]
    rows += [(model, f"threshold{k}_control", "raw", "control", "threshold", k, True, c)
             for model, k, c in [("m", 2, 20.0), ("n", 2, 40.0), ("m", 8, 30.0), ("n", 8, 60.0)]]
    final = _final(rows)
    medians = pd.DataFrame({"basis": "raw", "role": "control", "function": "threshold", "n_factors": [2, 8],
                            "readable": [2, 2], "median": [30.0, 45.0]})
    overlap = pd.DataFrame({"basis": ["raw"], "overlap_n": [2], "overlap_median": [45.0], "others_n": [2],
                            "others_median": [30.0]})
    association = pd.DataFrame({"basis": ["raw"], "n": [4], "spearman": [0.5], "loglog_slope": [0.3]})
    gaps = pd.DataFrame(columns=["model", "query", "basis", "count", "single_auroc", "tau", "se", "z"])
    trained = Population(("m",), "1 of 2 models within the convergence margin (m)", "")
    found = sc.basis_evidence(final, medians, overlap, association, trained, "raw", gaps, "g.parquet")
    assert found["targets_at_one"].value == 0.5  # m only: one of its two targets at one
    assert found["targets_at_one"].note.endswith(trained.note) and found["targets_at_one"].undefined == ""
    assert np.all(found["targets_at_one"].if_null == 0.0)  # no control reads at one
    assert found["no_control_at_one"].value == 0.0
    low = found["control_median_min"]
    assert low.value == pytest.approx(math.log2(30.0))
    assert low.se == pytest.approx(sc.median_log_se(sc.control_log_sd(final, "raw"), 2) / math.log(2))
    assert found["overlap_not_narrower"].value == pytest.approx(math.log2(1.5))
    assert found["size_spearman"].se == pytest.approx(1 / math.sqrt(3))
    assert sc.control_count_draws(final, "raw", n=50).min() >= 20.0
    nobody = Population((), "no model within the convergence margin", "no model reached the convergence margin (n: …)")
    unread = sc.basis_evidence(final, medians, overlap, association, nobody, "raw", gaps, "g.parquet")
    assert unread["targets_at_one"].undefined == nobody.undefined and math.isnan(unread["targets_at_one"].value)
