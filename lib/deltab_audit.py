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


#: ΔB columns compared in Sec. 4.5; CKA drift is undirected (its AUC is reported as max(AUC, 1 − AUC)).
METHODS: dict[str, str] = {"delta_b": "RR", "seat_delta_b": "SEAT", "procrustes_seat_delta_b": "Procrustes-SEAT",
                           "cka_drift": "CKA drift"}


def evaluate(pairs: pd.DataFrame, label_threshold: float = 0.1, n_bootstrap: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Sec. 4.1 evaluation of every method on pooled (ΔBiasScore, ΔB) pairs over checkpoints × groups.

    Pearson r with its two-tailed p; ROC AUC of a threshold on the method's score against the label
    "bias increased" (ΔBiasScore > ``label_threshold``), scoring −ΔB for the directed methods (a
    negative shift is increased bias) and the drift itself for CKA, reported as max(AUC, 1 − AUC);
    MAE of a linear fit of ΔBiasScore on the method, the mean over ``n_bootstrap`` resamples.
    """
    from scipy.stats import pearsonr
    from sklearn.metrics import roc_auc_score

    missing = [c for c in ("delta_bias_score", *METHODS) if c not in pairs]
    if missing:
        raise ValueError(f"pairs lacks the columns {missing}")
    y = pairs.delta_bias_score.to_numpy(dtype=float)
    labels = y > label_threshold
    rng = np.random.default_rng(seed)
    resamples = rng.integers(0, len(y), size=(n_bootstrap, len(y)))
    rows = []
    for column, name in METHODS.items():
        x = pairs[column].to_numpy(dtype=float)
        r, p = pearsonr(x, y) if np.ptp(x) > 0 and np.ptp(y) > 0 else (np.nan, np.nan)
        if labels.all() or not labels.any():
            auc = np.nan
        else:
            auc = roc_auc_score(labels, x if column == "cka_drift" else -x)
            auc = max(auc, 1 - auc) if column == "cka_drift" else auc
        errors = []
        for idx in resamples:
            if np.ptp(x[idx]) > 0:
                slope, intercept = np.polyfit(x[idx], y[idx], 1)
                errors.append(np.abs(y[idx] - (intercept + slope * x[idx])).mean())
        rows.append({"method": name, "pearson_r": r, "p_value": p, "roc_auc": auc,
                     "mae": float(np.mean(errors)) if errors else np.nan, "n_pairs": len(y),
                     "n_increased": int(labels.sum())})
    return pd.DataFrame(rows)
