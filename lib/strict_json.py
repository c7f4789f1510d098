"""Strict JSON: every JSON file the project writes parses in any JSON reader (a browser's ``JSON.parse`` too).

JSON has no NaN or infinity. :func:`dumps` writes a non-finite number as ``null`` and records what it was in a
``non_finite`` map on the object that holds it, beside the key: ``{"se": NaN}`` is written
``{"non_finite": {"se": "nan"}, "se": null}``; each value is ``"nan"``, ``"inf"`` or ``"-inf"``. A number inside
lists under a key is named by its indices, the map mirroring the lists: ``{"auc": [0.5, [NaN]]}`` records
``"non_finite": {"auc": {"1": {"0": "nan"}}}``. An object nested anywhere keeps its own map. A non-finite number
with no object around it (a bare number or a top-level list) cannot say what it was and is refused, and so is an
object that already has a ``non_finite`` key: both a :class:`ValueError` naming the value.

:func:`loads` reads either form back with the numbers restored as floats (NaN, ±inf) and the maps removed, so a
reader computes on what was logged; it also reads the bare ``NaN``/``Infinity`` of files written before.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

#: The key of the map that records an object's non-finite numbers.
KEY = "non_finite"
_KINDS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _kind(value: float) -> str:
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def _json_key(key: Any) -> str:
    """A key as JSON writes it (``True`` → ``"true"``, ``None`` → ``"null"``, ``3`` → ``"3"``)."""
    return json.dumps(key) if isinstance(key, bool) or key is None else str(key)


def _plain(value: Any) -> Any:
    """numpy scalars and arrays as Python numbers and lists, a path as its POSIX text; anything else as it is."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return value.as_posix()
    return value


def _clean(value: Any, where: str) -> tuple[Any, Any]:
    """``value`` made JSON-ready, and the mirror of its non-finite numbers (None when it has none)."""
    value = _plain(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None, _kind(value)
    if isinstance(value, Mapping):
        return _clean_object(value, where), None
    if isinstance(value, list | tuple):
        items, mirror = [], {}
        for index, item in enumerate(value):
            cleaned, kind = _clean(item, f"{where}[{index}]")
            items.append(cleaned)
            if kind is not None:
                mirror[str(index)] = kind
        return items, mirror or None
    return value, None


def _clean_object(obj: Mapping[Any, Any], where: str) -> dict[Any, Any]:
    if KEY in obj:
        raise ValueError(f"{where or 'the object'} has a key {KEY!r}, which strict JSON keeps for the non-finite "
                         f"numbers it records; rename it")
    out, found = {}, {}
    for key, item in obj.items():
        out[key], kind = _clean(item, f"{where}[{key!r}]")
        if kind is not None:
            found[_json_key(key)] = kind
    if not found:
        return out
    if not all(isinstance(key, str) for key in out):  # keys of one type, so that sorted keys still sort
        out = {_json_key(key): item for key, item in out.items()}
    return {**out, KEY: found}


def clean(obj: Any) -> Any:
    """``obj`` as :func:`dumps` writes it: plain Python, each non-finite number ``None`` and recorded in its
    object's ``non_finite`` map; a :class:`ValueError` for one with no object around it."""
    cleaned, kind = _clean(obj, "")
    if kind is not None:
        raise ValueError(f"the non-finite value at {_first(kind) or 'the top'} has no JSON object around it to "
                         f"record it in; allowed: finite numbers there, or an object holding the value")
    return cleaned


def _first(mirror: Any) -> str:
    """The index path of the first recorded number of a list mirror, ``[2][0]``."""
    path = ""
    while isinstance(mirror, dict):
        index, mirror = next(iter(mirror.items()))
        path += f"[{index}]"
    return path


def dumps(obj: Any, **kwargs: Any) -> str:
    """Strict JSON text of ``obj`` (see the module docstring); ``kwargs`` go to :func:`json.dumps`, which is
    called with ``allow_nan=False`` so a non-finite number that got past :func:`clean` fails loudly."""
    return json.dumps(clean(obj), allow_nan=False, **kwargs)


def _restore_into(value: Any, mirror: Any) -> Any:
    if isinstance(mirror, str):
        return _KINDS.get(mirror, value) if value is None else value
    if isinstance(mirror, Mapping) and isinstance(value, list):
        for index, inner in mirror.items():
            if str(index).isdigit() and int(index) < len(value):
                value[int(index)] = _restore_into(value[int(index)], inner)
    return value


def restore(obj: Any) -> Any:
    """``obj`` with every recorded non-finite number put back and the ``non_finite`` maps removed (in place)."""
    if isinstance(obj, list):
        for item in obj:
            restore(item)
    elif isinstance(obj, dict):
        for item in obj.values():
            restore(item)
        found = obj.pop(KEY, None)
        if isinstance(found, Mapping):
            for key, mirror in found.items():
                if key in obj:
                    obj[key] = _restore_into(obj[key], mirror)
    return obj


def loads(text: str | bytes) -> Any:
    """JSON text read back as :func:`dumps` wrote it: recorded non-finite numbers restored as floats."""
    return restore(json.loads(text))
