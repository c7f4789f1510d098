"""The conditions of paper 002's deployment comparisons (App. A.3.1–A.3.2), each measured with K01's protocol.

A condition is one model read in one input format (plain text or its chat template plus generation prompt)
on a list of task pools: A.3.2's "four conditions cross the two factors" (weights w, format f), and each side of an
A.3.1 pair. Every condition runs Algorithm 2 of A.1.6 on its own: its own preliminary sweep locates its own
window on the model's layer grid ("the located windows can differ across conditions", A.3.2), then the
five-seed window. Searches go through :func:`lib.results.shared_table` with exactly K01's arguments for a plain
condition, so a plain condition K01 has measured is read from ``cache/tables``. Condition tables carry a
``condition`` column named ``"<model>|plain"`` or ``"<model>|chat"``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from lib import results
from lib.kstar import measure
from lib.kstar.protocol import counts, rules
from lib.models import extraction


@dataclass(frozen=True)
class Condition:
    """One condition: a model, an input format and the task pools it reads."""

    model: str
    chat: bool
    tasks: tuple[str, ...]

    @property
    def name(self) -> str:
        return condition_name(self.model, self.chat)

    def format_args(self) -> dict:
        """The format as K01 passes it (:func:`lib.kstar.measure.format_args`): absent where the condition reads
        the model in A.1.2's format, so such a condition's cache key is K01's."""
        return measure.format_args(self.model, self.chat)


def condition_name(model: str, chat: bool) -> str:
    """``"<model>|chat"`` or ``"<model>|plain"``."""
    return f"{model}|{'chat' if chat else 'plain'}"


def sweeps(conditions: Sequence[Condition], *, layers: str, poolings: Sequence[str], n_jobs: int = 1,
           scheduler: str = "", **pool_args) -> pd.DataFrame:
    """Every condition's preliminary sweep (A.1.6) on the blocks of the layer spec ``layers`` as tidy rows with a
    ``condition`` column (cached per condition)."""
    if not conditions:
        return pd.DataFrame()
    return pd.concat([results.shared_table(measure.sweep_table, c.model, layers=layers, poolings=poolings,
                                           n_jobs=n_jobs, scheduler=scheduler, tasks=c.tasks, **pool_args,
                                           **c.format_args()).assign(condition=c.name) for c in conditions],
                     ignore_index=True)


def windows(sweep: pd.DataFrame, frac: float = rules.FRAC) -> pd.DataFrame:
    """Every condition's best block and four-block window from its own sweep (A.1.6)."""
    if sweep.empty:
        return pd.DataFrame()
    return pd.concat([counts.best_blocks(rows.drop(columns="condition"), frac).assign(condition=name)
                      for name, rows in sweep.groupby("condition", sort=False)], ignore_index=True)


def window_rows(conditions: Sequence[Condition], located: pd.DataFrame, *, seeds: Sequence[int], subsample: float,
                n_jobs: int = 1, scheduler: str = "", **pool_args) -> pd.DataFrame:
    """Every condition's five-seed window (A.1.6) as tidy rows with a ``condition`` column (cached per
    condition)."""
    if not conditions:
        return pd.DataFrame()
    frames = []
    for c in conditions:
        mine = located[located.condition == c.name]
        blocks = {t: [int(b) for b in w] for t, w in zip(mine.task, mine.window, strict=True)}
        frames.append(results.shared_table(measure.window_table, c.model, blocks, seeds=seeds, subsample=subsample,
                                           n_jobs=n_jobs, scheduler=scheduler, tasks=c.tasks, **pool_args,
                                           **c.format_args()).assign(condition=c.name))
    return pd.concat(frames, ignore_index=True)


def task_tables(window: pd.DataFrame, frac: float = rules.FRAC) -> pd.DataFrame:
    """Every condition's task table (k*, seed range, ceiling; Eq. 16) with a ``condition`` column."""
    if window.empty:
        return pd.DataFrame()
    return pd.concat([counts.window_counts(rows.drop(columns="condition"), frac).assign(condition=name)
                      for name, rows in window.groupby("condition", sort=False)], ignore_index=True)


def follower_tasks(followers: Mapping[str, Sequence[str]], passing: Mapping[str, Sequence[str]],
                   order: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Tasks each follower condition reads: the union of the tasks passing the base side of the gate in the
    conditions it is compared with (``followers``: condition → base conditions), in ``order``. A task whose base
    ceiling or count already fails A.3.1's gate cannot enter a ratio, so its other conditions are not measured
    (CPU budget)."""
    return {condition: tuple(t for t in order if any(t in passing[b] for b in bases))
            for condition, bases in followers.items()}


def check_chat_template(reference: str, tuned: str) -> None:
    """A.3.2, "Conditions": both chat conditions render through one template string. ValueError when the two
    models' tokenizers render a user turn plus generation prompt differently (or one has no template)."""
    probe = ["The probe text."]
    try:
        rendered = [extraction.render(model, probe, chat_template=True)[0] for model in (reference, tuned)]
    except ValueError as err:
        raise ValueError(f"the factorial needs one chat template for both weights: {err}") from None
    if rendered[0] != rendered[1]:
        raise ValueError(f"tuned_model={tuned!r} renders the chat format as {rendered[1]!r}, the reference "
                         f"{reference!r} as {rendered[0]!r}; allowed: checkpoints sharing one chat template "
                         "(save the tuned tokenizer beside the reference weights)")
