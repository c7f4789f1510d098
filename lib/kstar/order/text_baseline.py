"""The text-side baseline of paper 002 (App. A.2.3) and the prefix score s(k) it is compared on.

TF-IDF features of the raw text (1–2-grams, sublinear tf, at most 30,000 terms, fitted on the
training split) go through the same Algorithm 1 with one seed; as sparse non-negative features they
are scaled without centring (A.1.10's rule for sparse codes). The normalised prefix score
score of Eq. 30 is the running maximum over prefixes j ≤ k of the normalised AUROC
(A_rank(j) − ½)/(C − ½) (re-derived from the prose: "95% of the above-chance AUROC" is 0.95): how much of
the dense probe's signal the top-k features carry, non-decreasing in k. The text ceiling is searched as the
model's common ceiling is (A.1.6: dense probes over the five subsampled seeds, the largest per decision), and
a task whose text ceiling does not clear A.1.6's readability flag is unreadable from text.

:func:`tfidf_learning_curve` is a diagnostic beside the paper's procedure: the text side's dense AUROC at growing
training sizes on one test split, which shows whether the pools' cap starves the TF-IDF probe (the paper's pools
hold up to 10,000 texts, A.1.3).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer

from lib import stats
from lib.kstar import measure
from lib.kstar.protocol import counts, splits
from lib.kstar.tasks.tasks import TaskPool

TEXT_MODEL = "tfidf"  #: the ``model`` label of the text baseline's rows
#: Training sizes of :func:`tfidf_learning_curve` as multiples of the pools' cap (each task up to its pool's size).
CURVE_MULTIPLES = (1, 4, 16)


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


def tfidf_ceiling_items(task_pools: dict[str, TaskPool], *, max_features: int, min_positives: int,
                        seeds: Sequence[int], subsample: float) -> list[measure.SearchItem]:
    """Dense probes on TF-IDF features for the text ceiling, searched as the model's common ceiling is (A.1.6:
    per seed a stratified ``subsample`` of each training class, the test split fixed)."""
    items = []
    for item in tfidf_items(task_pools, max_features=max_features, min_positives=min_positives):
        for seed in seeds:
            keep = splits.stratified_subsample(item.y_train, subsample, seed=seed)
            items.append(measure.SearchItem(item.labels, item.Z_train[keep], item.y_train[keep], item.Z_test,
                                            item.y_test, int(seed), False, centre=False, dense_only=True))
    return items


def tfidf_ceiling_table(*, tasks: Sequence[str], cap: int, pool_seed: int, max_classes: int, min_positives: int,
                        max_features: int, seeds: Sequence[int], subsample: float, n_jobs: int = 1,
                        scheduler: str = "") -> pd.DataFrame:
    """The text ceiling's dense rows (:func:`tfidf_ceiling_items`) for every decision of the task pools."""
    task_pools = measure.pools(tasks, cap=cap, seed=pool_seed, max_classes=max_classes)
    items = tfidf_ceiling_items(task_pools, max_features=max_features, min_positives=min_positives, seeds=seeds,
                                subsample=subsample)
    return measure.run_searches(items, n_jobs, scheduler)


def near_chance(ceiling: float, se: float, z: float = 1.96) -> bool:
    """Whether a ceiling is indistinguishable from chance: C − ½ ≤ z·s.e. (Hanley–McNeil s.e. at the test sizes,
    A.1.8). Eq. 30 divides by C − ½, so there s(k) is noise (word_valence's text ceiling of 0.507 is the case)."""
    return bool(ceiling - 0.5 <= z * se)


def text_ceilings(rows: pd.DataFrame) -> pd.DataFrame:
    """Per task: the text ceiling (the median over decisions of each decision's largest dense AUROC over seeds,
    as :func:`lib.kstar.protocol.counts.task_ceilings` reads the model's), its median s.e., and ``text_flagged``: the
    ceiling is indistinguishable from chance (:func:`near_chance`), so the task's s(k) is not read (A.2.3).
    The model side's 0.90 readability flag is not applied: the paper's text comparison runs over every task."""
    per_decision = counts.window_ceilings(rows)
    task = per_decision.groupby("task", sort=False).agg(text_ceiling=("ceiling", "median"),
                                                        text_se=("se", "median")).reset_index()
    task["text_flagged"] = [near_chance(c, s) for c, s in zip(task.text_ceiling, task.text_se, strict=True)]
    return task


def tfidf_table(*, tasks: Sequence[str], cap: int, pool_seed: int, max_classes: int, min_positives: int,
                max_features: int, n_jobs: int = 1, scheduler: str = "") -> pd.DataFrame:
    """The text baseline's search rows for every decision of the task pools (``scheduler``: a Dask cluster)."""
    task_pools = measure.pools(tasks, cap=cap, seed=pool_seed, max_classes=max_classes)
    return measure.run_searches(tfidf_items(task_pools, max_features=max_features, min_positives=min_positives),
                                n_jobs, scheduler)


