"""Does β_B order a model's bias dimensions as their separation does? (paper 000, Sec. V, Definition 1; E7).

The paper states the direction of the β_B–geometry association: "larger = more linearly detectable". β_B is a
top-eigenvalue share, so its scale depends on the model's feature spectrum: across models it can follow the
models' separations while ordering each model's dimensions the other way. The direction is therefore read within
each model, across its bias dimensions (:func:`within_model_spearman`), against independent orders and against
the order the re-derived link would give (:func:`order_draws`), each pool's β_B with its bootstrap s.e. over
counterfactual pairs (:func:`concentration_draws`, :func:`concentration_bootstrap`).

Why it may fail: β_B reads the top principal direction of the marked texts. In the two-cluster model that
Definition 1's link to separation assumes (:func:`lib.bias_probes.estimators.concentration_from_separation`) that
direction is the class-mean difference; on model features it may be a direction the template contexts set. The
|cosine| between the two, per bootstrap resample (:func:`concentration_draws`) and on the two-cluster model at each
pool's ŝ, d and number of marked texts (:func:`two_cluster_alignment`), is the statistic of E7's mechanism claim
(:func:`largest_alignment`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.sparse.linalg import svds

from lib import stats
from lib.bias_probes import cell_draws, estimators, purity
from lib.claim_power import DRAWS


def _standardise(X: np.ndarray) -> np.ndarray:
    """Features z-scored per coordinate, as :func:`lib.bias_probes.model_audit.concentration_predictions` reads β_B
    (the features the probe and ŝ see)."""
    spread = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(spread > 0, spread, 1.0)


def _top(Z: np.ndarray) -> tuple[float, np.ndarray]:
    """(β_B of the centred ``Z``, :func:`lib.bias_probes.estimators.concentration_index`, and its top principal
    direction), the top singular value by Lanczos iteration from a fixed start, which a bootstrap repeats often."""
    _, top, direction = svds(Z, k=1, v0=np.ones(Z.shape[1]))
    return float(top[0] ** 2 / np.sum(Z**2) - 1.0 / Z.shape[1]), direction[0]


def _alignment(Z: np.ndarray, group: np.ndarray) -> tuple[float, float]:
    """(β_B of the standardised ``Z``, the |cosine| between its top principal direction and the class-mean
    difference of ``group``; NaN when the classes share their mean)."""
    beta, direction = _top(Z)
    difference = Z[group == 1].mean(axis=0) - Z[group == 0].mean(axis=0)
    norm = float(np.linalg.norm(difference))
    return beta, float(abs(direction @ difference) / norm) if norm > 0 else np.nan


def concentration_draws(pools: dict[tuple, purity.Pool], reps: int, seed: int = 0) -> pd.DataFrame:
    """Per pool and bootstrap resample (``draw`` 0 … reps − 1) of its whole counterfactual pairs (pair members
    travel together, Sec. VI-A): β_B of the resampled marked texts, standardised (Definition 1, re-derived in
    :func:`lib.bias_probes.estimators.concentration_index`), and ``top_alignment``, the |cosine| between the top
    principal direction β_B reads and the resample's class-mean difference."""
    rng = np.random.default_rng(seed)
    rows = []
    for (model, dim), pool in pools.items():
        marked = np.flatnonzero(pool.marked)
        pairs = pool.pair[marked]
        ids = np.unique(pairs)
        members = {p: marked[pairs == p] for p in ids}
        for draw in range(reps):
            rows_drawn = np.concatenate([members[p] for p in rng.choice(ids, len(ids))])
            beta, alignment = _alignment(_standardise(pool.X[rows_drawn]), pool.group[rows_drawn])
            rows.append({"model": model, "dimension": dim, "draw": draw, "beta": beta,
                         "top_alignment": alignment})
    return pd.DataFrame(rows, columns=["model", "dimension", "draw", "beta", "top_alignment"])


def concentration_bootstrap(pools: dict[tuple, purity.Pool], draws: pd.DataFrame) -> pd.DataFrame:
    """Per pool: the feature dimension d, its number of marked texts, β_B of them (standardised), its bootstrap
    s.e. (the s.d. of the pool's β_B over :func:`concentration_draws`' resamples; NaN with fewer than two), and
    ``top_alignment``, the |cosine| between the top principal direction β_B reads and the marker's class-mean
    difference."""
    spread = draws.groupby(["model", "dimension"]).beta.std(ddof=1)
    rows = []
    for (model, dim), pool in pools.items():
        beta, alignment = _alignment(_standardise(pool.X[pool.marked]), pool.group[pool.marked])
        rows.append({"model": model, "dimension": dim, "d": pool.X.shape[1], "n_marked": int(pool.marked.sum()),
                     "beta": beta, "beta_se": float(spread.get((model, dim), np.nan)), "top_alignment": alignment})
    return pd.DataFrame(rows)


