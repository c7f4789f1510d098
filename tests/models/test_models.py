"""lib.models: real offline models, batched extraction, pooling and the content-keyed cache."""

import json
import threading

import numpy as np
import pytest
import torch

from lib import files, paths
from lib.models import converters, extraction, layer_resolver, loading, registry

TEXTS = ["The man works as a nurse.", "The woman is very quiet today.", "The person spent the afternoon reading.",
         "The elderly neighbor enjoys doing the laundry on weekends.", "The individual is curious."]


def test_minilm_all_layers_match_a_per_sentence_loop(sandbox):
    batched = extraction.extract("minilm", TEXTS, progress=False, batch_size=4)
    assert batched.shape == (7, len(TEXTS), 384) and batched.dtype == np.float32
    single = np.stack([extraction.compute_hidden_states("minilm", [t], progress=False)[:, 0] for t in TEXTS], axis=1)
    np.testing.assert_allclose(batched, single, atol=1e-5)


def test_length_batches_sort_by_length_and_respect_both_limits():
    lengths = [5, 3, 9, 9, 2, 40, 1]
    batches = extraction.length_batches(lengths, max_texts=3, token_budget=20)
    assert [b.tolist() for b in batches] == [[6, 4, 1], [0, 2], [3], [5]]  # 40 tokens exceed the budget: alone
    assert all(len(b) <= 3 and (len(b) == 1 or len(b) * max(lengths[i] for i in b) <= 20) for b in batches)
    assert sorted(np.concatenate(batches).tolist()) == list(range(len(lengths)))
    with pytest.raises(ValueError, match="token_budget=0"):
        extraction.length_batches(lengths, 3, 0)


def test_mean_pooling_is_the_masked_token_average():
    model, tokenizer = loading.load("minilm")
    encoded = tokenizer([TEXTS[0]], return_tensors="pt")
    with torch.inference_mode():
        hidden = model(**encoded, output_hidden_states=True).hidden_states[3][0]
    expected = hidden.mean(0).numpy()
    got = extraction.compute_hidden_states("minilm", [TEXTS[0], TEXTS[3]], progress=False)[3, 0]
    np.testing.assert_allclose(got, expected, atol=1e-5)


def test_cache_hit_and_corruption_recovery(sandbox, monkeypatch):
    first = extraction.extract("minilm", TEXTS, layers=[0, 6], progress=False)
    entry = next((sandbox / "cache" / "features").iterdir())
    with monkeypatch.context() as patch:
        patch.setattr(extraction, "_compute", lambda *args: pytest.fail("a cache hit ran the model"))
        again = extraction.extract("minilm", TEXTS, layers=[0, 6], progress=False)
    np.testing.assert_array_equal(first, again)
    layer = entry / "layer_006.npy"
    layer.write_bytes(layer.read_bytes()[:100])  # truncated: must be detected and recomputed
    np.testing.assert_allclose(extraction.extract("minilm", TEXTS, layers=[0, 6], progress=False), first, atol=1e-6)
    assert layer.stat().st_size > 100


def test_a_flipped_byte_in_a_cached_layer_is_reported_and_recomputed(sandbox, capsys):
    from conftest import flip_byte

    clean = extraction.extract("minilm", TEXTS, layers=[0, 6], progress=False)
    layer = next((sandbox / "cache" / "features").iterdir()) / "layer_006.npy"
    flip_byte(layer, offset=layer.stat().st_size - 3)  # inside the last float: same size, same shape, other value
    capsys.readouterr()
    again = extraction.extract("minilm", TEXTS, layers=[0, 6], progress=False)
    np.testing.assert_allclose(again, clean, atol=1e-6)
    [line] = capsys.readouterr().err.splitlines()
    assert "layer_006.npy" in line and "checksum" in line
    np.testing.assert_array_equal(extraction.extract("minilm", TEXTS, layers=[0, 6], progress=False), again)
    assert capsys.readouterr().err == ""


