"""Paper 002's task pools read from Hugging Face hub datasets (App. A.1.3), returned as :class:`TaskPool`.

:data:`HUB_TASK_DEFINITIONS` is the one table: task name -> its :class:`HubTask` definition, i.e. hub
sources (id, config, revision, text and label columns, splits) and the A.1.3 settings (balance, evaluated
classes, hold-out unit, truncation, minimum positives). Every builder reads its sources with
``datasets.load_dataset(path, config, revision=…)``, where ``path`` is the hub id or, through
``sources={hub_id: folder}``, a local folder laid out as the hub repository is (parquet or json files per
split, a README whose ``configs`` name them where the repository has one): the same call reads either,
which is how the tests run offline.

The construction follows :mod:`lib.kstar.tasks.tasks` step for step (duplicates dropped, a test copy of a
training text dropped, cross-split near-duplicates dropped, binary pools balanced or kept at their natural
ratio, multiclass pools keeping every text of the evaluated classes before the rest of the cap, the
surface-cue audit and its one exclusion rule, :mod:`lib.kstar.tasks.cues`), with the
rules A.1.3 sets per task: native splits where the source has labelled ones, else a stratified 20%
hold-out, by problem for ProcessBench; the length-matched jailbreak pool; the MATH/GSM8K filters; the
5% floor on Banking77's rarest evaluated class. The hub is off unless ``HF_HUB_OFFLINE=0`` (the
project's default, as for models); a dataset that is not cached then fails in one line naming the
command that fetches it. Built pools are not cached here: ``datasets`` keeps the Arrow tables.

A revision with ``pinned=False`` is a branch name, to be replaced by the commit it resolves to on the
first connected run (``huggingface_hub.HfApi().dataset_info(hub_id, revision=…).sha``).
:data:`MISSING_TASKS` lists the core tasks without a builder and why.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from lib.kstar.tasks import cues, tasks
from lib.kstar.tasks.tasks import MIN_POSITIVES, TEST_FRACTION, TaskPool

if TYPE_CHECKING:
    import datasets

Sources = Mapping[str, str | Path]  # hub id -> a local folder read in its place
Balance = Literal["exact", "natural", "classes"]

MIN_POSITIVES_ADDITIONAL = 20  # A.1.3: at least 20 positives per split for the additional tasks (5 for the core)
BANKING_MIN_RATE = 0.05  # A.1.3: the rarest evaluated Banking77 class keeps a positive rate of at least 5%
LENGTH_BINS = 10  # jailbreak length matching: quantile bins of the pooled lengths (A.1.3 names no number)
_TRUE = {"1", "ON", "YES", "TRUE"}


class HubDatasetUnavailableError(RuntimeError):
    """A hub dataset that cannot be read: not cached while the hub is off, gated, or refused."""


@dataclass(frozen=True)
class HubSource:
    """One ``load_dataset`` call: the hub id, its config, revision and data_dir, the columns and splits read."""

    hub_id: str
    revision: str
    pinned: bool  # False: ``revision`` is a branch, to be pinned to its commit on the first connected run
    text: str
    label: str | None
    splits: tuple[tuple[str, str], ...]  # (pool split: "train", "test" or "" = held out later, hub split)
    config: str | None = None
    data_dir: str | None = None
    gated: bool = False
    note: str = ""

    def describe(self) -> str:
        config = f"[{self.config}]" if self.config else ""
        data_dir = f"/{self.data_dir}" if self.data_dir else ""
        return f"{self.hub_id}{config}{data_dir}@{self.revision}"


@dataclass(frozen=True)
class HubTask:
    """One task of paper 002 (A.1.3) built from hub sources; ``build`` returns its :class:`TaskPool`."""

    name: str
    paper_task: str
    tier: Literal["core", "additional"]
    sources: tuple[HubSource, ...]
    binary: tuple[str, str] | None  # (negative, positive); None: one-vs-rest over the evaluated classes
    balance: Balance  # exact: binary balanced; natural: the source's ratio; classes: the multiclass cap rule
    evaluated: str  # how the evaluated classes are chosen (A.1.3, "Class decisions")
    n_evaluated: int | None
    holdout: str  # "native", "stratified 20%", "by problem"
    build: Callable[..., TaskPool]
    truncate_chars: int | None = None
    drop_longer_chars: int | None = None
    min_positive_rate: float | None = None
    max_tokens: int = 768  # A.1.2; mathematical-step correctness reads 1024
    settings: Mapping[str, object] = field(default_factory=dict)

    @property
    def min_positives(self) -> int:
        """A.1.3: a decision is evaluated with at least 5 positives per split (core), 20 (additional)."""
        return MIN_POSITIVES if self.tier == "core" else MIN_POSITIVES_ADDITIONAL


# --------------------------------------------------------------------------- reading


def hub_offline() -> bool:
    """Whether the hub is off: ``HF_DATASETS_OFFLINE`` when set (as ``datasets`` reads it), else
    ``HF_HUB_OFFLINE``, off by default as for models (:func:`lib.models.hub.hub_offline`)."""
    from lib.models.hub import hub_offline as models_offline

    flag = os.environ.get("HF_DATASETS_OFFLINE")
    return flag.upper() in _TRUE if flag is not None else models_offline()


@contextlib.contextmanager
def _hub_mode(offline: bool) -> Iterator[None]:
    """``datasets`` and ``huggingface_hub`` read their offline flags at import: hold them at ``offline``."""
    import datasets
    import huggingface_hub.constants as hub_constants

    saved = datasets.config.HF_HUB_OFFLINE, datasets.config.HF_DATASETS_OFFLINE, hub_constants.HF_HUB_OFFLINE
    datasets.config.HF_HUB_OFFLINE = datasets.config.HF_DATASETS_OFFLINE = hub_constants.HF_HUB_OFFLINE = offline
    try:
        yield
    finally:
        datasets.config.HF_HUB_OFFLINE, datasets.config.HF_DATASETS_OFFLINE, hub_constants.HF_HUB_OFFLINE = saved


def fetch_command(source: HubSource) -> str:
    """The one-line command that downloads ``source`` into the local cache on a connected machine."""
    args = [repr(source.hub_id)] + ([repr(source.config)] if source.config else [])
    args += [f"data_dir={source.data_dir!r}"] if source.data_dir else []
    args += [f"revision={source.revision!r}"]
    return f'python -c "import datasets; datasets.load_dataset({", ".join(args)})"'


def hub_unavailable(source: HubSource, error: Exception) -> HubDatasetUnavailableError:
    """Why ``source`` cannot be read, in one line naming the command that fetches it."""
    config = f", config {source.config}" if source.config else ""
    name = f"dataset {source.hub_id!r} (revision {source.revision}{config})"
    gated = (f"; it is gated: accept its terms on https://huggingface.co/datasets/{source.hub_id} and set HF_TOKEN"
             if source.gated else "")
    if hub_offline():
        return HubDatasetUnavailableError(
            f"error: {name} is not in the local cache and the hub is off; on a connected machine run: "
            f"{fetch_command(source)} or set HF_HUB_OFFLINE=0 HF_DATASETS_OFFLINE=0{gated}")
    reason = (str(error).strip().splitlines() or ["no answer"])[0]
    return HubDatasetUnavailableError(
        f"error: {name} could not be loaded from the hub ({type(error).__name__}: {reason}){gated}")


def load_source(source: HubSource, *, local: str | Path | None = None,
                cache_dir: str | Path | None = None) -> datasets.DatasetDict:
    """``datasets.load_dataset`` on the hub id at its revision, or on ``local``, a folder in the hub's layout."""
    import datasets
    from datasets.exceptions import DatasetNotFoundError

    kwargs: dict[str, object] = {"name": source.config, "data_dir": source.data_dir,
                                 "cache_dir": None if cache_dir is None else str(cache_dir)}
    if local is None:
        kwargs["revision"] = source.revision
    with _hub_mode(hub_offline()):
        try:
            return datasets.load_dataset(source.hub_id if local is None else str(local), **kwargs)
        except (ConnectionError, FileNotFoundError, DatasetNotFoundError) as error:
            if local is not None:
                raise
            raise hub_unavailable(source, error) from None


