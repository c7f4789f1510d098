"""The text-side baseline of paper 002 (App. A.2.3) and the prefix score s(k) it is compared on.

TF-IDF features of the raw text (1–2-grams, sublinear tf, at most 30,000 terms, fitted on the
training split) go through the same Algorithm 1 with one seed; as sparse non-negative features they
are scaled without centring (A.1.10's rule for sparse codes). The normalised prefix score
score of Eq. 30 is the running maximum over prefixes j ≤ k of the normalised AUROC
(A_rank(j) − ½)/(C − ½) (re-derived from the prose: "95% of the above-chance AUROC" is 0.95): how much of
the dense probe's signal the top-k features carry, non-decreasing in k. The text ceiling is searched as the
model's common ceiling is (A.1.6: dense probes over the five subsampled seeds, the largest per decision), and
a task whose text ceiling does not clear A.1.6's readability flag is unreadable from text.

:func:`tfidf_learning_curve` and :func:`model_learning_curve` are a diagnostic beside the paper's procedure: the text
side's and the model's dense AUROC at growing training sizes, on the same training subsets and one test split, which
show whether the pools' cap starves either probe (the paper's pools hold up to 10,000 texts, A.1.3);
:func:`gain_by_cap` reads the ceiling gain of A.2.3 with both sides raised.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer

from lib import stats
from lib.kstar import measure
from lib.kstar.evidence import count_noise
from lib.kstar.protocol import counts, splits
from lib.kstar.tasks.tasks import Decision, TaskPool

TEXT_MODEL = "tfidf"  #: the ``model`` label of the text baseline's rows
#: Training sizes of :func:`tfidf_learning_curve` as multiples of the pools' cap (each task up to its pool's size).
CURVE_MULTIPLES = (1, 4, 16)
MEDIAN_ROW = "median over tasks"  #: the ``task`` of :func:`gain_by_cap`'s two closing rows


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


def _curve_subsets(*, tasks: Sequence[str], cap: int, pool_seed: int, max_classes: int, min_positives: int,
                   seed: int) -> Iterator[tuple[str, TaskPool, list[Decision], list[np.ndarray]]]:
    """Per task with a readable decision, of the pools built at the largest cap of :data:`CURVE_MULTIPLES`: the
    pool, its readable decisions and the training rows kept at each size (``cap`` times each multiple, at most the
    pool; :func:`_class_subsample` below it). Every size and both sides of the curve read the pool's one test split."""
    largest = cap * max(CURVE_MULTIPLES)
    for task, pool in measure.pools(tasks, cap=largest, seed=pool_seed, max_classes=max_classes).items():
        decisions = [d for d in pool.decisions(min_positives) if not d.skipped]
        if not decisions:
            continue
        n_pool = len(pool.texts_train)
        sizes = sorted({min(cap * m, n_pool) for m in CURVE_MULTIPLES})
        yield task, pool, decisions, [np.arange(n_pool) if size == n_pool
                                      else _class_subsample(np.asarray(pool.y_train), size, seed) for size in sizes]


def _curve_items(model: str, task: str, decisions: Sequence[Decision], keep: np.ndarray, Z_train: np.ndarray,
                 Z_test: np.ndarray, seed: int, *, centre: bool) -> list[measure.SearchItem]:
    """One dense probe per decision on the training rows ``keep`` (``Z_train`` holds those rows only), labelled with
    ``model`` and the training size ``n_train``."""
    return [measure.SearchItem({"model": model, "task": task, "decision": d.name, "n_train": len(keep)}, Z_train,
                               d.y_train[keep].astype(int), Z_test, d.y_test.astype(int), seed, False, centre=centre,
                               dense_only=True) for d in decisions]


def tfidf_learning_curve(*, tasks: Sequence[str], cap: int, pool_seed: int, max_classes: int, min_positives: int,
                         max_features: int, seed: int = 0, n_jobs: int = 1, scheduler: str = "") -> pd.DataFrame:
    """The text side's dense AUROC (A.2.3's TF-IDF features, refitted on each training subset) at ``cap`` times
    each of :data:`CURVE_MULTIPLES` training texts, at most the task's pool, on the test split of the pool built at
    the largest cap (so every size is scored on the same texts). A diagnostic of how far the cap starves the text
    side, not a step of the paper's procedure. Rows as :func:`lib.kstar.measure.run_searches` with ``n_train``."""
    items = []
    for task, pool, decisions, subsets in _curve_subsets(tasks=tasks, cap=cap, pool_seed=pool_seed,
                                                         max_classes=max_classes, min_positives=min_positives,
                                                         seed=seed):
        for keep in subsets:
            vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, max_features=max_features)
            train = vectorizer.fit_transform([pool.texts_train[i] for i in keep]).tocsr()
            test = vectorizer.transform(pool.texts_test).tocsr()
            items += _curve_items(TEXT_MODEL, task, decisions, keep, train, test, seed, centre=False)
    return measure.run_searches(items, n_jobs, scheduler)