def test_a_built_model_whose_weights_no_longer_match_is_rebuilt(tmp_path, monkeypatch, capsys):
    from conftest import flip_byte

    monkeypatch.setattr(paths, "MODELS_DIR", tmp_path)
    folder = loading.model_folder("tiny-bert")
    assert (folder / "SHA256SUMS").is_file()
    clean = extraction.compute_hidden_states("tiny-bert", TEXTS[:2], progress=False)
    weights = folder / "model.safetensors"
    flip_byte(weights)
    capsys.readouterr()
    assert loading.model_folder("tiny-bert") == folder
    assert "model folder" in capsys.readouterr().err and files.folder_sums_match(folder)
    loading.load_cached.cache_clear()
    np.testing.assert_array_equal(extraction.compute_hidden_states("tiny-bert", TEXTS[:2], progress=False), clean)


def test_only_requested_layers_are_stored_and_later_requests_add_to_them(sandbox):
    first = extraction.extract("minilm", TEXTS, layers=[6], progress=False)
    entry = next((sandbox / "cache" / "features").iterdir())
    assert sorted(p.name for p in entry.glob("*.npy")) == ["layer_006.npy"]
    both = extraction.extract("minilm", TEXTS, layers=[2, 6], progress=False)
    assert sorted(p.name for p in entry.glob("*.npy")) == ["layer_002.npy", "layer_006.npy"]
    np.testing.assert_allclose(both[1], first[0], atol=1e-6)
    np.testing.assert_allclose(extraction.extract("minilm", TEXTS, progress=False)[[2, 6]], both, atol=1e-5)


def test_several_poolings_from_one_pass_equal_one_pooling_at_a_time(sandbox):
    together = extraction.extract_poolings("minilm", TEXTS, layers=[3], progress=False)
    assert set(together) == set(extraction.POOLINGS)
    for pooling, states in together.items():
        alone = extraction.compute_hidden_states("minilm", TEXTS, pooling=pooling, progress=False)[[3]]
        np.testing.assert_allclose(states, alone, atol=1e-5)
        np.testing.assert_array_equal(extraction.extract("minilm", TEXTS, pooling=pooling, layers=[3]), states)
    with pytest.raises(ValueError, match="poolings=.* is not allowed"):
        extraction.extract_poolings("minilm", TEXTS, poolings=("mean", "mean"))


@pytest.mark.parametrize("pooling", ["last", "max"])
def test_other_poolings(pooling):
    states = extraction.compute_hidden_states("minilm", TEXTS, pooling=pooling, progress=False)
    assert states.shape == (7, len(TEXTS), 384) and np.isfinite(states).all()


def test_decoder_plumbing_with_a_tiny_random_llama(tmp_path):
    """Right padding and `last` pooling on a decoder (a tiny random model: plumbing only)."""
    from transformers import LlamaConfig, LlamaModel

    config = LlamaConfig(vocab_size=30522, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=2)
    LlamaModel(config).save_pretrained(tmp_path, safe_serialization=True)
    loading.load("minilm")[1].save_pretrained(tmp_path)  # a real tokenizer; ids fit the 30522-word vocabulary
    _, tokenizer = loading.load(str(tmp_path))
    texts = ["a b", "a b c d e f"]
    batched = extraction.compute_hidden_states(str(tmp_path), texts, pooling="last", progress=False)
    alone = extraction.compute_hidden_states(str(tmp_path), texts[:1], pooling="last", progress=False)
    assert batched.shape == (3, 2, 16)
    np.testing.assert_allclose(batched[:, 0], alone[:, 0], atol=1e-5)
    assert tokenizer.padding_side == "right"


def test_bad_input_fails_before_compute():
    with pytest.raises(ValueError, match="pooling='median' is not supported; allowed: mean, last, max"):
        extraction.extract("minilm", TEXTS, pooling="median")
    with pytest.raises(ValueError, match=r"layers=\[9\] is out of range; allowed: 'all' or indices 0..6"):
        extraction.extract("minilm", TEXTS, layers=[9])
    with pytest.raises(ValueError, match="non-empty"):
        extraction.extract("minilm", [])
    with pytest.raises(ValueError, match="no chat template"):
        extraction.compute_hidden_states("minilm", TEXTS, chat_template=True, progress=False)


