"""LoRA students of paper 002's label budget (App. A.4.1, "Models", "Label sources", "Procedure").

One run: a pretrained backbone, new LoRA adapters (peft) on every attention and MLP projection of its
blocks, and a new binary head reading the last layer at the final non-padding position; AdamW at a
constant learning rate, batch 16, a fixed number of epochs
(:func:`lib.kstar.label_budget.label_budget.epochs_for_budget`),
no validation-based early stopping; test AUROC against the ground-truth test labels.

Every run starts from the same seeded initial state: the pretrained weights are copied from the
in-process cache of :func:`lib.models.loading.load`, and the adapters and the head are drawn under
``torch.manual_seed(seed)`` inside a forked random state, so repeated runs of one seed start identically
(A.4.1, "Data"). In bfloat16 the frozen backbone is cast once per training run or scoring pass, not at every
batch (:func:`lib.models.precision.frozen_weights_in`: the same numbers). Students read plain text (no chat
template), truncated at ``max_tokens``, padded on the right; the head finds the last real token from the
attention mask, so left padding reads the same token.

Table 41 (LoRA rank, scale, dropout, learning rate, token limits) was lost in extraction: the defaults
here (rank 8, α 16, dropout 0.05, learning rate 2e-4) are this companion's choices. The soft-teacher loss
(A.4.1, the equation after "with the loss") is reconstructed as the cross-entropy of the student's
softmax against the teacher's two-class distribution (p, 1 − p); hard labels are the one-hot case.
"""

from __future__ import annotations

import copy
import re
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lib import stats
from lib.models import loading, precision
from lib.progress import Steps

BATCH_SIZE = 16  #: A.4.1, "Procedure"
_BLOCK = re.compile(r"\.\d+\.")  # a module inside a numbered block: encoder.layer.3.…, layers.11.…


@dataclass(frozen=True)
class LoraSettings:
    """Adapter and optimiser settings of a run (Table 41 was lost: every default is a choice)."""

    rank: int = 8
    alpha: float = 16.0
    dropout: float = 0.05
    lr: float = 2e-4

    def __post_init__(self) -> None:
        if isinstance(self.rank, bool) or not isinstance(self.rank, int) or self.rank < 1:
            raise ValueError(f"rank={self.rank!r}; allowed: an integer >= 1")
        if not (self.alpha > 0 and 0 <= self.dropout < 1 and self.lr > 0):
            raise ValueError(f"alpha={self.alpha!r}, dropout={self.dropout!r}, lr={self.lr!r}; allowed: "
                             "alpha > 0, 0 <= dropout < 1, lr > 0")


def projection_names(backbone) -> list[str]:
    """Qualified names of every linear projection inside the backbone's numbered blocks: the attention and
    MLP projections (BERT: query, key, value, attention.output.dense, intermediate.dense, output.dense;
    Llama, Gemma, Qwen, OLMo: q, k, v, o, gate, up, down). Embeddings, a pooler and any head are outside
    the blocks and never adapted. GPT-2's Conv1D projections count as linear."""
    import torch

    linear = [torch.nn.Linear]
    try:
        from transformers.pytorch_utils import Conv1D

        linear.append(Conv1D)
    except ImportError:  # pragma: no cover - transformers always ships Conv1D today
        pass
    names = [name for name, module in backbone.named_modules()
             if isinstance(module, tuple(linear)) and _BLOCK.search(f".{name}")]
    if not names:
        raise ValueError(f"{type(backbone).__name__} has no linear projection inside numbered blocks; "
                         "allowed: a transformers backbone whose blocks hold nn.Linear or Conv1D projections")
    return names


def last_positions(attention_mask):
    """Index of the final non-padding token of every row (right or left padding; a row of zeros raises)."""
    import torch

    mask = attention_mask.bool()
    if not mask.any(1).all():
        raise ValueError("attention_mask has a row without tokens; allowed: every row holds one real token")
    width = mask.shape[1]
    return width - 1 - torch.flip(mask, dims=[1]).to(torch.int64).argmax(1)


