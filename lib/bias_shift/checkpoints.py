"""A graded checkpoint spectrum built offline: fine-tune, merge, build (paper 001, Sec. 4.1, Appendix C).

The paper fine-tunes each model on an unharmful and a synthetically harmful split and linearly
merges the two checkpoints (Wortsman et al., 2022) at 90/10, 70/30, 50/50, 30/70 and 10/90 of
unharmful/harmful: seven checkpoints from safe to harmful, compared with the base model. Here the
splits are the small corpora of ``data/deltab/finetune/`` and training is a plain CPU torch loop
with the paper's recipe (LoRA r=16, α=32, dropout 0.05 on q,k,v,o,gate,up,down; AdamW; linear
schedule with 3 % warmup; 3 epochs; loss on the assistant tokens only). Deviations forced by the
CPU: batch 8 without accumulation (paper: effective 32) and sequences cut at 64 tokens (paper: 1024). The
paper's bfloat16 is kept as autocast where the CPU has bfloat16 units (:mod:`lib.models.precision`; float32
otherwise, said in one line), recorded in each checkpoint's settings; LoRA's frozen weights are cast to bfloat16
once per fine-tune instead of at every step (:func:`lib.models.precision.frozen_weights_in`, the same numbers).

Every checkpoint is a plain transformers folder (config, tokenizer, ``model.safetensors``) written
to a hidden temp folder and renamed into place, with ``checkpoint.json`` (settings, timing) inside:
a folder that exists is complete, so an interrupted build resumes where it stopped. A process
killed outright (SIGKILL, SIGTERM) may leave its hidden ``.<name>.*.tmp`` staging folder behind;
it is never read and can be deleted. While a checkpoint is built its process holds an OS lock
(``.<name>.lock`` beside it): a second process asking for the same checkpoint waits, then reuses it.

Fine-tunes are keyed by content (:func:`finetune_folder`): the base model's weights, the corpus's SHA-256 and
every training setting name one folder under ``models/finetunes/``, whoever asks. So the ends of the merge
spectrum, the fine-tunes that D02's seed check repeats under other seeds (Appendix E.5) and the fine-tunes of the
shares spectrum at 0 and 100 % harmful data (:func:`share_corpus`: those read the unharmful and the harmful corpus
themselves) are one fine-tune per seed, trained once.

Beside the merge spectrum, not in the paper: a spectrum of independent fine-tunes at graded shares of harmful
data (:func:`share_spectrum`). The merges all lie on one line between two fine-tunes, so anything that drifts
along it correlates across them; independent fine-tunes share only their base, each one unit, and at an
intermediate share each group draws its own number of harmful examples.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import math
import os
import random
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from lib import files, paths
from lib.bias_shift import chat
from lib.files import FOLDER_SUMS, folder_sums_match, report_corrupt, write_folder_sums
from lib.models import loading, precision
from lib.progress import Steps

METHODS: tuple[str, ...] = ("lora", "full")
#: Adapters on every attention and MLP projection (Appendix C).
TARGET_MODULES: tuple[str, ...] = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
#: Learning rates of Appendix C: 1e-4 for LoRA, 2e-5 for full fine-tuning.
PAPER_LR: dict[str, float] = {"lora": 1e-4, "full": 2e-5}
WARMUP_RATIO: float = 0.03
#: Weight of the unharmful model at the five merges (Appendix C), from safe to harmful.
DEFAULT_RATIOS: tuple[float, ...] = (0.9, 0.7, 0.5, 0.3, 0.1)
MARKER = "checkpoint.json"
FINETUNE_DIR: Path = paths.DATA_DIR / "deltab" / "finetune"
CORPORA: dict[str, Path] = {"unharmful": FINETUNE_DIR / "unharmful.txt", "harmful": FINETUNE_DIR / "harmful.txt"}
#: Characters of a content key kept in a folder name (48 bits: no two settings of one project meet).
KEY_CHARS = 12


# --------------------------------------------------------------------------- folders


def is_complete(folder: str | Path) -> bool:
    """Whether ``folder`` is a finished checkpoint of this module (its ``checkpoint.json`` exists)."""
    return (Path(folder) / MARKER).is_file()


def checkpoint_info(folder: str | Path) -> dict[str, Any]:
    """The ``checkpoint.json`` of a finished checkpoint: ``spec`` (its settings), ``seconds`` and more."""
    marker = Path(folder) / MARKER
    if not marker.is_file():
        raise ValueError(f"folder={str(folder)!r} is not a finished checkpoint (no {MARKER})")
    return json.loads(marker.read_text())


@contextlib.contextmanager
def building(out_folder: Path) -> Iterator[None]:
    """Hold the OS lock of ``out_folder`` (``.<name>.lock`` beside it, an ``flock`` the OS releases when its process
    ends) while a checkpoint is checked and built: a second process asking for the same folder says so in one line,
    waits, and then finds it finished. The empty lock file stays behind."""
    out_folder.parent.mkdir(parents=True, exist_ok=True)
    with open(out_folder.parent / f".{out_folder.name}.lock", "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"waiting for another process building {out_folder}", flush=True)
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _write_checkpoint(out_folder: Path, spec: dict[str, Any], write: Callable[[Path], dict[str, Any]]) -> Path:
    """Build a checkpoint through ``write(staging)`` into a temp folder, then rename it to ``out_folder``, holding
    its lock (:func:`building`) throughout.

    A finished ``out_folder`` is reused when its recorded ``spec`` matches and refused when it does
    not; a folder without the marker is refused (it was not written here). Every file is listed with
    its SHA-256 in ``SHA256SUMS``; a finished folder whose files no longer match it is reported in one
    line and rebuilt, and one finished before the list existed gets its list on first reuse (rebuilding
    a fine-tune costs minutes; its marker proves it was written whole). ``write`` returns extra fields
    (timings, losses) for ``checkpoint.json``.
    """
    out_folder = Path(out_folder)
    with building(out_folder):
        return _build(out_folder, spec, write)


def _build(out_folder: Path, spec: dict[str, Any], write: Callable[[Path], dict[str, Any]]) -> Path:
    """:func:`_write_checkpoint` under its lock."""
    intact = folder_sums_match(out_folder) if is_complete(out_folder) else None
    if intact is False:
        report_corrupt(out_folder, "checkpoint")
        shutil.rmtree(out_folder)
    elif intact is None and is_complete(out_folder):
        write_folder_sums(out_folder)
    if is_complete(out_folder):
        recorded = checkpoint_info(out_folder).get("spec")
        if recorded != spec:
            differs = sorted(k for k in set(spec) | set(recorded or {}) if (recorded or {}).get(k) != spec.get(k))
            raise ValueError(
                f"out_folder={str(out_folder)!r} holds a checkpoint built with other settings (differs in "
                f"{', '.join(differs)}); delete it or choose another out_folder")
        return out_folder
    if out_folder.exists():
        raise ValueError(f"out_folder={str(out_folder)!r} exists but is not a finished checkpoint (no {MARKER}); "
                         f"remove it or choose another out_folder")
    staging = Path(tempfile.mkdtemp(dir=out_folder.parent, prefix=f".{out_folder.name}.", suffix=".tmp"))
    try:
        start = time.perf_counter()
        extra = write(staging)
        info = {"spec": spec, "seconds": round(time.perf_counter() - start, 3), **extra}
        (staging / MARKER).write_text(json.dumps(info, indent=2, sort_keys=True))
        write_folder_sums(staging)
        os.replace(staging, out_folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return out_folder


def _sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# --------------------------------------------------------------------------- corpora


def read_corpus(path: str | Path) -> list[tuple[str, str]]:
    """(user, assistant) pairs of a corpus file: UTF-8, one ``user<TAB>assistant`` per line, blank lines skipped."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"corpus_path={str(path)!r} is not a file")
    pairs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
            raise ValueError(f"{path}:{number} is not 'user<TAB>assistant' with both parts non-empty: {line!r}")
        pairs.append((parts[0].strip(), parts[1].strip()))
    if not pairs:
        raise ValueError(f"corpus_path={str(path)!r} holds no examples")
    return pairs


