"""Cross-model agreement of k* task orders and their comparison with the text side (paper 002, A.2.1, A.2.3).

Every function reads task tables of :func:`lib.kstar.protocol.counts.window_counts` (one row per model × task:
``kstar``, ``ceiling``, ``flagged``) and the prefix readings of
:func:`lib.kstar.order.text_baseline.task_prefix_scores`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib import stats, uncertainty
from lib.kstar.order import text_baseline
from lib.kstar.protocol import counts

TREATMENTS = ("all", "finite", "gated")
#: The control name of :func:`partial_agreement`'s invariance row (ρ recomputed on log k*).
LOG_CONTROL = "log k* (invariance)"
#: The organisation of the registry's models by name (a hub id names its own: ``google/…`` → google).
LABS = {"minilm": "sentence-transformers", "smollm2-135m": "HuggingFaceTB", "gemma3-270m": "google",
        "gpt2": "openai-community", "gpt2-medium": "openai-community", "gpt2-large": "openai-community",
        "gpt2-xl": "openai-community", "bert-base-uncased": "google-bert"}


def lab(model: str) -> str:
    """The lab of a model (A.2.1's lab split): the organisation of a hub id ("meta-llama/…" → meta-llama),
    :data:`LABS` for a registry name, else the name itself (a model of its own lab: tiny random models)."""
    if "/" in model and not model.startswith((".", "/")):
        return model.split("/", 1)[0].lower()
    return LABS.get(model, model).lower()


def cross_lab_pairs(models: Sequence[str]) -> list[tuple[int, int]]:
    """Index pairs (i < j) of ``models`` from different labs (A.2.1: the 30 cross-lab pairs of ten models)."""
    return [(i, j) for i, j in itertools.combinations(range(len(models)), 2) if lab(models[i]) != lab(models[j])]


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


def treatment_gap(pairs: pd.DataFrame) -> float:
    """The largest spread across the three treatments (A.2.1, Table 12: "agree to within 0.05 in every column")
    of the median, lowest and highest ρ over the model pairs of :func:`pairwise_agreement`; NaN when fewer than two
    treatments have a ρ (a treatment with too few shared tasks has none)."""
    columns = pairs.dropna(subset=["rho"]).groupby("treatment").rho.agg(["median", "min", "max"])
    return float((columns.max() - columns.min()).max()) if len(columns) >= 2 else float("nan")


def granularity_mechanism(pairs: pd.DataFrame, tolerance: float, file: str) -> str:
    """Why the treatments disagree by more than ``tolerance``: a sentence when the treatment with the fewest shared
    tasks has so few that one swap of two adjacent ranks moves Spearman's ρ by more than ``tolerance``, citing the
    pairs table's ``file``; "" otherwise."""
    measured = pairs.dropna(subset=["rho"])
    if measured.treatment.nunique() < 2:
        return ""
    fewest = measured.loc[measured.shared_tasks.idxmin()]
    step = 1 - uncertainty.one_swap_spearman(int(fewest.shared_tasks))
    if not step > tolerance:
        return ""
    return (f"the treatments read ρ on different task sets, the {fewest.treatment} treatment on only "
            f"{int(fewest.shared_tasks)} shared tasks against {int(measured.shared_tasks.max())} for the all "
            f"treatment; on {int(fewest.shared_tasks)} tasks one swap of two adjacent ranks moves ρ by {step:.2f}, "
            f"more than the {tolerance:g} within which the paper's treatments agree (`{file}`)")


def text_differences(readings: pd.DataFrame, model: str, k: int) -> pd.Series:
    """Per task readable from text: δ_t = s_model(k) − s_text(k), the prefix-score differences A.2.3 tests with
    the Wilcoxon signed-rank test (Eq. 30)."""
    text = readings[readings.model == text_baseline.TEXT_MODEL].set_index("task")
    own = readings[readings.model == model].set_index("task")
    scored = _text_readable(text, own.index.intersection(text.index))
    return (own.loc[scored, f"s_{k}"] - text.loc[scored, f"s_{k}"]).rename("difference")


def ceiling_gains(readings: pd.DataFrame, tasks: pd.DataFrame, model: str) -> pd.Series:
    """Per task of the model and the text: the model's ceiling minus the text ceiling (A.2.3, "The ceiling axis")."""
    text = readings[readings.model == text_baseline.TEXT_MODEL].set_index("task").text_ceiling
    own = tasks[tasks.model == model].set_index("task").ceiling
    shared = own.index.intersection(text.index)
    return (own[shared] - text[shared]).rename("gain")


@dataclass(frozen=True)
class OrderTest:
    """The permutation test of the shared order (A.2.1): tasks readable in every model, the median ρ over the
    cross-lab pairs, its permutation p and the number of cross-lab pairs."""

    common: list[str]
    observed: float
    p_value: float
    n_pairs: int


def shared_order_test(tasks: pd.DataFrame, models: Sequence[str], n_permutations: int, seed: int) -> OrderTest:
    """The median of Eq. 25 over the cross-lab model pairs on the tasks readable in every model, and its
    within-model permutation p (A.2.1); NaNs below three shared tasks or without a cross-lab pair (no model: no
    common task either)."""
    readable = tasks[~tasks.flagged]
    common = sorted(set.intersection(*[set(readable[readable.model == m].task) for m in models])) if models else []
    pairs = cross_lab_pairs(models)
    if len(common) < 3 or not pairs:
        return OrderTest(common, float("nan"), float("nan"), len(pairs))
    order = tasks[tasks.task.isin(common)].pivot(index="model", columns="task", values="kstar").loc[list(models)]
    observed, p_value = stats.order_permutation_test(order.to_numpy(), n_permutations, seed, pairs)
    return OrderTest(common, observed, p_value, len(pairs))


def _text_readable(text: pd.DataFrame, shared: pd.Index) -> pd.Index:
    """The tasks of ``shared`` whose text ceiling is distinguishable from chance (A.2.3: otherwise s(k) of
    Eq. 30 divides by a ceiling near chance and is noise; :func:`lib.kstar.order.text_baseline.near_chance`)."""
    return shared[~text.loc[shared, "text_flagged"].astype(bool).to_numpy()]


def model_vs_text(readings: pd.DataFrame, tasks: pd.DataFrame, models: Sequence[str],
                  ks: Sequence[int] = (64, 256)) -> pd.DataFrame:
    """Per model: median s(k) (Eq. 30) of model and text across the tasks readable from text with a paired
    Wilcoxon test at each k, and (row k = 0) the Spearman correlation and median gain of the model's task ceilings
    over the text ceilings on every shared task (A.2.3, "The ceiling axis": ρ = 0.950, the paper's ρ being
    Spearman's throughout, Eq. 25); ``n_tasks`` and ``text_unreadable`` say which tasks enter."""
    text = readings[readings.model == text_baseline.TEXT_MODEL].set_index("task")
    rows = []
    for model in models:
        own = readings[readings.model == model].set_index("task")
        shared = own.index.intersection(text.index)
        scored = _text_readable(text, shared)
        left_out = ", ".join(sorted(set(shared) - set(scored)))
        for k in ks:
            column = f"s_{k}"
            test = (stats.paired_wilcoxon(own.loc[scored, column], text.loc[scored, column])
                    if len(scored) >= 2 else {"p_value": np.nan, "median_difference": np.nan})
            rows.append({"model": model, "k": k, "model_median": own.loc[scored, column].median(),
                         "text_median": text.loc[scored, column].median(), **test, "n_tasks": len(scored),
                         "text_unreadable": left_out})
        ceilings = tasks[tasks.model == model].set_index("task").ceiling.reindex(shared)
        text_ceilings = text.loc[shared, "text_ceiling"]
        correlation = stats.spearman(ceilings, text_ceilings) if len(shared) >= 2 else np.nan
        gain = float(np.median(ceilings - text_ceilings))
        rows.append({"model": model, "k": 0, "model_median": ceilings.median(), "text_median": text_ceilings.median(),
                     "ceiling_correlation": correlation, "median_difference": gain, "n_tasks": len(shared),
                     "text_unreadable": ""})
    return pd.DataFrame(rows)


def partial_agreement(readings: pd.DataFrame, tasks: pd.DataFrame, models: Sequence[str],
                      controls: Sequence[str], common: Sequence[str]) -> pd.DataFrame:
    """Per model pair: Spearman ρ of the k* orders and its partial given each text-side reading in ``controls``
    (A.2.1, Text-level control, Table 13), on the tasks ``common`` to every model (the paper's "nine tasks"
    readable in all ten base models, :func:`shared_order_test`), so every pair compares one task set; an s(k)
    control reads only those tasks readable from text, the text ceiling all of them (``n_tasks``); a last row
    recomputes ρ on log k*, which the order statistic's invariance keeps equal. ``undefined`` says why a NaN
    reading is one (:func:`_partial`)."""
    text = readings[readings.model == text_baseline.TEXT_MODEL].set_index("task")
    rows = []
    for a, b in itertools.combinations(models, 2):
        ka = tasks[tasks.model == a].set_index("task").kstar
        kb = tasks[tasks.model == b].set_index("task").kstar
        shared = pd.Index(list(common)).intersection(ka.index).intersection(kb.index).intersection(text.index)
        for control in controls:
            on = shared if control == "text_ceiling" else _text_readable(text, shared)
            rows.append({"model_a": a, "model_b": b, "control": control, **_partial(ka, kb, text, on, control)})
        rows.append({"model_a": a, "model_b": b, "control": LOG_CONTROL,
                     **_partial(np.log(ka), np.log(kb), text, shared, None, ka, kb)})
    return pd.DataFrame(rows, columns=["model_a", "model_b", "control", "rho", "partial_rho", "n_tasks", "undefined"])


def _partial(ka: pd.Series, kb: pd.Series, text: pd.DataFrame, on: pd.Index, control: str | None,
             raw_a: pd.Series | None = None, raw_b: pd.Series | None = None) -> dict:
    """ρ of the k* orders on the tasks ``on`` and its partial given ``control`` (None: ρ of ``ka``, ``kb``
    beside ρ of ``raw_a``, ``raw_b``), with why a NaN is one: a rank correlation needs three tasks, a partial given
    one reading four (:data:`lib.stats.PARTIAL_MIN_N`: on three it is ±1 by construction), and a reading that orders
    the tasks exactly as a model does leaves nothing to correlate."""
    n = len(on)
    if n < 3:
        return {"rho": np.nan, "partial_rho": np.nan, "n_tasks": n,
                "undefined": f"{n} task(s): a rank correlation needs at least three"}
    if control is None:
        return {"rho": stats.spearman(raw_a[on], raw_b[on]), "partial_rho": stats.spearman(ka[on], kb[on]),
                "n_tasks": n, "undefined": ""}
    rho = stats.spearman(ka[on], kb[on])
    if n < stats.PARTIAL_MIN_N:
        return {"rho": rho, "partial_rho": np.nan, "n_tasks": n,
                "undefined": f"{n} tasks, fewer than four: a partial rank correlation given one reading is ±1 by "
                             "construction on three"}
    partial = stats.partial_spearman(ka[on], kb[on], text.loc[on, control])
    return {"rho": rho, "partial_rho": partial, "n_tasks": n, "undefined": "" if np.isfinite(partial) else
            "the reading orders the tasks exactly as a model does (|ρ| = 1 with it): nothing is left to correlate"}


def partial_readings(partial: pd.DataFrame, pairs: Sequence[tuple[str, str]]) -> pd.DataFrame:
    """Per text-side reading of :func:`partial_agreement` (the invariance row aside): the median partial ρ over the
    model ``pairs`` (A.2.1, Table 13: the cross-lab pairs), NaN with the reason when a pair's partial is undefined
    (never a median over the pairs that happen to be defined), the pairs and how many are undefined."""
    wanted = {tuple(pair) for pair in pairs}
    in_pairs = np.array([(a, b) in wanted for a, b in zip(partial.model_a, partial.model_b, strict=True)], dtype=bool)
    chosen = partial[(partial.control != LOG_CONTROL).to_numpy() & in_pairs]
    rows = []
    for control, by_pair in chosen.groupby("control", sort=False):
        missing = by_pair[by_pair.partial_rho.isna()]
        rows.append({"control": control, "median_partial_rho": np.nan if len(missing) else by_pair.partial_rho.median(),
                     "pairs": len(by_pair), "undefined_pairs": len(missing),
                     "undefined": "; ".join(dict.fromkeys(missing.undefined))})
    return pd.DataFrame(rows, columns=["control", "median_partial_rho", "pairs", "undefined_pairs", "undefined"])


@dataclass(frozen=True)
class LowestPartial:
    """The lowest median partial ρ over the defined readings (A.2.1, Table 13), a note counting and naming the
    undefined readings, and why the statistic is undefined ("" unless no reading is defined)."""

    value: float
    note: str
    undefined: str


def lowest_partial(readings: pd.DataFrame) -> LowestPartial:
    """The lowest ``median_partial_rho`` of :func:`partial_readings` over the readings where it is defined; every
    undefined reading is counted and named with its reason, never dropped silently."""
    defined = readings[readings.median_partial_rho.notna()]
    missing = readings[readings.median_partial_rho.isna()]
    by_reason = missing.groupby("undefined", sort=False).control.agg(", ".join)
    why = "; ".join(f"{controls}: {reason}" for reason, controls in by_reason.items())
    note = f"{len(defined)} of {len(readings)} text-side readings defined" + (f", undefined {why}" if why else "")
    if defined.empty:
        return LowestPartial(float("nan"), note, f"no text-side reading has a partial ρ ({why or 'no reading'})")
    return LowestPartial(float(defined.median_partial_rho.min()), note, "")


def largest_ratio_near_ceiling(tasks: pd.DataFrame, tolerance: float = 0.03) -> float:
    """The largest k* ratio between two readable, finite tasks of one model whose ceilings differ by at most
    ``tolerance`` (A.1.1: near-equal ceilings, counts 4 vs 256); NaN when no such pair exists."""
    cells = tasks[~tasks.flagged & np.isfinite(tasks.kstar)]
    ratios = [max(a.kstar, b.kstar) / min(a.kstar, b.kstar)
              for _, cell in cells.groupby("model") for a, b in itertools.combinations(cell.itertuples(), 2)
              if abs(a.ceiling - b.ceiling) <= tolerance]
    return max(ratios, default=float("nan"))
