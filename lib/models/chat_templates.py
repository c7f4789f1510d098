"""Chat templates a model's own tokenizer does not carry, passed to ``apply_chat_template`` by name.

A base checkpoint ships without a chat template, yet paper 002's weights × format factorial (App. A.3.2,
"Conditions") reads the base weights in the chat format of their instruction-tuned counterpart: both chat
cells render through one template string. :data:`TEMPLATES` holds those strings; a registry row names the one
its model renders with (:attr:`lib.models.registry.ModelSpec.chat_template`).
"""

from __future__ import annotations

#: Gemma 3's instruction-tuned turn format, as Google documents it ("Gemma formatting and system instructions",
#: ai.google.dev/gemma/docs/core/prompt-structure) and as the chat template of google/gemma-3-270m-it renders a
#: conversation of user and model turns: ``<start_of_turn>user\n{text}<end_of_turn>\n`` per turn, the content
#: trimmed, and ``<start_of_turn>model\n`` as the generation prompt. Two differences from that file, both
#: deliberate: no ``{{ bos_token }}`` (the Gemma tokenizer adds ``<bos>`` itself when the rendered string is
#: tokenized, so the file's template would start with two), and no system-message branch (the companion sends
#: one user turn; a system message is refused rather than silently dropped).
GEMMA3_IT = (
    "{%- for message in messages -%}"
    "{%- if message['role'] not in ('user', 'assistant') -%}"
    "{{ raise_exception('the Gemma 3 template renders user and assistant turns only') }}"
    "{%- endif -%}"
    "{{ '<start_of_turn>' + ('model' if message['role'] == 'assistant' else 'user') + '\\n' "
    "+ (message['content'] | trim) + '<end_of_turn>\\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<start_of_turn>model\\n' }}{%- endif -%}"
)

TEMPLATES: dict[str, str] = {"gemma3-it": GEMMA3_IT}
