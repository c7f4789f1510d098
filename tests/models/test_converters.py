"""lib.models.converters: the offline models built from their wheels or a config, atomically, with their SHA256SUMS."""

import json
import threading

import numpy as np
import pytest

from lib import files, paths
from lib.models import converters, extraction, loading

TEXTS = ["The man works as a nurse.", "The woman is very quiet today.", "The person spent the afternoon reading.",
         "The elderly neighbor enjoys doing the laundry on weekends.", "The individual is curious."]




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


@pytest.mark.models
def test_gemma3_270m_converts_from_its_four_part_wheels():
    folder = loading.model_folder("gemma3-270m")  # assembled, SHA-256 checked, dequantised once
    assert (folder / "model.safetensors").is_file()
    assert loading.n_layers("gemma3-270m") == 18
    states = extraction.compute_hidden_states("gemma3-270m", ["The film was wonderful."], progress=False)
    assert states.shape == (19, 1, 640) and np.isfinite(states).all()
    assert extraction.render("gemma3-270m", ["x"], chat_template=False) == ["x"]  # the base model has no chat template


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
