"""Algorithm 2 of paper 002 on arrays (App. A.1.6): features of one task → k*, its seed range, ceiling and flags.

:func:`measure_kstar` takes the representations of one task per (block, pooling) and the labels of its
class decisions and runs the two stages of A.1.6 with the project's own pieces: the preliminary sweep
(Algorithm 1 once per block and representation, seed 0, the full training split; :class:`measure.SearchItem`
and :func:`measure.run_searches`), the four-block window around the sweep's best block
(:func:`counts.best_blocks`), the five-seed measurement on 85% subsamples of each training class with the
test split fixed (:func:`splits.stratified_subsample`), and the counts of :mod:`lib.kstar.protocol.counts`: common
ceiling and τ (Eq. 4), local counts (Eq. 5), neighbour confirmation (Eq. 14), medians on the extended
naturals (Eq. 15–16), the readability flag (A.1.6) and the precision check of A.1.8. Nothing here is a new
rule; every logged curve comes back as a tidy DataFrame.

Example (a planted one-coordinate signal in 16 noise features, two blocks):

>>> import numpy as np
>>> from lib.kstar.protocol import algorithm
>>> rng = np.random.default_rng(0)
>>> y_train, y_test = np.arange(120) % 2, np.arange(80) % 2
>>> def planted(y, shift):
...     Z = rng.standard_normal((len(y), 16))
...     Z[:, 3] += shift * y
...     return Z
>>> features = {(block, "mean"): (planted(y_train, 5.0), planted(y_test, 5.0)) for block in (0, 1)}
>>> result = algorithm.measure_kstar(features, y_train, y_test, seeds=(1, 2, 3))
>>> result.kstar, result.seed_range, result.window, result.flagged, result.precise
(1, (1, 1), (0, 1), False, True)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from lib.kstar import measure
from lib.kstar.protocol import counts, rules, splits
from lib.kstar.protocol.fitscore import check_inputs
from lib.kstar.protocol.splits import SUBSAMPLE_FRAC, VAL_FRAC, floor_fraction
from lib.kstar.tasks.tasks import MIN_POSITIVES

#: The name of the single class decision when the labels are one pair of arrays.
DECISION = "decision"

Features = Mapping[tuple[int, str], tuple[Any, Any]]


def smallest_training_class(subsample: float = SUBSAMPLE_FRAC, val_frac: float = VAL_FRAC) -> int:
    """The fewest texts a training class may hold so that every seed's subsample (A.1.6, rounded down) still
    leaves one of them for the validation portion (A.1.4, rounded down): 6 at 85% and 20%."""
    n = 1
    while floor_fraction(floor_fraction(n, subsample), val_frac) < 1:
        n += 1
    return n


def decision_problem(y_train, y_test, min_positives: int = MIN_POSITIVES,
                     subsample: float = SUBSAMPLE_FRAC) -> str | None:
    """Why a class decision cannot be measured, or None: fewer than ``min_positives`` positives or negatives in a
    split (A.1.3), or a training class too small for the seeds' subsample and its validation portion."""
    y_train, y_test = np.asarray(y_train).astype(bool), np.asarray(y_test).astype(bool)
    short = [f"{split} has {n} {kind}" for split, y in (("train", y_train), ("test", y_test))
             for kind, n in (("positives", int(y.sum())), ("negatives", int((~y).sum()))) if n < min_positives]
    if short:
        return f"fewer than {min_positives} (A.1.3): {', '.join(short)}"
    need = smallest_training_class(subsample)
    small = [f"{n} {kind}" for kind, n in (("positives", int(y_train.sum())), ("negatives", int((~y_train).sum())))
             if n < need]
    if small:
        return (f"the training split holds {' and '.join(small)}; the {subsample:.0%} subsample of each seed "
                f"(A.1.6) and its validation portion (A.1.4) need at least {need} of each class")
    return None


