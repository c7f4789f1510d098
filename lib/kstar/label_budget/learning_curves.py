"""Learning curves of paper 002's label budget (App. A.4.1–A.4.2): teachers, runs, requirements, the panel.

A curve is one student × task × label source: for each realized budget n (:func:`label_budget.realized_budgets`)
and seed, an independent LoRA run (:mod:`lib.kstar.label_budget.students`) on a class-stratified draw of n training
texts (Eq. 51), scored against the ground-truth test labels; Ā(n) is the mean test AUROC over the task's class
decisions and seeds. N* (Eq. 55–56) is read off each curve, the panel gate (C_t > 0.90, finite k*,
uncensored N*) selects the rows of Eq. 57, and the shared exponent is fitted by
:func:`label_budget.shared_exponent`.

Label sources (A.4.1, "Label sources"): ``ground_truth``; ``hard_teacher`` (the teacher's predicted class);
``soft_teacher`` (its positive-class probability p, the soft cross-entropy). The teacher is a frozen probe on
the reference model: a class-balanced ℓ2 logistic probe on standardised mean-pooled states at the task's best
block, γ from A.1.4's grid by an inner 5-fold AUROC. Its training-split probabilities are *cross-fitted*
(out of fold): an in-sample probe on a few hundred texts in a few hundred dimensions reproduces the
ground-truth labels, which would make a teacher run a ground-truth run. The paper does not say which it used;
cross-fitting is this companion's choice. Teacher labels are matched to the student's pool text by text
(:func:`align_teacher`) before any run, and teacher runs stratify their draws on the hard labels 1[p > ½].
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from lib import paths, results, stats
from lib.kstar import measure
from lib.kstar.label_budget import label_budget, students
from lib.kstar.protocol import fitscore
from lib.kstar.tasks.tasks import TaskPool

SOURCES = ("ground_truth", "hard_teacher", "soft_teacher")  #: A.4.1, "Label sources"
CURVE = ["student", "task", "source"]


#: The parameters of K01 that fix k*_t and the windows (A.1.3–A.1.6): a logged K01 result is reused only when all agree.
KSTAR_FIELDS = ("tasks", "cap", "max_classes", "pool_seed", "max_tokens", "layers", "sweep_poolings", "seeds",
                "subsample", "frac", "min_positives")


def logged_reference(profile: str, reference: str, k_params: dict) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """(k* table, windows) of ``reference`` from K01's logged results under ``profile`` when they are complete,
    K01 measured ``reference`` and every field of :data:`KSTAR_FIELDS` equals ``k_params``; else None (recompute)."""
    folder = paths.results_dir(profile, "K01_kstar")
    try:
        manifests = [results.read_manifest(folder / f"{name}.parquet") for name in ("kstar", "windows")]
    except results.IncompleteResultError:
        return None
    for logged in (m["params"] for m in manifests):
        if reference not in logged.get("models", []) or any(
                results.to_json(logged.get(f)) != results.to_json(k_params[f]) for f in KSTAR_FIELDS):
            return None
    kstar, windows = (results.load_table(folder / f"{name}.parquet") for name in ("kstar", "windows"))
    return (kstar[kstar.model == reference].reset_index(drop=True),
            windows[windows.model == reference].reset_index(drop=True))


def text_hashes(texts: Sequence[str]) -> list[str]:
    """SHA-256 (16 hex digits) of every text: what the teacher table carries to be aligned text by text."""
    return [hashlib.sha256(t.encode()).hexdigest()[:16] for t in texts]


def _teacher_probe(seed: int) -> GridSearchCV:
    """Standardise, then a class-balanced ℓ2 logistic probe (LIBLINEAR), γ from A.1.4's grid by inner 5-fold AUROC."""
    probe = make_pipeline(StandardScaler(), LogisticRegression(solver="liblinear", class_weight="balanced",
                                                               max_iter=fitscore.MAX_ITER, random_state=seed))
    return GridSearchCV(probe, {"logisticregression__C": list(fitscore.GAMMAS)}, scoring="roc_auc",
                        cv=StratifiedKFold(5, shuffle=True, random_state=seed))


