"""Null calibration of the detection test (paper 000, Sec. V-E and VI-B, experiment E09).

Label-free noise features on the template grid's structure (:func:`lib.bias_probes.synth.null_pool`) go
through the full pipeline — purity mixing, grouped folds, seeds, C = 1 probes — so H0 holds
exactly. The realised false-positive rate of three tests of the seed-averaged pooled AUC and the
realised null s.d. (its inflation over σ₀) are measured per (α, n) cell and per null pool: the
paper's label-free *noise* features (no shared offset: the two members of a pair are independent)
and, as a labelled stress column, a cell-structured pool whose texts share their cell's offset (the
pair's null scores then correlate and the AUC's null variance shrinks).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import norm

from lib import parallel, probes, stats
from lib.bias_probes import purity, synth

#: Null pools: name → s.d. of the offset a context cell's texts share. "noise" is the paper's generator.
NULL_POOLS: dict[str, float] = {"noise": 0.0, "cell-structured": 1.0}

#: The three null scales compared in Sec. V-E: σ₀/√seeds (seeds taken as independent, the v14
#: build), σ₀ on the seed average, and the calibrated 1.4·σ₀.
TESTS: dict[str, str] = {"sigma0_over_sqrt_seeds": "σ₀/√5", "sigma0": "σ₀", "calibrated": "1.4·σ₀"}


@dataclass(frozen=True)
class NullReplicateItem:
    """One E09 null replicate (paper 000, Sec. V-E): an (α, n) cell, the null pool's shape and the protocol."""

    pool: str
    alpha: float
    n: int
    resample: bool
    n_cells: int
    neutral_per_cell: int
    d: int
    cell_scale: float
    n_seeds: int
    n_splits: int


