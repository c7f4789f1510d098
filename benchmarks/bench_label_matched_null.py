"""Seconds per correspondence test (paper 002, App. A.2.4): 1,000 label-matched null draws, vectorised vs a loop.

Vectorised (``lib.kstar.sae.correspondence.label_matched_null``): the within-class profile of every
feature any draw uses is computed once, with its correlations to A's profiles; each draw gathers
its k_A × k_B block and solves one assignment. Baseline (``label_matched_null_loop``): the direct
loop, one ``match_score`` per draw (profiles and correlations recomputed each time), same draws,
same result (checked). Target: ≥ 5×.

Data: the paper's intent-classification scale, n = 3,000 shared test inputs; supports of k = 16
features on both sides (its intents' supports run from ~10 to ~50); B has 4,096 features (SAE
widths are 16,384–65,536, which only changes the candidate search both versions share).
``--quick``: n = 1,000 and 200 draws.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from lib.kstar.sae import correspondence as corr


def world(n: int, d_b: int, k: int, seed: int = 0):
    """Balanced labels, every feature shifted by class; B's first k share A's within-class variation."""
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.arange(n) % 2)
    latent = rng.standard_normal((n, k))
    XA = latent + rng.standard_normal((n, k)) + rng.uniform(0.2, 1.5, k) * y[:, None]
    XB = rng.standard_normal((n, d_b)) + rng.uniform(0.2, 1.5, d_b) * y[:, None]
    XB[:, :k] = latent + rng.standard_normal((n, k)) + rng.uniform(0.2, 1.5, k) * y[:, None]
    return XA, XB, list(range(k)), y


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 1,000 and 200 draws")
    args = parser.parse_args()
    n, draws = (1000, 200) if args.quick else (3000, corr.N_DRAWS)
    XA, XB, support, y = world(n, 4096, 16)
    timings = {}
    outputs = {}
    for name, func in (("loop", corr.label_matched_null_loop), ("vectorised", corr.label_matched_null)):
        start = time.perf_counter()
        outputs[name] = func(XA, XB, support, y, n_draws=draws, seed=1)
        timings[name] = time.perf_counter() - start
    same = all(np.isclose(getattr(outputs["loop"], f), getattr(outputs["vectorised"], f), atol=1e-9)
               for f in ("score", "null_mean", "null_sd", "q99", "z"))
    print(f"n = {n} inputs, k_A = k_B = 16, d_B = 4096, {draws} null draws; identical results: {same}")
    print(f"  direct loop (match_score per draw)  {timings['loop']:7.2f} s")
    print(f"  vectorised                          {timings['vectorised']:7.2f} s")
    print(f"  ratio {timings['loop'] / timings['vectorised']:.1f}x (target >= 5x)")


if __name__ == "__main__":
    main()
