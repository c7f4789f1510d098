"""Cross-model agreement of k* task orders and their comparison with the text side (paper 002, A.2.1, A.2.3).

Every function reads task tables of :func:`lib.kstar.counts.window_counts` (one row per model × task:
``kstar``, ``ceiling``, ``flagged``) and the prefix readings of
:func:`lib.kstar.text_baseline.task_prefix_scores`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from lib import stats
from lib.kstar import counts, text_baseline

TREATMENTS = ("all", "finite", "gated")


def spread_ratios(tasks: pd.DataFrame) -> pd.Series:
    """σ_t = max/min of the finite k* over the models where task t is readable (A.2.1, Eq. 24); NaN with < 2."""
    readable = tasks[~tasks.flagged & np.isfinite(tasks.kstar)]
    return readable.groupby("task").kstar.agg(lambda k: k.max() / k.min() if len(k) > 1 else np.nan)


def ceiling_ranges(tasks: pd.DataFrame) -> pd.Series:
    """Per readable task: the range of its ceiling across models (A.2.1: ≤ 0.05 in the paper)."""
    readable = tasks[~tasks.flagged]
    return readable.groupby("task").ceiling.agg(lambda c: c.max() - c.min() if len(c) > 1 else np.nan)


def pairwise_agreement(tasks: pd.DataFrame, models: Sequence[str], min_tasks: int = 3) -> pd.DataFrame:
    """Spearman ρ of every model pair's k* orders under the three treatments of A.2.1 (Eq. 25, Table 12)."""
    rows = []
    for a, b in itertools.combinations(models, 2):
        for treatment in TREATMENTS:
            rho, shared = counts.agreement(tasks[tasks.model == a], tasks[tasks.model == b], treatment, min_tasks)
            rows.append({"model_a": a, "model_b": b, "treatment": treatment, "rho": rho, "shared_tasks": shared})
    return pd.DataFrame(rows)


def shared_order_test(tasks: pd.DataFrame, models: Sequence[str], n_permutations: int,
                      seed: int) -> tuple[list[str], float, float]:
    """(tasks readable in every model, mean pairwise ρ, within-model permutation p) (A.2.1); NaNs below
    three shared tasks or two models."""
    readable = tasks[~tasks.flagged]
    common = sorted(set.intersection(*[set(readable[readable.model == m].task) for m in models]))
    if len(common) < 3 or len(models) < 2:
        return common, float("nan"), float("nan")
    order = tasks[tasks.task.isin(common)].pivot(index="model", columns="task", values="kstar").loc[list(models)]
    observed, p_value = stats.order_permutation_test(order.to_numpy(), n_permutations, seed)
    return common, observed, p_value


def model_vs_text(readings: pd.DataFrame, tasks: pd.DataFrame, models: Sequence[str],
                  ks: Sequence[int] = (64, 256)) -> pd.DataFrame:
    """Per model: median s(k) of model and text across tasks with a paired Wilcoxon test at each k, and
    (row k = 0) the correlation and median gain of the model's task ceilings over the text ceilings (A.2.3)."""
    text = readings[readings.model == text_baseline.TEXT_MODEL].set_index("task")
    rows = []
    for model in models:
        own = readings[readings.model == model].set_index("task")
        shared = own.index.intersection(text.index)
        for k in ks:
            test = (stats.paired_wilcoxon(own.loc[shared, f"s_{k}"], text.loc[shared, f"s_{k}"])
                    if len(shared) >= 2 else {"p_value": np.nan, "median_difference": np.nan})
            rows.append({"model": model, "k": k, "model_median": own.loc[shared, f"s_{k}"].median(),
                         "text_median": text.loc[shared, f"s_{k}"].median(), **test})
        ceilings = tasks[tasks.model == model].set_index("task").ceiling.reindex(shared)
        text_ceilings = text.loc[shared, "text_ceiling"]
        rows.append({"model": model, "k": 0, "model_median": ceilings.median(), "text_median": text_ceilings.median(),
                     "ceiling_correlation": float(np.corrcoef(ceilings, text_ceilings)[0, 1]),
                     "median_difference": float(np.median(ceilings - text_ceilings))})
    return pd.DataFrame(rows)


def partial_agreement(readings: pd.DataFrame, tasks: pd.DataFrame, models: Sequence[str],
                      controls: Sequence[str]) -> pd.DataFrame:
    """Per model pair: Spearman ρ of the k* orders and its partial given each text-side reading in ``controls``
    (A.2.1, Table 13); a last row recomputes ρ on log k*, which the order statistic's invariance keeps equal."""
    text = readings[readings.model == text_baseline.TEXT_MODEL].set_index("task")
    rows = []
    for a, b in itertools.combinations(models, 2):
        ka = tasks[tasks.model == a].set_index("task").kstar
        kb = tasks[tasks.model == b].set_index("task").kstar
        shared = ka.index.intersection(kb.index).intersection(text.index)
        if len(shared) < 3:  # a partial rank correlation needs three tasks; fewer shared tasks: nothing to order
            rows += [{"model_a": a, "model_b": b, "control": control, "rho": np.nan, "partial_rho": np.nan}
                     for control in [*controls, "log k* (invariance)"]]
            continue
        rho = stats.spearman(ka[shared], kb[shared])
        for control in controls:
            rows.append({"model_a": a, "model_b": b, "control": control, "rho": rho,
                         "partial_rho": stats.partial_spearman(ka[shared], kb[shared], text.loc[shared, control])})
        rows.append({"model_a": a, "model_b": b, "control": "log k* (invariance)", "rho": rho,
                     "partial_rho": stats.spearman(np.log(ka[shared]), np.log(kb[shared]))})
    return pd.DataFrame(rows)


def largest_ratio_near_ceiling(tasks: pd.DataFrame, tolerance: float = 0.03) -> float:
    """The largest k* ratio between two readable, finite tasks of one model whose ceilings differ by at most
    ``tolerance`` (A.1.1: near-equal ceilings, counts 4 vs 256); NaN when no such pair exists."""
    cells = tasks[~tasks.flagged & np.isfinite(tasks.kstar)]
    ratios = [max(a.kstar, b.kstar) / min(a.kstar, b.kstar)
              for _, cell in cells.groupby("model") for a, b in itertools.combinations(cell.itertuples(), 2)
              if abs(a.ceiling - b.ceiling) <= tolerance]
    return max(ratios, default=float("nan"))
