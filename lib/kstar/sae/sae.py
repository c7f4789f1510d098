"""Sparse autoencoder encoders of paper 002, App. A.1.10: JumpReLU and TopK, release loaders, offline training.

Encoders map a residual vector h ∈ R^d to g ∈ R^{d_sae} (W_enc ∈ R^{d_sae×d}, b_enc ∈ R^{d_sae}):

- JumpReLU (Eq. 21, lost; re-derived from "keep a pre-activation only above its threshold"):
  g_j = p_j · 1[p_j > θ_j] with p = W_enc h + b_enc; θ per feature (Gemma Scope, Gemma Scope 2) or one
  shared scalar (Llama Scope). For θ ≥ 0 this equals Gemma Scope's mask·ReLU(p).
- TopK (Eq. 22, lost): the k = 50 largest pre-activations of each input are kept, the rest set to zero
  (Qwen-Scope; Gao et al., 2025). A pre-encoder bias subtracted from h (Gao et al.'s b_pre) is folded into
  b_enc at load.

Folding (A.1.10: "Llama Scope stores a dataset-level input normalization and unnormalized decoder columns,
and we fold both into W_enc and b_enc"; the convention below is reconstructed): the stored encoder
reads the normalised input c·h (c a dataset-level scalar, √d / mean‖h‖ for Llama Scope) and a feature's
activation is its pre-activation times its decoder column norm ν_j, thresholded at the shared θ:
g_j = ν_j p_j · 1[ν_j p_j > θ]. With ν_j > 0 this is Eq. 21 on raw h with W_enc' = c·diag(ν)·W_enc,
b_enc' = diag(ν)·b_enc and the same θ. :func:`fold` does this; the test compares it with the unfolded
reference computation to within 1e-6.

Loaders (:func:`load`) read ``.npz``, ``.safetensors`` or ``.pt`` (a torch dict of tensors) releases, accept the
usual key names (Gemma Scope's ``W_enc`` is d × d_sae; a ``encoder.weight`` of torch layout is d_sae × d; a matrix
stored the other way round under a Gemma name, as Qwen-Scope's W_enc is, is read by its shape where only that
layout fits d) and check every shape against the model width before anything is encoded: a misshapen file raises
ValueError naming the key, its shape and the expected one. :mod:`lib.kstar.sae.suites` finds each block's file in a
released suite and calls it (the paper profile).

Offline (:func:`train_topk`): the paper's suites exist only for its models, so the offline profiles
train TopK SAEs (k = 50) on token-level activations of the task texts (the last positions alone are
too few: a few thousand vectors for a dictionary thousands wide).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from lib.progress import Steps

TOPK = 50  #: active features of the TopK encoder (A.1.10, Qwen-Scope)
KINDS = ("jumprelu", "topk")
_KEYS = {  # role -> accepted names; the first group keeps Gemma's d × d_sae layout, torch's is transposed
    "W_enc": ("W_enc", "w_enc", "encoder.weight"),
    "b_enc": ("b_enc", "encoder.bias"),
    "threshold": ("threshold", "jump_relu_threshold"),
    "W_dec": ("W_dec", "w_dec", "decoder.weight"),
    "b_dec": ("b_dec", "decoder.bias"),
}
_TORCH_LAYOUT = {"encoder.weight", "decoder.weight"}  # nn.Linear (out, in): encoder d_sae × d, decoder d × d_sae


@dataclass(frozen=True)
class SAE:
    """An encoder in the paper's orientation (W_enc: d_sae × d), with an optional decoder for reconstruction."""

    kind: str
    W_enc: np.ndarray
    b_enc: np.ndarray
    threshold: np.ndarray | float = 0.0  # JumpReLU: per feature (d_sae,) or one shared scalar
    k: int = TOPK  # TopK only
    W_dec: np.ndarray | None = None  # d_sae × d
    b_dec: np.ndarray | None = None  # d

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind={self.kind!r}; allowed: {', '.join(KINDS)}")
        d_sae, d = _shape(self.W_enc, "W_enc", 2)
        _expect(self.b_enc, "b_enc", (d_sae,))
        if self.kind == "jumprelu" and np.ndim(self.threshold) != 0:
            _expect(self.threshold, "threshold", (d_sae,))
        if self.kind == "topk" and not 1 <= self.k <= d_sae:
            raise ValueError(f"k={self.k!r}; allowed: 1..d_sae ({d_sae})")
        if self.W_dec is not None:
            _expect(self.W_dec, "W_dec", (d_sae, d))
        if self.b_dec is not None:
            _expect(self.b_dec, "b_dec", (d,))

    @property
    def d_sae(self) -> int:
        return self.W_enc.shape[0]

    @property
    def d_model(self) -> int:
        return self.W_enc.shape[1]

    def pre_activations(self, H) -> np.ndarray:
        H = np.asarray(H, dtype=np.float64)
        if H.ndim != 2 or H.shape[1] != self.d_model:
            raise ValueError(f"H has shape {H.shape}; allowed: (n, {self.d_model})")
        return H @ self.W_enc.T + self.b_enc

    def encode(self, H, batch_size: int = 4096) -> sp.csr_matrix:
        """g for every row of H (n × d) as a CSR matrix (n × d_sae), float64 (A.1.10: "store the result as a
        sparse matrix")."""
        parts = []
        for start in range(0, max(len(H), 1), batch_size):
            pre = self.pre_activations(H[start:start + batch_size])
            if self.kind == "jumprelu":
                parts.append(sp.csr_matrix(np.where(pre > self.threshold, pre, 0.0)))
            else:
                keep = np.argpartition(-pre, self.k - 1, axis=1)[:, : self.k]
                rows = np.repeat(np.arange(len(pre)), self.k)
                parts.append(sp.csr_matrix((pre[rows, keep.ravel()], (rows, keep.ravel())), shape=pre.shape))
        return sp.vstack(parts, format="csr")

    def decode(self, G) -> np.ndarray:
        if self.W_dec is None:
            raise ValueError("this SAE has no decoder (W_dec); reconstruction needs one")
        out = G @ self.W_dec
        return np.asarray(out) + (0.0 if self.b_dec is None else self.b_dec)

    def reconstruction_cosine(self, H) -> np.ndarray:
        """cos(h, decode(encode(h))) per row (the paper reports 0.35–0.73 at its intervened layers, Sec. 5)."""
        H = np.asarray(H, dtype=np.float64)
        return row_cosines(H, self.decode(self.encode(H)))


