"""Paper 000's experiments on model features (Sec. VI): the template grid through a model, probed
with the ground-truth tier's protocol unchanged (:func:`lib.probes.probe_auc`, 1.4·σ₀ test).

Hidden states of all 5,440 prompts come from one cached extraction per model
(:func:`lib.models.extraction.extract`); each dimension's prompts form a :class:`lib.bias_probes.purity.Pool`, and
datasets at purity α are drawn with :func:`lib.bias_probes.purity.draw_purity_sample` (whole pairs, neutral
texts with random labels, CV groups = context cells).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib import parallel, probes, stats
from lib.bias_probes import estimators, prompts, purity, simulate, theory
from lib.models import extraction, layer_resolver


def grid_states(model: str, layers: str | Sequence[int] = "all", pooling: str = "mean",
                chat_template: bool = False) -> np.ndarray:
    """Pooled hidden states of the whole template grid, shape (layers, 5440, d) (cached)."""
    texts = prompts.template_grid().text.tolist()
    return extraction.extract(model, texts, layers=layers, pooling=pooling, chat_template=chat_template)


def model_pools(models: Sequence[str], dimensions: Sequence[str], layer: int | str = "mid",
                pooling: str = "mean") -> dict[tuple[str, str], purity.Pool]:
    """Pools keyed by (model, dimension) at ``layer`` ("mid": the paper's ⌊L/2⌋;
    :func:`lib.models.layer_resolver.resolve_layer`)."""
    pools = {}
    for model in models:
        chosen = layer_resolver.resolve_layer(model, layer)
        by_dimension = dimension_pools(grid_states(model, layers=[chosen], pooling=pooling)[0])
        pools.update({(model, dim): by_dimension[dim] for dim in dimensions})
    return pools


def dimension_pools(states: np.ndarray) -> dict[str, purity.Pool]:
    """One layer's states (5440, d) split into a pool per bias dimension."""
    grid = prompts.template_grid()
    return {dim: purity.grid_pool(grid, dim, states[(grid.dimension == dim).to_numpy()]) for dim in prompts.DIMENSIONS}


