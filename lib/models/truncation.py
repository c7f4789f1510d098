"""A model's inputs within a token limit (paper 002, A.1.2, "Tokenization" and "Input format").

A raw text is cut on the right by the tokenizer (its special tokens kept). A chat input is cut inside its user
text: the text's tokens are shortened until the rendered conversation fits, so the template's head (a default
system prompt included), the end of the user turn and the generation prompt always survive and the last position
is the one at which the model would begin its reply. A user turn may wrap the text in a frame, an instruction with a
``{text}`` slot (K07's question to the generator, A.2.6): the text alone is cut, the frame kept whole. Every length
counts the rendered string tokenized with the tokenizer's default special tokens, as the forward pass reads it
(:mod:`lib.models.extraction`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

TEXT_SLOT = "{text}"  #: where a frame takes its text; the frame of a bare user turn is the slot alone


@dataclass(frozen=True)
class Inputs:
    """The strings a tokenizer receives, the tokens of each text alone (no template, no special tokens) and how
    many of them reach the model (A.1.2)."""

    strings: list[str]
    text_tokens: np.ndarray
    kept_tokens: np.ndarray

    def summary(self) -> dict[str, float | int]:
        """The share of texts cut and the text tokens kept (median, min, max)."""
        kept = self.kept_tokens
        return {"n_texts": len(kept), "truncated": float(np.mean(kept < self.text_tokens)),
                "kept_median": float(np.median(kept)), "kept_min": int(kept.min()), "kept_max": int(kept.max())}


def _text_lengths(tokenizer, texts: Sequence[str]) -> np.ndarray:
    """Tokens of each text alone, without special tokens."""
    return np.array([len(tokenizer(t, add_special_tokens=False, verbose=False)["input_ids"]) for t in texts])


def _length(tokenizer, string: str) -> int:
    """Tokens of ``string`` with the tokenizer's default special tokens: what the forward pass reads."""
    return len(tokenizer(string, add_special_tokens=True, verbose=False)["input_ids"])


def check_frame(frame: str, name: str = "frame") -> None:
    """ValueError naming the parameter ``name`` unless ``frame`` holds exactly one ``{text}`` slot."""
    if frame.count(TEXT_SLOT) != 1:
        raise ValueError(f"{name}={frame!r} holds {frame.count(TEXT_SLOT)} {TEXT_SLOT} slots; allowed: exactly one")


def render_chat(tokenizer, template: str | None, text: str, frame: str = TEXT_SLOT) -> str:
    """``text`` in ``frame``'s slot as one user turn of ``template`` (None: the tokenizer's own) followed by the
    generation prompt."""
    return tokenizer.apply_chat_template([{"role": "user", "content": frame.replace(TEXT_SLOT, text)}],
                                         chat_template=template, tokenize=False, add_generation_prompt=True)


def chat_overhead(tokenizer, template: str | None, frame: str = TEXT_SLOT) -> int:
    """Tokens the chat format and ``frame`` add around an empty text (system prompt, turn markers, the frame's
    words, generation prompt, special tokens)."""
    return _length(tokenizer, render_chat(tokenizer, template, "", frame))


def _check_chat_limit(max_tokens: int, overhead: int) -> None:
    """ValueError unless ``max_tokens`` holds the chat format and at least one token of the text."""
    if max_tokens <= overhead:
        raise ValueError(f"max_tokens={max_tokens} cannot hold the chat template's {overhead} tokens and a text; "
                         f"allowed: at least {overhead + 1}")


def _fit_chat_text(tokenizer, template: str | None, text: str, max_tokens: int, overhead: int,
                   frame: str) -> tuple[str, int, int]:
    """(rendered input, text tokens, text tokens kept): the longest prefix of ``text``, cut at a token boundary of
    the text alone, whose rendering in ``frame`` fits ``max_tokens``; shortened again by the excess when tokens
    merge across the template's or the frame's boundary."""
    encoding = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
    n_tokens = len(encoding["input_ids"])
    rendered = render_chat(tokenizer, template, text, frame)
    if _length(tokenizer, rendered) <= max_tokens:
        return rendered, n_tokens, n_tokens
    kept = min(n_tokens, max_tokens - overhead)
    while kept >= 1:
        rendered = render_chat(tokenizer, template, text[:encoding["offset_mapping"][kept - 1][1]], frame)
        excess = _length(tokenizer, rendered) - max_tokens
        if excess <= 0:
            return rendered, n_tokens, kept
        kept -= excess
    raise ValueError(f"max_tokens={max_tokens} keeps no token of the text {text[:40]!r} inside the chat template; "
                     f"allowed: a larger max_tokens")


def fit_chat(tokenizer, template: str | None, texts: Sequence[str], max_tokens: int | None,
             frame: str = TEXT_SLOT) -> Inputs:
    """Each text in ``frame``'s slot as one user turn plus the generation prompt, the text cut so the whole input
    fits ``max_tokens`` (None: no limit) (A.1.2)."""
    check_frame(frame)
    if max_tokens is None:
        lengths = _text_lengths(tokenizer, texts)
        return Inputs([render_chat(tokenizer, template, t, frame) for t in texts], lengths, lengths)
    if not tokenizer.is_fast:
        raise ValueError(f"tokenizer {type(tokenizer).__name__} has no token offsets; allowed: a fast tokenizer, "
                         "which cutting a chat input inside its user text needs")
    overhead = chat_overhead(tokenizer, template, frame)
    _check_chat_limit(max_tokens, overhead)
    fitted = [_fit_chat_text(tokenizer, template, t, max_tokens, overhead, frame) for t in texts]
    return Inputs([f[0] for f in fitted], np.array([f[1] for f in fitted]), np.array([f[2] for f in fitted]))


def fit_raw(tokenizer, texts: Sequence[str], max_tokens: int | None) -> Inputs:
    """The raw texts, unchanged: the tokenizer cuts each on the right at ``max_tokens`` with its special tokens
    kept, so a text keeps at most ``max_tokens`` minus those (A.1.2)."""
    lengths = _text_lengths(tokenizer, texts)
    if max_tokens is None:
        return Inputs(list(texts), lengths, lengths)
    return Inputs(list(texts), lengths, np.minimum(lengths, max(max_tokens - _length(tokenizer, ""), 0)))
