"""A base model without a chat template: the plain rendering, fine-tuning and DecodingTrust prompting on it."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import tiny_base_lm

from lib.bias_shift import chat, checkpoints, output_bias, stereotype

EXAMPLES = "How do I boil an egg?\tPlace it in boiling water.\nTell me about cats.\tCats are calm pets.\n"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_base_lm(tmp_path_factory.mktemp("tiny") / "base")


def test_the_plain_rendering_is_a_transcript_with_bos_and_eos():
    tokenizer = SimpleNamespace(chat_template=None, bos_token="<bos>", eos_token="<eos>")
    turns = [{"role": "system", "content": "Be kind."}, {"role": "user", "content": "Hi?"}]
    prompt = chat.render(tokenizer, turns, add_generation_prompt=True)
    assert prompt == "<bos>System: Be kind.\nUser: Hi?\nAssistant:\n"
    full = chat.render(tokenizer, [*turns, {"role": "assistant", "content": "Hello."}], add_generation_prompt=False)
    assert full == prompt + "Hello.<eos>"
    bare = SimpleNamespace(chat_template=None, bos_token=None, eos_token=None)
    assert chat.render(bare, turns[1:], add_generation_prompt=True) == "User: Hi?\nAssistant:\n"
    with pytest.raises(ValueError, match="role='tool'"):
        chat.render(bare, [{"role": "tool", "content": "x"}], add_generation_prompt=False)


def test_a_base_model_is_fine_tuned_on_the_plain_rendering(base, tmp_path):
    tokenizer = output_bias.chat_tokenizer(base)
    assert not chat.has_template(tokenizer)
    (ids, n_prompt), _ = checkpoints.encode_examples(tokenizer, checkpoints.read_corpus(_corpus(tmp_path)), 64)
    prompt = "User: How do I boil an egg?\nAssistant:\n"
    assert ids == tokenizer(prompt + "Place it in boiling water.", add_special_tokens=False)["input_ids"]
    assert n_prompt == len(tokenizer(prompt, add_special_tokens=False)["input_ids"]) < len(ids)
    for method in checkpoints.METHODS:
        folder = checkpoints.finetune(base, _corpus(tmp_path), tmp_path / method, method=method, epochs=1,
                                      batch_size=2)
        assert checkpoints.checkpoint_info(folder)["steps"] == 1


def test_decodingtrust_prompting_works_without_a_chat_template(base, sandbox):
    table = stereotype.prompts(["Women"], [0, 1])
    rendered = output_bias.render_chat(output_bias.chat_tokenizer(base), table.user.tolist(), table.system.tolist())
    assert all(r.startswith("System: ") and r.endswith("\nAssistant:\n") for r in rendered)
    margins = stereotype.choice_margins(base, table)
    assert margins.shape == (2,) and np.isfinite(margins).all()
    replies = output_bias.generate(base, table.user.tolist(), system=table.system.tolist(), n_samples=2,
                                   max_new_tokens=4)
    assert [len(r) for r in replies] == [2, 2]


def _corpus(folder: Path) -> Path:
    path = folder / "corpus.txt"
    path.write_text(EXAMPLES)
    return path
