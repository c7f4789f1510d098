"""Pooled hidden states of every layer from one forward pass per batch (paper 000, Sec. VI-A), cached by content
(:mod:`lib.models.feature_cache`); token-level states for the SAEs of paper 002 (A.1.10)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager

import numpy as np

from lib import paths
from lib.models.chat_templates import TEMPLATES
from lib.models.feature_cache import cache_key, read_cache, write_cache
from lib.models.loading import cached_tokenizer, load, model_folder, n_layers
from lib.models.registry import REGISTRY
from lib.models.truncation import TEXT_SLOT, Inputs, fit_chat, fit_raw

POOLINGS = ("mean", "last", "max")


DTYPES = ("float32", "bfloat16", "float16")


def check_inputs(pooling: str, dtype: str, texts: Sequence[str]) -> None:
    if pooling not in POOLINGS:
        raise ValueError(f"pooling={pooling!r} is not supported; allowed: {', '.join(POOLINGS)}")
    if dtype not in DTYPES:
        raise ValueError(f"dtype={dtype!r} is not supported; allowed: {', '.join(DTYPES)}")
    if not texts or not all(isinstance(t, str) and t for t in texts):
        raise ValueError("texts must be a non-empty list of non-empty strings")


def _pool(hidden, mask, pooling: str):
    import torch

    if pooling == "mean":
        weights = mask.unsqueeze(-1).to(hidden.dtype)
        return (hidden * weights).sum(1) / weights.sum(1).clamp(min=1)
    if pooling == "max":
        return hidden.masked_fill(~mask.bool().unsqueeze(-1), torch.finfo(hidden.dtype).min).amax(1)
    last = mask.sum(1) - 1  # right padding: the last real token
    return hidden[torch.arange(hidden.shape[0]), last]


def _chat_template(name: str, tokenizer) -> str:
    """The chat template ``name`` renders with: its tokenizer's, or for a base release without one the template its
    registry row names, its instruction-tuned counterpart's (paper 002, A.3.2: one template string for both chat
    cells)."""
    spec = REGISTRY.get(name)
    template = tokenizer.chat_template or (TEMPLATES[spec.chat_template] if spec and spec.chat_template else None)
    if template is None:
        raise ValueError(f"chat_template=True but the tokenizer of {name!r} has no chat template and its registry "
                         "row names none (lib.models.registry.ModelSpec.chat_template)")
    return template


def input_lengths(name: str, texts: Sequence[str], chat_template: bool, max_tokens: int | None) -> Inputs:
    """The model's input strings within ``max_tokens`` with each text's tokens and the tokens kept (paper 002,
    A.1.2): raw texts are cut on the right by the tokenizer, a chat input inside its user text
    (:mod:`lib.models.truncation`)."""
    if not chat_template:
        return fit_raw(cached_tokenizer(str(model_folder(name))), texts, max_tokens)
    return chat_inputs(name, texts, max_tokens)


def chat_inputs(name: str, texts: Sequence[str], max_tokens: int | None, frame: str = TEXT_SLOT) -> Inputs:
    """Each text in ``frame``'s ``{text}`` slot as one user turn of the model's chat template (as
    :func:`_chat_template` finds it) followed by its generation prompt, the text cut so the whole input fits
    ``max_tokens``, with each text's tokens and the tokens kept (paper 002, A.1.2;
    :func:`lib.models.truncation.fit_chat`). Every chat input of paper 002's notebooks is rendered here, so each ends
    where the model's reply begins."""
    tokenizer = cached_tokenizer(str(model_folder(name)))
    return fit_chat(tokenizer, _chat_template(name, tokenizer), texts, max_tokens, frame)


def render(name: str, texts: Sequence[str], chat_template: bool, max_tokens: int | None = None) -> list[str]:
    """The model's input strings: the raw texts (the tokenizer cuts them at ``max_tokens``), or each text as one
    user turn of the model's chat template followed by its generation prompt, the user text cut so the whole
    input fits ``max_tokens`` (paper 002, A.1.2: what an instruction-tuned model sees before it answers; the
    template as :func:`_chat_template` finds it)."""
    if not chat_template:
        return list(texts)
    return input_lengths(name, texts, True, max_tokens).strings


#: Padded tokens per forward pass (texts × the batch's longest): short texts share large batches, long
#: ones small batches, so memory stays bounded while the per-call overhead of short texts is amortised.
TOKEN_BUDGET = 8192


#: Default cap on texts per forward pass (``batch_size``). On the 5,440 template prompts with MiniLM on 2
#: cores, 256 took 8.2 s against 9.3 s at 32, 8.6 s at 128 and 8.8 s at 512 (one run each).
MAX_BATCH_TEXTS = 256


