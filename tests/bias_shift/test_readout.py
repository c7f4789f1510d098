"""lib.bias_shift.readout: what a D01 or D02 run shows, per pooling and label, in paper 001's terms."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from lib.bias_shift import readout

POOLINGS = ("mean", "max", "last")


def evaluation_rows(scorer: str, rs: tuple[float, ...], ps: tuple[float, ...]) -> list[dict]:
    return [{"unit": unit, "family": "smollm2", "regime": "lora", "scorer": scorer, "pooling": pooling,
             "method": method, "n_increased": 12, "n_pairs": 168, "pearson_r": r, "r_low": r - 0.1, "r_high": r + 0.1,
             "p_checkpoints_negative": p, "n_permutations": 5040, "roc_auc": 0.5, "checkpoint_r": r}
            for pooling, r, p in zip(POOLINGS, rs, ps, strict=True)
            for unit in ("group", "topic") for method in ("RR", "SEAT")]


def group_rows(scorer: str, rs: tuple[float, ...], ps: tuple[float, ...]) -> list[dict]:
    return [{"family": "smollm2", "regime": "lora", "scorer": scorer, "pooling": pooling, "within_r": r,
             "p_within_negative": p, "n_permutations": 5040} for pooling, r, p in zip(POOLINGS, rs, ps, strict=True)]


@pytest.mark.parametrize(("p", "n", "read"), [(0.001, 5040, "paper"), (0.5, 5040, "none"), (0.99, 5040, "reversed"),
                                               (1.0, 2, "none"), (math.nan, 5040, "undefined")])
def test_a_sign_reads_by_its_one_sided_p(p, n, read):
    """Two orders give p 1 to any reversal: the opposite one-sided p, 1/2, is no evidence of one."""
    assert readout.reading(p, n) == read


def test_the_pooling_table_puts_pooled_and_within_checkpoint_signs_side_by_side():
    evaluation = pd.DataFrame(evaluation_rows("dt_forced", (-0.81, 0.30, 0.41), (0.0002, 0.99, 0.999))
                              + evaluation_rows("profanity", (0.5, 0.4, 0.3), (0.999, 0.99, 0.98)))
    groups = pd.DataFrame(group_rows("dt_forced", (0.007, -0.3, 0.01), (0.53, 0.001, 0.4))
                          + group_rows("profanity", (0.02, 0.01, 0.0), (0.4, 0.5, 0.5)))
    table = readout.pooling_table(evaluation, groups)
    assert len(table) == 6 and set(table.columns) >= {"pearson_r", "within_r", "pooled_reading", "within_reading"}
    forced = table[table.scorer == "dt_forced"].set_index("pooling")
    assert forced.pooled_reading.tolist() == ["paper", "reversed", "reversed"]
    assert forced.within_reading.tolist() == ["none", "paper", "none"]
    text = readout.pooling_sentences(table)
    first, second = text.splitlines()
    assert first.startswith("- **dt_forced** (smollm2, lora; 12 of 168 checkpoint × group pairs")
    assert "mean -0.81 (the paper's direction), max +0.30 (reversed), last +0.41 (reversed)" in first
    assert "the sign depends on the pooling" in first
    assert "ΔB ranks the groups in the paper's direction under max pooling" in first
    assert "the same under every pooling (reversed)" in second and "under no pooling" in second


def test_a_constant_label_reads_undefined_under_every_pooling():
    evaluation = pd.DataFrame(evaluation_rows("vader", (math.nan,) * 3, (math.nan,) * 3))
    groups = pd.DataFrame(group_rows("vader", (math.nan,) * 3, (math.nan,) * 3))
    text = readout.pooling_sentences(readout.pooling_table(evaluation, groups))
    assert "mean undefined, max undefined, last undefined" in text
    assert "no r under any pooling" in text and "ranks no group" in text


def test_the_auc_sentences_read_d02s_pooling_axis_per_label():
    rows = [{"scorer": scorer, "axis": "pooling", "value": pooling, "method": method, "roc_auc": auc}
            for scorer, aucs in (("dt_forced", {"RR": (0.7, 0.4, 0.45), "SEAT": (0.6, 0.5, 0.5)}),
                                 ("vader", {"RR": (math.nan,) * 3, "SEAT": (math.nan,) * 3}))
            for method, values in aucs.items() for pooling, auc in zip(POOLINGS, values, strict=True)]
    rows.append({"scorer": "dt_forced", "axis": "anchors", "value": "neutral 50", "method": "RR", "roc_auc": 0.9})
    labels = pd.DataFrame({"scorer": ["dt_forced", "vader"], "n_increased": [20, 0], "n_pairs": [168, 168]})
    forced, vader = readout.auc_sentences(pd.DataFrame(rows), labels).splitlines()
    assert "RR mean 0.70, max 0.40, last 0.45; SEAT mean 0.60, max 0.50, last 0.50" in forced
    assert "RR above SEAT under mean; RR strongest under mean; RR below chance" in forced
    assert forced.endswith("under max, last.")
    assert vader == "- **vader** (0 of 168 pairs increased): no ROC under any pooling, its labels hold one class."
