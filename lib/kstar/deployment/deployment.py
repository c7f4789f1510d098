"""Deployment reduction and the weights × format factorial of paper 002 (App. A.3.1–A.3.2, Eq. 40–45, Props. 3–4).

A.3.1 compares a base model on plain text with its instruction-tuned counterpart in its chat format,
task by task: the ratio R = k_base / k_tuned (Eq. 40) over the tasks whose ceilings both exceed 0.90
and whose counts are both finite, and Spearman's ρ_m of the base counts with the ratios. A.3.2
crosses weights (w: 0 base, 1 tuned) with input format (f: 0 plain, 1 chat) into four counts k_wf
and splits the deployment ratio R_D = k00/k11 into conditional factors and an interaction ratio I
(Eq. 42–45), which Proposition 4 identifies with a saturated log-linear model. Equations 40–45 were
lost in extraction; they are restated here from the surrounding text and the proofs, which fix them
(the proof of Prop. 4 spells out every term), and tested against the paper's Table 34 values.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib import stats
from lib.claim_power import DRAWS
from lib.kstar.evidence import count_noise, seed_draws
from lib.kstar.protocol import counts, rules

GATE = rules.READABLE_ABOVE  #: A.3.1 "Data and gate": both ceilings must exceed 0.90
MIN_RANK_TASKS = 3  #: ρ_m needs this many gated tasks (two points always give ±1); a choice


@dataclass(frozen=True)
class Ratios:
    """Per-task ratios of two task tables (Eq. 40) and ρ_m over the gated tasks (NaN below MIN_RANK_TASKS)."""

    table: pd.DataFrame  # task, k_base, k_tuned, ceiling_base, ceiling_tuned, gated, ratio (NaN if not gated)
    rho: float
    n_gated: int

    @property
    def rho_null(self) -> float:
        """Proposition 3's corr(log k_base, log R) from the gated tasks' log-count spreads if the tuned counts
        were independent of the base counts; NaN below MIN_RANK_TASKS gated tasks or with constant base counts."""
        gated = self.table[self.table.gated]
        spread = float(np.log(gated.k_base.astype(float)).std())
        if len(gated) < MIN_RANK_TASKS or spread == 0:
            return float("nan")
        return independence_correlation(spread, float(np.log(gated.k_tuned.astype(float)).std()))

    def as_table(self, **labels) -> pd.DataFrame:
        """The per-task table with ρ, Prop. 3's value and ``labels`` as constant columns."""
        return self.table.assign(**labels, rho=self.rho, rho_null=self.rho_null, n_gated=self.n_gated)


def deployment_ratios(base: pd.DataFrame, tuned: pd.DataFrame, gate: float = GATE,
                      min_tasks: int = MIN_RANK_TASKS) -> Ratios:
    """A.3.1, Eq. 40: R_t = k_base,t / k_tuned,t on the tasks of both tables whose ceilings both exceed
    ``gate`` and whose counts are both finite, and ρ = Spearman(k_base, R) over those tasks (scipy).

    ``base`` and ``tuned`` are task tables of :func:`lib.kstar.protocol.counts.window_counts` (columns task,
    kstar, ceiling), one model each. Any two conditions of the factorial can be compared the same way.
    """
    for name, table in (("base", base), ("tuned", tuned)):
        missing = {"task", "kstar", "ceiling"} - set(table.columns)
        if missing:
            raise ValueError(f"{name} lacks columns {sorted(missing)}; allowed: a task table with task, kstar, ceiling")
        if table.task.duplicated().any():
            raise ValueError(f"{name} has repeated tasks {sorted(table.task[table.task.duplicated()])}; "
                             "allowed: one row per task (one model)")
    if not 0.5 <= gate < 1:
        raise ValueError(f"gate={gate!r}; allowed: 0.5 <= gate < 1")
    both = base[["task", "kstar", "ceiling"]].merge(tuned[["task", "kstar", "ceiling"]], on="task",
                                                     suffixes=("_base", "_tuned"))
    both = both.rename(columns={"kstar_base": "k_base", "kstar_tuned": "k_tuned"})
    both["gated"] = ((both.ceiling_base > gate) & (both.ceiling_tuned > gate)
                     & np.isfinite(both.k_base) & np.isfinite(both.k_tuned))
    both["ratio"] = np.where(both.gated, both.k_base / both.k_tuned, np.nan)
    gated = both[both.gated]
    rho = stats.spearman(gated.k_base, gated.ratio) if len(gated) >= min_tasks else float("nan")
    return Ratios(both, rho, len(gated))


def base_side_passing(table: pd.DataFrame, gate: float = GATE) -> tuple[str, ...]:
    """The tasks of one task table that pass its side of A.3.1's gate: ceiling > ``gate`` and a finite count."""
    return tuple(table.task[(table.ceiling > gate) & np.isfinite(table.kstar)])


