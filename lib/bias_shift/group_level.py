"""Does ΔB rank which groups moved? Its association with a label within checkpoints (paper 001, Sec. 3.4, 4.1).

Paper 001 reads ΔB per group ("a model yields one ΔB per group", Sec. 3.4) and pools the (ΔBiasScore, ΔB) pairs
of all checkpoints × groups into one Pearson r (Sec. 4.1). Along a merge spectrum every checkpoint moves every
group, so any two quantities that drift along the merge path correlate across checkpoints, whether or not ΔB says
which group moved. Centring ΔB and the label within each checkpoint removes that shared drift; what is left is
the group-level association (the within-checkpoint r), tested by permuting the label's group values within each
checkpoint, each checkpoint's mean kept (:func:`association`: the permutation p, and the s.d. of the permuted r
as the within r's standard error under that null). Labels permuted that way are also the shared-drift
null of the pooled statistics (:func:`drift_null_labels`): the label keeps its drift along the spectrum and loses
any group-specific tie to ΔB. Not in the paper: a control on its reading of ΔB per group.

Whether ΔB's movement along the spectrum is that shared drift is measured against the group-free control (the same
templates about "people", the control ΔB of :func:`lib.bias_shift.deltab.control_delta_b`): :func:`drift_share`,
the share of each group's variation over checkpoints that the control's ΔB accounts for, with its s.e. over
resampled groups (:func:`drift_share_draws`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from lib.bias_shift import evaluation


@dataclass(frozen=True)
class Association:
    """ΔB against a label on one checkpoints × groups table: the paper's pooled r, the checkpoint-level r of the
    means over groups, the within-checkpoint r with its s.e. under the shared-drift null (the s.d. of its
    permutation distribution), its one-sided (r at most the observed: the paper's direction) and two-sided
    permutation p, and the permutations drawn."""

    pooled_r: float
    between_r: float
    within_r: float
    within_se: float
    p_within_negative: float
    p_within: float
    n_permutations: int


def centred(matrix: np.ndarray) -> np.ndarray:
    """Each row (checkpoint) of ``matrix`` (…, checkpoints × groups) minus its mean over groups."""
    matrix = np.asarray(matrix, float)
    return matrix - matrix.mean(axis=-1, keepdims=True)


def within_orders(shape: tuple[int, int], n_permutations: int, seed: int = 0) -> np.ndarray:
    """``n_permutations`` orders of the groups within each checkpoint, drawn independently per checkpoint, the
    identity first: an (n_permutations, checkpoints, groups) index array."""
    if n_permutations < 2:
        raise ValueError(f"n_permutations={n_permutations}; allowed: >= 2")
    orders = np.random.default_rng(seed).random((n_permutations, *shape)).argsort(axis=-1)
    orders[0] = np.arange(shape[1])
    return orders


def permuted_within_r(x: np.ndarray, ys: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """The within-checkpoint r of ΔB (``x``, checkpoints × groups) with each label matrix of ``ys`` (draws ×
    checkpoints × groups) under each order of ``orders`` (:func:`within_orders`): a (draws, orders) array, NaN
    where either side is constant within every checkpoint. Permuting ΔB's groups pairs it with the label as the
    inverse permutation of the label would, so one matrix product serves every draw."""
    x, ys = np.asarray(x, float), np.asarray(ys, float)
    xw, yw = centred(x), centred(ys).reshape(len(ys), -1)
    shuffled = np.take_along_axis(np.broadcast_to(xw, orders.shape), orders, axis=-1).reshape(len(orders), -1)
    norms = np.sqrt((xw * xw).sum() * (yw * yw).sum(axis=1))[:, None]
    constant = (np.ptp(ys, axis=-1) == 0).all(axis=-1)[:, None] | bool((np.ptp(x, axis=-1) == 0).all())
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(constant, np.nan, yw @ shuffled.T / norms)


def within_r(x: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """The within-checkpoint r of ΔB (``x``) with each label matrix of ``ys`` (draws × checkpoints × groups)."""
    identity = np.broadcast_to(np.arange(np.shape(x)[1]), (1, *np.shape(x)))
    return permuted_within_r(x, ys, identity)[:, 0]


def association(x: np.ndarray, y: np.ndarray, *, n_permutations: int = 5040, seed: int = 0) -> Association:
    """:class:`Association` of the ΔB matrix ``x`` with the label matrix ``y`` (checkpoints × groups)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.shape != y.shape or x.ndim != 2:
        raise ValueError(f"x has shape {x.shape}, y {y.shape}; allowed: two checkpoints × groups matrices")
    within = permuted_within_r(x, y[None], within_orders(x.shape, n_permutations, seed))[0]
    observed = within[0]
    finite = np.isfinite(observed)
    return Association(
        pooled_r=float(evaluation.rows_pearson(x.ravel(), y.ravel())),
        between_r=float(evaluation.rows_pearson(x.mean(axis=1), y.mean(axis=1))),
        within_r=float(observed), within_se=float(np.std(within[1:], ddof=1)) if finite else float("nan"),
        p_within_negative=float(np.mean(within <= observed + 1e-12)) if finite else float("nan"),
        p_within=float(np.mean(np.abs(within) >= abs(observed) - 1e-12)) if finite else float("nan"),
        n_permutations=len(within))


def drift_null_labels(y: np.ndarray, n_draws: int, seed: int = 0) -> np.ndarray:
    """``n_draws`` copies of the label matrix ``y`` (checkpoints × groups), each with its group values permuted
    within every checkpoint: the label's drift along the spectrum kept, any group-specific tie to ΔB lost."""
    y = np.asarray(y, float)
    orders = np.random.default_rng(seed).random((n_draws, *y.shape)).argsort(axis=-1)
    return np.take_along_axis(np.broadcast_to(y, orders.shape), orders, axis=-1)


def simulated_labels(x: np.ndarray, y: np.ndarray, r: float, n_draws: int, seed: int = 0) -> np.ndarray:
    """``n_draws`` labels at this run's size whose within-checkpoint correlation with ΔB (``x``) is ``r``: the
    label's checkpoint means kept, its deviations r·z + √(1 − r²)·ε scaled to their observed s.d., with z ΔB's
    standardised within-checkpoint deviations and ε independent standard normal per pair."""
    if not -1 <= r <= 1:
        raise ValueError(f"r={r!r} is not allowed; allowed: -1 <= r <= 1")
    xw, yw = centred(x), centred(y)
    z = xw / xw.std() if xw.std() > 0 else np.zeros_like(xw)
    noise = np.random.default_rng(seed).standard_normal((n_draws, *xw.shape))
    deviations = centred(r * z + np.sqrt(1 - r * r) * noise)
    scale = yw.std() / deviations.std(axis=(1, 2), keepdims=True)
    return np.asarray(y, float).mean(axis=1, keepdims=True) + scale * deviations


def drift_share(x: np.ndarray, control: np.ndarray) -> np.ndarray:
    """The share of ΔB's variation along the spectrum (ΔB per group, paper 001 Sec. 3.4, Eq. 7; not in the paper)
    that the group-free control's ΔB accounts for:
    1 − Σ_cg (e_cg − ē_g)² / Σ_cg (x_cg − x̄_g)², with ``x`` ΔB (…, checkpoints × groups), ``control`` the control's
    ΔB per checkpoint (…, checkpoints), e = x − control the group-specific shift and each bar a group's mean over
    checkpoints (its level, which no drift moves). 1 when every group moves exactly as the group-free sentences do;
    0 when the control accounts for none of it; below 0 when it moves apart from the groups. A leading axis of
    ``x`` and ``control`` gives one share per draw."""
    x, control = np.asarray(x, float), np.asarray(control, float)
    moved = x - x.mean(axis=-2, keepdims=True)
    own = moved - (control - control.mean(axis=-1, keepdims=True))[..., None]
    with np.errstate(invalid="ignore", divide="ignore"):
        return 1.0 - (own**2).sum(axis=(-2, -1)) / (moved**2).sum(axis=(-2, -1))


def drift_share_draws(x: np.ndarray, control: np.ndarray, n_draws: int, seed: int = 0) -> np.ndarray:
    """:func:`drift_share` on ``n_draws`` resamples of the groups (columns of ``x``, drawn with replacement, the
    same for every checkpoint; the control, one value per checkpoint, kept): the share's spread over which groups
    were audited."""
    x = np.asarray(x, float)
    if x.ndim != 2 or np.shape(control) != (x.shape[0],):
        raise ValueError(f"x has shape {x.shape}, control {np.shape(control)}; allowed: checkpoints × groups and one "
                         "control value per checkpoint")
    columns = np.random.default_rng(seed).integers(0, x.shape[1], (n_draws, x.shape[1]))
    return drift_share(x[:, columns].transpose(1, 0, 2), np.broadcast_to(control, (n_draws, x.shape[0])))


def group_level_table(pairs: pd.DataFrame, *, n_permutations: int = 5040, seed: int = 0,
                      keys: Sequence[str] = evaluation.KEYS) -> pd.DataFrame:
    """:func:`association` of ΔB (RR) with ΔBiasScore for every combination of ``keys`` (family, regime, scorer,
    pooling) ``pairs`` holds, per group; the keys lead the columns, then those of :class:`Association`,
    n_checkpoints and n_groups."""
    present = [k for k in keys if k in pairs]
    rows = []
    for key, frame in pairs.groupby(present, sort=False):
        x, y = evaluation.paired_matrices(frame, "delta_b")
        rows.append({**dict(zip(present, key, strict=True)),
                     **asdict(association(x, y, n_permutations=n_permutations, seed=seed)),
                     "n_checkpoints": x.shape[0], "n_groups": x.shape[1]})
    return pd.DataFrame(rows)
