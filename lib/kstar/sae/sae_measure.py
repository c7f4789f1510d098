"""The SAE representation on models × task pools: offline SAEs, the SAE sweep, the SAE layer and supports.

Paper 002, App. A.1.10. The SAE encodes the last-position residual of every text; probes on SAE
features follow Algorithm 1 with standardisation by the training s.d. without centring (sparse CSR
input). Supports for the correspondence and composition tests (A.2.4–A.2.5) come from the
preliminary sweep (one seed, full training split, every grid block):

- the ceiling of a decision is the sweep's largest test AUROC across *all* representations (mean and
  last residual, SAE), blocks and search paths (:func:`lib.kstar.protocol.counts.sweep_ceilings` on all rows);
- the SAE layer of a task (:func:`sae_layers`): over consecutive grid blocks, the larger of the two
  blocks' class-decision medians of the SAE local count; the pair with the smallest such value, and of
  that pair the better block (smaller median; ties: larger mean dense AUROC, then the shallower one —
  choices, as are ties between pairs: the smaller lesser median, then the shallower pair);
- a decision's support at that block (:func:`supports`): the smallest qualifying candidate, i.e. the
  smaller of the first qualifying ranked prefix and the smallest qualifying L1 support
  (:func:`lib.kstar.protocol.rules.local_count`); none when no candidate reaches τ.

Which SAE encodes a block (:func:`block_saes`): under the paper profile a model's released suite
(:mod:`lib.kstar.sae.suites`, K06's ``sae_suites``); offline, where the paper's suites do not exist, :func:`train_saes`
trains one TopK SAE (k = 50) per grid block on token-level activations of the pools' training texts
(:func:`lib.models.extraction.token_states`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache

import numpy as np
import pandas as pd
import scipy.sparse as sp

from lib.kstar import measure
from lib.kstar.protocol import counts, probe_search, rules
from lib.kstar.sae import composition, suites
from lib.kstar.sae import sae as saes
from lib.models import architecture, extraction


@cache
def train_saes(model: str, *, tasks: tuple[str, ...], cap: int, pool_seed: int, max_classes: int,
               max_tokens: int | None, blocks: tuple[int, ...], width_factor: int, k: int, n_texts: int,
               stages: tuple[int, ...], batch_size: int, lr: float, seed: int) -> dict[int, dict[int, saes.SAE]]:
    """Steps → block → a TopK SAE of width ``width_factor``·d after that many steps of one training run per block
    (:func:`lib.kstar.sae.sae.train_topk_stages`, every number of ``stages``) on the tokens of ``n_texts`` training
    texts drawn (seeded) from the pools' training splits, in the input format the SAE will encode (A.1.2: an
    instruction-tuned model's chat turns, whose template tokens its last position reads; cached per process: the
    notebook's cells share one training)."""
    task_pools = measure.pools(tasks, cap=cap, seed=pool_seed, max_classes=max_classes)
    texts = sorted({t for pool in task_pools.values() for t in pool.texts_train})
    rng = np.random.default_rng([seed, 1])
    chosen = [texts[i] for i in np.sort(rng.choice(len(texts), size=min(n_texts, len(texts)), replace=False))]
    states, _ = extraction.token_states(model, chosen, layers=[architecture.hidden_state_index(b) for b in blocks],
                                        chat_template=measure.reads_chat(model), max_tokens=max_tokens,
                                        progress=False)
    d = states.shape[-1]
    by_block = {int(b): saes.train_topk_stages(states[i], width_factor * d, stages=stages, k=k, batch_size=batch_size,
                                               lr=lr, seed=seed + i) for i, b in enumerate(blocks)}
    return {int(step): {b: trained[int(step)] for b, trained in by_block.items()} for step in stages}


def block_saes(model: str, *, grids: Mapping[str, Sequence[int]], released: Mapping[str, suites.Suite], steps: int,
               train: Callable[..., dict[int, dict[int, saes.SAE]]]) -> dict[int, saes.SAE]:
    """Block → the SAE that encodes the model's last-position residual at each block of its grid (``grids[model]``,
    A.1.10): its released suite's (:func:`lib.kstar.sae.suites.load_suite`) when ``released`` names one, else the
    offline TopK SAE after ``steps`` steps of ``train`` (:func:`train_saes` with the notebook's arguments bound)."""
    blocks = tuple(int(b) for b in grids[model])
    if model in released:
        return suites.load_suite(released[model], blocks)
    return train(model, blocks=blocks)[steps]


