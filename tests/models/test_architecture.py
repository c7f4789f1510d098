"""lib.models.architecture: blocks and the final norm from config.json, never from the weights."""

from __future__ import annotations

import json

import pytest

from lib.models import architecture


def _folder(tmp_path, **config):
    (tmp_path / "config.json").write_text(json.dumps({"num_hidden_layers": 4, **config}))
    (tmp_path / "model.safetensors").write_bytes(b"")  # present, never read: the facts come from config.json
    return str(tmp_path)


def test_the_final_norm_is_read_from_the_family_in_config_json(tmp_path):
    (tmp_path / "a").mkdir()
    assert architecture.final_norm(_folder(tmp_path / "a", model_type="llama")) == "norm"
    (tmp_path / "b").mkdir()
    assert architecture.final_norm(_folder(tmp_path / "b", model_type="gpt2")) == "ln_f"
    (tmp_path / "c").mkdir()
    assert architecture.final_norm(_folder(tmp_path / "c", model_type="bert")) is None
    (tmp_path / "d").mkdir()
    nested = _folder(tmp_path / "d", model_type="gemma3", text_config={"model_type": "gemma3_text"})
    assert architecture.model_type(nested) == "gemma3_text" and architecture.residual_blocks(nested) == 3


def test_an_unknown_family_is_refused_in_one_line_instead_of_read_after_a_norm_it_cannot_see(tmp_path):
    folder = _folder(tmp_path, model_type="mamba")
    with pytest.raises(ValueError, match=r"architecture 'mamba' is not in lib/models/architecture.py"):
        architecture.residual_blocks(folder)


def test_the_tiny_models_and_the_one_block_to_hidden_state_conversion():
    assert (architecture.blocks("tiny-llama"), architecture.residual_blocks("tiny-llama")) == (2, 1)
    assert (architecture.blocks("tiny-bert"), architecture.residual_blocks("tiny-bert")) == (2, 2)
    assert architecture.hidden_state_index(0) == 1  # index 0 is the embeddings