@dataclass(frozen=True)
class KStar:
    """What Algorithm 2 reports for one task (A.1.6, Eq. 16), with every curve it read.

    ``kstar``: median over seeds of the per-seed medians over class decisions, on N ∪ {∞} (unrounded; NaN
    when no decision is above chance); ``seed_range``: (min, max) of the per-seed values; ``ceiling``: the
    task ceiling (median of the decisions' common ceilings); ``flagged``: ceiling ≤ 0.90 (the readability
    flag); ``precise``: 1.96·s.e. of every decision's ceiling lies below its gap C − τ (A.1.8).
    ``best_block``: the sweep's best block; ``window``: the four blocks of the five-seed window; ``blocks``: every
    block the sweep read, in depth order (A.1.2's blocks; :func:`lib.models.architecture.hidden_state_index`).
    ``decisions``: the same per class decision; ``sweep`` / ``window_rows``: every candidate of Algorithm 1
    (one row each, plus a ``dense`` row per search); ``ceilings``, ``local``, ``confirmed``: the window's
    common ceilings, local counts (Eq. 5) and confirmed counts (Eq. 14).
    """

    kstar: float
    seed_range: tuple[float, float]
    ceiling: float
    flagged: bool
    precise: bool
    best_block: int
    window: tuple[int, ...]
    blocks: tuple[int, ...]
    pooling: str
    decisions: pd.DataFrame
    sweep: pd.DataFrame
    window_rows: pd.DataFrame
    ceilings: pd.DataFrame
    local: pd.DataFrame
    confirmed: pd.DataFrame

    def as_dict(self) -> dict[str, Any]:
        """The summary as plain Python values; ∞ stays ``math.inf`` (render it as you need)."""
        cols = ["decision", "kstar", "seed_min", "seed_max", "ceiling", "tau", "se", "gap", "flagged", "precise",
                "unreadable", "n_test_pos", "n_test_neg"]
        return {"kstar": _count(self.kstar), "seed_range": [_count(v) for v in self.seed_range],
                "ceiling": float(self.ceiling), "flagged": bool(self.flagged), "precise": bool(self.precise),
                "best_block": int(self.best_block), "window": list(self.window), "blocks": list(self.blocks),
                "pooling": self.pooling,
                "decisions": [{k: _count(v) if k in _COUNTS else _plain(v) for k, v in row.items()}
                              for row in self.decisions[cols].to_dict("records")]}


_COUNTS = ("kstar", "seed_min", "seed_max")


def _plain(value: Any) -> Any:
    """numpy scalars as Python ones."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    return value


def _count(value: Any) -> float | int:
    """A count on N ∪ {∞} (or a median of them): an int when whole, else a float (∞, a half, NaN)."""
    value = float(value)
    return int(value) if value.is_integer() else value


def _label_pairs(y_train, y_test) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Decision name → (y_train, y_test) as 0/1 ints: one pair of arrays, or two mappings with the same names."""
    if isinstance(y_train, Mapping) != isinstance(y_test, Mapping):
        raise ValueError("y_train and y_test must both be arrays (one decision) or both mappings name → labels")
    if not isinstance(y_train, Mapping):
        y_train, y_test = {DECISION: y_train}, {DECISION: y_test}
    if not y_train or set(y_train) != set(y_test):
        raise ValueError(f"y_train names the decisions {sorted(y_train)} but y_test {sorted(y_test)}; "
                         "they must match and be non-empty")
    return {str(name): (splits.binary_labels(y_train[name], f"y_train[{name!r}]").astype(int),
                        splits.binary_labels(y_test[name], f"y_test[{name!r}]").astype(int)) for name in y_train}


def _check_features(features: Features, pooling: str, n_train: int, n_test: int) -> tuple[int, ...]:
    """The blocks of ``pooling`` in depth order, after checking every key and shape."""
    if not features:
        raise ValueError("features is empty; allowed: a mapping (block, pooling) → (Z_train, Z_test)")
    for key, pair in features.items():
        if not (isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], str)
                and isinstance(key[0], (int, np.integer)) and not isinstance(key[0], bool)):
            raise ValueError(f"features key {key!r}; allowed: (block: int, pooling: str)")
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise ValueError(f"features[{key!r}] must be a pair (Z_train, Z_test)")
        for name, Z, n in (("Z_train", pair[0], n_train), ("Z_test", pair[1], n_test)):
            if np.ndim(Z) != 2 or Z.shape[0] != n:
                raise ValueError(f"features[{key!r}]: {name} has shape {np.shape(Z)}; expected ({n}, d)")
    blocks = tuple(sorted(int(block) for block, p in features if p == pooling))
    if not blocks:
        found = sorted({p for _, p in features})
        raise ValueError(f"pooling={pooling!r} has no features; the features hold {found}")
    return blocks