def last_states(model: str, pool, blocks: Sequence[int], max_tokens: int | None) -> np.ndarray:
    """Last-position residuals (len(blocks), n_train + n_test, d) of a pool's texts, train first (cached)."""
    return measure.representations(model, pool, blocks, ("last",), max_tokens=max_tokens)["last"]


def quality_table(model: str, sae_by_block: dict[int, saes.SAE], task_pools: dict, max_tokens: int | None
                  ) -> pd.DataFrame:
    """Per block: width, k (TopK only), median reconstruction cosine on the last positions of every pool's test texts
    (the representation probed; the paper reports 0.35–0.73, Sec. 5), the same median for a constant reconstruction
    (``mean_cosine_median``: the pools' training texts' mean residual, the baseline any reconstruction starts from),
    mean active features and dead share."""
    blocks = sorted(sae_by_block)
    states = [(last_states(model, pool, blocks, max_tokens), len(pool.texts_train)) for pool in task_pools.values()]
    rows = []
    for index, block in enumerate(blocks):
        model_sae = sae_by_block[block]
        H = np.concatenate([s[index, n:] for s, n in states]).astype(np.float64)
        mean = np.concatenate([s[index, :n] for s, n in states]).astype(np.float64).mean(0)
        G = model_sae.encode(H)
        rows.append({"model": model, "block": block, "d_model": model_sae.d_model, "d_sae": model_sae.d_sae,
                     "k": model_sae.k if model_sae.kind == "topk" else np.nan,
                     "cosine_median": float(np.median(model_sae.reconstruction_cosine(H))),
                     "mean_cosine_median": float(np.median(saes.row_cosines(H, mean))),
                     "active_mean": float(G.getnnz(axis=1).mean()),
                     "dead_share": float(np.mean(G.getnnz(axis=0) == 0)), "n_texts": len(H)})
    return pd.DataFrame(rows)


def encode_pool(model: str, sae_by_block: dict[int, saes.SAE], pool, block: int, max_tokens: int | None
                ) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """(train codes, test codes) of a pool's texts at one block: the SAE of the last-position residual (A.1.10)."""
    H = last_states(model, pool, [block], max_tokens)[0].astype(np.float64)
    n_train = len(pool.texts_train)
    codes = sae_by_block[block].encode(H)
    return codes[:n_train], codes[n_train:]


def sae_sweep_items(model: str, sae_by_block: dict[int, saes.SAE], task_pools: dict, *, max_tokens: int | None,
                    min_positives: int) -> list[measure.SearchItem]:
    """The SAE representation's share of the preliminary sweep: one seed, full training split, every block."""
    items = []
    for task, pool in task_pools.items():
        for block in sorted(sae_by_block):
            Z_tr, Z_te = encode_pool(model, sae_by_block, pool, block, max_tokens)
            for decision in pool.decisions(min_positives):
                if decision.skipped:
                    continue
                labels = {"model": model, "task": task, "decision": decision.name, "pooling": "sae",
                          "block": int(block)}
                items.append(measure.SearchItem(labels, Z_tr, decision.y_train.astype(int), Z_te,
                                                decision.y_test.astype(int), measure.SWEEP_SEED, True, centre=False))
    return items


def _block_key(medians: dict[int, float], dense: dict[int, float], block: int):
    return medians[block], -dense[block], block


def sae_layers(sweep: pd.DataFrame, frac: float = rules.FRAC, pooling: str = "sae") -> pd.DataFrame:
    """Per model and task: the SAE layer by neighbour confirmation over class-decision medians (A.1.10)."""
    local = counts.local_counts(sweep, counts.sweep_ceilings(sweep, frac))
    local = local[local.pooling == pooling]
    rows = []
    for (model, task), cell in local.groupby(["model", "task"], sort=False):
        medians = {int(b): float(rules.ext_median(g["count"])) for b, g in cell.groupby("block")}
        dense = {int(b): float(g.dense_auroc.mean()) for b, g in cell.groupby("block")}
        grid = sorted(medians)
        pairs = list(zip(grid[:-1], grid[1:], strict=True)) or [(grid[0], grid[0])]
        pair = min(pairs, key=lambda p: (max(medians[p[0]], medians[p[1]]), min(medians[p[0]], medians[p[1]]), p))
        best = min(pair, key=lambda b: _block_key(medians, dense, b))
        rows.append({"model": model, "task": task, "sae_block": best, "pair": list(pair),
                     "pair_median": max(medians[pair[0]], medians[pair[1]]), "block_median": medians[best]})
    return pd.DataFrame(rows)


