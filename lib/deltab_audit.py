"""Auditing a checkpoint against a reference with ΔB (paper 001, Sec. 3–4): embed the shared
sentence sets with each model (final layer, token-mean pooled by default), then compute ΔB in
relative space beside SEAT, Procrustes-SEAT and CKA drift, one row per target group.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from lib import deltab, features, sentences


def embed_sets(model: str, sets: sentences.SentenceSets, *, layer: int | None = None, pooling: str = "mean",
               groups: Sequence[str] | None = None) -> dict:
    """Embeddings of the anchors, attributes and per-group targets (one cached extraction per model).

    ``layer`` None is the final layer (the paper's choice, Sec. 4.1).
    """
    chosen = features.n_layers(model) if layer is None else layer
    wanted = list(sets.targets) if groups is None else list(groups)
    blocks = {"anchors": sets.anchors, "positive": sets.positive, "negative": sets.negative}
    blocks.update({f"target:{g}": sets.targets[g] for g in wanted})
    texts = [t for block in blocks.values() for t in block]
    states = np.asarray(features.extract(model, texts, layers=[chosen], pooling=pooling, progress=False)[0])
    out, start = {"targets": {}}, 0
    for name, block in blocks.items():
        rows = states[start:start + len(block)]
        start += len(block)
        if name.startswith("target:"):
            out["targets"][name.removeprefix("target:")] = rows
        else:
            out[name] = rows
    return out


def check_groups(groups: Sequence[str] | None) -> list[str]:
    """The requested target groups, or all of them; unknown names raise naming the allowed ones."""
    if groups is None:
        return list(sentences.GROUPS)
    unknown = [g for g in groups if g not in sentences.GROUPS]
    if unknown:
        raise ValueError(f"unknown target group(s) {unknown}; allowed: {', '.join(sentences.GROUPS)}")
    return list(groups)


def audit(reference: str, audited: str, *, groups: Sequence[str] | None = None, layer: int | None = None,
          pooling: str = "mean", sets: sentences.SentenceSets | None = None) -> pd.DataFrame:
    """ΔB (relative representations) per target group, with the SEAT, Procrustes-SEAT and CKA-drift baselines."""
    chosen = check_groups(groups)
    sets = sentences.load() if sets is None else sets
    ref = embed_sets(reference, sets, layer=layer, pooling=pooling, groups=chosen)
    aud = embed_sets(audited, sets, layer=layer, pooling=pooling, groups=chosen)
    columns = {"delta_b": deltab.rr_delta_b(ref, aud), "seat_delta_b": deltab.seat_delta_b(ref, aud),
               "procrustes_seat_delta_b": deltab.procrustes_seat_delta_b(ref, aud),
               "cka_drift": deltab.cka_drift_by_group(ref, aud)}
    frame = pd.DataFrame({"group": chosen, "topic": [sentences.topic_of(g) for g in chosen]})
    for name, values in columns.items():
        frame[name] = frame.group.map(values)
    return frame
