"""lib.models.chat_templates: the chat templates a tokenizer does not carry, rendered by transformers."""

import pytest

from lib.models import chat_templates, loading, registry


def test_every_template_a_registry_row_names_exists():
    named = {spec.chat_template for spec in registry.REGISTRY.values() if spec.chat_template}
    assert named and named <= set(chat_templates.TEMPLATES)


def test_the_gemma3_template_refuses_a_system_turn():
    tokenizer = loading.cached_tokenizer(str(loading.model_folder("tiny-bert")))
    turns = [{"role": "user", "content": "q"}, {"role": "assistant", "content": " a "}]
    assert tokenizer.apply_chat_template(turns, chat_template=chat_templates.GEMMA3_IT, tokenize=False) == \
        "<start_of_turn>user\nq<end_of_turn>\n<start_of_turn>model\na<end_of_turn>\n"
    with pytest.raises(Exception, match="user and assistant turns only"):
        tokenizer.apply_chat_template([{"role": "system", "content": "s"}], chat_template=chat_templates.GEMMA3_IT,
                                      tokenize=False)