def supports(sweep: pd.DataFrame, blocks: pd.DataFrame, frac: float = rules.FRAC, pooling: str = "sae"
             ) -> pd.DataFrame:
    """Per decision: its support at the task's block (``blocks``: model, task, sae_block) in ``pooling`` — the
    smallest candidate reaching τ of the sweep ceiling over all representations (A.1.10); ``support`` None
    (size ∞) when none qualifies. Needs the sweep rows with their ``support`` column."""
    ceilings = counts.sweep_ceilings(sweep, frac)
    rows = sweep.merge(blocks[["model", "task", "sae_block"]], on=["model", "task"])
    rows = rows[(rows.pooling == pooling) & (rows.block == rows.sae_block) & rows.path.isin(counts.PATHS)]
    out = []
    for (model, task, decision), cell in rows.groupby(counts.DECISION, sort=False):
        ceiling = ceilings.set_index(counts.DECISION).loc[(model, task, decision)]
        candidates = [probe_search.Candidate(r.path, int(r.size),
                                             tuple(int(j) for j in r.support) if r.support is not None else (),
                                             float(r.auroc), float(r.gamma)) for r in cell.itertuples()]
        size, support = rules.local_count(candidates, float(ceiling.tau))
        if support is not None and len(support) != size:  # a support above 1,024 features was not logged
            support = None
        out.append({"model": model, "task": task, "decision": decision, "block": int(cell.block.iloc[0]),
                    "pooling": pooling, "ceiling": float(ceiling.ceiling), "tau": float(ceiling.tau),
                    "size": float(size), "support": None if support is None else list(support)})
    frame = pd.DataFrame(out, columns=["model", "task", "decision", "block", "pooling", "ceiling", "tau", "size",
                                       "support"])
    frame["has_support"] = frame.support.notna() & np.isfinite(frame["size"])
    return frame


def reconstruction_mechanism(quality: pd.DataFrame, file: str) -> str:
    """What the reconstruction cosine of :func:`quality_table` measures when the residual is dominated by one shared
    direction: the median cosine a constant reconstruction (the training texts' mean residual) already reaches,
    beside the SAEs' own, over models and blocks. ``file``: the logged quality table."""
    if not len(quality):
        return ""
    return (f"a constant reconstruction, the training texts' mean residual, already reaches a median cosine of "
            f"{quality.mean_cosine_median.median():.3f} (per block {quality.mean_cosine_median.min():.3f} to "
            f"{quality.mean_cosine_median.max():.3f}) against the SAEs' {quality.cosine_median.median():.3f} ({file}): "
            "the last-position residual is dominated by a direction every text shares, so its cosine scores that "
            "direction rather than what the SAE reconstructs of each text")


def support_shortfall(sweep: pd.DataFrame, table: pd.DataFrame, task: str, file: str) -> str:
    """Why ``task``'s decisions hold no SAE support ("" when some do): per model, how many decisions have one and
    the median by which the best SAE-code probe at the task's SAE block (any path, dense included) falls short of
    τ, the ceiling over every representation (A.1.10). ``sweep``: every representation's sweep rows; ``table``:
    :func:`supports` in the SAE basis; ``file``: the logged sweep the numbers come from."""
    cell = table[table.task == task]
    if not len(cell) or cell.has_support.any():
        return ""
    keys = cell[["model", "task", "decision", "block", "tau"]]
    rows = sweep[(sweep.pooling == "sae") & (sweep.task == task)].merge(keys, on=[*counts.DECISION, "block"])
    best = rows.groupby(counts.DECISION, sort=False).agg(best=("auroc", "max"), tau=("tau", "first"))
    gaps = (best.tau - best.best).groupby(level="model", sort=False)
    per_model = "; ".join(f"{model}: 0 of {len(gap)}, short by a median {gap.median():.3f}" for model, gap in gaps)
    return (f"at each model's SAE block the best SAE-code probe of every {task} decision stays below τ ({per_model}; "
            f"{file}): these SAEs' codes do not read the decisions to within τ of the residual ceiling")


