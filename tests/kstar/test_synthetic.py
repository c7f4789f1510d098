"""lib.kstar.world.synthetic: the synthetic readout of paper 002, A.3.4
(Table 37, Propositions 6 and 7), on hand-built curves, exact enumerations and small real searches."""

import math
from itertools import product

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from lib import stats
from lib.kstar.protocol import fitscore, probe_search
from lib.kstar.world import ksyn, synthetic, world


@pytest.mark.parametrize("function", ["threshold", "conjunction"])
@pytest.mark.parametrize("size", [2, 4])
def test_proposition_6_exact_enumeration(function, size):
    """On the factor coordinates, a linear score on T reaches AUROC 1 iff T ⊇ S (exact over all of {0,1}^m)."""
    m = size + 2  # S = the first `size` coordinates; two more outside S
    z = np.array(list(product((0, 1), repeat=m)))
    label = world.aggregate(function, z[:, :size].sum(1), size)
    rng = np.random.default_rng(size)
    # T ⊇ S: the sum over S (plus anything on other coordinates of T with tiny weight) separates perfectly
    w = np.zeros(m)
    w[:size] = 1.0
    w[size] = 1e-3
    assert stats.auroc(label, z @ w) == 1.0
    # T misses one j ∈ S: every linear score on T ties a positive with a negative (random weights, many draws)
    for _ in range(50):
        w = rng.normal(size=m)
        w[rng.integers(size)] = 0.0
        assert stats.auroc(label, z @ w) < 1.0


def test_proposition_6_with_the_fitted_probe_on_sampled_factors():
    fw = world.FactorWorld()
    q = fw.query("threshold4_target")
    rng = np.random.default_rng(0)
    z = rng.integers(0, 2, size=(3000, 32))
    y = world.aggregate(q.function, z[:, list(q.factors)].sum(1), q.size)
    full, _ = fitscore.fit_score(z[:2000], y[:2000], z[2000:], y[2000:], 0)
    missing, _ = fitscore.fit_score(z[:2000, list(q.factors[1:])], y[:2000], z[2000:, list(q.factors[1:])], y[2000:], 0)
    assert full == 1.0 and missing < 0.97


def test_proposition_7_closed_form_matches_monte_carlo():
    rng = np.random.default_rng(1)
    for sigma in (0.5, 1.0, 2.0):
        U, V, y = synthetic.prop7_sample(rng, 40_000, sigma)
        assert np.allclose(V.sum(1), math.sqrt(2) * (2 * y - 1))
        for j in (0, 1):
            assert stats.auroc(y, V[:, j]) == pytest.approx(synthetic.prop7_coordinate_auroc(sigma), abs=0.006)
    assert synthetic.PROP7_SIGMA_MIN == pytest.approx(math.sqrt(2) / sps.norm.ppf(0.975))
    assert synthetic.prop7_coordinate_auroc(synthetic.PROP7_SIGMA_MIN) == pytest.approx(0.975)


@pytest.mark.parametrize(("sigma", "count_v"), [(1.2, 2), (0.4, 1)])
def test_proposition_7_counts_through_the_real_search(sigma, count_v):
    """σ > √2/Φ⁻¹(0.975): count 1 in U, 2 in V = QU; below the bound both read 1."""
    rng = np.random.default_rng(2)
    U, V, y = synthetic.prop7_sample(rng, 3000, sigma)
    for rep, expected in ((U, 1), (V, count_v)):
        found = probe_search.search(rep[:2000], y[:2000], rep[2000:], y[2000:], 0)
        assert ksyn.synthetic_count({1: found}).count == expected


def test_pca_basis_is_a_full_rank_rotation_of_the_centred_features():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 6)) @ rng.normal(size=(6, 6))
    P_tr, P_te = synthetic.pca_basis(X[:150], X[150:])
    centred = X[150:] - X[:150].mean(0)
    assert np.allclose(np.linalg.norm(P_te, axis=1), np.linalg.norm(centred, axis=1))
    assert np.allclose(np.cov(P_tr.T) - np.diag(np.diag(np.cov(P_tr.T))), 0, atol=1e-8)


def _counts(rows):
    return pd.DataFrame([{"model": m, "update": 1, "query": q, "basis": "raw", "readable": np.isfinite(c),
                          "count": c, "role": q.split("_")[1], "function": f, "n_factors": s}
                         for m, q, f, s, c in rows])


def test_overlap_comparison_and_size_association_on_a_known_table():
    rows = []
    for m in range(4):
        rows += [(m, "threshold8_control", "threshold", 8, 60.0 + m),
                 (m, "threshold2_control", "threshold", 2, 10.0 + m),
                 (m, "threshold16_control", "threshold", 16, 40.0 + m),
                 (m, "conjunction4_control", "conjunction", 4, 20.0 + m),
                 (m, "threshold8_target", "threshold", 8, 1.0), (m, "parity8_control", "parity", 8, math.nan)]
    counts = _counts(rows)
    overlap = synthetic.overlap_comparison(counts).iloc[0]
    assert overlap.overlap_median == 61.5 and overlap.others_n == 12 and overlap.others_median == 21.5
    assert overlap.mannwhitney_p == pytest.approx(
        sps.mannwhitneyu([60, 61, 62, 63], [10, 11, 12, 13, 40, 41, 42, 43, 20, 21, 22, 23]).pvalue)
    assoc = synthetic.size_association(counts).iloc[0]
    assert assoc.n == 16 and assoc.spearman > 0.5
    medians = synthetic.family_medians(counts)
    parity = medians[medians.function == "parity"].iloc[0]
    assert parity.readable == 0 and parity.models == 4


