"""Sequences per second of the vectorised FactorWorld sampler vs a per-sequence loop, and training updates per
second per architecture (paper 002, A.3.3: 256 fresh sequences per update).

Baseline: the textbook generator, one sequence at a time with Python lists (``rng.permutation`` for the order and
``rng.choice`` for the 12 queries). Target: ≥ 10× for the vectorised sampler.
"""

from __future__ import annotations

import time

import numpy as np

from lib.kstar.world import networks, world

N, UPDATES = 4096, 20
FW = world.FactorWorld()
SUBSETS = [q.factors for q in FW.queries[world.N_FACTORS:]]
FUNCTIONS = [q.function for q in FW.queries[world.N_FACTORS:]]
CONTROL = [q.role == "control" for q in FW.queries]


def loop_sample(rng: np.random.Generator, n: int) -> np.ndarray:
    """The same distribution as FactorWorld.sample, one sequence at a time."""
    rows = []
    for _ in range(n):
        z = [int(b) for b in rng.integers(0, 2, size=world.N_FACTORS)]
        truth = z + [int(world.aggregate(f, sum(z[j] for j in s), len(s))) for f, s in zip(FUNCTIONS, SUBSETS,
                                                                                            strict=True)]
        seq = [world.BOS] + [world.OBSERVATION0 + 2 * j + z[j] for j in rng.permutation(world.N_FACTORS)] + [world.SEP]
        for q in rng.choice(world.N_QUERIES, size=world.N_SLOTS, replace=False):
            answer = int(rng.integers(0, 2)) if CONTROL[q] else truth[q]
            seq += [world.QUERY0 + int(q), world.ANSWER0 + answer]
        rows.append(seq)
    return np.array(rows, dtype=np.int64)


def rate(fn, n: int) -> float:
    start = time.perf_counter()
    fn()
    return n / (time.perf_counter() - start)


def main() -> None:
    rng = np.random.default_rng(0)
    vectorised = rate(lambda: FW.sample(rng, N), N)
    loop = rate(lambda: loop_sample(rng, N), N)
    print(f"FactorWorld sampling, {N} sequences of {world.SEQ_LEN} tokens")
    print(f"  vectorised  {vectorised:12.0f} sequences/s")
    print(f"  loop        {loop:12.0f} sequences/s   vectorised / loop = {vectorised / loop:.1f}x (target >= 10x)")
    print(f"training, batch 256, {UPDATES} updates after 2 warm-up updates")
    for name in ("transformer-d64-L2-s0", "transformer-d128-L1-s0", "gru-d64-L1-s0", "gru-d128-L1-s0"):
        model = networks.build(networks.parse_spec(name))
        networks.train(model, FW, 2)
        print(f"  {name:24s} {rate(lambda m=model: networks.train(m, FW, UPDATES), UPDATES):6.2f} updates/s")


if __name__ == "__main__":
    main()