def encode_examples(tokenizer, pairs: Sequence[tuple[str, str]], max_length: int) -> list[tuple[list[int], int]]:
    """Token ids of each chat example and how many of them are prompt (system + user + assistant header).

    Each example is rendered by :func:`lib.bias_shift.chat.render`: the model's chat template, or for a
    base model without one (Gemma-3-270M) the plain ``User: …`` / ``Assistant:`` transcript described
    there — a choice the paper leaves open, its models being instruct models. The loss covers only the
    tokens after the prompt: the assistant turn and its end-of-turn marker (EOS in the plain rendering).
    Raises when ``max_length`` leaves no assistant token of an example.
    """
    encoded = []
    for user, assistant in pairs:
        prompt = chat.render(tokenizer, [{"role": "user", "content": user}], add_generation_prompt=True)
        full = chat.render(tokenizer, [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}],
                           add_generation_prompt=False)
        if not full.startswith(prompt):
            raise ValueError("the chat template does not render the prompt as a prefix of the full conversation")
        prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        ids = tokenizer(full, add_special_tokens=False)["input_ids"][:max_length]
        if len(ids) <= len(prompt_ids):
            raise ValueError(f"max_length={max_length} leaves no assistant token of the example {user!r} "
                             f"(its prompt alone has {len(prompt_ids)} tokens); allowed: a larger max_length")
        encoded.append((ids, len(prompt_ids)))
    return encoded


