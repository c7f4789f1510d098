"""Auditing a checkpoint against a reference with ΔB (paper 001, Sec. 3–4): embed the shared
sentence sets with each model (final layer, token-mean pooled by default), then compute ΔB in
relative space beside SEAT, Procrustes-SEAT and CKA drift, one row per target group.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from lib import features
from lib.bias_shift import deltab, sentences


def embed_blocks(model: str, blocks: Mapping[str, Sequence[str]], *, layer: int | str = "last"
                 ) -> dict[str, dict[str, np.ndarray]]:
    """Pooling → block name → embeddings (n_texts, d) of one layer, every pooling of Appendix E.4 at once.

    One cached extraction per block (``lib.features``), so settings that share a block (the base
    attributes under every anchor source, say) embed it once; the three poolings come from one
    forward pass. ``layer`` "last" is the final layer (the paper's choice, Sec. 4.1).
    """
    chosen = features.resolve_layer(model, layer)
    out: dict[str, dict[str, np.ndarray]] = {pooling: {} for pooling in features.POOLINGS}
    for name, texts in blocks.items():
        states = features.extract_poolings(model, list(texts), layers=[chosen], progress=False)
        for pooling, array in states.items():
            out[pooling][name] = np.asarray(array[0])
    return out


def space(embedded: Mapping[str, np.ndarray], *, anchors: str, attributes: str, targets: str,
          groups: Sequence[str], anchor_rows: np.ndarray | None = None) -> dict:
    """One model's ΔB inputs from embedded blocks: anchors, positive, negative, targets per group.

    ``attributes`` names a block of the 100 positive then the 100 negative sentences, ``targets`` a
    block of 50 sentences per group in ``groups`` order; ``anchor_rows`` selects anchors (all: None).
    """
    attribute_rows, target_rows = embedded[attributes], embedded[targets]
    n_positive = len(attribute_rows) // 2
    per_group = len(target_rows) // len(groups)
    anchor_block = embedded[anchors]
    return {"anchors": anchor_block if anchor_rows is None else anchor_block[anchor_rows],
            "positive": attribute_rows[:n_positive], "negative": attribute_rows[n_positive:],
            "targets": {g: target_rows[i * per_group:(i + 1) * per_group] for i, g in enumerate(groups)}}


def set_blocks(sets: sentences.SentenceSets, groups: Sequence[str]) -> dict[str, list[str]]:
    """The three blocks of one :class:`~lib.bias_shift.sentences.SentenceSets`: anchors, attributes (𝒫, 𝒩), targets."""
    return {"anchors": list(sets.anchors), "attributes": [*sets.positive, *sets.negative],
            "targets": [t for g in groups for t in sets.targets[g]]}


def embed_sets(model: str, sets: sentences.SentenceSets, *, layer: int | str = "last", pooling: str = "mean",
               groups: Sequence[str] | None = None) -> dict:
    """Embeddings of the anchors, attributes and per-group targets of ``sets`` (cached per block).

    ``layer`` "last" is the final layer (the paper's choice, Sec. 4.1).
    """
    if pooling not in features.POOLINGS:
        raise ValueError(f"pooling={pooling!r} is not supported; allowed: {', '.join(features.POOLINGS)}")
    wanted = list(sets.targets) if groups is None else list(groups)
    embedded = embed_blocks(model, set_blocks(sets, wanted), layer=layer)[pooling]
    return space(embedded, anchors="anchors", attributes="attributes", targets="targets", groups=wanted)


def check_groups(groups: Sequence[str] | None) -> list[str]:
    """The requested target groups, or all of them; unknown names raise naming the allowed ones."""
    if groups is None:
        return list(sentences.GROUPS)
    unknown = [g for g in groups if g not in sentences.GROUPS]
    if unknown:
        raise ValueError(f"unknown target group(s) {unknown}; allowed: {', '.join(sentences.GROUPS)}")
    return list(groups)


def audit(reference: str, audited: str, *, groups: Sequence[str] | None = None, layer: int | str = "last",
          pooling: str = "mean", sets: sentences.SentenceSets | None = None) -> pd.DataFrame:
    """ΔB (relative representations) per target group, with the SEAT, Procrustes-SEAT and CKA-drift baselines."""
    chosen = check_groups(groups)
    sets = sentences.load() if sets is None else sets
    ref = embed_sets(reference, sets, layer=layer, pooling=pooling, groups=chosen)
    aud = embed_sets(audited, sets, layer=layer, pooling=pooling, groups=chosen)
    return shifts(ref, aud, chosen)


def shifts(reference: dict, audited: dict, groups: Sequence[str], methods: Sequence[str] | None = None
           ) -> pd.DataFrame:
    """One row per group: its topic and each method's shift (columns of :data:`METHODS`; all by default)."""
    compute = {"delta_b": deltab.rr_delta_b, "seat_delta_b": deltab.seat_delta_b,
               "procrustes_seat_delta_b": deltab.procrustes_seat_delta_b, "cka_drift": deltab.cka_drift_by_group}
    chosen = list(METHODS) if methods is None else list(methods)
    unknown = [m for m in chosen if m not in compute]
    if unknown:
        raise ValueError(f"methods {unknown} are unknown; allowed: {', '.join(compute)}")
    frame = pd.DataFrame({"group": list(groups), "topic": [sentences.topic_of(g) for g in groups]})
    for column in chosen:
        frame[column] = frame.group.map(compute[column](reference, audited))
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