def test_model_table_and_counts_end_to_end_on_a_tiny_model():
    table = synthetic.model_table("gru-d8-L1-s0", updates=4, checkpoints=[2], tracked=["threshold2_target"],
                                  n_train=200, n_test=200, n_eval=16, batch_size=8, readable_above=0.5)
    assert set(table.kind) == {"loss", "accuracy", "probe"} and (table.model == "gru-d8-L1-s0").all()
    probes = table[table.kind == "probe"]
    assert set(probes.loc[probes["update"] == 2, "query"]) == {"threshold2_target"}
    assert probes.loc[probes["update"] == 4, "query"].nunique() == 18
    assert set(probes.basis) == {"raw", "pca"} and set(probes.layer) == {0, 1}
    counts = synthetic.counts_table(table, readable_above=0.5)
    assert len(counts) == (1 + 18) * 2
    assert counts.loc[counts.readable, "count"].ge(1).all() and counts.loc[~counts.readable, "count"].isna().all()
    # the embedding layer reads nothing at the query position: it never supplies a count
    assert (counts.loc[counts.readable, "layer"] == 1).all()


def test_a_model_trained_to_the_margin_is_measured_at_its_own_last_update():
    args = {"checkpoints": [2], "tracked": [], "n_train": 200, "n_test": 200, "n_eval": 16, "batch_size": 8,
            "readable_above": 0.5}
    never = synthetic.model_table("gru-d8-L1-s0", updates=4, loss_margin=1e-9, max_updates=9, check_every=2, **args)
    assert never[never.kind == "loss"]["update"].max() == 9  # a margin no tiny model reaches: the cap
    probes = never[never.kind == "probe"]
    assert set(probes["update"]) == {9} and set(never.loc[never.kind == "accuracy", "update"]) == {2, 9}
    wide = synthetic.model_table("gru-d8-L1-s0", updates=4, loss_margin=100.0, max_updates=9, check_every=2, **args)
    assert wide[wide.kind == "loss"]["update"].max() == 4  # within a wide margin at the first check
    both = pd.concat([never, wide.assign(model="other")], ignore_index=True)
    last = synthetic.last_updates(both[both.kind == "accuracy"])
    assert last.groupby("model")["update"].max().to_dict() == {"gru-d8-L1-s0": 9, "other": 4}
    assert set(last["update"]) == {4, 9} and len(last) == 2 * 51


def test_check_plan_names_the_bad_value():
    fw = world.FactorWorld()
    assert [s.name for s in synthetic.check_plan(["gru-d8-L1-s0"], ["parity2_target"], [5], 10, fw)] == ["gru-d8-L1-s0"]
    with pytest.raises(ValueError, match="rnn"):
        synthetic.check_plan(["rnn-d8-L1-s0"], [], [], 10, fw)
    with pytest.raises(ValueError, match="parity3_target"):
        synthetic.check_plan(["gru-d8-L1-s0"], ["parity3_target"], [], 10, fw)
    with pytest.raises(ValueError, match=r"checkpoints \[20\]"):
        synthetic.check_plan(["gru-d8-L1-s0"], [], [20], 10, fw)
    with pytest.raises(ValueError, match="distinct"):
        synthetic.check_plan(["gru-d8-L1-s0", "gru-d8-L1-s0"], [], [], 10, fw)


def test_models_trained_side_by_side_equal_each_model_trained_alone_on_more_threads(sandbox):
    """Each model trains on one torch thread, so two worker processes give exactly the tables one process gives
    with two threads (the workers are fresh processes: they cache in the repository's content-keyed table cache,
    while this process reads the sandbox's, empty, and computes its own). Over 20 s: the two workers are fresh
    processes that each import torch and the library before their six updates; that start-up is what is tested."""
    import torch

    names, args = ["gru-d32-L1-s0", "transformer-d32-L1-s1"], {
        "updates": 6, "checkpoints": [], "tracked": [], "n_train": 120, "n_test": 120, "n_eval": 16,
        "batch_size": 64, "readable_above": 0.5, "n_jobs": 1}
    side_by_side = synthetic.model_tables(names, [], model_args=args, converge_args={}, n_jobs=2)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        alone = pd.concat([synthetic.model_table(name, **args) for name in names], ignore_index=True)
        assert torch.get_num_threads() == 2  # the one-thread block gives the threads back
    finally:
        torch.set_num_threads(before)
    pd.testing.assert_frame_equal(side_by_side, alone)
