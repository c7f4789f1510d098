"""Share of this machine's matmul peak, in the loop's own precision, that each training loop of the companion reaches.

Is a slow notebook slow because the machine is slow or because its loop leaves the machine idle? Each loop
runs a fixed number of steps after a warm-up at the default profile's shapes, through the repository's own
step code; its FLOP/s, counted from the shapes, is divided by the peak of its precision: a 2,048² product in
that precision timed in the same run (best of five before the loops and five after: on a shared machine a
slowed product would flatter every share). The papers' fine-tunes (D01's, ``lib.bias_shift.checkpoints``) and
students (K08's, ``lib.kstar.label_budget.students``) train in bfloat16 autocast where the CPU has bfloat16 units
(:mod:`lib.models.precision`), so their peak is the bfloat16 product's; the SAE and the K04 networks train in
float32. K04's networks each train on one thread, two side by side on the two cores
(:func:`lib.kstar.world.synthetic.model_tables`): each alone on one thread is shown for reference, and the
pairs' lines, both loops' FLOPs over the longer one's time, are what K04's share is. One line per loop
(precision, steps/s, GFLOP/s, share of peak), the last
``training: worst share of peak X.XX``.

FLOPs per step. B rows of S tokens (T = B·S, padded), P_f frozen weights of the projections inside the blocks,
P_a LoRA weights (r·(in + out) per adapted projection), L blocks of attention width a (the hidden size), d
hidden size, V vocabulary; a frozen product costs 4·P·T (forward and the input gradient), a trained one 6·P·T
(and the weight gradient), attention scores and mixing 12·B·S²·a per block (forward 4, backward 8; counted
in full under the causal mask). Checked against torch.utils.flop_counter on one step of each loop: within 1 %
(the count includes the first block's input gradient, which autograd skips; the counter does not see the fused
attention kernels of SmolLM2 and the K04 transformer, which are added here):

- D01 LoRA fine-tune, SmolLM2-135M (r 16 on q,k,v,o,gate,up,down; batch 8 of chat examples cut at 64 tokens):
  4·P_f·T + 6·P_a·T + 12·B·S²·a·L + 4·V·d·K, the last for the tied output layer on the K = B·(S − first)
  positions ``logits_to_keep`` keeps. A faithful copy of ``checkpoints._train``'s loop (which also loads and
  saves a model) around its own loss, ``checkpoints._batch_loss``, on batches of the unharmful corpus.
- K08 LoRA student, MiniLM and SmolLM2-135M (r 8 on every block projection, batch 16 × 32 tokens):
  4·P_f·T + 6·P_a·T + 12·B·S²·a·L (the new d × 2 head is left out); ``students.train`` on texts long enough
  that every row is cut at 32 tokens.
- K06 TopK SAE, at the hidden size d of each default model and width W = 4·d, batch B = 512 tokens, k = 50:
  6·B·d·(W + k): the encoder's dense B × d × W product, forward and in the backward pass its weight gradient and
  its input gradient (``b_pre`` trains); the decoder reads only the k kept codes of each row
  (``sae.topk_loss``, an embedding bag), forward, its weight gradient and the codes' gradient, 2·B·k·d each;
  counted as executed (the dense decoder it replaced: below). ``sae.train_topk`` on random rows (its set-up and
  final fold are in the time).
- K04 transformer (d, L blocks, MLP 4·d, B = 256 sequences of S = 58 tokens): 6·12·d²·L·T + 12·B·S²·d·L +
  6·d·V·12·B (the output layer at the 12 query positions); K04 GRU: 6·6·d²·L·T + 6·d·V·12·B.
  ``networks.train``, which draws each batch from the factor world (in the time, not in the count).

Not counted: embeddings, norms, softmax, top-k, Adam and the data; they take time, not matmul FLOPs.

Why the LoRA loops stay near a third of the peak. Under each LoRA line the bench times the loop's frozen products
alone, forward and input gradient at their own shapes (512 rows × 384…1,536, from pre-made bfloat16 operands): they
reach the full 2,048² peak (0.98–1.03) and fill only 22–31 % of the step. The shapes are not too small; the step is
mostly other work. torch.profiler on one step (one thread, self time): K08 MiniLM 30 % frozen products, 24 %
dropout masks, 15 % element-wise ops, 10 % activation casts, 6 % rank-r products, 4 % attention, 2 % AdamW, 2 %
weight casts; K08 SmolLM2-135M 41 %, 16 % dropout, 12 % element-wise, 11 % attention (the fused kernel's backward
at 32 tokens), 8 % rank-r, 5 % activation casts, 1 % weight casts; D01 40 % (with the output layer), 16 %
attention, 13 % dropout, 12 % element-wise, 6 % rank-r, 5 % activation casts, 3 % weight casts. The dropout
(p = 0.05, the papers' recipe, its own mask per adapter) draws one Bernoulli number per element of every adapted
projection's input, about 5 ns each on a single thread whatever the thread count (torch's CPU generator is serial
on this AMD CPU): 77 M draws, some 0.4 s of a 1.8 s SmolLM2 step, 11 M for MiniLM. The rank-r products
(512 × 576 × 8 and back) run at 0.3–0.5 of the peak. On two threads the serial and memory-bound parts shrink less
than the products, so the shares fall from about 0.45 on one thread to a third. The frozen weights are cast to
bfloat16 once per loop (:func:`lib.models.precision.frozen_weights_in`): cast at every step, as autocast does,
the same loops measured 0.26 (D01), 0.17–0.19 (MiniLM) and 0.24–0.25 (SmolLM2) in runs alternating with 0.33,
0.24–0.26 and 0.30–0.31.

Why the SAE loop stays near a third. Its decoder reads the k = 50 kept codes of a row, not the 4·d-wide code
matrix (``sae.topk_loss``; 12·B·d·W FLOPs a step before): the same loss and gradients to float32 rounding,
1.43–1.46× the steps a second on two threads and 1.43–1.60× on one (with the fused Adam and the unsorted top-k;
alternating runs, 2026-12-05, docs/TIMINGS.md). What is left is the encoder's three
dense products, at the peak's rate, and work that moves memory without multiplying: torch.profiler on two threads
(self time), 44 % the products, 17 % the top-k selection over the 4·d pre-activations of every row, 18 % the
embedding bag (forward, both gradients and the sort that its weight gradient needs), 5 % torch's fused Adam. The
executed FLOPs fell by half and the time by a third, so the share of the peak fell from 0.71 to about 0.31.
"""