# --------------------------------------------------------------------------- fine-tuning


def _check_finetune(method: str, epochs: int, lr: float, r: int, alpha: float, dropout: float, batch_size: int,
                    max_length: int) -> None:
    if method not in METHODS:
        raise ValueError(f"method={method!r} is not supported; allowed: {', '.join(METHODS)}")
    for name, value in (("epochs", epochs), ("r", r), ("batch_size", batch_size), ("max_length", max_length)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name}={value!r} is not allowed; allowed: an integer >= 1")
    if not (math.isfinite(lr) and lr > 0):
        raise ValueError(f"lr={lr!r} is not allowed; allowed: a finite number > 0")
    if not (math.isfinite(alpha) and alpha > 0):
        raise ValueError(f"alpha={alpha!r} is not allowed; allowed: a finite number > 0")
    if not 0 <= dropout < 1:
        raise ValueError(f"dropout={dropout!r} is not allowed; allowed: 0 <= dropout < 1")


def linear_warmup_schedule(step: int, total_steps: int, warmup_ratio: float = WARMUP_RATIO) -> float:
    """Learning-rate factor at ``step``: linear warmup over ⌈ratio·total⌉ steps, then linear decay to 0.

    The ``linear`` schedule of Appendix C (transformers' ``get_linear_schedule_with_warmup``).
    """
    warmup = math.ceil(warmup_ratio * total_steps)
    if step < warmup:
        return step / warmup
    return max(0.0, (total_steps - step) / max(1, total_steps - warmup))


def _batch_loss(model, batch: list[tuple[list[int], int]], pad_id: int):
    """Mean cross-entropy over the assistant tokens of a right-padded batch.

    Logits are computed only from the first position that predicts an assistant token onwards
    (``logits_to_keep``): the shared system prompt never reaches the 49k-way output layer.
    """
    import torch
    import torch.nn.functional as F

    longest = max(len(ids) for ids, _ in batch)
    input_ids = torch.full((len(batch), longest), pad_id, dtype=torch.long)
    attention = torch.zeros((len(batch), longest), dtype=torch.long)
    labels = torch.full((len(batch), longest), -100, dtype=torch.long)
    for row, (ids, n_prompt) in enumerate(batch):
        input_ids[row, :len(ids)] = torch.tensor(ids)
        attention[row, :len(ids)] = 1
        labels[row, n_prompt:len(ids)] = input_ids[row, n_prompt:len(ids)]
    first = min(n_prompt for _, n_prompt in batch) - 1  # position whose logits predict the first assistant token
    keep = torch.arange(first, longest - 1)
    logits = model(input_ids=input_ids, attention_mask=attention, logits_to_keep=keep).logits
    return F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), labels[:, first + 1:].reshape(-1),
                           ignore_index=-100)


