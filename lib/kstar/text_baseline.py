"""The text-side baseline of paper 002 (App. A.2.3) and the prefix score s(k) it is compared on.

TF-IDF features of the raw text (1–2-grams, sublinear tf, at most 30,000 terms, fitted on the
training split) go through the same Algorithm 1 with one seed; as sparse non-negative features they
are scaled without centring (A.1.10's rule for sparse codes). The normalised prefix score
s(k) = (A_rank(k) − ½)/(C − ½) (Eq. 30, re-derived from the prose: "95% of the above-chance
AUROC" is s = 0.95) reads how much of the dense probe's signal the top-k features carry.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer

from lib.kstar import measure
from lib.kstar.tasks import TaskPool

TEXT_MODEL = "tfidf"  #: the ``model`` label of the text baseline's rows


def tfidf_items(task_pools: dict[str, TaskPool], *, max_features: int, min_positives: int,
                seed: int = 0) -> list[measure.SearchItem]:
    """One search per class decision on TF-IDF features of the raw texts (A.2.3: one seed)."""
    items = []
    for task, pool in task_pools.items():
        vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, max_features=max_features)
        train = vectorizer.fit_transform(pool.texts_train).tocsr()
        test = vectorizer.transform(pool.texts_test).tocsr()
        for decision in pool.decisions(min_positives):
            if decision.skipped:
                continue
            labels = {"model": TEXT_MODEL, "task": task, "decision": decision.name, "pooling": "tfidf", "block": 0}
            items.append(measure.SearchItem(labels, train, decision.y_train.astype(int), test,
                                            decision.y_test.astype(int), seed, False, centre=False))
    return items


def tfidf_table(*, tasks: Sequence[str], cap: int, pool_seed: int, max_classes: int, min_positives: int,
                max_features: int, n_jobs: int = 1, scheduler: str = "") -> pd.DataFrame:
    """The text baseline's search rows for every decision of the task pools (``scheduler``: a Dask cluster)."""
    task_pools = measure.pools(tasks, cap=cap, seed=pool_seed, max_classes=max_classes)
    return measure.run_searches(tfidf_items(task_pools, max_features=max_features, min_positives=min_positives),
                                n_jobs, scheduler)


def prefix_scores(rows: pd.DataFrame) -> pd.DataFrame:
    """Per search: s(k) of every ranked prefix against that search's dense AUROC, and its running maximum."""
    keys = [c for c in ("model", "task", "decision", "pooling", "block", "seed") if c in rows.columns]
    dense = rows[rows.path == "dense"].set_index(keys).auroc.rename("dense")
    prefix = rows[rows.path == "prefix"].join(dense, on=keys).sort_values([*keys, "size"])
    prefix["s"] = (prefix.auroc - 0.5) / (prefix.dense - 0.5)
    prefix["s_running_max"] = prefix.groupby(keys, sort=False).s.cummax()
    return prefix[[*keys, "size", "auroc", "dense", "s", "s_running_max"]]


def first_and_stable(scores: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Per search: k_first, the smallest prefix with s(k) ≥ ``level``, and k_stable, the smallest prefix from
    which every larger one stays ≥ ``level`` (∞ when none); A.2.3 contrasts the two."""
    keys = [c for c in ("model", "task", "decision", "pooling", "block", "seed") if c in scores.columns]
    rows = []
    for labels, cell in scores.groupby(keys, sort=False):
        sizes, passed = cell["size"].to_numpy(), cell.s.to_numpy() >= level
        first = sizes[passed][0] if passed.any() else math.inf
        tail_ok = np.flip(np.logical_and.accumulate(np.flip(passed)))
        stable = sizes[tail_ok][0] if tail_ok.any() else math.inf
        rows.append({**dict(zip(keys, labels, strict=True)), "k_first": float(first), "k_stable": float(stable)})
    return pd.DataFrame(rows)


def task_prefix_scores(scores: pd.DataFrame, ks: Sequence[int]) -> pd.DataFrame:
    """Per model and task: the median over decisions of s(k) at each k of ``ks`` (columns ``s_<k>``), the
    running-maximum variant beside it; a k beyond a decision's feature count reads its largest prefix."""
    rows = []
    for (model, task), cell in scores.groupby(["model", "task"], sort=False):
        row = {"model": model, "task": task}
        for k in ks:
            at_k = cell[cell["size"] <= k].groupby("decision").tail(1)
            row[f"s_{k}"] = float(at_k.s.median())
            row[f"smax_{k}"] = float(at_k.s_running_max.median())
        rows.append(row)
    return pd.DataFrame(rows)
