"""Would bfloat16 buy paper 001's offline pipeline its time on this CPU? Ratios against float32 in one process.

D01 and D02 spend their time in SmolLM2's matrix products: ΔB extraction and LoRA fine-tuning, both in float32
(``lib.models`` computes in float32 on a CPU; ``lib.bias_shift.checkpoints`` trains in float32). A CPU with AMX
or AVX-512 BF16 runs bfloat16 products several times faster, so this prints, each as bfloat16 / float32 in the
same process:

- one 2048² product (the ceiling);
- one forward pass of 256 base-template target sentences through SmolLM2 under ``torch.autocast`` and with the
  weights cast, with the largest relative error of their mean-pooled last-layer states (what ΔB reads);
- five LoRA steps of the fine-tuning recipe (batch 8 × 64 tokens, r = 16 on q,k,v,o,gate,up,down) under autocast.

The errors say what the speed would cost: ΔB compares small shifts between models, so an error of a few per cent
in the states it reads is not a free trade. It converts SmolLM2 on first use (minutes, once).
"""

from __future__ import annotations

import copy
import time
import warnings

import torch

from lib import parallel
from lib.bias_shift import checkpoints, sentences
from lib.models import loading

MATMUL_SIDE = 2048
N_SENTENCES = 256
MODEL = "smollm2-135m"


def best_seconds(step, repeats: int = 3) -> float:
    """Fastest of ``repeats`` timed calls after one warm-up call."""
    step()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return min(times)


def matmul_rate(dtype: torch.dtype) -> float:
    a, b = torch.randn(MATMUL_SIDE, MATMUL_SIDE, dtype=dtype), torch.randn(MATMUL_SIDE, MATMUL_SIDE, dtype=dtype)
    return 2 * MATMUL_SIDE**3 / best_seconds(lambda: a @ b) / 1e9


def mean_pooled(hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    weights = mask.unsqueeze(-1).float()
    return (hidden.float() * weights).sum(1) / weights.sum(1)


def largest_relative_error(pooled: torch.Tensor, reference: torch.Tensor) -> float:
    return float(((pooled - reference).norm(dim=1) / reference.norm(dim=1)).max())


def extraction() -> None:
    model, tokenizer = loading.load(MODEL)
    targets = sentences.target_sentences("base")
    texts = [t for group in targets for t in targets[group]][:N_SENTENCES]
    encoded = tokenizer(texts, return_tensors="pt", padding=True)
    mask = encoded["attention_mask"]
    with torch.inference_mode():
        forward = lambda: model(**encoded).last_hidden_state  # noqa: E731
        fp32_s, reference = best_seconds(forward), mean_pooled(forward(), mask)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            autocast_s, autocast = best_seconds(forward), mean_pooled(forward(), mask)
        cast_model = copy.deepcopy(model).to(torch.bfloat16)  # a copy: the cached float32 model stays exact
        cast_forward = lambda: cast_model(**encoded).last_hidden_state  # noqa: E731
        cast_s, cast = best_seconds(cast_forward), mean_pooled(cast_forward(), mask)
    print(f"SmolLM2 forward, {N_SENTENCES} sentences × {encoded['input_ids'].shape[1]} tokens: float32 {fp32_s:.2f} s; "
          f"autocast bfloat16 {fp32_s / autocast_s:.2f}× faster (pooled states off by up to "
          f"{largest_relative_error(autocast, reference):.1%}); bfloat16 weights {fp32_s / cast_s:.2f}× "
          f"(off by up to {largest_relative_error(cast, reference):.1%})")


def lora_steps() -> None:
    from peft import LoraConfig, get_peft_model

    model = loading.load_causal_lm(loading.model_folder(MODEL))
    model.config.use_cache = False
    with warnings.catch_warnings():  # peft asks transformers a deprecated question; nothing to act on
        warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*", category=FutureWarning)
        model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05, bias="none",
                                                 target_modules=list(checkpoints.TARGET_MODULES),
                                                 task_type="CAUSAL_LM"))
    model.train()
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
    ids = torch.randint(0, model.config.vocab_size, (8, 64), generator=torch.Generator().manual_seed(0))
    keep = torch.arange(30, 63)  # the loss on the later tokens, as the recipe keeps only the assistant's

    def five_steps(bfloat16: bool) -> None:
        for _ in range(5):
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bfloat16):
                logits = model(input_ids=ids, logits_to_keep=keep).logits
            loss = torch.nn.functional.cross_entropy(logits.float().reshape(-1, logits.shape[-1]),
                                                     ids[:, 31:].reshape(-1))
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()

    fp32_s = best_seconds(lambda: five_steps(False), repeats=2)
    bf16_s = best_seconds(lambda: five_steps(True), repeats=2)
    print(f"LoRA, 5 steps of batch 8 × 64: float32 {fp32_s:.2f} s; autocast bfloat16 {fp32_s / bf16_s:.2f}× faster")


def main() -> None:
    parallel.configure_threads()
    fp32, bf16 = matmul_rate(torch.float32), matmul_rate(torch.bfloat16)
    print(f"{MATMUL_SIDE}² product: float32 {fp32:.0f} GFLOP/s, bfloat16 {bf16:.0f} GFLOP/s ({bf16 / fp32:.1f}×)")
    extraction()
    lora_steps()


if __name__ == "__main__":
    main()