def read_hub_source(source: HubSource, *, sources: Sources | None = None,
                cache_dir: str | Path | None = None) -> pd.DataFrame:
    """Every row of hub source ``source``'s splits as a frame: its columns (class labels as their names) and
    ``split`` (the offline pools' raw rows are :func:`lib.kstar.tasks.tasks.read_offline_source`)."""
    import datasets

    local = (sources or {}).get(source.hub_id)
    loaded = load_source(source, local=local, cache_dir=cache_dir)
    parts = []
    for pool_split, hub_split in source.splits:
        if hub_split not in loaded:
            raise ValueError(f"{source.describe()} has no split {hub_split!r}; it has {sorted(loaded)}")
        table = loaded[hub_split]
        frame = table.to_pandas()
        for column, feature in table.features.items():
            if isinstance(feature, datasets.ClassLabel):
                frame[column] = [feature.int2str(int(v)) if v is not None and int(v) >= 0 else None
                                 for v in frame[column]]
        parts.append(frame.assign(split=pool_split, hub_split=hub_split))
    return pd.concat(parts, ignore_index=True)


def _label_frame(rows: pd.DataFrame, source: HubSource, label: str | None = None) -> pd.DataFrame:
    """text, label (str), group (one per row), split: the frame :mod:`lib.kstar.tasks.tasks` builds pools from."""
    labels = rows[label or source.label]
    keep = labels.notna() & rows[source.text].notna()
    rows, labels = rows[keep], labels[keep]
    groups = [f"{source.hub_id}:{s}:{i}" for s, i in zip(rows.hub_split, rows.index, strict=True)]
    return pd.DataFrame({"text": rows[source.text].astype(str).to_numpy(), "label": labels.astype(str).to_numpy(),
                         "group": groups, "split": rows.split.to_numpy()})


