"""E11 of paper 000 (Sec. VI, "neutral leakage"): do nominally neutral texts carry the label?

Theorem 3's purity law assumes that neutral texts "carry no label information" (Sec. IV-D, VI-A).
E11 measures that assumption rather than assuming it away, in three parts:

1. :func:`neutral_independence` — strong-classifier test: the neutral texts of a dimension alone,
   with the random balanced labels of :func:`lib.bias_probes.purity.draw_purity_sample`, under the unchanged
   protocol (:func:`lib.probes.probe_auc`, grouped by context cell) with linear, RBF-SVM and MLP
   probes. Any AUC beyond noise would be a pipeline artefact: the labels are random.
2. :func:`stereotype_scores` / :func:`stereotype_summary` — stereotype leakage: the paper's linear
   probe, fitted on the counterfactual gender pairs, scores the neutral sentences whose profession
   is on a WinoBias occupation list (Zhao et al., 2018), always with a probe that never saw the
   sentence's content; AUC(female- vs male-stereotyped occupation) > ½ is stereotype leakage.
3. :func:`leaky_purity` — leaky-purity stress test of Eq. 8: datasets at purity α in which a share
   ``leak`` of the neutral texts is labelled by its stereotype (:func:`draw_leaky_sample`).

Every function takes explicit seeds; grids go through :func:`lib.parallel.parallel_map`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib import parallel, probes, stats
from lib.bias_probes import estimators, model_audit, prompts, purity, theory

#: WinoBias stereotype code of a neutral text: female-stereotyped occupation, male-stereotyped, neither.
FEMALE, MALE, UNMATCHED = 1, 0, -1


# --------------------------------------------------------------------------- WinoBias matching


def _matches(profession: str, occupations: Sequence[str]) -> bool:
    """Whether a grid profession is on a WinoBias list: the whole phrase or its head (last) word,
    case-insensitively ("bus driver" → driver, "security guard" → guard)."""
    listed = {o.strip().lower() for o in occupations}
    phrase = profession.strip().lower()
    return phrase in listed or phrase.split()[-1] in listed


def profession_stereotypes() -> pd.DataFrame:
    """The grid's 44 professions against the WinoBias occupation lists (paper 000, E11).

    Columns ``profession``, ``male``, ``female`` (on that list) and ``stereotype`` (1 female-, 0
    male-stereotyped, −1 on neither list or on both), in the grid's profession order.
    """
    lists = prompts.winobias_occupations()
    cells = prompts.context_cells()
    professions = cells.loc[cells.content_kind == "profession", "content"].drop_duplicates().tolist()
    frame = pd.DataFrame({"profession": professions})
    frame["male"] = [_matches(p, lists["male"]) for p in professions]
    frame["female"] = [_matches(p, lists["female"]) for p in professions]
    frame["stereotype"] = np.select([frame.female & ~frame.male, frame.male & ~frame.female], [FEMALE, MALE],
                                    UNMATCHED)
    return frame


def gender_pools(models: Sequence[str], layer: int | str = "mid", pooling: str = "mean") -> dict[str, purity.Pool]:
    """Each model's gender pool (:func:`lib.bias_probes.model_audit.model_pools`), keyed by model: parts 2 and 3."""
    return {model: pool for (model, _), pool in model_audit.model_pools(models, ["gender"], layer, pooling).items()}


def dimension_rows(dimension: str = "gender") -> pd.DataFrame:
    """The template-grid rows of ``dimension`` in pool order, with ``stereotype`` and ``content_id``.

    ``stereotype`` is the WinoBias code (:data:`FEMALE`, :data:`MALE`) of a neutral text whose
    content is a matched profession, :data:`UNMATCHED` for every other row (marked rows included);
    ``content_id`` numbers the (content kind, content) pairs, so that all frames of one profession
    share it.
    """
    grid = prompts.template_grid()
    rows = grid[grid.dimension == prompts.check_dimension(dimension)].reset_index(drop=True)
    code = dict(profession_stereotypes()[["profession", "stereotype"]].itertuples(index=False))
    is_profession = (rows.content_kind == "profession") & ~rows.marked
    rows["stereotype"] = np.where(is_profession, rows.content.map(code).fillna(UNMATCHED), UNMATCHED).astype(int)
    rows["content_id"] = pd.factorize(rows.content_kind + "/" + rows.content)[0]
    return rows


