"""Interventions on a selected support: ablation in feature space and inside the model (paper 002, App. A.2.6).

A.2.6 asks "whether removing a selected support changes the behavior that the class decision describes,
and whether equally large edits in other directions leave the behavior intact". Only its findings survived
the text extraction (Sec. 5, statement 5): "selected residual coordinates are sufficient but not necessary
for harmfulness readability", and "selected language features drive reply-language adaptation in
Gemma-2-9B-IT". Its procedure, edit sizes, seeds and tables were lost; everything below is a
*reconstruction* whose choices are fixed here (seeds included) and tested:

Feature space — readability (:func:`ablation_searches`, :func:`summary_table`):

- the support S of a class decision is the smallest qualifying candidate of the preliminary sweep at the
  task's best block in mean pooling (:func:`supports`: A.1.6's best block, A.1.10's support rule applied
  to residual coordinates);
- ablation replaces the columns S of both splits by 0 (``zero``) or by their training-split means
  (``mean``); Algorithm 1 is then run again on the ablated features and the ceiling and count re-measured.
  Zero and mean ablation give *identical* fits: a constant column standardises to exact zeros (Eq. 6), and
  a constant added to every score leaves an AUROC unchanged, so in feature space the two modes differ in
  nothing — they differ only inside the model, whose later blocks are nonlinear;
- sufficiency: FitScore (A.1.4) on the columns S alone (the same fit as ablating every other column);
- controls: equal-size random coordinate sets, one per random seed, drawn outside S (from all coordinates
  when fewer than |S| lie outside), ``default_rng([seed, crc32(key)])``;
- measurement: the seeds of A.1.6 (85% stratified training subsamples, fixed test split) at S's block
  only. C is the largest dense AUROC of the unablated features over those seeds, τ = ½ + frac·(C − ½)
  (Eq. 4) serves every condition of the decision, and a count is the ext_median over seeds (Eq. 15) of
  the local count at τ (Eq. 5, :func:`lib.kstar.protocol.rules.logged_local_counts`) — one block, so no
  neighbour confirmation (a choice).

Inside the model — behaviour (:func:`ablation_hook`, :func:`generation_prompts`): a forward hook on decoder
block ℓ replaces coordinates S of the block's output at every position (prompt and generated tokens) by 0
or by the training means of the mean-pooled features. Block ℓ's output is the hidden state the features
pool (A.1.2, "Layer convention"), so the edit acts on the coordinates the probe read. The output change is
read from the model itself (no external scorer): the log-probabilities of two fixed answers' first tokens
at the first reply position (their log-odds margin, its mean absolute change and its AUROC against the
labels) and greedy replies (the share that change), all from one generation pass per condition. The
support's effect is read against the random sets as a log2 ratio of mean margin changes with a bootstrap
s.e. over prompts and sets (:func:`margin_ratio`).
"""

from __future__ import annotations

import contextlib
import math
import zlib
from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd

from lib import stats
from lib.kstar import measure
from lib.kstar.protocol import counts, fitscore, probe_search, rules, splits
from lib.kstar.sae import sae_measure
from lib.models import extraction, loading, truncation

MODES = ("zero", "mean")  #: ablation values: 0, or the training-split mean of each coordinate
RANDOM_SEEDS = (0, 1, 2, 3, 4)  #: equal-size random coordinate sets per support (a choice: A.2.6's seeds were lost)
PROMPT_COLUMNS = ("condition", "set_seed", "mode", "set_size", "edit_norm", "prompt", "label", "margin",
                  "margin_change", "reply_changed")  #: generation_prompts'
GENERATION_COLUMNS = ("condition", "set_seed", "mode", "set_size", "edit_norm", "margin_mean", "margin_change",
                      "behaviour_auroc", "replies_changed", "n_prompts")  #: generation_table's
SUMMARY_COLUMNS = ("support_size", "ceiling", "tau", "se", "tolerance", "count", "ceiling_zero", "count_zero",
                   "ceiling_mean", "count_mean", "random_ceiling", "random_ceiling_min", "random_ceiling_max",
                   "random_count", "random_overlap", "support_only", "random_only", "recovery_ablated",
                   "random_recovery", "recovery_support_only", "sufficient", "necessary")  #: after the labels
_MEASURE = ("condition", "set_seed", "mode", "operation", "set_size", "overlap", "seed", "n_test_pos", "n_test_neg",
            "path", "size", "auroc")