def finetune_spec(
    base_folder: str | Path, corpus_path: str | Path, *, method: str = "lora", seed: int = 0, epochs: int = 3,
    lr: float | None = None, r: int = 16, alpha: float = 32, dropout: float = 0.05, batch_size: int = 8,
    max_length: int = 64,
) -> dict[str, Any]:
    """Every setting a fine-tune of :func:`finetune` depends on (Appendix C), checked before any compute: the base
    (its folder's name and the SHA-256 of its weights), the corpus (its file's name and SHA-256), the method, the
    seed, the recipe and the precision this machine trains in. ``lr=None`` takes the paper's rate for the method."""
    lr = PAPER_LR.get(method, 0.0) if lr is None else float(lr)
    _check_finetune(method, epochs, lr, r, alpha, dropout, batch_size, max_length)
    if not Path(corpus_path).is_file():
        raise ValueError(f"corpus_path={str(corpus_path)!r} is not a file")
    base_folder = loading.model_folder(str(base_folder))
    spec = {"kind": "finetune", "base": Path(base_folder).name, "base_sha256": loading.weights_hash(str(base_folder)),
            "corpus": Path(corpus_path).name, "corpus_sha256": _sha256(Path(corpus_path)), "method": method,
            "seed": seed, "epochs": epochs, "lr": lr, "batch_size": batch_size, "max_length": max_length,
            "warmup_ratio": WARMUP_RATIO, "precision": precision.training_precision("cpu")}
    if method == "lora":
        spec |= {"r": r, "alpha": alpha, "dropout": dropout, "target_modules": list(TARGET_MODULES)}
    return spec


def content_key(spec: dict[str, Any]) -> str:
    """The first :data:`KEY_CHARS` hex digits of the SHA-256 of ``spec`` as sorted JSON."""
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:KEY_CHARS]


def finetune_folder(spec: dict[str, Any]) -> Path:
    """Where the fine-tune of ``spec`` (:func:`finetune_spec`) lives: ``models/finetunes/<base>-<method>-<corpus>-
    seed<seed>-<key>``, the key :func:`content_key` of the whole spec, so two callers asking for the same fine-tune
    (the same base weights, corpus content and settings) read one folder, and any other setting names another."""
    label = f"{spec['base']}-{spec['method']}-{Path(spec['corpus']).stem}-seed{spec['seed']}"
    return paths.MODELS_DIR / "finetunes" / f"{label}-{content_key(spec)}"


def finetune(
    base_folder: str | Path, corpus_path: str | Path, out_folder: str | Path | None = None, *, method: str = "lora",
    seed: int = 0, epochs: int = 3, lr: float | None = None, r: int = 16, alpha: float = 32, dropout: float = 0.05,
    batch_size: int = 8, max_length: int = 64,
) -> Path:
    """Fine-tune the causal LM in ``base_folder`` on a corpus and save a plain checkpoint (Appendix C).

    ``method="lora"``: adapters (rank ``r``, scale ``alpha``, ``dropout``) on q,k,v,o,gate,up,down
    projections, merged into the weights (``merge_and_unload``) before saving; ``"full"``: every
    weight trains. ``lr=None`` takes the paper's rate for the method (1e-4 LoRA, 2e-5 full).
    AdamW (no weight decay, as transformers' Trainer), linear schedule with 3 % warmup, batches in
    a seeded random order per epoch, each example in the model's chat template (or the plain
    rendering of :mod:`lib.bias_shift.chat` for a base model without one) with the loss on the
    assistant tokens only. In the paper's bfloat16 (autocast, trainable weights and optimiser in float32) where
    the machine has bfloat16 units, else float32 (:func:`lib.models.precision.training_precision`); deterministic
    under ``seed`` on one machine. Saved in ``out_folder``, by default the content-keyed
    :func:`finetune_folder`; a finished folder built with the same settings (:func:`finetune_spec`) is reused.
    Returns the folder.
    """
    spec = finetune_spec(base_folder, corpus_path, method=method, seed=seed, epochs=epochs, lr=lr, r=r, alpha=alpha,
                         dropout=dropout, batch_size=batch_size, max_length=max_length)
    pairs = read_corpus(corpus_path)
    base = loading.model_folder(str(base_folder))

    def write(staging: Path) -> dict[str, Any]:
        return _train(base, pairs, staging, spec)

    return _write_checkpoint(Path(out_folder) if out_folder is not None else finetune_folder(spec), spec, write)


