"""The evidence of paper 002's cross-model claims (App. A.2.1) on one panel of models.

A.2.1 compares models with one another: the spread ratio σ_t of a task's counts across models (Eq. 24), the Spearman
ρ of two models' task orders (Eq. 25) under three treatments of ∞ and low ceilings (Table 12), the permutation test
of the median cross-lab ρ, the ceilings across models, and the partial ρ given a text-side reading (Table 13).
:func:`evidence` measures all of them on a :class:`lib.kstar.order.population.Panel` (the paper's base causal LMs,
or every model of the run) from K01's task table, each with the draws that weigh it at the panel's size
(:mod:`lib.kstar.order.order_power`); a panel that cannot carry a cross-model statistic reads every claim as
needing the paper's models, with the reason.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from lib import stats
from lib.claims import Evidence
from lib.kstar.evidence import count_noise
from lib.kstar.order import order, order_power
from lib.kstar.order.population import Panel
from lib.kstar.protocol import counts

#: The claims :func:`evidence` measures, in the catalogue's order (lib/kstar/claims/K03_task_order.yaml).
CLAIMS = ("spread_ratio_max", "pairwise_rho_min", "treatments_agree", "permutation_p", "permutation_p_at_05",
          "ceilings_across_models", "partial_rho_min")
#: The paper's values the draws are simulated at (A.2.1): the median cross-lab ρ, Table 12's median, each model's
#: ρ with the text-side reading (its −0.51 to −0.71).
PAPER_RHO, TABLE12_RHO, TEXT_RHO = 0.9294, 0.93, -0.61


def on_panel(table: pd.DataFrame, panel: Panel) -> pd.DataFrame:
    """The rows of a per-model table (a ``model`` column) or a per-pair one (``model_a``, ``model_b``) whose models
    all belong to ``panel``."""
    if "model" in table:
        return table[table.model.isin(panel.models)]
    return table[table.model_a.isin(panel.models) & table.model_b.isin(panel.models)]


def _needs_models(panel: Panel) -> dict[str, Evidence]:
    return {claim: Evidence(None, needs_data=panel.missing, note=panel.note) for claim in CLAIMS}


def evidence(panel: Panel, tasks: pd.DataFrame, pairs: pd.DataFrame, test: order.OrderTest,
             by_reading: pd.DataFrame, precision: pd.DataFrame, log_se: pd.DataFrame,
             n_permutations: int) -> dict[str, Evidence]:
    """The evidence of each of :data:`CLAIMS` on ``panel``, by claim id.

    ``tasks``: K01's task table (every model of the run); ``pairs``: :func:`lib.kstar.order.order.pairwise_agreement`
    over the run's models; ``test``: :func:`lib.kstar.order.order.shared_order_test` on the panel's models;
    ``by_reading``: :func:`lib.kstar.order.order.partial_readings` of the panel's partial table (its cross-lab
    pairs, on ``test.common``); ``precision``: :func:`lib.kstar.evidence.count_noise.task_precision`; ``log_se``:
    each cell's s.e. of log k* (:func:`lib.kstar.evidence.count_noise.log_count_se`); ``n_permutations``: the run's
    shuffles, as many null draws weigh the permutation p. Every note names the panel and who it left out."""
    if panel.missing:
        return _needs_models(panel)
    models, common = list(panel.models), test.common
    tasks, pairs, precision = on_panel(tasks, panel), on_panel(pairs, panel), on_panel(precision, panel)
    cross = order.cross_lab_pairs(models)
    on_common = tasks[tasks.task.isin(common)]
    few_common = (f"{len(common)} task(s) readable in every model of the panel: a rank correlation needs at least "
                  "three" if len(common) < 3 else "")
    shared = f"{len(common)} tasks readable in every model of the panel, {len(cross)} cross-lab pair(s)"
    common_note = "; ".join(x for x in (panel.note, shared, count_noise.imprecise_note(precision, common)) if x)
    found = {**_spread(tasks, on_common, models, log_se, common_note),
             **_ceilings(tasks, models, precision, panel.note),
             "treatments_agree": _treatments(tasks, pairs, models, panel.note)}
    rhos = [counts.agreement(on_common[on_common.model == models[a]], on_common[on_common.model == models[b]],
                             "all", 3)[0] for a, b in cross]
    found["pairwise_rho_min"] = Evidence(
        min(rhos) if rhos else np.nan, undefined=few_common, note=common_note,
        if_paper=None if few_common else order_power.pair_spearman_draws(
            len(common), len(models), cross, PAPER_RHO).min(axis=1),
        if_null=None if few_common else order_power.pair_spearman_draws(
            len(common), len(models), cross, 0.0, seed=1).min(axis=1))
    p_draws = {} if few_common else _permutation_draws(len(common), len(models), cross, n_permutations)
    for claim in ("permutation_p", "permutation_p_at_05"):
        found[claim] = Evidence(test.p_value, undefined=few_common,
                                note=f"{common_note}; {n_permutations} permutations", **p_draws)
    found["partial_rho_min"] = _partial(by_reading, len(common), len(models), cross, few_common, common_note)
    return {claim: found[claim] for claim in CLAIMS}


def _spread(tasks: pd.DataFrame, on_common: pd.DataFrame, models: list[str], log_se: pd.DataFrame,
            note: str) -> dict[str, Evidence]:
    """σ_t's largest value over the tasks readable in every model with a finite count in two (Eq. 24), weighed by
    each cell's seed noise of log k*."""
    cells = on_common.merge(log_se, on=["model", "task"], how="left")
    finite = cells[np.isfinite(cells.kstar)]
    spread_tasks = finite.groupby("task").model.nunique().loc[lambda c: c >= 2].index
    values = finite.pivot(index="model", columns="task", values="kstar").reindex(index=models, columns=spread_tasks)
    ses = finite.pivot(index="model", columns="task", values="log_se").reindex(
        index=models, columns=spread_tasks).fillna(0.0)
    if_paper, if_null = order_power.common_value_draws(np.log(values.to_numpy()), ses.to_numpy(), log=True)
    spread = order.spread_ratios(tasks)
    return {"spread_ratio_max": Evidence(
        spread.reindex(spread_tasks).max() if len(spread_tasks) else np.nan, if_paper=if_paper, if_null=if_null,
        note=note, undefined="" if len(spread_tasks) else "no task readable in every model has a finite count in two "
        "models")}