def check_coords(coords, n_features: int, name: str = "coords") -> np.ndarray:
    """``coords`` as a sorted int array: non-empty, distinct integers in 0 … n_features − 1, else ValueError."""
    values = list(coords)
    if not values:
        raise ValueError(f"{name} is empty; allowed: one or more coordinates in 0…{n_features - 1}")
    bad = [c for c in values if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer))]
    if bad:
        raise ValueError(f"{name} holds {bad[:3]!r}; allowed: integer coordinates in 0…{n_features - 1}")
    out = np.asarray(values, dtype=int)
    outside = out[(out < 0) | (out >= n_features)]
    if outside.size:
        raise ValueError(f"{name} holds {outside[:3].tolist()!r}; allowed: coordinates in 0…{n_features - 1}")
    if np.unique(out).size != out.size:
        raise ValueError(f"{name}={values!r} repeats a coordinate; allowed: distinct coordinates")
    return np.sort(out)


def _seeds(seeds, name: str) -> tuple[int, ...]:
    seeds = tuple(seeds)
    if not seeds or any(isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0 for s in seeds):
        raise ValueError(f"{name}={seeds!r}; allowed: one or more integers >= 0")
    return tuple(int(s) for s in seeds)


def ablation_values(coords, mode: str, means=None) -> np.ndarray:
    """The values written into ``coords``: zeros (``zero``) or ``means[coords]`` (``mean``, one mean per coordinate)."""
    if mode not in MODES:
        raise ValueError(f"mode={mode!r}; allowed: {', '.join(map(repr, MODES))}")
    if mode == "zero":
        return np.zeros(len(list(coords)))
    if means is None:
        raise ValueError("mode='mean' needs means; allowed: one value per coordinate")
    means = np.asarray(means, dtype=np.float64)
    if means.ndim != 1:
        raise ValueError(f"means must be one value per coordinate (one-dimensional); got shape {means.shape}")
    return means[check_coords(coords, means.size)]


