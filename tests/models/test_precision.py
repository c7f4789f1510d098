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


def tiny_lora_model() -> torch.nn.Module:
    """A frozen two-layer network with a trainable adapter-like layer and an output tied to an embedding."""
    torch.manual_seed(0)
    model = torch.nn.Module()
    model.embed = torch.nn.Embedding(10, 16)
    model.frozen = torch.nn.Linear(16, 32)
    model.adapter = torch.nn.Linear(32, 32, bias=False)
    model.out = torch.nn.Linear(32, 16)
    model.head = torch.nn.Linear(16, 10, bias=False)
    model.head.weight = model.embed.weight  # a tied output layer
    for module in (model.embed, model.frozen, model.out):
        module.requires_grad_(False)
    return model


def loss_and_gradient(model: torch.nn.Module) -> tuple[torch.Tensor, torch.Tensor]:
    tokens = torch.arange(8) % 10
    with precision.autocast("cpu", "bfloat16"):
        hidden = model.frozen(model.embed(tokens))
        logits = model.head(model.out(hidden + model.adapter(hidden)))
    loss = torch.nn.functional.cross_entropy(logits.float(), tokens.flip(0))
    (gradient,) = torch.autograd.grad(loss, model.adapter.weight)
    return loss.detach(), gradient


def test_frozen_weights_cast_once_compute_what_autocast_computes_and_come_back():
    model = tiny_lora_model()
    originals = {name: p for name, p in model.named_parameters(remove_duplicate=False)}
    reference = loss_and_gradient(model)
    with precision.frozen_weights_in(model, "bfloat16") as cast:
        assert cast == 3  # frozen, out and the tied head; the trainable adapter and the embedding stay
        assert model.frozen.weight.dtype == model.frozen.bias.dtype == model.head.weight.dtype == torch.bfloat16
        assert model.adapter.weight.dtype == model.embed.weight.dtype == torch.float32
        # autocast makes the same bfloat16 copies at every product: bit for bit the same loss and gradient
        cast_once = loss_and_gradient(model)
    assert all(torch.equal(a, b) for a, b in zip(reference, cast_once, strict=True))
    assert {name: p for name, p in model.named_parameters(remove_duplicate=False)} == originals
    assert model.head.weight is model.embed.weight and model.frozen.weight.dtype == torch.float32
    with precision.frozen_weights_in(model, "float32") as cast:
        assert cast == 0 and model.frozen.weight is originals["frozen.weight"]


def test_frozen_weights_come_back_after_an_error():
    model = tiny_lora_model()
    weight = model.frozen.weight
    with pytest.raises(RuntimeError, match="step failed"), precision.frozen_weights_in(model, "bfloat16"):
        raise RuntimeError("step failed")
    assert model.frozen.weight is weight
    with pytest.raises(ValueError, match="precision='fp8'"), precision.frozen_weights_in(model, "fp8"):
        pass