def teacher_table(reference: str, pool: TaskPool, decisions: Sequence[str], block: int, *, max_tokens: int | None,
                  folds: int = 5, seed: int = 0) -> pd.DataFrame:
    """One row per training text and decision: the text's hash, its ground-truth label, the teacher's cross-fitted
    P(positive) and the teacher's test AUROC (the probe refitted on the whole training split)."""
    if folds < 2:
        raise ValueError(f"folds={folds!r}; allowed: >= 2")
    states = measure.representations(reference, pool, [block], ("mean",), max_tokens=max_tokens)["mean"][0]
    n_train = len(pool.texts_train)
    by_name = {d.name: d for d in pool.decisions(1)}
    rows = []
    for name in decisions:
        if name not in by_name:
            raise ValueError(f"decision={name!r} is not a decision of {pool.name}; allowed: {', '.join(by_name)}")
        y_train, y_test = by_name[name].y_train.astype(int), by_name[name].y_test.astype(int)
        outer = StratifiedKFold(folds, shuffle=True, random_state=seed)
        p = cross_val_predict(_teacher_probe(seed), states[:n_train], y_train, cv=outer, method="predict_proba")[:, 1]
        fitted = _teacher_probe(seed).fit(states[:n_train], y_train)
        test_auroc = float(stats.auroc(y_test, fitted.decision_function(states[n_train:])))
        rows.append(pd.DataFrame({"task": pool.name, "decision": name, "text_hash": text_hashes(pool.texts_train),
                                  "y": y_train, "p": p, "teacher_test_auroc": test_auroc}))
    return pd.concat(rows, ignore_index=True)


def align_teacher(teacher: pd.DataFrame, texts: Sequence[str]) -> np.ndarray:
    """The teacher's P(positive) for ``texts`` in their order; a text the teacher did not label, a repeated
    text, or a teacher table of another length stops here (A.4.1: teacher labels align text by text)."""
    hashes = text_hashes(texts)
    if len(teacher) != len(hashes) or teacher.text_hash.duplicated().any():
        raise ValueError(f"the teacher table holds {len(teacher)} texts ({int(teacher.text_hash.duplicated().sum())} "
                         f"repeated) for a pool of {len(hashes)}; allowed: one label per training text")
    p = teacher.set_index("text_hash").p.reindex(hashes)
    if p.isna().any():
        missing = int(p.isna().sum())
        raise ValueError(f"{missing} training texts have no teacher label; allowed: a teacher table of this pool")
    return p.to_numpy(dtype=float)