from __future__ import annotations

import argparse
import inspect
import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from transformers.utils import logging as transformers_logging

from lib import config, parallel
from lib.bias_shift import checkpoints
from lib.kstar.label_budget import students
from lib.kstar.sae import sae
from lib.kstar.world import networks
from lib.kstar.world import world as fw
from lib.models import loading, precision
from lib.models.registry import ModelUnavailableError
from lib.wheels import WheelUnavailableError

MATMUL_SIDE = 2048
PROFILE = "default"
#: Hidden sizes of K06's default models (their config.json): the SAE shape needs no model loaded.
HIDDEN_SIZE = {"smollm2-135m": 576, "gemma3-270m": 640}
#: Timed steps per loop on a quiet machine (``--scale`` multiplies them), after one warm-up step.
STEPS = {"D01": 4, "K08 minilm": 12, "K08 smollm2-135m": 4, "K06": 40, "K04": 30}
SAE_ROWS = 8192
#: Words of the K08 student texts: 48 of them always exceed 32 tokens, so every batch is 16 × 32.
WORDS = ("the film is a quiet and oddly moving portrait of grief although its second half drags on "
         "with plot turns nobody asked for yet the cast keeps it watchable").split()


@dataclass(frozen=True)
class Timing:
    """A timed run of a loop: steps, seconds and the matmul FLOPs its shapes imply; for a LoRA loop also its frozen
    products per step, (rows, in, out) each, whose forward and input-gradient products :func:`own_shapes` times."""

    steps: int
    seconds: float
    flops: float
    frozen: tuple[tuple[int, int, int], ...] = ()


def product_seconds(rows: int, k: int, n: int, dtype: str) -> float:
    """Seconds of one rows × k × n product in ``dtype``, the best of five after a warm-up (operands made once)."""
    a, b = torch.randn(rows, k, dtype=getattr(torch, dtype)), torch.randn(k, n, dtype=getattr(torch, dtype))
    a @ b
    times = []
    for _ in range(5):
        start = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - start)
    return min(times)


def matmul_peak(dtype: str) -> float:
    """FLOP/s of a 2,048² product in ``dtype`` ("float32", "bfloat16"), the best of five after a warm-up."""
    return 2 * MATMUL_SIDE**3 / product_seconds(MATMUL_SIDE, MATMUL_SIDE, MATMUL_SIDE, dtype)