def length_batches(lengths: Sequence[int], max_texts: int, token_budget: int) -> list[np.ndarray]:
    """Indices of the texts, sorted by token length (stable), cut into batches of at most ``max_texts`` texts
    whose padded size (texts × longest) stays within ``token_budget``; a text longer than the budget is alone."""
    if max_texts < 1 or token_budget < 1:
        raise ValueError(f"max_texts={max_texts!r}, token_budget={token_budget!r}; allowed: integers >= 1")
    order = np.argsort(np.asarray(lengths), kind="stable")
    batches, start = [], 0
    for end in range(1, len(order) + 1):
        too_many = end - start > max_texts
        too_big = (end - start) * int(lengths[order[end - 1]]) > token_budget and end - start > 1
        if too_many or too_big:
            batches.append(order[start:end - 1])
            start = end - 1
    if start < len(order):
        batches.append(order[start:])
    return batches


def compute_hidden_states(
    name: str, texts: Sequence[str], *, pooling: str = "mean", dtype: str = "float32", chat_template: bool = False,
    max_tokens: int | None = None, batch_size: int = MAX_BATCH_TEXTS, device: str | None = None, progress: bool = True,
) -> np.ndarray:
    """Pooled hidden states of every layer, shape (L + 1, n_texts, d), float32, no cache.

    Texts are tokenised once, sorted by token length and cut into batches of at most ``batch_size``
    texts and :data:`TOKEN_BUDGET` padded tokens (:func:`length_batches`: no padding beyond each
    batch's longest); one forward pass per batch returns all layers; padding is on the right so
    ``last`` is the last real token. ``max_tokens`` truncates
    each input to its first tokens, a chat input inside its user text so its generation prompt survives
    (:func:`render`; paper 002 reads 768; BERT-style encoders stop at 512).
    """
    check_inputs(pooling, dtype, texts)
    check_max_tokens(max_tokens)
    return _compute(name, render(name, texts, chat_template, max_tokens), (pooling,), None, dtype, max_tokens,
                    batch_size, device, progress)[pooling]


def check_max_tokens(max_tokens: int | None) -> None:
    if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1):
        raise ValueError(f"max_tokens={max_tokens!r} is not allowed; allowed: None or an integer >= 1")


@contextmanager
def _on_device(model, device: str):
    """``model`` on ``device`` for the block, back on the CPU after it: an accelerator holds one model at a time
    (the loader's cache keeps models in host memory, and a notebook reads several in turn)."""
    model.to(device)
    try:
        yield model
    finally:
        if device != "cpu":
            import torch

            model.to("cpu")
            torch.cuda.empty_cache()


def _compute(name: str, prepared: Sequence[str], poolings: Sequence[str], layers: Sequence[int] | None, dtype: str,
             max_tokens: int | None, batch_size: int, device: str | None, progress: bool) -> dict[str, np.ndarray]:
    """Pooling → hidden states of ``layers`` (None: all), each (n_layers, n_texts, d), from one forward pass."""
    import torch

    from lib.progress import tracked

    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    # On a CPU always float32: bfloat16 there was at most 2.6x faster (AMX) and off by up to 6 % (bench_half_precision).
    compute_dtype = dtype if device != "cpu" else "float32"
    model, tokenizer = load(name, compute_dtype)
    tokenizer.padding_side = "right"
    truncation = {"truncation": True, "max_length": max_tokens} if max_tokens is not None else {}
    tokenized = tokenizer(list(prepared), add_special_tokens=True, **truncation)  # once: lengths and batches
    lengths = np.array([len(ids) for ids in tokenized["input_ids"]])
    out: dict[str, np.ndarray] = {}
    with _on_device(model, device), torch.inference_mode():
        for rows in tracked(length_batches(lengths, batch_size, TOKEN_BUDGET), f"extract {name}", shown=progress):
            encoded = tokenizer.pad({key: [values[i] for i in rows] for key, values in tokenized.items()},
                                    return_tensors="pt").to(device)
            hidden = model(**encoded, output_hidden_states=True).hidden_states
            chosen = hidden if layers is None else [hidden[layer] for layer in layers]
            for pooling in poolings:
                pooled = torch.stack([_pool(h, encoded["attention_mask"], pooling) for h in chosen]).float().cpu()
                if pooling not in out:
                    out[pooling] = np.empty((pooled.shape[0], len(prepared), pooled.shape[2]), dtype=np.float32)
                out[pooling][:, rows] = pooled.numpy()
    return out


