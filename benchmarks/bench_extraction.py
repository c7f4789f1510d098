"""Texts/s and tokens/s of ``lib.features`` extraction against a naive per-sentence loop (target ≥ 5×).

Both run MiniLM on the same 5,440 template prompts in this process; outputs must agree to 1e-5.
The naive loop is run on a subset (it is slow) and its rate extrapolated; peak memory is read
from the process's resident-set high-water mark.
"""

from __future__ import annotations

import resource
import time

import numpy as np
import torch

from lib import features
from lib.bias_probes import prompts

NAIVE_SUBSET = 400


def naive(model_name: str, texts: list[str]) -> np.ndarray:
    """One forward pass per sentence, all layers, token mean over the whole sequence."""
    model, tokenizer = features.load(model_name)
    rows = []
    with torch.no_grad():
        for text in texts:
            encoded = tokenizer(text, return_tensors="pt")
            hidden = model(**encoded, output_hidden_states=True).hidden_states
            rows.append(torch.stack([h[0].mean(0) for h in hidden]).numpy())
    return np.stack(rows, axis=1)


def main() -> None:
    texts = prompts.template_grid().text.tolist()
    _, tokenizer = features.load("minilm")
    n_tokens = sum(len(ids) for ids in tokenizer(texts)["input_ids"])
    start = time.perf_counter()
    batched = features.compute_hidden_states("minilm", texts, progress=False)
    ours = time.perf_counter() - start
    start = time.perf_counter()
    reference = naive("minilm", texts[:NAIVE_SUBSET])
    loop = (time.perf_counter() - start) * len(texts) / NAIVE_SUBSET
    difference = np.abs(batched[:, :NAIVE_SUBSET] - reference).max()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"MiniLM, {len(texts)} prompts × {batched.shape[0]} hidden states, {n_tokens} tokens")
    print(f"  lib.features: {ours:6.1f} s  {len(texts) / ours:7.0f} texts/s  {n_tokens / ours:8.0f} tokens/s")
    print(f"  naive loop:   {loop:6.1f} s  {len(texts) / loop:7.0f} texts/s  (extrapolated from {NAIVE_SUBSET})")
    print(f"  speed-up {loop / ours:.1f}x (target >= 5x); max |difference| {difference:.1e} (target <= 1e-5); "
          f"peak RSS {peak_mb:.0f} MB")


if __name__ == "__main__":
    main()