def _train(base_folder: Path, pairs: list[tuple[str, str]], staging: Path, spec: dict[str, Any]) -> dict[str, Any]:
    import torch
    from transformers import AutoTokenizer

    torch.manual_seed(spec["seed"])
    tokenizer = AutoTokenizer.from_pretrained(base_folder, trust_remote_code=False)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    examples = encode_examples(tokenizer, pairs, spec["max_length"])
    model = loading.load_causal_lm(base_folder)
    model.config.use_cache = False
    if spec["method"] == "lora":
        from peft import LoraConfig, get_peft_model

        with warnings.catch_warnings():  # peft asks transformers a deprecated question; nothing to act on
            warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*", category=FutureWarning)
            model = get_peft_model(model, LoraConfig(
                r=spec["r"], lora_alpha=spec["alpha"], lora_dropout=spec["dropout"], bias="none",
                target_modules=list(TARGET_MODULES), task_type="CAUSAL_LM"))
    model.train()
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=spec["lr"], weight_decay=0.0)
    batch_size = spec["batch_size"]
    steps_per_epoch = math.ceil(len(examples) / batch_size)
    total = spec["epochs"] * steps_per_epoch
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: linear_warmup_schedule(step, total))
    order_rng = torch.Generator().manual_seed(spec["seed"])
    epoch_losses = []
    label = f"finetune {spec['base']} {spec['method']} on {spec['corpus']}"
    # LoRA's frozen base cast to bfloat16 once, not at every step; float32 again before the merge
    with Steps(label, total) as bar, precision.frozen_weights_in(model, spec["precision"]):
        for _ in range(spec["epochs"]):
            order = torch.randperm(len(examples), generator=order_rng).tolist()
            losses = []
            for start in range(0, len(order), batch_size):
                with precision.autocast("cpu", spec["precision"]):
                    loss = _batch_loss(model, [examples[i] for i in order[start:start + batch_size]], pad_id)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
                scheduler.step()
                losses.append(float(loss.detach()))
                bar.update(loss=losses[-1])
            epoch_losses.append(sum(losses) / len(losses))
    if spec["method"] == "lora":
        model = model.merge_and_unload()
    model.eval()
    model.config.use_cache = True
    model.save_pretrained(staging, safe_serialization=True)
    tokenizer.save_pretrained(staging)
    return {"epoch_losses": [round(x, 5) for x in epoch_losses], "steps": total, "n_examples": len(examples),
            "torch_threads": torch.get_num_threads()}


# --------------------------------------------------------------------------- merging


def merge(folder_a: str | Path, folder_b: str | Path, weight_a: float, out_folder: str | Path) -> Path:
    """Linear weight interpolation θ = w·θ_a + (1−w)·θ_b of two checkpoints (Wortsman et al., 2022; Appendix C).

    Both folders must hold the same safetensors files, tensor names and shapes. Floating tensors
    are combined in float32 and cast back (w=1 gives θ_a and w=0 gives θ_b bit for bit); other
    tensors must be equal. Config and tokenizer are copied from ``folder_a``. Saved like
    :func:`finetune`; a finished ``out_folder`` with the same settings is reused.
    """
    weight_a = float(weight_a)
    if not (math.isfinite(weight_a) and 0.0 <= weight_a <= 1.0):
        raise ValueError(f"weight_a={weight_a!r} is not allowed; allowed: 0 <= weight_a <= 1")
    folder_a, folder_b = Path(folder_a), Path(folder_b)
    files = sorted(p.name for p in folder_a.glob("*.safetensors"))
    if not files:
        raise ValueError(f"folder_a={str(folder_a)!r} holds no safetensors weights")
    other = sorted(p.name for p in folder_b.glob("*.safetensors"))
    if other != files:
        raise ValueError(f"folder_b={str(folder_b)!r} holds weight files {other}, folder_a holds {files}; "
                         f"allowed: checkpoints of the same architecture")
    spec = {"kind": "merge", "a": folder_a.name, "b": folder_b.name, "weight_a": weight_a,
            "a_spec": checkpoint_info(folder_a)["spec"] if is_complete(folder_a) else None,
            "b_spec": checkpoint_info(folder_b)["spec"] if is_complete(folder_b) else None}

    def write(staging: Path) -> dict[str, Any]:
        for name in files:
            _merge_file(folder_a / name, folder_b / name, weight_a, staging / name)
        for item in folder_a.iterdir():
            if item.is_file() and item.suffix != ".safetensors" and item.name not in (MARKER, FOLDER_SUMS):
                shutil.copy2(item, staging / item.name)
        return {}

    return _write_checkpoint(Path(out_folder), spec, write)