def row_cosines(H: np.ndarray, R: np.ndarray) -> np.ndarray:
    """cos(h_i, r_i) per row; R (n × d), or one row (d,) every h is compared with (a constant reconstruction)."""
    R = np.broadcast_to(R, H.shape)
    return (H * R).sum(1) / np.maximum(np.linalg.norm(H, axis=1) * np.linalg.norm(R, axis=1), 1e-30)


def _shape(array, name: str, ndim: int) -> tuple[int, ...]:
    shape = np.shape(array)
    if len(shape) != ndim:
        raise ValueError(f"{name} has shape {shape}; allowed: a {ndim}-d array")
    return shape


def _expect(array, name: str, shape: tuple[int, ...]) -> None:
    if np.shape(array) != shape:
        raise ValueError(f"{name} has shape {np.shape(array)}; expected {shape}")


def fold(W_enc, b_enc, *, input_scale: float = 1.0, decoder_norms=None) -> tuple[np.ndarray, np.ndarray]:
    """(W_enc', b_enc') that read raw activations (A.1.10; convention reconstructed, see the module docstring):
    W_enc' = c·diag(ν)·W_enc, b_enc' = diag(ν)·b_enc; ν = 1 when no decoder norms are folded."""
    W_enc, b_enc = np.asarray(W_enc, dtype=np.float64), np.asarray(b_enc, dtype=np.float64)
    if not input_scale > 0:
        raise ValueError(f"input_scale={input_scale!r}; allowed: > 0")
    nu = np.ones(len(b_enc)) if decoder_norms is None else np.asarray(decoder_norms, dtype=np.float64)
    _expect(nu, "decoder_norms", b_enc.shape)
    if np.any(nu <= 0):
        raise ValueError("decoder_norms must be > 0 (a zero decoder column has no direction)")
    return input_scale * nu[:, None] * W_enc, nu * b_enc


def _read(path: Path) -> dict[str, np.ndarray]:
    if path.suffix == ".npz":
        with np.load(path) as archive:
            return {key: archive[key] for key in archive.files}
    if path.suffix == ".safetensors":
        from safetensors.numpy import load_file

        return load_file(str(path))
    if path.suffix == ".pt":
        import torch

        state = torch.load(path, map_location="cpu", weights_only=True)
        if not isinstance(state, dict):
            raise ValueError(f"{path.name} holds a {type(state).__name__}; allowed: a dict of tensors")
        return {key: value.double().numpy() for key, value in state.items() if isinstance(value, torch.Tensor)}
    raise ValueError(f"{path.name}: allowed SAE files are .npz, .safetensors and .pt")


