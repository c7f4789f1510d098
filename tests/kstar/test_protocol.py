"""lib.kstar.protocol: paper 002's k* protocol (App. A.1.1–A.1.8) — worked examples, Lemma 1, Propositions 1–2.

The statements of Lemma 1 and Propositions 1–2 were lost in the text extraction; the tests state them
as their proofs in the paper establish them:

- Lemma 1 (A.1.6). (i) k_min(τ) ≤ k*, where k_min(τ) is the smallest support of *any* linear classifier
  whose test AUROC reaches τ; (ii) for C > ½ the local count is non-decreasing in the factor α of
  τ = ½ + α(C − ½); (iii) for m ≥ 2 window layers, k₍₂₎ ≤ k̃ ≤ k₍ₘ₎; (iv) k̃ and the task value are
  non-decreasing in every local count (so, with (ii), in α).
- Proposition 1 (A.1.5). Any per-coordinate x′ⱼ = aⱼxⱼ + bⱼ, aⱼ ≠ 0, leaves every count unchanged; with
  the SAE standardisation (no centring) the same holds for bⱼ = 0.
- Proposition 2 (A.1.8). If |Â(g) − Ā(g)| ≤ ε for every scorer, k̄(τ̄ − 1.95ε) ≤ k̂(τ̂) ≤ k̄(τ̄ + 1.95ε).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm
from sklearn.linear_model import LogisticRegression

from lib import stats
from lib.kstar import protocol as P

INF = math.inf
NEW_SKLEARN = tuple(int(p) for p in sklearn.__version__.split(".")[:2]) >= (1, 8)  # `penalty` deprecated
FAST = settings(max_examples=25, deadline=None, derandomize=True)


def cell(seed: int, n_tr: int = 160, n_te: int = 80, d: int = 12, k: int = 3, shift: float = 1.0):
    """Balanced labels; the first ``k`` features shifted by ``shift`` s.d. for positives, plus correlated noise."""
    rng = np.random.default_rng(seed)
    y = np.r_[np.arange(n_tr) % 2, np.arange(n_te) % 2]
    X = rng.standard_normal((n_tr + n_te, d)) + 0.5 * rng.standard_normal((n_tr + n_te, 1))
    X[:, :k] += shift * y[:, None]
    return X[:n_tr], y[:n_tr], X[n_tr:], y[n_tr:]


def cand(size: int, auroc: float, path: str = "prefix") -> P.Candidate:
    return P.Candidate(path, size, tuple(range(size)), auroc, 1.0)


# --- A.1.1 threshold, A.1.7 worked example, A.1.6 conventions -------------------------------------


def test_threshold_matches_the_papers_examples():
    assert P.threshold(0.98) == pytest.approx(0.956, abs=1e-12)
    assert P.threshold(0.90) == pytest.approx(0.88, abs=1e-12)
    # A.1.7: 0.5 + 0.95 × 0.4790 = 0.95505, printed 0.9551
    assert P.threshold(0.9790) == pytest.approx(0.95505, abs=1e-12)
    assert P.threshold(0.8, frac=1.0) == pytest.approx(0.8)


@pytest.mark.parametrize("ceiling, frac", [(1.01, 0.95), (-0.1, 0.95), (math.nan, 0.95), (0.9, 0.0), (0.9, 1.2)])
def test_threshold_rejects_values_out_of_range(ceiling, frac):
    with pytest.raises(ValueError, match="out of range"):
        P.threshold(ceiling, frac)


def test_worked_example_of_a17():
    tau = P.threshold(0.9790)
    layer_counts_seed1 = [341, 137, 342, 369]  # layers 17, 20, 24, 28
    assert P.neighbor_confirm(layer_counts_seed1) == 341
    seeds = {1: [341], 2: [332], 3: [342], 4: [344], 5: [339]}
    assert P.task_value(seeds) == 341
    assert P.seed_range(seeds) == (332, 344)
    assert P.task_value([341, 332, 342, 344, 339]) == 341  # one decision per seed, given flat
    # the support attaining the count is the L1 support, smaller than any qualifying prefix
    curve = [cand(256, 0.950), cand(512, 0.9600), cand(341, 0.9560, "l1"), cand(137, 0.9402, "l1")]
    assert P.local_count(curve, tau) == (341, tuple(range(341)))


def test_neighbor_confirmation_drops_an_isolated_minimum():
    assert P.neighbor_confirm([32, 8, 16, INF]) == 16
    assert P.neighbor_confirm([INF, INF]) == INF
    assert P.neighbor_confirm([8, INF, 4]) == INF
    assert P.neighbor_confirm([7]) == 7  # one layer: its own count (A.1.6)


@pytest.mark.parametrize("bad", [[], [0, 3], [-1], [math.nan, 2], [True, 3]])
def test_counts_must_be_positive_and_present(bad):
    with pytest.raises(ValueError):
        P.neighbor_confirm(bad)
    with pytest.raises(ValueError):
        P.ext_median(bad)


def test_ext_median_conventions():
    assert P.ext_median([1, INF, INF]) == INF  # odd: more than half infinite
    assert P.ext_median([1, 2, INF]) == 2
    assert P.ext_median([1, 2, INF, INF]) == INF  # even: at least half infinite
    assert P.ext_median([1, 2, 3, INF]) == 2.5  # unrounded
    assert P.ext_median([1, 2]) == 1.5
    assert P.ext_median([4, 6]) == 5 and isinstance(P.ext_median([4, 6]), int)
    assert P.ext_median([INF]) == INF
    assert P.ext_median([9, 1, 5]) == 5


def test_task_value_takes_medians_over_decisions_then_seeds():
    counts = [[4, 8, INF], [2, 16, 32], [INF, INF, 1]]  # seeds × decisions
    assert P.seed_values(counts) == (8, 16, INF)
    assert P.task_value(counts) == 16
    assert P.seed_range(counts) == (8, INF)
    with pytest.raises(ValueError):
        P.task_value([])


def test_local_count_qualifies_at_equality_and_breaks_size_ties():
    curve = [cand(4, 0.90), cand(4, 0.93, "l1"), cand(8, 0.99), cand(2, 0.80)]
    assert P.local_count(curve, 0.90) == (4, tuple(range(4)))
    count, support = P.local_count([cand(4, 0.90), P.Candidate("l1", 4, (5, 6, 7, 9), 0.93, 3.0)], 0.90)
    assert (count, support) == (4, (5, 6, 7, 9))  # same size: the larger AUROC supplies the support
    tie = [P.Candidate("prefix", 2, (0, 1), 0.9, 1.0), P.Candidate("l1", 2, (3, 4), 0.9, 1.0)]
    assert P.local_count(tie, 0.9)[1] == (0, 1)  # equal AUROC: the first recorded
    assert P.local_count(curve, 0.995) == (INF, None)
    with pytest.raises(ValueError):
        P.local_count(curve, math.nan)


# --- A.1.8 precision ---------------------------------------------------------------------------------


def test_ceiling_standard_error_of_the_worked_example():
    se = P.ceiling_se(0.979, 1039, 961)
    assert round(se, 4) == 0.0032
    assert P.threshold_gap(0.979) == pytest.approx(0.02395)  # "a gap of 0.024 AUROC"
    assert P.se_within_gap(0.979, 1039, 961)
    assert not P.se_within_gap(0.62, 40, 960)  # a low ceiling: gap 0.006, large s.e.


def test_mcdiarmid_radius_at_the_papers_settings():
    n_scorers = 4 * 5 * 22  # window layers × seeds × (1 dense + 11 prefixes + 10 L1)
    assert n_scorers == 440
    assert round(P.mcdiarmid_radius(1500, 1500, n_scorers, delta=0.05), 2) == 0.08
    # "0.36 at the median class decision, where the rarer test class holds 40 texts" (n₀ = 960 assumed)
    assert round(P.mcdiarmid_radius(40, 960, n_scorers, delta=0.05), 2) == 0.36
    assert P.mcdiarmid_radius(1500, 1500, 4400) > P.mcdiarmid_radius(1500, 1500, 440)
    with pytest.raises(ValueError):
        P.mcdiarmid_radius(0, 10, 440)


def test_mcdiarmid_radius_covers_the_simulated_deviation():
    """Lemma 2 by simulation: scores of M = 20 fixed scorers on fresh test splits stay within ε_δ."""
    rng = np.random.default_rng(0)
    n1, n0, m, delta = 30, 30, 20, 0.2
    eps = P.mcdiarmid_radius(n1, n0, m, delta)
    shifts = np.linspace(0, 1.5, m)[:, None]
    misses = 0
    for _ in range(200):
        pos, neg = rng.standard_normal((m, n1)) + shifts, rng.standard_normal((m, n0))
        a_hat = stats.auroc(np.r_[np.ones(n1), np.zeros(n0)], np.concatenate([pos, neg], axis=1))
        a_bar = norm.cdf(shifts.ravel() / math.sqrt(2))
        misses += np.max(np.abs(a_hat - a_bar)) > eps
    assert misses / 200 <= delta


def test_proposition_2_brackets_empirical_and_population_counts():
    rng = np.random.default_rng(1)
    for _ in range(300):
        n_layers, n_cand, eps = 4, 8, rng.uniform(0.001, 0.03)
        sizes = rng.integers(1, 600, (n_layers, n_cand))
        pop = rng.uniform(0.6, 0.97, (n_layers, n_cand))
        pop_dense = rng.uniform(0.85, 0.96, n_layers)
        emp = pop + rng.uniform(-eps, eps, pop.shape) * 0.999
        emp_dense = pop_dense + rng.uniform(-eps, eps, n_layers) * 0.999
        tau_pop, tau_emp = P.threshold(pop_dense.max()), P.threshold(emp_dense.max())
        pop_c = [[cand(int(s), float(v)) for s, v in zip(sizes[i], pop[i], strict=True)] for i in range(n_layers)]
        emp_c = [[cand(int(s), float(v)) for s, v in zip(sizes[i], emp[i], strict=True)] for i in range(n_layers)]
        lows, ups, k_hats = [], [], []
        for layer in range(n_layers):
            lo, up = P.count_bracket(pop_c[layer], tau_pop, eps)
            k_hat = P.local_count(emp_c[layer], tau_emp)[0]
            assert lo <= k_hat <= up
            lo2, up2 = P.count_bracket(emp_c[layer], tau_emp, eps)  # roles exchanged
            k_bar = P.local_count(pop_c[layer], tau_pop)[0]
            assert lo2 <= k_bar <= up2
            lows.append(lo)
            ups.append(up)
            k_hats.append(k_hat)
        # aggregated counts, by Lemma 1(iv)
        assert P.neighbor_confirm(lows) <= P.neighbor_confirm(k_hats) <= P.neighbor_confirm(ups)


# --- Lemma 1 (ii)–(iv) as properties -------------------------------------------------------------

counts_st = st.one_of(st.integers(1, 2000), st.just(INF))
curve_st = st.lists(st.tuples(st.integers(1, 1024), st.floats(0.4, 1.0)), max_size=8).map(
    lambda pairs: [cand(s, a) for s, a in pairs])


@FAST
@given(st.lists(st.lists(st.lists(st.tuples(st.integers(1, 64), st.floats(0.4, 1.0)), max_size=5),
                         min_size=2, max_size=4), min_size=1, max_size=3),
       st.floats(0.5, 1.0, exclude_min=True), st.floats(0.01, 1.0), st.floats(0.01, 1.0))
def test_lemma1_ii_counts_grow_with_the_threshold_factor(grid, ceiling, a1, a2):
    lo, hi = sorted((a1, a2))
    seeds_lo, seeds_hi = [], []
    for layers in grid:  # seed → layers → candidates (one class decision)
        k_lo = [P.local_count([cand(s, a) for s, a in c], P.threshold(ceiling, lo))[0] for c in layers]
        k_hi = [P.local_count([cand(s, a) for s, a in c], P.threshold(ceiling, hi))[0] for c in layers]
        assert all(x <= y for x, y in zip(k_lo, k_hi, strict=True))
        seeds_lo.append([P.neighbor_confirm(k_lo)])
        seeds_hi.append([P.neighbor_confirm(k_hi)])
    assert P.task_value(seeds_lo) <= P.task_value(seeds_hi)


@FAST
@given(st.lists(counts_st, min_size=2, max_size=8))
def test_lemma1_iii_confirmed_count_between_second_smallest_and_largest(counts):
    ordered = sorted(counts)
    assert ordered[1] <= P.neighbor_confirm(counts) <= ordered[-1]


@FAST
@given(st.lists(st.lists(counts_st, min_size=1, max_size=4), min_size=1, max_size=5), st.data())
def test_lemma1_iv_aggregates_are_monotone_in_every_count(rows, data):
    i = data.draw(st.integers(0, len(rows) - 1))
    j = data.draw(st.integers(0, len(rows[i]) - 1))
    bigger = data.draw(st.one_of(st.integers(0, 500).map(lambda add: rows[i][j] + add), st.just(INF)))
    raised = [list(r) for r in rows]
    raised[i][j] = bigger
    assert P.neighbor_confirm(rows[i]) <= P.neighbor_confirm(raised[i])
    assert P.ext_median(rows[i]) <= P.ext_median(raised[i])
    assert P.task_value(rows) <= P.task_value(raised)


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
    Z_te = P.standardise(X_tr, X_te)[1]
    for tau in sorted({c.auroc for c in result.candidates}):
        count, support = P.local_count(result, tau)
        assert len(support) == count
        assert count >= _kmin(Z_te, y_te, tau)


# --- Proposition 1: units never move a count --------------------------------------------------------


def _assert_same_search(a: P.SearchResult, b: P.SearchResult):
    assert a.ranking == b.ranking
    assert a.dense_auroc == b.dense_auroc and a.dense_gamma == b.dense_gamma
    assert [(c.path, c.size, c.support, c.gamma) for c in a.candidates] == \
        [(c.path, c.size, c.support, c.gamma) for c in b.candidates]
    np.testing.assert_allclose([c.auroc for c in a.candidates], [c.auroc for c in b.candidates], rtol=0, atol=1e-12)
    for tau in sorted({c.auroc for c in a.candidates} | {P.threshold(a.dense_auroc)}):
        assert P.local_count(a, tau) == P.local_count(b, tau)


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
    Z_tr, Z_te = P.standardise(X_tr, X_te)
    fit, val = P.validation_split(y_tr, seed=7)
    assert len(val) == 2 * 16 and not set(fit) & set(val)

    def by_hand(cols, penalty_l1=False, gamma=None):
        def model(g):
            penalty = {"l1_ratio": float(penalty_l1)} if NEW_SKLEARN else {"penalty": "l1" if penalty_l1 else "l2"}
            return LogisticRegression(C=g, solver="liblinear", class_weight="balanced", max_iter=2000,
                                      random_state=7, **penalty)
        if gamma is None:
            aucs = [stats.auroc(y_tr[val], model(g).fit(Z_tr[np.ix_(fit, cols)], y_tr[fit])
                                .decision_function(Z_tr[np.ix_(val, cols)])) for g in P.GAMMAS]
            gamma = P.GAMMAS[int(np.argmax(aucs))]
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
    assert result.dense_auroc == 1.0 and result.dense_gamma == min(P.GAMMAS)  # every γ validates at 1.0
    assert result.candidates[0].support == (0,) and result.candidates[0].gamma == min(P.GAMMAS)


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
    Z_tr, _ = P.standardise(sp.csr_matrix(X_tr), sp.csr_matrix(X_te), centre=False)
    assert sp.issparse(Z_tr) and Z_tr.nnz == np.count_nonzero(X_tr)
    with pytest.raises(ValueError, match="centre=False"):
        P.search(sp.csr_matrix(X_tr), y_tr, X_te, y_te, 2)


def test_standardisation_uses_training_statistics_only():
    rng = np.random.default_rng(0)
    X_tr, X_te = rng.normal(3, 2, (50, 4)), rng.normal(0, 1, (20, 4))
    X_tr[:, 2] = 7.0
    Z_tr, Z_te = P.standardise(X_tr, X_te)
    np.testing.assert_allclose(Z_tr[:, [0, 1, 3]].mean(0), 0, atol=1e-12)
    np.testing.assert_allclose(Z_tr[:, [0, 1, 3]].std(0), 1)  # population s.d.
    assert np.all(Z_tr[:, 2] == 0.0)  # constant: exact zeros, σ = 1
    np.testing.assert_allclose(Z_te[:, 2], X_te[:, 2] - 7.0)
    np.testing.assert_allclose(Z_te[:, 0], (X_te[:, 0] - X_tr[:, 0].mean()) / X_tr[:, 0].std())
    Z_tr, _ = P.standardise(np.c_[X_tr, np.zeros(50)], np.c_[X_te, np.ones(20)], centre=False)
    np.testing.assert_allclose(Z_tr[:, 0], X_tr[:, 0] / X_tr[:, 0].std())  # divide only
    assert np.all(Z_tr[:, 2] == 1.0) and np.all(Z_tr[:, 4] == 0.0)


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


# --- Algorithm 2 (A.1.6) helpers --------------------------------------------------------------------


def test_validation_split_and_subsample_keep_a_floor_fraction_of_each_class():
    y = np.r_[np.ones(23), np.zeros(57)].astype(int)
    fit, val = P.validation_split(y, seed=1)
    assert (y[val] == 1).sum() == 4 and (y[val] == 0).sum() == 11  # ⌊0.2·23⌋, ⌊0.2·57⌋
    assert sorted(np.r_[fit, val]) == list(range(80))
    assert np.array_equal(P.validation_split(y, seed=1)[1], val)
    assert not np.array_equal(P.validation_split(y, seed=2)[1], val)
    rows = P.stratified_subsample(y, seed=1)
    assert (y[rows] == 1).sum() == 19 and (y[rows] == 0).sum() == 48  # ⌊0.85·23⌋, ⌊0.85·57⌋
    assert list(rows) == sorted(set(rows))
    assert len(P.stratified_subsample(np.arange(20) % 2, seed=0)) == 2 * 8  # ⌊0.85·10⌋ in exact arithmetic
    assert len(P.stratified_subsample(np.r_[np.ones(20), np.zeros(20)], seed=0)) == 34  # 0.85·20 = 17


def test_window_brackets_the_best_layer_and_shifts_inward_at_edges():
    grid = [3, 7, 11, 15, 19, 23, 27]
    assert P.window(grid, 11) == (7, 11, 15, 19)  # best second: one before, two after
    assert P.window([5, 9, 13, 17, 20, 24, 28, 31], 20) == (17, 20, 24, 28)  # the A.1.7 window
    assert P.window(grid, 3) == (3, 7, 11, 15)
    assert P.window(grid, 27) == (15, 19, 23, 27)
    assert P.window(grid, 23) == (15, 19, 23, 27)  # neighbours on both sides, best third
    assert P.window([1, 2, 3], 2) == (1, 2, 3)
    with pytest.raises(ValueError, match="not in the grid"):
        P.window(grid, 12)


def test_best_layer_smallest_median_count_ties_to_larger_dense_auroc():
    counts = {3: [64, 8, INF], 7: [16, 16, 32], 11: [16, 4, 64], 15: [INF, INF, 2]}
    dense = {3: 0.95, 7: 0.96, 11: [0.97, 0.96, 0.98], 15: 0.99}
    assert P.best_layer(counts, dense) == 11  # medians 64, 16, 16, ∞; tie 7 vs 11 → larger dense AUROC
    assert P.best_layer({1: [4], 2: [4]}, {1: 0.9, 2: 0.9}) == 1
    with pytest.raises(ValueError, match="lacks"):
        P.best_layer(counts, {3: 0.9})


def test_ceilings_flags_and_skips():
    a = P.search(*cell(5, d=8), 1)
    b = P.search(*cell(6, d=8, shift=0.3), 1)
    assert P.ceiling([a, b]) == max(a.dense_auroc, b.dense_auroc)
    assert P.sweep_ceiling([a, b]) == max(a.best_auroc, b.best_auroc) >= P.ceiling([a, b])
    assert P.readability_flag(0.90) and not P.readability_flag(0.9001)
    assert P.skip_reason([1] * 5 + [0] * 9, [1] * 5 + [0] * 3) is None
    assert "4 positives in the test split" in P.skip_reason([1] * 5 + [0] * 9, [1] * 4 + [0] * 9)
    assert "unreadable" in P.skip_reason([1] * 5, [1] * 5, ceiling_value=0.5)


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


def test_fit_score_is_the_search_dense_probe():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(160, 12))
    y = (X[:, 0] + 0.8 * rng.normal(size=160) > 0).astype(int)
    full = P.search(X[:120], y[:120], X[120:], y[120:], seed=3)
    assert P.fit_score(X[:120], y[:120], X[120:], y[120:], seed=3) == (full.dense_auroc, full.dense_gamma)
