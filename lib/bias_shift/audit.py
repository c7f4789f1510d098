"""Auditing a checkpoint against a reference with ΔB (paper 001, Sec. 3–4): embed the shared
sentence sets with each model (final layer, token-mean pooled by default), then compute ΔB in
relative space beside SEAT, Procrustes-SEAT and CKA drift, one row per target group, with the
group-free control beside it (the drift every target sentence shares; not in the paper).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from lib.bias_shift import deltab, sentences
from lib.models import extraction, layer_resolver


def embed_blocks(model: str, blocks: Mapping[str, Sequence[str]], *, layer: int | str = "last"
                 ) -> dict[str, dict[str, np.ndarray]]:
    """Pooling → block name → embeddings (n_texts, d) of one layer, every pooling of Appendix E.4 at once.

    One cached extraction per block (``lib.models``), so settings that share a block (the base
    attributes under every anchor source, say) embed it once; the three poolings come from one
    forward pass. ``layer`` "last" is the final layer (the paper's choice, Sec. 4.1).
    """
    chosen = layer_resolver.resolve_layer(model, layer)
    out: dict[str, dict[str, np.ndarray]] = {pooling: {} for pooling in extraction.POOLINGS}
    for name, texts in blocks.items():
        states = extraction.extract_poolings(model, list(texts), layers=[chosen], progress=False)
        for pooling, array in states.items():
            out[pooling][name] = np.asarray(array[0])
    return out


def space(embedded: Mapping[str, np.ndarray], *, anchors: str, attributes: str, targets: str,
          groups: Sequence[str], anchor_rows: np.ndarray | None = None, controls: str | None = None) -> dict:
    """One model's ΔB inputs from embedded blocks: anchors, positive, negative, targets per group and,
    when ``controls`` names a block, the group-free control targets (``control``).

    ``attributes`` names a block of the 100 positive then the 100 negative sentences, ``targets`` a
    block of 50 sentences per group in ``groups`` order; ``anchor_rows`` selects anchors (all: None).
    """
    attribute_rows, target_rows = embedded[attributes], embedded[targets]
    n_positive = len(attribute_rows) // 2
    per_group = len(target_rows) // len(groups)
    anchor_block = embedded[anchors]
    out = {"anchors": anchor_block if anchor_rows is None else anchor_block[anchor_rows],
           "positive": attribute_rows[:n_positive], "negative": attribute_rows[n_positive:],
           "targets": {g: target_rows[i * per_group:(i + 1) * per_group] for i, g in enumerate(groups)}}
    if controls is not None:
        out["control"] = embedded[controls]
    return out


def set_blocks(sets: sentences.SentenceSets, groups: Sequence[str], controls: Sequence[str] = ()
               ) -> dict[str, list[str]]:
    """The blocks of one :class:`~lib.bias_shift.sentences.SentenceSets`: anchors, attributes (𝒫, 𝒩), targets,
    and ``controls`` (the group-free targets) when given."""
    blocks = {"anchors": list(sets.anchors), "attributes": [*sets.positive, *sets.negative],
              "targets": [t for g in groups for t in sets.targets[g]]}
    return blocks | ({"controls": list(controls)} if controls else {})


def embed_sets(model: str, sets: sentences.SentenceSets, *, layer: int | str = "last", pooling: str = "mean",
               groups: Sequence[str] | None = None, controls: Sequence[str] = ()) -> dict:
    """Embeddings of the anchors, attributes, per-group targets and group-free ``controls`` of ``sets``
    (cached per block). ``layer`` "last" is the final layer (the paper's choice, Sec. 4.1).
    """
    if pooling not in extraction.POOLINGS:
        raise ValueError(f"pooling={pooling!r} is not supported; allowed: {', '.join(extraction.POOLINGS)}")
    wanted = list(sets.targets) if groups is None else list(groups)
    embedded = embed_blocks(model, set_blocks(sets, wanted, controls), layer=layer)[pooling]
    return space(embedded, anchors="anchors", attributes="attributes", targets="targets", groups=wanted,
                 controls="controls" if controls else None)


def check_groups(groups: Sequence[str] | None) -> list[str]:
    """The requested target groups, or all of them; unknown names raise naming the allowed ones."""
    if groups is None:
        return list(sentences.GROUPS)
    unknown = [g for g in groups if g not in sentences.GROUPS]
    if unknown:
        raise ValueError(f"unknown target group(s) {unknown}; allowed: {', '.join(sentences.GROUPS)}")
    return list(groups)


def audit(reference: str, audited: str, *, groups: Sequence[str] | None = None, layer: int | str = "last",
          pooling: str = "mean", sets: sentences.SentenceSets | None = None,
          controls: Sequence[str] | None = None) -> pd.DataFrame:
    """ΔB (relative representations) per target group, with the SEAT, Procrustes-SEAT and CKA-drift baselines,
    the group-free control and the decomposition (:func:`shifts`). ``controls``: the control targets
    (default: :func:`~lib.bias_shift.sentences.control_sentences` of the base templates)."""
    chosen = check_groups(groups)
    sets = sentences.load() if sets is None else sets
    controls = sentences.control_sentences() if controls is None else list(controls)
    ref = embed_sets(reference, sets, layer=layer, pooling=pooling, groups=chosen, controls=controls)
    aud = embed_sets(audited, sets, layer=layer, pooling=pooling, groups=chosen, controls=controls)
    return shifts(ref, aud, chosen)


#: The shift columns :func:`shifts` computes, each from both models' embeddings.
SHIFTS: dict = {"delta_b": deltab.rr_delta_b, "seat_delta_b": deltab.seat_delta_b,
                "procrustes_seat_delta_b": deltab.procrustes_seat_delta_b, "cka_drift": deltab.cka_drift_by_group}


def shifts(reference: dict, audited: dict, groups: Sequence[str], methods: Sequence[str] | None = None
           ) -> pd.DataFrame:
    """One row per group: its topic and each method's shift (columns of :data:`SHIFTS`; all by default).

    When both models hold ``control`` embeddings (the group-free targets) and ΔB is computed, the row also
    has control_delta_b (the control's ΔB, one value per model pair), group_shift = ΔB − control_delta_b,
    and ΔB's targets-only and attributes-only parts (:func:`~lib.bias_shift.deltab.rr_decomposition`).
    """
    chosen = list(SHIFTS) if methods is None else list(methods)
    unknown = [m for m in chosen if m not in SHIFTS]
    if unknown:
        raise ValueError(f"methods {unknown} are unknown; allowed: {', '.join(SHIFTS)}")
    frame = pd.DataFrame({"group": list(groups), "topic": [sentences.topic_of(g) for g in groups]})
    for column in chosen:
        frame[column] = frame.group.map(SHIFTS[column](reference, audited))
    if "delta_b" in chosen and "control" in reference and "control" in audited:
        frame["control_delta_b"] = deltab.control_delta_b(reference, audited)
        frame["group_shift"] = frame.delta_b - frame.control_delta_b
        parts = deltab.rr_decomposition(reference, audited)
        for part in ("targets_only", "attributes_only"):
            frame[part] = frame.group.map({g: v[part] for g, v in parts.items()})
    return frame


def control_summary(shifts: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Per ``keys`` (setting, pooling, checkpoint): the mean over groups of ΔB, the group-free control's ΔB, the
    group-specific shift ΔB − control and ΔB's targets-only and attributes-only parts (:func:`shifts`), and
    |control| over the median |ΔB| over groups (above 1: ΔB is mostly drift every
    target sentence shares, group-free ones included; not in paper 001, which reads ΔB per group, Sec. 3.4)."""
    grouped = shifts.groupby(list(keys), sort=False)
    out = grouped[["delta_b", "control_delta_b", "group_shift", "targets_only", "attributes_only"]].mean()
    out["abs_control_over_median_abs_delta_b"] = out.control_delta_b.abs() / grouped.delta_b.apply(
        lambda s: s.abs().median())
    return out.reset_index()
