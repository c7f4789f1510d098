"""The label budget of paper 002 (App. A.4): stratified budgets, epochs, the requirement N* and the shared exponent.

Mathematics only: the learning curves themselves (LoRA students, A.4.1 Table 41) are not trained here.
Equations 51, 52 (epochs), 55–57 were lost in extraction; each function says what it reconstructs from
the surrounding text ("Data", "Procedure", the remarks on existence, bracketing and censoring, and the
proof of Proposition 8).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import statsmodels.api as sm

THRESHOLD_SHARE = 0.05  #: Eq. 55: τ = Ā(n_J) − 0.05·(Ā(n_J) − ½)
REFERENCES = ("endpoint", "max")  #: A.4, "Remark (reference point)": the endpoint (primary) or the running maximum
SEPARATE_SLOPE_SPAN = (0.454, 0.700)  #: A.4.2, Proposition 8: the smallest and the largest separate slope (Table 43)
#: A.4.2 and its "Remark (reference point)": the shared exponent b against each reference of N*
PAPER_EXPONENT = {"endpoint": 0.65, "max": 0.63}
PAPER_CENSORED_AT_LOW = 18 / 19  #: A.4.2, "Censoring": "Eighteen of the 19 censored cells occur at k* ≤ 2"


def class_counts(n: int, n_pos: int, n_neg: int) -> tuple[int, int]:
    """Eq. 51 (reconstructed): positives and negatives drawn for a requested budget ``n`` from a training
    split of ``n_pos`` + ``n_neg`` texts. With n̄ = min(n, n_tr) and π = n_pos / n_tr, n₊ = round(π·n̄)
    (half up), clamped to [1, n̄ − 1] so both classes are present, and n₋ = n̄ − n₊: the pool's class ratio
    up to rounding. Both never exceed their class (n̄ ≤ n_tr). Rounding half up and the clamp are choices."""
    for name, value in (("n", n), ("n_pos", n_pos), ("n_neg", n_neg)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{name}={value!r}; allowed: an integer")
    if n_pos < 1 or n_neg < 1:
        raise ValueError(f"n_pos={n_pos}, n_neg={n_neg}; allowed: at least one text of each class")
    if n < 2:
        raise ValueError(f"n={n}; allowed: >= 2 (both classes must be present)")
    n_bar = min(n, n_pos + n_neg)
    positives = min(max(1, math.floor(n_pos / (n_pos + n_neg) * n_bar + 0.5)), n_bar - 1)
    return positives, n_bar - positives


def stratified_budget(y: Sequence[int], n: int, seed: int) -> np.ndarray:
    """Eq. 51: indices (sorted) of a class-stratified draw without replacement of a budget ``n`` from the
    binary labels ``y``; a budget above the pool size maps to the full pool."""
    y = np.asarray(y)
    if y.ndim != 1 or not np.isin(y, (0, 1)).all():
        raise ValueError(f"y has values {sorted(set(np.unique(y).tolist()) - {0, 1})[:5]}; allowed: 1-d labels 0/1")
    positives, negatives = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    n_pos, n_neg = class_counts(n, len(positives), len(negatives))
    rng = np.random.default_rng(seed)
    return np.sort(np.concatenate([rng.choice(positives, n_pos, replace=False),
                                   rng.choice(negatives, n_neg, replace=False)]))


def realized_budgets(budgets: Sequence[int], n_train: int) -> list[int]:
    """A.4.1, "Data": requested budgets mapped to realized sizes min(n, n_tr), those that coincide collapsed
    (a curve is keyed by the labels the student received)."""
    if n_train < 2:
        raise ValueError(f"n_train={n_train}; allowed: >= 2")
    if any(isinstance(b, bool) or int(b) != b or b < 2 for b in budgets):
        raise ValueError(f"budgets={list(budgets)!r}; allowed: integers >= 2")
    return sorted({min(int(b), n_train) for b in budgets})


def epochs_for_budget(n: int) -> int:
    """Epochs for a realized training size n (A.4.1, "Procedure"; the equation was lost): reconstructed as
    min(50, max(3, ⌈800 / n⌉)) — 800 = 50 epochs × 16 labels — from the two stated points, 50 epochs at
    16 labels and 3 at 4096. Other formulas pass through both points; this one is a reconstruction."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n={n!r}; allowed: an integer >= 1")
    return min(50, max(3, math.ceil(800 / n)))


