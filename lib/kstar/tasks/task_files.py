"""A task pool from your own file (paper 002, App. A.1.3): CSV, JSONL or Parquet with ``text,label[,split,group]``.

The file becomes the same :class:`lib.kstar.tasks.tasks.TaskPool` the catalogue builds, by the catalogue's own steps:

1. exact duplicates go, and a text carrying two labels goes altogether (:func:`tasks.drop_duplicates`);
2. ``split`` given ("train" / "test"): kept as is. Absent: a seeded 20% hold-out (:func:`tasks.grouped_holdout`)
   by ``group`` when the file has one — whole groups (templates, problems, sources) go to one side, so no
   group straddles the split — else by text, which gives an exactly stratified split;
3. cross-split near-duplicates go, as in every pool (:func:`tasks.drop_near_duplicates`: the test copy of a text at
   character 5-gram TF-IDF cosine >= 0.9 to a training text);
4. ``cap``: at most that many texts per split, stratified (the catalogue's :func:`tasks.balance_and_cap`; no balancing:
   the file's class ratio stays, as for harmfulness in A.1.3);
5. two classes: one decision, the positive class ``positive`` (default: "1", "true" or "yes" when the labels
   are such a pair, else the second in sorted order); more: one-vs-rest per evaluated class (all, or a seeded
   subset of ``max_classes``), each decision evaluated only with :data:`tasks.MIN_POSITIVES` positives and
   negatives per split (:meth:`TaskPool.decisions`);
6. the surface-cue audit per decision with the catalogue's one exclusion rule (:mod:`lib.kstar.tasks.cues`): a decision
   a surface cue reads at AUROC >= 0.95 is returned skipped with the cue named.

:func:`check_pool` then refuses, naming the problem, a split with one class and a pool with no measurable
decision — before any model is loaded.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from lib import results
from lib.kstar.protocol.algorithm import decision_problem
from lib.kstar.protocol.splits import SUBSAMPLE_FRAC
from lib.kstar.tasks import cues, tasks
from lib.kstar.tasks.tasks import MAX_CLASSES, MIN_POSITIVES, TEST_FRACTION, TaskPool

REQUIRED = ("text", "label")
OPTIONAL = ("split", "group")
SUFFIXES = (".csv", ".jsonl", ".parquet")
SPLITS = ("train", "test")
_POSITIVE_NAMES = ("1", "true", "yes", "pos", "positive")


def read_table(path: str | Path) -> pd.DataFrame:
    """The file's rows with columns text, label (strings) and split, group where present; ValueError otherwise."""
    path = Path(path)
    if path.suffix.lower() not in SUFFIXES:
        raise ValueError(f"task file {str(path)!r} has the suffix {path.suffix!r}; allowed: {', '.join(SUFFIXES)}")
    if not path.is_file():
        raise ValueError(f"task file {str(path)!r} does not exist")
    try:
        if path.suffix.lower() == ".csv":
            frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        elif path.suffix.lower() == ".jsonl":
            frame = pd.read_json(path, lines=True, dtype=False)
        else:
            frame = pd.read_parquet(path)
    except (ValueError, OSError, pd.errors.ParserError) as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ValueError(f"task file {str(path)!r} could not be read as {path.suffix[1:]}: {first}") from None
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise ValueError(f"task file {str(path)!r} lacks the column(s) {', '.join(missing)}; it has "
                         f"{', '.join(map(str, frame.columns)) or 'none'}; required: text,label[,split,group]")
    frame = frame[[c for c in (*REQUIRED, *OPTIONAL) if c in frame.columns]].copy()
    for column in frame.columns:
        blank = frame[column].isna() | (frame[column].astype(str).str.strip() == "")
        if column != "text" and blank.any():
            raise ValueError(f"task file {str(path)!r}: {int(blank.sum())} rows have no {column} "
                             f"(first: row {int(np.flatnonzero(blank.to_numpy())[0]) + 1})")
        frame[column] = frame[column].where(~blank, "").astype(str)
    if "split" in frame:
        frame["split"] = frame.split.str.strip().str.lower()
        bad = sorted(set(frame.split) - set(SPLITS))
        if bad:
            raise ValueError(f"task file {str(path)!r}: split holds {bad}; allowed: {', '.join(SPLITS)}")
    if frame.empty:
        raise ValueError(f"task file {str(path)!r} holds no rows")
    return frame


def _positive(classes: list[str], positive: str | None) -> str:
    if positive is not None:
        if positive not in classes:
            raise ValueError(f"positive={positive!r} is not a label of the file; allowed: {', '.join(classes)}")
        return positive
    named = [c for c in classes if c.strip().lower() in _POSITIVE_NAMES]
    return named[0] if len(named) == 1 else classes[1]


