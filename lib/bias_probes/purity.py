"""Text pools with the template grid's structure and datasets drawn from them at purity α (paper 000, Sec. VI-A).

A :class:`Pool` holds feature rows with their context cell, counterfactual pair and group;
:func:`grid_pool` builds one from a dimension of the template grid and its hidden states, and
:func:`draw_purity_sample` draws n texts at purity α from any pool (grid or synthetic).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib.bias_probes import prompts


@dataclass(frozen=True)
class Pool:
    """A text pool with the template grid's structure (paper 000, Sec. VI-A).

    Each context cell holds one counterfactual pair of marked texts (group 0 and group 1) and
    ``neutral_per_cell`` neutral texts. ``X`` holds one feature row per text.
    """

    X: np.ndarray
    cell: np.ndarray
    pair: np.ndarray  # pair id of a marked text, −1 for a neutral one
    group: np.ndarray  # 0/1 for a marked text, −1 for a neutral one

    @property
    def marked(self) -> np.ndarray:
        return self.pair >= 0


def grid_pool(grid: pd.DataFrame, dimension: str, features: np.ndarray) -> Pool:
    """One dimension's prompts as a :class:`Pool` (paper 000, Sec. VI-A).

    ``features`` has one row per prompt of ``grid[grid.dimension == dimension]``, in that order.
    Pass the result to :func:`draw_purity_sample` for a dataset at purity α (CV groups =
    context cells).
    """
    rows = prompts.dimension_rows(grid, dimension)
    X = np.asarray(features)
    if X.ndim != 2 or X.shape[0] != len(rows):
        raise ValueError(
            f"features has shape {X.shape}; allowed: ({len(rows)}, d), one row per {dimension!r} prompt in grid order"
        )
    return Pool(
        X=X,
        cell=rows["cell"].to_numpy(dtype=int),
        pair=rows["pair"].to_numpy(dtype=int),
        group=rows["group"].to_numpy(dtype=int),
    )


@dataclass(frozen=True)
class PuritySample:
    """Rows of a pool drawn at purity α: indices into the pool, labels, CV groups, duplicates."""

    index: np.ndarray
    y: np.ndarray
    groups: np.ndarray
    n_duplicates: int


def draw_purity_sample(
    rng: np.random.Generator, pool: Pool, n: int, alpha: float, allow_resampling: bool = False
) -> PuritySample:
    """n texts at purity α (Sec. VI-A): round(αn/2) whole pairs (label = group), the rest neutral
    texts with random balanced labels; CV groups are the context cells.

    A request beyond the pool raises unless ``allow_resampling``, which then draws pairs or neutral
    texts with replacement — the deliberately broken E09 cell (duplicates create ties).
    """
    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha={alpha!r} is out of range; allowed: 0 <= alpha <= 1")
    n_pairs = int(round(alpha * n / 2))
    n_neutral = n - 2 * n_pairs
    pair_ids = np.unique(pool.pair[pool.marked])
    neutral_rows = np.flatnonzero(~pool.marked)
    short = n_pairs > len(pair_ids) or n_neutral > len(neutral_rows)
    if short and not allow_resampling:
        raise ValueError(
            f"n={n}, alpha={alpha} needs {n_pairs} pairs and {n_neutral} neutral texts; the pool has "
            f"{len(pair_ids)} and {len(neutral_rows)} (set allow_resampling to draw with replacement)"
        )
    chosen_pairs = rng.choice(pair_ids, n_pairs, replace=n_pairs > len(pair_ids))
    chosen_neutral = rng.choice(neutral_rows, n_neutral, replace=n_neutral > len(neutral_rows))
    row_of = {(p, g): i for i, (p, g) in enumerate(zip(pool.pair, pool.group, strict=True)) if p >= 0}
    marked_rows = np.array([row_of[(p, g)] for p in chosen_pairs for g in (0, 1)], dtype=int)
    index = np.concatenate([marked_rows, chosen_neutral]).astype(int)
    y = np.concatenate([pool.group[marked_rows], rng.permutation(np.arange(n_neutral) % 2)]).astype(int)
    return PuritySample(index, y, pool.cell[index], len(index) - len(np.unique(index)))