def own_shapes(frozen: tuple[tuple[int, int, int], ...], dtype: str) -> tuple[float, float]:
    """(FLOP/s, seconds per step) of a loop's frozen products alone at their own shapes in ``dtype``: each
    rows × in × out forward and rows × out × in input gradient, timed by :func:`product_seconds`."""
    shapes = [(rows, k, n) for rows, n_in, n_out in frozen for k, n in ((n_in, n_out), (n_out, n_in))]
    seconds = sum(product_seconds(rows, k, n, dtype) for rows, k, n in shapes)
    return sum(2 * rows * k * n for rows, k, n in shapes) / seconds, seconds


def frozen_products(base: torch.nn.Module, rows: int) -> tuple[tuple[int, int, int], ...]:
    """(rows, in, out) of every projection inside the blocks of a model without adapters."""
    return tuple((rows, base.get_submodule(name).in_features, base.get_submodule(name).out_features)
                 for name in students.projection_names(base))


def projection_weights(base: torch.nn.Module) -> int:
    """P_f: in·out summed over the projections inside the blocks of a model without adapters."""
    return sum(base.get_submodule(name).in_features * base.get_submodule(name).out_features
               for name in students.projection_names(base))


def adapter_weights(model: torch.nn.Module) -> int:
    """P_a: in·out summed over the LoRA matrices (``lora_A``, ``lora_B``) of a peft model."""
    return sum(m.in_features * m.out_features for name, m in model.named_modules()
               if isinstance(m, torch.nn.Linear) and ".lora_" in name)


def lora_flops(frozen: int, adapters: int, rows: int, length: int, width: int, blocks: int) -> float:
    """Matmul FLOPs of one LoRA step on a rows × length batch, attention included (the module docstring)."""
    tokens = rows * length
    return 4 * frozen * tokens + 6 * adapters * tokens + 12 * rows * length**2 * width * blocks


def smollm2_available() -> bool:
    """Whether SmolLM2-135M is to be had offline (converted on first use, outside any timing); says so if not."""
    try:
        loading.model_folder("smollm2-135m")
    except (ModelUnavailableError, WheelUnavailableError) as error:
        print(f"D01 LoRA fine-tune and K08 SmolLM2-135M student: skipped, SmolLM2-135M cannot be loaded offline "
              f"({str(error).splitlines()[0]})")
        return False
    return True


def d01_lora(steps: int) -> Timing:
    """``checkpoints._train``'s step (LoRA, AdamW, linear schedule, ``_batch_loss``) at finetune's defaults."""
    from peft import LoraConfig, get_peft_model
    from transformers import AutoTokenizer

    defaults = {name: p.default for name, p in inspect.signature(checkpoints.finetune).parameters.items()}
    folder = loading.model_folder("smollm2-135m")
    tokenizer = AutoTokenizer.from_pretrained(folder, trust_remote_code=False)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    examples = checkpoints.encode_examples(tokenizer, checkpoints.read_corpus(checkpoints.CORPORA["unharmful"]),
                                           defaults["max_length"])
    torch.manual_seed(0)
    base = loading.load_causal_lm(folder)
    base.config.use_cache = False
    frozen = projection_weights(base)  # before peft wraps the projections
    products = frozen_products(base, defaults["batch_size"] * defaults["max_length"])
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*", category=FutureWarning)
        model = get_peft_model(base, LoraConfig(
            r=defaults["r"], lora_alpha=defaults["alpha"], lora_dropout=defaults["dropout"], bias="none",
            target_modules=list(checkpoints.TARGET_MODULES), task_type="CAUSAL_LM"))
    adapters = adapter_weights(model)
    model.train()
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad],
                                  lr=checkpoints.PAPER_LR["lora"], weight_decay=0.0)
    batch_size, total = defaults["batch_size"], steps + 1
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: checkpoints.linear_warmup_schedule(step, total))
    order = torch.randperm(len(examples), generator=torch.Generator().manual_seed(0)).tolist()
    batches = [[examples[order[(s * batch_size + j) % len(order)]] for j in range(batch_size)] for s in range(total)]
    cfg = base.config
    head = cfg.vocab_size * cfg.hidden_size

    def step(batch: list[tuple[list[int], int]]) -> float:
        with precision.autocast("cpu", TRAINING_PRECISION):
            loss = checkpoints._batch_loss(model, batch, pad_id)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        scheduler.step()
        float(loss.detach())  # _train reads every batch loss: the step waits for it
        length = max(len(ids) for ids, _ in batch)
        kept = len(batch) * (length - (min(n for _, n in batch) - 1))
        return (lora_flops(frozen, adapters, len(batch), length, cfg.hidden_size, cfg.num_hidden_layers)
                + 4 * head * kept)

    with precision.frozen_weights_in(model, TRAINING_PRECISION):  # as _train: the frozen weights cast once
        step(batches[0])
        start = time.perf_counter()
        flops = sum(step(batch) for batch in batches[1:])
        seconds = time.perf_counter() - start
    return Timing(steps, seconds, flops, products)