def ablate(X, coords, mode: str, means=None) -> np.ndarray:
    """A float64 copy of X (texts × features) with the columns ``coords`` set to 0 or to ``means[coords]``."""
    X = np.array(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be a two-dimensional (texts × features) matrix; got shape {X.shape}")
    if means is not None and np.shape(means) != (X.shape[1],):
        raise ValueError(f"means has shape {np.shape(means)}; allowed: one value per feature, ({X.shape[1]},)")
    cols = check_coords(coords, X.shape[1])
    X[:, cols] = ablation_values(cols, mode, means)
    return X


def random_sets(n_features: int, size: int, exclude, seeds: Sequence[int] = RANDOM_SEEDS, key: str = ""
                ) -> list[tuple[int, ...]]:
    """One random coordinate set of ``size`` per seed, drawn without replacement outside ``exclude`` (from all
    ``n_features`` when fewer than ``size`` lie outside), by ``default_rng([seed, crc32(key)])``: sorted tuples."""
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not 1 <= size <= n_features:
        raise ValueError(f"size={size!r}; allowed: an integer in 1…{n_features}")
    excluded = check_coords(exclude, n_features, "exclude") if len(exclude) else np.array([], dtype=int)
    outside = np.setdiff1d(np.arange(n_features), excluded)
    pool = outside if outside.size >= size else np.arange(n_features)
    out = []
    for seed in _seeds(seeds, "seeds"):
        rng = np.random.default_rng([seed, zlib.crc32(key.encode())])
        out.append(tuple(int(j) for j in np.sort(rng.choice(pool, size=int(size), replace=False))))
    return out


def set_key(model: str, task: str, decision: str) -> str:
    """The key that seeds a decision's random sets, shared by the feature-space and the in-model ablation."""
    return f"{model}/{task}/{decision}"


def supports(sweep: pd.DataFrame, frac: float = rules.FRAC) -> pd.DataFrame:
    """Per decision: its residual support at the task's best block in mean pooling (A.1.6's best block, from
    :func:`lib.kstar.protocol.counts.best_blocks`), chosen by A.1.10's rule — the smallest candidate reaching τ of the
    sweep ceiling over every representation (:func:`lib.kstar.sae.sae_measure.supports`)."""
    best = counts.best_blocks(sweep, frac).rename(columns={"best_block": "sae_block"})
    return sae_measure.supports(sweep, best, frac, pooling="mean")


def _rows(result: probe_search.SearchResult, tags: dict) -> list[dict]:
    rows = [{**tags, "path": "dense", "size": result.n_features, "auroc": result.dense_auroc}]
    rows += [{**tags, "path": c.path, "size": c.size, "auroc": c.auroc} for c in result.candidates]
    return rows


def ablation_searches(X_tr, y_tr, X_te, y_te, support, *, seeds: Sequence[int] = rules.SEEDS,
                      subsample: float = splits.SUBSAMPLE_FRAC, random_seeds: Sequence[int] = RANDOM_SEEDS,
                      key: str = "", labels: dict | None = None, n_jobs: int = 1) -> pd.DataFrame:
    """Every search of the feature-space intervention on one decision at one block, as tidy rows (A.2.6).

    Per seed (its 85% subsample of the training split, the test split fixed): Algorithm 1 on the unablated
    features (condition ``none``); on the features with the support ablated (``support``, both modes) and
    with each equal-size random set ablated (``random``, mean mode: in feature space the modes coincide);
    FitScore on each set's columns alone (operation ``keep``). Columns: ``labels``, condition, set_seed
    (−1 for none and support), mode, operation (``ablate`` or ``keep``), set_size, overlap (|set ∩ S|/|S|),
    seed, the test class counts, path (dense, prefix, l1), size, auroc — recorded before any threshold.
    """
    X_tr, X_te = np.asarray(X_tr, dtype=np.float64), np.asarray(X_te, dtype=np.float64)
    if X_tr.ndim != 2 or X_te.ndim != 2 or X_tr.shape[1] != X_te.shape[1]:
        raise ValueError(f"X_tr and X_te must be matrices with equal columns; got {X_tr.shape} and {X_te.shape}")
    y_tr, y_te = np.asarray(y_tr).astype(int), np.asarray(y_te).astype(int)
    n_features = X_tr.shape[1]
    chosen = check_coords(support, n_features, "support")
    seeds, random_seeds = _seeds(seeds, "seeds"), _seeds(random_seeds, "random_seeds")
    means = X_tr.mean(axis=0)
    sets = [("support", -1, tuple(chosen.tolist()))]
    sets += [("random", r, s) for r, s in zip(random_seeds, random_sets(n_features, chosen.size, chosen, random_seeds,
                                                                         key), strict=True)]
    n_pos, n_neg = int(y_te.sum()), int(y_te.size - y_te.sum())
    rows = []
    for seed in seeds:
        keep = splits.stratified_subsample(y_tr, subsample, seed=seed)
        Xs, ys = X_tr[keep], y_tr[keep]
        base = {**(labels or {}), "seed": seed, "n_test_pos": n_pos, "n_test_neg": n_neg}
        rows += _rows(probe_search.search(Xs, ys, X_te, y_te, seed, n_jobs=n_jobs),
                      {**base, "condition": "none", "set_seed": -1, "mode": "none", "operation": "ablate",
                       "set_size": 0, "overlap": 0.0})
        for condition, set_seed, cols in sets:
            tags = {**base, "condition": condition, "set_seed": set_seed, "set_size": len(cols),
                    "overlap": len(set(cols) & set(chosen.tolist())) / chosen.size}
            for mode in MODES if condition == "support" else ("mean",):
                result = probe_search.search(ablate(Xs, cols, mode, means), ys, ablate(X_te, cols, mode, means), y_te,
                                             seed, n_jobs=n_jobs)
                rows += _rows(result, {**tags, "mode": mode, "operation": "ablate"})
            auroc, _ = fitscore.fit_score(Xs[:, list(cols)], ys, X_te[:, list(cols)], y_te, seed)
            rows.append({**tags, "mode": "none", "operation": "keep", "path": "dense", "size": len(cols),
                         "auroc": auroc})
    return pd.DataFrame(rows)


def _ceiling_count(part: pd.DataFrame, tau: float) -> tuple[float, float]:
    """(largest dense AUROC over seeds, ext_median over seeds of the local count at τ; Eq. 5, 15)."""
    per_seed = rules.logged_local_counts(part, tau, ["seed"])
    return float(part[part.path == "dense"].auroc.max()), float(rules.ext_median(per_seed))


def _recovery(auroc: float, ceiling: float) -> float:
    return (auroc - 0.5) / (ceiling - 0.5) if ceiling > 0.5 else math.nan


def summary_table(rows: pd.DataFrame, frac: float = rules.FRAC, z: float = 1.96) -> pd.DataFrame:
    """One row per decision from :func:`ablation_searches`' rows (A.2.6, reconstructed):

    ceiling C, τ, Hanley–McNeil s.e. of C (A.1.8) and the tolerance z·s.e.; the count; after ablating the
    support (mean and zero mode) the ceiling and count; after the random sets the median, min and max
    ceiling and the ext_median count; the support alone and the random sets alone (median over seeds, then
    over sets); recoveries (A − ½)/(C − ½) (A.2.5's convention); ``sufficient``: the support alone reaches
    τ − z·s.e.; ``necessary``: ablating it drops the ceiling below τ − z·s.e.
    """
    labels = [c for c in rows.columns if c not in _MEASURE]
    out = []
    for key, cell in rows.groupby(labels, sort=False) if labels else [((), rows)]:
        base = cell[cell.condition == "none"]
        ceiling = float(base[base.path == "dense"].auroc.max())
        tau = rules.threshold(ceiling, frac)
        se = rules.ceiling_se(ceiling, int(cell.n_test_pos.iloc[0]), int(cell.n_test_neg.iloc[0]))
        ablated = cell[cell.operation == "ablate"]
        support = ablated[ablated.condition == "support"]
        randoms = ablated[ablated.condition == "random"]
        kept = cell[cell.operation == "keep"]
        per_set = [_ceiling_count(part, tau) for _, part in randoms.groupby("set_seed")]
        random_ceilings = [c for c, _ in per_set]
        kept_random = kept[kept.condition == "random"].groupby("set_seed").auroc.median()
        row = dict(zip(labels, key if isinstance(key, tuple) else (key,), strict=True))
        row.update({"support_size": int(support.set_size.iloc[0]), "ceiling": ceiling, "tau": tau, "se": se,
                    "tolerance": z * se, "count": _ceiling_count(base, tau)[1]})
        for mode in MODES:
            row[f"ceiling_{mode}"], row[f"count_{mode}"] = _ceiling_count(support[support["mode"] == mode], tau)
        row.update({"random_ceiling": float(np.median(random_ceilings)), "random_ceiling_min": min(random_ceilings),
                    "random_ceiling_max": max(random_ceilings),
                    "random_count": float(rules.ext_median([c for _, c in per_set])),
                    "random_overlap": float(randoms.overlap.mean()),
                    "support_only": float(kept[kept.condition == "support"].auroc.median()),
                    "random_only": float(kept_random.median())})
        row.update({"recovery_ablated": _recovery(row["ceiling_mean"], ceiling),
                    "random_recovery": _recovery(row["random_ceiling"], ceiling),
                    "recovery_support_only": _recovery(row["support_only"], ceiling),
                    "sufficient": row["support_only"] >= tau - z * se,
                    "necessary": row["ceiling_mean"] < tau - z * se})
        out.append(row)
    return pd.DataFrame(out, columns=[*labels, *SUMMARY_COLUMNS])


def model_ablation_rows(model: str, task_pools: dict, support_table: pd.DataFrame, *, max_tokens: int | None,
                        min_positives: int, seeds: Sequence[int], subsample: float, random_seeds: Sequence[int],
                        n_jobs: int = 1) -> pd.DataFrame:
    """:func:`ablation_searches` for every decision of ``model`` holding a support in ``support_table``
    (:func:`supports`), on the mean-pooled states of its block (cached), labelled model, task, decision, block."""
    frames = []
    held = support_table[(support_table.model == model) & support_table.has_support]
    for row in held.itertuples():
        pool = task_pools[row.task]
        decision = next(d for d in pool.decisions(min_positives) if d.name == row.decision)
        states = measure.representations(model, pool, [int(row.block)], ("mean",), max_tokens=max_tokens)["mean"][0]
        n_train = len(pool.texts_train)
        labels = {"model": model, "task": row.task, "decision": row.decision, "block": int(row.block)}
        frames.append(ablation_searches(
            states[:n_train], decision.y_train.astype(int), states[n_train:], decision.y_test.astype(int),
            [int(j) for j in row.support], seeds=seeds, subsample=subsample, random_seeds=random_seeds,
            key=set_key(model, row.task, row.decision), labels=labels, n_jobs=n_jobs))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["model", *_MEASURE])