def _find(arrays: dict[str, np.ndarray], role: str, path: Path, required: bool) -> tuple[str | None, np.ndarray | None]:
    for key in _KEYS[role]:
        if key in arrays:
            return key, np.asarray(arrays[key], dtype=np.float64)
    if required:
        raise ValueError(f"{path.name} holds no {role} (looked for {', '.join(_KEYS[role])}; found {sorted(arrays)})")
    return None, None


def _oriented(key: str, W: np.ndarray, d_model: int, encoder: bool) -> np.ndarray:
    """The matrix as d_sae × d (encoder and decoder alike), from its key's stored layout, or the other one where only
    that fits d_model (Qwen-Scope keeps W_enc as d_sae × d and W_dec as d × d_sae); checked against d_model."""
    transpose = encoder != (key in _TORCH_LAYOUT)  # Gemma's W_enc and torch's decoder.weight are stored d × d_sae
    if W.ndim == 2 and W.shape[0 if transpose else 1] != d_model and W.shape[1 if transpose else 0] == d_model:
        transpose = not transpose
    if W.ndim != 2 or W.shape[0 if transpose else 1] != d_model:
        expected = f"(d_model={d_model}, d_sae)" if transpose else f"(d_sae, d_model={d_model})"
        raise ValueError(f"{key} has shape {W.shape}; expected {expected}")
    return W.T if transpose else W


def load(path, *, kind: str, d_model: int, k: int = TOPK, threshold: float | None = None, input_scale: float = 1.0,
         fold_decoder_norms: bool = False, subtract_b_dec: bool = False) -> SAE:
    """A released SAE (paper profile, A.1.10) from ``.npz``, ``.safetensors`` or ``.pt``, every shape checked first.

    ``threshold`` overrides a stored one (Llama Scope keeps its shared θ in a JSON beside the weights);
    ``input_scale`` and ``fold_decoder_norms`` fold a dataset-level input normalisation and unnormalised
    decoder columns into the encoder (:func:`fold`); ``subtract_b_dec``: the encoder reads h − b_dec (TopK
    SAEs of Gao et al.), folded into b_enc. K06 reads the suites of its ``sae_suites`` through it
    (:func:`lib.kstar.sae.suites.load_suite`).
    """
    path = Path(path)
    if kind not in KINDS:
        raise ValueError(f"kind={kind!r}; allowed: {', '.join(KINDS)}")
    arrays = _read(path)
    key, W_enc = _find(arrays, "W_enc", path, True)
    W_enc = _oriented(key, W_enc, d_model, encoder=True)
    d_sae = W_enc.shape[0]
    _, b_enc = _find(arrays, "b_enc", path, True)
    _expect(b_enc, "b_enc", (d_sae,))
    dkey, W_dec = _find(arrays, "W_dec", path, fold_decoder_norms)
    if W_dec is not None:
        W_dec = _oriented(dkey, W_dec, d_model, encoder=False)
        _expect(W_dec, dkey, (d_sae, d_model))
    _, b_dec = _find(arrays, "b_dec", path, subtract_b_dec)
    if b_dec is not None:
        _expect(b_dec, "b_dec", (d_model,))
    if subtract_b_dec:
        b_enc = b_enc - W_enc @ b_dec
    theta: np.ndarray | float = 0.0
    if kind == "jumprelu":
        if threshold is not None:
            theta = float(threshold)
        else:
            _, stored = _find(arrays, "threshold", path, True)
            theta = float(stored) if stored.ndim == 0 or stored.size == 1 else stored
            if np.ndim(theta):
                _expect(theta, "threshold", (d_sae,))
    norms = np.linalg.norm(W_dec, axis=1) if fold_decoder_norms else None
    W_enc, b_enc = fold(W_enc, b_enc, input_scale=input_scale, decoder_norms=norms)
    if fold_decoder_norms:  # the decoder then reads the folded activations: unit-norm columns reconstruct c·h
        W_dec = W_dec / norms[:, None] / input_scale
        b_dec = None if b_dec is None else b_dec / input_scale
    return SAE(kind, W_enc, b_enc, theta, k, W_dec, b_dec)


