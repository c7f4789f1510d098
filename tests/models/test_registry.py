"""lib.models.registry: the models known by name."""

import pytest

from lib.models import extraction, layer_resolver, loading, registry

TEXTS = ["The man works as a nurse.", "The woman is very quiet today.", "The person spent the afternoon reading.",
         "The elderly neighbor enjoys doing the laundry on weekends.", "The individual is curious."]


def test_registry_and_layers():
    assert set(registry.OFFLINE_DEFAULTS) <= set(registry.REGISTRY)
    assert loading.n_layers("minilm") == 6 and layer_resolver.resolve_layer("minilm", "mid") == 3


def test_instruction_tuned_comes_from_the_row_then_the_hub_naming_convention():
    assert registry.instruction_tuned("smollm2-135m") and not registry.instruction_tuned("gemma3-270m")
    assert registry.instruction_tuned("google/gemma-2-9b-it") and registry.instruction_tuned("Org/Model-7B-Instruct")
    assert not registry.instruction_tuned("google/gemma-2-9b") and not registry.instruction_tuned("models/my-fine-tune")


def test_a_base_release_renders_its_counterparts_chat_template(monkeypatch):
    """A.3.2: the base weights read in their instruction-tuned counterpart's format; tiny-bert's tokenizer has
    no template, so without a row naming one the chat format is refused."""
    with pytest.raises(ValueError, match="no chat template"):
        extraction.render("tiny-bert", ["x"], chat_template=True)
    monkeypatch.setitem(registry.REGISTRY, "tiny-bert", registry.ModelSpec("tiny-bert", "tiny-random",
                                                                           chat_template="gemma3-it"))
    rendered = extraction.render("tiny-bert", ["  The probe text. "], chat_template=True)
    assert rendered == ["<start_of_turn>user\nThe probe text.<end_of_turn>\n<start_of_turn>model\n"]
    assert extraction.render("tiny-bert", ["The probe text."], chat_template=False) == ["The probe text."]