# --------------------------------------------------------------------------- construction


def _check_cap(cap: int | None) -> None:
    if cap is not None and (int(cap) != cap or cap < 2):
        raise ValueError(f"cap={cap!r} must be an integer >= 2 or None")


def _sources_label(task: HubTask, sources: Sources | None) -> str:
    local = sources or {}
    return " + ".join(f"{s.describe()}{f' (local {local[s.hub_id]})' if s.hub_id in local else ''}"
                      for s in task.sources)


def _all_classes(frame: pd.DataFrame, rng: np.random.Generator) -> tuple[str, ...]:
    return tuple(sorted(frame.label.unique()))


def _most_frequent(n: int) -> Callable[[pd.DataFrame, np.random.Generator], tuple[str, ...]]:
    """The ``n`` classes with most training texts, ties by name (A.1.3: Banking77's ten most frequent intents)."""
    def choose(frame: pd.DataFrame, rng: np.random.Generator) -> tuple[str, ...]:
        counts = frame[frame.split == "train"].label.value_counts()
        ranked = sorted(counts.index, key=lambda c: (-int(counts[c]), c))
        return tuple(sorted(ranked[:n]))
    return choose


def _sampled(n: int, exclude: tuple[str, ...] = ()) -> Callable[[pd.DataFrame, np.random.Generator], tuple[str, ...]]:
    """``n`` classes sampled uniformly with the pool's seed (A.1.3: CLINC150's 20 of its 150 in-scope intents)."""
    def choose(frame: pd.DataFrame, rng: np.random.Generator) -> tuple[str, ...]:
        candidates = np.array(sorted(set(frame.label.unique()) - set(exclude)))
        if len(candidates) <= n:
            return tuple(candidates.tolist())
        return tuple(sorted(rng.choice(candidates, size=n, replace=False).tolist()))
    return choose


def _split_cap(rows: pd.DataFrame, evaluated: tuple[str, ...], cap: int | None, rate: float | None) -> int | None:
    """The cap of one split, lowered so the rarest evaluated class keeps a positive rate of ``rate`` (A.1.3)."""
    if rate is None:
        return cap
    present = rows.label.value_counts().reindex(list(evaluated), fill_value=0)
    if int(present.min()) == 0:  # an evaluated class absent from the split: no cap keeps its rate
        return cap
    limit = int(np.floor(int(present.min()) / rate))
    return limit if cap is None else min(cap, limit)


