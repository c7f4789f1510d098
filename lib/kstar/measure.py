"""Algorithm 2 of paper 002 on models × task pools: representations, the sweep, the window (App. A.1.6).

Every search of Algorithm 1 is logged as tidy rows — one per candidate plus one ``dense`` row —
*before* any threshold, so every count, ceiling and control of the language-model notebooks (K01–K03,
K05–K08) is computed afterwards from the logged curves (:mod:`lib.kstar.protocol.counts`), and the threshold never
decides which probes are fitted.

Layers are *blocks* (A.1.2, "Layer convention"): block ℓ is the residual stream after block ℓ,
hidden-state index ℓ + 1 of :func:`lib.models.extraction.extract` (index 0 is the embeddings). transformers
≥ 5 returns the last index of a pre-norm decoder *after* its final norm, so for such models the
final block is left out of the grid (:func:`lib.kstar.layer_specs.layer_grid`): every probed layer is a residual
stream. Which blocks are probed is a layer spec (:mod:`lib.kstar.layer_specs`), resolved per model.

Input format (A.1.2): a base model reads the raw text; an instruction-tuned model (the registry's word,
:func:`lib.models.registry.instruction_tuned`) reads it as a single user turn through its chat template followed by
the generation prompt. Every reader here takes ``chat_template=None`` for that format; ``True`` or ``False`` forces
the other (the format controls of A.3.2), and :func:`format_args` writes a forced format only where it differs.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib import parallel
from lib.kstar import layer_specs
from lib.kstar.catalog import HUB_TASK_NAMES
from lib.kstar.protocol import fitscore, probe_search, splits
from lib.kstar.tasks import hub_tasks
from lib.kstar.tasks.tasks import TaskPool, build_pool
from lib.models import architecture, extraction, loading, registry

SWEEP_SEED = 0  #: the preliminary sweep's one seed (A.1.6 says "one seed"; which one is not stated)


def reads_chat(model: str, chat_template: bool | None = None) -> bool:
    """Whether ``model`` reads its texts in chat format: A.1.2's format when ``chat_template`` is None (an
    instruction-tuned model as a single user turn plus the generation prompt, a base model on raw text), else the
    format forced."""
    return registry.instruction_tuned(model) if chat_template is None else chat_template


def format_args(model: str, chat: bool) -> dict[str, bool]:
    """The reader arguments that read ``model`` in chat format or not: empty where that is A.1.2's format, so a
    condition in the model's own format shares the main protocol's cached tables."""
    return {} if chat == reads_chat(model) else {"chat_template": chat}


def format_words(model: str, chat_template: bool | None = None) -> str:
    """The input format in words, as a notebook states it."""
    return "chat (one user turn + generation prompt)" if reads_chat(model, chat_template) else "plain text"


def representations(model: str, pool: TaskPool, blocks: Sequence[int], poolings: Sequence[str], *,
                    max_tokens: int | None, chat_template: bool | None = None) -> dict[str, np.ndarray]:
    """Pooling → states (len(blocks), n_train + n_test, d) of the pool's texts, train first (cached), in A.1.2's
    input format unless ``chat_template`` forces one (:func:`reads_chat`)."""
    texts = list(pool.texts_train) + list(pool.texts_test)
    return extraction.extract_poolings(model, texts, poolings=tuple(poolings),
                                       layers=[architecture.hidden_state_index(b) for b in blocks],
                                       chat_template=reads_chat(model, chat_template), max_tokens=max_tokens,
                                       progress=False)


def input_lengths_table(models: Sequence[str], task_pools: dict[str, TaskPool], max_tokens: int | None,
                        chat_template: bool | None = None) -> pd.DataFrame:
    """Per model × task, in A.1.2's input format unless ``chat_template`` forces one: the share of texts (both
    splits) cut at ``max_tokens`` and the text tokens kept (median, min, max). A chat input is cut inside its user
    text, so its generation prompt survives (:mod:`lib.models.truncation`)."""
    rows = []
    for model in models:
        chat = reads_chat(model, chat_template)
        for task, pool in task_pools.items():
            texts = list(pool.texts_train) + list(pool.texts_test)
            rows.append({"model": model, "task": task, "format": "chat" if chat else "plain", "max_tokens": max_tokens,
                         **extraction.input_lengths(model, texts, chat, max_tokens).summary()})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class SearchItem:
    """One run of Algorithm 1: a class decision of a task at one block, representation and seed (A.1.5–A.1.6)."""

    labels: dict
    Z_train: np.ndarray
    y_train: np.ndarray
    Z_test: np.ndarray
    y_test: np.ndarray
    seed: int
    keep_supports: bool
    centre: bool = True  # False for sparse non-negative features (TF-IDF, SAE codes: A.1.10)
    dense_only: bool = False  # only the dense probe (controls that read the ceiling alone)


def _search_rows(item: SearchItem, _spawned_seed: int) -> list[dict]:
    """The paper's seed travels in the item; parallel_map's spawned seed is not used."""
    if item.dense_only:
        auroc, gamma = fitscore.fit_score(item.Z_train, item.y_train, item.Z_test, item.y_test, item.seed,
                                          centre=item.centre)
        return [{**item.labels, "seed": item.seed, "n_test_pos": int(item.y_test.sum()),
                 "n_test_neg": int(len(item.y_test) - item.y_test.sum()), "n_fits": 5, "path": "dense",
                 "size": item.Z_train.shape[1], "auroc": auroc, "gamma": gamma}]
    result = probe_search.search(item.Z_train, item.y_train, item.Z_test, item.y_test, item.seed, centre=item.centre)
    common = {**item.labels, "seed": item.seed, "n_test_pos": result.n_test[0], "n_test_neg": result.n_test[1],
              "n_fits": result.n_fits}
    rows = [{**common, "path": "dense", "size": result.n_features, "auroc": result.dense_auroc,
             "gamma": result.dense_gamma, "support": None}]
    for cand in result.candidates:
        rows.append({**common, "path": cand.path, "size": cand.size, "auroc": cand.auroc, "gamma": cand.gamma,
                     "support": list(cand.support) if item.keep_supports and cand.size <= 1024 else None})
    return rows


def run_searches(items: Sequence[SearchItem], n_jobs: int = 1, scheduler: str = "") -> pd.DataFrame:
    """Every item's candidates and dense probe as tidy rows (columns: the labels, seed, path, size, auroc…);
    the searches run over ``n_jobs`` local processes, or on the Dask cluster at ``scheduler`` when one is named."""
    rows = [row for chunk in parallel.parallel_map(_search_rows, list(items), n_jobs=n_jobs, scheduler=scheduler)
            for row in chunk]
    frame = pd.DataFrame(rows)
    if "support" in frame and frame.support.isna().all():
        frame = frame.drop(columns="support")
    return frame


def pools(tasks: Sequence[str], *, cap: int, seed: int, max_classes: int) -> dict[str, TaskPool]:
    """The task pools, built once with one seed and shared by every model (A.1.3): the offline pools from their
    wheels, the hub tasks through :mod:`lib.kstar.tasks.hub_tasks` (whose evaluated classes A.1.3 fixes per task, so
    ``max_classes`` does not apply to them)."""
    return {task: (hub_tasks.build_hub_pool(task, cap=cap, seed=seed) if task in HUB_TASK_NAMES
                   else build_pool(task, cap=cap, seed=seed, max_classes=max_classes)) for task in tasks}


def decisions_table(task_pools: dict[str, TaskPool], min_positives: int) -> pd.DataFrame:
    """One row per class decision: sizes, the length-only cue AUROC and why it is skipped, if it is (A.1.3; a hub
    task's additional-tier minimum of 20 positives applies where it is higher)."""
    rows = []
    for task, pool in task_pools.items():
        needed = max(min_positives, hub_tasks.min_positives(task)) if task in HUB_TASK_NAMES else min_positives
        for decision in pool.decisions(needed):
            rows.append({"task": task, "decision": decision.name, "n_train": len(decision.y_train),
                         "n_train_pos": int(decision.y_train.sum()), "n_test": len(decision.y_test),
                         "n_test_pos": int(decision.y_test.sum()), "length_auroc": pool.length_auroc[decision.name],
                         "skipped": decision.skipped or ""})
    return pd.DataFrame(rows)


def _states(model: str, pool: TaskPool, blocks: Sequence[int], poolings: Sequence[str], max_tokens: int | None,
            chat_template: bool | None, transform=None) -> dict[str, np.ndarray]:
    states = representations(model, pool, blocks, poolings, max_tokens=max_tokens, chat_template=chat_template)
    return states if transform is None else {p: transform(s) for p, s in states.items()}


def shuffled_labels(y_train: np.ndarray, y_test: np.ndarray, task: str, decision: str,
                    label_seed: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Both splits' labels as integers, each split permuted when ``label_seed`` is set (the shuffled-label
    control of A.1.11, Table 7): one permutation per (seed, task, decision), so the sweep and the window of the
    control read the same label-free decision."""
    y_train, y_test = y_train.astype(int), y_test.astype(int)
    if label_seed is None:
        return y_train, y_test
    rng = np.random.default_rng([label_seed, zlib.crc32(f"{task}\0{decision}".encode())])
    return rng.permutation(y_train), rng.permutation(y_test)


def sweep_items(model: str, task_pools: dict[str, TaskPool], blocks: Sequence[int], poolings: Sequence[str], *,
                max_tokens: int | None, min_positives: int, chat_template: bool | None = None,
                label_seed: int | None = None, extra_labels: dict | None = None) -> list[SearchItem]:
    """The preliminary sweep (A.1.6): one seed, the full training split, every grid block and representation;
    ``chat_template`` forces an input format (A.3.2: each condition locates its own window);
    ``label_seed`` sweeps shuffled labels (:func:`shuffled_labels`)."""
    items = []
    for task, pool in task_pools.items():
        states = _states(model, pool, blocks, poolings, max_tokens, chat_template)
        n_train = len(pool.texts_train)
        for decision in pool.decisions(min_positives):
            if decision.skipped:
                continue
            y_train, y_test = shuffled_labels(decision.y_train, decision.y_test, task, decision.name, label_seed)
            for pooling, array in states.items():
                for index, block in enumerate(blocks):
                    labels = {"model": model, "task": task, "decision": decision.name, "pooling": pooling,
                              "block": int(block), **(extra_labels or {})}
                    items.append(SearchItem(labels, array[index, :n_train], y_train, array[index, n_train:], y_test,
                                            SWEEP_SEED, True))
    return items


def window_items(model: str, task_pools: dict[str, TaskPool], windows: dict[str, Sequence[int]],
                 seeds: Sequence[int], *, subsample: float, max_tokens: int | None, min_positives: int,
                 chat_template: bool | None = None, transform=None, label_seed: int | None = None,
                 extra_labels: dict | None = None) -> list[SearchItem]:
    """The five-seed measurement (A.1.6): per seed a stratified ``subsample`` of each class of the
    training split (the test split fixed), mean pooling, the task's window of blocks.

    ``transform`` maps a (blocks, texts, d) array (the rotation control); ``label_seed`` shuffles
    both splits' labels (:func:`shuffled_labels`, the whole search runs on them: the shuffled-label control);
    ``chat_template`` forces an input format (the format control). A task with no readable
    decision has no window and is passed over; one with readable decisions needs its window.
    """
    items = []
    for task, pool in task_pools.items():
        readable = [d for d in pool.decisions(min_positives) if not d.skipped]
        if not readable:  # every decision excluded (A.1.3): the sweep placed no window and nothing is measured
            continue
        if task not in windows:
            raise ValueError(f"task {task!r} has {len(readable)} readable decisions but no window; windows were given "
                             f"for {sorted(windows)}")
        blocks = list(windows[task])
        array = _states(model, pool, blocks, ("mean",), max_tokens, chat_template, transform)["mean"]
        n_train = len(pool.texts_train)
        for decision in readable:
            y_train, y_test = shuffled_labels(decision.y_train, decision.y_test, task, decision.name, label_seed)
            for seed in seeds:
                keep = splits.stratified_subsample(y_train, subsample, seed=seed)
                for index, block in enumerate(blocks):
                    labels = {"model": model, "task": task, "decision": decision.name, "block": int(block),
                              **(extra_labels or {})}
                    items.append(SearchItem(labels, array[index, :n_train][keep], y_train[keep],
                                            array[index, n_train:], y_test, int(seed), False))
    return items


def random_rotation(d: int, seed: int) -> np.ndarray:
    """A Haar-random orthogonal d × d matrix (QR of a Gaussian with the sign fix), the basis-change control."""
    q, r = np.linalg.qr(np.random.default_rng(seed).standard_normal((d, d)))
    return q * np.sign(np.diag(r))


def sweep_table(model: str, *, tasks: Sequence[str], cap: int, pool_seed: int, max_classes: int,
                max_tokens: int | None, layers: str, poolings: Sequence[str], min_positives: int,
                chat_template: bool | None = None, label_seed: int | None = None, n_jobs: int = 1,
                scheduler: str = "") -> pd.DataFrame:
    """The preliminary sweep of one model over the task pools as tidy rows (A.1.6), supports kept;
    optionally in a forced input format or on shuffled labels (the shuffled-label control's sweep). ``layers``
    is a layer spec (:mod:`lib.kstar.layer_specs`: ``"grid:N"``, ``"3,6,9"`` or ``"table6"``)."""
    task_pools = pools(tasks, cap=cap, seed=pool_seed, max_classes=max_classes)
    items = sweep_items(model, task_pools, layer_specs.resolve(model, layers), poolings, max_tokens=max_tokens,
                        min_positives=min_positives, chat_template=chat_template, label_seed=label_seed,
                        extra_labels={"control": "shuffled"} if label_seed is not None else None)
    return run_searches(items, n_jobs, scheduler)


def window_table(model: str, windows: dict[str, list[int]], *, tasks: Sequence[str], cap: int, pool_seed: int,
                 max_classes: int, max_tokens: int | None, seeds: Sequence[int], subsample: float,
                 min_positives: int, chat_template: bool | None = None, rotation_seed: int | None = None,
                 label_seed: int | None = None, n_jobs: int = 1, scheduler: str = "") -> pd.DataFrame:
    """The five-seed window of one model as tidy rows (A.1.6); optionally a control: the other input format,
    a random rotation of the features (seeded), or shuffled labels (seeded)."""
    task_pools = pools(tasks, cap=cap, seed=pool_seed, max_classes=max_classes)
    transform, labels = None, {}
    if rotation_seed is not None:  # the same rotation for every task: seeded, sized by the states it rotates
        transform = lambda states: states @ random_rotation(states.shape[-1], rotation_seed)  # noqa: E731
        labels = {"control": "rotation"}
    if reads_chat(model, chat_template) != reads_chat(model):
        labels = {"control": "format"}
    if label_seed is not None:
        labels = {"control": "shuffled"}
    items = window_items(model, task_pools, windows, seeds, subsample=subsample, max_tokens=max_tokens,
                         min_positives=min_positives, chat_template=chat_template, transform=transform,
                         label_seed=label_seed, extra_labels=labels)
    return run_searches(items, n_jobs, scheduler)


def prepare_models(models: Sequence[str]) -> None:
    """Make every model's checkpoint local before any compute (:func:`lib.models.loading.model_folder`): convert or
    build the offline models on first use, fetch hub ids (from the local cache when offline). An unknown name
    or a hub id with no local copy stops here, naming the offline defaults
    (:class:`lib.models.registry.ModelUnavailableError`)."""
    for model in models:
        loading.model_folder(model)