def model_learning_curve(model: str, blocks: Mapping[str, int], *, tasks: Sequence[str], cap: int, pool_seed: int,
                         max_classes: int, min_positives: int, max_tokens: int | None, seed: int = 0, n_jobs: int = 1,
                         scheduler: str = "") -> pd.DataFrame:
    """The model side of :func:`tfidf_learning_curve` on the very same training subsets and test split: the dense
    AUROC of ``model``'s mean-pooled residual stream at each task's block of ``blocks`` (the sweep's best block,
    A.1.6), read in A.1.2's input format; a task without a block (no sweep at the main cap) is passed over. With the
    text side it gives the ceiling gain of A.2.3 with both sides raised (:func:`gain_by_cap`); a diagnostic, not a
    step of the paper's procedure. Rows as :func:`tfidf_learning_curve`'s."""
    items = []
    for task, pool, decisions, subsets in _curve_subsets(tasks=tasks, cap=cap, pool_seed=pool_seed,
                                                         max_classes=max_classes, min_positives=min_positives,
                                                         seed=seed):
        if task not in blocks:
            continue
        states = measure.representations(model, pool, [blocks[task]], ("mean",), max_tokens=max_tokens)["mean"][0]
        n_pool = len(pool.texts_train)
        for keep in subsets:
            items += _curve_items(model, task, decisions, keep, states[:n_pool][keep], states[n_pool:], seed,
                                  centre=True)
    return measure.run_searches(items, n_jobs, scheduler)


def _class_subsample(y: np.ndarray, size: int, seed: int) -> np.ndarray:
    """Sorted rows of ``y`` (any number of classes) keeping each class's share of ``size`` rows (rounded down),
    drawn without replacement by ``default_rng([seed, size])``."""
    rng = np.random.default_rng([seed, size])
    share = size / len(y)
    kept = [rng.choice(np.flatnonzero(y == c), int(share * np.sum(y == c)), replace=False) for c in np.unique(y)]
    return np.sort(np.concatenate(kept))


def learning_curve(rows: pd.DataFrame) -> pd.DataFrame:
    """Per model, task and training size: the median over decisions of the dense AUROC of
    :func:`tfidf_learning_curve`'s or :func:`model_learning_curve`'s rows and of the test-split size ``n_test``, with
    the rise from the task's smallest size (``rise``)."""
    keys = ["model", "task", "n_train"]
    curve = (rows.assign(n_test=rows.n_test_pos + rows.n_test_neg).groupby(keys, sort=False)
             .agg(n_test=("n_test", "median"), auroc=("auroc", "median")).reset_index().sort_values(keys))
    first = curve.groupby(["model", "task"]).auroc.transform("first")
    return curve.assign(rise=curve.auroc - first).reset_index(drop=True)


def gain_by_cap(curve: pd.DataFrame, model: str) -> pd.DataFrame:
    """Per task and training size of :func:`learning_curve` read on both sides: ``model_auroc`` (``model``'s dense
    probe), ``text_auroc`` (TF-IDF's) and ``gain`` = model − text, A.2.3's ceiling gain with both sides fitted on the
    same texts; ``at_cap`` marks each task's smallest size (the pools' cap) and ``at_largest`` its largest (the most
    its pool allows). Two rows :data:`MEDIAN_ROW` close the table, one per end: the medians over tasks of the sizes,
    both AUROCs and the gain there."""
    keys = ["task", "n_train"]
    own = curve[curve.model == model].set_index(keys)[["n_test", "auroc"]].rename(columns={"auroc": "model_auroc"})
    text = curve[curve.model == TEXT_MODEL].set_index(keys).auroc.rename("text_auroc")
    table = own.join(text, how="inner").reset_index().sort_values(keys, ignore_index=True)
    table["gain"] = table.model_auroc - table.text_auroc
    table["at_cap"] = table.n_train.eq(table.groupby("task").n_train.transform("min"))
    table["at_largest"] = table.n_train.eq(table.groupby("task").n_train.transform("max"))
    columns = ["n_train", "n_test", "model_auroc", "text_auroc", "gain"]
    medians = [{"task": MEDIAN_ROW, **table.loc[table[end], columns].median().to_dict(), "at_cap": end == "at_cap",
                "at_largest": end == "at_largest"} for end in ("at_cap", "at_largest")]
    return pd.concat([table, pd.DataFrame(medians, columns=table.columns)], ignore_index=True)


