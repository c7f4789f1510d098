"""The on-disk cache of pooled hidden states: one ``.npy`` per layer, sizes and SHA-256 in the entry's manifest,
keyed by the weights, the rendered texts, pooling, dtype, the chat flag and the token limit."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from lib import files
from lib.models.loading import weights_hash


def cache_key(name: str, prepared: Sequence[str], pooling: str, dtype: str, chat_template: bool,
               max_tokens: int | None) -> str:
    """Weights, the rendered input strings, pooling, dtype, the chat flag and (when set) the token limit."""
    digest = hashlib.sha256()
    limit = () if max_tokens is None else (f"max_tokens={max_tokens}",)  # unset: the keys of earlier caches
    for part in (weights_hash(name), pooling, dtype, str(chat_template), *limit):
        digest.update(part.encode() + b"\0")
    for text in prepared:
        digest.update(text.encode() + b"\0")
    return digest.hexdigest()[:32]


def _read_manifest(folder: Path) -> dict | None:
    try:
        return json.loads((folder / "manifest.json").read_text())
    except (FileNotFoundError, ValueError):
        return None


def read_cache(folder: Path, layers: Sequence[int]) -> np.ndarray | None:
    """The cached ``layers``, or None when one is missing, truncated or does not match its checksum.

    The manifest has one entry per layer of the model in ``sizes`` (bytes of a stored layer) and
    ``sha256`` (its checksum), null for a layer never requested (only requested layers are stored).
    A layer whose bytes differ from its checksum is reported in one line and recomputed by the caller.
    """
    manifest = _read_manifest(folder)
    try:
        arrays = []
        for layer in layers:
            file = folder / f"layer_{layer:03d}.npy"
            if manifest is None or manifest["sizes"][layer] is None or file.stat().st_size != manifest["sizes"][layer]:
                return None
            if files.sha256_file(file) != manifest["sha256"][layer]:
                files.report_corrupt(file)
                return None
            arrays.append(np.load(file, mmap_mode="r"))
        if any(a.shape != tuple(manifest["shape"]) or a.dtype != np.float32 for a in arrays):
            return None
        return np.stack(arrays)
    except (FileNotFoundError, KeyError, IndexError, TypeError, ValueError):
        return None


def write_cache(folder: Path, layers: Sequence[int], n_total: int, states: np.ndarray) -> None:
    """Store ``states`` (one array per entry of ``layers``) beside the layers already cached in ``folder``.

    The manifest (sizes and SHA-256 of each layer) is removed first and written last, so an interrupted
    write leaves no layer that reads as done; layers of a previous manifest with the same shape are kept.
    """
    folder.mkdir(parents=True, exist_ok=True)
    previous = _read_manifest(folder)
    sizes: list[int | None] = [None] * n_total
    sums: list[str | None] = [None] * n_total
    if (previous is not None and previous.get("shape") == list(states.shape[1:])
            and len(previous.get("sizes", ())) == n_total and len(previous.get("sha256", ())) == n_total):
        sizes, sums = list(previous["sizes"]), list(previous["sha256"])
    (folder / "manifest.json").unlink(missing_ok=True)
    for layer, array in zip(layers, states, strict=True):
        buffer = _npy_bytes(array)
        files.atomic_write_bytes(folder / f"layer_{layer:03d}.npy", buffer)
        sizes[layer], sums[layer] = len(buffer), hashlib.sha256(buffer).hexdigest()
    files.atomic_write_text(folder / "manifest.json", json.dumps(
        {"n_layers": n_total, "shape": list(states.shape[1:]), "sizes": sizes, "sha256": sums}))


def _npy_bytes(array: np.ndarray) -> bytes:
    import io

    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(array, dtype=np.float32))
    return buffer.getvalue()
