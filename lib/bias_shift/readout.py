"""What a D01 or D02 run shows in paper 001's terms, per pooling and label, read from its logged tables.

Paper 001 reads a negative pooled r of ΔB with ΔBiasScore as "ΔB falls where output-level bias rises" (Sec.
4.1–4.4), pools by mean (Sec. 3.1; Appendix E.4) and reports max and last pooling for the ROC AUC only (Table 6).
:func:`pooling_table` puts, per setting, label and pooling, the pooled statistics beside the group-level one (ΔB's
association with the label within checkpoints, :mod:`lib.bias_shift.group_level`); :func:`pooling_sentences` and
:func:`auc_sentences` say in words whether each sign holds in the paper's direction and whether it depends on the
pooling. Every number comes from the tables passed in, so the notebooks' readings are never typed by hand.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

#: One-sided permutation p below which a sign counts as the paper's direction (r < 0), above 1 − it as reversed:
#: the paper's 5 % two-tailed level, each tail at half of it.
TAIL = 0.025
#: The columns of a setting (reference model, fine-tuning regime).
SETTING: tuple[str, ...] = ("family", "regime")
READINGS: dict[str, str] = {"paper": "the paper's direction", "reversed": "reversed", "none": "no clear sign",
                            "undefined": "undefined"}


def reading(p_negative: float, n_permutations: int) -> str:
    """``paper`` (the one-sided permutation p in the paper's direction, r at most the observed, below
    :data:`TAIL`), ``reversed`` (the opposite one-sided p, 1 + 1/n − ``p_negative`` over ``n_permutations``
    permutations that include the observed order, below it), ``none`` (neither) or ``undefined`` (no p: a label
    that does not vary)."""
    if not math.isfinite(p_negative):
        return "undefined"
    if p_negative < TAIL:
        return "paper"
    return "reversed" if 1 + 1 / n_permutations - p_negative < TAIL else "none"


def pooling_table(evaluation: pd.DataFrame, group_level: pd.DataFrame) -> pd.DataFrame:
    """Per setting, scorer and pooling: RR's pooled r with its checkpoint-bootstrap interval and one-sided
    checkpoint-permutation p, its ROC AUC and checkpoint-level r (``evaluation``, unit group:
    :func:`lib.bias_shift.evaluation.evaluate_all`), the within-checkpoint r with its one-sided p (``group_level``:
    :func:`lib.bias_shift.group_level.group_level_table`), and the reading of each sign (:func:`reading`)."""
    keys = [*SETTING, "scorer", "pooling"]
    rr = evaluation[(evaluation.unit == "group") & (evaluation.method == "RR")]
    pooled = rr[[*keys, "n_increased", "n_pairs", "pearson_r", "r_low", "r_high", "p_checkpoints_negative",
                 "n_permutations", "roc_auc", "checkpoint_r"]]
    within = group_level[[*keys, "within_r", "p_within_negative", "n_permutations"]]
    table = pooled.merge(within, on=keys, how="left", suffixes=("", "_within"))
    return table.assign(
        pooled_reading=[reading(p, n) for p, n in zip(table.p_checkpoints_negative, table.n_permutations, strict=True)],
        within_reading=[reading(p, n) for p, n in zip(table.p_within_negative, table.n_permutations_within,
                                                      strict=True)])


def _listed(frame: pd.DataFrame, value: str, read: str) -> str:
    return ", ".join(f"{row.pooling} {row[value]:+.2f} ({READINGS[row[read]]})" if math.isfinite(row[value]) else
                     f"{row.pooling} undefined" for _, row in frame.iterrows())


def _pooled_verdict(readings: Sequence[str]) -> str:
    if set(readings) == {"undefined"}:
        return "the label does not vary, so there is no r under any pooling"
    if len(set(readings)) == 1:
        return f"the same under every pooling ({READINGS[readings[0]]})"
    if {"paper", "reversed"} <= set(readings):
        return "the sign depends on the pooling"
    return "a clear sign under some poolings only"


def _within_verdict(frame: pd.DataFrame) -> str:
    chosen = list(frame.pooling[frame.within_reading == "paper"])
    if set(frame.within_reading) == {"undefined"}:
        return "the label does not vary within checkpoints, so it ranks no group"
    if not chosen:
        return "ΔB ranks the groups in the paper's direction under no pooling"
    return f"ΔB ranks the groups in the paper's direction under {', '.join(chosen)} pooling"


def pooling_sentences(table: pd.DataFrame) -> str:
    """One Markdown bullet per setting and scorer of :func:`pooling_table`: the pooled r under each pooling and
    whether its sign depends on the pooling, then the within-checkpoint r under each pooling and under which ΔB ranks
    the groups in the paper's direction."""
    bullets = []
    for (family, regime, scorer), frame in table.groupby([*SETTING, "scorer"], sort=False):
        first = frame.iloc[0]
        bullets.append(
            f"- **{scorer}** ({family}, {regime}; {int(first.n_increased)} of {int(first.n_pairs)} checkpoint × group "
            f"pairs with ΔBiasScore above the threshold): pooled over checkpoints × groups (Table 1's r), "
            f"{_listed(frame, 'pearson_r', 'pooled_reading')}: {_pooled_verdict(list(frame.pooled_reading))}. "
            f"Within checkpoints (which groups moved), {_listed(frame, 'within_r', 'within_reading')}: "
            f"{_within_verdict(frame)}.")
    return "\n".join(bullets)


def auc_sentences(auc: pd.DataFrame, labels: pd.DataFrame) -> str:
    """One Markdown bullet per scorer of D02's logged ROC AUCs (``auc``: :func:`lib.bias_shift.ablations.auc_table`)
    on the pooling axis: RR's and SEAT's AUC under each pooling, where RR is above SEAT, and which pooling is RR's
    strongest; ``labels`` (scorer, n_increased, n_pairs) gives each label's positive pairs. Below 0.5, ΔB points
    against the paper's direction."""
    counts = labels.set_index("scorer")
    bullets = []
    for scorer, frame in auc[auc.axis == "pooling"].groupby("scorer", sort=False):
        wide = frame.pivot(index="value", columns="method", values="roc_auc").loc[frame.value.unique()]
        listed = {m: ", ".join(f"{p} {v:.2f}" for p, v in wide[m].items()) for m in ("RR", "SEAT")}
        if wide.RR.isna().all():
            bullets.append(f"- **{scorer}** ({int(counts.n_increased[scorer])} of {int(counts.n_pairs[scorer])} pairs "
                           "increased): no ROC under any pooling, its labels hold one class.")
            continue
        above = [p for p in wide.index if wide.RR[p] > wide.SEAT[p]]
        below = [p for p in wide.index if wide.RR[p] < 0.5]
        bullets.append(
            f"- **{scorer}** ({int(counts.n_increased[scorer])} of {int(counts.n_pairs[scorer])} pairs increased): "
            f"RR {listed['RR']}; SEAT {listed['SEAT']}; RR above SEAT under "
            f"{', '.join(above) if above else 'no pooling'}; RR strongest under {wide.RR.idxmax()}; RR below "
            f"chance (ΔB against the paper's direction) under {', '.join(below) if below else 'no pooling'}.")
    return "\n".join(bullets)