def fixed_split_note(gains: pd.DataFrame, precision: pd.DataFrame) -> str:
    """:func:`lib.kstar.evidence.count_noise.imprecise_note` for the tasks of :func:`gain_by_cap`'s table whose test
    split in the curve is the one at the cap (``precision``: the model's rows of
    :func:`lib.kstar.evidence.count_noise.task_precision`): a pool too small to grow its test split (debate_moderator,
    104 texts) keeps the cap's precision, while a larger pool's curve reads a larger test split."""
    curve_tests = gains[gains.task != MEDIAN_ROW].groupby("task").n_test.max()
    at_cap = precision.set_index("task").n_test
    fixed = [t for t in curve_tests.index if t in at_cap.index and at_cap[t] == curve_tests[t]]
    return count_noise.imprecise_note(precision, fixed)


def _ends(gains: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The per-task rows of :func:`gain_by_cap`'s table at the cap and at the largest size, indexed by task."""
    tasks = gains[gains.task != MEDIAN_ROW].set_index("task")
    return tasks[tasks.at_cap], tasks[tasks.at_largest]


def _median_row(gains: pd.DataFrame, end: str) -> pd.Series:
    """The :data:`MEDIAN_ROW` of :func:`gain_by_cap`'s table at ``end`` (``"at_cap"`` or ``"at_largest"``)."""
    return gains[gains.task.eq(MEDIAN_ROW) & gains[end]].iloc[0]


def _with_note(sentence: str, note: str) -> str:
    """A mechanism's sentence followed by a note on its precision (A.1.8), when there is one."""
    return "; ".join(x for x in (sentence, note) if x)


def starved_gain_mechanism(gains: pd.DataFrame, paper_gain: float, file: str, note: str = "") -> str:
    """Why the median ceiling gain (model − text, A.2.3) lies far from the paper's: a sentence when both sides are
    data-starved at the cap — on :func:`gain_by_cap`'s table, the median gain with both sides raised to the largest
    size each pool allows lies closer to ``paper_gain`` than with both at the cap — citing ``file`` and followed by
    ``note`` (a test split too small to read the gain); "" when it does not."""
    at_cap, at_largest = _ends(gains)
    if at_cap.empty:
        return ""
    small, large = _median_row(gains, "at_cap").gain, _median_row(gains, "at_largest").gain
    if not (np.isfinite(small) and np.isfinite(large)) or abs(large - paper_gain) >= abs(small - paper_gain):
        return ""
    return _with_note(
        f"both sides are data-starved at the pools' cap: with the model's and TF-IDF's dense probes fitted on the same "
        f"{int(at_cap.n_train.median())} training texts the median gain over {len(at_cap)} tasks is {small:.3f}, with "
        f"both raised to {int(at_largest.n_train.min())}–{int(at_largest.n_train.max())} (the most each pool allows) "
        f"it is {large:.3f}, closer to the paper's {paper_gain:.3f}: the text side rises by a median of "
        f"{(at_largest.text_auroc - at_cap.text_auroc).median():.3f}, the model by "
        f"{(at_largest.model_auroc - at_cap.model_auroc).median():.3f} (`{file}`)", note)


def starved_correlation_mechanism(gains: pd.DataFrame, paper_rho: float, file: str, note: str = "") -> str:
    """Why the ceiling correlation (A.2.3) lies far from the paper's: a sentence when the cap reorders the tasks
    unevenly — on :func:`gain_by_cap`'s table, the Spearman correlation of the model's and the text's AUROC with both
    sides at each task's largest size lies closer to ``paper_rho`` than with both at the cap — citing ``file`` and
    followed by ``note``; "" when it does not or below three tasks."""
    at_cap, at_largest = _ends(gains)
    if len(at_cap) < 3:
        return ""
    small = stats.spearman(at_cap.model_auroc, at_cap.text_auroc)
    large = stats.spearman(at_largest.model_auroc, at_largest.text_auroc)
    if not (np.isfinite(small) and np.isfinite(large)) or abs(large - paper_rho) >= abs(small - paper_rho):
        return ""
    rise = at_largest.text_auroc - at_cap.text_auroc
    return _with_note(
        f"the cap starves the text side unevenly: TF-IDF's dense AUROC rises by {rise.min():.3f} ({rise.idxmin()}) "
        f"to {rise.max():.3f} ({rise.idxmax()}) from {int(at_cap.n_train.median())} to up to "
        f"{int(at_largest.n_train.max())} training texts, and with both sides fitted on the same texts the "
        f"correlation of the model's and the text's AUROC over {len(at_cap)} tasks is {small:.3f} at the cap and "
        f"{large:.3f} at the largest size, closer to the paper's {paper_rho:.3f} (`{file}`)", note)