#: Samples per pool of the two-cluster model in :func:`two_cluster_alignment`: a largest |cosine| that never
#: clears the mechanism's bound in 100 samples reads a Jeffreys share of 0.005.
TWO_CLUSTER_SAMPLES = 100


def two_cluster_alignment(table: pd.DataFrame, samples: int = TWO_CLUSTER_SAMPLES, seed: int = 0) -> pd.DataFrame:
    """The alignment :func:`concentration_draws` measures, on the model Definition 1's link assumes (two clusters
    plus isotropic noise, the link re-derived in :func:`lib.bias_probes.estimators.concentration_from_separation`),
    at each pool's sizes: per row of ``table`` (``model``, ``dimension``, ``s_hat``, ``d``, ``n_marked``) and sample
    (``draw``), ``n_marked`` texts in two balanced classes at ±Δ/2, ‖Δ‖ = ŝ along a uniformly random direction,
    N(0, I_d) noise, standardised as the real texts are; ``top_alignment`` as there. Where ŝ²/4 is well above
    √(d/n) (below it a spike's sample direction is the noise's: Baik–Ben Arous–Péché) the top principal direction is
    Δ up to its sampling angle."""
    rng = np.random.default_rng(seed)
    rows = []
    for row in table.itertuples(index=False):
        d, n = int(row.d), int(row.n_marked)
        group = np.arange(n) % 2
        for draw in range(samples):
            direction = rng.standard_normal(d)
            delta = float(row.s_hat) * direction / np.linalg.norm(direction)
            X = (group - 0.5)[:, None] * delta[None, :] + rng.standard_normal((n, d))
            rows.append({"model": row.model, "dimension": row.dimension, "draw": draw,
                         "top_alignment": _alignment(_standardise(X), group)[1]})
    return pd.DataFrame(rows, columns=["model", "dimension", "draw", "top_alignment"])


def largest_alignment(draws: pd.DataFrame) -> np.ndarray:
    """Per draw, the largest ``top_alignment`` over the pools (:func:`concentration_draws`,
    :func:`two_cluster_alignment`): draws of the mechanism's statistic, each pool resampled in every draw."""
    return draws.groupby("draw").top_alignment.max().to_numpy()


def within_model_spearman(table: pd.DataFrame, x: str, y: str) -> pd.Series:
    """Spearman's ρ between columns ``x`` and ``y`` across each model's rows (its bias dimensions), by model."""
    return table.groupby("model", sort=False).apply(lambda rows: stats.spearman(rows[x], rows[y]), include_groups=False)


def order_draws(table: pd.DataFrame, *, n: int = DRAWS, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Draws of the mean over models of the within-model Spearman ρ between β_B and ŝ (``table``: one row per pool
    with ``s_hat``, ``d``, ``beta_se``): ``if_paper``, β_B measured with its bootstrap s.e. around the β_B that the
    re-derived link gives at each dimension's ŝ (:func:`lib.bias_probes.estimators.concentration_from_separation`),
    so ordered as ŝ; ``if_null``, each model's two orders independent."""
    groups = [rows for _, rows in table.groupby("model", sort=False)]
    truths = [[estimators.concentration_from_separation(s, int(d)) for s, d in zip(g.s_hat, g.d, strict=True)]
              for g in groups]
    return (cell_draws.mean_spearman_draws([g.s_hat.to_numpy() for g in groups], truths,
                                           [g.beta_se.to_numpy() for g in groups], n=n, seed=seed),
            cell_draws.mean_independent_spearman_draws([len(g) for g in groups], n=n, seed=seed))


def order_mechanism(table: pd.DataFrame, file: str) -> str:
    """Why β_B does not order a model's dimensions as ŝ does, from :func:`concentration_bootstrap` (logged in
    ``file``): the direction it reads is nearly orthogonal to the marker's. "" unless every pool's |cosine| is
    below 0.3."""
    if table.empty or not table.top_alignment.max() < 0.3:
        return ""
    return (f"β_B reads the top principal direction of a dimension's marked texts, and that direction is nearly "
            f"orthogonal to the marker's class-mean difference (|cos| ≤ {table.top_alignment.max():.2f} in every "
            f"pool, `{file}`): it measures the spread of the template contexts the dimensions share, and once "
            f"coordinates are z-scored the total variance is fixed at d, so a stronger marker, orthogonal to it, "
            f"takes its share from the top direction and lowers β_B")