# --------------------------------------------------------------------------- inside the model


def decoder_blocks(model):
    """The ModuleList of a causal LM's decoder blocks (``layers`` for Llama-style models, ``h`` for GPT-2)."""
    import torch

    decoder = model.get_decoder()
    for name in ("layers", "h"):
        blocks = getattr(decoder, name, None)
        if isinstance(blocks, torch.nn.ModuleList):
            return blocks
    raise ValueError(f"{type(model).__name__} exposes no decoder blocks ('layers' or 'h' under its decoder)")


def _hidden_size(model) -> int:
    return int(model.get_input_embeddings().embedding_dim)


def _check_block(model, block: int) -> None:
    n_blocks = len(decoder_blocks(model))
    if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or not 0 <= block < n_blocks:
        raise ValueError(f"block={block!r}; allowed: a decoder block 0…{n_blocks - 1}")


@contextlib.contextmanager
def ablation_hook(model, block: int, coords, values) -> Iterator[None]:
    """Within the block, decoder block ``block``'s output holds ``values`` at the residual coordinates ``coords``
    at every position (prompt, padding and generated tokens); every other entry is untouched. ``values``: one
    per coordinate, or a scalar. The hook is removed on exit, also after an error."""
    import torch

    _check_block(model, block)
    cols = check_coords(coords, _hidden_size(model))
    fill = np.asarray(values, dtype=np.float64)
    fill = np.full(cols.shape, float(fill)) if fill.ndim == 0 else fill
    if fill.shape != cols.shape:
        raise ValueError(f"values has shape {fill.shape}; allowed: a scalar or one value per coordinate {cols.shape}")
    index, filled = torch.as_tensor(cols), torch.as_tensor(np.ascontiguousarray(fill))

    def hook(module, args, output):
        hidden = output[0] if isinstance(output, tuple) else output
        edited = hidden.clone()
        edited[..., index] = filled.to(hidden.dtype).to(hidden.device)
        return (edited, *output[1:]) if isinstance(output, tuple) else edited

    handle = decoder_blocks(model)[block].register_forward_hook(hook)
    try:
        yield
    finally:
        handle.remove()


