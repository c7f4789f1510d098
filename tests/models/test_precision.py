"""lib.models.precision: bfloat16 where the hardware has the units, float32 (said once) where it has not."""

from __future__ import annotations

import pytest
import torch

from lib.models import precision


def test_the_cpu_flags_decide(tmp_path):
    with_units, without = tmp_path / "with", tmp_path / "without"
    with_units.write_text("processor : 0\nflags : fpu sse avx512f avx512_bf16\n")
    without.write_text("processor : 0\nflags : fpu sse avx512f\n")
    assert precision.cpu_has_bf16(with_units) and not precision.cpu_has_bf16(without)
    assert not precision.cpu_has_bf16(tmp_path / "absent")


def test_without_units_the_loop_trains_in_float32_and_says_so_once(monkeypatch, capsys):
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: False)
    precision._say_float32.cache_clear()
    assert precision.training_precision("cpu") == precision.training_precision("cpu") == "float32"
    assert capsys.readouterr().err.splitlines() == [
        "training in float32: this CPU has no bfloat16 units (avx512_bf16 or amx_bf16)"]
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: True)
    assert precision.training_precision(torch.device("cpu")) == "bfloat16"


def test_autocast_runs_products_in_bfloat16_and_float32_leaves_them_alone():
    a = torch.randn(8, 8)
    with precision.autocast("cpu", "bfloat16"):
        assert (a @ a).dtype == torch.bfloat16
    with precision.autocast("cpu", "float32"):
        assert (a @ a).dtype == torch.float32
    with pytest.raises(ValueError, match="precision='fp8' is not one of bfloat16, float32"):
        precision.autocast("cpu", "fp8")