def independence_correlation(sigma_base: float, sigma_tuned: float) -> float:
    """Proposition 3 (A.3.1): with X = log k_base and Y = log k_tuned independent, corr(X, log R) =
    corr(X, X − Y) = σ_X / √(σ_X² + σ_Y²) > 0 — the coupling that makes ρ_m positive without selectivity."""
    for name, value in (("sigma_base", sigma_base), ("sigma_tuned", sigma_tuned)):
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"{name}={value!r}; allowed: a finite standard deviation >= 0")
    if sigma_base == 0:
        raise ValueError("sigma_base=0; allowed: > 0 (a constant base count has no correlation)")
    return sigma_base / math.hypot(sigma_base, sigma_tuned)


@dataclass(frozen=True)
class Factorial:
    """The four task-level counts k_wf of A.3.2 (w: 0 base, 1 tuned weights; f: 0 plain, 1 chat)."""

    k00: float
    k01: float
    k10: float
    k11: float

    def __post_init__(self) -> None:
        for name in ("k00", "k01", "k10", "k11"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                    or not math.isfinite(value) or value <= 0:
                raise ValueError(f"{name}={value!r}; allowed: a finite count > 0 (a ratio of ∞ or 0 is undefined)")

    def weights_ratio(self, f: int) -> float:
        """R_W(f) = k_0f / k_1f (Eq. 42): the weights' reduction at format f."""
        return self._count(0, _level("f", f)) / self._count(1, f)

    def format_ratio(self, w: int) -> float:
        """R_F(w) = k_w0 / k_w1 (Eq. 42): the format's reduction at weights w."""
        return self._count(_level("w", w), 0) / self._count(w, 1)

    @property
    def deployment_ratio(self) -> float:
        """R_D = k00 / k11 (Eq. 42): base on plain text against tuned in chat, Eq. 40's ratio."""
        return self.k00 / self.k11

    @property
    def interaction(self) -> float:
        """I = k01·k10 / (k00·k11) (Eq. 43); 1 when the factors act separably on the log-count scale."""
        return self.k01 * self.k10 / (self.k00 * self.k11)

    def decomposition(self) -> tuple[float, float, float, float]:
        """Proposition 4: the unique (μ, α, β, δ) with log k_wf = μ − αw − βf − δwf (Eq. 44), natural log:
        μ = log k00, α = log R_W(0), β = log R_F(0), δ = log I."""
        return (math.log(self.k00), math.log(self.weights_ratio(0)), math.log(self.format_ratio(0)),
                math.log(self.interaction))

    def as_row(self) -> dict[str, float]:
        """Counts and every contrast of Eq. 42–43 as one table row."""
        return {"k00": self.k00, "k01": self.k01, "k10": self.k10, "k11": self.k11,
                "R_W0": self.weights_ratio(0), "R_W1": self.weights_ratio(1), "R_F0": self.format_ratio(0),
                "R_F1": self.format_ratio(1), "R_D": self.deployment_ratio, "I": self.interaction}

    def _count(self, w: int, f: int) -> float:
        return getattr(self, f"k{w}{f}")


def _level(name: str, value: int) -> int:
    if value not in (0, 1) or isinstance(value, bool):
        raise ValueError(f"{name}={value!r}; allowed: 0 or 1")
    return value


def factorial(k00: float, k01: float, k10: float, k11: float) -> Factorial:
    """The factorial of A.3.2 from its four counts (first index weights, second format); ValueError on a
    count ≤ 0, ∞ or NaN, naming it."""
    return Factorial(k00, k01, k10, k11)


def shared_blocks(windows: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """The blocks every condition's window contains (A.3.2, "Layer control"), in depth order."""
    if not windows:
        raise ValueError("windows=[]; allowed: one window per condition, at least one")
    common = set(windows[0]).intersection(*map(set, windows[1:]))
    return tuple(sorted(int(b) for b in common))


def shared_layer_counts(conditions: Mapping[str, pd.DataFrame], frac: float = rules.FRAC) -> pd.DataFrame:
    """A.3.2, "Layer control": every condition's task table recomputed from its logged window curves restricted
    to the blocks all conditions share for that task (ceiling, τ, local counts and neighbour confirmation on
    those blocks only). ``conditions`` maps a condition name to its window rows
    (:func:`lib.kstar.measure.window_table`, one model per condition). Returns condition, task, shared_blocks,
    kstar_own, kstar_shared, ceiling_shared; a task whose windows share no block gets NaN counts."""
    if not conditions:
        raise ValueError("conditions={}; allowed: at least one condition's window rows")
    tasks = sorted(set.intersection(*(set(rows.task) for rows in conditions.values())))
    rows = []
    for name, window in conditions.items():
        own = counts.window_counts(window, frac).set_index("task")
        for task in tasks:
            blocks = shared_blocks([sorted(set(w.block[w.task == task])) for w in conditions.values()])
            kept = window[(window.task == task) & window.block.isin(blocks)]
            shared = counts.window_counts(kept, frac) if len(kept) else pd.DataFrame()
            rows.append({"condition": name, "task": task, "shared_blocks": list(blocks),
                         "kstar_own": own.kstar.get(task, np.nan),
                         "kstar_shared": shared.kstar.iloc[0] if len(shared) else np.nan,
                         "ceiling_shared": shared.ceiling.iloc[0] if len(shared) else np.nan})
    return pd.DataFrame(rows)


def condition_seed_values(window: pd.DataFrame, frac: float = rules.FRAC) -> pd.DataFrame:
    """Per condition × task × seed: the seed's task value (Eq. 16) of every condition of a factorial window
    (:func:`lib.kstar.evidence.seed_draws.per_seed_values` within each ``condition``)."""
    frames = [seed_draws.per_seed_values(rows.drop(columns="condition"), frac).assign(condition=name)
              for name, rows in window.groupby("condition", sort=False)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["condition", "task", "seed", "value"])


def condition_precision(window: pd.DataFrame, frac: float = rules.FRAC) -> pd.DataFrame:
    """:func:`lib.kstar.evidence.count_noise.task_precision` of every condition of a factorial window, with its
    ``condition``."""
    frames = [count_noise.task_precision(rows.drop(columns="condition"), frac).assign(condition=name)
              for name, rows in window.groupby("condition", sort=False)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["model", "task", "n_test", "se", "gap", "imprecise", "condition"])


def log2_ratio_se(seeds: pd.DataFrame, numerator: str, denominator: str, task: str) -> float:
    """The s.e. of log2(k_numerator / k_denominator) on ``task`` from a bootstrap over each condition's seeds
    (:func:`lib.kstar.evidence.count_noise.log2_ratio_draws`): the subsample noise of a ratio of Eq. 40 or 42, the
    test split held fixed; NaN when a condition is missing, has one seed (no spread to resample) or no draw is
    finite."""
    values = [seeds.value[(seeds.condition == c) & (seeds.task == task)].to_numpy()
              for c in (numerator, denominator)]
    if not all(len(v) > 1 for v in values):
        return float("nan")
    return count_noise.finite_sd(count_noise.log2_ratio_draws(*values))


def widest_gated(ratios: pd.DataFrame) -> pd.Series | None:
    """The gated row of a ratio table (:meth:`Ratios.as_table`) with the largest base count (A.3.1: "the reduction
    concentrates on the widest readouts"); None when no task is gated."""
    gated = ratios[ratios.gated.astype(bool)]
    return gated.loc[gated.k_base.astype(float).idxmax()] if len(gated) else None


def rescaled_unchanged_share(low_counts: Sequence[float], factor: float) -> float:
    """The share of ``low_counts`` a common rescaling by ``factor`` leaves unchanged on the integer count scale
    (round(k / factor) = k): what A.3.1's null reference, one common factor for every task, predicts for the low
    counts the paper finds unchanged."""
    low = np.asarray(low_counts, dtype=float)
    if not len(low) or not factor > 0:
        raise ValueError(f"low_counts={list(low)}, factor={factor!r}; allowed: one or more counts and a factor > 0")
    return float(np.mean(np.round(low / factor) == low))


def ceiling_spread_draws(ses: np.ndarray, shifts: Sequence[float], *, n: int = DRAWS, seed: int = 0) -> np.ndarray:
    """``n`` draws of the largest ceiling spread (max − min across conditions) over tasks, each condition's ceiling
    its ``shifts[c]`` plus normal noise with its Hanley–McNeil s.e. ``ses[t, c]`` (A.1.8): the spread A.3.2 reads when
    the conditions share a ceiling (shifts 0) or when the format moves it (the chat conditions shifted)."""
    ses = np.asarray(ses, dtype=float)
    if ses.ndim != 2 or ses.shape[1] != len(shifts) or not ses.size:
        raise ValueError(f"ses {ses.shape} and shifts {list(shifts)}; allowed: (tasks, conditions) with one shift "
                         "per condition")
    draws = np.asarray(shifts, dtype=float) + ses * np.random.default_rng(seed).standard_normal((n, *ses.shape))
    return (draws.max(axis=2) - draws.min(axis=2)).max(axis=1)


def window_cut(shared: pd.DataFrame, window: pd.DataFrame) -> pd.Series:
    """Per row of :func:`shared_layer_counts`: whether the shared blocks leave out a block of that condition's own
    window on that task (A.3.2, "Layer control"); where they do not, the shared-block count equals the own count
    by identity, so the row tests nothing."""
    own = window.groupby(["condition", "task"]).block.agg(lambda b: len(set(b)))
    return pd.Series([len(blocks) < own.get((condition, task), 0) for condition, task, blocks
                      in zip(shared.condition, shared.task, shared.shared_blocks, strict=True)], index=shared.index,
                     dtype=bool)
