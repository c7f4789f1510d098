"""Composition of a multiclass task's supports from a shared family dictionary (paper 002, App. A.2.5).

For class decision i with support S_i, the leave-one-out dictionary is U₋ᵢ = ∪_{j≠i} S_j. The
decision's probe (FitScore of A.1.4) is refitted on U₋ᵢ alone and read as a recovery of its ceiling:

    recovery_i = (A_i(U₋ᵢ) − ½) / (C_i − ½)

(the displayed equation was lost; *reconstructed* from "a recovery of 1 means that a class decision
that contributed nothing to the dictionary is still fully expressible in it" and the above-chance
convention of Eq. 4). Own overlap |S_i ∩ U₋ᵢ| / |S_i| measures trivial recovery. The null replaces
U₋ᵢ by |U₋ᵢ| features drawn uniformly without replacement from all d features (five seeds; the
paper does not say whether the draw may include U₋ᵢ or S_i: here it may, a choice). The width is the
smallest prefix of U₋ᵢ, ranked by |Welch t| (Eq. 11) within it on the training split, whose
probe clears τ_i; prefixes follow Eq. 12 (powers of two up to |U₋ᵢ|, a choice: the paper's widths,
64 to 128, are such sizes), ∞ when none does. Criteria fixed by the paper before its run: median
recovery ≥ 0.9 and recovery above the random null (one-sided Wilcoxon signed-rank over decisions).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from lib.kstar.protocol import fitscore, probe_search, rules

COLUMNS = ("decision", "dictionary_size", "support_size", "own_overlap", "ceiling", "tau", "auroc", "recovery",
           "random_recovery", "random_min", "random_max", "width", "width_ratio")  #: :func:`composition_table`'s
NULL_SEEDS = (0, 1, 2, 3, 4)  #: five random dictionaries per decision (A.2.5)
RECOVERY_CRITERION = 0.9  #: the paper's pre-fixed criterion on the median recovery (A.2.5)


def recovery(auroc: float, ceiling: float) -> float:
    """(A − ½)/(C − ½): the share of the above-chance ceiling a restricted probe keeps (A.2.5; reconstructed)."""
    if not ceiling > 0.5:
        raise ValueError(f"ceiling={ceiling!r}; allowed: > 0.5 (a decision read above chance)")
    return (float(auroc) - 0.5) / (float(ceiling) - 0.5)


def leave_one_out(supports: Mapping[str, Sequence[int]]) -> dict[str, tuple[int, ...]]:
    """U₋ᵢ for every decision i: the sorted union of the other decisions' supports (A.2.5)."""
    if len(supports) < 2:
        raise ValueError(f"composition needs at least two class decisions with supports; got {len(supports)}")
    return {i: tuple(sorted(set().union(*(set(s) for j, s in supports.items() if j != i)))) for i in supports}


def own_overlap(support: Sequence[int], dictionary: Sequence[int]) -> float:
    """|S_i ∩ U₋ᵢ| / |S_i| (A.2.5)."""
    if not len(support):
        raise ValueError("support is empty; allowed: a non-empty set of feature indices")
    return len(set(support) & set(dictionary)) / len(set(support))


def _score(Z_tr, y_tr, Z_te, y_te, columns, seed: int, centre: bool) -> float:
    cols = list(columns)
    return fitscore.fit_score(Z_tr[:, cols], y_tr, Z_te[:, cols], y_te, seed, centre=centre)[0]


def width(Z_tr, y_tr, Z_te, y_te, dictionary: Sequence[int], tau: float, *, seed: int = 0,
          centre: bool = False) -> float:
    """The smallest Eq. 12 prefix of ``dictionary`` ranked by |Welch t| within it whose probe reaches τ (∞ if none)."""
    cols = np.asarray(dictionary, dtype=int)
    ranked = cols[probe_search.ranking(fitscore.standardise(Z_tr[:, cols], Z_tr[:, cols], centre=centre)[0], y_tr)]
    for k in probe_search.prefix_sizes(len(cols)):
        if _score(Z_tr, y_tr, Z_te, y_te, ranked[:k], seed, centre) >= tau:
            return k
    return math.inf


