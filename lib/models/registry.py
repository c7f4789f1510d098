"""The models the companion knows by name, and where each one's weights come from.

A new model that needs converting is one :class:`ModelSpec` row here plus one converter in
:mod:`lib.models.converters`; any hub id or local transformers folder works without a row.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelSpec:
    """A model the companion knows by name, where its weights come from, whether they are an
    instruction-tuned release, and (for a base release whose tokenizer has none) the chat template of its
    instruction-tuned counterpart, by name in :data:`lib.models.chat_templates.TEMPLATES`."""

    name: str
    source: str  # "minilm-package", "smollm2-gguf", "gemma3-gguf", "tiny-random" or "hub"
    instruction_tuned: bool = False
    chat_template: str | None = None


REGISTRY: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec("minilm", "minilm-package"),
        ModelSpec("smollm2-135m", "smollm2-gguf", instruction_tuned=True),  # SmolLM2-135M-Instruct
        ModelSpec("gemma3-270m", "gemma3-gguf", chat_template="gemma3-it"),  # the base release
        # Random 2-layer models built from a config for the smoke profile (code paths only; numbers mean nothing).
        ModelSpec("tiny-bert", "tiny-random"),
        ModelSpec("tiny-llama", "tiny-random"),
        ModelSpec("gpt2", "hub"),
        ModelSpec("gpt2-medium", "hub"),
        ModelSpec("gpt2-large", "hub"),
        ModelSpec("gpt2-xl", "hub"),
        ModelSpec("bert-base-uncased", "hub"),
        ModelSpec("Qwen/Qwen2.5-7B-Instruct", "hub", instruction_tuned=True),
    )
}


OFFLINE_DEFAULTS: tuple[str, ...] = ("minilm", "smollm2-135m")


#: Name endings of instruction-tuned releases on the hub, for ids without a registry row.
_TUNED_ENDINGS = ("-it", "-instruct", "-chat")


def instruction_tuned(name: str) -> bool:
    """Whether ``name`` is an instruction-tuned release: its registry row says so, and a hub id without a row
    by the hub's naming convention (``…-it``, ``…-Instruct``, ``…-chat``, as in google/gemma-2-9b-it)."""
    spec = REGISTRY.get(name)
    if spec is not None:
        return spec.instruction_tuned
    return name.rstrip("/").lower().endswith(_TUNED_ENDINGS)


class ModelUnavailableError(RuntimeError):
    """A model cannot be found locally and the hub may not be used."""