def support_map(table: pd.DataFrame, task: str) -> dict[tuple[str, str], list[int] | None]:
    """(model, decision) → support of one task, as :func:`lib.kstar.sae.correspondence.correspondence_tests` reads
    it."""
    cell = table[table.task == task]
    return {(m, d): (list(s) if ok else None) for m, d, s, ok in zip(cell.model, cell.decision, cell.support,
                                                                    cell.has_support, strict=True)}


def composition_rows(model: str, sae_by_block: dict[int, saes.SAE], pool, task: str, support_table: pd.DataFrame, *,
                     basis: str, max_tokens: int | None, min_positives: int, null_seeds: Sequence[int],
                     frac: float = rules.FRAC) -> pd.DataFrame:
    """The composition test of one model and multiclass task (A.2.5) in the SAE basis (``basis="sae"``: codes,
    no centring) or the residual-basis control (``"last"``: the last-position residual at the same block,
    residual supports, centred). ``support_table``: :func:`supports` in that basis. Empty when fewer than two
    decisions hold a support."""
    cell = support_table[(support_table.model == model) & (support_table.task == task) & support_table.has_support]
    if len(cell) < 2:
        return pd.DataFrame(columns=[*composition.COLUMNS, "model", "task", "basis", "block"])
    block = int(cell.block.iloc[0])
    decisions = {d.name: d for d in pool.decisions(min_positives) if not d.skipped}
    if basis == "sae":
        Z_tr, Z_te = encode_pool(model, sae_by_block, pool, block, max_tokens)
    else:
        states = last_states(model, pool, [block], max_tokens)[0]
        Z_tr, Z_te = states[: len(pool.texts_train)], states[len(pool.texts_train):]
    y_tr = {d: decisions[d].y_train.astype(int) for d in cell.decision}
    y_te = {d: decisions[d].y_test.astype(int) for d in cell.decision}
    table = composition.composition_table(
        Z_tr, Z_te, y_tr, y_te, dict(zip(cell.decision, cell.support, strict=True)),
        dict(zip(cell.decision, cell.ceiling, strict=True)), seed=measure.SWEEP_SEED, null_seeds=null_seeds, frac=frac,
        centre=basis != "sae")
    return table.assign(model=model, task=task, basis=basis, block=block)


#: A.2.5, "Finding": the median recovery of a held-out intent on each of three models
PAPER_MEDIAN_RECOVERY = 0.98
#: A.2.5, "Scope": on residual coordinates a recovery of 0.997 against a random control of 0.994
PAPER_RESIDUAL_GAP = 0.997 - 0.994
#: A.2.5, "Scope": tool selection's leave-one-out dictionaries hold at most 22 features, and none recovers fully
SMALL_DICTIONARY = 22


def dictionary_mechanism(comp: pd.DataFrame, task: str, file: str) -> str:
    """Why composition can fail on a task with few class decisions ("" where its dictionaries are larger): the
    number of decisions sets the dictionary size, and the paper's tool selection, with dictionaries of 3 to 22
    features, recovers no decision fully (A.2.5, "Scope"). ``comp``: :func:`composition_rows` in the SAE basis;
    ``file``: the logged table it comes from."""
    if not len(comp):
        return ""
    size = float(pd.to_numeric(comp.dictionary_size).median())
    if size > SMALL_DICTIONARY:
        return ""
    per_model = comp.groupby("model").decision.nunique()
    return (f"{task} gives {int(per_model.min())} to {int(per_model.max())} class decisions with an SAE support per "
            f"model, so the leave-one-out dictionaries hold a median of {size:g} features ({file}); the paper's "
            f"Scope finds that dictionaries of 3 to {SMALL_DICTIONARY} features (tool selection, four decisions) "
            "recover no decision fully: the number of decisions sets the power of the test")
