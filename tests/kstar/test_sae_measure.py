"""lib.kstar.sae.sae_measure: the SAE layer by neighbour confirmation and the supports (paper 002, A.1.10), on
hand-built sweep rows with known answers; without a released suite, the SAEs of a block are the trained ones
(tests/kstar/test_suites.py reads the released suites)."""

import math
import types

import numpy as np
import pandas as pd
import pytest

from lib.kstar.sae import sae as saes
from lib.kstar.sae import sae_measure


def _search(decision, pooling, block, count, top=0.9, dense=0.9, l1=None):
    """Rows of one sweep search whose prefixes reach ``top`` from size ``count`` on (∞: never)."""
    common = {"model": "m", "task": "t", "decision": decision, "pooling": pooling, "block": block, "seed": 0,
              "n_test_pos": 50, "n_test_neg": 50, "n_fits": 60}
    rows = [{**common, "path": "dense", "size": 64, "auroc": dense, "gamma": 1.0, "support": None}]
    for k in (1, 2, 4, 8, 16, 32, 64):
        auroc = top if count != math.inf and k >= count else 0.6
        rows.append({**common, "path": "prefix", "size": k, "auroc": auroc, "gamma": 1.0,
                     "support": [100 * block + j for j in range(k)]})
    if l1 is not None:  # an L1 support of that size at the top AUROC
        rows.append({**common, "path": "l1", "size": len(l1), "auroc": top, "gamma": 0.1, "support": l1})
    return rows


def _sweep():
    rows = []
    sae_counts = {1: (4, 8), 2: (2, 2), 3: (16, 16), 4: (1, math.inf)}
    for block, (c1, c2) in sae_counts.items():
        rows += _search("d1", "sae", block, c1, l1=[7, 9, 11] if block == 2 else None)
        rows += _search("d2", "sae", block, c2, l1=[7] if block == 2 else None)
        rows += _search("d3", "sae", block, 1)
        for decision in ("d1", "d2"):
            rows += _search(decision, "mean", block, 1)
        rows += _search("d3", "mean", block, 1, top=0.95 if block == 1 else 0.9)  # raises d3's ceiling
    return pd.DataFrame(rows)


def test_sae_layer_is_the_better_block_of_the_pair_with_the_smallest_larger_median():
    layers = sae_measure.sae_layers(_sweep())
    row = layers.iloc[0]
    # d3 reads ∞ everywhere; medians 8, 2, 16, ∞ → pairwise maxima 8, 16, ∞: pair (1, 2), its better block 2
    assert list(row.pair) == [1, 2] and row.sae_block == 2 and row.pair_median == 8


def test_supports_take_the_smallest_qualifying_candidate_against_the_ceiling_of_every_representation():
    sweep = _sweep()
    table = sae_measure.supports(sweep, sae_measure.sae_layers(sweep)).set_index("decision")
    assert table.loc["d1", "size"] == 2 and table.loc["d1", "support"] == [200, 201]  # prefix 2 beats L1 of 3
    assert table.loc["d2", "size"] == 1 and table.loc["d2", "support"] == [7]  # L1 of 1 beats prefix 2
    # d3's ceiling is 0.95 (the mean residual): τ = 0.9275 and no SAE candidate (0.9) reaches it
    assert table.loc["d3", "ceiling"] == 0.95 and not table.loc["d3", "has_support"]
    assert sae_measure.support_map(table.reset_index(), "t") == {("m", "d1"): [200, 201], ("m", "d2"): [7],
                                                                 ("m", "d3"): None}


def test_dictionary_mechanism_names_small_dictionaries_only():
    comp = pd.DataFrame({"model": ["a", "a", "b"], "decision": ["x", "y", "x"], "dictionary_size": [3, 5, 4]})
    text = sae_measure.dictionary_mechanism(comp, "bbc_topic", "composition.parquet")
    assert "1 to 2 class decisions" in text and "median of 4 features (composition.parquet)" in text
    assert sae_measure.dictionary_mechanism(comp.assign(dictionary_size=60), "bbc_topic", "c.parquet") == ""
    assert sae_measure.dictionary_mechanism(comp.iloc[:0], "bbc_topic", "c.parquet") == ""


def test_without_a_suite_the_block_saes_are_the_trained_ones_at_the_steps_asked():
    trained = {10: {0: "half", 1: "half"}, 20: {0: "full", 1: "full"}}
    calls = []

    def train(model, *, blocks):
        calls.append((model, blocks))
        return trained

    assert sae_measure.block_saes("m", grids={"m": [0, 1]}, released={}, steps=20, train=train) == trained[20]
    assert calls == [("m", (0, 1))]


def test_support_shortfall_gives_each_models_gap_below_tau_only_when_no_decision_has_a_support():
    assert sae_measure.support_shortfall(_sweep(), sae_measure.supports(_sweep(), sae_measure.sae_layers(_sweep())),
                                         "t", "sae_sweep.parquet") == ""  # d1 and d2 hold a support
    rows = []
    for block in (1, 2):
        for decision, dense in (("d1", 0.9), ("d2", 0.8)):  # SAE codes read 0.9 and 0.8 at best
            rows += _search(decision, "sae", block, math.inf, dense=dense)
            rows += _search(decision, "mean", block, 1, top=0.98)  # ceiling 0.98: τ = 0.956
    sweep = pd.DataFrame(rows)
    table = sae_measure.supports(sweep, sae_measure.sae_layers(sweep))
    text = sae_measure.support_shortfall(sweep, table, "t", "sae_sweep.parquet")
    assert "m: 0 of 2, short by a median 0.106; sae_sweep.parquet)" in text  # (0.056 + 0.156) / 2
    assert sae_measure.support_shortfall(sweep, table, "other task", "sae_sweep.parquet") == ""


def test_quality_table_gives_the_cosine_a_constant_reconstruction_reaches(monkeypatch):
    """Residuals made of a shared direction plus small per-text parts: the training mean alone reconstructs them to
    a cosine near 1, whatever the SAE does; an SAE with no decoder bias reconstructs nothing."""
    rng = np.random.default_rng(0)
    shared = np.zeros(8)
    shared[0] = 30.0
    states = (shared + rng.normal(size=(1, 30, 8))).astype(np.float32)  # (blocks, train 20 + test 10, d)
    pool = types.SimpleNamespace(texts_train=[f"t{i}" for i in range(20)])
    monkeypatch.setattr(sae_measure, "last_states", lambda model, p, blocks, max_tokens: states)
    sae = saes.SAE("topk", rng.normal(size=(16, 8)), np.zeros(16), 0.0, 2, np.zeros((16, 8)), np.zeros(8))
    table = sae_measure.quality_table("m", {3: sae}, {"task": pool}, None)
    test, mean = states[0, 20:].astype(np.float64), states[0, :20].astype(np.float64).mean(0)
    expected = np.median(test @ mean / np.linalg.norm(test, axis=1) / np.linalg.norm(mean))
    assert table.mean_cosine_median.iloc[0] == pytest.approx(expected) and expected > 0.98
    assert table.cosine_median.iloc[0] == 0.0  # a zero decoder: reconstruction 0, cosine 0 (floored norm)
    text = sae_measure.reconstruction_mechanism(table, "sae_quality.parquet")
    assert f"median cosine of {expected:.3f}" in text and "against the SAEs' 0.000 (sae_quality.parquet)" in text
    assert sae_measure.reconstruction_mechanism(table.iloc[:0], "sae_quality.parquet") == ""
