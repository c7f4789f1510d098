"""The conditions of paper 002's deployment comparisons (App. A.3.1–A.3.2), each measured with K01's protocol.

A condition is one model read in one input format (plain text or its chat template plus generation prompt)
on a list of task pools: A.3.2's "four conditions cross the two factors" (weights w, format f), and each side of an
A.3.1 pair. Every condition runs Algorithm 2 of A.1.6 on its own: its own preliminary sweep locates its own
window on the model's layer grid ("the located windows can differ across conditions", A.3.2), then the
five-seed window, all through the one Algorithm-2 entry :func:`lib.kstar.estimator.kstar_tables`; a condition
in the model's own A.1.2 format is K01's measurement, read from ``cache/tables`` when K01 has run. Condition
tables carry a ``condition`` column named ``"<model>|plain"`` or ``"<model>|chat"``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from lib.kstar import estimator, measure
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

    @property
    def control(self) -> str:
        """The estimator's control that reads this condition (:data:`lib.kstar.estimator.CONTROLS`): none where the
        condition reads the model in A.1.2's format, so its cache keys are K01's, else the format control."""
        return "" if self.chat == measure.reads_chat(self.model) else "format"


def condition_name(model: str, chat: bool) -> str:
    """``"<model>|chat"`` or ``"<model>|plain"``."""
    return f"{model}|{'chat' if chat else 'plain'}"


def tables(conditions: Sequence[Condition], protocol: estimator.Protocol, *, n_jobs: int = 1,
           scheduler: str = "") -> estimator.KstarTables:
    """Algorithm 2 (A.1.6) for every condition through :func:`lib.kstar.estimator.kstar_tables`, each on its own
    tasks and in its own format (its own sweep, best blocks and window, five-seed window, ceilings and counts), every
    table with a ``condition`` column."""
    found = [estimator.kstar_tables([c.model], dataclasses.replace(protocol, tasks=c.tasks), control=c.control,
                                    n_jobs=n_jobs, scheduler=scheduler) for c in conditions]
    return estimator.KstarTables(*(
        pd.concat([getattr(t, field.name).assign(condition=c.name) for c, t in zip(conditions, found, strict=True)],
                  ignore_index=True) if found else pd.DataFrame()
        for field in dataclasses.fields(estimator.KstarTables)))


def input_lengths_table(conditions: Sequence[Condition], protocol: estimator.Protocol) -> pd.DataFrame:
    """Per condition and task, in the condition's input format (A.1.2; A.3.2's four conditions): the share of texts
    cut at the protocol's ``max_tokens`` and the text tokens kept (:func:`lib.kstar.measure.input_lengths_table`), a
    chat input cut inside its user text so its generation prompt survives; a ``condition`` column."""
    tasks = list(dict.fromkeys(t for c in conditions for t in c.tasks))
    task_pools = measure.pools(tasks, cap=protocol.cap, seed=protocol.pool_seed, max_classes=protocol.max_classes)
    return pd.concat([measure.input_lengths_table([c.model], {t: task_pools[t] for t in c.tasks}, protocol.max_tokens,
                                                  chat_template=c.chat).assign(condition=c.name) for c in conditions],
                     ignore_index=True)


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
    models' tokenizers render a user turn plus generation prompt differently (or one has no template). One checkpoint
    as both weights shares its template by construction: nothing is loaded (its tokenizer would cost an import of
    transformers in a run whose extractions all come from the cache)."""
    if reference == tuned:
        return
    probe = ["The probe text."]
    try:
        rendered = [extraction.render(model, probe, chat_template=True)[0] for model in (reference, tuned)]
    except ValueError as err:
        raise ValueError(f"the factorial needs one chat template for both weights: {err}") from None
    if rendered[0] != rendered[1]:
        raise ValueError(f"tuned_model={tuned!r} renders the chat format as {rendered[1]!r}, the reference "
                         f"{reference!r} as {rendered[0]!r}; allowed: checkpoints sharing one chat template "
                         "(save the tuned tokenizer beside the reference weights)")
