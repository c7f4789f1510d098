"""lib.models.layer_resolver: named layers per model, checked from config.json alone."""

import json

import pytest

from lib.models import layer_resolver, registry

TEXTS = ["The man works as a nurse.", "The woman is very quiet today.", "The person spent the afternoon reading.",
         "The elderly neighbor enjoys doing the laundry on weekends.", "The individual is curious."]




def test_named_layers_resolve_per_model():
    assert layer_resolver.resolve_layer("minilm", "mid") == 3
    assert layer_resolver.resolve_layer("minilm", "last") == 6
    assert layer_resolver.resolve_layer("minilm", 0) == 0
    for bad in (7, -1, "first", True):
        with pytest.raises(ValueError, match="allowed: 'mid', 'last' or an integer 0…6"):
            layer_resolver.resolve_layer("minilm", bad)


def test_parse_layer_reads_an_index_or_keeps_the_name():
    assert layer_resolver.parse_layer("7") == 7 and layer_resolver.parse_layer("mid") == "mid"
    assert layer_resolver.parse_layer("-1") == -1


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
