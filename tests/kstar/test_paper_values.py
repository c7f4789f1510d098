"""lib.kstar.evidence.paper_values: the k* cells a reported value is read on, and why one is not measured."""

import math

import pandas as pd
import pytest

from lib.kstar.evidence import paper_values

TABLE = pd.DataFrame({"model": ["google/gemma-2-9b", "meta-llama/Llama-3.1-8B"], "task": ["harmfulness"] * 2,
                      "kstar": [341.0, 200.0]})


def test_cells_by_task_and_model_suffix():
    assert list(paper_values.cells(TABLE, "harmfulness", "gemma-2-9b")) == [341.0]
    assert list(paper_values.cells(TABLE, "harmfulness")) == [341.0, 200.0]
    assert paper_values.cells(TABLE, "routing").empty


def test_unmeasured_names_the_profile_and_keeps_an_extra_reason():
    assert paper_values.unmeasured(TABLE, ["m"], ["t"], "harmfulness") == ""
    assert paper_values.unmeasured(TABLE, ["m"], ["t"], "harmfulness", extra="few classes") == "few classes"
    reason = paper_values.unmeasured(TABLE, ["minilm"], ["bbc_topic"], "routing", extra="few classes")
    assert reason.startswith("the paper prints this value for routing on its ten base models; this profile reads "
                             "minilm on bbc_topic") and reason.endswith("; few classes")


def test_value_summarises_the_matching_cells():
    assert paper_values.value(TABLE, "harmfulness", "gemma-2-9b") == 341.0
    assert paper_values.value(TABLE, "harmfulness", how="min") == 200.0
    assert paper_values.value(TABLE, "harmfulness", how="max") == 341.0
    assert paper_values.value(TABLE, "harmfulness", how="median") == 270.5
    assert math.isnan(paper_values.value(TABLE, "routing", how="max"))
    with pytest.raises(ValueError, match="how='mean'"):
        paper_values.value(TABLE, "harmfulness", how="mean")