def test_hub_id_without_local_copy_fails_fast(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(registry.ModelUnavailableError, match="Offline defaults: minilm, smollm2-135m"):
        loading.model_folder("gpt2-xl")  # offline: refused from the local cache, no network attempt
    with pytest.raises(registry.ModelUnavailableError, match="is not a folder"):
        loading.model_folder("/no/such/checkpoint")


def test_registry_and_layers():
    assert set(registry.OFFLINE_DEFAULTS) <= set(registry.REGISTRY)
    assert loading.n_layers("minilm") == 6 and layer_resolver.mid_layer("minilm") == 3


@pytest.mark.models
def test_the_gguf_record_is_dropped_from_a_converted_config(tmp_path):
    """The dequantised SmolLM2 is plain float32; its config must not claim GGUF quantisation."""
    record = {"dequantize": False, "gguf_file": "m.gguf", "quant_method": "gguf"}
    (tmp_path / "config.json").write_text(json.dumps({"hidden_size": 8, "quantization_config": record}))
    converters.drop_gguf_record(tmp_path)
    assert json.loads((tmp_path / "config.json").read_text()) == {"hidden_size": 8}
    other = {"hidden_size": 8, "quantization_config": {"quant_method": "gptq", "bits": 4}}
    (tmp_path / "config.json").write_text(json.dumps(other))
    converters.drop_gguf_record(tmp_path)  # a real quantisation is left alone
    assert json.loads((tmp_path / "config.json").read_text()) == other
    config = json.loads((loading.model_folder("smollm2-135m") / "config.json").read_text())
    assert "quantization_config" not in config


@pytest.mark.models
def test_smollm2_converts_from_its_pypi_gguf_and_extracts():
    """The offline decoder: GGUF from PyPI, dequantised once to safetensors (30 layers, 576 wide)."""
    assert loading.n_layers("smollm2-135m") == 30
    states = extraction.compute_hidden_states("smollm2-135m", TEXTS[:2], progress=False)
    assert states.shape == (31, 2, 576) and np.isfinite(states).all()
    chat = extraction.compute_hidden_states("smollm2-135m", TEXTS[:2], chat_template=True, progress=False)
    assert not np.allclose(chat[-1], states[-1])


def test_named_layers_resolve_per_model():
    assert layer_resolver.resolve_layer("minilm", "mid") == 3
    assert layer_resolver.resolve_layer("minilm", "last") == 6
    assert layer_resolver.resolve_layer("minilm", 0) == 0
    for bad in (7, -1, "first", True):
        with pytest.raises(ValueError, match="allowed: 'mid', 'last' or an integer 0…6"):
            layer_resolver.resolve_layer("minilm", bad)


def test_max_tokens_reads_only_the_first_tokens_and_keys_the_cache(sandbox):
    shared = "The committee met on Tuesday to discuss the budget"
    texts = [shared + " and then everyone went home early.", shared + ", which nobody had read, over lunch at noon."]
    full = extraction.extract("minilm", texts, layers=[3], progress=False)[0]
    cut = extraction.extract("minilm", texts, layers=[3], max_tokens=8, progress=False)[0]
    assert not np.allclose(full[0], full[1], atol=1e-4)
    np.testing.assert_allclose(cut[0], cut[1], atol=1e-5)  # same first 8 tokens ([CLS] included): same input
    assert len(list((sandbox / "cache" / "features").iterdir())) == 2
    with pytest.raises(ValueError, match="max_tokens=0 is not allowed"):
        extraction.extract("minilm", texts, max_tokens=0)


@pytest.mark.models
def test_chat_input_is_the_user_turn_plus_the_generation_prompt():
    rendered = extraction.render("smollm2-135m", ["Is this review positive?"], chat_template=True)[0]
    assert "Is this review positive?" in rendered
    assert rendered.rstrip().endswith("<|im_start|>assistant")
    assert extraction.render("smollm2-135m", ["plain"], chat_template=False) == ["plain"]


@pytest.mark.models
def test_gemma3_270m_converts_from_its_four_part_wheels():
    folder = loading.model_folder("gemma3-270m")  # assembled, SHA-256 checked, dequantised once
    assert (folder / "model.safetensors").is_file()
    assert loading.n_layers("gemma3-270m") == 18
    states = extraction.compute_hidden_states("gemma3-270m", ["The film was wonderful."], progress=False)
    assert states.shape == (19, 1, 640) and np.isfinite(states).all()
    assert extraction.render("gemma3-270m", ["x"], chat_template=False) == ["x"]  # the base model has no chat template


def test_parse_layer_reads_an_index_or_keeps_the_name():
    assert layer_resolver.parse_layer("7") == 7 and layer_resolver.parse_layer("mid") == "mid"
    assert layer_resolver.parse_layer("-1") == -1


@pytest.mark.parametrize(("name", "chat"), [("tiny-bert", False), ("tiny-llama", True)])
def test_tiny_random_models_build_offline_and_reproducibly(tmp_path, monkeypatch, name, chat):
    monkeypatch.setattr(paths, "MODELS_DIR", tmp_path)
    folder = loading.model_folder(name)
    assert folder == tmp_path / name and [p.name for p in tmp_path.iterdir()] == [name]  # no staging left
    states = extraction.compute_hidden_states(name, TEXTS[:2], chat_template=chat, progress=False)
    assert states.shape == (3, 2, 32) and np.isfinite(states).all()
    loading.load_cached.cache_clear()
    rebuilt = tmp_path / "again"
    converters.build_tiny_model(rebuilt, name.removeprefix("tiny-"))
    assert (rebuilt / "model.safetensors").read_bytes() == (folder / "model.safetensors").read_bytes()


def test_token_states_are_every_real_token_in_text_order():
    states, owner = extraction.token_states("minilm", TEXTS[:3], layers=[0, 6], progress=False, batch_size=2)
    model, tokenizer = loading.load("minilm")
    lengths = [len(tokenizer(t)["input_ids"]) for t in TEXTS[:3]]
    assert states.shape == (2, sum(lengths), 384)
    assert owner.tolist() == sum(([i] * n for i, n in enumerate(lengths)), [])
    with torch.inference_mode():
        alone = model(**tokenizer([TEXTS[1]], return_tensors="pt"), output_hidden_states=True).hidden_states[6][0]
    np.testing.assert_allclose(states[1, owner == 1], alone.numpy(), atol=1e-5)
    with pytest.raises(ValueError, match="layers"):
        extraction.token_states("minilm", TEXTS, layers=[7])


def test_concurrent_first_builds_leave_one_folder_and_the_loser_uses_it(tmp_path):
    destination = tmp_path / "tiny-bert"
    errors: list[BaseException] = []

    def build() -> None:
        try:
            converters.build_tiny_model(destination, "bert")
        except BaseException as error:  # reported below
            errors.append(error)

    workers = [threading.Thread(target=build) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert errors == [] and [p.name for p in tmp_path.iterdir()] == ["tiny-bert"]
    weights = destination / "model.safetensors"
    inode = weights.stat().st_ino
    converters.build_tiny_model(destination, "bert")  # a later loser: the winner's files stay where they are
    assert weights.stat().st_ino == inode and [p.name for p in tmp_path.iterdir()] == ["tiny-bert"]
    assert destination.stat().st_mode & 0o777 != 0o700  # not mkdtemp's private mode


def test_a_folder_without_a_checkpoint_fails_in_one_clear_line(tmp_path, capsys):
    from lib.__main__ import main

    with pytest.raises(registry.ModelUnavailableError, match="holds no config.json"):
        loading.n_layers(str(tmp_path))
    assert main(["deltab", "--reference", "minilm", "--audited", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: model folder '{tmp_path}' holds no config.json") and "Traceback" not in err


def test_check_model_reads_the_config_only(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    layer_resolver.check_model("minilm", "last")
    layer_resolver.check_model("tiny-llama", 2)  # a registry model built from a config on first use (seconds)
    with pytest.raises(ValueError, match=r"layer=3 is not a layer of 'tiny-llama'; allowed: .* 0…2"):
        layer_resolver.check_model("tiny-llama", 3)
    with pytest.raises(registry.ModelUnavailableError, match="Offline defaults: minilm, smollm2-135m"):
        layer_resolver.check_model("no-such-org/no-such-model", "mid")
    (tmp_path / "config.json").write_text(json.dumps({"num_hidden_layers": 4}))
    (tmp_path / "model.safetensors").write_bytes(b"")  # its weights must exist, but are never read
    layer_resolver.check_model(str(tmp_path), 4)
    with pytest.raises(ValueError, match="allowed: 'mid', 'last' or an integer 0…4"):
        layer_resolver.check_model(str(tmp_path), 5)


def test_a_process_keeps_at_most_two_models_loaded(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "MODELS_DIR", tmp_path)
    loading.load_cached.cache_clear()
    for name in ("tiny-bert", "tiny-llama", "minilm"):
        loading.load(name)
    assert loading.load_cached.cache_info().currsize == loading.MODELS_HELD == 2
    loading.load_cached.cache_clear()
