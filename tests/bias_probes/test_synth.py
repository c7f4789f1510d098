"""lib.bias_probes.synth: generators hit their stated ground truth."""

import numpy as np
import pytest

from lib.bias_probes import purity, synth, theory


def test_purity_mixture_composition_and_separation():
    rng = np.random.default_rng(0)
    cov = np.array([[1.5, 0.4], [0.4, 0.8]])
    sample = synth.purity_mixture(rng, 200000, s=2.0, alpha=0.3, d=2, covariance=cov)
    assert sample.marked.mean() == pytest.approx(0.3) and sample.y.mean() == pytest.approx(0.5)
    marked = sample.marked
    delta = sample.X[marked & (sample.y == 1)].mean(0) - sample.X[marked & (sample.y == 0)].mean(0)
    assert np.sqrt(delta @ np.linalg.solve(cov, delta)) == pytest.approx(2.0, rel=0.02)
    neutral = sample.X[~marked]
    assert np.abs(neutral[sample.y[~marked] == 1].mean(0) - neutral[sample.y[~marked] == 0].mean(0)).max() < 0.02
    np.testing.assert_allclose(sample.oracle_direction, np.linalg.solve(cov, 2.0 * np.linalg.cholesky(cov)[:, 0]))


def test_purity_mixture_rejects_bad_input():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="alpha=1.2"):
        synth.purity_mixture(rng, 10, 1.0, 1.2)
    with pytest.raises(ValueError, match="covariance has shape"):
        synth.purity_mixture(rng, 10, 1.0, 0.5, d=2, covariance=np.eye(3))


@pytest.mark.parametrize("kappa", [0.0, 0.25, 4.0])
def test_sphere_centres_sit_on_the_sphere_at_the_chord(kappa):
    rng = np.random.default_rng(1)
    r = 1.2
    sample = synth.sphere_clusters(rng, 1000, kappa, r, sigma_w=1e-9, d=3)
    centres = np.unique(np.round(sample.X, 6), axis=0)
    assert len(centres) == 2
    assert np.linalg.norm(centres[0] - centres[1]) == pytest.approx(theory.chord_length(r, kappa), rel=1e-5)
    if kappa > 0:
        np.testing.assert_allclose(np.linalg.norm(centres, axis=1), 1 / np.sqrt(kappa), rtol=1e-5)


def test_sphere_refuses_distances_beyond_the_diameter():
    with pytest.raises(ValueError, match="exceeds the sphere's diameter"):
        synth.sphere_clusters(np.random.default_rng(0), 10, kappa=4.0, r=2.0, sigma_w=0.1)


def test_null_pool_structure_and_purity_draws():
    rng = np.random.default_rng(2)
    pool = synth.null_pool(rng, n_cells=20, neutral_per_cell=2, d=3)
    assert pool.X.shape == (80, 3) and pool.marked.sum() == 40
    sample = purity.draw_purity_sample(rng, pool, 40, 0.5)
    marked = pool.marked[sample.index]
    assert marked.sum() == 20 and sample.y.mean() == 0.5 and sample.n_duplicates == 0
    pairs = pool.pair[sample.index][marked]
    assert all((pairs == p).sum() == 2 for p in np.unique(pairs))  # pair members travel together
    np.testing.assert_array_equal(sample.groups, pool.cell[sample.index])
    with pytest.raises(ValueError, match="the pool has 20 and 40"):
        purity.draw_purity_sample(rng, pool, 100, 1.0)
    broken = purity.draw_purity_sample(rng, pool, 100, 1.0, allow_resampling=True)
    assert broken.n_duplicates > 0


def test_sphere_intrinsic_spread_moves_points_along_the_circle():
    rng = np.random.default_rng(3)
    sample = synth.sphere_clusters(rng, 500, kappa=1.0, r=1.0, sigma_w=1e-9, d=3, tau=0.3)
    np.testing.assert_allclose(np.linalg.norm(sample.X[:, :2], axis=1), 1.0, rtol=1e-6)
    assert np.unique(np.round(sample.X, 4), axis=0).shape[0] > 400
