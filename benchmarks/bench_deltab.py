"""ΔB for one checkpoint pair from cached embeddings (target ≤ 1 s) against a per-sentence loop.

Sizes of paper 001's setup: 1,000 anchors, 24 groups × 50 targets, 100 + 100 attribute sentences,
576-wide embeddings (SmolLM2-135M). Both implementations must give identical ΔB per group.
"""

from __future__ import annotations

import time

import numpy as np

from lib.bias_shift import deltab

D, ANCHORS, GROUPS, TARGETS, ATTRIBUTES = 576, 1000, 24, 50, 100


def loop_delta_b(reference: dict, audited: dict) -> float:
    """Eq. 4–7 one sentence at a time, as a direct reading of the paper would write them."""
    def cos(a, b):
        return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))

    def bias(model):
        rel = {k: [np.array([cos(x, a) for a in model["anchors"]]) for x in model[k]]
               for k in ("targets", "positive", "negative")}
        total = 0.0
        for r in rel["targets"]:
            s_pos = -np.mean([np.linalg.norm(r - p) for p in rel["positive"]])
            s_neg = -np.mean([np.linalg.norm(r - n) for n in rel["negative"]])
            total += s_pos - s_neg
        return total / len(rel["targets"])

    return bias(audited) - bias(reference)


def main() -> None:
    rng = np.random.default_rng(0)

    def model():
        return {"anchors": rng.normal(size=(ANCHORS, D)), "positive": rng.normal(size=(ATTRIBUTES, D)),
                "negative": rng.normal(size=(ATTRIBUTES, D)),
                "targets": {f"group{g:02d}": rng.normal(size=(TARGETS, D)) for g in range(GROUPS)}}

    reference, audited = model(), model()
    start = time.perf_counter()
    fast = deltab.rr_delta_b(reference, audited)
    ours = time.perf_counter() - start
    first = {"targets": reference["targets"]["group00"]}, {"targets": audited["targets"]["group00"]}
    start = time.perf_counter()
    slow = loop_delta_b({**reference, **first[0]}, {**audited, **first[1]})
    loop = (time.perf_counter() - start) * GROUPS  # one group timed, 24 extrapolated
    print(f"ΔB for {GROUPS} groups × {TARGETS} targets, {ANCHORS} anchors, {2 * ATTRIBUTES} attributes, d = {D}")
    print(f"  lib.bias_shift.deltab: {ours:6.3f} s (target <= 1 s)   "
          f"per-sentence loop: {loop:6.1f} s (extrapolated from 1 group)")
    print(f"  ratio {loop / ours:.0f}x; |difference| on group 0: {abs(fast['group00'] - slow):.1e}")


if __name__ == "__main__":
    main()
