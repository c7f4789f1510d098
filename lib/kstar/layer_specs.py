"""Which blocks a k* measurement probes (paper 002, A.1.2 "Layer convention", A.1.9 Table 6): a layer spec.

Three spellings, resolved per model before any extraction:

- ``"grid:N"``: ``N`` blocks evenly spread over depth (:func:`layer_grid`, the offline profiles' spelling);
- ``"3,6,9"``: those blocks, sorted (block ℓ is the residual stream after block ℓ, counted from 0);
- ``"table6"``: the paper's sweep grid of the model, for the models of Table 6 whose grid survives in the
  prose of A.1.9 (:data:`TABLE6`).

Table 6 itself was lost in the text extraction; :data:`TABLE6` is rebuilt from A.1.9's description and the
layers other sections name. The Llama, Mistral, OLMo and Qwen grids are "every fourth block from 3". The
Gemma-2-9B grid is "every fourth block from 5 to 39 together with the Gemma Scope layers 20 and 31"; read
literally (5, 9, …, 37 plus 20 and 31) it would put block 21 between 20 and 24 and leave out 24 and 28,
but the worked window 17, 20, 24, 28 (A.1.7) and the shared layers 13, 17, 20 of the format factorial
are consecutive grid entries, and the SAE layers 9, 20, 28 and 31 are grid layers (A.1.10 and the
composition test), so the grid used is 5, 9, 13, 17, 20, 24, 28, 31, 35, 39 (ten layers, as the grid:10 of
the paper profile's Gemma-3 notebooks): a reconstruction, exact where those passages pin it. The Gemma-3 grids
mix the Gemma Scope 2 layers, which the text does not list, with an even sweep, so they are not
reconstructed: those models are refused with a pointer to ``grid:N``.

A model whose last hidden state comes after the final norm (pre-norm decoders in transformers ≥ 5) has no
readable residual stream at its last block (:func:`reads_last_block_after_norm`), so that block is left out of
a grid, refused in a list and dropped from a Table 6 grid.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from lib.models import architecture

#: Attributes under which transformers keeps the final norm of a base model (Llama, Qwen, Gemma: ``norm``;
#: GPT-2: ``ln_f``; OPT/Falcon: ``final_layer_norm``); BERT-style encoders have none.
_EVERY_FOURTH_FROM_3_OF_32 = tuple(range(3, 32, 4))  # 3, 7, …, 31 (32 blocks)
_GEMMA2_9B = (5, 9, 13, 17, 20, 24, 28, 31, 35, 39)

#: Table 6 (A.1.9): sweep grid per model, by hub id; a base model and its instruction-tuned counterpart share one.
TABLE6: dict[str, tuple[int, ...]] = {
    "google/gemma-2-9b": _GEMMA2_9B,
    "google/gemma-2-9b-it": _GEMMA2_9B,
    "meta-llama/Llama-3.1-8B": _EVERY_FOURTH_FROM_3_OF_32,
    "meta-llama/Llama-3.1-8B-Instruct": _EVERY_FOURTH_FROM_3_OF_32,
    "mistralai/Mistral-7B-v0.3": _EVERY_FOURTH_FROM_3_OF_32,
    "mistralai/Mistral-7B-Instruct-v0.3": _EVERY_FOURTH_FROM_3_OF_32,
    "allenai/OLMo-2-1124-7B": _EVERY_FOURTH_FROM_3_OF_32,
    "allenai/OLMo-2-1124-7B-Instruct": _EVERY_FOURTH_FROM_3_OF_32,
    "Qwen/Qwen3-8B-Base": tuple(range(3, 36, 4)),  # 36 blocks: 3, 7, …, 35
    "Qwen/Qwen3-8B": tuple(range(3, 36, 4)),  # the post-trained release, which the study pairs with no base model
}

#: Table 6's Gemma-3 models (A.1.9): their grids are not recoverable from the text.
GEMMA3 = tuple(f"google/gemma-3-{size}-{kind}" for size in ("1b", "4b", "12b", "27b") for kind in ("pt", "it")) + (
    "google/gemma-3-270m", "google/gemma-3-270m-it", "gemma3-270m")

FORMS = ('"grid:N"', '"3,6,9"', '"table6"')


def _allowed() -> str:
    return f"allowed: {', '.join(FORMS)}"


def parse(spec: str) -> tuple[str, int | tuple[int, ...] | None]:
    """``("grid", N)``, ``("list", blocks)`` or ``("table6", None)``; ValueError naming the allowed forms."""
    text = str(spec).strip()
    if text == "table6":
        return "table6", None
    if text.startswith("grid:"):
        size = text.removeprefix("grid:")
        if not size.isdigit() or int(size) < 1:
            raise ValueError(f"layers {spec!r}: the grid size must be an integer >= 1; {_allowed()}")
        return "grid", int(size)
    parts = [part.strip() for part in text.split(",")]
    if not text or not all(part.isdigit() for part in parts):
        raise ValueError(f"layers {spec!r} is not a layer spec; {_allowed()} (blocks counted from 0)")
    return "list", tuple(sorted({int(part) for part in parts}))


def table6_key(model: str) -> str | None:
    """The Table 6 entry ``model`` names: its hub id, or a local folder or id whose last component matches one."""
    last = Path(model.rstrip("/")).name.lower()
    for key in (*TABLE6, *GEMMA3):
        if model == key or last == key.split("/")[-1].lower():
            return key
    return None


def table6_grid(model: str) -> tuple[int, ...]:
    """Table 6's grid for ``model`` (A.1.9); ValueError naming the models it holds otherwise."""
    key = table6_key(model)
    if key in GEMMA3:
        raise ValueError(f"layers 'table6': the Gemma-3 grids of Table 6 combine Gemma Scope 2 layers the paper text "
                         f"does not list, so {model!r} has none here; use grid:10 or an explicit list")
    if key is None:
        raise ValueError(f"layers 'table6': {model!r} is not a Table 6 model; allowed: {', '.join(TABLE6)} "
                         "(or use grid:N or an explicit list)")
    return TABLE6[key]


