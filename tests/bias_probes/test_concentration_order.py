"""lib.bias_probes.concentration_order: β_B's order within a model, its bootstrap s.e. and its power draws."""

import numpy as np
import pandas as pd
import pytest

from lib.bias_probes import concentration_order, estimators, purity, synth


def _pool(marker: np.ndarray, seed: int = 0) -> purity.Pool:
    """A grid-shaped pool with a shared content factor along the first four coordinates (the top principal
    direction, also after z-scoring) and a marker shifting group 1 by ``marker``."""
    rng = np.random.default_rng(seed)
    pool = synth.null_pool(rng, n_cells=120, d=8, cell_scale=0.0)
    content = np.r_[np.ones(4), np.zeros(4)] / 2
    X = pool.X + 3.0 * rng.standard_normal((len(pool.X), 1)) * content
    X[pool.group == 1] += marker
    return purity.Pool(X, pool.cell, pool.pair, pool.group)


ALONG, ACROSS = 3.0 * np.r_[np.ones(4), np.zeros(4)] / 2, 3.0 * np.eye(8)[7]


def test_bootstrap_beta_and_the_alignment_of_its_direction():
    pools = {("m", "along"): _pool(ALONG), ("m", "across"): _pool(ACROSS)}
    table = concentration_order.concentration_bootstrap(pools, 30)
    along, across = table.iloc[0], table.iloc[1]
    marked = pools[("m", "across")].X[pools[("m", "across")].marked]
    z = (marked - marked.mean(0)) / marked.std(0)
    assert across.beta == pytest.approx(estimators.concentration_index(z), rel=1e-6)
    assert along.top_alignment > 0.9 and across.top_alignment < 0.3  # the top direction is the marker's, or not
    assert 0 < across.beta_se < 0.1
    assert "|cos| ≤" in concentration_order.order_mechanism(table.iloc[[1]], "b.parquet")
    assert concentration_order.order_mechanism(table, "b.parquet") == ""  # one pool reads the marker


def test_within_model_spearman_and_its_draws():
    table = pd.DataFrame({"model": ["a"] * 4 + ["b"] * 4, "beta": [1, 2, 3, 4, 4, 3, 2, 1],
                          "s_hat": [5.0, 10.0, 20.0, 40.0, 5.0, 10.0, 20.0, 40.0], "d": 64, "beta_se": 1e-4})
    rho = concentration_order.within_model_spearman(table, "beta", "s_hat")
    assert rho["a"] == pytest.approx(1.0) and rho["b"] == pytest.approx(-1.0)
    if_paper, if_null = concentration_order.order_draws(table, n=2000)
    assert np.mean(if_paper > 0.5) > 0.99  # the link orders β as ŝ, far beyond its s.e.
    assert 0.05 < np.mean(if_null > 0.5) < 0.2 and abs(if_null.mean()) < 0.05