def _merge_file(path_a: Path, path_b: Path, weight_a: float, out: Path) -> None:
    import torch
    from safetensors.torch import load_file, save_file

    tensors_a, tensors_b = load_file(path_a), load_file(path_b)
    if set(tensors_a) != set(tensors_b):
        only = sorted(set(tensors_a) ^ set(tensors_b))
        raise ValueError(f"{path_a.name}: the checkpoints hold different tensors ({', '.join(only[:5])} …)")
    merged = {}
    for key, a in tensors_a.items():
        b = tensors_b[key]
        if a.shape != b.shape:
            raise ValueError(f"{path_a.name}: tensor {key!r} has shape {tuple(a.shape)} in folder_a and "
                             f"{tuple(b.shape)} in folder_b")
        if a.is_floating_point():
            merged[key] = (weight_a * a.float() + (1.0 - weight_a) * b.float()).to(a.dtype).contiguous()
        elif torch.equal(a, b):
            merged[key] = a.clone()
        else:
            raise ValueError(f"{path_a.name}: non-floating tensor {key!r} differs between the checkpoints")
    save_file(merged, out, metadata={"format": "pt"})


# --------------------------------------------------------------------------- the spectrum


def merge_name(weight_unharmful: float) -> str:
    """``merge_90_10`` for 0.9: percent of the unharmful model, then of the harmful one."""
    percent = 100.0 * weight_unharmful
    if not (0.0 < weight_unharmful < 1.0) or abs(percent - round(percent)) > 1e-9:
        raise ValueError(f"ratio={weight_unharmful!r} is not allowed; allowed: whole percents strictly "
                         f"between 0 and 1 (0.01 … 0.99)")
    return f"merge_{round(percent)}_{100 - round(percent)}"


def merges_root(unharmful: Path, harmful: Path) -> Path:
    """``models/spectrum/<base>-<method>-seed<seed>-<key>``: the merges of one pair of fine-tunes (named by the
    unharmful one's settings), keyed by :func:`content_key` of the two fine-tunes' folder names, themselves content
    keys (:func:`finetune_folder`), so the merges of other fine-tunes never meet these."""
    spec = checkpoint_info(unharmful)["spec"]
    key = content_key({"unharmful": Path(unharmful).name, "harmful": Path(harmful).name})
    return paths.MODELS_DIR / "spectrum" / f"{spec['base']}-{spec['method']}-seed{spec['seed']}-{key}"


def finetuned_pair(
    base: str = "smollm2-135m", *, method: str = "lora", seed: int = 0, corpora: dict[str, str | Path] | None = None,
    **finetune_kw: Any,
) -> dict[str, Path]:
    """The two fine-tunes of ``base`` (``unharmful``, ``harmful``) under ``seed``, each in its content-keyed folder
    (:func:`finetune_folder`): the ends of the spectrum, what the seed-stability check repeats (Appendix E.5) and
    the shares spectrum's fine-tunes at 0 and 100 % harmful data (:func:`share_corpus`), so each reuses what
    another built. ``corpora`` overrides :data:`CORPORA`; ``finetune_kw`` goes to :func:`finetune`.
    """
    if method not in METHODS:
        raise ValueError(f"method={method!r} is not supported; allowed: {', '.join(METHODS)}")
    corpora = {**CORPORA, **(corpora or {})}
    unknown = sorted(set(corpora) - set(CORPORA))
    if unknown:
        raise ValueError(f"corpora has unknown keys {unknown}; allowed: {', '.join(CORPORA)}")
    base_folder = loading.model_folder(base)
    return {split: finetune(base_folder, corpora[split], method=method, seed=seed, **finetune_kw) for split in CORPORA}