# --------------------------------------------------------------------------- 1. label independence


@dataclass(frozen=True)
class IndependenceItem:
    """One random labelling (``draw``) of one labelled pool's neutral texts, for every probe (paper 000, E11 part 1)."""

    labels: dict[str, object]
    pool: purity.Pool
    probe_names: tuple[str, ...]
    draw: int
    n_seeds: int


def _independence_cell(item: IndependenceItem, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    n_neutral = int((~item.pool.marked).sum())
    sample = purity.draw_purity_sample(rng, item.pool, n_neutral, 0.0)  # every neutral text, random balanced labels
    X = item.pool.X[sample.index]
    split_seed, mlp_seed = (int(s) for s in rng.integers(2**31, size=2))
    rows = []
    for name in item.probe_names:
        result = probes.probe_auc(X, sample.y, sample.groups, probes.make_probe(name, mlp_seed), seed=split_seed,
                                  n_seeds=item.n_seeds)
        sigma0 = float(stats.null_auc_sd(result.n_pos, result.n_neg))
        rows.append({**item.labels, "probe": name, "draw": item.draw, "n": len(sample.y), **result.as_row(),
                     "sigma0": sigma0, "z_sigma0": (result.auc_mean - 0.5) / sigma0})
    return rows


def neutral_independence(pools: Mapping[tuple, purity.Pool], probe_names: Sequence[str] = probes.LEARNED_PROBES,
                         draws: int = 1, n_seeds: int = 5, seed: int = 0, n_jobs: int = 1) -> pd.DataFrame:
    """E11 part 1 (paper 000, Sec. VI): strong-classifier test of neutral label-independence.

    For each (model, dimension) pool and each of ``draws`` labellings, all neutral texts get random
    balanced labels (:func:`lib.bias_probes.purity.draw_purity_sample` at α = 0) and every probe of
    ``probe_names`` runs the unchanged protocol on the same labelling and splits (grouped 5-fold by
    context cell × ``n_seeds``, 1.4·σ₀ detection). ``z_sigma0`` is (AUC − ½)/σ₀ (Theorem 4).
    """
    items = [IndependenceItem(labels=dict(zip(("model", "dimension"), key, strict=False)), pool=pools[key],
                              probe_names=tuple(probe_names), draw=draw, n_seeds=n_seeds)
             for key in pools for draw in range(draws)]
    cells = parallel.parallel_map(_independence_cell, items, seed=seed, n_jobs=n_jobs)
    return pd.DataFrame([row for cell in cells for row in cell])


# --------------------------------------------------------------------------- 2. stereotype leakage


def held_out_scores(pool: purity.Pool, content_id: np.ndarray, n_splits: int = 5, n_seeds: int = 5,
                    seed: int = 0) -> np.ndarray:
    """Seed-averaged scores of every pool row by the paper's linear probe fitted on the marked
    texts (label = group: 0 male, 1 female for gender) of the *other* content folds.

    Folds deal whole contents (all frames of a profession, hence every cell of it) to
    ``n_splits`` folds (:func:`lib.probes.grouped_folds`), so no text is scored by a probe that saw
    its own cell — or any cell with its content. Repeated over ``n_seeds`` splits; scores averaged.
    """
    content_id = np.asarray(content_id)
    if len(content_id) != len(pool.X):
        raise ValueError(f"content_id has {len(content_id)} rows; allowed: {len(pool.X)}, one per pool row")
    marked = pool.marked
    scores = np.zeros(len(pool.X))
    for split_seed in parallel.spawn_seeds(seed, n_seeds):
        for train, test in probes.grouped_folds(content_id, n_splits, split_seed):
            train = train[marked[train]]
            probe = probes.linear_probe().fit(pool.X[train], pool.group[train])
            scores[test] += probe.decision_function(pool.X[test])
    return scores / n_seeds


@dataclass(frozen=True)
class ScoresItem:
    """One model's gender pool with its grid rows (:func:`dimension_rows`), to be scored (paper 000, E11 part 2)."""

    model: str
    pool: purity.Pool
    rows: pd.DataFrame
    n_seeds: int


def _scores_cell(item: ScoresItem, seed: int) -> pd.DataFrame:
    frame = item.rows[["cell", "content_kind", "content", "frame", "marker", "group", "marked", "stereotype"]].copy()
    frame.insert(0, "model", item.model)
    frame["score"] = held_out_scores(item.pool, item.rows.content_id.to_numpy(), n_seeds=item.n_seeds, seed=seed)
    return frame


def stereotype_scores(pools: Mapping[str, purity.Pool], n_seeds: int = 5, seed: int = 0,
                      n_jobs: int = 1) -> pd.DataFrame:
    """E11 part 2: held-out gender-probe scores of every gender-pool text, per model (one row per text).

    ``pools`` maps model names to their gender pools. Columns: ``model``, the grid's ``cell``,
    ``content_kind``, ``content``, ``frame``, ``marker``, ``group``, ``marked``, the WinoBias
    ``stereotype`` code and ``score`` (:func:`held_out_scores`; higher = more "female").
    """
    rows = dimension_rows("gender")
    items = [ScoresItem(model=model, pool=pool, rows=rows, n_seeds=n_seeds) for model, pool in pools.items()]
    return pd.concat(parallel.parallel_map(_scores_cell, items, seed=seed, n_jobs=n_jobs), ignore_index=True)


def profession_permutation_aucs(labels: np.ndarray, scores: np.ndarray, clusters: np.ndarray,
                                n_permutations: int, seed: int) -> np.ndarray:
    """AUCs of ``scores`` under ``n_permutations`` shuffles of the labels *between clusters*.

    Each cluster (a profession) keeps one label for all its texts, as in the data, so the null
    respects that the 10 sentences of a profession are not independent.
    """
    clusters = pd.factorize(np.asarray(clusters))[0]
    label_of = np.zeros(clusters.max() + 1, dtype=int)
    label_of[clusters] = np.asarray(labels, dtype=int)
    if not np.array_equal(label_of[clusters], np.asarray(labels, dtype=int)):
        raise ValueError("labels must be constant within each cluster")
    rng = np.random.default_rng(seed)
    shuffled = np.stack([rng.permutation(label_of) for _ in range(n_permutations)])[:, clusters]
    return stats.auroc(shuffled, np.broadcast_to(np.asarray(scores, dtype=float), shuffled.shape))


def stereotype_summary(scores: pd.DataFrame, n_permutations: int = 2000, seed: int = 0,
                       null_multiplier: float = stats.DETECTION_NULL_MULTIPLIER) -> pd.DataFrame:
    """Per model: AUC of the held-out scores for female- vs male-stereotyped neutral occupation texts.

    ``auc`` > ½ means neutral sentences about WinoBias-female occupations score more "female" than
    those about WinoBias-male ones (stereotype leakage); ``perm_p`` is the one-sided
    profession-level permutation p-value, (1 + #{null ≥ auc})/(1 + n_permutations), and
    ``detection_*`` the text-level 1.4·σ₀ test (:func:`lib.stats.detection_test`, which ignores the
    clustering by profession). ``marked_auc`` is the held-out probe's AUC on the marked pairs.
    """
    rows = []
    for offset, (model, frame) in enumerate(scores.groupby("model", sort=False)):
        matched = frame[(~frame.marked) & (frame.stereotype != UNMATCHED)]
        marked = frame[frame.marked]
        y = (matched.stereotype == FEMALE).to_numpy()
        auc = float(stats.auroc(y, matched.score))
        null = profession_permutation_aucs(y, matched.score.to_numpy(), matched.content.to_numpy(), n_permutations,
                                           seed + offset)
        test = stats.detection_test(auc, int(y.sum()), int((~y).sum()), null_multiplier)
        rows.append({
            "model": model, "n_female_professions": matched.content[y].nunique(),
            "n_male_professions": matched.content[~y].nunique(), "n_female_texts": int(y.sum()),
            "n_male_texts": int((~y).sum()), "auc": auc, "perm_p": float((1 + (null >= auc).sum()) / (1 + len(null))),
            "perm_null_sd": float(null.std(ddof=1)), "sigma0": float(stats.null_auc_sd(y.sum(), (~y).sum())),
            "detection_z": test.z, "detection_p_value": test.p_value, "detection_detected": test.detected,
            "marked_auc": float(stats.auroc(marked.group.to_numpy(), marked.score)),
        })
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- 3. leaky purity


@dataclass(frozen=True)
class LeakySample:
    """A purity-α sample in which ``leaky`` neutral rows carry their stereotype as label.

    ``index`` (pool rows) and ``y`` as in :class:`lib.bias_probes.purity.PuritySample`; ``groups`` are the
    contents (professions, traits, activities), not the context cells: the leaky labels follow the profession;
    ``leaky`` marks the relabelled neutral rows; ``leak_realised`` is their share of the neutral
    texts; ``short`` says the pool had too few stereotyped neutral texts for the requested share.
    """

    index: np.ndarray
    y: np.ndarray
    groups: np.ndarray
    leaky: np.ndarray
    leak_realised: float
    short: bool


def draw_leaky_sample(rng: np.random.Generator, pool: purity.Pool, stereotype: np.ndarray, content: np.ndarray, n: int,
                      alpha: float, leak: float) -> LeakySample:
    """n texts at purity α whose neutral part is leaky (paper 000, E11 part 3).

    First the sample of :func:`lib.bias_probes.purity.draw_purity_sample` (so leak = 0 returns its rows and
    labels). Cross-validation groups are the rows' ``content`` codes (:func:`dimension_rows`' ``content_id``):
    the leaky labels follow the profession, and a profession spans several context cells, so grouping by
    cell would put texts of one profession, with one label, on both sides of a split. Then
    k = 2·round(leak·n₀/2) of its n₀ neutral slots are given to stereotyped neutral texts, k/2
    female-stereotyped (label 1) and k/2 male-stereotyped (label 0), drawn without replacement;
    the other n₀ − k slots keep neutral texts of the base draw (not among those k) with fresh
    random balanced labels. When the pool holds fewer than k/2 texts of either stereotype, k is
    capped there and ``short`` is set. ``stereotype`` codes pool rows as in :func:`dimension_rows`.
    """
    if not 0 <= leak <= 1:
        raise ValueError(f"leak={leak!r} is out of range; allowed: 0 <= leak <= 1")
    stereotype, content = np.asarray(stereotype), np.asarray(content)
    for name, codes in (("stereotype", stereotype), ("content", content)):
        if len(codes) != len(pool.X):
            raise ValueError(f"{name} has {len(codes)} rows; allowed: {len(pool.X)}, one per pool row")
    base = purity.draw_purity_sample(rng, pool, n, alpha)
    is_marked = pool.marked[base.index]
    neutral_rows = base.index[~is_marked]
    n_neutral = len(neutral_rows)
    female, male = np.flatnonzero(stereotype == FEMALE), np.flatnonzero(stereotype == MALE)
    half_wanted = int(round(leak * n_neutral / 2))
    half = min(half_wanted, len(female), len(male))
    if half == 0:
        return LeakySample(base.index, base.y, content[base.index], np.zeros(len(base.y), dtype=bool), 0.0,
                           half < half_wanted)
    chosen = np.concatenate([rng.choice(female, half, replace=False), rng.choice(male, half, replace=False)])
    others = neutral_rows[~np.isin(neutral_rows, chosen)][: n_neutral - 2 * half]
    index = np.concatenate([base.index[is_marked], chosen, others]).astype(int)
    y = np.concatenate([base.y[is_marked], np.repeat([1, 0], half), rng.permutation(np.arange(len(others)) % 2)])
    leaky = np.zeros(len(index), dtype=bool)
    leaky[is_marked.sum(): is_marked.sum() + 2 * half] = True
    return LeakySample(index, y.astype(int), content[index], leaky, 2 * half / n_neutral if n_neutral else 0.0,
                       half < half_wanted)


@dataclass(frozen=True)
class LeakyItem:
    """One (model, α) cell of the leaky-purity test over every leak rate; ``stereotype`` per pool row (E11 part 3)."""

    model: str
    pool: purity.Pool
    stereotype: np.ndarray
    content: np.ndarray
    alpha: float
    leak_rates: tuple[float, ...]
    n: int
    draws: int
    n_seeds: int


def _leaky_cell(item: LeakyItem, seed: int) -> list[dict]:
    draw_seeds = parallel.spawn_seeds(seed, item.draws)
    rows = []
    for leak in item.leak_rates:
        aucs, realised, short = [], [], False
        for draw_seed in draw_seeds:  # the same base sample and splits at every leak rate: paired draws
            rng = np.random.default_rng(draw_seed)
            sample = draw_leaky_sample(rng, item.pool, item.stereotype, item.content, item.n, item.alpha, leak)
            split_seed = parallel.draw_seed(np.random.default_rng([draw_seed, 1]))
            aucs.append(probes.probe_auc(item.pool.X[sample.index], sample.y, sample.groups, seed=split_seed,
                                         n_seeds=item.n_seeds).auc_mean)
            realised.append(sample.leak_realised)
            short = short or sample.short
        rows.append({"model": item.model, "alpha": item.alpha, "leak": leak,
                     "leak_realised": float(np.mean(realised)), "short": short, "n": item.n, "draws": item.draws,
                     "auc": float(np.mean(aucs)),
                     "auc_se": float(np.std(aucs, ddof=1) / np.sqrt(item.draws)) if item.draws > 1 else np.nan})
    return rows


def leaky_purity(pools: Mapping[str, purity.Pool], alphas: Sequence[float], leak_rates: Sequence[float], n: int,
                 draws: int, n_seeds: int = 5, seed: int = 0, n_jobs: int = 1) -> pd.DataFrame:
    """E11 part 3: grouped-CV AUC of leaky-purity samples beside Eq. 8 at the cross-fitted ŝ.

    ``pools`` maps model names to gender pools. Per (model, α, leak): the mean over ``draws``
    samples (:func:`draw_leaky_sample`; draws paired across leak rates) of the seed-averaged pooled
    out-of-fold AUC of the paper's probe, ``predicted_auc`` = Eq. 8 at ŝ
    (:func:`lib.bias_probes.estimators.separation_crossfit` on the marked pairs) and ``excess`` = AUC − Eq. 8.
    """
    rows = dimension_rows("gender")
    stereotype, content = rows.stereotype.to_numpy(), rows.content_id.to_numpy()
    items = [LeakyItem(model=model, pool=pool, stereotype=stereotype, content=content, alpha=float(a),
                       leak_rates=tuple(float(r) for r in leak_rates), n=n, draws=draws, n_seeds=n_seeds)
             for model, pool in pools.items() for a in alphas]
    cells = parallel.parallel_map(_leaky_cell, items, seed=seed, n_jobs=n_jobs)
    frame = pd.DataFrame([row for cell in cells for row in cell])
    s_hat = {model: estimators.separation_crossfit(pool.X[pool.marked], pool.group[pool.marked], seed=seed)
             for model, pool in pools.items()}
    frame["s_hat"] = frame.model.map(s_hat)
    frame["predicted_auc"] = theory.purity_auc(frame.s_hat, frame.alpha)
    frame["excess"] = frame.auc - frame.predicted_auc
    frame["excess_z"] = frame.excess / frame.auc_se
    return frame