def assemble(task: HubTask, frame: pd.DataFrame, *, cap: int | None, seed: int, rng: np.random.Generator,
             source: str, counts: dict[str, int] | None = None,
             evaluated: Callable[[pd.DataFrame, np.random.Generator], tuple[str, ...]] = _all_classes,
             prepare: Callable[[pd.DataFrame, np.random.Generator], pd.DataFrame] | None = None) -> TaskPool:
    """Deduplicate, split, choose the evaluated classes, balance and cap each split: a :class:`TaskPool` (A.1.3).

    ``frame`` holds text, label, group and split ("train"/"test" native, "" everywhere: held out here,
    whole groups at a time, stratified by label, :data:`TEST_FRACTION` of each class); ``prepare`` runs
    after deduplication and before the split (the jailbreak length matching).
    """
    counts = dict(counts or {})
    counts["source_texts"] = len(frame)
    frame, dropped = tasks.drop_duplicates(frame)
    counts.update(dropped)
    if prepare is not None:
        frame = prepare(frame, rng)
        counts["prepared_texts"] = len(frame)
    if (frame.split == "").all():
        test = tasks.grouped_holdout(frame.label.to_numpy(), frame.group.to_numpy(), rng, TEST_FRACTION)
        frame = frame.assign(split=np.where(test, "test", "train"))
    elif (frame.split == "").any() or not set(frame.split) <= {"train", "test"}:
        raise ValueError(f"task {task.name}: splits must be all native or all held out, got {sorted(set(frame.split))}")
    frame, counts["near_duplicates_dropped"] = tasks.drop_near_duplicates(frame)
    classes = task.binary or tuple(sorted(frame.label.unique()))
    chosen = classes[1:] if task.binary else evaluated(frame, rng)
    frame = frame.assign(priority=rng.permutation(len(frame)))
    parts = {}
    for split in ("train", "test"):
        rows = frame[frame.split == split]
        sizes = rows.label.value_counts()
        if task.binary and set(sizes.index) != set(classes):
            raise ValueError(f"task {task.name}: the {split} split holds {sizes.to_dict()}, not both classes {classes}")
        split_cap = _split_cap(rows, chosen, cap, task.min_positive_rate)
        if task.balance == "exact":
            picked = tasks.balance_and_cap(rows, True, chosen, split_cap)
        elif task.balance == "natural":  # every class alike: the cap keeps the source's class ratio
            picked = tasks.balance_and_cap(rows, False, classes, split_cap)
        else:
            picked = tasks.balance_and_cap(rows, False, chosen, split_cap)
        parts[split] = picked.sort_values("priority", kind="stable")
        counts[f"{split}_before_balance_and_cap"] = len(rows)
    index = {c: i for i, c in enumerate(classes)}
    train, test = parts["train"], parts["test"]
    y_train, y_test = train.label.map(index).to_numpy(int), test.label.map(index).to_numpy(int)
    auroc = {c: tasks.length_auroc(train.text, y_train == index[c], test.text, y_test == index[c]) for c in chosen}
    pool = TaskPool(task.name, tuple(train.text), y_train, tuple(test.text), y_test, classes, tuple(chosen),
                    train.group.to_numpy(str), test.group.to_numpy(str), auroc, source, cap, seed, counts)
    return replace(pool, cue_auroc=cues.audit_pool(pool))  # the exclusion rule of every task (lib.kstar.tasks.cues)


def _start(name: str, cap: int | None, seed: int, sources: Sources | None) -> tuple[HubTask, np.random.Generator, str]:
    _check_cap(cap)
    task = HUB_TASK_DEFINITIONS[name]
    return task, np.random.default_rng(seed), _sources_label(task, sources)


def _problem_group(problem: str) -> str:
    return "problem:" + hashlib.sha1(problem.encode()).hexdigest()[:16]


def quantile_length_matched(lengths: np.ndarray, labels: np.ndarray, rng: np.random.Generator,
                            bins: int = LENGTH_BINS) -> np.ndarray:
    """Mask of the texts kept by the jailbreak length matching (A.1.3, "Control for length").

    Prompts are binned on quantiles of the pooled character lengths; within each bin every text of
    the rarer class is paired with an unused text of the other class of nearly equal length
    (:func:`lib.kstar.tasks.tasks.length_matched`), and only paired prompts are kept.
    """
    lengths, labels = np.asarray(lengths, dtype=float), np.asarray(labels)
    edges = np.quantile(lengths, np.linspace(0.0, 1.0, bins + 1))[1:-1]
    which = np.searchsorted(edges, lengths, side="right")
    keep = np.zeros(len(lengths), dtype=bool)
    for value in np.unique(which):
        rows = np.flatnonzero(which == value)
        if len(np.unique(labels[rows])) == 2:
            keep[rows] = tasks.length_matched(lengths[rows], labels[rows], rng)
    return keep


# --------------------------------------------------------------------------- builders


def _simple(name: str, *, cap: int | None, seed: int, sources: Sources | None, cache_dir: str | Path | None,
            evaluated: Callable[[pd.DataFrame, np.random.Generator], tuple[str, ...]] = _all_classes,
            keep: Callable[[pd.DataFrame], pd.DataFrame] | None = None) -> TaskPool:
    """One source with a text and a label column: read, optionally filter and truncate, assemble."""
    task, rng, label = _start(name, cap, seed, sources)
    (source,) = task.sources
    rows = read_hub_source(source, sources=sources, cache_dir=cache_dir)
    frame = _label_frame(rows, source)
    if keep is not None:
        frame = keep(frame)
    if task.truncate_chars:
        frame = frame.assign(text=frame.text.str.slice(0, task.truncate_chars))
    return assemble(task, frame, cap=cap, seed=seed, rng=rng, source=label, evaluated=evaluated)