def spectrum_folders(reference: str, *, checkpoint_paths: Sequence[str] = (), **build_kw: Any) -> dict[str, str]:
    """Checkpoint name → folder or id, the reference first as ``base``: what D01 and D02 audit.

    With ``checkpoint_paths`` (the paper profile) those are audited, named by their last path part;
    otherwise the offline spectrum is built (``build_kw`` goes to :func:`build_spectrum`).
    """
    if checkpoint_paths:
        names = [Path(c).name for c in checkpoint_paths]
        if "base" in names or len(set(names)) != len(names):
            raise ValueError(f"checkpoint_paths={list(checkpoint_paths)!r} is not allowed; allowed: paths whose last "
                             f"parts are distinct and not 'base'")
        return {"base": reference, **dict(zip(names, checkpoint_paths, strict=True))}
    return {name: str(folder) for name, folder in build_spectrum(reference, **build_kw).items()}


def build_spectrum(
    base: str = "smollm2-135m", *, method: str = "lora", seed: int = 0, ratios: Sequence[float] = DEFAULT_RATIOS,
    root: str | Path | None = None, corpora: dict[str, str | Path] | None = None, **finetune_kw: Any,
) -> dict[str, Path]:
    """The graded spectrum of Sec. 4.1: base, unharmful, merges (safe → harmful), harmful.

    Fine-tunes ``base`` (registry name, hub id or folder) on the unharmful and the harmful corpus
    (:func:`finetuned_pair`; ``corpora`` overrides ``CORPORA``) and merges them at ``ratios`` (weight of the
    unharmful model) into ``root`` (default: :func:`merges_root`). Returns an ordered mapping: ``base`` (the
    reference, the untouched base folder) first, then the seven checkpoints ``unharmful``, ``merge_90_10``, …,
    ``merge_10_90``, ``harmful``. Finished checkpoints are reused, so an interrupted build resumes.
    ``finetune_kw`` goes to :func:`finetune` (epochs, lr, batch_size, …).
    """
    if method not in METHODS:
        raise ValueError(f"method={method!r} is not supported; allowed: {', '.join(METHODS)}")
    names = [merge_name(float(w)) for w in ratios]
    if not names or len(set(names)) != len(names):
        raise ValueError(f"ratios={tuple(ratios)!r} is not allowed; allowed: distinct whole percents in (0, 1)")
    tuned = finetuned_pair(base, method=method, seed=seed, corpora=corpora, **finetune_kw)
    root = Path(root) if root is not None else merges_root(tuned["unharmful"], tuned["harmful"])
    spectrum: dict[str, Path] = {"base": loading.model_folder(base), "unharmful": tuned["unharmful"]}
    for weight, name in sorted(zip((float(w) for w in ratios), names, strict=True), reverse=True):
        spectrum[name] = merge(tuned["unharmful"], tuned["harmful"], weight, root / name)
    spectrum["harmful"] = tuned["harmful"]
    return spectrum


# --------------------------------------------------------------------------- independent fine-tunes (not in the paper)


#: The regime label of a shares spectrum in D01's settings (family, regime): LoRA fine-tunes, not merges.
SHARES_REGIME = "lora-shares"


def share_name(share: float, seed: int) -> str:
    """``share_40_seed1``: the percent of harmful examples in the fine-tuning corpus, then the training seed."""
    percent = 100.0 * share
    if not 0.0 <= share <= 1.0 or abs(percent - round(percent)) > 1e-9:
        raise ValueError(f"share={share!r} is not allowed; allowed: whole percents from 0 to 1 (0, 0.01, …, 1)")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed={seed!r} is not allowed; allowed: an integer >= 0")
    return f"share_{round(percent)}_seed{seed}"


def mixed_corpus(share: float, seed: int, out: str | Path) -> Path:
    """Write a fine-tuning corpus of an intermediate ``share`` (0 < share < 1) of harmful examples to ``out`` and
    return it: as many examples as the smaller of :data:`CORPORA` holds, round(share × that) of them drawn from the
    harmful corpus and the rest from the unharmful one, drawn and ordered by ``seed``. Rewritten only when its
    content would change."""
    share_name(share, seed)
    if share in (0.0, 1.0):
        raise ValueError(f"share={share!r} is not allowed; allowed: 0 < share < 1 (at 0 and 1 the corpus is the "
                         "unharmful or the harmful one itself: share_corpus)")
    pairs = {split: read_corpus(path) for split, path in CORPORA.items()}
    size = min(len(p) for p in pairs.values())
    harmful = round(share * size)
    rng = random.Random(seed)
    chosen = rng.sample(pairs["harmful"], harmful) + rng.sample(pairs["unharmful"], size - harmful)
    rng.shuffle(chosen)
    text = "".join(f"{user}\t{assistant}\n" for user, assistant in chosen)
    out = Path(out)
    if not out.is_file() or out.read_text(encoding="utf-8") != text:
        files.atomic_write_text(out, text)
    return out