def block_output(model, block: int, input_ids, attention_mask):
    """Decoder block ``block``'s output (float32 tensor) as the next block sees it — read by a hook registered
    after any ablation hook, so it includes the ablation."""
    import torch

    _check_block(model, block)
    seen = {}

    def capture(module, args, output):
        seen["out"] = (output[0] if isinstance(output, tuple) else output).detach().float().clone()

    handle = decoder_blocks(model)[block].register_forward_hook(capture)
    try:
        with torch.inference_mode():
            model(input_ids=input_ids, attention_mask=attention_mask)
    finally:
        handle.remove()
    return seen["out"]


def _left_padded(sequences: Sequence[Sequence[int]], pad_id: int):
    import torch

    width = max(len(s) for s in sequences)
    ids = torch.full((len(sequences), width), int(pad_id), dtype=torch.long)
    mask = torch.zeros((len(sequences), width), dtype=torch.long)
    for row, seq in enumerate(sequences):
        if len(seq):
            ids[row, width - len(seq):] = torch.as_tensor(list(seq), dtype=torch.long)
            mask[row, width - len(seq):] = 1
    return ids, mask


def greedy_replies(model, prompts: Sequence[Sequence[int]], *, max_new_tokens: int, pad_id: int, eos_ids: Sequence[int],
                   score_tokens: Sequence[int] = (), batch_size: int = 16) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """Greedy replies to each prompt (token ids, cut after the first end-of-sequence token; left-padded
    batches) and log p(token | prompt) of each of ``score_tokens`` at the first reply position, from the
    same forward pass (raw logits): an array (prompts × len(score_tokens))."""
    import torch

    if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or max_new_tokens < 1:
        raise ValueError(f"max_new_tokens={max_new_tokens!r}; allowed: an integer >= 1")
    if any(len(p) == 0 for p in prompts):
        raise ValueError("a prompt holds no tokens; allowed: prompts of one or more tokens")
    replies, scores = [], []
    for start in range(0, len(prompts), batch_size):
        ids, mask = _left_padded(prompts[start:start + batch_size], pad_id)
        with torch.inference_mode():
            out = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=max_new_tokens, do_sample=False,
                                 pad_token_id=int(pad_id), eos_token_id=list(eos_ids), output_logits=True,
                                 return_dict_in_generate=True)
        scores.append(torch.log_softmax(out.logits[0].float(), dim=-1)[:, list(score_tokens)].numpy())
        for row in out.sequences[:, ids.shape[1]:].tolist():
            ends = [i for i, token in enumerate(row) if token in eos_ids]
            replies.append(tuple(row[: ends[0] + 1] if ends else row))
    return replies, np.concatenate(scores)