@dataclass(frozen=True)
class Requirement:
    """N* of one curve (Eq. 55–56): the value, whether it is left-censored (then only N* ≤ value is known),
    the threshold τ, and why it is NaN when it is."""

    value: float
    censored: bool
    threshold: float
    reason: str = ""


def n_star(budgets: Sequence[float], aurocs: Sequence[float], reference: str = "endpoint") -> Requirement:
    """Eq. 55–56 (reconstructed from A.4, "Remark (existence and bracketing)"): the labels a learning curve
    needs to come within 5% of its reference's distance from chance.

    τ = A_ref − 0.05·(A_ref − ½) with A_ref = Ā(n_J) (endpoint, primary) or max_j Ā(n_j) ("max", the
    running-maximum sensitivity). The first crossing j is the first budget with Ā(n_j) ≥ τ; at j = 1 the
    value is left-censored (N* ≤ n₁); otherwise w = (τ − Ā(n_{j−1})) / (Ā(n_j) − Ā(n_{j−1})) ∈ (0, 1] and
    N* = n_{j−1}·(n_j / n_{j−1})^w, geometric interpolation in the half-open bracket (n_{j−1}, n_j].
    A reference AUROC ≤ ½ gives NaN with the reason (no threshold above chance).
    """
    if reference not in REFERENCES:
        raise ValueError(f"reference={reference!r}; allowed: {', '.join(REFERENCES)}")
    n, a = np.asarray(budgets, dtype=float), np.asarray(aurocs, dtype=float)
    if n.ndim != 1 or a.shape != n.shape or len(n) < 2:
        raise ValueError(f"budgets and aurocs have {n.size} and {a.size} points; allowed: equal lengths >= 2")
    if not (np.isfinite(n).all() and (n > 0).all() and (np.diff(n) > 0).all()):
        raise ValueError(f"budgets={n.tolist()}; allowed: finite, > 0, strictly increasing")
    if not (np.isfinite(a).all() and ((a >= 0) & (a <= 1)).all()):
        raise ValueError(f"aurocs={a.tolist()}; allowed: finite values in [0, 1]")
    ref = a[-1] if reference == "endpoint" else a.max()
    if ref <= 0.5:
        return Requirement(math.nan, False, math.nan, f"{reference} AUROC {ref:.4f} <= 0.5: no threshold above chance")
    tau = ref - THRESHOLD_SHARE * (ref - 0.5)
    j = int(np.argmax(a >= tau))  # exists: the reference point itself reaches τ
    if j == 0:
        return Requirement(float(n[0]), True, tau, "left-censored: the first budget already reaches τ")
    w = (tau - a[j - 1]) / (a[j] - a[j - 1])
    return Requirement(float(n[j - 1] * (n[j] / n[j - 1]) ** w), False, tau)


def in_panel(ceiling: float, kstar: float, requirement: Requirement, gate: float = 0.90) -> bool:
    """A.4, "Estimator": a (task, student) pair enters Eq. 57 when C_t > 0.90, 0 < k*_t < ∞ and N* is finite
    and uncensored (censored values are bounds, shown apart, never regressed)."""
    return bool(ceiling > gate and 0 < kstar < math.inf and math.isfinite(requirement.value)
                and not requirement.censored)


@dataclass(frozen=True)
class SharedExponent:
    """Eq. 57: the shared exponent b, the student intercepts a_m (log10 scale), a task-cluster bootstrap
    interval for b, the separate per-student slopes and the number of observations."""

    b: float
    intercepts: dict[str, float]
    interval: tuple[float, float]
    slopes: dict[str, float]
    n_obs: int
    n_boot_used: int


