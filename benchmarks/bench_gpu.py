"""Does a CUDA device change paper 002's counts, and how much faster does it extract? (A.1.2 "Numerics", A.1.6.)

The paper runs its forward passes in bfloat16 and stores the pooled states in float32 (A.1.2); the offline
profiles extract in float32 on a CPU. On a machine with a CUDA device this prints, for MiniLM (offline, from its
PyPI package):

- extraction: seconds to mean-pool every hidden state of 2,000 texts on the CPU (float32) and on the device in
  float32 and bfloat16 (no feature cache: :func:`lib.models.extraction.compute_hidden_states`), the speed-up
  against the CPU and the largest relative error of a pooled state against the CPU's float32 states;
- one K01-style cell: Algorithm 2 (:func:`lib.kstar.protocol.algorithm.measure_kstar`: sweep, window, five seeds) on the
  example task ``data/kstar/example_topics.csv`` (four one-vs-rest decisions, 160 + 40 texts, four blocks) from
  each of the three extractions, with the share of the sweep's local counts that agree with the CPU's and k*
  per decision side by side. The probe fits run on the CPU in every case (LIBLINEAR has no GPU path).

Without a CUDA device it says so and exits 0. ``--quick``: 500 texts for the timing. Under 10 minutes on one GPU.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from lib.kstar.protocol import algorithm, counts
from lib.kstar.tasks import task_files
from lib.models import extraction, loading

MODEL = "minilm"
TASK = Path(__file__).resolve().parent.parent / "data" / "kstar" / "example_topics.csv"
BLOCKS = (0, 2, 3, 5)  # layer_specs.layer_grid("minilm", 4)
CONFIGS = (("cpu", "float32"), ("cuda", "float32"), ("cuda", "bfloat16"))


def timing_texts(pool, n: int, seed: int = 0) -> list[str]:
    """``n`` longer texts: three example sentences each, drawn at random (for timing only)."""
    rng = np.random.default_rng(seed)
    texts = np.array(pool.texts_train + pool.texts_test)
    return [" ".join(rng.choice(texts, size=3, replace=False)) for _ in range(n)]


def states(texts: list[str], device: str, dtype: str) -> tuple[np.ndarray, float]:
    """Mean-pooled states of every layer (L + 1, n, d) and the seconds of the second of two calls (warm)."""
    def call():
        return extraction.compute_hidden_states(MODEL, texts, pooling="mean", dtype=dtype, device=device,
                                                progress=False)
    call()
    start = time.perf_counter()
    out = call()
    if device == "cuda":
        import torch

        torch.cuda.synchronize()
    return out, time.perf_counter() - start


def relative_error(states_: np.ndarray, reference: np.ndarray) -> float:
    return float((np.linalg.norm(states_ - reference, axis=-1) / np.linalg.norm(reference, axis=-1)).max())


def cell(pool, all_states: np.ndarray) -> algorithm.KStar:
    """Algorithm 2 on one extraction (hidden-state index b + 1 is block b)."""
    measurable, _ = task_files.check_pool(pool)
    n_train = len(pool.texts_train)
    features = {(b, "mean"): (all_states[b + 1, :n_train], all_states[b + 1, n_train:]) for b in BLOCKS}
    return algorithm.measure_kstar(features, {d.name: d.y_train.astype(int) for d in measurable},
                                   {d.name: d.y_test.astype(int) for d in measurable}, n_jobs=-1, model=MODEL,
                                   task=pool.name)


def sweep_agreement(result: algorithm.KStar, reference: algorithm.KStar) -> float:
    """Share of the sweep's (decision, block) local counts equal to the reference's."""
    def local(r):
        return counts.local_counts(r.sweep, counts.sweep_ceilings(r.sweep)).set_index(["decision", "block"])["count"]
    both = local(result).to_frame("a").join(local(reference).rename("b"), how="inner")
    return float((both.a == both.b).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="500 texts for the timing instead of 2,000")
    args, _ = parser.parse_known_args()
    import torch

    if not torch.cuda.is_available():
        print("bench_gpu: no CUDA device found; nothing to measure (exit 0)")
        return
    print(f"device: {torch.cuda.get_device_name(0)}; model: {MODEL}; CPU threads: {torch.get_num_threads()}")
    loading.model_folder(MODEL)
    pool = task_files.load_task(TASK)
    texts = timing_texts(pool, 500 if args.quick else 2000)
    reference, cpu_seconds = states(texts, "cpu", "float32")
    print(f"extraction, {len(texts)} texts, every layer, mean pooling:")
    print(f"  cpu  float32    {cpu_seconds:7.2f} s")
    for device, dtype in CONFIGS[1:]:
        out, seconds = states(texts, device, dtype)
        print(f"  {device} {dtype:<9} {seconds:7.2f} s   {cpu_seconds / seconds:6.1f}x the CPU   largest relative "
              f"error against the CPU's float32: {relative_error(out, reference):.2e}", flush=True)
    task_texts = list(pool.texts_train + pool.texts_test)
    results = {}
    for device, dtype in CONFIGS:
        start = time.perf_counter()
        task_states = extraction.compute_hidden_states(MODEL, task_texts, pooling="mean", dtype=dtype, device=device,
                                                       progress=False)
        results[(device, dtype)] = (cell(pool, task_states), time.perf_counter() - start)
    base, base_seconds = results[("cpu", "float32")]
    print(f"K01-style cell ({pool.name}, blocks {', '.join(map(str, BLOCKS))}, seeds 1-5; probes on the CPU):")
    for (device, dtype), (result, seconds) in results.items():
        per_decision = ", ".join(f"{row.decision} {counts.display_count(row.kstar)}"
                                 for row in result.decisions.itertuples())
        same = result.decisions.kstar.tolist() == base.decisions.kstar.tolist()
        print(f"  {device} {dtype:<9} {seconds:6.1f} s   k* {counts.display_count(result.kstar)}   window "
              f"{result.window}   per decision: {per_decision}   sweep local counts equal to the CPU's: "
              f"{sweep_agreement(result, base):.0%}   same k* per decision: {same}", flush=True)


if __name__ == "__main__":
    main()
