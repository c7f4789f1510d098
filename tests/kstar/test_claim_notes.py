"""lib.kstar.evidence.claim_notes: the populations, notes and mechanisms of K01's and K02's claims, on
hand-built tables."""

import math

import numpy as np
import pandas as pd

from lib.kstar.evidence import claim_notes
from lib.kstar.protocol import counts
from tests.kstar.test_seed_draws import _window


def test_split_precision_and_note_name_the_small_split():
    window = pd.concat([_window({"big": {1: 4}}, dense=0.98, n_pos=150, n_neg=150),
                        _window({"small": {1: 4}}, dense=0.92, n_pos=52, n_neg=52)], ignore_index=True)
    precision = claim_notes.split_precision(counts.window_ceilings(window)).set_index("task")
    assert precision.n_test.to_dict() == {"big": 300, "small": 104}
    assert precision.se_above_gap.to_dict() == {"big": False, "small": True}
    note = claim_notes.split_note(precision.reset_index())
    assert note.startswith("1 of 2 model × task cells") and "small's test split holds 104 texts" in note
    assert "small" not in claim_notes.split_note(precision.reset_index(), ["big"])


def test_count_span_note_reads_the_widest_model():
    tasks = pd.DataFrame({"model": ["a", "a", "a", "b", "b"], "task": ["x", "y", "z", "x", "y"],
                          "kstar": [16.0, 128.0, 2.0, 4.0, math.inf], "flagged": [False, False, True, False, False]})
    assert claim_notes.count_span_note(tasks).startswith("the finite counts of one model's readable tasks span at "
                                                         "most a factor 8 (a: 16 to 128)")
    only_b = tasks[tasks.model == "b"]
    assert claim_notes.count_span_note(only_b) == "no model has two readable tasks with finite counts"


COMPARE = pd.DataFrame({"model": "m", "task": ["bbc", "sent", "subj", "debate", "stress"],
                        "kstar_main": [16.0, 256.0, 16.0, math.inf, 64.0],
                        "kstar_control": [8.0, math.inf, 33.0, math.inf, 32.0],
                        "ratio": [0.5, math.inf, 33 / 16, 1.0, 0.5],
                        "ceiling_main": [0.998, 0.813, 0.986, 0.902, 0.832],
                        "ceiling_control": [0.998, 0.802, 0.980, 0.910, 0.827]})


def test_readable_factors_keep_finite_counts_of_readable_tasks():
    factors = claim_notes.readable_factors(COMPARE)
    assert factors.to_dict() == {"bbc": 2.0, "subj": 33 / 16}
    note = claim_notes.left_out_note(COMPARE)
    assert note == ("left out: sent (ceiling 0.802 ≤ 0.9, flagged), debate (∞ in both readings), "
                    "stress (ceiling 0.827 ≤ 0.9, flagged)")


def test_ceiling_change_mechanism_names_the_task_and_both_files():
    compare = COMPARE.assign(ceiling_control=[0.998, 0.83, 0.983, 0.931, 0.956],
                             ceiling_change=lambda t: t.ceiling_control - t.ceiling_main)
    lengths = pd.DataFrame({"task": compare.task, "n_test": 300, "median_words": [300.0, 20, 21, 15, 1]})
    text = claim_notes.ceiling_change_mechanism(compare, lengths, "format.parquet", "format_texts.parquet")
    assert text.startswith("the change is stress's, whose texts hold a median of 1 word against 15–300 for the "
                           "other tasks (format_texts.parquet): its ceiling goes from 0.832 (flagged: ≤ 0.9) to 0.956")
    assert text.endswith("the other 4 tasks move by at most 0.029 (format.parquet)")
    assert np.isclose(compare.ceiling_change.abs().drop(index=4).max(), 0.029)


def test_log2_near_ceiling_ratio_reads_the_largest_near_pair():
    tasks = pd.DataFrame({"model": "a", "task": ["x", "y", "z"], "kstar": [4.0, 256.0, 1.0],
                          "ceiling": [1.0, 0.9785, 0.92], "flagged": False})
    assert claim_notes.log2_near_ceiling_ratio(tasks) == 6.0  # the paper's pair: 4 and 256 at 0.0215 apart
    assert math.isnan(claim_notes.log2_near_ceiling_ratio(tasks, 0.01))
