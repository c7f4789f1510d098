"""ΔB against output-level bias change (paper 001, Sec. 4.1): correlation, detection, fit error.

The paper pools (ΔBiasScore, ΔB) pairs over checkpoints × groups and reports Pearson r with its
two-tailed p, the ROC AUC of a threshold on ΔB against "ΔBiasScore > 0.1" and the MAE of a linear
fit (mean over 1,000 bootstrap resamples). The pairs are not independent: every group of one
checkpoint shares that checkpoint's weights, so 7 checkpoints × 24 groups are 7 units, pseudo-
replicated. Beside the paper's pooled numbers this module gives p-values from permuting whole
checkpoints (each checkpoint's ΔBiasScore profile moves as a block; exact over all 7! orders),
intervals from a cluster bootstrap over checkpoints, and the checkpoint-level correlation of the
means over groups. Every directed method is scored by −shift (negative ΔB is increased bias); CKA
drift, undirected, by +drift with no max(AUC, 1 − AUC) (which would only ever flatter it).
Pairs can be averaged into the paper's 9 topics first (Appendix B, Table 2). A pairs table holding
several settings (``family`` = reference model, ``regime`` = lora | full) is evaluated per setting.

For the claims of D01 and D02: what a scorer's labels can carry (:func:`label_population`), AUC differences with
an s.e. from checkpoint resamples shared by both methods (:func:`bootstrap_aucs`, :func:`auc_difference`), and
the checkpoint-permutation test of any label draws (:func:`checkpoint_p`) and its power at a run's size
(:func:`checkpoint_p_draws`, :func:`significant_share_draws`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import pearsonr

from lib import stats

#: Evaluated columns → names; "RR − control" is ΔB minus the group-free control's ΔB.
METHODS: dict[str, str] = {"delta_b": "RR", "group_shift": "RR − control", "seat_delta_b": "SEAT",
                           "procrustes_seat_delta_b": "Procrustes-SEAT", "cka_drift": "CKA drift"}
#: Sign that turns a method's column into a detection score for "bias increased".
DIRECTION: dict[str, float] = {column: -1.0 for column in METHODS} | {"cka_drift": 1.0}
UNITS: tuple[str, ...] = ("group", "topic")
#: Columns that split a pairs table into separately evaluated tables, in this order when present.
KEYS: tuple[str, ...] = ("family", "regime", "scorer", "pooling")


def aggregate(pairs: pd.DataFrame, unit: str = "group") -> pd.DataFrame:
    """``pairs`` per checkpoint × group (``unit="group"``) or averaged into the 9 topics of Appendix B
    (``unit="topic"``): every numeric column is the mean over the topic's groups."""
    if unit not in UNITS:
        raise ValueError(f"unit={unit!r} is not allowed; allowed: {', '.join(UNITS)}")
    if unit == "group":
        return pairs.copy()
    keys = [k for k in KEYS if k in pairs] + ["checkpoint", "topic"]
    numeric = [c for c in pairs.select_dtypes("number").columns if c not in keys]
    return pairs.groupby(keys, sort=False)[numeric].mean().reset_index().rename(columns={"topic": "group"})


def block_permutations(n_blocks: int, n_permutations: int, seed: int = 0) -> np.ndarray:
    """Orders of ``n_blocks`` blocks, the identity first: all n! when n! <= ``n_permutations``, else the
    identity and ``n_permutations`` − 1 seeded random ones (rows of an (k, n_blocks) array)."""
    if n_blocks < 2 or n_permutations < 2:
        raise ValueError(f"n_blocks={n_blocks}, n_permutations={n_permutations}; allowed: both >= 2")
    if math.factorial(n_blocks) <= n_permutations:
        return np.array(list(itertools.permutations(range(n_blocks))))
    rng = np.random.default_rng(seed)
    return np.vstack([np.arange(n_blocks)] + [rng.permutation(n_blocks) for _ in range(n_permutations - 1)])