def _check_panel(n_star_values, kstar, student, task) -> pd.DataFrame:
    frame = pd.DataFrame({"n_star": np.asarray(n_star_values, dtype=float), "kstar": np.asarray(kstar, dtype=float),
                          "student": np.asarray(student, dtype=str), "task": np.asarray(task, dtype=str)})
    for name in ("n_star", "kstar"):
        bad = frame[name][~(np.isfinite(frame[name]) & (frame[name] > 0))]
        if len(bad):
            raise ValueError(f"{name} has {float(bad.iloc[0])!r}; allowed: finite values > 0 "
                             "(filter with in_panel first)")
    if len(frame) < 3:
        raise ValueError(f"{len(frame)} observations; allowed: >= 3")
    frame["x"], frame["y"] = np.log10(frame.kstar), np.log10(frame.n_star)
    return frame


def _fit(frame: pd.DataFrame) -> tuple[float, dict[str, float]]:
    """OLS of y on [x, student indicators] without a global intercept (statsmodels); NaN b when no student
    has two distinct x (b is identified only from within-student variation, Prop. 8)."""
    within = frame.x - frame.groupby("student").x.transform("mean")
    if not (within.abs() > 1e-12).any():
        return math.nan, {}
    dummies = pd.get_dummies(frame.student, dtype=float)
    design = np.column_stack([frame.x.to_numpy(), dummies.to_numpy()])  # positional: a student may be named "b"
    params = sm.OLS(frame.y.to_numpy(), design).fit().params
    return float(params[0]), {s: float(v) for s, v in zip(dummies.columns, params[1:], strict=True)}


def separate_slopes(n_star_values, kstar, student, task) -> dict[str, float]:
    """Per student: the OLS slope of log10 N* on log10 k* (Table 43); NaN for a student with < 2 distinct x."""
    frame = _check_panel(n_star_values, kstar, student, task)
    out = {}
    for name, cell in frame.groupby("student", sort=True):
        out[name] = float(np.polyfit(cell.x, cell.y, 1)[0]) if cell.x.nunique() > 1 else math.nan
    return out


#: Fewest task clusters for which the bootstrap interval of b is reported (:func:`shared_exponent`).
MIN_BOOTSTRAP_TASKS = 3


def shared_exponent(n_star_values, kstar, student, task, *, n_boot: int = 2000, seed: int = 0,
                    level: float = 0.95) -> SharedExponent:
    """Eq. 57: log10 N*_tm = a_m + b·log10 k*_t + e_tm by OLS with one intercept per student and no global
    intercept (statsmodels), on a panel already filtered by :func:`in_panel`.

    Interval: percentile bootstrap over tasks (every observation of a resampled task kept together, since
    one k*_t enters all students' rows), ``n_boot`` replicates; replicates with no within-student
    variation are dropped (``n_boot_used``). The paper reports intervals ([0.44, 0.91]) without stating
    how they were computed, so the task-cluster bootstrap is this companion's choice. With fewer than
    ``MIN_BOOTSTRAP_TASKS`` tasks no interval is given (NaN, ``n_boot_used`` 0): with two tasks every
    replicate that can be fitted is the panel itself, and its percentile interval would have zero width.
    """
    if n_boot < 1 or not 0 < level < 1:
        raise ValueError(f"n_boot={n_boot!r}, level={level!r}; allowed: n_boot >= 1, 0 < level < 1")
    frame = _check_panel(n_star_values, kstar, student, task)
    b, intercepts = _fit(frame)
    if math.isnan(b):
        raise ValueError("no student has two distinct k* values; allowed: a panel with within-student variation")
    tasks = frame.task.unique()
    slopes = separate_slopes(n_star_values, kstar, student, task)
    if len(tasks) < MIN_BOOTSTRAP_TASKS:
        return SharedExponent(b, intercepts, (math.nan, math.nan), slopes, len(frame), 0)
    rng = np.random.default_rng(seed)
    by_task = {t: frame[frame.task == t] for t in tasks}
    draws = []
    for _ in range(n_boot):
        sample = pd.concat([by_task[t] for t in rng.choice(tasks, len(tasks), replace=True)], ignore_index=True)
        draws.append(_fit(sample)[0])
    draws = np.asarray(draws)
    used = draws[np.isfinite(draws)]
    tail = (1 - level) / 2 * 100
    interval = tuple(float(v) for v in np.percentile(used, [tail, 100 - tail])) if len(used) else (math.nan, math.nan)
    return SharedExponent(b, intercepts, interval, slopes, len(frame), len(used))


