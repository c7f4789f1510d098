"""Texts/s and tokens/s of ``lib.models`` extraction against a naive per-sentence loop (target ≥ 5×).

Both run MiniLM on the same 5,440 template prompts in this process; outputs must agree to 1e-5.
The naive loop is run on a subset (it is slow) and its rate extrapolated; peak memory is read
from the process's resident-set high-water mark.

Both sides are also put against what this CPU can do at all: the encoder's matrix-product work per token
(from its config) over the wall time gives GFLOP/s, beside the rate of one large float32 product measured
here. When ``lib.models`` already runs near that rate the speed-up is bounded by how efficient the
one-sentence loop is, not by batching.
"""

from __future__ import annotations

import resource
import time

import numpy as np
import torch

from lib.bias_probes import prompts
from lib.models import extraction, loading

NAIVE_SUBSET = 400
MATMUL_SIDE = 2048


def matmul_gflops() -> float:
    """This process's float32 rate on one large product (best of three), in GFLOP/s."""
    a, b = torch.randn(MATMUL_SIDE, MATMUL_SIDE), torch.randn(MATMUL_SIDE, MATMUL_SIDE)
    a @ b  # warm-up
    best = min(_timed(lambda: a @ b) for _ in range(3))
    return 2 * MATMUL_SIDE**3 / best / 1e9


def _timed(step) -> float:
    start = time.perf_counter()
    step()
    return time.perf_counter() - start


def encoder_flops_per_token(config) -> float:
    """Dense matrix-product FLOPs per token of a BERT-style encoder: per layer the four d × d attention
    projections and the two d × d_ff feed-forward products, 2 FLOPs per multiply-add (attention scores
    over ~12-token prompts are under 1 % and left out)."""
    d, d_ff = config.hidden_size, config.intermediate_size
    return config.num_hidden_layers * 2 * (4 * d * d + 2 * d * d_ff)


def naive(model_name: str, texts: list[str]) -> np.ndarray:
    """One forward pass per sentence, all layers, token mean over the whole sequence."""
    model, tokenizer = loading.load(model_name)
    rows = []
    with torch.no_grad():
        for text in texts:
            encoded = tokenizer(text, return_tensors="pt")
            hidden = model(**encoded, output_hidden_states=True).hidden_states
            rows.append(torch.stack([h[0].mean(0) for h in hidden]).numpy())
    return np.stack(rows, axis=1)


def main() -> None:
    texts = prompts.template_grid().text.tolist()
    model, tokenizer = loading.load("minilm")
    n_tokens = sum(len(ids) for ids in tokenizer(texts)["input_ids"])
    start = time.perf_counter()
    batched = extraction.compute_hidden_states("minilm", texts, progress=False)
    ours = time.perf_counter() - start
    start = time.perf_counter()
    reference = naive("minilm", texts[:NAIVE_SUBSET])
    loop = (time.perf_counter() - start) * len(texts) / NAIVE_SUBSET
    difference = np.abs(batched[:, :NAIVE_SUBSET] - reference).max()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"MiniLM, {len(texts)} prompts × {batched.shape[0]} hidden states, {n_tokens} tokens")
    print(f"  lib.models: {ours:6.1f} s  {len(texts) / ours:7.0f} texts/s  {n_tokens / ours:8.0f} tokens/s")
    print(f"  naive loop:   {loop:6.1f} s  {len(texts) / loop:7.0f} texts/s  (extrapolated from {NAIVE_SUBSET})")
    print(f"  speed-up {loop / ours:.1f}x (target >= 5x); max |difference| {difference:.1e} (target <= 1e-5); "
          f"peak RSS {peak_mb:.0f} MB")
    work = n_tokens * encoder_flops_per_token(model.config) / 1e9
    peak = matmul_gflops()
    print(f"  matrix-product rate: lib.models {work / ours:.0f} GFLOP/s, naive loop {work / loop:.0f} GFLOP/s, "
          f"one {MATMUL_SIDE}² product {peak:.0f} GFLOP/s ({torch.get_num_threads()} threads): lib.models at "
          f"{work / ours / peak:.0%} of it, so at most {peak / (work / loop):.1f}x over the loop is left to batching")


if __name__ == "__main__":
    main()