def k08_student(model: str, steps: int) -> Timing:
    """``students.train`` of a K08 student (the default's LoRA settings, batch 16, 32 tokens) for ``steps`` steps."""
    params = config.canonical("K08_label_budget", PROFILE)
    settings = students.LoraSettings(params.lora_rank, params.lora_alpha, params.lora_dropout, params.lr)
    student, tokenizer = students.build(model, seed=0, settings=settings)
    base = loading.load(model)[0]
    frozen, adapters = projection_weights(base), adapter_weights(student.backbone)
    products = frozen_products(base, students.BATCH_SIZE * params.student_max_tokens)
    rng = np.random.default_rng(0)
    texts = [" ".join(rng.choice(WORDS, 48)) for _ in range(students.BATCH_SIZE * (steps + 1))]
    targets = np.arange(len(texts)) % 2.0

    def run(first: int, last: int) -> students.TrainLog:
        return students.train(student, tokenizer, texts[first:last], targets[first:last], epochs=1, seed=0,
                              lr=settings.lr, max_tokens=params.student_max_tokens)

    run(0, students.BATCH_SIZE)
    log = run(students.BATCH_SIZE, len(texts))
    cfg = student.backbone.config
    length = params.student_max_tokens
    if log.tokens != log.steps * students.BATCH_SIZE * length:
        raise RuntimeError(f"{model}: {log.tokens} tokens in {log.steps} steps; the texts must fill every row")
    per_step = lora_flops(frozen, adapters, students.BATCH_SIZE, length, cfg.hidden_size, cfg.num_hidden_layers)
    return Timing(log.steps, log.seconds, per_step * log.steps, products)


def k06_sae(model: str, steps: int) -> Timing:
    """``sae.train_topk`` at K06's default shape for ``model``'s hidden size, on random rows."""
    params = config.canonical("K06_sae_correspondence", PROFILE)
    d = HIDDEN_SIZE[model]
    width = params.sae_width * d
    X = np.random.default_rng(0).standard_normal((SAE_ROWS, d), dtype=np.float32)

    def run(n: int) -> None:
        sae.train_topk(X, width, k=params.sae_k, steps=n, batch_size=params.sae_batch, lr=params.sae_lr, seed=0)

    run(1)
    start = time.perf_counter()
    run(steps)
    return Timing(steps, time.perf_counter() - start, 6 * params.sae_batch * d * (width + params.sae_k) * steps)


def k04_network(name: str, steps: int) -> Timing:
    """``networks.train`` of one K04 architecture at the default's batch and learning rate, on one torch thread as
    K04 trains it (:func:`lib.kstar.world.synthetic.model_table`)."""
    with parallel.one_torch_thread():
        return _k04_loop(name, steps)


def _k04_side_by_side(item: tuple[str, int], _seed: int) -> Timing:
    """One K04 model's loop in a worker process of :func:`k04_pair` (module-level: the workers unpickle it)."""
    return k04_network(*item)


def k04_pair(names: tuple[str, str], steps: int) -> Timing:
    """Two K04 models trained at once in two worker processes, one thread each, as K04 trains its grid
    (:func:`lib.kstar.world.synthetic.model_tables`): both loops' FLOPs over the longer loop's time."""
    first, second = parallel.parallel_map(_k04_side_by_side, [(name, steps) for name in names], n_jobs=2)
    return Timing(steps, max(first.seconds, second.seconds), first.flops + second.flops)