def reads_last_block_after_norm(model: str) -> bool:
    """True when the model's last hidden state comes after a final norm (pre-norm decoders), from its config."""
    return architecture.final_norm(model) is not None


def _readable_blocks(model: str) -> int:
    """Blocks whose hidden state is a residual stream: L, or L − 1 after a final norm."""
    return architecture.residual_blocks(model)


def layer_grid(model: str, size: int) -> tuple[int, ...]:
    """``size`` blocks evenly spread over the model's readable blocks (A.1.9, Table 6: "an even sweep over depth").

    Readable: 0 … L − 1, or 0 … L − 2 when the last hidden state is post-norm. A model with fewer
    readable blocks than ``size`` gives all of them.
    """
    if size < 1:
        raise ValueError(f"size={size!r}; allowed: >= 1")
    readable = _readable_blocks(model)
    if readable <= size:
        return tuple(range(readable))
    return tuple(sorted({int(round(x)) for x in np.linspace(0, readable - 1, size)}))


def check_names(models, spec: str) -> None:
    """The spec's syntax and, for ``"table6"``, that every model name has a Table 6 grid: a check on names alone,
    for a parameter schema before any model is read; ValueError naming the spec, the model and what is allowed."""
    kind, _ = parse(spec)
    if kind == "table6":
        for model in models:
            table6_grid(model)


def check(model: str, spec: str) -> None:
    """The spec's syntax and, for a list or Table 6, the blocks against the model's depth and final norm (its
    ``config.json`` only, :mod:`lib.models.architecture`): ValueError in one line naming the spec, the block and
    the model's range."""
    kind, value = parse(spec)
    blocks = table6_grid(model) if kind == "table6" else value if kind == "list" else ()
    if not blocks:
        return
    total = architecture.blocks(model)
    outside = [b for b in blocks if b >= total]
    if kind == "list" and outside:
        raise ValueError(f"layers {spec!r}: {model!r} has blocks 0…{total - 1}; the blocks {outside} lie outside")
    if kind == "table6" and outside:
        raise ValueError(f"layers 'table6': {model!r} has {total} blocks, fewer than its Table 6 grid needs "
                         f"(up to block {max(blocks)})")
    readable = architecture.residual_blocks(model)
    if kind == "list" and max(blocks) >= readable:
        raise ValueError(f"layers {spec!r}: block {readable} of {model!r} is read after the final norm, not a "
                         f"residual stream; allowed: blocks 0…{readable - 1}")


def resolve(model: str, spec: str) -> tuple[int, ...]:
    """The probed blocks of ``model`` under ``spec``, in depth order (A.1.2: block ℓ = after block ℓ)."""
    check(model, spec)
    kind, value = parse(spec)
    if kind == "grid":
        return layer_grid(model, int(value))
    if kind == "table6":
        return tuple(b for b in table6_grid(model) if b < _readable_blocks(model))
    return tuple(value)
