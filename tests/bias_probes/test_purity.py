"""lib.bias_probes.purity: grid pools and datasets drawn from them at purity α (paper 000, Sec. VI-A)."""

import numpy as np
import pytest

from lib.bias_probes import prompts, purity


@pytest.fixture(scope="module")
def grid():
    return prompts.template_grid()


def test_pool_feeds_draw_purity_sample(grid):
    rows = grid[grid.dimension == "religion"]
    features = np.arange(len(rows) * 3, dtype=float).reshape(-1, 3)
    pool = purity.grid_pool(grid, "religion", features)
    assert isinstance(pool, purity.Pool) and pool.X is not None and pool.X.shape == (1360, 3)
    np.testing.assert_array_equal(pool.cell, rows.cell.to_numpy())
    np.testing.assert_array_equal(pool.marked, rows.marked.to_numpy())
    rng = np.random.default_rng(0)
    sample = purity.draw_purity_sample(rng, pool, n=300, alpha=0.3)
    assert len(sample.index) == 300 and sample.n_duplicates == 0
    is_marked = pool.marked[sample.index]
    assert is_marked.sum() == 90
    marked_index = sample.index[is_marked]
    np.testing.assert_array_equal(sample.y[is_marked], pool.group[marked_index])
    for pair in np.unique(pool.pair[marked_index]):
        assert sorted(pool.group[marked_index][pool.pair[marked_index] == pair]) == [0, 1]
    assert sample.y[~is_marked].sum() == (~is_marked).sum() // 2
    np.testing.assert_array_equal(sample.groups, pool.cell[sample.index])
    full = purity.draw_purity_sample(rng, pool, n=680, alpha=1.0)
    assert sorted(full.index) == sorted(np.flatnonzero(pool.marked))


def test_pool_rejects_bad_input(grid):
    good = np.zeros((1360, 4))
    with pytest.raises(ValueError, match=r"dimension='ethnicity'.*allowed: gender, race, religion, age"):
        purity.grid_pool(grid, "ethnicity", good)
    with pytest.raises(ValueError, match=r"features has shape \(1359, 4\); allowed: \(1360, d\)"):
        purity.grid_pool(grid, "age", good[:-1])
    with pytest.raises(ValueError, match=r"features has shape \(1360,\)"):
        purity.grid_pool(grid, "age", good[:, 0])
    with pytest.raises(ValueError, match="no rows of dimension='age'"):
        purity.grid_pool(grid[grid.dimension != "age"], "age", good)
    with pytest.raises(ValueError, match="lacks columns"):
        purity.grid_pool(grid.drop(columns="pair"), "age", good)