def topk_loss(batch, W_enc, b_enc, W_dec, b_pre, k: int):
    """The TopK SAE's training loss, the squared reconstruction error summed over coordinates, mean over rows:
    ‖W_decᵀ·TopK(W_enc·(x − b_pre) + b_enc) + b_pre − x‖² (torch tensors; the data already scaled).

    The decoder reads the k kept codes of each row as an ``embedding_bag`` (the sum of k decoder rows weighted by
    their codes) instead of multiplying the d_sae-wide code matrix, k − 1 in 50 of whose entries are zeros: the same
    sum without the zero products, forward and backward (its gradients agree with the dense product's to float32
    rounding; ``tests/kstar/test_sae.py``). Written here because torch has no fused sparse TopK decoder on the
    CPU; it skips three of the step's six dense B × d × d_sae products (``benchmarks/bench_training.py``).
    """
    import torch.nn.functional as F

    top = ((batch - b_pre) @ W_enc.T + b_enc).topk(k, dim=1, sorted=False)  # a sum: the order of the k is moot
    reconstruction = F.embedding_bag(top.indices, W_dec, per_sample_weights=top.values, mode="sum")
    return ((reconstruction + b_pre - batch) ** 2).sum(1).mean()


def train_topk(X, d_sae: int, *, k: int = TOPK, steps: int = 2000, batch_size: int = 1024, lr: float = 1e-3,
               seed: int = 0) -> SAE:
    """A TopK SAE (Gao et al., 2025) trained on activations X (N × d) by Adam on the mean squared error.

    x̂ = W_dec·TopK(W_enc·(c·x − b_pre)) + b_pre with c = 1/√(mean ‖x‖²/d) (unit mean square per coordinate);
    W_dec initialised as W_encᵀ with unit rows, renormalised to unit rows after every step; b_pre starts at
    the mean of c·x. The returned encoder reads raw x: c and b_pre are folded into W_enc and b_enc
    (:func:`fold`), and the decoder maps back to raw units. Deterministic for a seed on one thread count.
    """
    return train_topk_stages(X, d_sae, stages=(steps,), k=k, batch_size=batch_size, lr=lr, seed=seed)[steps]


def train_topk_stages(X, d_sae: int, *, stages: Sequence[int], k: int = TOPK, batch_size: int = 1024,
                      lr: float = 1e-3, seed: int = 0) -> dict[int, SAE]:
    """Steps → the SAE of :func:`train_topk` after that many Adam steps, for every number in ``stages``, from one
    training run: the SAE at s steps is the one ``train_topk(steps=s)`` returns (the same draws, in order), so
    a plateau check costs no second training."""
    import torch

    X = np.asarray(X, dtype=np.float32)
    n, d = _shape(X, "X", 2)
    stages = sorted({int(s) for s in stages})
    if not 1 <= k <= d_sae:
        raise ValueError(f"k={k!r}; allowed: 1..d_sae ({d_sae})")
    if n < 2 or not stages or stages[0] < 1 or batch_size < 1:
        raise ValueError(f"need >= 2 rows, stages >= 1 and batch_size >= 1; got {n}, {stages}, {batch_size}")
    scale = float(1.0 / np.sqrt(np.mean(np.sum(X.astype(np.float64) ** 2, axis=1)) / d))
    gen = torch.Generator().manual_seed(seed)
    data = torch.from_numpy(X) * scale
    W_dec = torch.randn(d_sae, d, generator=gen)
    W_dec = W_dec / W_dec.norm(dim=1, keepdim=True)
    W_dec.requires_grad_(True)
    W_enc = W_dec.detach().clone().requires_grad_(True)
    b_enc = torch.zeros(d_sae, requires_grad=True)
    b_pre = data.mean(0).clone().requires_grad_(True)
    optimiser = torch.optim.Adam([W_enc, W_dec, b_enc, b_pre], lr=lr, fused=True)  # torch's one-kernel Adam
    out: dict[int, SAE] = {}
    bar = Steps(f"train TopK SAE {d}→{d_sae} (k {k}, seed {seed})", stages[-1])
    for step in range(1, stages[-1] + 1):
        batch = data[torch.randint(0, n, (min(batch_size, n),), generator=gen)]
        loss = topk_loss(batch, W_enc, b_enc, W_dec, b_pre, k)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        with torch.no_grad():
            W_dec /= W_dec.norm(dim=1, keepdim=True)
        bar.update(loss=float(loss.detach()))
        if step in stages:
            W_e, b_e, W_d, b_p = (t.detach().double().numpy() for t in (W_enc, b_enc, W_dec, b_pre))
            W_folded, b_folded = fold(W_e, b_e - W_e @ b_p, input_scale=scale)
            out[step] = SAE("topk", W_folded, b_folded, 0.0, k, W_d / scale, b_p / scale)
    bar.close()
    return out
