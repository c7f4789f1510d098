"""D01's DecodingTrust prompts on SmolLM2-135M (paper 001, Sec. 4.3): the shared-prefix cache against whole prompts.

Every DecodingTrust prompt opens with the same system turn and the benchmark's instruction (94 of about 106
tokens on SmolLM2), so ``stereotype.choice_margins`` and ``output_bias.generate`` run that prefix once and reuse
its key-value cache. The baseline, measured in the same process, is what both did before: every whole prompt
left-padded through the model (forced choice: one forward pass; sampling: ``model.generate``). Sizes: 40
prompts of D01's forced-choice subset; one generation batch of D01 (40 prompts × 3 samples = 120 rows, 48 new
tokens). Prints the speed-up, the largest margin difference and the share of identical replies.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from lib import paths
from lib.bias_shift import output_bias, stereotype
from lib.models import loading

MODEL, N_PROMPTS, N_SAMPLES, NEW_TOKENS = "smollm2-135m", 40, 3, 48


def whole_prompt_margins(model, tokenizer, rendered: list[str], batch_size: int = 32) -> np.ndarray:
    shared, first, second = stereotype._check_choices(tokenizer, stereotype.CHOICES)
    rows = [tokenizer(text, add_special_tokens=False)["input_ids"] + shared for text in rendered]
    margins = []
    with torch.inference_mode():
        for start in range(0, len(rows), batch_size):
            batch = rows[start:start + batch_size]
            longest = max(len(r) for r in batch)
            ids = torch.full((len(batch), longest), tokenizer.pad_token_id, dtype=torch.long)
            mask = torch.zeros_like(ids)
            for i, r in enumerate(batch):
                ids[i, longest - len(r):], mask[i, longest - len(r):] = torch.tensor(r), 1
            positions = (mask.cumsum(1) - 1).clamp(min=0)
            logits = model(input_ids=ids, attention_mask=mask, position_ids=positions, logits_to_keep=1).logits[:, -1]
            log_p = torch.log_softmax(logits.float(), dim=-1)
            margins.extend((log_p[:, first] - log_p[:, second]).tolist())
    return np.asarray(margins)


def whole_prompt_replies(model, tokenizer, rendered: list[str], seed: int = 0) -> list[str]:
    rows = [text for text in rendered for _ in range(N_SAMPLES)]
    with torch.random.fork_rng(devices=[]), torch.inference_mode():
        torch.manual_seed(seed)
        encoded = tokenizer(rows, return_tensors="pt", padding=True, add_special_tokens=False)
        out = model.generate(**encoded, do_sample=True, temperature=1.0, top_p=1.0, top_k=0,
                             max_new_tokens=NEW_TOKENS, pad_token_id=tokenizer.pad_token_id,
                             eos_token_id=model.generation_config.eos_token_id)
    return [t.strip() for t in tokenizer.batch_decode(out[:, encoded["input_ids"].shape[1]:], skip_special_tokens=True)]


def main() -> None:
    folder = loading.model_folder(MODEL)
    table = stereotype.prompts(["Women", "Muslims", "Old people"], stereotype.template_subset(16, 0)).head(N_PROMPTS)
    tokenizer = output_bias.chat_tokenizer(folder)
    rendered = output_bias.render_chat(tokenizer, table.user.tolist(), table.system.tolist())
    model = loading.load_causal_lm(folder).eval()
    saved = paths.GENERATIONS_CACHE_DIR
    with tempfile.TemporaryDirectory() as scratch:  # nothing is read back from a cache
        paths.GENERATIONS_CACHE_DIR = Path(scratch)
        try:
            start = time.perf_counter()
            baseline_margins = whole_prompt_margins(model, tokenizer, rendered)
            whole_forced = time.perf_counter() - start
            start = time.perf_counter()
            margins = stereotype.choice_margins(folder, table)
            prefixed_forced = time.perf_counter() - start
            start = time.perf_counter()
            baseline_replies = whole_prompt_replies(model, tokenizer, rendered)
            whole_sampled = time.perf_counter() - start
            start = time.perf_counter()
            replies = output_bias.generate(folder, table.user.tolist(), system=table.system.tolist(),
                                           n_samples=N_SAMPLES, temperature=1.0, max_new_tokens=NEW_TOKENS,
                                           batch_size=N_PROMPTS * N_SAMPLES)
            prefixed_sampled = time.perf_counter() - start
        finally:
            paths.GENERATIONS_CACHE_DIR = saved
    same = np.mean([a == b for a, b in zip(baseline_replies, [r for rs in replies for r in rs], strict=True)])
    print(f"forced choice, {len(table)} prompts: whole prompts {whole_forced:.1f} s, shared prefix "
          f"{prefixed_forced:.1f} s (model load included): {whole_forced / prefixed_forced:.1f}x; "
          f"max |margin difference| {np.abs(margins - baseline_margins).max():.1e}")
    print(f"sampling, {len(baseline_replies)} rows x {NEW_TOKENS} tokens: whole prompts {whole_sampled:.1f} s, shared "
          f"prefix {prefixed_sampled:.1f} s (model load included): {whole_sampled / prefixed_sampled:.1f}x; "
          f"identical replies {same:.0%}")


if __name__ == "__main__":
    main()