def running_max_score(normalised: pd.Series, keys: pd.DataFrame) -> pd.Series:
    """The prefix score of Eq. 30 (A.2.3): per search (rows grouped by ``keys``, prefixes in size order), the
    running maximum of the normalised AUROC; non-decreasing in k, equal to it where it never falls back."""
    return normalised.groupby([keys[c] for c in keys.columns], sort=False).cummax()


def prefix_scores(rows: pd.DataFrame) -> pd.DataFrame:
    """Per search and ranked prefix: ``s_raw`` = (A_rank(k) − ½)/(C − ½) against that search's dense AUROC, and
    ``s``, the prefix score of Eq. 30 (:func:`running_max_score`), which every reading of s(k) uses."""
    keys = [c for c in ("model", "task", "decision", "pooling", "block", "seed") if c in rows.columns]
    dense = rows[rows.path == "dense"].set_index(keys).auroc.rename("dense")
    prefix = rows[rows.path == "prefix"].join(dense, on=keys).sort_values([*keys, "size"])
    prefix["s_raw"] = (prefix.auroc - 0.5) / (prefix.dense - 0.5)
    prefix["s"] = running_max_score(prefix.s_raw, prefix[keys])
    return prefix[[*keys, "size", "auroc", "dense", "s_raw", "s"]]