def measure_kstar(features: Features, y_train, y_test, *, pooling: str = "mean",
                  seeds: Sequence[int] = rules.SEEDS, subsample: float = SUBSAMPLE_FRAC, frac: float = rules.FRAC,
                  min_positives: int = MIN_POSITIVES, keep_supports: bool = False, n_jobs: int = 1,
                  model: str = "model", task: str = "task") -> KStar:
    """k* of one task from its features (paper 002, App. A.1.6, Algorithm 2; example in the module docstring).

    ``features``: (block, pooling) → (Z_train, Z_test), texts × features, the same texts in every entry; the
    sweep reads every pooling given, the window only ``pooling`` (the paper's main protocol: "mean").
    ``y_train``/``y_test``: the 0/1 labels of one class decision, or two mappings decision name → labels.
    ``seeds``: the five-seed measurement's R (A.1.6: 1–5); ``subsample``: the share of each training class
    per seed; ``frac``: the factor of Eq. 4. ``model``/``task`` only label the tables. Raises ValueError,
    naming the problem, before any fit: bad keys or shapes, a pooling without features, labels that are not
    0/1, or a decision that :func:`decision_problem` refuses.
    """
    if not seeds or any(int(s) < 0 for s in seeds):
        raise ValueError(f"seeds={tuple(seeds)!r}; allowed: one or more integers >= 0")
    labels = _label_pairs(y_train, y_test)
    n_train, n_test = (len(next(iter(labels.values()))[i]) for i in (0, 1))
    if any(len(a) != n_train or len(b) != n_test for a, b in labels.values()):
        raise ValueError("every decision's y_train (and y_test) must label the same texts")
    blocks = _check_features(features, pooling, n_train, n_test)
    for name, (a, b) in labels.items():
        if (problem := decision_problem(a, b, min_positives, subsample)) is not None:
            raise ValueError(f"decision {name!r}: {problem}")
    a, b = next(iter(labels.values()))
    for Z_tr, Z_te in features.values():  # finite entries, matching widths: once per entry, not per decision
        check_inputs(Z_tr, a, Z_te, b)

    base = {"model": model, "task": task}
    sweep_items = [measure.SearchItem({**base, "decision": name, "pooling": p, "block": int(block)}, Z_tr, a, Z_te, b,
                                      measure.SWEEP_SEED, keep_supports)
                   for name, (a, b) in labels.items() for (block, p), (Z_tr, Z_te) in sorted(features.items())]
    sweep = measure.run_searches(sweep_items, n_jobs=n_jobs)
    located = counts.best_blocks(sweep, frac, pooling).iloc[0]
    window = tuple(int(b) for b in located.window)

    window_items = []
    for name, (a, b) in labels.items():
        for seed in seeds:
            keep = splits.stratified_subsample(a, subsample, seed=int(seed))
            for block in window:
                Z_tr, Z_te = features[(block, pooling)]
                window_items.append(measure.SearchItem({**base, "decision": name, "block": block},
                                                       np.asarray(Z_tr)[keep], a[keep], Z_te, b, int(seed),
                                                       keep_supports))
    rows = measure.run_searches(window_items, n_jobs=n_jobs)
    return summarise(rows, sweep, int(located.best_block), window, blocks, pooling, frac)


def summarise(window_rows: pd.DataFrame, sweep: pd.DataFrame, best_block: int, window: tuple[int, ...],
              blocks: tuple[int, ...], pooling: str, frac: float = rules.FRAC) -> KStar:
    """The :class:`KStar` of one task's logged window (and sweep) rows: :func:`counts.window_counts` for the task
    and, with each decision as its own task, for every decision; A.1.8's check from :func:`counts.window_ceilings`."""
    ceilings = counts.window_ceilings(window_rows, frac)
    local = counts.local_counts(window_rows, ceilings)
    confirmed = counts.confirmed_counts(local)
    per_decision = counts.window_counts(window_rows.assign(task=window_rows.decision), frac)
    decisions = ceilings.merge(per_decision[["task", "kstar", "seed_min", "seed_max", "flagged"]]
                               .rename(columns={"task": "decision"}), on="decision", how="left")
    decisions["flagged"] = decisions.flagged.astype("boolean").fillna(True).astype(bool)  # unreadable: flagged
    decisions["precise"] = decisions.se_within_gap.astype(bool) & ~decisions.unreadable
    table = counts.window_counts(window_rows, frac)
    if table.empty:  # every decision at or below chance (C ≤ ½): nothing to count
        kstar, seed_range = math.nan, (math.nan, math.nan)
        ceiling, flagged = float(ceilings.ceiling.median()), True
    else:
        row = table.iloc[0]
        kstar, seed_range = float(row.kstar), (float(row.seed_min), float(row.seed_max))
        ceiling, flagged = float(row.ceiling), bool(row.flagged)
    return KStar(kstar=_count(kstar), seed_range=(_count(seed_range[0]), _count(seed_range[1])), ceiling=ceiling,
                 flagged=flagged, precise=bool(decisions.precise.all()), best_block=best_block, window=window,
                 blocks=blocks, pooling=pooling, decisions=decisions, sweep=sweep, window_rows=window_rows,
                 ceilings=ceilings, local=local, confirmed=confirmed)