def build_ag_news(*, cap: int | None = None, seed: int = 0, sources: Sources | None = None,
                  cache_dir: str | Path | None = None) -> TaskPool:
    """AG News, all four topics one-vs-rest; the cap subsamples all classes alike; native splits (A.1.3)."""
    return _simple("ag_news", cap=cap, seed=seed, sources=sources, cache_dir=cache_dir)


def build_emotion(*, cap: int | None = None, seed: int = 0, sources: Sources | None = None,
                  cache_dir: str | Path | None = None) -> TaskPool:
    """Emotion, all six emotions one-vs-rest; the cap subsamples all classes alike; native train/test (A.1.3)."""
    return _simple("emotion", cap=cap, seed=seed, sources=sources, cache_dir=cache_dir)


def build_banking77(*, cap: int | None = None, seed: int = 0, sources: Sources | None = None,
                    cache_dir: str | Path | None = None) -> TaskPool:
    """Banking77: its ten most frequent intents, every one of their texts kept, the rest of the cap from other
    intents, the cap lowered so the rarest evaluated intent keeps a 5% positive rate; native splits (A.1.3)."""
    return _simple("banking77", cap=cap, seed=seed, sources=sources, cache_dir=cache_dir,
                   evaluated=_most_frequent(10))


def build_clinc150(*, cap: int | None = None, seed: int = 0, sources: Sources | None = None,
                   cache_dir: str | Path | None = None) -> TaskPool:
    """CLINC150: 20 intents sampled uniformly from the 150 in-scope ones (never ``oos``), every one of their
    texts kept, the rest of the cap from other intents and out-of-scope queries; native train/test (A.1.3)."""
    return _simple("clinc150", cap=cap, seed=seed, sources=sources, cache_dir=cache_dir,
                   evaluated=_sampled(20, exclude=("oos",)))


def build_massive(*, cap: int | None = None, seed: int = 0, sources: Sources | None = None,
                  cache_dir: str | Path | None = None) -> TaskPool:
    """MASSIVE (en-US): 20 sampled intents, kept whole, the rest of the cap from other intents; native splits;
    additional-task minimum of 20 positives per split, which 15 of the paper's 20 meet (A.1.3)."""
    return _simple("massive", cap=cap, seed=seed, sources=sources, cache_dir=cache_dir, evaluated=_sampled(20))


def build_twenty_newsgroups(*, cap: int | None = None, seed: int = 0, sources: Sources | None = None,
                            cache_dir: str | Path | None = None) -> TaskPool:
    """20 Newsgroups: ten sampled groups, kept whole, the rest of the cap from other groups; native splits (A.1.3)."""
    return _simple("twenty_newsgroups", cap=cap, seed=seed, sources=sources, cache_dir=cache_dir,
                   evaluated=_sampled(10))


LANGUAGES: tuple[str, ...] = ("ar", "bg", "el", "en", "fr", "hi", "ja", "tr", "ur", "vi")  # A.1.3, English forced in


def build_language_id(*, cap: int | None = None, seed: int = 0, sources: Sources | None = None,
                      cache_dir: str | Path | None = None) -> TaskPool:
    """Language identification: the paper's ten languages, texts cut to 256 characters, every class evaluated
    and subsampled alike by the cap; native train/test (A.1.3)."""
    return _simple("language_id", cap=cap, seed=seed, sources=sources, cache_dir=cache_dir,
                   keep=lambda frame: frame[frame.label.isin(LANGUAGES)])


def _wildguard_prompts(task: HubTask, sources: Sources | None, cache_dir: str | Path | None) -> pd.DataFrame:
    (source,) = task.sources
    rows = read_hub_source(source, sources=sources, cache_dir=cache_dir)
    return rows[rows.prompt_harm_label.isin(["harmful", "unharmful"]) & rows[source.text].notna()]


