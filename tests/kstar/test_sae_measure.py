"""lib.kstar.sae.sae_measure: the SAE layer by neighbour confirmation and the supports (paper 002, A.1.10), on
hand-built sweep rows with known answers; the SAEs of a block from a released suite laid out on disk as released
(lib.kstar.sae.suites) or from training."""

import json
import math

import numpy as np
import pandas as pd
import pytest
import torch
from safetensors.numpy import save_file

from lib import config, runner
from lib.kstar.sae import sae as saes
from lib.kstar.sae import sae_measure, suites

NOTEBOOK = "K06_sae_correspondence"
D, D_SAE = 32, 64  # tiny-bert's width (its blocks 0 and 1 are the smoke profile's grid:2) and a dictionary twice it


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


def _release(root, layout, layer, rng, l0=70):
    """Layer ``layer``'s SAE of random weights written where and as ``layout``'s release keeps it; returns the file."""
    W_enc, b_enc = rng.standard_normal((D_SAE, D)), rng.standard_normal(D_SAE) * 0.3
    W_dec, b_dec = rng.standard_normal((D_SAE, D)), rng.standard_normal(D)
    f32 = {"W_enc": W_enc.T, "W_dec": W_dec, "b_enc": b_enc, "b_dec": b_dec, "threshold": rng.uniform(0, 1, D_SAE)}
    f32 = {key: np.ascontiguousarray(value, dtype=np.float32) for key, value in f32.items()}
    if layout == "gemma-scope":
        path = root / f"layer_{layer}" / "width_16k" / f"average_l0_{l0}" / "params.npz"
        path.parent.mkdir(parents=True)
        np.savez(path, **f32)
    elif layout == "gemma-scope-2":
        path = root / "resid_post_all" / f"layer_{layer}_width_16k_l0_medium" / "params.safetensors"
        path.parent.mkdir(parents=True)
        save_file({key.lower(): value for key, value in f32.items()}, str(path))
    elif layout == "llama-scope":
        path = root / f"Llama3_1-8B-Base-L{layer}R-8x" / "checkpoints" / "final.safetensors"
        path.parent.mkdir(parents=True)
        save_file({"encoder.weight": np.ascontiguousarray(f32["W_enc"].T), "encoder.bias": f32["b_enc"],
                   "decoder.weight": np.ascontiguousarray(f32["W_dec"].T), "decoder.bias": f32["b_dec"]}, str(path))
        (path.parent.parent / "hyperparams.json").write_text(json.dumps(
            {"jump_relu_threshold": 0.3, "dataset_average_activation_norm": {"in": 7.0, "out": 9.0}}))
    else:
        path = root / f"layer{layer}.sae.pt"
        root.mkdir(parents=True, exist_ok=True)
        torch.save({"W_enc": torch.from_numpy(W_enc), "W_dec": torch.from_numpy(W_dec.T.copy()),
                    "b_enc": torch.from_numpy(b_enc), "b_dec": torch.from_numpy(b_dec)}, path)
    return path


#: The arguments sae.load needs for each layout's file (Llama Scope's from the hyperparams.json written above).
LOAD_ARGS = {"gemma-scope": {"kind": "jumprelu"}, "gemma-scope-2": {"kind": "jumprelu"},
             "llama-scope": {"kind": "jumprelu", "threshold": 0.3, "input_scale": math.sqrt(D) / 7.0,
                             "fold_decoder_norms": True},
             "qwen-scope": {"kind": "topk"}}


def _untrained(*args, **kwargs):
    raise AssertionError("a model with a released suite trains no SAE")


@pytest.mark.parametrize("layout", list(suites.LAYOUTS))
def test_a_released_suite_gives_each_block_the_encoder_that_sae_load_reads_from_its_file(tmp_path, layout):
    rng = np.random.default_rng(7)
    files = {block: _release(tmp_path, layout, block, rng) for block in (0, 1)}
    suite = suites.by_model([["tiny-bert", layout, str(tmp_path)]], ["tiny-bert", "tiny-llama"])["tiny-bert"]
    assert suites.files(suite, (0, 1)) == files
    by_block = sae_measure.block_saes("tiny-bert", grids={"tiny-bert": (0, 1)}, released={"tiny-bert": suite},
                                      steps=20, train=_untrained)
    H = rng.standard_normal((12, D)) * 3
    for block, path in files.items():
        reference = saes.load(path, d_model=D, **LOAD_ARGS[layout])
        assert by_block[block].kind == reference.kind and by_block[block].d_sae == D_SAE
        np.testing.assert_array_equal(by_block[block].encode(H).toarray(), reference.encode(H).toarray())