def load_task(path: str | Path, *, seed: int = 0, cap: int | None = None, max_classes: int = MAX_CLASSES,
              positive: str | None = None, test_fraction: float = TEST_FRACTION, name: str | None = None) -> TaskPool:
    """The :class:`TaskPool` of a task file (A.1.3); ``seed`` draws the hold-out, the cap and the class subset."""
    if cap is not None and (int(cap) != cap or cap < 2):
        raise ValueError(f"cap={cap!r}; allowed: an integer >= 2 or None")
    if int(max_classes) != max_classes or max_classes < 1:
        raise ValueError(f"max_classes={max_classes!r}; allowed: an integer >= 1")
    if not 0.0 < test_fraction < 1.0:
        raise ValueError(f"test_fraction={test_fraction!r}; allowed: (0, 1)")
    path = Path(path)
    frame = read_table(path)
    given_split, given_group = "split" in frame, "group" in frame
    rng = np.random.default_rng(seed)
    frame = frame.assign(split=frame.split if given_split else "",
                         group=frame.group if given_group else [f"row{i}" for i in range(len(frame))])
    counts: dict[str, int] = {"source_texts": len(frame)}
    frame, dropped = tasks.drop_duplicates(frame)
    counts.update(dropped)
    if not given_split:
        test = tasks.grouped_holdout(frame.label.to_numpy(), frame.group.to_numpy(), rng, test_fraction)
        frame = frame.assign(split=np.where(test, "test", "train"))
    elif given_group:
        shared = set(frame.group[frame.split == "train"]) & set(frame.group[frame.split == "test"])
        counts["groups_in_both_splits"] = len(shared)
    frame, counts["near_duplicates_dropped"] = tasks.drop_near_duplicates(frame)
    classes = sorted(frame.label.unique())
    if len(classes) < 2:
        raise ValueError(f"task file {str(path)!r} holds one label ({classes[0]!r}); a task needs at least two")
    if len(classes) == 2:
        pos = _positive(classes, positive)
        classes = [c for c in classes if c != pos] + [pos]
        evaluated = (pos,)
    else:
        if positive is not None:
            raise ValueError(f"positive={positive!r} applies to two labels; the file has {len(classes)} "
                             "(one-vs-rest decisions for each)")
        evaluated = tuple(classes) if len(classes) <= max_classes else tuple(
            sorted(rng.choice(np.array(classes), size=max_classes, replace=False).tolist()))
    frame = frame.assign(priority=rng.permutation(len(frame)))
    parts = {}
    for split in SPLITS:
        rows = frame[frame.split == split]
        counts[f"{split}_before_cap"] = len(rows)
        # Not balanced: the file's ratio stays; a binary pool is capped with both classes "evaluated" (stratified).
        kept = tasks.balance_and_cap(rows, False, tuple(classes) if len(evaluated) == 1 else evaluated, cap)
        parts[split] = kept.sort_values("priority", kind="stable")
    index = {c: i for i, c in enumerate(classes)}
    train, test = parts["train"], parts["test"]
    y_train, y_test = train.label.map(index).to_numpy(int), test.label.map(index).to_numpy(int)
    cue = {c: tasks.length_auroc(train.text, y_train == index[c], test.text, y_test == index[c]) for c in evaluated}
    source = f"{path.name} (sha256 {results.sha256_file(path)[:12]})"
    pool = TaskPool(name=name or path.stem, texts_train=tuple(train.text), y_train=y_train,
                    texts_test=tuple(test.text), y_test=y_test, classes=tuple(classes), evaluated=evaluated,
                    groups_train=train.group.to_numpy(str), groups_test=test.group.to_numpy(str), length_auroc=cue,
                    source=source, cap=cap, seed=seed, counts=counts)
    return replace(pool, cue_auroc=cues.audit_pool(pool))  # the exclusion rule of every task (lib.kstar.tasks.cues)


def check_pool(pool: TaskPool, min_positives: int = MIN_POSITIVES,
               subsample: float = SUBSAMPLE_FRAC) -> tuple[list[tasks.Decision], list[tasks.Decision]]:
    """(measurable, skipped) decisions of ``pool``; ValueError for a split holding one class or no measurable
    decision (A.1.3's minimum of ``min_positives``; the seeds' subsample needs a few more, see
    :func:`lib.kstar.protocol.algorithm.decision_problem`). A skipped decision's reason is in ``skipped``."""
    for split, y in (("train", pool.y_train), ("test", pool.y_test)):
        present = sorted({pool.classes[i] for i in np.unique(y)})
        if len(present) < 2:
            held = f"only the class {present[0]!r}" if present else "no texts"
            raise ValueError(f"the {split} split of {pool.name!r} holds {held} ({len(y)} texts); "
                             "both splits need texts of at least two classes")
    measurable, skipped = [], []
    for decision in pool.decisions(min_positives):
        reason = decision.skipped or decision_problem(decision.y_train, decision.y_test, min_positives, subsample)
        if reason is None:
            measurable.append(decision)
        else:
            skipped.append(tasks.Decision(name=decision.name, y_train=decision.y_train, y_test=decision.y_test,
                                          skipped=reason))
    if not measurable:
        reasons = "; ".join(f"{d.name}: {d.skipped}" for d in skipped)
        raise ValueError(f"too few positives: no class decision of {pool.name!r} can be measured ({reasons})")
    return measurable, skipped
