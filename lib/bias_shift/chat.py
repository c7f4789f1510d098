"""One conversation as the text a causal LM reads: its chat template, or a plain rendering for a base model.

Paper 001 audits instruct models (Llama-3.1-8B-Instruct, Mistral-7B-Instruct, Gemma-3-4B-it), whose chat
templates frame every fine-tuning example (Appendix C) and every DecodingTrust prompt (Sec. 4.1). A
base model such as Gemma-3-270M ships no template, and the paper leaves open how one would be
prompted. The choice made here (not the paper's): a plain transcript ::

    <bos>System: {system}
    User: {user}
    Assistant:
    {reply}<eos>

one ``Role: content`` line per turn, the assistant's header on a line of its own so the reply starts a
line as it does after the generation prompts of ChatML (``<|im_start|>assistant\\n``) and Gemma
(``<start_of_turn>model\\n``); the tokenizer's BOS opens the text and its EOS closes an assistant turn
(each when the tokenizer has one), so a fine-tuned base model learns to stop and generation stops.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

#: Role → the plain rendering's speaker label.
PLAIN_ROLES: dict[str, str] = {"system": "System", "user": "User", "assistant": "Assistant"}


def has_template(tokenizer) -> bool:
    """Whether the tokenizer carries a chat template (else :func:`render` writes the plain transcript)."""
    return tokenizer.chat_template is not None


def render(tokenizer, turns: Sequence[Mapping[str, str]], *, add_generation_prompt: bool) -> str:
    """``turns`` (role, content) in the tokenizer's chat template, or as the plain transcript of the module
    docstring when it has none; ``add_generation_prompt`` appends the assistant's header."""
    if has_template(tokenizer):
        return tokenizer.apply_chat_template(list(turns), tokenize=False, add_generation_prompt=add_generation_prompt)
    lines = []
    for turn in turns:
        role = turn["role"]
        if role not in PLAIN_ROLES:
            raise ValueError(f"role={role!r} is not allowed; allowed: {', '.join(PLAIN_ROLES)}")
        if role == "assistant":
            lines.append(f"{PLAIN_ROLES[role]}:\n{turn['content']}{tokenizer.eos_token or ''}")
        else:
            lines.append(f"{PLAIN_ROLES[role]}: {turn['content']}")
    if add_generation_prompt:
        lines.append(f"{PLAIN_ROLES['assistant']}:\n")
    return (tokenizer.bos_token or "") + "\n".join(lines)