def balanced_indices(y, n: int) -> np.ndarray:
    """The first ⌈n/2⌉ negatives and ⌊n/2⌋ positives of ``y`` in pool order (sorted indices)."""
    y = np.asarray(y).astype(bool)
    n_pos, n_neg = n // 2, n - n // 2
    if isinstance(n, bool) or n < 2 or y.sum() < n_pos or (~y).sum() < n_neg:
        raise ValueError(f"n={n!r} prompts from {int(y.sum())} positives and {int((~y).sum())} negatives; allowed: "
                         f"2 <= n with ⌊n/2⌋ positives and ⌈n/2⌉ negatives available")
    return np.sort(np.concatenate([np.flatnonzero(~y)[:n_neg], np.flatnonzero(y)[:n_pos]]))


def _tokenizer(folder):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder, trust_remote_code=False)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def generation_inputs(name: str, texts: Sequence[str], *, instruction: str, max_tokens: int | None
                      ) -> truncation.Inputs:
    """The generator's inputs (A.2.6, reconstructed; A.1.2's rule): each text in ``instruction``'s ``{text}`` slot as
    one user turn of the model's chat template followed by its generation prompt, the text alone cut so the whole
    input fits ``max_tokens`` (:func:`lib.models.extraction.chat_inputs`): the instruction and the generation prompt
    always survive, and the last position is the one at which the model begins its reply. The strings with each
    text's tokens and the tokens kept (:meth:`lib.models.truncation.Inputs.summary` for the notebook's log)."""
    return extraction.chat_inputs(name, texts, max_tokens, frame=instruction)