def first_and_stable(scores: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Per search: k_first, the smallest prefix whose normalised AUROC ``s_raw`` reaches ``level``, and k_stable,
    the smallest prefix from which every larger one stays ≥ ``level`` (∞ when none); A.2.3 contrasts the two
    on the raw curve (on Eq. 30's running maximum they would coincide)."""
    keys = [c for c in ("model", "task", "decision", "pooling", "block", "seed") if c in scores.columns]
    rows = []
    for labels, cell in scores.groupby(keys, sort=False):
        sizes, passed = cell["size"].to_numpy(), cell.s_raw.to_numpy() >= level
        first = sizes[passed][0] if passed.any() else math.inf
        tail_ok = np.flip(np.logical_and.accumulate(np.flip(passed)))
        stable = sizes[tail_ok][0] if tail_ok.any() else math.inf
        rows.append({**dict(zip(keys, labels, strict=True)), "k_first": float(first), "k_stable": float(stable)})
    return pd.DataFrame(rows)


def task_first_and_stable(searches: pd.DataFrame) -> pd.DataFrame:
    """Per task: k_first and k_stable by the task-level estimator of A.1.7 (Eq. 15: the median over class
    decisions within a seed, then the median over seeds), with ``differs`` where the two disagree; A.2.3 counts
    tasks ("In 14 of the 24 tasks, k_first ≠ k_stable"), so its share is read here, not per decision. An ∞ count
    (never reached) is a value like any other in both medians."""
    seeded = searches if "seed" in searches.columns else searches.assign(seed=0)
    per_seed = seeded.groupby(["task", "seed"], sort=False)[["k_first", "k_stable"]].median()
    task = per_seed.groupby("task", sort=False).median().reset_index()
    return task.assign(differs=task.k_first != task.k_stable)


def task_prefix_scores(scores: pd.DataFrame, ks: Sequence[int]) -> pd.DataFrame:
    """Per model and task: the median over decisions of the prefix score of Eq. 30 at each k of ``ks`` (columns
    ``s_<k>``, what every table, figure and claim reads) and of the raw normalised AUROC beside it
    (``s_raw_<k>``); a k beyond a decision's feature count reads its largest prefix."""
    rows = []
    for (model, task), cell in scores.groupby(["model", "task"], sort=False):
        row = {"model": model, "task": task}
        for k in ks:
            at_k = cell[cell["size"] <= k].groupby("decision").tail(1)
            row[f"s_{k}"] = float(at_k.s.median())
            row[f"s_raw_{k}"] = float(at_k.s_raw.median())
        rows.append(row)
    return pd.DataFrame(rows)


def tfidf_learning_curve(*, tasks: Sequence[str], cap: int, pool_seed: int, max_classes: int, min_positives: int,
                         max_features: int, seed: int = 0, n_jobs: int = 1, scheduler: str = "") -> pd.DataFrame:
    """The text side's dense AUROC (A.2.3's TF-IDF features, refitted on each training subset) at ``cap`` times
    each of :data:`CURVE_MULTIPLES` training texts, at most the task's pool, on the test split of the pool built at
    the largest cap (so every size is scored on the same texts). A diagnostic of how far the cap starves the text
    side, not a step of the paper's procedure. Rows as :func:`lib.kstar.measure.run_searches` with ``n_train``."""
    largest = cap * max(CURVE_MULTIPLES)
    items = []
    for task, pool in measure.pools(tasks, cap=largest, seed=pool_seed, max_classes=max_classes).items():
        n_pool = len(pool.texts_train)
        decisions = [d for d in pool.decisions(min_positives) if not d.skipped]
        for size in sorted({min(cap * m, n_pool) for m in CURVE_MULTIPLES}):
            keep = np.arange(n_pool) if size == n_pool else _class_subsample(np.asarray(pool.y_train), size, seed)
            vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, max_features=max_features)
            train = vectorizer.fit_transform([pool.texts_train[i] for i in keep]).tocsr()
            test = vectorizer.transform(pool.texts_test).tocsr()
            for decision in decisions:
                labels = {"model": TEXT_MODEL, "task": task, "decision": decision.name, "n_train": len(keep)}
                items.append(measure.SearchItem(labels, train, decision.y_train[keep].astype(int), test,
                                                decision.y_test.astype(int), seed, False, centre=False,
                                                dense_only=True))
    return measure.run_searches(items, n_jobs, scheduler)


def _class_subsample(y: np.ndarray, size: int, seed: int) -> np.ndarray:
    """Sorted rows of ``y`` (any number of classes) keeping each class's share of ``size`` rows (rounded down),
    drawn without replacement by ``default_rng([seed, size])``."""
    rng = np.random.default_rng([seed, size])
    share = size / len(y)
    kept = [rng.choice(np.flatnonzero(y == c), int(share * np.sum(y == c)), replace=False) for c in np.unique(y)]
    return np.sort(np.concatenate(kept))


def learning_curve(rows: pd.DataFrame) -> pd.DataFrame:
    """Per task and training size: the median dense AUROC over decisions of :func:`tfidf_learning_curve`'s rows,
    with the rise from the task's smallest size (``rise``)."""
    curve = rows.groupby(["task", "n_train"], sort=False).auroc.median().reset_index().sort_values(["task", "n_train"])
    first = curve.groupby("task").auroc.transform("first")
    return curve.assign(rise=curve.auroc - first).reset_index(drop=True)


def _ends(curve: pd.DataFrame, model_ceilings: pd.Series) -> pd.DataFrame:
    """Per task of both: the model's ceiling and the text side's AUROC at its smallest and largest size."""
    ends = curve.groupby("task").agg(n_small=("n_train", "first"), small=("auroc", "first"),
                                     n_large=("n_train", "last"), large=("auroc", "last"))
    return ends.join(model_ceilings.rename("model"), how="inner")


def starved_gain_mechanism(curve: pd.DataFrame, model_ceilings: pd.Series, gain: float, paper_gain: float,
                           file: str) -> str:
    """Why a median ceiling gain (model − text, A.2.3) lies far from the paper's: a sentence when the text side is
    data-starved at the cap — read against the text at its largest training size, the median gain lies closer to
    ``paper_gain`` than ``gain`` does — citing the learning curve's ``file``; "" when it does not."""
    ends = _ends(curve, model_ceilings)
    if ends.empty or not np.isfinite(gain):
        return ""
    against_large = float((ends.model - ends.large).median())
    if abs(against_large - paper_gain) >= abs(gain - paper_gain):
        return ""
    top = (ends.large - ends.small).idxmax()
    return (f"the text side is data-starved at the pools' cap: TF-IDF's dense AUROC rises by a median of "
            f"{(ends.large - ends.small).median():.3f} over the tasks from {int(ends.n_small.median())} to up to "
            f"{int(ends.n_large.max())} training texts ({top}: {ends.small[top]:.2f} → {ends.large[top]:.2f} at "
            f"{int(ends.n_small[top])} → {int(ends.n_large[top])}; `{file}`), and against the text read at its "
            f"largest size the model's median gain is {against_large:.3f} instead of {gain:.3f}")


def starved_correlation_mechanism(curve: pd.DataFrame, model_ceilings: pd.Series, rho: float, paper_rho: float,
                                  file: str) -> str:
    """Why the ceiling correlation (A.2.3) lies far from the paper's: a sentence when the cap starves the text side
    unevenly across tasks — with the text read at each task's largest training size the Spearman correlation lies
    closer to ``paper_rho`` than ``rho`` does — citing ``file``; "" when it does not."""
    ends = _ends(curve, model_ceilings)
    if len(ends) < 3 or not np.isfinite(rho):
        return ""
    at_large = stats.spearman(ends.model, ends.large)
    if not np.isfinite(at_large) or abs(at_large - paper_rho) >= abs(rho - paper_rho):
        return ""
    rise = ends.large - ends.small
    return (f"the cap starves the text side unevenly: TF-IDF's dense AUROC rises by {rise.min():.3f} "
            f"({rise.idxmin()}) to {rise.max():.3f} ({rise.idxmax()}) from {int(ends.n_small.median())} to up to "
            f"{int(ends.n_large.max())} training texts (`{file}`), which reorders the text ceilings: against the "
            f"text at its largest size the correlation is {at_large:.3f} instead of {rho:.3f}")
