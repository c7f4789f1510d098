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
    draws = concentration_order.concentration_draws(pools, 30)
    assert len(draws) == 2 * 30 and draws.groupby("dimension").draw.nunique().eq(30).all()
    table = concentration_order.concentration_bootstrap(pools, draws)
    along, across = table.iloc[0], table.iloc[1]
    marked = pools[("m", "across")].X[pools[("m", "across")].marked]
    z = (marked - marked.mean(0)) / marked.std(0)
    assert across.beta == pytest.approx(estimators.concentration_index(z), rel=1e-6)
    assert across.n_marked == len(marked) and across.d == 8
    assert along.top_alignment > 0.9 and across.top_alignment < 0.3  # the top direction is the marker's, or not
    assert across.beta_se == pytest.approx(draws[draws.dimension == "across"].beta.std(ddof=1))
    assert 0 < across.beta_se < 0.1
    resampled = draws.groupby("dimension").top_alignment
    assert resampled.min()["along"] > 0.8 and resampled.max()["across"] < 0.5  # resamples keep the direction
    largest = concentration_order.largest_alignment(draws)
    assert len(largest) == 30
    assert np.array_equal(largest, draws.groupby("draw").top_alignment.max().to_numpy())
    assert np.all(largest > 0.8)  # the largest over pools is the aligned pool's in every draw
    assert "|cos| ≤" in concentration_order.order_mechanism(table.iloc[[1]], "b.parquet")
    assert concentration_order.order_mechanism(table, "b.parquet") == ""  # one pool reads the marker


def test_two_cluster_model_aligns_the_top_direction_with_the_marker_at_the_pools_sizes():
    table = pd.DataFrame({"model": "m", "dimension": ["a", "b"], "s_hat": [8.0, 3.0], "d": [60, 40],
                          "n_marked": [200, 120]})
    draws = concentration_order.two_cluster_alignment(table, samples=5, seed=1)
    assert len(draws) == 10 and set(draws.draw) == set(range(5))
    assert draws.top_alignment.min() > 0.9  # the variance s²/4 along Δ tops every noise direction's
    weak = concentration_order.two_cluster_alignment(table.assign(s_hat=0.5), samples=5, seed=1)
    assert weak.top_alignment.max() < 0.6  # s²/4 below √(d/n): the top direction is noise's


def test_within_model_spearman_and_its_draws():
    table = pd.DataFrame({"model": ["a"] * 4 + ["b"] * 4, "beta": [1, 2, 3, 4, 4, 3, 2, 1],
                          "s_hat": [5.0, 10.0, 20.0, 40.0, 5.0, 10.0, 20.0, 40.0], "d": 64, "beta_se": 1e-4})
    rho = concentration_order.within_model_spearman(table, "beta", "s_hat")
    assert rho["a"] == pytest.approx(1.0) and rho["b"] == pytest.approx(-1.0)
    if_paper, if_null = concentration_order.order_draws(table, n=2000)
    assert np.mean(if_paper > 0.5) > 0.99  # the link orders β as ŝ, far beyond its s.e.
    assert 0.05 < np.mean(if_null > 0.5) < 0.2 and abs(if_null.mean()) < 0.05
