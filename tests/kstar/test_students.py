"""lib.kstar.label_budget.students: LoRA students of paper 002's label budget (App. A.4.1) on tiny random models."""

import numpy as np
import pytest
import torch

from lib.kstar.label_budget import students

WORDS = ["apple", "river", "stone", "cloud", "music", "paper", "green", "house"]


def adapted_modules(student) -> list[str]:
    """Names (inside the backbone's base model) of the modules peft wrapped with LoRA adapters."""
    from peft.tuners.lora import LoraLayer

    prefix = "base_model.model."
    return [name.removeprefix(prefix) for name, module in student.backbone.named_modules()
            if isinstance(module, LoraLayer)]


def planted(n: int, seed: int) -> tuple[list[str], np.ndarray]:
    """An easy task: positives contain "excellent", negatives "terrible", among random filler words."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    texts = [" ".join([*rng.choice(WORDS, 3), "excellent" if label else "terrible", *rng.choice(WORDS, 2)])
             for label in y]
    return texts, y


@pytest.mark.parametrize("model, expected", [
    ("tiny-bert", {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
                   "intermediate.dense", "output.dense"}),
    ("tiny-llama", {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.gate_proj",
                    "mlp.up_proj", "mlp.down_proj"}),
])
def test_lora_targets_every_attention_and_mlp_projection_of_every_block(model, expected):
    student, _ = students.build(model, seed=0)
    adapted = adapted_modules(student)
    for block in ("0", "1"):  # both blocks of the tiny model, each with every projection
        here = {name.split(f".{block}.", 1)[1] for name in adapted if f".{block}." in name}
        assert here == expected
    assert len(adapted) == 2 * len(expected)
    assert not any("pooler" in name or "embed" in name for name in adapted)
    trainable = {n for n, p in student.named_parameters() if p.requires_grad}
    assert trainable and all("lora_" in n or n.startswith("head.") for n in trainable)  # the backbone stays frozen


def test_last_positions_with_right_and_left_padding():
    right = torch.tensor([[1, 1, 0, 0], [1, 1, 1, 1], [1, 0, 0, 0]])
    left = torch.tensor([[0, 0, 1, 1], [1, 1, 1, 1], [0, 0, 0, 1]])
    assert students.last_positions(right).tolist() == [1, 3, 0]
    assert students.last_positions(left).tolist() == [3, 3, 3]
    with pytest.raises(ValueError, match="without tokens"):
        students.last_positions(torch.tensor([[1, 1], [0, 0]]))


@pytest.mark.parametrize("model", ["tiny-bert", "tiny-llama"])
def test_head_reads_the_last_real_token_whatever_the_padding(model):
    student, tokenizer = students.build(model, seed=1)
    texts = ["a much longer text with several words in it", "short one"]
    with torch.no_grad():
        alone = torch.cat([student(**{k: v for k, v in tokenizer([t], return_tensors="pt").items()
                                      if k in ("input_ids", "attention_mask")}) for t in texts])
        for side in ("right", "left"):
            tokenizer.padding_side = side
            batch = tokenizer(texts, return_tensors="pt", padding=True)
            logits = student(batch["input_ids"], batch["attention_mask"])
            hidden = student.backbone(input_ids=batch["input_ids"],
                                      attention_mask=batch["attention_mask"]).last_hidden_state
            width, short = batch["input_ids"].shape[1], int(batch["attention_mask"][1].sum())
            read = width - 1 if side == "left" else short - 1  # the short text's last real token
            assert torch.allclose(logits[1], student.head(hidden[1, read]), atol=1e-6)
            assert not torch.allclose(logits[1], student.head(hidden[1, width - 1 if side == "right" else 0]))
            if side == "right":  # right padding leaves positions unchanged: the batch equals each text alone
                assert torch.allclose(logits, alone, atol=1e-5)
    tokenizer.padding_side = "right"


def test_student_learns_a_planted_easy_task():
    texts, y = planted(32, seed=0)
    test_texts, y_test = planted(40, seed=1)
    settings = students.LoraSettings(rank=8, alpha=16, dropout=0.0, lr=5e-3)
    result = students.run("tiny-llama", texts, y.astype(float), test_texts, y_test, epochs=12, seed=0,
                          settings=settings, max_tokens=16)
    assert result.log.epoch_losses[-1] < 0.5 * result.log.epoch_losses[0]
    assert result.auroc > 0.9 and result.n == 32 and result.n_positive == 16
    assert result.log.steps == 12 * 2 and result.log.tokens > 0


def test_identical_seeds_give_identical_runs_and_other_seeds_differ():
    texts, y = planted(20, seed=2)
    test_texts, y_test = planted(20, seed=3)
    kwargs = {"epochs": 2, "settings": students.LoraSettings(lr=1e-3), "max_tokens": 16}
    a = students.run("tiny-bert", texts, y.astype(float), test_texts, y_test, seed=5, **kwargs)
    b = students.run("tiny-bert", texts, y.astype(float), test_texts, y_test, seed=5, **kwargs)
    c = students.run("tiny-bert", texts, y.astype(float), test_texts, y_test, seed=6, **kwargs)
    assert a.log.epoch_losses == b.log.epoch_losses and a.auroc == b.auroc
    assert a.log.epoch_losses != c.log.epoch_losses
    first, second = students.build("tiny-bert", 5)[0], students.build("tiny-bert", 5)[0]
    assert all(torch.equal(p, q) for p, q in zip(first.state_dict().values(), second.state_dict().values(),
                                                 strict=True))


@pytest.mark.parametrize("model", ["tiny-bert", "tiny-llama"])
def test_casting_the_frozen_backbone_once_trains_and_scores_the_same(model, monkeypatch):
    # autocast casts the frozen float32 weights to the same bfloat16 copies at every batch: bit for bit equal
    from lib.models import precision

    monkeypatch.setattr(precision, "training_precision", lambda device: "bfloat16")
    texts, y = planted(24, seed=5)

    def run() -> tuple[tuple[float, ...], np.ndarray]:
        student, tokenizer = students.build(model, seed=0)
        log = students.train(student, tokenizer, texts, y.astype(float), epochs=2, seed=0, lr=1e-3, max_tokens=16)
        assert all(p.dtype == torch.float32 for p in student.parameters())  # the float32 weights are back
        return log.epoch_losses, students.scores(student, tokenizer, texts, max_tokens=16)

    once = run()
    cast_once = precision.frozen_weights_in
    monkeypatch.setattr(precision, "frozen_weights_in", lambda module, _: cast_once(module, "float32"))
    every = run()
    assert once[0] == every[0] and np.array_equal(once[1], every[1])


def test_soft_targets_and_bad_input():
    student, tokenizer = students.build("tiny-bert", seed=0)
    texts, y = planted(8, seed=4)
    log = students.train(student, tokenizer, texts, np.full(8, 0.5), epochs=1, seed=0, lr=1e-3, max_tokens=16)
    assert len(log.epoch_losses) == 1 and log.epoch_losses[0] == pytest.approx(np.log(2), abs=0.05)
    with pytest.raises(ValueError, match="probabilities"):
        students.train(student, tokenizer, texts, y * 2.0, epochs=1, seed=0, lr=1e-3, max_tokens=16)
    with pytest.raises(ValueError, match="epochs=0"):
        students.train(student, tokenizer, texts, y, epochs=0, seed=0, lr=1e-3, max_tokens=16)
    with pytest.raises(ValueError, match="8 texts and 3 targets"):
        students.train(student, tokenizer, texts, y[:3], epochs=1, seed=0, lr=1e-3, max_tokens=16)
    with pytest.raises(ValueError, match="rank=0"):
        students.LoraSettings(rank=0)
    with pytest.raises(ValueError, match="seed=-1"):
        students.build("tiny-bert", -1)
