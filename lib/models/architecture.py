"""Architecture facts read from a model's ``config.json``, never from its weights: its blocks, and whether its last
hidden state follows a final norm.

A pre-norm decoder (Llama, Gemma, Qwen, GPT-2, …) applies a final norm before its output layer, and transformers
returns the last hidden state *after* it: that entry is no residual stream, so paper 002 reads blocks 0 … L − 2
there (A.1.2, A.1.9). An encoder whose every layer ends in its own norm (BERT and its kin) has no final norm: all
L blocks are residual streams. The family comes from ``model_type``; a family this table does not know is refused
in one line rather than read after a norm it cannot see.
"""

from __future__ import annotations

from lib.models import loading

#: Families whose last hidden state comes after a final norm (``model_type`` → the norm's attribute on the base).
FINAL_NORM: dict[str, str] = {
    "llama": "norm", "mistral": "norm", "mixtral": "norm", "qwen2": "norm", "qwen3": "norm", "gemma": "norm",
    "gemma2": "norm", "gemma3": "norm", "gemma3_text": "norm", "phi3": "norm", "olmo2": "norm", "granite": "norm",
    "smollm3": "norm", "gpt2": "ln_f", "gpt_neox": "final_layer_norm", "opt": "final_layer_norm", "falcon": "ln_f",
}
#: Families without one: every block's output, the last included, is a residual stream.
NO_FINAL_NORM: frozenset[str] = frozenset({"bert", "roberta", "xlm-roberta", "distilbert", "electra", "mpnet"})


def model_type(model: str) -> str:
    """The ``model_type`` of the model's ``config.json`` (a Gemma-3 release nests its text model's)."""
    config = loading.read_json(loading.config_file(model))
    return str(config.get("text_config", {}).get("model_type") or config.get("model_type", ""))


def final_norm(model: str) -> str | None:
    """The attribute of the model's final norm, or None for a family without one; ValueError in one line for a
    family this module does not know."""
    family = model_type(model)
    if family in FINAL_NORM:
        return FINAL_NORM[family]
    if family in NO_FINAL_NORM:
        return None
    raise ValueError(f"model {model!r}: architecture {family!r} is not in lib/models/architecture.py, so whether its "
                     "last hidden state follows a final norm is unknown; add its family to FINAL_NORM or "
                     "NO_FINAL_NORM")


def blocks(model: str) -> int:
    """The model's blocks L (its hidden states have L + 1 entries, the embeddings first)."""
    return loading.n_layers(model)


def residual_blocks(model: str) -> int:
    """Blocks whose output is a residual stream: L, or L − 1 when the last hidden state follows a final norm."""
    return blocks(model) - (1 if final_norm(model) is not None else 0)


def hidden_state_index(block: int) -> int:
    """The hidden-state index of block ``block``'s output (index 0 is the embeddings): the one conversion between
    paper 002's blocks and transformers' hidden states."""
    return block + 1
