"""k^syn, the count of paper 002's synthetic readout (App. A.3.4, Eq. 50, Table 37), from recorded candidates.

Eq. 50 and Table 37 were lost in the text extraction; the rule is re-derived from the prose. It differs
from the main estimator (:mod:`lib.kstar.protocol.rules`) in three ways: the threshold uses each layer's own dense
ceiling, a size qualifies when the *median* AUROC of its candidates reaches it, and the count is the minimum
over the readable layers, without neighbour confirmation (one probe seed, no subsample).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from lib.kstar.protocol.probe_search import Candidate, SearchResult
from lib.kstar.protocol.rules import FRAC, READABLE_ABOVE, threshold


@dataclass(frozen=True)
class SyntheticCount:
    """k^syn of one query (paper 002, App. A.3.4): ``count`` (None: unreadable, not a count), the ``layer``
    that attains it and the largest dense AUROC over the layers (``ceiling``)."""

    count: int | float | None
    layer: int | None
    ceiling: float

    @property
    def readable(self) -> bool:
        return self.count is not None


def _pairs(candidates) -> list[tuple[int, float]]:
    if isinstance(candidates, SearchResult):
        candidates = candidates.candidates
    return [(c.size, c.auroc) if isinstance(c, Candidate) else (int(c[0]), float(c[1])) for c in candidates]


def median_curve(candidates: SearchResult | Iterable[Candidate | tuple[int, float]]) -> dict[int, float]:
    """Ã(k): the median test AUROC over the ranked-prefix and L1 candidates of each size k (A.3.4), by size."""
    by_size: dict[int, list[float]] = {}
    for size, auroc in _pairs(candidates):
        by_size.setdefault(size, []).append(auroc)
    return {size: float(np.median(by_size[size])) for size in sorted(by_size)}


def synthetic_layer_count(dense_auroc: float, candidates: SearchResult | Iterable[Candidate | tuple[int, float]],
                          frac: float = FRAC) -> int | float:
    """The smallest k with Ã(k) ≥ τ = ½ + frac·(C_ℓ − ½), C_ℓ the layer's own dense AUROC (A.3.4); ∞ if none."""
    tau = threshold(dense_auroc, frac)
    sizes = [size for size, value in median_curve(candidates).items() if value >= tau]
    return min(sizes) if sizes else math.inf


def synthetic_count(layers: Mapping[int, SearchResult | tuple[float, Iterable]], frac: float = FRAC,
                    readable_above: float = READABLE_ABOVE) -> SyntheticCount:
    """k^syn: paper 002, App. A.3.4, Eq. 50 and Table 37 (both lost in extraction; re-derived from the prose).

    ``layers``: layer → a :class:`~lib.kstar.protocol.probe_search.SearchResult` or ``(dense AUROC, candidates)`` with
    candidates as :class:`~lib.kstar.protocol.probe_search.Candidate` or (size, AUROC) pairs. The threshold uses each
    layer's own dense ceiling C_qℓ; a size qualifies when the *median* AUROC of its candidates reaches it
    (:func:`synthetic_layer_count`); the count is the minimum over layers, with no neighbour confirmation.
    A query whose dense AUROC exceeds ``readable_above`` (0.90) at no layer is unreadable: ``count=None``,
    distinct from a large count.

    The minimum runs over the readable layers (C_qℓ > 0.90) only — a choice the lost table may have
    stated otherwise: at a layer that reads nothing (the embedding layer at the query position reads
    C ≈ ½) τ falls to about ½ and any candidate would qualify, so a count of one would be manufactured
    from chance. Ties between layers go to the shallower layer.
    """
    if not layers:
        raise ValueError("synthetic_count needs at least one layer; got none")
    dense = {}
    for layer, value in layers.items():
        dense[layer] = value.dense_auroc if isinstance(value, SearchResult) else float(value[0])
    top = max(dense.values())
    readable = sorted(layer for layer, c in dense.items() if c > readable_above)
    if not readable:
        return SyntheticCount(None, None, top)
    counts = {}
    for layer in readable:
        value = layers[layer]
        candidates = value if isinstance(value, SearchResult) else value[1]
        counts[layer] = synthetic_layer_count(dense[layer], candidates, frac)
    best = min(readable, key=lambda layer: (counts[layer], layer))
    count = counts[best]
    return SyntheticCount(math.inf if math.isinf(count) else int(count), best, top)
