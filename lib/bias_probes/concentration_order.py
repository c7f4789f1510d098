"""Does β_B order a model's bias dimensions as their separation does? (paper 000, Sec. V, Definition 1; E7).

The paper states the direction of the β_B–geometry association: "larger = more linearly detectable". β_B is a
top-eigenvalue share, so its scale depends on the model's feature spectrum: across models it can follow the
models' separations while ordering each model's dimensions the other way. The direction is therefore read within
each model, across its bias dimensions (:func:`within_model_spearman`), against independent orders and against
the order the re-derived link would give (:func:`order_draws`), each pool's β_B with its bootstrap s.e. over
counterfactual pairs (:func:`concentration_bootstrap`).
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


def concentration_bootstrap(pools: dict[tuple, purity.Pool], reps: int, seed: int = 0) -> pd.DataFrame:
    """Per pool: the feature dimension d, β_B of its marked texts (standardised), its bootstrap s.e. over ``reps``
    resamples of whole counterfactual pairs (pair members travel together, Sec. VI-A), and ``top_alignment``, the
    |cosine| between the top principal direction β_B reads and the marker's class-mean difference."""
    rng = np.random.default_rng(seed)
    rows = []
    for (model, dim), pool in pools.items():
        marked = np.flatnonzero(pool.marked)
        pairs = pool.pair[marked]
        ids = np.unique(pairs)
        members = {p: marked[pairs == p] for p in ids}
        Z = _standardise(pool.X[marked])
        beta, direction = _top(Z)
        difference = Z[pool.group[marked] == 1].mean(axis=0) - Z[pool.group[marked] == 0].mean(axis=0)
        resampled = [_top(_standardise(pool.X[np.concatenate([members[p] for p in rng.choice(ids, len(ids))])]))[0]
                     for _ in range(reps)]
        rows.append({"model": model, "dimension": dim, "d": pool.X.shape[1], "beta": beta,
                     "beta_se": float(np.std(resampled, ddof=1)) if reps > 1 else np.nan,
                     "top_alignment": float(abs(direction @ difference) / np.linalg.norm(difference))})
    return pd.DataFrame(rows)


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