def _null_replicate(item: NullReplicateItem, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    pool = synth.null_pool(rng, item.n_cells, item.neutral_per_cell, item.d, item.cell_scale)
    sample = purity.draw_purity_sample(rng, pool, item.n, item.alpha, allow_resampling=item.resample)
    result = probes.probe_auc(pool.X[sample.index], sample.y, sample.groups, n_seeds=item.n_seeds,
                              n_splits=item.n_splits, seed=parallel.draw_seed(rng))
    return {"pool": item.pool, "alpha": item.alpha, "n": item.n, "broken": item.resample, "auc_mean": result.auc_mean,
            "auc_seed0": result.aucs[0], "n_pos": result.n_pos, "n_neg": result.n_neg,
            "n_duplicates": sample.n_duplicates}


def null_replicates(
    cells: Sequence[tuple[float, int]],
    reps: int,
    *,
    broken_cells: Sequence[tuple[float, int]] = (),
    n_cells: int = 340,
    neutral_per_cell: int = 2,
    d: int = 64,
    cell_scales: dict[str, float] | None = None,
    stress_reps: int | None = None,
    n_seeds: int = 5,
    n_splits: int = 5,
    seed: int = 0,
    n_jobs: int = 1,
) -> pd.DataFrame:
    """One row per null replicate: seed-averaged pooled OOF AUC (and the first seed's) with n₊, n₋.

    ``cells`` must respect the pool; ``broken_cells`` resample past it (duplicates, ties).
    ``cell_scales``: null pools by name (default :data:`NULL_POOLS`), each with its shared cell offset; the first is
    the paper's and draws ``reps`` replicates per cell, the others are stress pools and draw ``stress_reps`` (None:
    ``reps``). Replicate seeds are position-stable, so ``stress_reps`` leaves the first pool's replicates as they are.
    """
    pools = NULL_POOLS if cell_scales is None else cell_scales
    items = [
        NullReplicateItem(pool=name, alpha=float(a), n=int(n), resample=resample, n_cells=n_cells,
                          neutral_per_cell=neutral_per_cell, d=d, cell_scale=float(scale), n_seeds=n_seeds,
                          n_splits=n_splits)
        for index, (name, scale) in enumerate(pools.items())
        for resample, group in ((False, cells), (True, broken_cells))
        for a, n in group
        for _ in range(reps if index == 0 or stress_reps is None else stress_reps)
    ]
    return pd.DataFrame(parallel.parallel_map(_null_replicate, items, seed=seed, n_jobs=n_jobs))


def rate_se(rejections: int, reps: int) -> float:
    """s.e. of a rate of ``rejections`` in ``reps`` trials at the Agresti–Coull rate (k + 2)/(N + 4) over N + 4
    trials: the Wald √(p(1 − p)/N) for a rate away from 0 and 1, and positive where no trial (or every trial)
    rejects, where the Wald s.e. would read 0."""
    shrunk = (rejections + 2) / (reps + 4)
    return float(np.sqrt(shrunk * (1 - shrunk) / (reps + 4)))


def false_positive_rates(replicates: pd.DataFrame, n_seeds: int = 5, level: float = 0.05) -> pd.DataFrame:
    """Per pool and cell: realised FPR (± s.e., :func:`rate_se`) of each test in :data:`TESTS`, and the null s.d.
    inflation.

    Inflation = realised s.d. of the seed-averaged AUC / σ₀ (Theorem 4's i.i.d. value).
    """
    rows = []
    for (pool, alpha, n, broken), cell in replicates.groupby(["pool", "alpha", "n", "broken"], sort=False):
        sigma0 = stats.null_auc_sd(cell.n_pos.to_numpy(), cell.n_neg.to_numpy())
        scales = {"sigma0_over_sqrt_seeds": sigma0 / np.sqrt(n_seeds), "sigma0": sigma0,
                  "calibrated": stats.DETECTION_NULL_MULTIPLIER * sigma0}
        row = {"pool": pool, "alpha": alpha, "n": n, "broken": broken, "reps": len(cell),
               "null_mean": cell.auc_mean.mean(), "null_sd": cell.auc_mean.std(ddof=1),
               "sigma0": sigma0.mean(), "mean_duplicates": cell.n_duplicates.mean()}
        row["inflation"] = row["null_sd"] / row["sigma0"]
        for name, scale in scales.items():
            _, p_values, _ = stats.one_sided_z(cell.auc_mean.to_numpy(), 0.5, scale)
            rejected = p_values < level
            row[f"fpr_{name}"] = rejected.mean()
            row[f"fpr_{name}_se"] = rate_se(int(rejected.sum()), len(cell))
        rows.append(row)
    return pd.DataFrame(rows)


def null_multipliers(n_seeds: int) -> dict[str, float]:
    """Each test's null scale in units of σ₀ (:data:`TESTS`): 1/√seeds, 1 and the calibrated 1.4."""
    return {"sigma0_over_sqrt_seeds": 1 / np.sqrt(n_seeds), "sigma0": 1.0,
            "calibrated": stats.DETECTION_NULL_MULTIPLIER}


def normal_level(inflation: float, multiplier: float, level: float = 0.05) -> float:
    """Realised level of the one-sided z-test at nominal ``level`` against the null scale multiplier·σ₀ when the
    seed-averaged AUC is normal under H0 with s.d. inflation·σ₀ (Sec. V-E): Φ̄(z_{1−level}·multiplier/inflation)."""
    return float(norm.sf(norm.isf(level) * multiplier / inflation))


def fpr_mechanism(rates: pd.DataFrame, test: str, largest: bool, n_seeds: int, level: float, file: str) -> str:
    """What sets the realised FPR of ``test`` in the cell with the largest or smallest ``fpr_<test>`` of ``rates``
    (logged in ``file``): its null s.d. inflation, whose normal level (:func:`normal_level`) the rate matches within
    3 of its binomial s.e. "" when it does not (the inflation does not account for the rate)."""
    column = f"fpr_{test}"
    row = rates.loc[rates[column].idxmax() if largest else rates[column].idxmin()]
    implied = normal_level(row.inflation, null_multipliers(n_seeds)[test], level)
    if not abs(row[column] - implied) <= 3 * row[f"{column}_se"]:
        return ""
    return (f"in that cell (α = {row.alpha:g}, n = {row.n:g}) the seed-averaged AUC's realised null s.d. is "
            f"{row.inflation:.2f}·σ₀ (`{file}`), and a normal null of that s.d. gives the {TESTS[test]} test a level "
            f"of {implied:.3f}, as measured ({row[column]:.3f} ± {row[f'{column}_se']:.3f}): the rate follows this "
            f"cell's null s.d. inflation")
