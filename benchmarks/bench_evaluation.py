"""D01's Sec. 4.1 evaluation of one method (paper 001): vectorised resampling against one library call per resample.

Sizes of the default run: 7 checkpoints × 24 groups, all 7! = 5,040 checkpoint-block permutations, 1,000
checkpoint and 1,000 pair bootstrap resamples. The baseline is the per-resample loop ``evaluate`` ran before
(``pearsonr``, ``roc_auc_score`` and ``np.polyfit`` once per resample); D01 evaluates 5 methods in each of 4 scorers ×
3 poolings × 2 units: 120 such evaluations. Both must give the same p-values, intervals and MAE.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from scipy.stats import pearsonr
from sklearn.metrics import roc_auc_score

from lib.bias_shift import evaluation, sentences

N_CHECKPOINTS, N_BOOTSTRAP, THRESHOLD = 7, 1000, 0.1


def pairs_table(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.uniform(-0.3, 0.5, (N_CHECKPOINTS, len(sentences.GROUPS)))
    return pd.DataFrame([{"checkpoint": f"c{c}", "group": g, "delta_bias_score": y[c, i],
                          "delta_b": -y[c, i] + rng.normal(0, 0.3)}
                         for c in range(N_CHECKPOINTS) for i, g in enumerate(sentences.GROUPS)])


def loop_statistics(table: pd.DataFrame, seed: int = 0) -> dict[str, float]:
    """The permutation p-values, bootstrap intervals and MAE, one library call per resample."""
    def auc(labels, score):
        return roc_auc_score(labels, score) if 0 < labels.sum() < labels.size else np.nan

    X, Y = evaluation.paired_matrices(table, "delta_b")
    x, y = X.ravel(), Y.ravel()
    r, observed_auc = pearsonr(x, y)[0], auc(y > THRESHOLD, -x)
    perms = evaluation.block_permutations(N_CHECKPOINTS, 5040, seed)
    perm_r = np.array([pearsonr(x, Y[p].ravel())[0] for p in perms])
    perm_auc = np.array([auc(Y[p].ravel() > THRESHOLD, -x) for p in perms])
    rng = np.random.default_rng(seed)
    boot = rng.integers(0, N_CHECKPOINTS, size=(N_BOOTSTRAP, N_CHECKPOINTS))
    boot_r = [pearsonr(X[b].ravel(), Y[b].ravel())[0] for b in boot]
    boot_auc = [auc(Y[b].ravel() > THRESHOLD, -X[b].ravel()) for b in boot]
    pair_boot = rng.integers(0, x.size, size=(N_BOOTSTRAP, x.size))
    fits = [np.polyfit(x[b], y[b], 1) for b in pair_boot]
    return {"p_checkpoints": np.mean(np.abs(perm_r) >= abs(r) - 1e-12),
            "auc_p_checkpoints": np.mean(perm_auc >= observed_auc - 1e-12),
            "r_low": np.nanpercentile(boot_r, 2.5), "auc_high": np.nanpercentile(boot_auc, 97.5),
            "mae": np.mean([np.abs(y[b] - a - s * x[b]).mean() for b, (s, a) in zip(pair_boot, fits, strict=True)])}


def main() -> None:
    table = pairs_table()
    start = time.perf_counter()
    expected = loop_statistics(table)
    loop = time.perf_counter() - start
    start = time.perf_counter()
    got = evaluation.evaluate(table, THRESHOLD, N_BOOTSTRAP, methods=["delta_b"]).iloc[0]
    vectorised = time.perf_counter() - start
    for key, value in expected.items():
        assert abs(got[key] - value) < 1e-9, (key, got[key], value)
    print(f"one method, D01 sizes: per-resample loop {loop:.2f} s, vectorised {vectorised:.3f} s: "
          f"{loop / vectorised:.0f}x faster (D01 runs 120 of them)")


if __name__ == "__main__":
    main()