def _within(x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per student (columns of ``groups``): S^xx_m (M,), S^xy_m (S, M) and S^yy_m (S, M) of every simulated
    response ``y`` (S, n), the within-student sums of the proof of Proposition 8."""
    count = groups.sum(axis=0)
    safe = np.where(count > 0, count, 1.0)
    mx, my = (x @ groups) / safe, (y @ groups) / safe  # (M,), (S, M)
    sxx = (x * x) @ groups - count * mx * mx
    sxy = (y * x) @ groups - count * mx * my
    syy = (y * y) @ groups - count * my * my
    return np.where(sxx > 1e-12, sxx, 0.0), sxy, syy


def simulated_responses(kstar, student, *, b_true: float, residual_sd: float, n_sim: int,
                        seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, y, groups) of ``n_sim`` panels of this design under Eq. 57 with exponent ``b_true``: x = log10 k* of the
    panel's rows, y = b_true·x + e with e ~ N(0, ``residual_sd``²) (S, n), and the student indicator matrix.
    The intercepts a_m are left out: every statistic read from y is within-student, where they cancel."""
    if n_sim < 1 or not residual_sd >= 0:
        raise ValueError(f"n_sim={n_sim!r}, residual_sd={residual_sd!r}; allowed: n_sim >= 1, residual_sd >= 0")
    x = np.log10(np.asarray(kstar, dtype=float))
    students = np.asarray(student, dtype=str)
    if x.shape != students.shape or not (np.isfinite(x).all() and len(x)):
        raise ValueError(f"kstar and student have {x.size} and {students.size} entries; allowed: equal lengths "
                         ">= 1, k* finite and > 0")
    groups = (students[:, None] == np.unique(students)[None, :]).astype(float)
    rng = np.random.default_rng(seed)
    return x, b_true * x + rng.normal(0.0, residual_sd, size=(n_sim, len(x))), groups


def exponent_draws(kstar, student, *, b_true: float, residual_sd: float, n_sim: int = 2000,
                   seed: int = 0) -> np.ndarray:
    """b̂ of Eq. 57 on ``n_sim`` simulated panels of this design (:func:`simulated_responses`): the draws of the
    shared exponent a run of this size would report if the true exponent were ``b_true``, for the power of a
    test of A.4.2's 0.65 [0.44, 0.91] (``b_true`` the paper's value, or 0 under the null). NaN where no
    student has two distinct k*."""
    x, y, groups = simulated_responses(kstar, student, b_true=b_true, residual_sd=residual_sd, n_sim=n_sim, seed=seed)
    sxx, sxy, _ = _within(x, y, groups)
    if sxx.sum() <= 1e-12:
        return np.full(n_sim, np.nan)
    return sxy.sum(axis=1) / sxx.sum()  # Eq. 58: Σ_m S^xy_m = b Σ_m S^xx_m


def separate_slope_ses(n_star_values, kstar, student, task) -> dict[str, float]:
    """Per student: the s.e. of its separate slope (Table 43), σ̂/√S^xx_m with σ̂ Eq. 57's residual s.d.
    (:func:`residual_sd`, pooled over students: four points per student leave too few degrees of freedom for
    a student's own); NaN for a student with < 2 distinct k* or without a residual degree of freedom."""
    frame = _check_panel(n_star_values, kstar, student, task)
    sigma = residual_sd(n_star_values, kstar, student, task)
    out = {}
    for name, cell in frame.groupby("student", sort=True):
        sxx = float(((cell.x - cell.x.mean()) ** 2).sum())
        out[name] = sigma / math.sqrt(sxx) if sxx > 1e-12 else math.nan
    return out


def slope_distance(slopes, ses, span: tuple[float, float] = SEPARATE_SLOPE_SPAN) -> float:
    """The largest distance of a separate slope outside the paper's ``span`` of separate slopes (Table 43:
    0.454 to 0.700), in that slope's own s.e.: max over students of max(0, lo − b̂_m, b̂_m − hi)/s.e._m; 0 when
    every slope lies inside; NaN without a finite slope and s.e."""
    b, se = np.asarray(slopes, dtype=float), np.asarray(ses, dtype=float)
    keep = np.isfinite(b) & np.isfinite(se) & (se > 0)
    if not keep.any():
        return math.nan
    outside = np.maximum.reduce([np.zeros(keep.sum()), span[0] - b[keep], b[keep] - span[1]])
    return float((outside / se[keep]).max())


def slope_distance_draws(kstar, student, *, b_true: float, residual_sd: float,
                         span: tuple[float, float] = SEPARATE_SLOPE_SPAN, n_sim: int = 2000,
                         seed: int = 0) -> np.ndarray:
    """:func:`slope_distance` on ``n_sim`` simulated panels of this design whose every student has the true slope
    ``b_true``, each panel's slopes and s.e. computed as :func:`separate_slopes` and :func:`separate_slope_ses`
    compute them (σ̂ from the simulated panel's own Eq. 57 residuals): the draws of the statistic if the paper's
    slopes are the truth (``b_true`` inside the span) or if N* does not depend on k* (0). NaN where a panel
    has no separate slope or no residual degree of freedom."""
    x, y, groups = simulated_responses(kstar, student, b_true=b_true, residual_sd=residual_sd, n_sim=n_sim, seed=seed)
    sxx, sxy, syy = _within(x, y, groups)
    total = sxx.sum()
    dof = len(x) - groups.shape[1] - 1
    if total <= 1e-12 or dof < 1:
        return np.full(n_sim, np.nan)
    rss = syy.sum(axis=1) - sxy.sum(axis=1) ** 2 / total
    sigma = np.sqrt(np.maximum(rss, 0.0) / dof)[:, None]
    slopes = np.where(sxx > 0, sxy / np.where(sxx > 0, sxx, 1.0), np.nan)
    ses = np.where(sxx > 0, sigma / np.sqrt(np.where(sxx > 0, sxx, 1.0)), np.nan)
    return np.array([slope_distance(b, s, span) for b, s in zip(slopes, ses, strict=True)])


def grid_limit(kstar, first_budget: float, last_budget: float, b: float) -> tuple[float, float]:
    """(decades of N* that an exponent ``b`` needs across the panel's k* span, decades the budget grid spans):
    b·log10(max k*/min k*) against log10(last/first budget). An uncensored N* lies in (first, last budget]
    (A.4, "Remark (existence and bracketing)"), so where the first exceeds the second the grid cannot show
    the exponent across the whole panel."""
    k = np.asarray(kstar, dtype=float)
    k = k[np.isfinite(k) & (k > 0)]
    if not len(k) or not 0 < first_budget <= last_budget:
        return math.nan, math.nan
    return float(b * np.log10(k.max() / k.min())), float(np.log10(last_budget / first_budget))


def residual_sd(n_star_values, kstar, student, task) -> float:
    """The residual s.d. of Eq. 57's fit, RSS over n − (students + 1) degrees of freedom; NaN without one."""
    frame = _check_panel(n_star_values, kstar, student, task)
    b, intercepts = _fit(frame)
    dof = len(frame) - len(intercepts) - 1
    if math.isnan(b) or dof < 1:
        return math.nan
    residuals = frame.y - frame.student.map(intercepts) - b * frame.x
    return float(np.sqrt((residuals ** 2).sum() / dof))