def rows_auc(labels: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """ROC AUC of each row of boolean ``labels`` (k, n) for ``scores`` ((n,) shared by every row, or (k, n)):
    :func:`lib.stats.auroc` (the Mann–Whitney U over n₊·n₋, ``roc_auc_score`` with ties counted half), NaN
    where a row holds one class. The permutation and bootstrap distributions need thousands
    of AUCs per method; one ``roc_auc_score`` call each took most of D01's evaluation time."""
    labels, scores = np.broadcast_arrays(np.asarray(labels, bool), np.asarray(scores, float))
    positives = labels.sum(axis=-1)
    both = (positives > 0) & (positives < labels.shape[-1])
    out = np.full(labels.shape[:-1], np.nan)
    if both.any():
        out[both] = stats.auroc(labels[both], scores[both])
    return out


def rows_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row pair of ``x`` and ``y`` ((k, n); a 1-d ``x`` is shared by every row), NaN where
    either row is constant; vectorised for the same reason as :func:`rows_auc`."""
    x, y = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float))
    xc, yc = x - x.mean(axis=-1, keepdims=True), y - y.mean(axis=-1, keepdims=True)
    constant = (np.ptp(x, axis=-1) == 0) | (np.ptp(y, axis=-1) == 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(axis=-1) / np.sqrt((xc * xc).sum(axis=-1) * (yc * yc).sum(axis=-1))
    return np.where(constant, np.nan, np.clip(r, -1.0, 1.0))


def rows_fit_mae(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Mean absolute residual of the least-squares line y ≈ a + b·x fitted to each row of (k, n) arrays (as
    ``np.polyfit(x, y, 1)`` per row), NaN where a row of ``x`` is constant."""
    xc, yc = x - x.mean(axis=-1, keepdims=True), y - y.mean(axis=-1, keepdims=True)
    constant = np.ptp(x, axis=-1) == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = (xc * yc).sum(axis=-1) / (xc * xc).sum(axis=-1)
    residual = np.abs(yc - slope[..., None] * xc).mean(axis=-1)
    return np.where(constant, np.nan, residual)


def paired_matrices(pairs: pd.DataFrame, column: str) -> tuple[np.ndarray, np.ndarray]:
    """(checkpoints × groups) matrices of the method and of ΔBiasScore; every checkpoint needs every group."""
    x = pairs.pivot(index="checkpoint", columns="group", values=column)
    y = pairs.pivot(index="checkpoint", columns="group", values="delta_bias_score").loc[x.index, x.columns]
    if x.isna().any().any() or y.isna().any().any():
        raise ValueError("pairs must hold every group for every checkpoint (a balanced checkpoint × group table)")
    return x.to_numpy(float), y.to_numpy(float)


def _nan_percentile(values: np.ndarray, q: float) -> float:
    """``np.nanpercentile`` of ``values``; NaN, without numpy's "All-NaN slice" warning, when every value is NaN."""
    return float(np.nanpercentile(values, q)) if not np.isnan(values).all() else float("nan")


def evaluate(pairs: pd.DataFrame, label_threshold: float = 0.1, n_bootstrap: int = 1000, seed: int = 0, *,
             n_permutations: int = 5040, methods: Sequence[str] | None = None) -> pd.DataFrame:
    """Sec. 4.1 evaluation of each method on one checkpoint × group table (one scorer, one pooling).

    Per method: the paper's pooled Pearson r and its two-tailed p (``p_pooled``, which treats the pairs as
    independent), ``p_checkpoints`` (the share of checkpoint-block permutations with |r| at least the observed),
    ``p_checkpoints_negative`` (the share with r at most the observed: the one-sided p in the paper's direction, r <
    0, so a reversal reads near 1, never as significant agreement), a 95 % cluster-bootstrap interval
    ``r_low``–``r_high``; the ROC AUC of the detection score (−shift, +drift for CKA) against ΔBiasScore >
    ``label_threshold`` with its one-sided permutation p and interval; the MAE of a linear fit (mean over
    ``n_bootstrap`` pair resamples, as the paper); the checkpoint-level r of the means over groups and its p (n =
    checkpoints).
    """
    chosen = [c for c in METHODS if c in pairs] if methods is None else list(methods)
    missing = [c for c in ("delta_bias_score", *chosen) if c not in pairs] or ([] if chosen else ["a method column"])
    if missing:
        raise ValueError(f"pairs lacks the columns {missing}")
    rng = np.random.default_rng(seed)
    rows = []
    for column in chosen:
        X, Y = paired_matrices(pairs, column)
        n_checkpoints = X.shape[0]
        x, y = X.ravel(), Y.ravel()
        score, labels = DIRECTION[column] * x, y > label_threshold
        r, auc = float(rows_pearson(x, y)), float(rows_auc(labels, score))
        p_pooled = float(pearsonr(x, y)[1]) if np.isfinite(r) else float("nan")
        perms = block_permutations(n_checkpoints, n_permutations, seed) if n_checkpoints > 1 else np.zeros((1, 1), int)
        permuted = Y[perms].reshape(len(perms), -1)
        perm_r = rows_pearson(x, permuted)
        perm_auc = rows_auc(permuted > label_threshold, score)
        boot = rng.integers(0, n_checkpoints, size=(n_bootstrap, n_checkpoints))
        boot_x, boot_y = X[boot].reshape(n_bootstrap, -1), Y[boot].reshape(n_bootstrap, -1)
        boot_r = rows_pearson(boot_x, boot_y)
        boot_auc = rows_auc(boot_y > label_threshold, DIRECTION[column] * boot_x)
        pair_boot = rng.integers(0, x.size, size=(n_bootstrap, x.size))
        boot_mae = rows_fit_mae(x[pair_boot], y[pair_boot])
        mae = float(np.nanmean(boot_mae)) if not np.isnan(boot_mae).all() else float("nan")
        xm, ym = X.mean(axis=1), Y.mean(axis=1)
        r_ck = float(rows_pearson(xm, ym))
        p_ck = float(pearsonr(xm, ym)[1]) if np.isfinite(r_ck) and n_checkpoints > 2 else float("nan")
        rows.append({
            "method": METHODS.get(column, column), "pearson_r": r, "p_pooled": p_pooled,
            "p_checkpoints": float(np.mean(np.abs(perm_r) >= abs(r) - 1e-12)) if np.isfinite(r) else float("nan"),
            "p_checkpoints_negative": float(np.mean(perm_r <= r + 1e-12)) if np.isfinite(r) else float("nan"),
            "r_low": _nan_percentile(boot_r, 2.5), "r_high": _nan_percentile(boot_r, 97.5),
            "roc_auc": auc,
            "auc_p_checkpoints": float(np.mean(perm_auc >= auc - 1e-12)) if np.isfinite(auc) else float("nan"),
            "auc_low": _nan_percentile(boot_auc, 2.5), "auc_high": _nan_percentile(boot_auc, 97.5),
            "mae": mae, "checkpoint_r": r_ck, "checkpoint_p": p_ck, "n_pairs": x.size,
            "n_checkpoints": n_checkpoints, "n_permutations": len(perms), "n_increased": int(labels.sum())})
    return pd.DataFrame(rows)


def evaluate_all(pairs: pd.DataFrame, units: Sequence[str] = ("group",), **evaluate_kw) -> pd.DataFrame:
    """:func:`evaluate` for every family × regime × scorer × pooling present in ``pairs`` (the :data:`KEYS`
    columns it holds) and every unit (group, topic); the keys lead the columns."""
    keys = [k for k in KEYS if k in pairs]
    frames = []
    for unit in units:
        table = aggregate(pairs, unit)
        for key, frame in (table.groupby(keys, sort=False) if keys else [((), table)]):
            labels = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
            frames.append(evaluate(frame, **evaluate_kw).assign(unit=unit, **labels))
    out = pd.concat(frames, ignore_index=True)
    return out[["unit", *keys, *[c for c in out.columns if c not in ("unit", *keys)]]]


def first_scorer_with_both_classes(pairs: pd.DataFrame, label_threshold: float = 0.1, within: Sequence[str] = (),
                                   among: Sequence[str] | None = None) -> str | None:
    """The first scorer (in order of appearance) of ``among`` (every scorer when None) whose labels ΔBiasScore >
    ``label_threshold`` hold both classes in every group of ``within`` (e.g. each family × regime); None when none
    does. ROC AUCs exist only for such a scorer: the method comparisons of D01 and D02 read it (Sec. 4.5)."""
    scorers = [s for s in dict.fromkeys(pairs.scorer) if among is None or s in among]
    if pairs.empty:
        raise ValueError("pairs holds no scorer; allowed: a frame with at least one row")
    increased = pairs.delta_bias_score > label_threshold
    split = increased.groupby([pairs[c] for c in ("scorer", *within)]).agg(lambda up: 0 < up.mean() < 1)
    both = split.groupby(level=0).all()
    return next((s for s in scorers if both.get(s, False)), None)


def label_population(pairs: pd.DataFrame, label_threshold: float = 0.1) -> dict[str, float]:
    """What a checkpoint × group table of one scorer gives an ROC and a correlation to stand on (Sec. 4.1): pairs,
    checkpoints, pairs labelled increased (ΔBiasScore > ``label_threshold``) and the checkpoints holding them,
    distinct ΔBiasScore values, the largest ΔBiasScore, and its spread within a checkpoint (mean over checkpoints
    of the s.d. over groups) beside its spread between checkpoints (s.d. of the checkpoint means)."""
    y = pairs.delta_bias_score.astype(float)
    increased = y > label_threshold
    by_checkpoint = y.groupby(pairs.checkpoint, sort=False)
    return {"n_pairs": len(pairs), "n_checkpoints": int(pairs.checkpoint.nunique()),
            "n_increased": int(increased.sum()),
            "checkpoints_with_increase": int(pairs.checkpoint[increased].nunique()),
            "n_values": int(y.round(12).nunique()), "largest": float(y.max()) if len(y) else float("nan"),
            "sd_within": float(by_checkpoint.std(ddof=0).mean()) if len(y) else float("nan"),
            "sd_between": float(by_checkpoint.mean().std(ddof=0)) if len(y) else float("nan")}


def bootstrap_aucs(scores: Mapping[str, np.ndarray], labels: np.ndarray, n_bootstrap: int = 1000, seed: int = 0
                   ) -> dict[str, np.ndarray]:
    """ROC AUCs of several detection ``scores`` (name → a checkpoints × groups matrix, higher = bias increased)
    against one boolean ``labels`` matrix on the same ``n_bootstrap`` checkpoint resamples (whole checkpoints
    drawn with replacement, every group of a drawn checkpoint kept), so that differences between the scores are
    paired. NaN on a resample whose labels hold one class."""
    labels = np.asarray(labels, bool)
    rng = np.random.default_rng(seed)
    boot = rng.integers(0, labels.shape[0], size=(n_bootstrap, labels.shape[0]))
    boot_labels = labels[boot].reshape(n_bootstrap, -1)
    return {name: rows_auc(boot_labels, np.asarray(matrix, float)[boot].reshape(n_bootstrap, -1))
            for name, matrix in scores.items()}


def detection_matrices(pairs: pd.DataFrame, columns: Sequence[str], label_threshold: float = 0.1
                       ) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The detection score of each method column (:data:`DIRECTION` × shift, checkpoints × groups) and the label
    matrix ΔBiasScore > ``label_threshold`` of one scorer's balanced pairs table."""
    matrices = {column: paired_matrices(pairs, column) for column in columns}
    labels = next(iter(matrices.values()))[1] > label_threshold
    return {METHODS.get(c, c): DIRECTION.get(c, -1.0) * x for c, (x, _) in matrices.items()}, labels


def auc_difference(pairs: pd.DataFrame, first: str, second: str, label_threshold: float = 0.1,
                   n_bootstrap: int = 1000, seed: int = 0) -> dict[str, float]:
    """ROC AUC of method column ``first`` minus that of ``second`` on one scorer's pairs (Sec. 4.5, Table 7), with
    its s.e. from paired checkpoint resamples (:func:`bootstrap_aucs`; resamples with one class left out) and the
    number of resamples it rests on."""
    scores, labels = detection_matrices(pairs, [first, second], label_threshold)
    a, b = scores.values()
    observed = rows_auc(labels.ravel(), a.ravel()) - rows_auc(labels.ravel(), b.ravel())
    boot = bootstrap_aucs(scores, labels, n_bootstrap, seed)
    draws = np.subtract(*boot.values())
    finite = draws[np.isfinite(draws)]
    return {"difference": float(observed), "se": float(finite.std(ddof=1)) if len(finite) > 1 else float("nan"),
            "n_resamples": int(len(finite))}


def checkpoint_p(x: np.ndarray, ys: np.ndarray, *, n_permutations: int = 5040, seed: int = 0) -> pd.DataFrame:
    """The checkpoint-permutation test of :func:`evaluate` of the ΔB matrix ``x`` (checkpoints × groups) against each
    label matrix of ``ys`` (draws × checkpoints × groups). Columns: ``r`` (the pooled Pearson r of each draw),
    ``p_negative`` (one-sided, the share of block permutations with r at most the draw's) and ``p_checkpoints``
    (two-sided, |r| at least the draw's)."""
    x, ys = np.asarray(x, float), np.asarray(ys, float)
    if x.ndim != 2 or x.shape[0] < 2 or ys.shape[1:] != x.shape:
        raise ValueError(f"x has shape {x.shape}, ys {ys.shape}; allowed: a checkpoints × groups matrix with at "
                         "least 2 checkpoints and draws of the same shape")
    xc = x - x.mean()
    yc = ys - ys.mean(axis=(1, 2), keepdims=True)
    # a block order permutes y's rows, so its pooled r is Σ_c (x yᵀ)[c, π(c)] over the (order-free) norms
    products = np.einsum("cg,ndg->ncd", xc, yc)
    perms = block_permutations(x.shape[0], n_permutations, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        permuted = (products[:, np.arange(x.shape[0]), perms].sum(axis=-1)
                    / np.sqrt((xc * xc).sum() * (yc * yc).sum(axis=(1, 2)))[:, None])
    observed = permuted[:, :1]  # the identity order comes first
    return pd.DataFrame({"r": observed[:, 0], "p_negative": np.mean(permuted <= observed + 1e-12, axis=1),
                         "p_checkpoints": np.mean(np.abs(permuted) >= np.abs(observed) - 1e-12, axis=1)})


def checkpoint_p_draws(x: np.ndarray, r: float, *, n_draws: int = 200, n_permutations: int = 5040,
                       seed: int = 0) -> pd.DataFrame:
    """:func:`checkpoint_p` on ``n_draws`` labels simulated at this run's size if the pooled correlation with ΔB
    were ``r``: y = r·z(x) + √(1 − r²)·ε with z(x) the standardised ΔB matrix ``x`` (checkpoints × groups) and ε
    independent standard normal per pair (r = 0 is the null of no association)."""
    x = np.asarray(x, float)
    if x.ndim != 2 or x.shape[0] < 2:
        raise ValueError(f"x has shape {x.shape}; allowed: a checkpoints × groups matrix with at least 2 checkpoints")
    if not -1 <= r <= 1:
        raise ValueError(f"r={r!r} is not allowed; allowed: -1 <= r <= 1")
    rng = np.random.default_rng(seed)
    z = (x - x.mean()) / x.std() if x.std() > 0 else np.zeros_like(x)
    y = r * z + np.sqrt(1 - r * r) * rng.standard_normal((n_draws, *x.shape))
    return checkpoint_p(x, y, n_permutations=n_permutations, seed=seed)


def significant_share_draws(probabilities: Sequence[float], *, n: int = 4000, seed: int = 0) -> np.ndarray:
    """Draws of the share of settings found significant when setting i is significant with probability
    ``probabilities[i]``, independently (Sec. 4.2–4.3: "significant in k of N settings")."""
    chances = np.asarray(probabilities, float)
    if chances.ndim != 1 or not len(chances) or np.any((chances < 0) | (chances > 1)):
        raise ValueError(f"probabilities={list(chances)!r}; allowed: a non-empty list of values in [0, 1]")
    return (np.random.default_rng(seed).random((n, len(chances))) < chances).mean(axis=1)
