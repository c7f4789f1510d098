"""The rules paper 002 applies to recorded candidates (App. A.1.1, A.1.6, A.1.8): threshold, counts, window, precision.

Every rule acts after the search (:mod:`lib.kstar.protocol.probe_search`), so the threshold never decides which
probes are fitted. The threshold τ = ½ + 0.95·(C − ½) (Eq. 4) and the local count of Eq. 5 are A.1.1: whether a
candidate qualifies is written once, in :func:`qualifies`, and counted on recorded candidates by
:func:`local_count` and on logged candidate rows by :func:`logged_local_counts`. :func:`neighbor_confirm`
(Eq. 14), :func:`ext_median` (Eq. 15), :func:`task_value` and :func:`seed_range` (Eq. 16), :func:`best_block`,
:func:`window` and :func:`readability_flag` are Algorithm 2's (A.1.6); the precision of A.1.8 is
:func:`ceiling_se`, :func:`threshold_gap` and :func:`mcdiarmid_radius` (Lemma 2, Eq. 18).
:mod:`lib.kstar.protocol.counts` applies them to the logged tables of a whole measurement. The paper's "layer"
is a decoder block here (block ℓ's output; :func:`lib.models.architecture.hidden_state_index` converts).

Equation numbers follow the prose references; every formula marked *re-derived* was rebuilt from the
surrounding prose and proofs (the displayed equations and Lemma 1's statement were lost in extraction).
Choices where the paper is silent:

- :func:`local_count`: between qualifying candidates of the same size the larger AUROC supplies the
  support, then the first recorded (prefixes before L1, L1 in increasing γ).
- :func:`window`: the best block sits second (one grid block before it, two after), as in the worked
  example (best block 20 in the window 17, 20, 24, 28); at a grid edge the window shifts inward.
- :func:`best_block`: a block's dense AUROC for the tie-break is the mean over class decisions; a
  remaining tie goes to the shallower block.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from lib import stats
from lib.kstar.protocol.probe_search import Candidate, SearchResult

FRAC = 0.95  #: the factor of Eq. 4 (A.1.1)
PATHS = ("prefix", "l1")  #: the candidate paths of Algorithm 1 (A.1.5, Eq. 13); a dense fit is no candidate
WINDOW_SIZE = 4  #: blocks in the five-seed window (A.1.6)
SEEDS = (1, 2, 3, 4, 5)  #: R of the five-seed measurement (A.1.6)
READABLE_ABOVE = 0.90  #: task ceilings at or below are flagged (A.1.6, "Readability flag")


def threshold(ceiling: float, frac: float = FRAC) -> float:
    """τ = ½ + frac·(C − ½): paper 002, App. A.1.1, Eq. 4 (C = 0.98 → 0.956, C = 0.90 → 0.88).

    ``ceiling`` must lie in [0, 1] and ``frac`` in (0, 1]; the paper's factor is 0.95 (A.1.11 varies it
    to 0.90 and 0.975).
    """
    c, f = float(ceiling), float(frac)
    if not 0.0 <= c <= 1.0:
        raise ValueError(f"ceiling={ceiling!r} is out of range; allowed: an AUROC in [0, 1]")
    if not 0.0 < f <= 1.0:
        raise ValueError(f"frac={frac!r} is out of range; allowed: (0, 1]")
    return 0.5 + f * (c - 0.5)


# ---------------------------------------------------------------------------------------------
# Counts on the extended naturals (A.1.1, A.1.6)
# ---------------------------------------------------------------------------------------------


def _tidy(value: float) -> float | int:
    if math.isinf(value):
        return math.inf
    return int(value) if float(value).is_integer() else float(value)


def _counts(values, name: str) -> list[float | int]:
    values = list(values)
    if not values:
        raise ValueError(f"{name} needs at least one count; got none")
    out = []
    for value in values:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise ValueError(f"{name} got {value!r}; allowed: counts in {{1, 2, …}} ∪ {{inf}} (or their medians)")
        if math.isnan(value) or value <= 0:
            raise ValueError(f"{name} got {value!r}; allowed: counts > 0 or inf")
        out.append(_tidy(float(value)))
    return out


def qualifies(auroc: float | np.ndarray, tau: float | np.ndarray) -> np.bool_ | np.ndarray:
    """Whether a candidate qualifies: its test AUROC reaches τ, AUROC ≥ τ (paper 002, App. A.1.1, Eq. 5).

    "A probe qualifies exactly when its AUROC reaches τ": equality qualifies, a NaN AUROC never does.
    Elementwise on arrays. The one place the comparison is written; every count reads it.
    """
    return np.greater_equal(auroc, tau)


def _check_tau(tau: float | np.ndarray) -> np.ndarray:
    taus = np.asarray(tau, dtype=float)
    if np.isnan(taus).any():
        raise ValueError("tau is NaN; allowed: a real threshold")
    return taus


def local_count(
    candidates: SearchResult | Iterable[Candidate], tau: float
) -> tuple[int | float, tuple[int, ...] | None]:
    """(k*, support): the size of the smallest qualifying candidate (:func:`qualifies`; paper 002, App. A.1.1, Eq. 5).

    ``(math.inf, None)`` when no candidate qualifies. Between qualifying candidates of the same size the
    one with the larger AUROC supplies the support, then the first recorded (prefix before L1, L1 by
    increasing γ) — a choice; the count does not depend on it. :func:`logged_local_counts` is the same
    rule on the logged rows of many searches at once.
    """
    if isinstance(candidates, SearchResult):
        candidates = candidates.candidates
    tau = float(_check_tau(tau))
    best = None
    for cand in candidates:
        if qualifies(cand.auroc, tau) and (best is None or cand.size < best.size
                                           or (cand.size == best.size and cand.auroc > best.auroc)):
            best = cand
    return (math.inf, None) if best is None else (best.size, best.support)


def logged_local_counts(rows: pd.DataFrame, tau: float | pd.Series, keys: Sequence[str],
                        paths: Sequence[str] = PATHS) -> pd.Series:
    """Per search (the groups of ``keys``): the local count of Eq. 5 over logged candidate rows (App. A.1.1).

    :func:`local_count` without the supports, on the tidy rows of :func:`lib.kstar.measure.run_searches`
    (columns ``path``, ``size``, ``auroc`` and ``keys``): the smallest ``size`` of a row on ``paths`` that
    :func:`qualifies` at ``tau`` — one threshold, or one per row (a Series or array aligned with ``rows``) —
    and ∞ for a search with no qualifying row. A float Series named ``count``, one entry per group of
    ``rows`` in order of appearance.
    """
    hit = rows.path.isin(paths).to_numpy() & qualifies(rows.auroc.to_numpy(dtype=float), _check_tau(tau))
    sizes = rows["size"].astype(float).where(hit)
    return sizes.groupby([rows[key] for key in keys], sort=False).min().fillna(math.inf).rename("count")


def neighbor_confirm(counts: Sequence[float]) -> float | int:
    """k̃ = min over consecutive window blocks of max(k_ℓᵢ, k_ℓᵢ₊₁): paper 002, App. A.1.6, Eq. 14.

    ``counts`` in window-block order (∞ allowed). One block: that block's count (the paper's rule).
    32, 8, 16, ∞ → 16; 341, 137, 342, 369 → 341 (A.1.7). Empty input or a count ≤ 0 raises.
    """
    values = _counts(counts, "neighbor_confirm")
    if len(values) == 1:
        return values[0]
    return min(max(a, b) for a, b in zip(values[:-1], values[1:], strict=True))


def ext_median(values: Iterable[float]) -> float | int:
    """Median on the extended naturals N ∪ {∞}: paper 002, App. A.1.6, Eq. 15 (re-derived from the prose).

    Sorted u₁ ≤ … ≤ u_N: odd N → u₍N₊₁₎/₂, infinite exactly when more than half are ∞; even N →
    (u_N/2 + u_N/2+1)/2, infinite exactly when at least half are ∞. Not rounded (an even number of
    finite values may give a half-integer; round only for display). Empty input or ≤ 0 raises.
    """
    ordered = sorted(_counts(values, "ext_median"))
    n = len(ordered)
    if n % 2:
        return ordered[n // 2]
    low, high = ordered[n // 2 - 1], ordered[n // 2]
    return math.inf if math.isinf(high) else _tidy((low + high) / 2)


def _rows(counts) -> list[list[float]]:
    rows = list(counts.values()) if isinstance(counts, Mapping) else list(counts)
    if not rows:
        raise ValueError("task_value needs at least one seed; got none")
    return [[row] if np.ndim(row) == 0 else list(row) for row in rows]


def seed_values(counts_by_seed_and_decision) -> tuple[float | int, ...]:
    """Per-seed task values: the ext_median of the confirmed counts over class decisions (A.1.6, Eq. 16).

    Input: one row per seed (a mapping seed → row, or a sequence of rows); a row lists the
    neighbour-confirmed counts of the class decisions, or is one count for a single-decision task.
    """
    return tuple(ext_median(row) for row in _rows(counts_by_seed_and_decision))


def task_value(counts_by_seed_and_decision) -> float | int:
    """k* of a task–model cell: ext_median over seeds of the per-seed medians over class decisions.

    Paper 002, App. A.1.6, Eq. 16 (first expression); the worked example (A.1.7): seeds 341, 332,
    342, 344, 339 → 341.
    """
    return ext_median(seed_values(counts_by_seed_and_decision))


def seed_range(counts_by_seed_and_decision) -> tuple[float | int, float | int]:
    """(min, max) of the per-seed task values: paper 002, App. A.1.6, Eq. 16 (third expression); A.1.7: (332, 344)."""
    values = seed_values(counts_by_seed_and_decision)
    return min(values), max(values)


# ---------------------------------------------------------------------------------------------
# Algorithm 2 (A.1.6): the window and the flag
# ---------------------------------------------------------------------------------------------


def best_block(local_counts: Mapping[int, Sequence[float]], dense_aurocs: Mapping[int, float | Sequence[float]]) -> int:
    """The sweep's best block: smallest ext_median local count over class decisions (paper 002, App. A.1.6).

    Ties go to the larger dense AUROC (the paper); a block's dense AUROC is the mean over its class
    decisions when a sequence is given (a choice), and a remaining tie goes to the shallower block.
    ``local_counts``: block → local counts of the class decisions (one seed, the sweep's threshold).
    """
    if not local_counts:
        raise ValueError("best_block needs at least one block; got none")
    missing = sorted(set(local_counts) - set(dense_aurocs))
    if missing:
        raise ValueError(f"dense_aurocs lacks the blocks {missing}")

    def key(block):
        return ext_median(local_counts[block]), -float(np.mean(dense_aurocs[block])), block

    return min(local_counts, key=key)


def window(grid_blocks: Sequence[int], best: int, size: int = WINDOW_SIZE) -> tuple[int, ...]:
    """The five-seed window: ``size`` consecutive grid blocks bracketing the best block (paper 002, App. A.1.6).

    Where the grid allows, the best block has a grid neighbour on each side and sits second: one grid
    block before it and two after (as in A.1.7: best block 20, window 17, 20, 24, 28). At a grid edge
    the window shifts inward to keep ``size`` blocks (best first or last, without an outer neighbour,
    or third when it is the second-to-last grid block); a grid with fewer blocks than ``size`` is used
    whole. These edge rules are choices: the paper only says "wherever the grid allows".
    """
    grid = sorted(set(grid_blocks))
    if best not in grid:
        raise ValueError(f"best block {best!r} is not in the grid; allowed: {grid}")
    if size < 1:
        raise ValueError(f"size={size!r} is out of range; allowed: >= 1")
    if len(grid) <= size:
        return tuple(grid)
    start = grid.index(best) - (size - 1) // 2
    start = min(max(start, 0), len(grid) - size)
    return tuple(grid[start : start + size])


def readability_flag(ceiling_value: float, cutoff: float = READABLE_ABOVE) -> bool:
    """True when a task ceiling is ≤ 0.90: flagged, its counts not read as task sizes (A.1.6, "Readability flag")."""
    return float(ceiling_value) <= cutoff


# ---------------------------------------------------------------------------------------------
# Precision (A.1.8)
# ---------------------------------------------------------------------------------------------


def ceiling_se(ceiling_value: float, n_pos: int, n_neg: int) -> float:
    """Hanley–McNeil standard error of a ceiling from the test class counts: paper 002, App. A.1.8, Eq. 20.

    A.1.7–A.1.8: C = 0.9790 on 1039 positives and 961 negatives → 0.0032.
    """
    return float(stats.hanley_mcneil_se(ceiling_value, n_pos, n_neg))


def threshold_gap(ceiling_value: float, frac: float = FRAC) -> float:
    """C − τ = (1 − frac)(C − ½) = 0.05(C − ½): the gap a ceiling's error is compared with (A.1.8)."""
    return float(ceiling_value) - threshold(ceiling_value, frac)


def mcdiarmid_radius(n_pos: int, n_neg: int, n_scorers: int, delta: float = 0.05) -> float:
    """ε_δ = √((1/n₁ + 1/n₀)·log(2M/δ)/2): paper 002, App. A.1.8, Lemma 2, Eq. 18 (re-derived).

    Under Assumption A, with probability ≥ 1 − δ every one of the M scorers' test AUROCs lies within
    ε_δ of its population AUROC (bounded differences 1/n₁ and 1/n₀, then a union bound over M).
    The paper uses δ = 0.05: 0.08 at 1500/1500 test texts and M = 440 (4 blocks × 5 seeds × 22 scorers).
    """
    if min(n_pos, n_neg, n_scorers) < 1 or not 0.0 < delta < 1.0:
        raise ValueError(f"n_pos={n_pos}, n_neg={n_neg}, n_scorers={n_scorers}, delta={delta}; "
                         "allowed: counts >= 1 and delta in (0, 1)")
    return math.sqrt((1.0 / n_pos + 1.0 / n_neg) * math.log(2.0 * n_scorers / delta) / 2.0)
