"""Algorithm 2 on models × task pools, in one entry: the preliminary sweep, each task's best block and window, the
five-seed window measurement, the ceilings and the counts (paper 002, A.1.6–A.1.8, Algorithm 2).

:func:`kstar_tables` runs the stages in the paper's order for every model and returns them together
(:class:`KstarTables`); :class:`Protocol` is the one value of the protocol's settings (the pools of A.1.3, the
blocks swept, the seeds and subsample of A.1.6, the threshold factor of Eq. 4), built from a notebook's
parameters by :meth:`Protocol.of`. The sweep and the window measurement of each model are cached by
:func:`lib.results.shared_table` under their arguments and code, so two notebooks asking for the same model under
the same protocol compute it once. Each model reads its texts in A.1.2's input format (an instruction-tuned model
as a single user turn plus the generation prompt, a base model as raw text; :func:`lib.kstar.measure.reads_chat`).
A control (A.3.2: the other input format, a seeded rotation of the features, seeded shuffled labels) runs the same
stages with its own sweep and window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import pandas as pd

from lib import results
from lib.kstar import measure
from lib.kstar.protocol import counts

#: The controls of A.3.2 a run of Algorithm 2 can take ("" is the main protocol; "format" reads each model in the
#: input format A.1.2 does not give it: plain text for an instruction-tuned model, its chat template for a base one).
CONTROLS = ("", "format", "rotation", "shuffled")


@dataclass(frozen=True)
class Protocol:
    """The settings of Algorithm 2 (A.1.3–A.1.8): the pools, the swept blocks, the measurement and the threshold."""

    tasks: tuple[str, ...]
    cap: int
    pool_seed: int
    max_classes: int
    max_tokens: int | None
    min_positives: int
    layers: str
    sweep_poolings: tuple[str, ...]
    frac: float
    seeds: tuple[int, ...] = (1, 2, 3, 4, 5)  # A.1.6's five-seed window: a notebook that only sweeps names none
    subsample: float = 0.85

    @classmethod
    def of(cls, params: Any) -> Protocol:
        """The protocol a k* notebook's parameters hold (every field by its name; a notebook that only sweeps,
        K06 and K07, has no window seeds and gets A.1.6's)."""
        return cls(**{f.name: getattr(params, f.name) for f in fields(cls) if hasattr(params, f.name)})

    def pool_args(self) -> dict[str, Any]:
        """The pool settings every stage takes (A.1.3)."""
        return {"tasks": self.tasks, "cap": self.cap, "pool_seed": self.pool_seed, "max_classes": self.max_classes,
                "max_tokens": self.max_tokens, "min_positives": self.min_positives}


@dataclass(frozen=True)
class KstarTables:
    """What Algorithm 2 logs, each a tidy table over models: the sweep's rows, each task's best block and window
    (``best_blocks``), the window's five-seed rows (``window_fits``), the ceilings and the k* counts."""

    sweep: pd.DataFrame
    best_blocks: pd.DataFrame
    window_fits: pd.DataFrame
    ceilings: pd.DataFrame
    counts: pd.DataFrame


def check_control(control: str) -> None:
    """ValueError naming ``control`` and the allowed values."""
    if control not in CONTROLS:
        raise ValueError(f"control={control!r}; allowed: {', '.join(repr(c) for c in CONTROLS)}")


def _control_args(model: str, control: str, seed: int) -> dict[str, Any]:
    return {"": {}, "format": measure.format_args(model, not measure.reads_chat(model)),
            "rotation": {"rotation_seed": seed}, "shuffled": {"label_seed": seed}}[control]


def input_formats(models: Sequence[str], control: str = "") -> str:
    """Which input format each model is read in under ``control`` (A.1.2), one line for a notebook's output."""
    check_control(control)
    chat = {model: measure.reads_chat(model) != (control == "format") for model in models}
    heading = "input format (the format control, A.3.2): " if control == "format" else "input format (A.1.2): "
    return heading + "; ".join(f"{model} {measure.format_words(model, chat[model])}"
                                                for model in models)


def sweep(models: Sequence[str], protocol: Protocol, *, control: str = "", control_seed: int = 0, n_jobs: int = 1,
          scheduler: str = "") -> pd.DataFrame:
    """Algorithm 2's first stage alone, the preliminary sweep of every model (A.1.6), for a notebook that reads the
    sweep's supports (K06, K07); a rotation sweeps the main protocol's states."""
    check_control(control)
    return pd.concat([results.shared_table(
        measure.sweep_table, model, layers=protocol.layers, poolings=protocol.sweep_poolings,
        **{k: v for k, v in _control_args(model, control, control_seed).items() if k != "rotation_seed"},
        n_jobs=n_jobs, scheduler=scheduler, **protocol.pool_args()) for model in models], ignore_index=True)


def kstar_tables(models: Sequence[str], protocol: Protocol, *, control: str = "", control_seed: int = 0,
                 n_jobs: int = 1, scheduler: str = "") -> KstarTables:
    """Algorithm 2 for each model on the protocol's pools, under ``control`` (A.3.2; ``control_seed`` seeds a
    rotation or a label shuffle). A rotation keeps the main protocol's sweep (it rotates the window's states);
    the format and shuffled-label controls locate their own windows (A.3.2)."""
    check_control(control)
    execution = {"n_jobs": n_jobs, "scheduler": scheduler}
    swept = sweep(models, protocol, control=control, control_seed=control_seed, **execution)
    best = counts.best_blocks(swept, protocol.frac)
    fits = pd.concat([results.shared_table(
        measure.window_table, model, {t: [int(b) for b in w] for t, w in zip(cell.task, cell.window, strict=True)},
        seeds=protocol.seeds, subsample=protocol.subsample, **_control_args(model, control, control_seed), **execution,
        **protocol.pool_args())
        for model, cell in best.groupby("model", sort=False)], ignore_index=True)
    return KstarTables(swept, best, fits, counts.window_ceilings(fits, protocol.frac),
                       counts.window_counts(fits, protocol.frac))