def _ceilings(tasks: pd.DataFrame, models: list[str], precision: pd.DataFrame, note: str) -> dict[str, Evidence]:
    """The largest ceiling range across the models reading a task, weighed by each ceiling's s.e. (A.1.8)."""
    ranges = order.ceiling_ranges(tasks)
    ceiling_tasks = ranges.dropna().index
    readable = tasks[~tasks.flagged].merge(precision[["model", "task", "se"]], on=["model", "task"], how="left")
    values, ses = (readable.pivot(index="model", columns="task", values=column).reindex(
        index=models, columns=ceiling_tasks) for column in ("ceiling", "se"))
    if_paper, if_null = order_power.common_value_draws(values.to_numpy(), ses.fillna(0.0).to_numpy(), log=False)
    return {"ceilings_across_models": Evidence(
        ranges.max() if len(ceiling_tasks) else np.nan, if_paper=if_paper, if_null=if_null,
        note="; ".join(x for x in (note, f"{len(ceiling_tasks)} tasks readable in two or more models",
                                   count_noise.imprecise_note(precision, ceiling_tasks)) if x),
        undefined="" if len(ceiling_tasks) else "no task is readable in two models")}


def _treatments(tasks: pd.DataFrame, pairs: pd.DataFrame, models: list[str], note: str) -> Evidence:
    """Table 12's largest spread across the three treatments over every pair of the panel, with each model's ∞ and
    flagged cells over the tasks all of them read."""
    shared = sorted(set.intersection(*[set(tasks.task[tasks.model == m]) for m in models]))
    on_shared = tasks[tasks.task.isin(shared)]
    n_infinite = [int(np.isinf(on_shared.kstar[on_shared.model == m]).sum()) for m in models]
    n_flagged = [int(on_shared.flagged[on_shared.model == m].sum()) for m in models]
    args = {"n_tasks": len(shared), "n_infinite": n_infinite, "n_flagged": n_flagged,
            "pairs": list(itertools.combinations(range(len(models)), 2)), "rho_s": TABLE12_RHO}
    gap = order.treatment_gap(pairs)
    treatable = len(shared) >= 3
    return Evidence(
        gap, mechanism=order.granularity_mechanism(pairs, 0.05, "pairs.parquet"),
        undefined="" if np.isfinite(gap) else "fewer than two treatments keep three tasks shared by a model pair",
        note=f"{note}; {len(shared)} tasks, ∞ cells per model {n_infinite}, flagged {n_flagged}",
        if_paper=order_power.treatment_spread_draws(**args, infinite_at_top=True) if treatable else None,
        if_null=order_power.treatment_spread_draws(**args, infinite_at_top=False, seed=1) if treatable else None)


def _permutation_draws(n_tasks: int, n_models: int, cross: list[tuple[int, int]],
                       n_permutations: int) -> dict[str, np.ndarray]:
    """The permutation p's draws: the median over cross-lab pairs drawn at the paper's ρ and at independence, each
    against as many independent-order draws as the run's permutations (a few tasks' p floor is in them)."""
    null = np.median(order_power.pair_spearman_draws(n_tasks, n_models, cross, 0.0, n=n_permutations, seed=7), axis=1)
    return {hypothesis: order_power.permutation_p(np.median(order_power.pair_spearman_draws(
        n_tasks, n_models, cross, rho, n=2000, seed=seed), axis=1), null)
        for hypothesis, rho, seed in (("if_paper", PAPER_RHO, 8), ("if_null", 0.0, 9))}


def _partial(by_reading: pd.DataFrame, n_common: int, n_models: int, cross: list[tuple[int, int]], few_common: str,
             note: str) -> Evidence:
    """Table 13's lowest median cross-lab partial ρ over the defined text-side readings, every undefined reading
    counted and named (:func:`lib.kstar.order.order.lowest_partial`); its draws at no fewer tasks than a partial
    needs (:data:`lib.stats.PARTIAL_MIN_N`)."""
    lowest = order.lowest_partial(by_reading)
    n_tasks = max(n_common, stats.PARTIAL_MIN_N)
    if_paper = order_power.partial_median_draws(n_tasks, n_models, cross, TABLE12_RHO, TEXT_RHO)
    if_null = order_power.partial_median_draws(n_tasks, n_models, cross, order_power.null_rho_for_partial(TEXT_RHO),
                                               TEXT_RHO, seed=1)
    return Evidence(lowest.value, se=count_noise.finite_sd(if_paper), undefined=few_common or lowest.undefined,
                    note=f"{note}; {lowest.note}", if_paper=if_paper, if_null=if_null)