def share_corpus(share: float, seed: int) -> Path:
    """The fine-tuning corpus of the shares spectrum at ``share`` harmful and ``seed``: at 0 and 1 the unharmful and
    the harmful corpus themselves (:data:`CORPORA`, 199 and 200 examples), so that fine-tune is the one
    :func:`finetuned_pair` trains under the same seed; in between :func:`mixed_corpus` (199 examples) under
    ``models/finetunes/corpora/``."""
    name = share_name(share, seed)
    if share in (0.0, 1.0):
        return CORPORA["harmful" if share == 1.0 else "unharmful"]
    return mixed_corpus(share, seed, paths.MODELS_DIR / "finetunes" / "corpora" / f"{name}.txt")


def share_plan(shares: Sequence[float], seeds: Sequence[int]) -> dict[str, tuple[float, int]]:
    """Checkpoint name (:func:`share_name`) → (harmful share, seed) of every share × seed, safe → harmful, each seed
    in turn; raises unless both lists are non-empty and hold distinct values."""
    plan = {share_name(float(share), seed): (float(share), seed) for share in sorted(shares) for seed in seeds}
    if not plan or len(plan) != len(list(shares)) * len(list(seeds)):
        raise ValueError(f"shares={list(shares)!r}, seeds={list(seeds)!r}; allowed: non-empty lists of distinct "
                         "values")
    return plan


def share_spectrum(base: str = "smollm2-135m", *, shares: Sequence[float], seeds: Sequence[int],
                   method: str = "lora", **finetune_kw: Any) -> dict[str, Path]:
    """Independent fine-tunes of ``base`` at graded shares of harmful data, a spectrum beside the merges (not in
    the paper): ``base`` (the reference) first, then for each share (safe → harmful) and each of ``seeds`` one
    checkpoint (:func:`share_name`) fine-tuned from the base on :func:`share_corpus` of that share and seed, the
    seed also the training seed. No two checkpoints share a fine-tune, so each is one unit; each sits in its
    content-keyed folder (:func:`finetune_folder`), so those at 0 and 100 % are :func:`finetuned_pair`'s under the
    same seed. ``finetune_kw`` goes to :func:`finetune`."""
    if method not in METHODS:
        raise ValueError(f"method={method!r} is not supported; allowed: {', '.join(METHODS)}")
    plan = share_plan(shares, seeds)
    base_folder = loading.model_folder(base)
    spectrum: dict[str, Path] = {"base": base_folder}
    for name, (share, seed) in plan.items():
        spectrum[name] = finetune(base_folder, share_corpus(share, seed), method=method, seed=seed, **finetune_kw)
    return spectrum


def share_records(folders: dict[str, str | Path], shares: Sequence[float], seeds: Sequence[int]) -> list[dict]:
    """One row per fine-tune of a shares spectrum (``folders``: :func:`share_spectrum`'s, name → folder): its
    checkpoint name, harmful share and seed, the examples of its corpus and how many of them are harmful, the
    corpus and its SHA-256, its folder and the seconds its training took (``checkpoint.json``)."""
    harmful = set(read_corpus(CORPORA["harmful"]))
    rows = []
    for name, (share, seed) in share_plan(shares, seeds).items():
        corpus = share_corpus(share, seed)
        pairs = read_corpus(corpus)
        info = checkpoint_info(folders[name])
        rows.append({"checkpoint": name, "harmful_share": share, "seed": seed, "n_examples": len(pairs),
                     "n_harmful": sum(p in harmful for p in pairs), "corpus": corpus.name,
                     "corpus_sha256": info["spec"]["corpus_sha256"], "folder": paths.display(folders[name]),
                     "train_seconds": info["seconds"]})
    return rows