def _student_class():
    import torch

    class Student(torch.nn.Module):
        """A LoRA-adapted backbone and a new two-class head on its last layer at the last real token."""

        def __init__(self, backbone, head) -> None:
            super().__init__()
            self.backbone, self.head = backbone, head

        def forward(self, input_ids, attention_mask):
            hidden = self.backbone(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            rows = torch.arange(hidden.shape[0], device=hidden.device)
            return self.head(hidden[rows, last_positions(attention_mask)].float())

    return Student


def build(model: str, seed: int, settings: LoraSettings = LoraSettings()):
    """(student, tokenizer): the pretrained ``model`` with new LoRA adapters and a new head, drawn with ``seed``."""
    import torch
    from peft import LoraConfig, get_peft_model

    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed={seed!r}; allowed: an integer >= 0")
    pretrained, tokenizer = loading.load(model)
    backbone = copy.deepcopy(pretrained)  # the cached pretrained weights stay untouched
    config = LoraConfig(r=settings.rank, lora_alpha=settings.alpha, lora_dropout=settings.dropout, bias="none",
                        target_modules=projection_names(backbone))
    with torch.random.fork_rng(devices=[]), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*", category=FutureWarning)
        torch.manual_seed(int(seed))
        backbone = get_peft_model(backbone, config)  # peft asks transformers a deprecated question
        head = torch.nn.Linear(pretrained.config.hidden_size, 2)
        torch.nn.init.normal_(head.weight, std=getattr(pretrained.config, "initializer_range", 0.02))
        torch.nn.init.zeros_(head.bias)
    return _student_class()(backbone, head), tokenizer


def _encode(tokenizer, texts: Sequence[str], max_tokens: int | None, device):
    tokenizer.padding_side = "right"
    limit = {"truncation": True, "max_length": max_tokens} if max_tokens is not None else {}
    return tokenizer(list(texts), return_tensors="pt", padding=True, **limit).to(device)


def _autocast(device):
    """A.4.1's bfloat16 autocasting (trainable parameters in float32) where ``device`` has bfloat16 units: a GPU
    that supports it, or a CPU with AVX-512 BF16 / AMX units; float32 elsewhere (:mod:`lib.models.precision`)."""
    return precision.autocast(device, precision.training_precision(device))


@dataclass(frozen=True)
class TrainLog:
    """What one training run did: mean loss per epoch, optimiser steps, real tokens seen and seconds."""

    epoch_losses: tuple[float, ...]
    steps: int
    tokens: int
    seconds: float


def train(student, tokenizer, texts: Sequence[str], targets: np.ndarray, *, epochs: int, seed: int,
          lr: float, max_tokens: int | None, batch_size: int = BATCH_SIZE) -> TrainLog:
    """AdamW at a constant ``lr`` on the soft cross-entropy −Σ_c target_c·log q(c|x) (one-hot targets: hard
    labels), shuffled batches drawn with ``seed``, ``epochs`` full passes, no early stopping (A.4.1).

    ``targets`` holds P(positive) per text (0/1 for hard labels)."""
    import torch

    targets = np.asarray(targets, dtype=float)
    if len(texts) != len(targets) or len(texts) == 0:
        raise ValueError(f"{len(texts)} texts and {len(targets)} targets; allowed: equal, non-zero lengths")
    if not (np.isfinite(targets).all() and ((targets >= 0) & (targets <= 1)).all()):
        raise ValueError("targets must be probabilities of the positive class in [0, 1]")
    if isinstance(epochs, bool) or not isinstance(epochs, (int, np.integer)) or epochs < 1:
        raise ValueError(f"epochs={epochs!r}; allowed: an integer >= 1")
    device = next(student.parameters()).device
    soft = torch.tensor(np.stack([1 - targets, targets], axis=1), dtype=torch.float32, device=device)
    trainable = [p for p in student.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=lr)
    order_rng = torch.Generator().manual_seed(int(seed))
    losses, steps, tokens, start = [], 0, 0, time.perf_counter()
    steps_per_epoch = (len(texts) + batch_size - 1) // batch_size
    bar = Steps(f"train student on {len(texts):,} texts (seed {seed})", int(epochs) * steps_per_epoch)
    student.train()
    # the frozen backbone cast to bfloat16 once, not at every step (the same numbers)
    frozen_once = precision.frozen_weights_in(student, precision.training_precision(device))
    with torch.random.fork_rng(devices=[]), frozen_once:
        torch.manual_seed(int(seed))  # adapter dropout
        for _ in range(int(epochs)):
            order, total = torch.randperm(len(texts), generator=order_rng).tolist(), 0.0
            for first in range(0, len(order), batch_size):
                rows = order[first:first + batch_size]
                encoded = _encode(tokenizer, [texts[i] for i in rows], max_tokens, device)
                with _autocast(device):
                    logits = student(encoded["input_ids"], encoded["attention_mask"])
                loss = torch.nn.functional.cross_entropy(logits.float(), soft[rows])
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
                batch_loss = float(loss.detach())
                total += batch_loss * len(rows)
                steps += 1
                tokens += int(encoded["attention_mask"].sum())
                bar.update(loss=batch_loss)
            losses.append(total / len(texts))
    bar.close()
    student.eval()
    return TrainLog(tuple(losses), steps, tokens, time.perf_counter() - start)


def scores(student, tokenizer, texts: Sequence[str], *, max_tokens: int | None, batch_size: int = 32) -> np.ndarray:
    """The student's positive-class score (logit difference) per text, batches sorted by length."""
    import torch

    device = next(student.parameters()).device
    lengths = [len(ids) for ids in tokenizer(list(texts), truncation=max_tokens is not None,
                                             max_length=max_tokens)["input_ids"]]
    order = np.argsort(lengths, kind="stable")
    out = np.empty(len(texts))
    student.eval()
    with precision.frozen_weights_in(student, precision.training_precision(device)), torch.inference_mode():
        for first in range(0, len(order), batch_size):
            rows = order[first:first + batch_size]
            encoded = _encode(tokenizer, [texts[i] for i in rows], max_tokens, device)
            with _autocast(device):
                logits = student(encoded["input_ids"], encoded["attention_mask"]).float()
            out[rows] = (logits[:, 1] - logits[:, 0]).cpu().numpy()
    return out


@dataclass(frozen=True)
class RunResult:
    """One point of a learning curve: test AUROC after training on ``n`` labels, and the run's log."""

    n: int
    n_positive: int
    epochs: int
    auroc: float
    log: TrainLog


def run(model: str, texts_train: Sequence[str], targets: np.ndarray, texts_test: Sequence[str],
        y_test: np.ndarray, *, epochs: int, seed: int, settings: LoraSettings = LoraSettings(),
        max_tokens: int | None = None) -> RunResult:
    """Build a fresh student with ``seed``, train it on (texts_train, targets), score the test split."""
    import torch

    y_test = np.asarray(y_test).astype(int)
    if len(np.unique(y_test)) != 2:
        raise ValueError("y_test must hold both classes (AUROC)")
    student, tokenizer = build(model, seed, settings)
    student.to("cuda" if torch.cuda.is_available() else "cpu")
    log = train(student, tokenizer, texts_train, targets, epochs=epochs, seed=seed, lr=settings.lr,
                max_tokens=max_tokens)
    auroc = float(stats.auroc(y_test, scores(student, tokenizer, texts_test, max_tokens=max_tokens)))
    return RunResult(len(texts_train), int(np.sum(np.asarray(targets) > 0.5)), int(epochs), auroc, log)