def test_gemma_scope_blocks_read_the_l0_closest_to_70_and_suite_layer_l_is_block_l(tmp_path):
    rng = np.random.default_rng(8)
    for l0 in (40, 75, 120):
        _release(tmp_path, "gemma-scope", 0, rng, l0)
    for l0 in (65, 75):  # a tie goes to the smaller N
        _release(tmp_path, "gemma-scope", 1, rng, l0)
    suite = suites.Suite("tiny-bert", "gemma-scope", str(tmp_path))
    assert suites.files(suite, (0, 1)) == {
        0: tmp_path / "layer_0/width_16k/average_l0_75/params.npz",
        1: tmp_path / "layer_1/width_16k/average_l0_65/params.npz"}


def test_without_a_suite_the_block_saes_are_the_trained_ones_at_the_steps_asked():
    trained = {10: {0: "half", 1: "half"}, 20: {0: "full", 1: "full"}}
    calls = []

    def train(model, *, blocks):
        calls.append((model, blocks))
        return trained

    assert sae_measure.block_saes("m", grids={"m": [0, 1]}, released={}, steps=20, train=train) == trained[20]
    assert calls == [("m", (0, 1))]


def test_a_grid_block_without_a_file_in_the_suite_stops_before_compute_in_one_line(tmp_path):
    _release(tmp_path, "qwen-scope", 0, np.random.default_rng(9))
    suite = [["tiny-bert", "qwen-scope", str(tmp_path)]]
    with pytest.raises(config.ConfigError) as refused:
        runner.validated([NOTEBOOK], "smoke", {"sae_suites": suite})  # what `lib run` checks before executing
    message = str(refused.value)
    assert message == (
        f"{NOTEBOOK}: parameter 'sae_suites': the qwen-scope suite of 'tiny-bert' ({tmp_path}) has no SAE for "
        f"block 1 (no layer1.sae.pt in {tmp_path}); allowed: the blocks with a file there (0) in layers, or that "
        "layer's file added")
    runner.validated([NOTEBOOK], "smoke", {"sae_suites": suite, "layers": "0"})  # the grid the suite covers passes


@pytest.mark.parametrize("source", ["absent", "google/gemma-scope-9b-pt-res"])
def test_a_suite_folder_that_is_missing_stops_in_one_line(tmp_path, monkeypatch, source):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    value = str(tmp_path / source) if source == "absent" else source
    with pytest.raises(config.ConfigError) as refused:
        runner.validated([NOTEBOOK], "smoke", {"sae_suites": [["tiny-bert", "gemma-scope", value]]})
    message = str(refused.value)
    assert message.startswith(f"{NOTEBOOK}: parameter 'sae_suites': the gemma-scope suite of 'tiny-bert' ({value}) "
                              "is neither a folder nor a hub id in the local hub cache; allowed: the folder of the "
                              "downloaded release, laid out as released (layer_{L}/width_16k/average_l0_{N}/params.npz "
                              "under it)")
    assert "\n" not in message


@pytest.mark.parametrize(("entry", "problem"), [
    (["gemma-2-9b", "gemma-scope", "x"], "'gemma-2-9b' is not one of models; allowed: 'tiny-bert', 'tiny-llama'"),
    (["tiny-bert", "gemmascope", "x"], "unknown layout 'gemmascope'; allowed: gemma-scope, gemma-scope-2, "
                                       "llama-scope, qwen-scope"),
    (["tiny-bert", "x"], "allowed: [model, layout, folder] with layout one of gemma-scope"),
])
def test_a_suite_entry_naming_no_model_or_layout_of_the_run_stops_before_compute(entry, problem):
    with pytest.raises(config.ConfigError) as refused:
        config.resolve(NOTEBOOK, "smoke", {"sae_suites": [entry]})  # the parameters alone: no model or file read
    assert str(refused.value).startswith(f"{NOTEBOOK}: parameter 'sae_suites' entry {entry!r}: ")
    assert problem in str(refused.value) and "\n" not in str(refused.value)
