"""lib.kstar.protocol.fitscore: paper 002's standardisation and FitScore (App. A.1.4, Eq. 6–8)."""

import numpy as np
import pytest

from lib.kstar.protocol import fitscore, probe_search


def test_standardisation_uses_training_statistics_only():
    rng = np.random.default_rng(0)
    X_tr, X_te = rng.normal(3, 2, (50, 4)), rng.normal(0, 1, (20, 4))
    X_tr[:, 2] = 7.0
    Z_tr, Z_te = fitscore.standardise(X_tr, X_te)
    np.testing.assert_allclose(Z_tr[:, [0, 1, 3]].mean(0), 0, atol=1e-12)
    np.testing.assert_allclose(Z_tr[:, [0, 1, 3]].std(0), 1)  # population s.d.
    assert np.all(Z_tr[:, 2] == 0.0)  # constant: exact zeros, σ = 1
    np.testing.assert_allclose(Z_te[:, 2], X_te[:, 2] - 7.0)
    np.testing.assert_allclose(Z_te[:, 0], (X_te[:, 0] - X_tr[:, 0].mean()) / X_tr[:, 0].std())
    Z_tr, _ = fitscore.standardise(np.c_[X_tr, np.zeros(50)], np.c_[X_te, np.ones(20)], centre=False)
    np.testing.assert_allclose(Z_tr[:, 0], X_tr[:, 0] / X_tr[:, 0].std())  # divide only
    assert np.all(Z_tr[:, 2] == 1.0) and np.all(Z_tr[:, 4] == 0.0)


def test_fit_score_is_the_search_dense_probe():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(160, 12))
    y = (X[:, 0] + 0.8 * rng.normal(size=160) > 0).astype(int)
    full = probe_search.search(X[:120], y[:120], X[120:], y[120:], seed=3)
    assert fitscore.fit_score(X[:120], y[:120], X[120:], y[120:], seed=3) == (full.dense_auroc, full.dense_gamma)


def test_strength_grids_must_be_positive_and_finite():
    assert fitscore.strengths([10, 0.1, 0.1], "gammas") == (0.1, 10.0)
    for bad in ([], [0.0], [np.inf]):
        with pytest.raises(ValueError, match="gammas"):
            fitscore.strengths(bad, "gammas")
