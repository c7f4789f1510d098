"""Layers by name: "mid" (⌊L/2⌋, paper 000 Sec. VI-A), "last" (paper 001 Sec. 4.1) or a block index, resolved
per model from its ``config.json`` before any compute."""

from __future__ import annotations

from lib.models.loading import awaiting_conversion, config_file, n_layers
from lib.parameters import LAYER_NAMES


def check_model(name: str, layer: int | str | None = None) -> None:
    """Before any compute: ``name`` is a usable model and, when given, ``layer`` is one of its layers.

    Reads ``config.json`` only (a hub id: that one file; offline and not cached: :class:`ModelUnavailableError`),
    never the weights. The GGUF-converted offline models are known names; until their first use converts them
    their layer count is unknown here and :func:`resolve_layer` checks it right after the conversion.
    """
    if awaiting_conversion(name):
        return
    if layer is None:
        config_file(name)
    else:
        resolve_layer(name, layer)


def parse_layer(text: str) -> int | str:
    """A ``--layer`` value from the command line: an integer index, else the name as given (checked by
    :func:`resolve_layer` against the model before any compute)."""
    return int(text) if text.lstrip("-").isdigit() else text


def resolve_layer(name: str, layer: int | str) -> int:
    """The hidden-state index of ``layer`` for model ``name``: "mid" is ⌊L/2⌋ (paper 000, Sec. VI-A),
    "last" the final layer L (paper 001, Sec. 4.1), an integer 0…L itself (0: the embeddings)."""
    total = n_layers(name)
    if layer == "mid":
        return total // 2
    if layer == "last":
        return total
    if isinstance(layer, bool) or not isinstance(layer, int) or not 0 <= layer <= total:
        raise ValueError(f"layer={layer!r} is not a layer of {name!r}; allowed: "
                         f"{', '.join(map(repr, LAYER_NAMES))} or an integer 0…{total}")
    return layer
