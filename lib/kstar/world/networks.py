"""The networks of the synthetic factor world (paper 002, App. A.3.3–A.3.4): a causal transformer and a GRU,
trained on the answer loss of Eq. 49, read at the query position.

- :class:`Transformer`: token and learned position embeddings, ``depth`` pre-norm blocks (causal
  self-attention, GELU MLP of width 4d), a final layer normalisation and the vocabulary projection.
- :class:`GRU`: token embeddings, ``depth`` stacked single-layer GRUs, the vocabulary projection.

Readout (A.3.4, "Representation"): layer 0 is the embedding output, layer ℓ ≥ 1 the output of block
(or recurrent layer) ℓ; the transformer's residual stream is read *before* the final normalisation.

Training (A.3.3, Eq. 49): cross-entropy over the full vocabulary of 118 tokens at the 12 answer
positions only (the logits at each query position predict the answer after it), each update on 256
freshly generated sequences. The paper's table of training settings (Table 36) was lost in the text
extraction; the optimiser here is a choice: AdamW (β = 0.9, 0.999; weight decay 0.01) at a constant
learning rate after a linear warm-up over the first 5% of updates (at most 500), gradients clipped
at norm 1. Four attention heads (fewer when the width is not divisible by four), no dropout.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from lib.kstar.world import world as fw
from lib.progress import Steps

ARCHITECTURES = ("transformer", "gru")


@dataclass(frozen=True)
class NetworkSpec:
    """The architecture of one synthetic network of the grid, named ``"<arch>-d<width>-L<depth>-s<seed>"``:
    architecture, width d, depth (blocks or recurrent layers), initialisation seed."""

    arch: str
    width: int
    depth: int
    seed: int = 0

    def __post_init__(self) -> None:
        if self.arch not in ARCHITECTURES:
            raise ValueError(f"arch={self.arch!r} is unknown; allowed: {', '.join(ARCHITECTURES)}")
        for name in ("width", "depth"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name}={value!r} is out of range; allowed: an integer >= 1")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed={self.seed!r} is out of range; allowed: an integer >= 0")

    @property
    def name(self) -> str:
        return f"{self.arch}-d{self.width}-L{self.depth}-s{self.seed}"


_SPEC = re.compile(r"^(?P<arch>[a-z]+)-d(?P<width>\d+)-L(?P<depth>\d+)-s(?P<seed>\d+)$")


def parse_spec(name: str) -> NetworkSpec:
    """The :class:`NetworkSpec` named ``"transformer-d64-L2-s0"`` (architecture, width, depth, seed)."""
    match = _SPEC.match(str(name))
    if match is None:
        raise ValueError(f"model {name!r} is not understood; allowed: '<arch>-d<width>-L<depth>-s<seed>' with arch in "
                         f"{ARCHITECTURES}, e.g. 'transformer-d64-L2-s0'")
    return NetworkSpec(match["arch"], int(match["width"]), int(match["depth"]), int(match["seed"]))


def _heads(width: int) -> int:
    return next(h for h in (4, 2, 1) if width % h == 0)


class Transformer(nn.Module):
    """Causal pre-norm transformer (A.3.4): embeddings, blocks, final LayerNorm, vocabulary projection."""

    def __init__(self, width: int, depth: int, vocab: int = fw.VOCAB_SIZE, length: int = fw.SEQ_LEN) -> None:
        super().__init__()
        self.token = nn.Embedding(vocab, width)
        self.position = nn.Embedding(length, width)
        self.blocks = nn.ModuleList(
            nn.TransformerEncoderLayer(width, _heads(width), 4 * width, dropout=0.0, activation="gelu",
                                       batch_first=True, norm_first=True)
            for _ in range(depth))
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab)

    def states(self, tokens: torch.Tensor) -> list[torch.Tensor]:
        """Residual stream after the embeddings and after every block: depth + 1 tensors (n, T, d)."""
        length = tokens.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(length, device=tokens.device)
        hidden = self.token(tokens) + self.position(torch.arange(length, device=tokens.device))
        out = [hidden]
        for block in self.blocks:
            hidden = block(hidden, src_mask=mask, is_causal=True)
            out.append(hidden)
        return out

    def logits(self, last: torch.Tensor) -> torch.Tensor:
        """Vocabulary logits from the last layer's states (after the final normalisation)."""
        return self.head(self.norm(last))


class GRU(nn.Module):
    """Stacked GRU (A.3.4): embeddings, ``depth`` recurrent layers read one by one, vocabulary projection."""

    def __init__(self, width: int, depth: int, vocab: int = fw.VOCAB_SIZE) -> None:
        super().__init__()
        self.token = nn.Embedding(vocab, width)
        self.layers = nn.ModuleList(nn.GRU(width, width, batch_first=True) for _ in range(depth))
        self.head = nn.Linear(width, vocab)

    def states(self, tokens: torch.Tensor) -> list[torch.Tensor]:
        """Embeddings and the hidden-state sequence of every recurrent layer: depth + 1 tensors (n, T, d)."""
        hidden = self.token(tokens)
        out = [hidden]
        for layer in self.layers:
            hidden, _ = layer(hidden)
            out.append(hidden)
        return out

    def logits(self, last: torch.Tensor) -> torch.Tensor:
        return self.head(last)