def build_harmfulness(*, cap: int | None = None, seed: int = 0, sources: Sources | None = None,
                      cache_dir: str | Path | None = None) -> TaskPool:
    """Harmfulness: WildGuardMix prompts labelled harmful vs unharmful, deduplicated, split 80/20 stratified by
    label, kept at their natural class ratio under the cap (A.1.3)."""
    task, rng, label = _start("harmfulness", cap, seed, sources)
    rows = _wildguard_prompts(task, sources, cache_dir)
    return assemble(task, _label_frame(rows, task.sources[0]), cap=cap, seed=seed, rng=rng, source=label)


def build_jailbreak(*, cap: int | None = None, seed: int = 0, sources: Sources | None = None,
                    cache_dir: str | Path | None = None) -> TaskPool:
    """Jailbreak: harmful WildGuardMix prompts only, adversarially framed vs plainly stated, cut to 2000
    characters, deduplicated, length-matched within quantile bins before an 80/20 stratified split (A.1.3)."""
    task, rng, label = _start("jailbreak", cap, seed, sources)
    rows = _wildguard_prompts(task, sources, cache_dir)
    rows = rows[(rows.prompt_harm_label == "harmful") & rows.adversarial.notna()]
    rows = rows.assign(framing=np.where(rows.adversarial.astype(bool), "adversarial", "vanilla"))
    frame = _label_frame(rows, task.sources[0], label="framing")
    frame = frame.assign(text=frame.text.str.strip().str.slice(0, task.truncate_chars))

    def matched(frame: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
        return frame[quantile_length_matched(frame.text.str.len().to_numpy(), frame.label.to_numpy(), rng)]

    return assemble(task, frame, cap=cap, seed=seed, rng=rng, source=label, prepare=matched)


def build_routing(*, cap: int | None = None, seed: int = 0, sources: Sources | None = None,
                  cache_dir: str | Path | None = None) -> TaskPool:
    """Routing: MATH problems (positive) vs GSM8K problems, MATH problems with figure code (``[asy]``) removed,
    problems longer than 1200 characters dropped from both, native splits, balanced exactly (A.1.3)."""
    task, rng, label = _start("routing", cap, seed, sources)
    frames = []
    for source in task.sources:
        rows = read_hub_source(source, sources=sources, cache_dir=cache_dir)
        kind = "gsm8k" if source.hub_id == GSM8K else "math"
        if kind == "math":
            rows = rows[~rows[source.text].astype(str).str.contains("[asy]", regex=False)]
        frame = _label_frame(rows.assign(source_kind=kind), source, label="source_kind")
        frames.append(frame.assign(group=[f"{g}:{source.config}" for g in frame.group]))
    frame = pd.concat(frames, ignore_index=True)
    frame = frame[frame.text.str.strip().str.len() <= task.drop_longer_chars]
    return assemble(task, frame, cap=cap, seed=seed, rng=rng, source=label)


def _render(problem: str, steps: list[str]) -> str:
    """A problem and solution steps as the probed text: the problem, then each step, blank lines between."""
    return "\n\n".join([problem.strip(), *(str(step).strip() for step in steps)])


def _processbench(task: HubTask, sources: Sources | None, cache_dir: str | Path | None) -> pd.DataFrame:
    (source,) = task.sources
    return read_hub_source(source, sources=sources, cache_dir=cache_dir)


def build_math_answer(*, cap: int | None = None, seed: int = 0, sources: Sources | None = None,
                      cache_dir: str | Path | None = None) -> TaskPool:
    """Mathematical-answer correctness: complete ProcessBench solutions, positive when the final answer is
    wrong, at their natural ratio, a 20% hold-out by problem (A.1.3)."""
    task, rng, label = _start("math_answer", cap, seed, sources)
    rows = _processbench(task, sources, cache_dir)
    texts = [_render(p, list(s)) for p, s in zip(rows.problem, rows.steps, strict=True)]
    frame = pd.DataFrame({"text": texts, "label": np.where(rows.final_answer_correct.astype(bool), "correct", "wrong"),
                          "group": [_problem_group(p) for p in rows.problem], "split": ""})
    return assemble(task, frame, cap=cap, seed=seed, rng=rng, source=label)


def build_math_step(*, cap: int | None = None, seed: int = 0, sources: Sources | None = None,
                    cache_dir: str | Path | None = None) -> TaskPool:
    """Mathematical-step correctness: the first erroneous step of each ProcessBench solution vs correct steps
    (those before it, or any step of an error-free solution), each rendered with its problem and preceding
    steps; every erroneous step, at most two correct steps per solution, then correct steps subsampled to
    twice the erroneous ones; a 20% hold-out by problem (A.1.3)."""
    task, rng, label = _start("math_step", cap, seed, sources)
    rows = _processbench(task, sources, cache_dir)
    records: list[tuple[str, str, str]] = []
    for problem, steps, first_error in zip(rows.problem, rows.steps, rows.label, strict=True):
        steps, first_error = list(steps), int(first_error)
        group = _problem_group(problem)
        if 0 <= first_error < len(steps):
            records.append((_render(problem, steps[: first_error + 1]), "error", group))
        correct = np.arange(len(steps) if first_error < 0 else min(first_error, len(steps)))
        for k in sorted(rng.choice(correct, size=min(2, len(correct)), replace=False).tolist()):
            records.append((_render(problem, steps[: k + 1]), "correct", group))
    frame = pd.DataFrame(records, columns=["text", "label", "group"]).assign(split="")
    n_error = int((frame.label == "error").sum())
    correct_rows = np.flatnonzero(frame.label.to_numpy() == "correct")
    if len(correct_rows) > 2 * n_error:
        drop = rng.choice(correct_rows, size=len(correct_rows) - 2 * n_error, replace=False)
        frame = frame.drop(index=frame.index[drop])
    counts = {"erroneous_steps": n_error, "correct_steps_kept": int((frame.label == "correct").sum())}
    return assemble(task, frame.reset_index(drop=True), cap=cap, seed=seed, rng=rng, source=label, counts=counts)


# --------------------------------------------------------------------------- the table

GSM8K = "openai/gsm8k"
MATH = "EleutherAI/hendrycks_math"
MATH_SUBJECTS: tuple[str, ...] = ("algebra", "counting_and_probability", "geometry", "intermediate_algebra",
                                  "number_theory", "prealgebra", "precalculus")
NATIVE = (("train", "train"), ("test", "test"))
WILDGUARD = HubSource("allenai/wildguardmix", "d29c47f41c8b51348b5c8e8c81c039b3132b66d1", True, "prompt",
                      "prompt_harm_label", (("", "train"),), config="wildguardtrain", gated=True,
                      note="WildGuardTrain only; A.1.3 deduplicates and holds out 20% stratified by label")
PROCESSBENCH = HubSource("Qwen/ProcessBench", "main", False, "problem", "label",
                         tuple(("", s) for s in ("gsm8k", "math", "olympiadbench", "omnimath")),
                         note="its four subsets are pooled, then held out by problem")

HUB_TASK_DEFINITIONS: dict[str, HubTask] = {task.name: task for task in (
    HubTask("harmfulness", "Harmfulness detection", "core", (WILDGUARD,), ("unharmful", "harmful"), "natural",
            "the positive class: prompts WildGuardMix labels harmful", None, "stratified 20%", build_harmfulness),
    HubTask("jailbreak", "Jailbreak detection", "core", (WILDGUARD,), ("vanilla", "adversarial"), "exact",
            "the positive class: adversarially framed harmful prompts", None, "stratified 20%", build_jailbreak,
            truncate_chars=2000, settings={"length_bins": LENGTH_BINS,
                                           "pair_tolerance": tasks.LENGTH_MATCH_TOLERANCE}),
    HubTask("routing", "Routing (MATH vs GSM8K)", "core",
            (HubSource(GSM8K, "main", False, "question", None, NATIVE, config="main"),
             *(HubSource(MATH, "main", False, "problem", None, NATIVE, config=subject,
                         note="a mirror of MATH: the paper names MATH, not a hub id")
               for subject in MATH_SUBJECTS)),
            ("gsm8k", "math"), "exact", "the positive class: MATH problems", None, "native", build_routing,
            drop_longer_chars=1200, settings={"figure_code": "[asy]"}),
    HubTask("math_answer", "Mathematical-answer correctness", "core", (PROCESSBENCH,), ("correct", "wrong"),
            "natural", "the positive class: complete solutions with a wrong final answer", None, "by problem",
            build_math_answer),
    HubTask("math_step", "Mathematical-step correctness", "core", (PROCESSBENCH,), ("correct", "error"),
            "natural", "the positive class: the first erroneous step", None, "by problem", build_math_step,
            max_tokens=1024, settings={"correct_per_solution": 2, "correct_per_error": 2}),
    HubTask("language_id", "Language identification", "core",
            (HubSource("papluca/language-identification", "275fa071de7e246ccb2099eca6fc3723f8959500", True, "text",
                       "labels", NATIVE, note="identified by A.1.3's description: 20 languages from multilingual "
                       "Amazon reviews, XNLI and STSb multi-MT; the later main commit changes only the card"),),
            None, "classes", "all ten of the pool: " + ", ".join(LANGUAGES), len(LANGUAGES), "native",
            build_language_id, truncate_chars=256),
    HubTask("clinc150", "Intent classification (CLINC150)", "core",
            (HubSource("clinc/clinc_oos", "161a65568f7f274a37e586b41e743a85ee8a48aa", True, "text", "intent", NATIVE,
                       config="plus", note="the parquet conversion of the repository (its loading script deleted)"),),
            None, "classes", "20 intents sampled uniformly from the 150 in-scope ones", 20, "native",
            build_clinc150),
    HubTask("banking77", "Banking intent (Banking77)", "core",
            (HubSource("PolyAI/banking77", "refs/convert/parquet", False, "text", "label", NATIVE,
                       note="main holds a loading script, which datasets>=4 no longer runs"),),
            None, "classes", "the ten most frequent intents (training split)", 10, "native", build_banking77,
            min_positive_rate=BANKING_MIN_RATE),
    HubTask("massive", "MASSIVE intent", "additional",
            (HubSource("AmazonScience/massive", "refs/convert/parquet", False, "utt", "intent", NATIVE,
                       data_dir="en-US", note="main holds a loading script, which datasets>=4 no longer runs"),),
            None, "classes", "20 sampled intents", 20, "native", build_massive),
    HubTask("ag_news", "AG News", "additional",
            (HubSource("fancyzhx/ag_news", "main", False, "text", "label", NATIVE),),
            None, "classes", "all four topics", 4, "native", build_ag_news),
    HubTask("emotion", "Emotion", "additional",
            (HubSource("SetFit/emotion", "bdc6920e3ff793779d956d3b56b158e84216dc1d", True, "text", "label_text",
                       NATIVE, note="the commit adding train/validation/test.jsonl; later commits add only a card"),),
            None, "classes", "all six emotions", 6, "native", build_emotion),
    HubTask("twenty_newsgroups", "20 Newsgroups", "additional",
            (HubSource("SetFit/20_newsgroups", "f1b91292074e7cfb69be58b642d583ec262f30ed", True, "text", "label_text",
                       NATIVE),),
            None, "classes", "ten sampled groups", 10, "native", build_twenty_newsgroups),
)}

MISSING_TASKS: dict[str, str] = {
    "pii": "A.1.3 names 'the ai4privacy corpus' but not which of its hub releases (pii-masking-43k … "
           "open-pii-masking-500k, each with its own span schema), so neither the texts nor the masked templates "
           "of the template-disjoint split can be fixed",
    "code_bug": "A.1.3 describes 'defective C functions' but names no source dataset",
    "tool_selection": "A.1.3 describes conversations whose first assistant turn is a function call but names no "
                      "source dataset",
    "sentiment": "A.1.3 says sentiment tasks mark positive reviews but names no source dataset",
    "relevance": "A.1.3 names MS MARCO but not its version (v1.1 or v2.1), which changes the passages",
    "fact_checking": "A.1.3 describes refuted vs supported claims but names no source dataset",
}


def check_hub_task(name: str) -> str:
    """Return ``name`` if it has a hub builder, else raise naming the allowed values (and why a core task has none)."""
    if name in HUB_TASK_DEFINITIONS:
        return name
    why = f" ({name} has no builder: {MISSING_TASKS[name]})" if name in MISSING_TASKS else ""
    raise ValueError(f"task {name!r} is not a hub task{why}; allowed: {', '.join(HUB_TASK_DEFINITIONS)}")


def min_positives(name: str) -> int:
    """The minimum positives per split for ``name``'s decisions (A.1.3): pass it to :meth:`TaskPool.decisions`."""
    return HUB_TASK_DEFINITIONS[check_hub_task(name)].min_positives


def build_hub_pool(name: str, *, cap: int | None = None, seed: int = 0, sources: Sources | None = None,
                   cache_dir: str | Path | None = None) -> TaskPool:
    """The pool of hub task ``name`` (A.1.3): at most ``cap`` texts per split, built with ``seed``.

    ``sources`` maps a hub id to a local folder read in its place (same ``load_dataset`` call);
    ``cache_dir`` is passed to ``datasets`` (its default cache when None).
    """
    return HUB_TASK_DEFINITIONS[check_hub_task(name)].build(cap=cap, seed=seed, sources=sources, cache_dir=cache_dir)