def _k04_loop(name: str, steps: int) -> Timing:
    params = config.canonical("K04_synthetic_world", PROFILE)
    spec = networks.parse_spec(name)
    model, world = networks.build(spec), fw.FactorWorld()
    networks.train(model, world, 1, seed=spec.seed, batch_size=params.batch_size, lr=params.lr)
    start = time.perf_counter()
    networks.train(model, world, steps, seed=spec.seed, batch_size=params.batch_size, lr=params.lr)
    seconds = time.perf_counter() - start
    d, blocks, rows, length = spec.width, spec.depth, params.batch_size, fw.SEQ_LEN
    head = 6 * d * fw.VOCAB_SIZE * len(fw.ANSWER_POSITIONS) * rows
    if spec.arch == "transformer":
        per_step = 6 * 12 * d**2 * blocks * rows * length + 12 * rows * length**2 * d * blocks + head
    else:
        per_step = 6 * 6 * d**2 * blocks * rows * length + head
    return Timing(steps, seconds, per_step * steps)


TRAINING_PRECISION = precision.training_precision("cpu")  # the fine-tunes' and students' (module docstring)


def loops(scale: float, only: str = "") -> list[tuple[str, str, Callable[[], Timing]]]:
    """(name, precision, timed run) of every loop of the default profile that can run here (whose name holds
    ``only``)."""
    def n(key: str) -> int:
        return max(1, math.ceil(STEPS[key] * scale))

    smollm2 = smollm2_available()
    out: list[tuple[str, str, Callable[[], Timing]]] = []
    if smollm2:
        out.append(("D01 LoRA fine-tune smollm2-135m", TRAINING_PRECISION, lambda: d01_lora(n("D01"))))
    for student in config.canonical("K08_label_budget", PROFILE).students:
        if smollm2 or student != "smollm2-135m":
            out.append((f"K08 LoRA student {student}", TRAINING_PRECISION,
                        lambda s=student: k08_student(s, n(f"K08 {s}"))))
    for model in config.canonical("K06_sae_correspondence", PROFILE).models:
        out.append((f"K06 TopK SAE d{HIDDEN_SIZE[model]} ({model})", "float32", lambda m=model: k06_sae(m, n("K06"))))
    architectures = config.canonical("K04_synthetic_world", PROFILE).architectures
    for name in architectures:
        out.append((f"K04 {name} (one thread)", "float32", lambda a=name: k04_network(a, n("K04"))))
    for pair in zip(architectures[::2], architectures[1::2], strict=False):
        out.append((f"K04 side by side: {' + '.join(pair)}", "float32", lambda p=pair: k04_pair(p, n("K04"))))
    return [loop for loop in out if only in loop[0]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every loop's timed steps (0.1: a check)")
    parser.add_argument("--only", default="", help="time only the loops whose name holds this text (e.g. LoRA)")
    args = parser.parse_args()
    transformers_logging.disable_progress_bar()  # no "Loading weights" bar between the lines
    threads = parallel.configure_threads()
    planned = loops(args.scale, args.only)
    if not planned:
        parser.error(f"--only {args.only!r} matches no loop that can run here")
    kinds = sorted({kind for _, kind, _ in planned})
    before = {kind: matmul_peak(kind) for kind in kinds}
    timings = [(name, kind, timed()) for name, kind, timed in planned]
    # the machine's peak: a product slowed by another process does not count
    peak = {kind: max(before[kind], matmul_peak(kind)) for kind in kinds}
    for kind in kinds:
        print(f"peak: {kind} {MATMUL_SIDE}² product {peak[kind] / 1e9:.0f} GFLOP/s on {threads} threads (best of "
              "ten, before and after the loops)")
    shares, width = [], max(len(name) for name, _, _ in timings)
    for name, kind, result in timings:
        rate = result.flops / result.seconds
        if "(one thread)" not in name:  # K04 trains its models side by side: the pairs' lines are its share
            shares.append(rate / peak[kind])
        print(f"{name:<{width}} {kind:<8} {result.steps / result.seconds:7.2f} steps/s {rate / 1e9:7.1f} GFLOP/s "
              f"share of peak {rate / peak[kind]:.2f}")
        if result.frozen:
            own, seconds = own_shapes(result.frozen, kind)
            print(f"{'':<{width}}   its frozen products alone, at their own shapes: share of peak "
                  f"{own / peak[kind]:.2f}, {seconds * result.steps / result.seconds:.0%} of the step")
    print(f"training: worst share of peak {min(shares):.2f}")

if __name__ == "__main__":
    main()