def source_targets(source: str, y: np.ndarray, p: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(targets P(positive), stratification labels) of one label source (A.4.1, "Label sources")."""
    if source not in SOURCES:
        raise ValueError(f"source={source!r}; allowed: {', '.join(SOURCES)}")
    if source == "ground_truth":
        return y.astype(float), y.astype(int)
    if p is None:
        raise ValueError(f"source={source!r} needs teacher probabilities")
    hard = (p > 0.5).astype(int)
    return (hard.astype(float) if source == "hard_teacher" else p.astype(float)), hard


def run_decisions(pool: TaskPool, min_positives: int, max_decisions: int) -> list:
    """The class decisions a task's curves average over: the first ``max_decisions`` evaluated ones (A.4.1, "Data":
    up to three per multiclass task)."""
    if max_decisions < 1:
        raise ValueError(f"max_decisions={max_decisions!r}; allowed: >= 1")
    return [d for d in pool.decisions(min_positives) if not d.skipped][:max_decisions]


def curve_table(student: str, *, tasks: Sequence[str], cap: int, pool_seed: int, max_classes: int,
                min_positives: int, max_decisions: int, budgets: Sequence[int], seeds: Sequence[int],
                max_tokens: int | None, rank: int, alpha: float, dropout: float, lr: float, max_epochs: int,
                teacher_tasks: Sequence[str] = (), reference: str | None = None,
                teacher_blocks: dict[str, int] | None = None, probe_max_tokens: int | None = None,
                teacher_folds: int = 5) -> pd.DataFrame:
    """Every run of one student as tidy rows: task, decision, source, seed, n, epochs, test AUROC, losses, tokens
    and seconds. Ground truth on every task; both teacher sources on ``teacher_tasks`` (teacher: ``reference``
    read at ``teacher_blocks[task]``). Epochs: min(Eq. of A.4.1, ``max_epochs``)."""
    settings = students.LoraSettings(rank, alpha, dropout, lr)
    if not set(teacher_tasks) <= set(tasks):
        raise ValueError(f"teacher_tasks={list(teacher_tasks)!r}; allowed: a subset of tasks {list(tasks)!r}")
    if teacher_tasks and (reference is None or not set(teacher_tasks) <= set(teacher_blocks or {})):
        raise ValueError("teacher runs need the reference model and a block per teacher task")
    rows = []
    for task, pool in measure.pools(tasks, cap=cap, seed=pool_seed, max_classes=max_classes).items():
        decisions = run_decisions(pool, min_positives, max_decisions)
        teacher = (teacher_table(reference, pool, [d.name for d in decisions], teacher_blocks[task],
                                 max_tokens=probe_max_tokens, folds=teacher_folds)
                   if task in teacher_tasks else None)
        for decision in decisions:
            p = None if teacher is None else align_teacher(teacher[teacher.decision == decision.name],
                                                           pool.texts_train)
            for source in SOURCES if teacher is not None else SOURCES[:1]:
                targets, strata = source_targets(source, decision.y_train, p)
                for n in label_budget.realized_budgets(budgets, len(pool.texts_train)):
                    for seed in seeds:
                        keep = label_budget.stratified_budget(strata, n, seed)
                        epochs = min(label_budget.epochs_for_budget(n), max_epochs)
                        result = students.run(student, [pool.texts_train[i] for i in keep], targets[keep],
                                              pool.texts_test, decision.y_test, epochs=epochs, seed=int(seed),
                                              settings=settings, max_tokens=max_tokens)
                        log = result.log
                        rows.append({"student": student, "task": task, "decision": decision.name, "source": source,
                                     "seed": int(seed), "n": n, "n_positive": result.n_positive, "epochs": epochs,
                                     "auroc": result.auroc, "loss_first": log.epoch_losses[0],
                                     "loss_last": log.epoch_losses[-1], "steps": log.steps, "tokens": log.tokens,
                                     "seconds": log.seconds})
    return pd.DataFrame(rows)


def curves(runs: pd.DataFrame) -> pd.DataFrame:
    """Ā(n) per student × task × source: the mean test AUROC over class decisions and seeds, and how many runs."""
    return (runs.groupby([*CURVE, "n"], sort=False).agg(auroc=("auroc", "mean"), runs=("auroc", "size"))
            .reset_index().sort_values([*CURVE, "n"], kind="stable", ignore_index=True))


def requirements(curve_rows: pd.DataFrame, kstar: pd.DataFrame, gate: float = 0.90) -> pd.DataFrame:
    """N* of every curve under both references (Eq. 55–56; "endpoint" primary, "max" the running-maximum
    variant), joined with the reference model's k*_t and C_t (``kstar``: task, kstar, ceiling) and the panel
    flag of Eq. 57 (:func:`label_budget.in_panel`)."""
    reference = kstar.set_index("task")
    rows = []
    for (student, task, source), cell in curve_rows.groupby(CURVE, sort=False):
        k = float(reference.kstar.get(task, math.nan))
        c = float(reference.ceiling.get(task, math.nan))
        for ref in label_budget.REFERENCES:
            if len(cell) < 2:
                req = label_budget.Requirement(math.nan, False, math.nan, "fewer than two budgets")
            else:
                req = label_budget.n_star(cell.n.to_numpy(), cell.auroc.to_numpy(), ref)
            rows.append({"student": student, "task": task, "source": source, "reference": ref, "kstar": k,
                         "ceiling": c, "n_star": req.value, "censored": req.censored, "threshold": req.threshold,
                         "first_budget": float(cell.n.min()), "last_budget": float(cell.n.max()),
                         "endpoint": float(cell.auroc.iloc[-1]),
                         "reason": req.reason, "in_panel": label_budget.in_panel(c, k, req, gate)})
    return pd.DataFrame(rows)


def exponent(requirement_rows: pd.DataFrame, *, n_boot: int, seed: int) -> dict:
    """Eq. 57 on the panel rows: b, its task-bootstrap interval, the separate slopes and the number of
    observations; NaN with the reason when the panel has fewer than three rows or no within-student variation."""
    panel = requirement_rows[requirement_rows.in_panel]
    empty = {"b": math.nan, "low": math.nan, "high": math.nan, "n_obs": len(panel),
             "n_students": panel.student.nunique(), "n_tasks": panel.task.nunique(),
             "slopes": {}, "intercepts": {}, "n_boot_used": 0, "reason": ""}
    try:
        fit = label_budget.shared_exponent(panel.n_star, panel.kstar, panel.student, panel.task, n_boot=n_boot,
                                           seed=seed)
    except ValueError as err:  # too small a panel or no within-student variation: reported, not fitted
        return {**empty, "reason": str(err)}
    return {**empty, "b": fit.b, "low": fit.interval[0], "high": fit.interval[1], "slopes": fit.slopes,
            "intercepts": fit.intercepts, "n_boot_used": fit.n_boot_used}


def censored_at_low_counts(requirement_rows: pd.DataFrame, low: float = 2, gate: float = 0.90) -> tuple[int, int]:
    """(censored cells with k* ≤ ``low``, censored cells) among the gated pairs (C_t > ``gate``, 0 < k* < ∞), the
    count behind A.4.2's "Eighteen of the 19 censored cells occur at k* ≤ 2"."""
    gated = requirement_rows[(requirement_rows.ceiling > gate) & np.isfinite(requirement_rows.kstar)
                             & (requirement_rows.kstar > 0) & requirement_rows.censored]
    return int((gated.kstar <= low).sum()), len(gated)