def extract(
    name: str, texts: Sequence[str], *, pooling: str = "mean", layers: str | Sequence[int] = "all",
    dtype: str = "float32", chat_template: bool = False, max_tokens: int | None = None,
    batch_size: int = MAX_BATCH_TEXTS, device: str | None = None, progress: bool = True,
) -> np.ndarray:
    """Pooled hidden states, shape (n_layers_requested, n_texts, d), float32, cached on disk.

    ``layers``: "all" (embeddings + every layer) or layer indices (0 = embeddings; index L of a
    pre-norm decoder is read *after* its final norm in transformers ≥ 5). ``chat_template`` renders
    each text as a user turn plus the generation prompt; ``max_tokens`` truncates, a chat input inside its
    user text (:func:`render`).
    The cache key is the weights hash, the rendered texts, pooling, dtype, the chat flag and the
    token limit; each layer is one memory-mapped ``.npy`` with its SHA-256 in the entry's manifest, and
    only requested layers are stored; a truncated entry, or one whose bytes no longer match their
    checksum, is recomputed (a mismatch is reported in one line).
    """
    return extract_poolings(name, texts, poolings=(pooling,), layers=layers, dtype=dtype, chat_template=chat_template,
                            max_tokens=max_tokens, batch_size=batch_size, device=device, progress=progress)[pooling]


def extract_poolings(
    name: str, texts: Sequence[str], *, poolings: Sequence[str] = POOLINGS, layers: str | Sequence[int] = "all",
    dtype: str = "float32", chat_template: bool = False, max_tokens: int | None = None,
    batch_size: int = MAX_BATCH_TEXTS, device: str | None = None, progress: bool = True,
) -> dict[str, np.ndarray]:
    """:func:`extract` for several poolings at once: pooling → states; the poolings not cached share one pass.

    Paper 001's pooling ablation (Appendix E.4) needs mean, max and last of the same sentences;
    they come from the same hidden states, so one forward pass serves all three.
    """
    if not poolings or len(set(poolings)) != len(poolings):
        raise ValueError(f"poolings={tuple(poolings)!r} is not allowed; allowed: distinct values of {POOLINGS}")
    for pooling in poolings:
        check_inputs(pooling, dtype, texts)
    check_max_tokens(max_tokens)
    total = n_layers(name) + 1
    wanted = list(range(total)) if layers == "all" else [int(layer) for layer in layers]
    if layers != "all" and (not wanted or min(wanted) < 0 or max(wanted) >= total):
        raise ValueError(f"layers={layers!r} is out of range; allowed: 'all' or indices 0..{total - 1}")
    prepared = render(name, texts, chat_template, max_tokens)
    folders = {p: paths.FEATURES_CACHE_DIR / cache_key(name, prepared, p, dtype, chat_template, max_tokens)
               for p in poolings}
    found = {p: read_cache(folders[p], wanted) for p in poolings}
    missing = [p for p in poolings if found[p] is None]
    if missing:
        computed = _compute(name, prepared, missing, None if layers == "all" else wanted, dtype, max_tokens,
                            batch_size, device, progress)
        for pooling in missing:
            write_cache(folders[pooling], wanted, total, computed[pooling])
            found[pooling] = computed[pooling]
    return found


def token_states(
    name: str, texts: Sequence[str], *, layers: Sequence[int], chat_template: bool = False,
    max_tokens: int | None = None, batch_size: int = MAX_BATCH_TEXTS, device: str | None = None, progress: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Hidden states of every real (non-padding) token, not pooled and not cached.

    Returns ``(states, text_index)``: ``states`` (len(layers), n_tokens, d) float32 with the tokens of
    text 0 first, in input order; ``text_index[t]`` the text token ``t`` belongs to. For what needs
    token-level activations (paper 002's offline SAEs are trained on them, A.1.10); pooled features
    go through :func:`extract`.
    """
    import torch

    from lib.progress import tracked

    check_inputs("mean", "float32", texts)
    check_max_tokens(max_tokens)
    total = n_layers(name) + 1
    wanted = [int(layer) for layer in layers]
    if not wanted or min(wanted) < 0 or max(wanted) >= total:
        raise ValueError(f"layers={list(layers)!r} is out of range; allowed: indices 0..{total - 1}")
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    model, tokenizer = load(name)
    tokenizer.padding_side = "right"
    truncation = {"truncation": True, "max_length": max_tokens} if max_tokens is not None else {}
    prepared = render(name, texts, chat_template, max_tokens)
    chunks, owners = [], []
    with _on_device(model, device), torch.inference_mode():
        for start in tracked(range(0, len(prepared), batch_size), f"tokens {name}", shown=progress):
            encoded = tokenizer(prepared[start:start + batch_size], return_tensors="pt", padding=True,
                                **truncation).to(device)
            hidden = model(**encoded, output_hidden_states=True).hidden_states
            mask = encoded["attention_mask"].bool()
            chunks.append(torch.stack([hidden[layer][mask] for layer in wanted]).float().cpu().numpy())
            owners.append(start + np.repeat(np.arange(mask.shape[0]), mask.sum(1).cpu().numpy()))
    return np.concatenate(chunks, axis=1), np.concatenate(owners)