def generation_prompts(name: str, texts: Sequence[str], labels, block: int, support, X_train, *, instruction: str,
                       continuations: Sequence[str], random_seeds: Sequence[int] = RANDOM_SEEDS, key: str = "",
                       max_tokens: int | None = None, max_new_tokens: int = 12, batch_size: int = 16) -> pd.DataFrame:
    """The behavioural half of A.2.6 (reconstructed) on one causal LM: one row per condition, mode and prompt.

    Each text fills ``instruction``'s ``{text}`` as one user turn of the model's chat template plus the generation
    prompt, the text cut so the whole input fits ``max_tokens`` (:func:`generation_inputs`). Conditions: none; the
    support S ablated at ``block`` (zero, mean); each equal-size random set (the sets of :func:`ablation_searches`
    for the same ``key``) ablated (zero, mean). Mean values:
    the column means of ``X_train`` (the block's mean-pooled training states). Columns: condition, set_seed,
    mode, set_size, edit_norm (mean over ``X_train``'s rows of ‖x_S − v_S‖), prompt (its position in ``texts``),
    label, margin (log p(c₊) − log p(c₋) of the first tokens of the two ``continuations`` at the first reply
    position), margin_change (|Δ margin| from none) and reply_changed (whether the greedy reply differs from the
    unablated one). :func:`generation_table` summarises them per condition and mode.
    """
    truncation.check_frame(instruction, "instruction")
    if len(continuations) != 2 or not all(isinstance(c, str) and c for c in continuations) or \
            continuations[0] == continuations[1]:
        raise ValueError(f"continuations={list(continuations)!r}; allowed: two distinct non-empty strings "
                         "(the positive answer first)")
    labels = np.asarray(labels).astype(int)
    if len(texts) != labels.size or len(set(labels.tolist())) != 2:
        raise ValueError(f"{len(texts)} texts with labels {sorted(set(labels.tolist()))!r}; allowed: one 0/1 label "
                         "per text, both classes present")
    X_train = np.asarray(X_train, dtype=np.float64)
    folder = loading.model_folder(name)
    model = loading.load_causal_lm(folder).eval()
    _check_block(model, block)
    d = _hidden_size(model)
    if X_train.ndim != 2 or X_train.shape[1] != d:
        raise ValueError(f"X_train has shape {X_train.shape}; allowed: (texts, {d}) states of {name!r}")
    chosen = check_coords(support, d, "support")
    tokenizer = _tokenizer(folder)
    rendered = generation_inputs(name, texts, instruction=instruction, max_tokens=max_tokens).strings
    prompts = [tokenizer(r)["input_ids"] for r in rendered]  # as the forward pass reads them (default special tokens)
    answers = [tokenizer(c, add_special_tokens=False)["input_ids"][0] for c in continuations]
    if answers[0] == answers[1]:
        raise ValueError(f"continuations={list(continuations)!r} start with the same token; allowed: different first "
                         "tokens (the margin reads them)")
    eos = model.generation_config.eos_token_id
    eos_ids = [int(e) for e in (eos if isinstance(eos, list) else [eos if eos is not None else tokenizer.eos_token_id])]
    pad_id = int(tokenizer.pad_token_id)
    means = X_train.mean(axis=0)
    sets = [("support", -1, tuple(chosen.tolist()))]
    sets += [("random", r, s) for r, s in zip(random_seeds, random_sets(d, chosen.size, chosen, random_seeds, key),
                                               strict=True)]
    conditions = [("none", -1, "none", None)] + [(c, r, m, s) for c, r, s in sets for m in MODES]
    base_margin = base_replies = None
    rows = []
    for condition, set_seed, mode, cols in conditions:
        if cols is None:
            hooked, edit = contextlib.nullcontext(), 0.0
        else:
            values = ablation_values(cols, mode, means)
            hooked = ablation_hook(model, block, cols, values)
            edit = float(np.linalg.norm(X_train[:, list(cols)] - values, axis=1).mean())
        with hooked:
            replies, first = greedy_replies(model, prompts, max_new_tokens=max_new_tokens, pad_id=pad_id,
                                            eos_ids=eos_ids, score_tokens=answers, batch_size=batch_size)
        margin = first[:, 0] - first[:, 1]
        if base_margin is None:
            base_margin, base_replies = margin, replies
        rows.append(pd.DataFrame({
            "condition": condition, "set_seed": set_seed, "mode": mode, "set_size": 0 if cols is None else len(cols),
            "edit_norm": edit, "prompt": np.arange(len(prompts)), "label": labels, "margin": margin,
            "margin_change": np.abs(margin - base_margin),
            "reply_changed": [a != b for a, b in zip(replies, base_replies, strict=True)]}))
    return pd.concat(rows, ignore_index=True)[list(PROMPT_COLUMNS)]


def generation_table(prompts: pd.DataFrame) -> pd.DataFrame:
    """:func:`generation_prompts`' rows per condition and mode (A.2.6, reconstructed): the edit, the mean margin,
    its mean |Δ| from the unablated model, the AUROC of the margin against the labels (NaN with one class) and
    the share of greedy replies that change."""
    rows = []
    for (condition, set_seed, mode), cell in prompts.groupby(["condition", "set_seed", "mode"], sort=False):
        both = cell.label.nunique() == 2
        rows.append({"condition": condition, "set_seed": set_seed, "mode": mode, "set_size": int(cell.set_size.iloc[0]),
                     "edit_norm": float(cell.edit_norm.iloc[0]), "margin_mean": float(cell.margin.mean()),
                     "margin_change": float(cell.margin_change.mean()),
                     "behaviour_auroc": float(stats.auroc(cell.label, cell.margin)) if both else math.nan,
                     "replies_changed": float(cell.reply_changed.mean()), "n_prompts": len(cell)})
    return pd.DataFrame(rows, columns=list(GENERATION_COLUMNS))


def _changes(prompts: pd.DataFrame, mode: str) -> tuple[np.ndarray, np.ndarray]:
    """(|Δ margin| of S per prompt, |Δ margin| of each random set per prompt: sets × prompts) in ``mode``."""
    edited = prompts[prompts["mode"] == mode].sort_values(["set_seed", "prompt"], kind="stable")
    support = edited[edited.condition == "support"].margin_change.to_numpy(dtype=float)
    randoms = edited[edited.condition == "random"]
    by_set = [cell.margin_change.to_numpy(dtype=float) for _, cell in randoms.groupby("set_seed", sort=True)]
    if not len(support) or not by_set:
        raise ValueError(f"prompts hold no support or no random rows in mode={mode!r}; allowed: generation_prompts' "
                         "rows with both")
    return support, np.vstack(by_set)