def teacher_summary(teacher: pd.DataFrame) -> pd.DataFrame:
    """Per teacher task and decision: the teacher's test AUROC (ground-truth labels), the cross-fitted training
    AUROC, the share of training texts whose hard teacher label equals the ground truth, and its positive share."""
    rows = []
    for (task, decision), cell in teacher.groupby(["task", "decision"], sort=False):
        rows.append({"task": task, "decision": decision, "teacher_test_auroc": float(cell.teacher_test_auroc.iloc[0]),
                     "train_auroc_cross_fitted": float(stats.auroc(cell.y, cell.p)),
                     "hard_label_agreement": float(((cell.p > 0.5) == cell.y.astype(bool)).mean()),
                     "hard_positive_share": float((cell.p > 0.5).mean()), "n_train": len(cell)})
    return pd.DataFrame(rows)


def speed(runs: pd.DataFrame) -> pd.DataFrame:
    """Per student: runs, training examples (n × epochs), real tokens, training seconds, tokens/s and examples/s
    (scoring the test split is not counted)."""
    frame = runs.assign(examples=runs.n * runs.epochs)
    out = frame.groupby("student", sort=False).agg(runs=("auroc", "size"), examples=("examples", "sum"),
                                                   tokens=("tokens", "sum"), seconds=("seconds", "sum")).reset_index()
    return out.assign(tokens_per_s=out.tokens / out.seconds, examples_per_s=out.examples / out.seconds)


def gated_share_at_low_counts(requirement_rows: pd.DataFrame, low: float = 2, gate: float = 0.90) -> float:
    """Share of the gated pairs (C_t > ``gate``, 0 < k* < ∞), censored or not, at k* ≤ ``low``: how often a
    censored cell would lie at k* ≤ ``low`` if censoring did not depend on k* (the null of A.4.2's "Eighteen of
    the 19 censored cells occur at k* ≤ 2"); NaN without a gated pair."""
    gated = requirement_rows[(requirement_rows.ceiling > gate) & np.isfinite(requirement_rows.kstar)
                             & (requirement_rows.kstar > 0)]
    return float((gated.kstar <= low).mean()) if len(gated) else math.nan


def panel_residual_sd(panel: pd.DataFrame) -> float:
    """Eq. 57's residual s.d. on the panel rows (:func:`label_budget.residual_sd`); NaN below three rows or
    without a residual degree of freedom."""
    if len(panel) < 3:
        return math.nan
    return label_budget.residual_sd(panel.n_star, panel.kstar, panel.student, panel.task)


def exponent_not_measured(fit: dict, sigma: float) -> str:
    """Why Eq. 57's exponent cannot be tested on this panel ("" when it can): too few points, no within-student
    spread of k*, too few tasks for the task bootstrap's interval (the s.e. of b), or no residual degree of
    freedom for the residual s.d. the power simulation draws from. ``fit``: :func:`exponent`'s dict."""
    if fit["n_obs"] < 3:
        return (f"the panel holds {fit['n_obs']} gated, uncensored (k*, N*) pair(s); Eq. 57 needs at least three, "
                "so b is not fitted")
    if math.isnan(fit["b"]):
        return "no student has two tasks of distinct k* in the panel, so b is not identified (Proposition 8)"
    if fit["n_tasks"] < label_budget.MIN_BOOTSTRAP_TASKS:
        return (f"the panel spans {fit['n_tasks']} task(s); the task bootstrap needs "
                f"{label_budget.MIN_BOOTSTRAP_TASKS} to give b an interval, so its s.e. is unknown")
    if not (math.isfinite(fit["low"]) and math.isfinite(fit["high"])):
        return ("no task-bootstrap replicate kept two distinct k* within a student, so b has no interval and its s.e. "
                "is unknown")
    if not math.isfinite(sigma):
        return (f"the panel's {fit['n_obs']} points leave no residual degree of freedom after b and "
                f"{fit['n_students']} student intercepts, so the residual s.d. the power simulation draws from is "
                "undefined")
    return ""


def grid_mechanism(panel: pd.DataFrame, b_hat: float, b_paper: float, file: str) -> str:
    """Why a fitted exponent below the paper's can come from the budget grid ("" where it cannot): an uncensored
    N* lies in (first, last budget] (A.4, "Remark (existence and bracketing)"), so when ``b_paper`` across the
    panel's k* span needs more decades of N* than the grid spans (:func:`label_budget.grid_limit`), the grid
    cannot show the paper's exponent. ``file``: the logged table the numbers come from."""
    if not len(panel) or not b_hat < b_paper:
        return ""
    first, last = float(panel.first_budget.min()), float(panel.last_budget.max())
    needed, spanned = label_budget.grid_limit(panel.kstar, first, last, b_paper)
    if not needed > spanned:
        return ""
    return (f"N* is read on budgets {first:g} to {last:g}, {spanned:.2f} decades, and an uncensored N* lies in "
            f"(first, last budget]; b = {b_paper:g} across the panel's k* span {panel.kstar.min():g} to "
            f"{panel.kstar.max():g} would move N* by {needed:.2f} decades, more than the grid can show ({file})")