def build(spec: NetworkSpec) -> nn.Module:
    """A freshly initialised model (``torch.manual_seed(spec.seed)`` before construction)."""
    torch.manual_seed(spec.seed)
    cls = Transformer if spec.arch == "transformer" else GRU
    return cls(spec.width, spec.depth)


_QUERY_POSITIONS = torch.tensor([p - 1 for p in fw.ANSWER_POSITIONS])
_ANSWER_POSITIONS = torch.tensor(fw.ANSWER_POSITIONS)


def answer_logits(model: nn.Module, tokens: torch.Tensor) -> torch.Tensor:
    """Logits at the 12 query positions (n, 12, 118): the predictions of the 12 answers (Eq. 49)."""
    last = model.states(tokens)[-1]
    return model.logits(last[:, _QUERY_POSITIONS])


def answer_loss(model: nn.Module, tokens: torch.Tensor) -> torch.Tensor:
    """Eq. 49: mean cross-entropy over the full vocabulary at the 12 answer positions only."""
    logits = answer_logits(model, tokens)
    return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, _ANSWER_POSITIONS].reshape(-1))


@dataclass(frozen=True)
class Trained:
    """A training run: ``losses`` per update (the batch loss of Eq. 49) and ``snapshots`` (update → state dict)."""

    losses: np.ndarray
    snapshots: dict[int, dict]


def train(model: nn.Module, world: fw.FactorWorld, updates: int, *, seed: int = 0, batch_size: int = 256,
          lr: float = 1e-3, checkpoints: Sequence[int] = (), converged: Callable[[nn.Module], bool] | None = None,
          check_every: int = 500, max_updates: int | None = None) -> Trained:
    """Train on Eq. 49 with ``batch_size`` fresh sequences per update (A.3.3); the data stream is
    ``default_rng([seed, 1])``. Snapshots are kept at every update in ``checkpoints`` (≤ ``updates``) and at
    the last update. With ``converged``, training goes on past ``updates`` in blocks of ``check_every`` until
    ``converged(model)`` holds (checked after ``updates`` and after every block) or ``max_updates`` is reached."""
    cap = updates if converged is None else max_updates
    for name, value, low in (("updates", updates, 1), ("batch_size", batch_size, 1), ("check_every", check_every, 1),
                             ("max_updates", cap, updates)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name}={value!r} is out of range; allowed: an integer >= {low}")
    late = sorted(c for c in checkpoints if not 1 <= c <= updates)
    if late:
        raise ValueError(f"checkpoints {late} lie outside 1…updates={updates}")
    if not lr > 0:
        raise ValueError(f"lr={lr!r} is out of range; allowed: > 0")
    rng = np.random.default_rng([seed, 1])
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    warmup = max(1, min(500, updates // 20))
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda step: min(1.0, (step + 1) / warmup))
    losses, snapshots, update = [], {}, 0
    size = sum(p.numel() for p in model.parameters())
    bar = Steps(f"train {type(model).__name__} ({size:,} parameters, seed {seed})", cap, stops_early=cap > updates)
    model.train()
    while update < cap:
        update += 1
        tokens = torch.from_numpy(world.sample(rng, batch_size).tokens)
        loss = answer_loss(model, tokens)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        losses.append(loss.item())
        bar.update(loss=losses[-1])
        if update in checkpoints:
            snapshots[update] = copy.deepcopy(model.state_dict())
        if converged is not None and update >= updates and (update - updates) % check_every == 0:
            model.eval()
            done = converged(model)
            model.train()
            if done:
                break
    bar.close()
    model.eval()
    snapshots[update] = copy.deepcopy(model.state_dict())
    return Trained(np.asarray(losses), snapshots)


@torch.inference_mode()
def readout(model: nn.Module, tokens: np.ndarray, batch_size: int = 1024) -> np.ndarray:
    """States at the last position of each sequence, every layer: (depth + 1, n, d) float64 (A.3.4).

    ``tokens`` (n, T): measurement prefixes ending at the query (A.3.3), so the last position is the query.
    """
    model.eval()
    parts = []
    for start in range(0, len(tokens), batch_size):
        states = model.states(torch.from_numpy(np.asarray(tokens[start:start + batch_size])))
        parts.append(torch.stack([s[:, -1] for s in states]).double().numpy())
    return np.concatenate(parts, axis=1)


@torch.inference_mode()
def evaluate(model: nn.Module, batch: fw.Batch) -> tuple[float, np.ndarray]:
    """(mean answer loss of Eq. 49, accuracy per pool query (50,)) on held-out sequences.

    Accuracy compares the more probable of the two answer tokens with the *true* value g_q(z), so a
    control reads at chance unless the model computes it anyway.
    """
    model.eval()
    tokens = torch.from_numpy(batch.tokens)
    logits = answer_logits(model, tokens)
    loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                       tokens[:, _ANSWER_POSITIONS].reshape(-1)).item()
    predicted = (logits[..., fw.ANSWER1] > logits[..., fw.ANSWER0]).numpy()
    correct = (predicted == batch.truth.astype(bool)).ravel()
    queries = batch.queries.ravel()
    hits = np.bincount(queries, weights=correct, minlength=fw.N_QUERIES)
    seen = np.bincount(queries, minlength=fw.N_QUERIES)
    return float(loss), np.divide(hits, seen, out=np.full(fw.N_QUERIES, np.nan), where=seen > 0)