def composition_table(Z_tr, Z_te, labels_train: Mapping[str, np.ndarray], labels_test: Mapping[str, np.ndarray],
                      supports: Mapping[str, Sequence[int]], ceilings: Mapping[str, float], *, seed: int = 0,
                      null_seeds: Sequence[int] = NULL_SEEDS, frac: float = rules.FRAC,
                      centre: bool = False) -> pd.DataFrame:
    """One row per decision (A.2.5): dictionary size, own overlap, A_i(U₋ᵢ), recovery, the random dictionaries'
    mean recovery, the width and the own support size. ``centre=False``: SAE features (A.1.10); True: the
    residual-basis control. ``seed`` seeds the probe fits (validation split), ``null_seeds`` the random sets."""
    if not null_seeds:
        raise ValueError("null_seeds is empty; allowed: one or more seeds (the paper uses five)")
    dictionaries = leave_one_out(supports)
    n_features = Z_tr.shape[1]
    rows = []
    for decision, dictionary in dictionaries.items():
        y_tr, y_te = labels_train[decision], labels_test[decision]
        ceiling = float(ceilings[decision])
        auroc = _score(Z_tr, y_tr, Z_te, y_te, dictionary, seed, centre)
        random = []
        for null_seed in null_seeds:
            rng = np.random.default_rng([int(null_seed), zlib.crc32(decision.encode())])
            drawn = np.sort(rng.choice(n_features, size=len(dictionary), replace=False))
            random.append(recovery(_score(Z_tr, y_tr, Z_te, y_te, drawn, seed, centre), ceiling))
        tau = rules.threshold(ceiling, frac)
        rows.append({"decision": decision, "dictionary_size": len(dictionary), "support_size": len(supports[decision]),
                     "own_overlap": own_overlap(supports[decision], dictionary), "ceiling": ceiling, "tau": tau,
                     "auroc": auroc, "recovery": recovery(auroc, ceiling), "random_recovery": float(np.mean(random)),
                     "random_min": float(np.min(random)), "random_max": float(np.max(random)),
                     "width": float(width(Z_tr, y_tr, Z_te, y_te, dictionary, tau, seed=seed, centre=centre))})
    out = pd.DataFrame(rows)
    out["width_ratio"] = out.width / out.support_size
    return out


def criteria(table: pd.DataFrame, criterion: float = RECOVERY_CRITERION) -> dict[str, float]:
    """The summary A.2.5 reports for one model: median recovery, the share reaching ``criterion``, the decisions
    above their own random control, the one-sided Wilcoxon p of recovery > random mean, median own overlap,
    and, over decisions whose dictionary has a qualifying prefix, their count, median width and median ratio."""
    table = table.astype({c: float for c in COLUMNS[1:]})
    diff = table.recovery - table.random_recovery
    p = float(stats.wilcoxon(table.recovery, table.random_recovery, alternative="greater").pvalue) \
        if len(table) and np.any(diff != 0) else 1.0
    finite = table[np.isfinite(table.width)]
    return {"decisions": len(table), "median_recovery": float(table.recovery.median()),
            "share_at_criterion": float((table.recovery >= criterion).mean()),
            "above_random": int((diff > 0).sum()), "wilcoxon_p": p,
            "median_random_recovery": float(table.random_recovery.median()),
            "median_own_overlap": float(table.own_overlap.median()),
            "max_own_overlap": float(table.own_overlap.max()) if len(table) else math.nan,
            "with_width": len(finite), "median_width": float(finite.width.median()) if len(finite) else math.nan,
            "median_support": float(table.support_size.median()),
            "median_width_ratio": float(finite.width_ratio.median()) if len(finite) else math.nan}


def summary_table(table: pd.DataFrame, by: Sequence[str] = ("model", "basis")) -> pd.DataFrame:
    """:func:`criteria` per group of a stacked composition table (one row per model and basis)."""
    rows = [{**dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True)), **criteria(part)}
            for key, part in table.groupby(list(by), sort=False)]
    return pd.DataFrame(rows, columns=[*by, *criteria(pd.DataFrame(columns=list(COLUMNS)))])
