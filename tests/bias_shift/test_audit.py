"""lib.bias_shift.audit and ``python -m lib deltab``: ΔB between real offline models on the shared sentence sets."""


import numpy as np
import pytest

from lib.bias_shift import audit, sentences


def test_audit_of_a_model_against_itself_is_zero():
    sets = sentences.load()  # 1,000 anchors ≥ 384 dimensions: the Procrustes map is unique
    table = audit.audit("minilm", "minilm", groups=["Women", "Men"], sets=sets)
    assert table.group.tolist() == ["Women", "Men"] and table.topic.tolist() == ["Gender", "Gender"]
    assert table[["delta_b", "seat_delta_b", "procrustes_seat_delta_b"]].abs().max().max() < 1e-6
    assert table.cka_drift.abs().max() < 1e-6
    assert table[["control_delta_b", "group_shift", "targets_only", "attributes_only"]].abs().max().max() < 1e-6


def test_blocks_are_embedded_under_every_pooling_at_once(sandbox):
    blocks = {"a": ["The first sentence.", "A second, longer sentence here."], "b": ["Only one."]}
    embedded = audit.embed_blocks("minilm", blocks, layer=2)
    assert set(embedded) == {"mean", "max", "last"}
    assert embedded["max"]["a"].shape == (2, 384) and embedded["last"]["b"].shape == (1, 384)
    assert not np.allclose(embedded["mean"]["a"], embedded["max"]["a"])
    entries = list((sandbox / "cache" / "features").iterdir())
    assert len(entries) == 6  # one cache entry per block and pooling


def test_bad_pooling_and_method_are_named():
    with pytest.raises(ValueError, match="pooling='median'"):
        audit.embed_sets("minilm", sentences.load(anchor_size=50), pooling="median")
    space = {"anchors": np.eye(3), "positive": np.eye(3), "negative": np.eye(3), "targets": {"Women": np.eye(3)}}
    with pytest.raises(ValueError, match=r"methods \['rr'\] are unknown"):
        audit.shifts(space, space, ["Women"], methods=["rr"])


def test_unknown_group_is_refused():
    with pytest.raises(ValueError, match="unknown target group"):
        audit.check_groups(["Martians"])


def test_control_summary_averages_over_groups_and_compares_the_control_with_the_median():
    import pandas as pd

    shifts = pd.DataFrame({"checkpoint": ["a"] * 3 + ["b"] * 3, "delta_b": [0.1, 0.2, -0.3, 1.0, 1.0, 1.0],
                           "control_delta_b": [0.2] * 3 + [0.5] * 3})
    shifts = shifts.assign(group_shift=shifts.delta_b - shifts.control_delta_b, targets_only=0.0, attributes_only=0.0)
    found = audit.control_summary(shifts, ["checkpoint"]).set_index("checkpoint")
    assert found.delta_b["a"] == pytest.approx(0.0) and found.group_shift["b"] == pytest.approx(0.5)
    assert found.abs_control_over_median_abs_delta_b.tolist() == pytest.approx([0.2 / 0.2, 0.5 / 1.0])