def _log2_ratio(support: np.ndarray, randoms: np.ndarray) -> float:
    below = float(np.median(randoms.mean(axis=1)))
    above = float(support.mean())
    return math.log2(above / below) if above > 0 and below > 0 else math.nan


def margin_ratio(prompts: pd.DataFrame, mode: str = "mean", *, n_boot: int = 2000, seed: int = 0
                 ) -> tuple[float, float]:
    """(log2 of S's mean |Δ answer margin| over that of the median equal-size random set, its bootstrap s.e.) in
    ``mode`` (A.2.6, reconstructed: does S move the reply more than "equally large edits in other directions"?).
    The s.e. resamples the prompts (the same ones under every condition) and the random sets, both with
    replacement, so it holds the prompt noise and the spread between random directions; NaN where a margin
    never moves or fewer than two replicates are finite."""
    support, randoms = _changes(prompts, mode)
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n_boot):
        cols = rng.integers(0, len(support), len(support))
        sets = rng.integers(0, len(randoms), len(randoms))
        draws.append(_log2_ratio(support[cols], randoms[np.ix_(sets, cols)]))
    finite = np.asarray(draws)[np.isfinite(draws)]
    return _log2_ratio(support, randoms), float(finite.std(ddof=1)) if len(finite) > 1 else math.nan


def edit_norm_mechanism(generation: pd.DataFrame, mode: str, file: str) -> str:
    """Why S can move the answer margin less than random sets of its size ("" where this does not apply): its
    edit ‖x_S − v_S‖ is smaller than the median random set's while, per unit of edit norm, it moves the margin
    more. Equal-size sets are not equal-norm edits (A.2.6 asks about "equally large edits").
    ``generation``: :func:`generation_table`'s rows; ``file``: the logged table they come from."""
    rows = generation[generation["mode"] == mode]
    support, randoms = rows[rows.condition == "support"], rows[rows.condition == "random"]
    if not len(support) or not len(randoms):
        return ""
    norm_s, norm_r = float(support.edit_norm.iloc[0]), float(randoms.edit_norm.median())
    per_s = float(support.margin_change.iloc[0]) / norm_s if norm_s > 0 else math.nan
    per_r = float((randoms.margin_change / randoms.edit_norm).median())
    if not (norm_s < norm_r and per_s > per_r):
        return ""
    return (f"the support's {mode} ablation is the smaller edit, a mean norm of {norm_s:.3g} against a median "
            f"{norm_r:.3g} for the equal-size random sets, while per unit of edit norm it moves the answer margin "
            f"{per_s:.3g} against a median {per_r:.3g} ({file})")


def hook_check(name: str, block: int, coords, values, texts: Sequence[str]) -> dict[str, float]:
    """The hook's effect on block ``block``'s output for ``texts``: the largest change outside ``coords``
    (0 when exact), the largest deviation from ``values`` inside them (0 when exact) and the largest change
    of the next-token logits (> 0: the edit reaches the output)."""
    import torch

    folder = loading.model_folder(name)
    model = loading.load_causal_lm(folder).eval()
    tokenizer = _tokenizer(folder)
    ids, mask = _left_padded([tokenizer(t, add_special_tokens=False)["input_ids"] or [tokenizer.pad_token_id]
                              for t in texts], tokenizer.pad_token_id)
    cols = check_coords(coords, _hidden_size(model))
    plain = block_output(model, block, ids, mask)
    with torch.inference_mode():
        logits = model(input_ids=ids, attention_mask=mask).logits[:, -1]
    with ablation_hook(model, block, cols, values):
        edited = block_output(model, block, ids, mask)
        with torch.inference_mode():
            edited_logits = model(input_ids=ids, attention_mask=mask).logits[:, -1]
    outside = np.setdiff1d(np.arange(plain.shape[-1]), cols)
    target = torch.as_tensor(np.broadcast_to(np.asarray(values, dtype=np.float32), cols.shape).copy())
    return {"max_outside": float((edited[..., outside] - plain[..., outside]).abs().max()),
            "max_inside": float((edited[..., cols] - target).abs().max()),
            "logit_change": float((edited_logits - logits).abs().max())}
