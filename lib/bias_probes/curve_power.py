"""The power of E02's purity-curve claims and the diagnostic of their failure (paper 000, Thm 3 (i), (iii); E2).

Eq. 8 at one cross-fitted ŝ predicts the grouped-CV AUC at every purity of a (model, dimension) curve, each point
a mean over the run's datasets with its logged s.e. The draws give a curve statistic at this run's size (the largest
or mean |AUC − Eq. 8|, the largest drop between consecutive purities) once with Eq. 8 as the truth and once with a
named competitor: linear dilution, the AUC diluted in proportion to purity (:func:`linear_dilution_auc`), or a
curve with an interior dip (:func:`with_dip`). The competitors are the project's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from lib import parallel
from lib.bias_probes import groundtruth, theory
from lib.claim_power import DRAWS

_CURVE = ["model", "dimension"]


def linear_dilution_auc(s: ArrayLike, alpha: ArrayLike) -> np.ndarray:
    """½ + α·(Φ(s/√2) − ½): the counterfactual AUC diluted in proportion to purity, the competitor of Eq. 8's pair
    mixture. The two agree at α ∈ {0, 1}; at saturation (s ≥ 6.6) Eq. 8 lies α(1 − α)/2 above it."""
    alpha = np.asarray(alpha, dtype=float)
    return 0.5 + alpha * (theory.binormal_auc(np.asarray(s, dtype=float)) - 0.5)


def abs_error_draws(offset: ArrayLike, se: ArrayLike, statistic: str, groups: ArrayLike | None = None, *,
                    n: int = DRAWS, seed: int = 0) -> np.ndarray:
    """``n`` draws of the ``statistic`` ("max" or "mean") of |offset_i + se_i·Z_i| over cells, or, with ``groups``
    (one label per cell, e.g. its purity), over the groups' means of it: the largest or mean |measured − Eq. 8| when
    each cell's truth differs from Eq. 8 by ``offset_i`` (0: Eq. 8 is right) and its measurement carries s.e.
    ``se_i`` (NaN draws when an s.e. is NaN)."""
    if statistic not in ("max", "mean"):
        raise ValueError(f"statistic={statistic!r} is not 'max' or 'mean'")
    offset, se = (np.asarray(v, dtype=float).ravel() for v in np.broadcast_arrays(offset, se))
    errors = np.abs(offset + se * np.random.default_rng(seed).standard_normal((n, offset.size)))
    if groups is not None:
        labels = pd.factorize(np.asarray(groups).ravel())[0]
        errors = np.stack([errors[:, labels == g].mean(1) for g in range(labels.max() + 1)], axis=1)
    return errors.max(1) if statistic == "max" else errors.mean(1)


def worst_purity(curves: pd.DataFrame) -> float:
    """The purity at which the curves' mean |AUC − Eq. 8| is largest (the cell ``curve_prediction_max`` reads)."""
    return float((curves.auc - curves.predicted_auc).abs().groupby(curves.alpha).mean().idxmax())


def synthetic_shortfall(points: pd.DataFrame, n: int, reps: int, seed: int = 0, n_jobs: int = 1) -> pd.DataFrame:
    """The paper's probe on isotropic synthetic purity mixtures at each point's ``s_hat``, ``alpha`` and feature
    dimension ``d`` (one row per point of ``points``, which also names its ``model`` and ``dimension``), n texts,
    ``reps`` audits each (:func:`lib.bias_probes.groundtruth.probes_vs_purity_law`): the finite-sample shortfall
    of a learnt probe below Eq. 8 where Eq. 8's assumptions hold exactly."""
    roots = parallel.spawn_seeds(seed, len(points))
    tables = [groundtruth.probes_vs_purity_law([row.s_hat], [row.alpha], n, int(row.d), reps, seed=root,
                                               n_jobs=n_jobs).assign(model=row.model, dimension=row.dimension)
              for row, root in zip(points.itertuples(), roots, strict=True)]
    return pd.concat(tables, ignore_index=True)


def with_dip(curves: pd.DataFrame, truth: ArrayLike, dip: float) -> np.ndarray:
    """``truth`` (one AUC per row of ``curves``) with an inversion: in each (model, dimension) curve the point at
    the middle purity set ``dip`` below the point before it."""
    truth = np.asarray(truth, dtype=float).copy()
    for _, rows in curves.assign(_row=np.arange(len(curves))).sort_values("alpha").groupby(_CURVE):
        order = rows._row.to_numpy()
        if len(order) > 1:
            middle = len(order) // 2
            truth[order[middle]] = truth[order[middle - 1]] - dip
    return truth


def largest_drop_draws(curves: pd.DataFrame, truth: ArrayLike, se: ArrayLike, *, n: int = DRAWS,
                       seed: int = 0) -> np.ndarray:
    """``n`` draws of the largest drop of the AUC between consecutive purities over the (model, dimension) curves,
    each point ``truth_i + se_i·Z_i`` (one per row of ``curves``): E2's inversion statistic at this run's size."""
    order = np.lexsort((curves.alpha.to_numpy(), *(pd.factorize(curves[c])[0] for c in reversed(_CURVE))))
    keys = curves[_CURVE].astype(str).agg("/".join, axis=1).to_numpy()[order]
    same = keys[1:] == keys[:-1]
    if not same.any():
        return np.full(n, np.nan)
    truth, se = (v[order] for v in np.broadcast_arrays(np.asarray(truth, dtype=float), np.asarray(se, dtype=float)))
    values = truth + se * np.random.default_rng(seed).standard_normal((n, len(truth)))
    return (values[:, :-1] - values[:, 1:])[:, same].max(1)


def shortfall_mechanism(curves: pd.DataFrame, synthetic: pd.DataFrame, file: str, k: float = 2.0) -> str:
    """Why the curves miss Eq. 8 at the purity of ``synthetic`` (:func:`synthetic_shortfall` at that purity, one
    row per curve): Eq. 8 is the Bayes AUC and the learnt probe falls short of it. Holds when the curves' mean error
    there is negative and the same probe on isotropic synthetic data at each curve's ŝ, n and d falls at least as
    far below Eq. 8 on average, within ``k`` s.e.; "" otherwise."""
    if synthetic.empty:
        return ""
    alpha = float(synthetic.alpha.iloc[0])
    points = curves[np.isclose(curves.alpha, alpha)]
    measured = points.auc - points.predicted_auc
    shortfall = float((synthetic.probe_auc - synthetic.bound).mean())
    se = float(np.sqrt((synthetic.probe_se**2).sum())) / len(synthetic)
    if not (measured.mean() < 0 and shortfall <= measured.mean() + k * se):
        return ""
    dims, n = ", ".join(map(str, sorted({int(d) for d in synthetic.d}))), int(synthetic.n.iloc[0])
    below, mean = int((measured < 0).sum()), measured.mean()
    return (f"Eq. 8 at ŝ is the best achievable (Bayes) AUC and the probe is learnt from n = {n} texts in d = {dims} "
            f"dimensions: at α = {alpha:g}, where the curves miss Eq. 8 most, {below} of {len(measured)} curves lie "
            f"below it (mean {mean:+.3f}), and the same probe on isotropic synthetic data at each curve's ŝ, α, n and "
            f"d falls {shortfall:+.3f} below Eq. 8 on average (s.e. {se:.3f}) ({file})")