def _marked(pool: purity.Pool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows = pool.marked
    return pool.X[rows], pool.group[rows], pool.cell[rows]


def separation_and_offset(pool: purity.Pool, seed: int = 0) -> dict:
    """Cross-fitted ŝ on the counterfactual pairs (standardised, as the probe sees the features; ``s_hat_raw``
    on the raw coordinates beside it) and the neutral offset b_w (Sec. V-F, VI-C)."""
    X, y, _ = _marked(pool)
    return {"s_hat": estimators.separation_crossfit(X, y, seed=seed),
            "s_hat_raw": estimators.separation_crossfit(X, y, seed=seed, standardize=False),
            "b_w": estimators.neutral_offset(X, y, pool.X[~pool.marked])}


def _probe_row(X: np.ndarray, y: np.ndarray, groups: np.ndarray, seed: int, n_seeds: int = 5) -> dict:
    result = probes.probe_auc(X, y, groups, seed=seed, n_seeds=n_seeds)
    return result.as_row()


@dataclass(frozen=True)
class RegimeItem:
    """One regime ("counterfactual" or "mixed" at (α, n)) of one labelled pool (paper 000, E01, E04)."""

    labels: dict[str, object]
    pool: purity.Pool
    regime: str
    alpha: float
    n: int


def regime_cell(item: RegimeItem, seed: int) -> dict:
    """E01 cell: one regime of one (model, dimension) pool; ``item.labels`` lead the returned row."""
    rng = np.random.default_rng(seed)
    if item.regime == "counterfactual":
        X, y, groups = _marked(item.pool)
    else:
        sample = purity.draw_purity_sample(rng, item.pool, item.n, item.alpha)
        X, y, groups = item.pool.X[sample.index], sample.y, sample.groups
    return {**item.labels, "regime": item.regime, "alpha": item.alpha if item.regime != "counterfactual" else 1.0,
            "n": len(y), **_probe_row(X, y, groups, parallel.draw_seed(rng))}


def regimes(pools: dict[tuple, purity.Pool], alpha: float = 0.3, n: int = 300, seed: int = 0,
            n_jobs: int = 1) -> pd.DataFrame:
    """E01: counterfactual (α = 1, every marked sentence) vs mixed (α, n) per labelled pool, with ŝ and b_w.

    ``pools`` maps label tuples (e.g. (model, dimension)) to pools; ``predicted_auc`` is Eq. 8 at ŝ.
    """
    keys = list(pools)
    items = [RegimeItem(labels=dict(zip(("model", "dimension"), key, strict=False)), pool=pools[key], regime=regime,
                        alpha=alpha, n=n)
             for key in keys for regime in ("counterfactual", "mixed")]
    frame = pd.DataFrame(parallel.parallel_map(regime_cell, items, seed=seed, n_jobs=n_jobs))
    geometry = pd.DataFrame([{"model": k[0], "dimension": k[1], **separation_and_offset(pools[k], seed)} for k in keys])
    frame = frame.merge(geometry, on=["model", "dimension"])
    frame["predicted_auc"] = theory.purity_auc(frame.s_hat, frame.alpha)
    return frame


@dataclass(frozen=True)
class CurveItem:
    """One purity α of one labelled pool's AUC(α) curve at n, over ``draws`` samples (paper 000, E02, E07)."""

    labels: dict[str, object]
    pool: purity.Pool
    alpha: float
    n: int
    draws: int


def _curve_cell(item: CurveItem, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    aucs = []
    for _ in range(item.draws):
        sample = purity.draw_purity_sample(rng, item.pool, item.n, item.alpha)
        aucs.append(_probe_row(item.pool.X[sample.index], sample.y, sample.groups,
                               parallel.draw_seed(rng))["auc_mean"])
    return {**item.labels, "alpha": item.alpha, "n": item.n, "draws": item.draws, "auc": float(np.mean(aucs)),
            "auc_se": float(np.std(aucs, ddof=1) / np.sqrt(item.draws)) if item.draws > 1 else np.nan}


def purity_curves(pools: dict[tuple, purity.Pool], alphas: Sequence[float], n: int, draws: int, seed: int = 0,
                  n_jobs: int = 1) -> pd.DataFrame:
    """E02: AUC(α) at n per pool beside Eq. 8 predicted from one cross-fitted ŝ (zero free parameters)."""
    items = [CurveItem(labels=dict(zip(("model", "dimension"), k, strict=False)), pool=pools[k], alpha=float(a), n=n,
                       draws=draws)
             for k in pools for a in alphas]
    frame = pd.DataFrame(parallel.parallel_map(_curve_cell, items, seed=seed, n_jobs=n_jobs))
    s_hat = pd.DataFrame([{"model": k[0], "dimension": k[1], "s_hat": separation_and_offset(pools[k], seed)["s_hat"]}
                          for k in pools])
    frame = frame.merge(s_hat, on=["model", "dimension"])
    frame["predicted_auc"] = theory.purity_auc(frame.s_hat, frame.alpha)
    return frame


def pool_respects(pool: purity.Pool, n: int, alpha: float) -> bool:
    """Whether (α, n) can be drawn without resampling past the pool."""
    pairs = int(round(alpha * n / 2))
    return pairs <= len(np.unique(pool.pair[pool.marked])) and n - 2 * pairs <= int((~pool.marked).sum())


@dataclass(frozen=True)
class PhaseItem:
    """One pool-respecting (α, n) cell of one labelled pool's detection phase diagram (paper 000, E02)."""

    labels: dict[str, object]
    pool: purity.Pool
    alpha: float
    n: int
    repeats: int


def _phase_cell(item: PhaseItem, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    detected = []
    for _ in range(item.repeats):
        sample = purity.draw_purity_sample(rng, item.pool, item.n, item.alpha)
        row = _probe_row(item.pool.X[sample.index], sample.y, sample.groups, parallel.draw_seed(rng), n_seeds=1)
        detected.append(row["detection_detected"])
    return {**item.labels, "alpha": item.alpha, "n": item.n, "repeats": item.repeats,
            "detection_rate": float(np.mean(detected))}


def phase_diagram(pools: dict[tuple, purity.Pool], alphas: Sequence[float], ns: Sequence[int], repeats: int,
                  seed: int = 0, n_jobs: int = 1) -> pd.DataFrame:
    """E02: detection rate (single-seed protocol, 1.4·σ₀ test) over pool-respecting (α, n) cells."""
    items = [PhaseItem(labels=dict(zip(("model", "dimension"), k, strict=False)), pool=pools[k], alpha=float(a),
                       n=int(n), repeats=repeats)
             for k in pools for n in ns for a in alphas if pool_respects(pools[k], int(n), float(a))]
    return pd.DataFrame(parallel.parallel_map(_phase_cell, items, seed=seed, n_jobs=n_jobs))


@dataclass(frozen=True)
class LeakageItem:
    """One purity α of one labelled pool for grouped vs random CV on identical data (paper 000, E08)."""

    labels: dict[str, object]
    pool: purity.Pool
    alpha: float
    n: int


def _leakage_cell(item: LeakageItem, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    if item.alpha >= 1:
        X, y, cells = _marked(item.pool)
    else:
        sample = purity.draw_purity_sample(rng, item.pool, item.n, item.alpha)
        X, y, cells = item.pool.X[sample.index], sample.y, sample.groups
    split_seed = parallel.draw_seed(rng)
    grouped = probes.probe_auc(X, y, cells, seed=split_seed).auc_mean
    random = probes.probe_auc(X, y, np.arange(len(y)), seed=split_seed).auc_mean
    return {**item.labels, "alpha": item.alpha, "n": len(y), "grouped_auc": grouped, "random_auc": random,
            "leakage": random - grouped}


def leakage(pools: dict[tuple, purity.Pool], alphas: Sequence[float], n: int, seed: int = 0,
            n_jobs: int = 1) -> pd.DataFrame:
    """E08: grouped (context cell, pairs together) vs random CV on identical data; α = 1 uses every marked text."""
    items = [LeakageItem(labels=dict(zip(("model", "dimension"), k, strict=False)), pool=pools[k], alpha=float(a), n=n)
             for k in pools for a in alphas]
    return pd.DataFrame(parallel.parallel_map(_leakage_cell, items, seed=seed, n_jobs=n_jobs))


def layer_scan(models: Sequence[str], dimensions: Sequence[str], alpha: float, n: int, pooling: str = "mean",
               seed: int = 0, n_jobs: int = 1) -> pd.DataFrame:
    """E04: mixed-regime AUC and cross-fitted ŝ (standardised and raw) at every layer (0: embeddings) of each model."""
    rows = []
    for model in models:
        states = grid_states(model, pooling=pooling)
        pools = {}
        for layer, layer_states in enumerate(states):
            by_dimension = dimension_pools(np.asarray(layer_states))
            pools.update({(model, dim, layer): by_dimension[dim] for dim in dimensions})
        items = [RegimeItem(labels={"model": k[0], "dimension": k[1], "layer": k[2]}, pool=p, regime="mixed",
                            alpha=alpha, n=n)
                 for k, p in pools.items()]
        frame = pd.DataFrame(parallel.parallel_map(regime_cell, items, seed=seed, n_jobs=n_jobs))
        geometry = [separation_and_offset(pools[(m, d, k)], seed)
                    for m, d, k in frame[["model", "dimension", "layer"]].itertuples(index=False)]
        frame["s_hat"] = [g["s_hat"] for g in geometry]
        frame["s_hat_raw"] = [g["s_hat_raw"] for g in geometry]
        frame["n_layers"] = len(states) - 1
        rows.append(frame)
    return pd.concat(rows, ignore_index=True)


def subpool(pool: purity.Pool, cells: np.ndarray) -> purity.Pool:
    """The rows of ``pool`` whose context cell is in ``cells`` (held-out splits by cell)."""
    rows = np.isin(pool.cell, cells)
    return purity.Pool(pool.X[rows], pool.cell[rows], pool.pair[rows], pool.group[rows])


def _split_cells(pool: purity.Pool, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    cells = rng.permutation(np.unique(pool.cell))
    return cells[: len(cells) // 2], cells[len(cells) // 2:]


# --------------------------------------------------------------------------- E07: concentration index


def concentration_predictions(pools: dict[tuple, purity.Pool], alphas: Sequence[float], n: int, draws: int,
                              seed: int = 0, n_jobs: int = 1) -> pd.DataFrame:
    """E07: label-free β_B on the marked texts → ŝ_β (α = 1 link) → Eq. 8, beside the empirical AUC(α).

    β_B is read on standardised features (each coordinate z-scored over the marked texts), the features the
    probe and ŝ see; a massive-activation coordinate otherwise holds most of the trace and β_B measures it,
    not bias. ``beta_raw`` and ``s_beta_raw`` keep the raw-feature reading beside it.
    Also carries the cross-fitted ŝ and its prediction, so the label-free route can be compared
    with the supervised one.
    """
    frame = purity_curves(pools, alphas, n, draws, seed=seed, n_jobs=n_jobs)
    rows = []
    for (model, dim), pool in pools.items():
        X, _, _ = _marked(pool)
        spread = X.std(axis=0)
        standardised = (X - X.mean(axis=0)) / np.where(spread > 0, spread, 1.0)
        beta, beta_raw = estimators.concentration_index(standardised), estimators.concentration_index(X)
        rows.append({"model": model, "dimension": dim, "beta": beta, "beta_raw": beta_raw,
                     "s_beta": estimators.separation_from_concentration(beta, X.shape[1]),
                     "s_beta_raw": estimators.separation_from_concentration(beta_raw, X.shape[1])})
    frame = frame.merge(pd.DataFrame(rows), on=["model", "dimension"])
    frame["predicted_from_beta"] = theory.purity_auc(frame.s_beta, frame.alpha)
    return frame


# --------------------------------------------------------------------------- E05: confound resampling


@dataclass(frozen=True)
class ConfoundItem:
    """One correlation ρ of one labelled pool; ``is_confounded_cell`` is indexed by cell id (paper 000, E05)."""

    labels: dict[str, object]
    pool: purity.Pool
    is_confounded_cell: np.ndarray
    rho: float
    n: int
    draws: int


def _confound_cell(item: ConfoundItem, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    aucs = []
    for _ in range(item.draws):
        train_cells, test_cells = _split_cells(item.pool, rng)
        marked = item.pool.marked & np.isin(item.pool.cell, train_cells)
        confound = item.is_confounded_cell[item.pool.cell]
        # P(y = 1 | confound) = (1 + ρ)/2 and P(y = 1 | not confound) = (1 − ρ)/2: single sentences, not pairs
        want_group = np.where(rng.random(len(item.pool.cell)) < (1 + item.rho) / 2, confound, ~confound).astype(int)
        candidates = np.flatnonzero(marked & (item.pool.group == want_group))
        chosen = rng.choice(candidates, size=min(item.n, len(candidates)), replace=False)
        probe = probes.linear_probe().fit(item.pool.X[chosen], item.pool.group[chosen])
        test = item.pool.marked & np.isin(item.pool.cell, test_cells)
        aucs.append(float(stats.auroc(item.pool.group[test], probe.decision_function(item.pool.X[test]))))
    return {**item.labels, "correlation": item.rho, "n": item.n, "draws": item.draws, "test_auc": float(np.mean(aucs)),
            "test_auc_se": float(np.std(aucs, ddof=1) / np.sqrt(item.draws)) if item.draws > 1 else np.nan}


def confound_resampling(pools: dict[tuple, purity.Pool], correlations: Sequence[float], n: int, draws: int,
                        seed: int = 0, n_jobs: int = 1) -> pd.DataFrame:
    """E05 (semi-synthetic): train on real features where the label correlates with a confound.

    The confound is the context kind (profession vs trait or activity frames): training sentences
    are drawn so that P(y = 1 | profession) = (1 + ρ)/2; the probe is tested on whole counterfactual
    pairs from held-out cells, where label and confound are independent. If the bias direction is
    orthogonal to the confound (C3), the test AUC does not depend on ρ.
    """
    kinds = prompts.context_cells().set_index("cell").content_kind
    is_profession = (kinds.sort_index() == "profession").to_numpy()
    items = [ConfoundItem(labels=dict(zip(("model", "dimension"), k, strict=False)), pool=pools[k],
                          is_confounded_cell=is_profession, rho=float(rho), n=n, draws=draws)
             for k in pools for rho in correlations]
    return pd.DataFrame(parallel.parallel_map(_confound_cell, items, seed=seed, n_jobs=n_jobs))


# --------------------------------------------------------------------------- E06: generalisation gap


@dataclass(frozen=True)
class GapItem:
    """One training size n of one labelled pool's train − held-out-cells AUC gap at purity α (paper 000, E06)."""

    labels: dict[str, object]
    pool: purity.Pool
    alpha: float
    n: int
    draws: int
    reg: float = 1.0


def _ramp_gap(probe, X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray, y_test: np.ndarray) -> float:
    """Test − train ramp risk of a fitted probe (:func:`simulate.ramp_risk`, the bounded loss of Theorem 1)."""
    def risk(X: np.ndarray, y: np.ndarray) -> float:
        return float(simulate.ramp_risk((2.0 * y - 1) * probe.decision_function(X)))
    return risk(X_test, y_test) - risk(X_train, y_train)


def _gap_cell(item: GapItem, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    gaps, tests, trains, ramp_gaps = [], [], [], []
    for _ in range(item.draws):
        train_cells, test_cells = _split_cells(item.pool, rng)
        train_pool, test_pool = subpool(item.pool, train_cells), subpool(item.pool, test_cells)
        train = purity.draw_purity_sample(rng, train_pool, item.n, item.alpha)
        test_n = max(m for m in range(20, 2000, 10) if pool_respects(test_pool, m, item.alpha))
        test = purity.draw_purity_sample(rng, test_pool, test_n, item.alpha)
        X_train, X_test = train_pool.X[train.index], test_pool.X[test.index]
        probe = probes.linear_probe().fit(X_train, train.y)
        trains.append(float(stats.auroc(train.y, probe.decision_function(X_train))))
        tests.append(float(stats.auroc(test.y, probe.decision_function(X_test))))
        gaps.append(trains[-1] - tests[-1])
        # Theorem 1's class: a fixed penalty per sample (C = 1/(reg·n)) keeps ‖w‖ bounded as n grows.
        bounded = probes.linear_probe(C=1.0 / (item.reg * item.n)).fit(X_train, train.y)
        ramp_gaps.append(_ramp_gap(bounded, X_train, train.y, X_test, test.y))
    return {**item.labels, "alpha": item.alpha, "n": item.n, "draws": item.draws, "auc_gap": float(np.mean(gaps)),
            "auc_gap_se": float(np.std(gaps, ddof=1) / np.sqrt(item.draws)) if item.draws > 1 else np.nan,
            "train_auc": float(np.mean(trains)), "test_auc": float(np.mean(tests)),
            "bounded_ramp_gap": float(np.mean(ramp_gaps)),
            "bounded_ramp_gap_se": float(np.std(ramp_gaps, ddof=1) / np.sqrt(item.draws)) if item.draws > 1 else np.nan}


def generalization_gap(pools: dict[tuple, purity.Pool], n_values: Sequence[int], alpha: float, draws: int,
                       reg: float = 1.0, seed: int = 0, n_jobs: int = 1) -> pd.DataFrame:
    """E06 on model features: train − held-out-cells AUC of the paper's probe against n at purity α.

    With n < d the paper's probe (C = 1) interpolates (``train_auc`` ≈ 1), so its AUC gap is
    1 − test AUC and tends to 1 − AUC_∞, not 0: Theorem 1 does not predict its slope. The theorem's
    class is norm-bounded: ``bounded_ramp_gap`` is the test − train ramp-loss gap of the same probe with
    a fixed penalty per sample (C = 1/(reg·n)), the quantity Eq. 2 bounds.
    """
    items = [GapItem(labels=dict(zip(("model", "dimension"), k, strict=False)), pool=pools[k], alpha=float(alpha),
                     n=int(n), draws=draws, reg=float(reg))
             for k in pools for n in n_values]
    return pd.DataFrame(parallel.parallel_map(_gap_cell, items, seed=seed, n_jobs=n_jobs))


# --------------------------------------------------------------------------- E10: non-linear probes


@dataclass(frozen=True)
class NonlinearItem:
    """One (α, probe) cell of one labelled pool under the identical protocol (paper 000, E10 on model features)."""

    labels: dict[str, object]
    pool: purity.Pool
    alpha: float
    n: int
    draws: int
    probe_name: str


def _nonlinear_cell(item: NonlinearItem, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    aucs = []
    for _ in range(item.draws):
        if item.alpha >= 1:
            X, y, groups = _marked(item.pool)
        else:
            sample = purity.draw_purity_sample(rng, item.pool, item.n, item.alpha)
            X, y, groups = item.pool.X[sample.index], sample.y, sample.groups
        estimator = probes.make_probe(item.probe_name, parallel.draw_seed(rng))
        aucs.append(probes.probe_auc(X, y, groups, estimator, seed=parallel.draw_seed(rng)).auc_mean)
    return {**item.labels, "alpha": item.alpha, "probe": item.probe_name, "draws": item.draws,
            "auc": float(np.mean(aucs)),
            "auc_se": float(np.std(aucs, ddof=1) / np.sqrt(item.draws)) if item.draws > 1 else np.nan}


def nonlinear_probes(pools: dict[tuple, purity.Pool], alphas: Sequence[float], n: int, draws: int,
                     probe_names: Sequence[str] = ("linear", "rbf_svm", "mlp"), seed: int = 0,
                     n_jobs: int = 1) -> pd.DataFrame:
    """E10 on model features: linear, RBF-SVM and MLP probes under the identical protocol, per purity."""
    items = [NonlinearItem(labels=dict(zip(("model", "dimension"), k, strict=False)), pool=pools[k], alpha=float(a),
                           n=n, draws=draws, probe_name=p)
             for k in pools for a in alphas for p in probe_names]
    return pd.DataFrame(parallel.parallel_map(_nonlinear_cell, items, seed=seed, n_jobs=n_jobs))


def manifold_geometry(pools: dict[tuple, purity.Pool], seed: int = 0) -> pd.DataFrame:
    """The bias submanifold's estimators read on model features (paper 000, Sec. V-F; E3 Part D calibrates them).

    Per pool, on its marked texts: d̂ by Levina–Bickel MLE and by Two-NN, then κ̂ by the sagitta fit with the
    tangent dimension round(d̂_MLE) (clipped to 1 … 50), through the origin as the paper fits it and with the
    noise-floor correction; ``neighbours`` is the fit's neighbourhood size. Model features carry ambient
    noise, so E3's noise sweep says which κ̂ to read.
    """
    rows = []
    for (model, dim), pool in pools.items():
        X, _, _ = _marked(pool)
        d_mle, d_twonn = estimators.intrinsic_dim_mle(X), estimators.intrinsic_dim_twonn(X)
        m = int(np.clip(round(d_mle), 1, min(50, X.shape[1] - 1)))
        k = min(estimators.default_sagitta_neighbors(m), X.shape[0] - 1)
        rows.append({"model": model, "dimension": dim, "n_texts": len(X), "d_mle": d_mle, "d_twonn": d_twonn,
                     "tangent_dim": m, "neighbours": k,
                     "kappa_origin": estimators.curvature_sagitta(X, m, k, seed=seed),
                     "kappa_floor": estimators.curvature_sagitta(X, m, k, seed=seed, fit="floor")})
    return pd.DataFrame(rows)
