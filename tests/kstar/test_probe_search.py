"""lib.kstar.protocol.probe_search: Algorithm 1 of paper 002 (App. A.1.4–A.1.5) — what a search records, Lemma 1(i),
Proposition 1.

The statements were lost in the text extraction; the tests state them as their proofs in the paper establish them:

- Lemma 1(i) (A.1.6). k_min(τ) ≤ k*, where k_min(τ) is the smallest support of *any* linear classifier whose
  test AUROC reaches τ.
- Proposition 1 (A.1.5). Any per-coordinate x′ⱼ = aⱼxⱼ + bⱼ, aⱼ ≠ 0, leaves every count unchanged; with
  the SAE standardisation (no centring) the same holds for bⱼ = 0.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression

from lib import stats
from lib.kstar.protocol import fitscore, rules, splits
from lib.kstar.protocol import probe_search as P

NEW_SKLEARN = tuple(int(p) for p in sklearn.__version__.split(".")[:2]) >= (1, 8)  # `penalty` deprecated


def cell(seed: int, n_tr: int = 160, n_te: int = 80, d: int = 12, k: int = 3, shift: float = 1.0):
    """Balanced labels; the first ``k`` features shifted by ``shift`` s.d. for positives, plus correlated noise."""
    rng = np.random.default_rng(seed)
    y = np.r_[np.arange(n_tr) % 2, np.arange(n_te) % 2]
    X = rng.standard_normal((n_tr + n_te, d)) + 0.5 * rng.standard_normal((n_tr + n_te, 1))
    X[:, :k] += shift * y[:, None]
    return X[:n_tr], y[:n_tr], X[n_tr:], y[n_tr:]


# --- Lemma 1 (i) on real searches: no count below the smallest linear readout ----------------------


def _kmin(X_te, y_te, tau) -> int:
    """Exact k_min(τ) over all linear classifiers when it is 1 or 2 (angle sweep); 3 means '≥ 3'."""
    single = stats.auroc(y_te, X_te.T)
    if np.max(np.maximum(single, 1 - single)) >= tau:
        return 1
    pos, neg = X_te[y_te == 1], X_te[y_te == 0]
    for a in range(X_te.shape[1]):
        for b in range(a + 1, X_te.shape[1]):
            diff = (pos[:, None, [a, b]] - neg[None, :, [a, b]]).reshape(-1, 2)
            crit = np.arctan2(diff[:, 1], diff[:, 0])
            edges = np.sort(np.mod(np.r_[crit + np.pi / 2, crit - np.pi / 2], 2 * np.pi))
            mids = (edges + np.r_[edges[1:], edges[0] + 2 * np.pi]) / 2  # one direction per open arc
            scores = np.cos(mids)[:, None] * X_te[:, a] + np.sin(mids)[:, None] * X_te[:, b]
            if np.max(stats.auroc(y_te, scores)) >= tau:
                return 2
    return 3


@pytest.mark.parametrize("seed", range(4))
def test_lemma1_i_a_count_never_undercuts_the_smallest_linear_readout(seed):
    X_tr, y_tr, X_te, y_te = cell(seed, n_tr=80, n_te=16, d=4, k=2, shift=0.8)
    result = P.search(X_tr, y_tr, X_te, y_te, seed)
    Z_te = fitscore.standardise(X_tr, X_te)[1]
    for tau in sorted({c.auroc for c in result.candidates}):
        count, support = rules.local_count(result, tau)
        assert len(support) == count
        assert count >= _kmin(Z_te, y_te, tau)


# --- Proposition 1: units never move a count --------------------------------------------------------


def _assert_same_search(a: P.SearchResult, b: P.SearchResult):
    assert a.ranking == b.ranking
    assert a.dense_auroc == b.dense_auroc and a.dense_gamma == b.dense_gamma
    assert [(c.path, c.size, c.support, c.gamma) for c in a.candidates] == \
        [(c.path, c.size, c.support, c.gamma) for c in b.candidates]
    np.testing.assert_allclose([c.auroc for c in a.candidates], [c.auroc for c in b.candidates], rtol=0, atol=1e-12)
    for tau in sorted({c.auroc for c in a.candidates} | {rules.threshold(a.dense_auroc)}):
        assert rules.local_count(a, tau) == rules.local_count(b, tau)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.integers(0, 10_000))
def test_proposition_1_affine_maps_per_coordinate_leave_counts_unchanged(draw):
    rng = np.random.default_rng(draw)
    X_tr, y_tr, X_te, y_te = cell(draw % 5, n_tr=120, n_te=60, d=10)
    X_tr[:, 7] = 2.5  # a constant training column
    a = rng.choice([-1.0, 1.0], 10) * 10 ** rng.uniform(-2, 2, 10)
    b = rng.choice([-1.0, 1.0], 10) * 10 ** rng.uniform(-1, 6, 10)  # shifts up to 1e6
    plain = P.search(X_tr, y_tr, X_te, y_te, 3)
    _assert_same_search(plain, P.search(X_tr * a + b, y_tr, X_te * a + b, y_te, 3))


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.integers(0, 10_000))
def test_proposition_1_sae_mode_rescaling_leaves_counts_unchanged(draw):
    rng = np.random.default_rng(draw)
    X_tr, y_tr, X_te, y_te = cell(draw % 5, n_tr=120, n_te=60, d=10)
    X_tr, X_te = np.maximum(X_tr, 0), np.maximum(X_te, 0)  # sparse, non-negative like SAE codes
    X_tr[:, 6], X_tr[:, 7] = 0.0, 4.0  # a dead feature and a constant non-zero one
    a = rng.choice([-1.0, 1.0], 10) * 10 ** rng.uniform(-2, 2, 10)
    plain = P.search(X_tr, y_tr, X_te, y_te, 3, centre=False)
    _assert_same_search(plain, P.search(X_tr * a, y_tr, X_te * a, y_te, 3, centre=False))


# --- Algorithm 1 (A.1.4–A.1.5): what search records ----------------------------------------------


def test_search_records_every_candidate_and_matches_a_plain_sklearn_fitscore():
    X_tr, y_tr, X_te, y_te = cell(0, d=20, k=3, shift=0.7)
    result = P.search(X_tr, y_tr, X_te, y_te, 7)
    assert [c.size for c in result.candidates if c.path == "prefix"] == [1, 2, 4, 8, 16]
    prefixes = [set(c.support) for c in result.candidates if c.path == "prefix"]
    assert all(a < b for a, b in zip(prefixes[:-1], prefixes[1:], strict=True))  # nested
    assert all(c.size == len(c.support) and list(c.support) == sorted(c.support) for c in result.candidates)
    assert len([c for c in result.candidates if c.path == "l1"]) + len(result.l1_dropped) == 10
    assert result.n_fits == 5 * (1 + 5) + 10 and result.n_train == (80, 80) and result.n_test == (40, 40)
    # FitScore by hand: standardise, validation portion, γ by validation AUROC (ties → smaller), refit
    Z_tr, Z_te = fitscore.standardise(X_tr, X_te)
    fit, val = splits.validation_split(y_tr, seed=7)
    assert len(val) == 2 * 16 and not set(fit) & set(val)

    def by_hand(cols, penalty_l1=False, gamma=None):
        def model(g):
            penalty = {"l1_ratio": float(penalty_l1)} if NEW_SKLEARN else {"penalty": "l1" if penalty_l1 else "l2"}
            return LogisticRegression(C=g, solver="liblinear", class_weight="balanced", max_iter=2000,
                                      random_state=7, **penalty)
        if gamma is None:
            aucs = [stats.auroc(y_tr[val], model(g).fit(Z_tr[np.ix_(fit, cols)], y_tr[fit])
                                .decision_function(Z_tr[np.ix_(val, cols)])) for g in fitscore.GAMMAS]
            gamma = fitscore.GAMMAS[int(np.argmax(aucs))]
        m = model(gamma).fit(Z_tr[:, cols], y_tr)
        return float(stats.auroc(y_te, m.decision_function(Z_te[:, cols]))), gamma, int(np.count_nonzero(m.coef_))

    assert by_hand(np.arange(20))[:2] == (result.dense_auroc, result.dense_gamma)
    four = next(c for c in result.candidates if c.path == "prefix" and c.size == 4)
    assert by_hand(list(four.support))[:2] == (four.auroc, four.gamma)
    assert set(four.support) == set(result.ranking[:4])
    for c in (c for c in result.candidates if c.path == "l1"):
        assert by_hand(np.arange(20), True, c.gamma)[::2] == (c.auroc, c.size)


def test_validation_ties_resolve_toward_the_smaller_gamma():
    X_tr, y_tr, X_te, y_te = cell(8, d=6)
    X_tr[:, 0], X_te[:, 0] = 10.0 * y_tr + 0.01 * X_tr[:, 0], 10.0 * y_te + 0.01 * X_te[:, 0]  # separates perfectly
    result = P.search(X_tr, y_tr, X_te, y_te, 0)
    assert result.dense_auroc == 1.0 and result.dense_gamma == min(fitscore.GAMMAS)  # every γ validates at 1.0
    assert result.candidates[0].support == (0,) and result.candidates[0].gamma == min(fitscore.GAMMAS)


def test_fits_per_cell_stay_within_seventy():
    X_tr, y_tr, X_te, y_te = cell(1, n_tr=40, n_te=20, d=1030, k=5)
    result = P.search(X_tr, y_tr, X_te, y_te, 1)
    assert P.prefix_sizes(1030) == tuple(2**i for i in range(11))
    assert result.n_fits == 70
    small = P.search(*cell(2, d=16), 1)  # k = d = 16 reuses the dense FitScore: 5·5 + 10 fits
    assert small.n_fits == 35 <= 70
    assert small.candidates[4].size == 16 and small.candidates[4].auroc == small.dense_auroc


def test_prefix_grid():
    assert P.prefix_sizes(640)[-1] == 512  # Gemma-3-270M
    assert len(P.prefix_sizes(2048)) == 11 and P.prefix_sizes(2048)[-1] == 1024
    assert P.prefix_sizes(1) == (1,) and P.prefix_sizes(100, prefix_max=10) == (1, 2, 4, 8)


def test_search_is_deterministic_and_independent_of_workers():
    X_tr, y_tr, X_te, y_te = cell(3, d=24)
    first = P.search(X_tr, y_tr, X_te, y_te, 5)
    assert P.search(X_tr, y_tr, X_te, y_te, 5) == first
    assert P.search(X_tr, y_tr, X_te, y_te, 5, n_jobs=2) == first
    assert P.search(X_tr, y_tr, X_te, y_te, 6) != first  # the seed moves the validation portion


def test_sparse_input_in_sae_mode_equals_dense_input():
    X_tr, y_tr, X_te, y_te = cell(4, d=16)
    X_tr, X_te = np.maximum(X_tr - 0.5, 0), np.maximum(X_te - 0.5, 0)
    dense = P.search(X_tr, y_tr, X_te, y_te, 2, centre=False)
    sparse = P.search(sp.csr_matrix(X_tr), y_tr, sp.csr_matrix(X_te), y_te, 2, centre=False)
    _assert_same_search(dense, sparse)
    Z_tr, _ = fitscore.standardise(sp.csr_matrix(X_tr), sp.csr_matrix(X_te), centre=False)
    assert sp.issparse(Z_tr) and Z_tr.nnz == np.count_nonzero(X_tr)
    with pytest.raises(ValueError, match="centre=False"):
        P.search(sp.csr_matrix(X_tr), y_tr, X_te, y_te, 2)


def test_ranking_by_welch_t():
    rng = np.random.default_rng(0)
    y = np.arange(200) % 2
    Z = rng.standard_normal((200, 5))
    Z[:, 3] += 1.5 * y
    Z[:, 1] += 0.5 * y
    Z[:, 4] = 1.0  # constant: t = 0, ranked last
    assert list(P.ranking(Z, y)[:2]) == [3, 1] and P.ranking(Z, y)[-1] == 4
    assert P.welch_t(Z, y)[4] == 0.0
    pos, neg = Z[y == 1, 3], Z[y == 0, 3]
    expected = abs(pos.mean() - neg.mean()) / math.sqrt(pos.var() / 100 + neg.var() / 100 + P.EPS0)
    assert P.welch_t(Z, y)[3] == pytest.approx(expected)
    assert list(P.ranking(np.c_[Z[:, 3], Z[:, 3]], y)) == [0, 1]  # ties: lower index first


# --- bad input -------------------------------------------------------------------------------------


def test_bad_input_names_the_counts():
    X_tr, y_tr, X_te, y_te = cell(0, d=5)
    with pytest.raises(ValueError, match="training split holds 0 positives and 160 negatives"):
        P.search(X_tr, np.zeros(160), X_te, y_te, 0)
    with pytest.raises(ValueError, match="test split holds 80 positives and 0 negatives"):
        P.search(X_tr, y_tr, X_te, np.ones(80), 0)
    bad = X_tr.copy()
    bad[3, 1], bad[5, 2] = np.nan, np.inf
    with pytest.raises(ValueError, match="Z_tr holds 2 non-finite"):
        P.search(bad, y_tr, X_te, y_te, 0)
    with pytest.raises(ValueError, match="Z_tr has 160 rows but y_tr has 159"):
        P.search(X_tr, y_tr[:-1], X_te, y_te, 0)
    with pytest.raises(ValueError, match="Z_tr has 5 features but Z_te has 4"):
        P.search(X_tr, y_tr, X_te[:, :4], y_te, 0)
    with pytest.raises(ValueError, match="labels"):
        P.search(X_tr, y_tr * 2, X_te, y_te, 0)
    few = np.r_[np.ones(4), np.zeros(156)]
    with pytest.raises(ValueError, match="4 positives and 156 negatives.*at least 5"):
        P.search(X_tr, few, X_te, y_te, 0)
    with pytest.raises(ValueError, match="seed"):
        P.search(X_tr, y_tr, X_te, y_te, -1)
