"""From logged search curves to k*: ceilings, thresholds, local and confirmed counts, task values (paper 002, A.1.6).

Every function reads the tidy rows of :func:`lib.kstar.measure.run_searches` (one row per candidate
plus a ``dense`` row) and applies the threshold afterwards, so the controls of A.1.11 and A.2.2 —
another threshold, one search path, a single block — are recomputed from the same curves without
fitting anything again. Column ``decision`` names a class decision within its ``task``; ``window_fits``
names the logged rows of the five-seed window (its blocks are :func:`lib.kstar.protocol.rules.window`'s).
The rules themselves (Eq. 4, 5, 14–16, Algorithm 2's window, A.1.8's precision) are
:mod:`lib.kstar.protocol.rules`; this module applies them table-wide and is what the notebooks call.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.stats import norm

from lib import stats
from lib.kstar.protocol import rules

DECISION = ["model", "task", "decision"]
PATHS = rules.PATHS  #: the candidate paths every count reads by default (A.1.5, Eq. 13)


def sweep_ceilings(sweep: pd.DataFrame, frac: float = rules.FRAC) -> pd.DataFrame:
    """Per decision: the sweep's ceiling (largest test AUROC of any probe across representations, blocks
    and paths, A.1.6 "Preliminary sweep") and its threshold."""
    out = sweep.groupby(DECISION, sort=False).auroc.max().rename("ceiling").reset_index()
    out["tau"] = [rules.threshold(c, frac) for c in out.ceiling]
    return out


def window_ceilings(window_fits: pd.DataFrame, frac: float = rules.FRAC) -> pd.DataFrame:
    """Per decision: the common ceiling C (largest dense AUROC over the window's blocks and seeds, A.1.6),
    τ (Eq. 4), the test class counts, Hanley–McNeil s.e. and whether 1.96·s.e. lies below the gap (A.1.8)."""
    dense = window_fits[window_fits.path == "dense"]
    out = dense.groupby(DECISION, sort=False).agg(ceiling=("auroc", "max"), n_test_pos=("n_test_pos", "first"),
                                                  n_test_neg=("n_test_neg", "first")).reset_index()
    out["tau"] = [rules.threshold(c, frac) for c in out.ceiling]
    out["se"] = [rules.ceiling_se(c, p, n) for c, p, n in zip(out.ceiling, out.n_test_pos, out.n_test_neg,
                                                             strict=True)]
    out["gap"] = [rules.threshold_gap(c, frac) for c in out.ceiling]
    out["se_within_gap"] = 1.96 * out.se < out.gap
    out["unreadable"] = out.ceiling <= 0.5  # A.1.3/A.1.8: nothing above chance; τ ≤ ½ would make every probe qualify
    return out


def local_counts(rows: pd.DataFrame, thresholds: pd.DataFrame, paths: Sequence[str] = PATHS) -> pd.DataFrame:
    """Per search (decision × representation × block × seed): k* of Eq. 5 — the smallest candidate on
    ``paths`` whose test AUROC reaches the decision's τ (∞ if none) — and the search's dense AUROC.
    :func:`lib.kstar.protocol.rules.logged_local_counts` at each decision's τ from ``thresholds``."""
    keys = [c for c in ("model", "task", "decision", "pooling", "block", "seed") if c in rows.columns]
    merged = rows.merge(thresholds[[*DECISION, "tau"]], on=DECISION, validate="many_to_one")
    counts = rules.logged_local_counts(merged, merged.tau, keys, paths)
    dense = merged[merged.path == "dense"].groupby(keys, sort=False).auroc.first().rename("dense_auroc")
    out = dense.to_frame().join(counts).reset_index()
    out["count"] = out["count"].astype(float).fillna(math.inf)
    return out


def sidak_z_limit(tests: int | np.ndarray, level: float = 0.05) -> float | np.ndarray:
    """The z that the largest of ``tests`` independent null AUROC z scores exceeds with probability ``level``
    (Šidák: 1 − Φ(z)^tests = level), computed in logs so that a million tests keep their precision."""
    tests = np.asarray(tests, dtype=float)
    if (tests < 1).any():
        raise ValueError(f"tests={tests.tolist()}; allowed: >= 1")
    found = norm.isf(-np.expm1(np.log1p(-level) / tests))
    return float(found) if found.ndim == 0 else found


def search_maximum(rows: pd.DataFrame, level: float = 0.05) -> pd.DataFrame:
    """Per decision: the largest test AUROC of any probe a whole search fitted (every path, pooling, block and seed
    of its sweep and window ``rows``), the number of test AUROCs behind it (one per logged row: the dense probe and
    each candidate; the validation fits that choose γ read no test label), z = (max − ½)/σ₀ with Theorem 4's σ₀
    of the test split (paper 000), and ``z_limit`` (:func:`sidak_z_limit` of that many). The shuffled-label
    control of paper 002 (A.1.11, Table 7: "the search does not produce high AUROCs from label noise"): tests of
    one search are correlated, so their maximum stays below the independent limit unless the labels leak through
    the search."""
    out = rows.groupby(DECISION, sort=False).agg(maximum=("auroc", "max"), tests=("auroc", "size"),
                                                 n_test_pos=("n_test_pos", "first"),
                                                 n_test_neg=("n_test_neg", "first")).reset_index()
    out["sigma0"] = stats.null_auc_sd(out.n_test_pos, out.n_test_neg)
    out["z"] = (out.maximum - 0.5) / out.sigma0
    out["z_limit"] = sidak_z_limit(out.tests.to_numpy(), level)
    return out


def best_blocks(sweep: pd.DataFrame, frac: float = rules.FRAC, pooling: str = "mean") -> pd.DataFrame:
    """Per task: the sweep's best block in ``pooling`` (smallest median local count over decisions, ties to
    the larger dense AUROC, A.1.6) and the four-block window bracketing it."""
    counts = local_counts(sweep, sweep_ceilings(sweep, frac))
    counts = counts[counts.pooling == pooling]
    rows = []
    for (model, task), cell in counts.groupby(["model", "task"], sort=False):
        by_block = {int(b): list(g["count"]) for b, g in cell.groupby("block")}
        dense = {int(b): list(g.dense_auroc) for b, g in cell.groupby("block")}
        best = rules.best_block(by_block, dense)
        grid = sorted(by_block)
        rows.append({"model": model, "task": task, "best_block": best,
                     "window": list(rules.window(grid, best)), "grid": grid})
    return pd.DataFrame(rows)


def confirmed_counts(local: pd.DataFrame) -> pd.DataFrame:
    """Per decision and seed: neighbour confirmation over the window's blocks in depth order (Eq. 14)."""
    rows = []
    for (model, task, decision, seed), cell in local.groupby([*DECISION, "seed"], sort=False):
        ordered = cell.sort_values("block")["count"].tolist()
        rows.append({"model": model, "task": task, "decision": decision, "seed": seed,
                     "confirmed": float(rules.neighbor_confirm(ordered))})
    return pd.DataFrame(rows, columns=[*DECISION, "seed", "confirmed"])


def single_block_counts(local: pd.DataFrame) -> pd.DataFrame:
    """The paper's "best-single-layer variant" (A.1.11, Table 19): per task and seed, the block whose median count
    over decisions is smallest gives the seed's value; no confirmation (the safeguard this variant drops)."""
    rows = []
    for (model, task, seed), cell in local.groupby(["model", "task", "seed"], sort=False):
        per_block = [rules.ext_median(g["count"]) for _, g in cell.groupby("block")]
        rows.append({"model": model, "task": task, "seed": seed, "value": float(min(per_block))})
    return pd.DataFrame(rows, columns=["model", "task", "seed", "value"])


def task_counts(confirmed: pd.DataFrame, ceilings: pd.DataFrame, readable_above: float = rules.READABLE_ABOVE
                ) -> pd.DataFrame:
    """Per task–model cell (Eq. 16): k* (median over decisions per seed, then over seeds, unrounded), the
    seed range, and the task ceiling with its readability flag (:func:`task_ceilings`)."""
    rows = []
    for (model, task), cell in confirmed.groupby(["model", "task"], sort=False):
        by_seed = {seed: list(g.confirmed) for seed, g in cell.groupby("seed")}
        values = rules.seed_values(by_seed)
        rows.append({"model": model, "task": task, "kstar": float(rules.task_value(by_seed)),
                     "seed_min": float(min(values)), "seed_max": float(max(values))})
    return pd.DataFrame(rows, columns=["model", "task", "kstar", "seed_min", "seed_max"]).merge(
        task_ceilings(ceilings, readable_above), on=["model", "task"])


def task_ceilings(ceilings: pd.DataFrame, readable_above: float = rules.READABLE_ABOVE) -> pd.DataFrame:
    """Per task: the ceiling (median of its decisions' common ceilings: the paper's definition was lost; a
    choice), the readability flag (ceiling ≤ 0.90, A.1.6) and the number of decisions."""
    out = ceilings.groupby(["model", "task"], sort=False).agg(ceiling=("ceiling", "median"),
                                                              n_decisions=("decision", "nunique")).reset_index()
    out["flagged"] = [rules.readability_flag(c, readable_above) for c in out.ceiling]
    return out


def window_counts(window_fits: pd.DataFrame, frac: float = rules.FRAC, paths: Sequence[str] = PATHS,
                  rule: str = "confirm") -> pd.DataFrame:
    """The task table of Algorithm 2 from the window's curves under a threshold ``frac``, the search
    ``paths`` and a block ``rule`` ("confirm": neighbour confirmation; "single": best single block)."""
    if rule not in ("confirm", "single"):
        raise ValueError(f"rule={rule!r}; allowed: 'confirm', 'single'")
    ceilings = window_ceilings(window_fits, frac)
    ceilings = ceilings[~ceilings.unreadable]  # logged by window_ceilings, never counted
    window_fits = window_fits.merge(ceilings[DECISION], on=DECISION)
    local = local_counts(window_fits, ceilings, paths)
    if rule == "confirm":
        return task_counts(confirmed_counts(local), ceilings)
    per_seed = single_block_counts(local)
    rows = []
    for (model, task), cell in per_seed.groupby(["model", "task"], sort=False):
        values = cell.value.tolist()
        rows.append({"model": model, "task": task, "kstar": float(rules.ext_median(values)),
                     "seed_min": float(min(values)), "seed_max": float(max(values))})
    return pd.DataFrame(rows, columns=["model", "task", "kstar", "seed_min", "seed_max"]).merge(
        task_ceilings(ceilings), on=["model", "task"])


def agreement(main: pd.DataFrame, other: pd.DataFrame, treatment: str, min_tasks: int) -> tuple[float, int]:
    """(Spearman ρ, shared tasks) between two task tables of one model (A.2.1 treatments: "all" keeps every
    task, ∞ tied at the top; "finite" drops tasks infinite on either side; "gated" also drops flagged
    ones). NaN when fewer than ``min_tasks`` tasks are shared."""
    if treatment not in ("all", "finite", "gated"):
        raise ValueError(f"treatment={treatment!r}; allowed: 'all', 'finite', 'gated'")
    both = main.merge(other, on="task", suffixes=("_a", "_b"))
    if treatment in ("finite", "gated"):
        both = both[np.isfinite(both.kstar_a) & np.isfinite(both.kstar_b)]
    if treatment == "gated":
        both = both[~both.flagged_a & ~both.flagged_b]
    if len(both) < min_tasks:
        return float("nan"), len(both)
    return stats.spearman(both.kstar_a, both.kstar_b), len(both)


def display_count(value: float) -> str:
    """A count as the paper's tables show it: rounded half to even, ∞ as such (A.2.1, "Rounding")."""
    return "∞" if math.isinf(value) else str(int(np.round(value)))


def variants(window_fits: pd.DataFrame, fracs: Sequence[float], frac: float = rules.FRAC) -> pd.DataFrame:
    """The estimator controls of A.1.11 (Table 19) from one window's curves: the main protocol, every
    threshold in ``fracs``, ranking-only, ℓ1-only and the best single block (labelled "single layer", the paper's
    name); column ``variant``."""
    specs = {"main": (frac, PATHS, "confirm"), "ranking only": (frac, ("prefix",), "confirm"),
             "l1 only": (frac, ("l1",), "confirm"), "single layer": (frac, PATHS, "single")}
    specs.update({f"threshold {f:g}": (f, PATHS, "confirm") for f in fracs})
    return pd.concat([window_counts(window_fits, f, paths, rule).assign(variant=name)
                      for name, (f, paths, rule) in specs.items()], ignore_index=True)


def agreement_table(tables: pd.DataFrame, min_tasks: int) -> pd.DataFrame:
    """Per model, variant and treatment: Spearman ρ of the variant's task order with the main one (A.2.2)."""
    rows = []
    for model, cell in tables.groupby("model", sort=False):
        main = cell[cell.variant == "main"]
        for variant in cell.variant.unique():
            if variant == "main":
                continue
            for treatment in ("all", "finite", "gated"):
                rho, shared = agreement(main, cell[cell.variant == variant], treatment, min_tasks)
                rows.append({"model": model, "variant": variant, "treatment": treatment, "rho": rho,
                             "shared_tasks": shared})
    return pd.DataFrame(rows, columns=["model", "variant", "treatment", "rho", "shared_tasks"])


def monotone_share(window_fits: pd.DataFrame, fracs: Sequence[float]) -> float:
    """Share of (decision, seed) whose confirmed count never decreases as the threshold factor rises
    (Lemma 1(ii) with (iv)): 1 by the lemma, so anything less is a bug."""
    ordered = sorted(fracs)
    confirmed = [confirmed_counts(local_counts(window_fits, window_ceilings(window_fits, f)))
                 .set_index([*DECISION, "seed"]).confirmed for f in ordered]
    table = pd.concat(confirmed, axis=1)
    values = table.to_numpy()
    return float(np.all(values[:, 1:] >= values[:, :-1], axis=1).mean())  # not np.diff: ∞ − ∞ is NaN


def compare_tables(main: pd.DataFrame, control: pd.DataFrame) -> pd.DataFrame:
    """Per model and task: the control's k* and ceiling beside the main ones, the count ratio control/main
    (∞/∞ reads 1; one ∞ reads ∞) and the ceiling change."""
    both = main.merge(control, on=["model", "task"], suffixes=("_main", "_control"))
    both["ratio"] = [1.0 if math.isinf(a) and math.isinf(b) else (b / a if math.isfinite(a) else 0.0)
                     for a, b in zip(both.kstar_main, both.kstar_control, strict=True)]
    both["ceiling_change"] = both.ceiling_control - both.ceiling_main
    return both[["model", "task", "kstar_main", "kstar_control", "ratio", "ceiling_main", "ceiling_control",
                 "ceiling_change"]]


def readable_decisions(ceilings: pd.DataFrame, tasks: pd.DataFrame) -> pd.DataFrame:
    """The decision rows of ``ceilings`` whose task is not flagged in the task table ``tasks`` (A.1.6, A.1.8)."""
    merged = ceilings.merge(tasks[["model", "task", "flagged"]], on=["model", "task"])
    return merged[~merged.flagged]


def precision_table(ceilings: pd.DataFrame, tasks: pd.DataFrame, n_scorers: int, delta: float = 0.05) -> pd.DataFrame:
    """Per model, over the decisions of readable tasks (A.1.8, Table 5): median Hanley–McNeil s.e. of the
    ceilings, median gap C − τ, the share with 1.96·s.e. below the gap, and the McDiarmid radius at the median
    test class counts over ``n_scorers`` scorers."""
    rows = []
    for model, cell in readable_decisions(ceilings, tasks).groupby("model", sort=False):
        rows.append({"model": model, "decisions": len(cell), "median_se": cell.se.median(),
                     "median_gap": cell.gap.median(), "share_se_within_gap": cell.se_within_gap.mean(),
                     "radius": rules.mcdiarmid_radius(int(cell.n_test_pos.median()), int(cell.n_test_neg.median()),
                                                      n_scorers, delta)})
    return pd.DataFrame(rows)
