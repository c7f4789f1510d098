"""The precision a training loop runs in: bfloat16 autocast where the hardware has bfloat16 units, else float32.

Paper 001 fine-tunes "in bfloat16 precision" (Sec. 4.1, Appendix C) and paper 002 trains its LoRA students with
bfloat16 autocasting (A.4.1). Autocast keeps the trainable parameters, the optimiser state and the loss in float32
and runs the matrix products in bfloat16: the mixed precision both papers describe. A GPU with bfloat16 support
and a CPU with AVX-512 BF16 or AMX-BF16 units have them (read from ``/proc/cpuinfo``; on this project's 2-core
machine a 2,048² bfloat16 product runs 4.4× faster than float32). A CPU without them would emulate bfloat16 at a
fraction of float32's speed, so there the loop trains in float32 and says so in one line.

Autocast casts a float32 weight to bfloat16 at every product, and caches the cast only for weights that train: the
frozen base of a LoRA model would be cast again at every step. :func:`frozen_weights_in` casts the frozen products'
weights once for the length of a training loop, the usual LoRA practice; autocast would have made the same bfloat16
copies, so the loop computes bit for bit what it did, and the float32 originals return afterwards (a merged adapter
adds its small update to them, not to their bfloat16 rounding).
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

BFLOAT16, FLOAT32 = "bfloat16", "float32"
#: The CPU flags of bfloat16 matrix units (Linux ``/proc/cpuinfo``).
CPU_BF16_FLAGS = ("avx512_bf16", "amx_bf16")
CPUINFO = Path("/proc/cpuinfo")


@functools.cache
def cpu_has_bf16(cpuinfo: Path = CPUINFO) -> bool:
    """Whether the CPU lists a bfloat16 matrix unit among its flags (False where ``cpuinfo`` cannot be read)."""
    try:
        text = cpuinfo.read_text()
    except OSError:
        return False
    flags = {flag for line in text.splitlines() if line.startswith("flags") for flag in line.split(":", 1)[1].split()}
    return any(flag in flags for flag in CPU_BF16_FLAGS)


@functools.cache
def _say_float32(device_type: str) -> None:
    print(f"training in float32: this {device_type.upper()} has no bfloat16 units "
          f"({' or '.join(CPU_BF16_FLAGS) if device_type == 'cpu' else 'torch.cuda.is_bf16_supported()'})",
          file=sys.stderr)


def training_precision(device: Any = "cpu") -> str:
    """:data:`BFLOAT16` where ``device`` (a torch device or its type) has bfloat16 units, else :data:`FLOAT32`
    (said once per process in one line on stderr)."""
    import torch

    kind = torch.device(device).type
    available = torch.cuda.is_bf16_supported() if kind == "cuda" else kind == "cpu" and cpu_has_bf16()
    if not available:
        _say_float32(kind)
    return BFLOAT16 if available else FLOAT32


def autocast(device: Any, precision: str) -> contextlib.AbstractContextManager:
    """The context a training step's forward pass runs in: bfloat16 autocast on ``device`` for
    :data:`BFLOAT16`, nothing for :data:`FLOAT32`."""
    import torch

    if precision not in (BFLOAT16, FLOAT32):
        raise ValueError(f"precision={precision!r} is not one of {BFLOAT16}, {FLOAT32}")
    if precision == FLOAT32:
        return contextlib.nullcontext()
    return torch.autocast(torch.device(device).type, dtype=torch.bfloat16)


@contextlib.contextmanager
def frozen_weights_in(model: Any, precision: str) -> Iterator[int]:
    """For :data:`BFLOAT16`: every ``torch.nn.Linear`` of ``model`` whose weight does not train holds bfloat16 copies
    of its weight and bias inside the block, its float32 parameters again after it (also on error). Only the linear
    products: autocast runs them in bfloat16 anyway, while embeddings and norms stay in float32, so a weight tied to
    an embedding (a tied output layer) gets its own bfloat16 copy and the tie returns afterwards. Yields how many
    weights were cast (0 for :data:`FLOAT32`: nothing changes)."""
    import torch

    if precision not in (BFLOAT16, FLOAT32):
        raise ValueError(f"precision={precision!r} is not one of {BFLOAT16}, {FLOAT32}")
    swapped: list[tuple[torch.nn.Module, str, torch.nn.Parameter]] = []
    if precision == BFLOAT16:
        for module in model.modules():
            if not isinstance(module, torch.nn.Linear) or module.weight.requires_grad:
                continue
            for name in ("weight", "bias"):
                original = getattr(module, name)
                if original is not None and original.dtype == torch.float32:
                    swapped.append((module, name, original))
                    setattr(module, name, torch.nn.Parameter(original.detach().to(torch.bfloat16),
                                                             requires_grad=False))
    try:
        yield sum(name == "weight" for _, name, _ in swapped)
    finally:
        for module, name, original in swapped:
            setattr(module, name, original)
