"""Student tokens/s of paper 002's label-budget runs (App. A.4.1): LoRA training and test scoring.

``lib.kstar.label_budget.students`` trains peft LoRA adapters on every attention and MLP projection plus a new head
(the backbone frozen). Baseline, in the same process and on the same texts, batches and seed: the same
loop with every backbone weight trainable (full fine-tuning), which is what LoRA saves. The ratio is
LoRA tokens/s over full fine-tuning tokens/s; scoring (length-sorted batches of 32, no gradients) is
reported in tokens/s beside it. Default: MiniLM on 64 rt_subjectivity-like review texts, 2 epochs at
32 tokens; ``--model smollm2-135m`` times the other offline student (≈ 10× slower per token).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from lib.kstar.label_budget import students

WORDS = ("the film is a quiet and oddly moving portrait of grief although its second half drags on "
         "with plot turns nobody asked for yet the cast keeps it watchable").split()


def texts(n: int, seed: int) -> tuple[list[str], np.ndarray]:
    """Review-length texts (20-30 words) with balanced labels."""
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, rng.integers(20, 31))) for _ in range(n)], np.arange(n) % 2


def timed_training(model: str, full: bool, sample: list[str], y: np.ndarray, epochs: int, max_tokens: int) -> float:
    """Tokens/s of one training run (LoRA, or with every backbone weight trainable)."""
    student, tokenizer = students.build(model, seed=0)
    if full:
        for name, parameter in student.backbone.named_parameters():
            parameter.requires_grad = "lora_" not in name  # full fine-tuning of the pretrained weights
    log = students.train(student, tokenizer, sample, y.astype(float), epochs=epochs, seed=0, lr=2e-4,
                         max_tokens=max_tokens)
    return log.tokens / log.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="minilm")
    parser.add_argument("--n", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=32)
    args = parser.parse_args()
    sample, y = texts(args.n, 0)
    timed_training(args.model, False, sample[:16], y[:16], 1, args.max_tokens)  # warm-up: load, first graph
    lora = timed_training(args.model, False, sample, y, args.epochs, args.max_tokens)
    full = timed_training(args.model, True, sample, y, args.epochs, args.max_tokens)
    student, tokenizer = students.build(args.model, seed=0)
    n_tokens = sum(len(ids) for ids in tokenizer(sample, truncation=True, max_length=args.max_tokens)["input_ids"])
    start = time.perf_counter()
    students.scores(student, tokenizer, sample, max_tokens=args.max_tokens)
    scoring = n_tokens / (time.perf_counter() - start)
    print(f"{args.model}, {args.n} texts × {args.epochs} epochs, ≤ {args.max_tokens} tokens, "
          f"{torch.get_num_threads()} threads")
    print(f"LoRA training:        {lora:8.0f} tokens/s")
    print(f"full fine-tuning:     {full:8.0f} tokens/s")
    print(f"test scoring:         {scoring:8.0f} tokens/s")
    print(f"ratio LoRA / full fine-tuning: {lora / full:.2f}×")


if __name__ == "__main__":
    main()
