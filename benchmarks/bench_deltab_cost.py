"""What one checkpoint costs for ΔB against what its output-level bias score costs (paper 001, Sec. 4.6).

The paper reports about 3 minutes per model for ΔB (embeddings plus the bias shift) against 9–156
minutes for the output-level benchmarks (Appendix D, Table 3). Here, for the offline reference
SmolLM2-135M on this CPU, uncached: embedding the 2,400 sentences of ΔB (1,000 anchors, 200
attributes, 24 × 50 targets) at the final layer, computing ΔB against itself, and sampling the
360 continuations of D01's output bias (24 groups × 3 prompts × 5 samples, 32 new tokens).
Both are measured in this process, so their ratio is the comparable number.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from lib import paths
from lib.bias_shift import audit, deltab, output_bias, sentences
from lib.models import loading

MODEL = "smollm2-135m"


def main() -> None:
    folder = str(loading.model_folder(MODEL))
    saved = paths.FEATURES_CACHE_DIR, paths.GENERATIONS_CACHE_DIR
    with tempfile.TemporaryDirectory() as scratch:  # cold caches: nothing is read back
        paths.FEATURES_CACHE_DIR = Path(scratch) / "features"
        paths.GENERATIONS_CACHE_DIR = Path(scratch) / "generations"
        try:
            loading.load(folder)  # load time is not part of either step
            sets = sentences.load()
            start = time.perf_counter()
            embedded = audit.embed_sets(folder, sets)
            embed = time.perf_counter() - start
            start = time.perf_counter()
            deltab.rr_delta_b(embedded, embedded)
            shift = time.perf_counter() - start
            start = time.perf_counter()
            output_bias.bias_scores(folder, sentences.GROUPS)
            generate = time.perf_counter() - start
        finally:
            paths.FEATURES_CACHE_DIR, paths.GENERATIONS_CACHE_DIR = saved
    n_sentences = len(sets.anchors) + len(sets.positive) + len(sets.negative) + sum(map(len, sets.targets.values()))
    print(f"one checkpoint of {MODEL}, CPU, uncached")
    print(f"  embed {n_sentences} sentences (all three poolings): {embed:6.1f} s   ΔB: {shift:5.2f} s")
    print(f"  sample + score 360 continuations (32 new tokens):   {generate:6.1f} s")
    print(f"  ratio output-level / ΔB: {generate / (embed + shift):.1f}x (paper, Llama on an A100: WildGuardMix "
          f"9m03s / 2m51s = 3.2x)")


if __name__ == "__main__":
    main()
