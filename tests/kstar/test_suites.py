"""lib.kstar.sae.suites: released SAE suites laid out on disk as released (paper 002, A.1.10, "Models."): which file
holds a block's SAE, the encoders K06 reads from them (equal to lib.kstar.sae.sae.load's on the same file), and
the one-line refusals before any compute (a missing folder, a grid block without a file, an entry naming no model
or layout of the run)."""

import json
import math

import numpy as np
import pytest
import torch
from safetensors.numpy import save_file

from lib import config, runner
from lib.kstar.sae import sae as saes
from lib.kstar.sae import sae_measure, suites

NOTEBOOK = "K06_sae_correspondence"
D, D_SAE = 32, 64  # tiny-bert's width (its blocks 0 and 1 are the smoke profile's grid:2) and a dictionary twice it


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
