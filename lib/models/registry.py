"""The models the companion knows by name, and where each one's weights come from.

A new model that needs converting is one :class:`ModelSpec` row here plus one converter in
:mod:`lib.models.converters`; any hub id or local transformers folder works without a row.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelSpec:
    """A model the companion knows by name and where its weights come from."""

    name: str
    source: str  # "minilm-package", "smollm2-gguf", "gemma3-gguf", "tiny-random" or "hub"


REGISTRY: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec("minilm", "minilm-package"),
        ModelSpec("smollm2-135m", "smollm2-gguf"),
        ModelSpec("gemma3-270m", "gemma3-gguf"),
        # Random 2-layer models built from a config for the smoke profile (code paths only; numbers mean nothing).
        ModelSpec("tiny-bert", "tiny-random"),
        ModelSpec("tiny-llama", "tiny-random"),
        ModelSpec("gpt2", "hub"),
        ModelSpec("gpt2-medium", "hub"),
        ModelSpec("gpt2-large", "hub"),
        ModelSpec("gpt2-xl", "hub"),
        ModelSpec("bert-base-uncased", "hub"),
        ModelSpec("Qwen/Qwen2.5-7B-Instruct", "hub"),
    )
}


OFFLINE_DEFAULTS: tuple[str, ...] = ("minilm", "smollm2-135m")


class ModelUnavailableError(RuntimeError):
    """A model cannot be found locally and the hub may not be used."""
