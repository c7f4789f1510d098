"""lib.bias_probes.estimators: ŝ (naive vs cross-fitted), d̂_B (MLE, Two-NN, scikit-dimension), κ̂, β_B and s."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.covariance import LedoitWolf

from lib.bias_probes import estimators, synth

# --------------------------------------------------------------------------- separation


def test_naive_separation_is_inflated_and_crossfit_removes_it():
    # Paper 000, Table VI: naive 3.24 vs cross-fitted 0.50 at d = 768, n = 300, s = 0.
    # E‖Δ̂‖² = 4d/n = 10.24 here, so the naive estimate sits near √10.24 = 3.2 on every draw.
    naive, crossfit = [], []
    for seed in range(5):
        sample = synth.purity_mixture(np.random.default_rng(seed), 300, 0.0, 1.0, d=768)
        naive.append(estimators.separation_naive(sample.X, sample.y))
        crossfit.append(estimators.separation_crossfit(sample.X, sample.y))
    # measured: naive 3.30, 3.24, 3.15, 3.23, 3.24; cross-fitted 0.93, 0.25, 0.00, 0.34, 0.63
    assert all(2.9 < value < 3.6 for value in naive)
    assert all(value < 1.0 for value in crossfit)
    assert np.median(crossfit) < 0.75
    assert min(naive) > 2.5 * max(crossfit)


@pytest.mark.parametrize("anisotropic", [False, True])
def test_both_separations_recover_s_when_n_is_large(anisotropic):
    rng = np.random.default_rng(1)
    cov = None
    if anisotropic:
        a = rng.standard_normal((10, 10))
        cov = a @ a.T / 10 + 0.2 * np.eye(10)  # eigenvalues ≈ 0.2 … 4.3
    sample = synth.purity_mixture(rng, 4000, 2.0, 1.0, d=10, covariance=cov)
    assert estimators.separation_naive(sample.X, sample.y) == pytest.approx(2.0, rel=0.05)
    assert estimators.separation_crossfit(sample.X, sample.y) == pytest.approx(2.0, rel=0.05)


@pytest.mark.parametrize(("n", "d"), [(60, 200), (200, 15)])
def test_shrunk_solve_matches_sklearn_ledoit_wolf(n, d):
    # The Woodbury path (d > n) and the dense path (d <= n) both solve sklearn's Ledoit–Wolf system, times n/(n − 2).
    rng = np.random.default_rng(3)
    Z = rng.standard_normal((n, d)) * np.linspace(0.5, 2.0, d)
    rhs = rng.standard_normal(d)
    sigma = LedoitWolf(assume_centered=True).fit(Z).covariance_ * n / (n - 2)
    np.testing.assert_allclose(estimators._shrunk_solve(Z, rhs), np.linalg.solve(sigma, rhs), rtol=1e-8)


def test_crossfit_is_reproducible_and_takes_a_generator():
    sample = synth.purity_mixture(np.random.default_rng(2), 400, 1.5, 1.0, d=20)
    first = estimators.separation_crossfit(sample.X, sample.y, seed=7)
    assert estimators.separation_crossfit(sample.X, sample.y, seed=7) == first
    assert estimators.separation_crossfit(sample.X, sample.y, seed=np.random.default_rng(7)) == first
    assert estimators.separation_crossfit(sample.X, sample.y, n_splits=1, seed=3) > 0


def test_separation_rejects_bad_input_before_compute(monkeypatch):
    def no_compute(*args, **kwargs):
        raise AssertionError("computed before validating")

    monkeypatch.setattr(estimators, "ledoit_wolf_shrinkage", no_compute)
    X = np.random.default_rng(0).standard_normal((40, 3))
    y = np.arange(40) % 2
    with pytest.raises(ValueError, match=r"n_splits=0 is out of range; allowed: an integer >= 1"):
        estimators.separation_crossfit(X, y, n_splits=0)
    with pytest.raises(ValueError, match="exactly 2"):
        estimators.separation_naive(X, np.zeros(40))
    with pytest.raises(ValueError, match=r"y has shape \(39,\)"):
        estimators.separation_naive(X, y[:-1])
    with pytest.raises(ValueError, match=">= 4 rows per class"):
        estimators.separation_crossfit(X[:7], np.r_[np.zeros(4), np.ones(3)])
    with pytest.raises(ValueError, match="non-finite"):
        estimators.separation_naive(np.where(X > 2, np.nan, X), y)


# --------------------------------------------------------------------------- intrinsic dimension


def _relative_error(estimate: float, truth: float) -> float:
    return estimate / truth - 1.0


def test_dimension_underestimation_grows_with_d_on_linear_manifolds():
    # Paper 000, E3 Part D: MLE underestimation up to ≈ 40 % at d = 25 on linear manifolds, Two-NN drifts the same
    # way. Measured here (n = 2000): MLE −0.10 at d = 5, −0.30 at d = 25; Two-NN −0.09 and −0.23.
    errors = {}
    for d in (5, 25):
        X = synth.linear_manifold(np.random.default_rng(4), 2000, d, d + 10)
        errors[d] = (
            _relative_error(estimators.intrinsic_dim_mle(X), d),
            _relative_error(estimators.intrinsic_dim_twonn(X), d),
        )
    for method in (0, 1):
        assert -0.15 < errors[5][method] < 0
        assert errors[25][method] < -0.18
        assert errors[25][method] < errors[5][method] - 0.1


@pytest.mark.parametrize("d", [2, 3, 4, 5])
def test_dimension_on_spheres(d):
    # measured: MLE within 2.1 %, Two-NN within 3.3 % for d_B = 2..5 (paper: median ≈ 0.15 on spheres)
    X = synth.sphere_manifold(np.random.default_rng(5), 2000, d, 10)
    assert abs(_relative_error(estimators.intrinsic_dim_mle(X), d)) < 0.2
    assert abs(_relative_error(estimators.intrinsic_dim_twonn(X), d)) < 0.2


def test_mle_matches_scikit_dimension_with_mackay_ghahramani_averaging():
    skdim = pytest.importorskip("skdim")
    X = synth.linear_manifold(np.random.default_rng(0), 2000, 5, 20)
    ours = estimators.intrinsic_dim_mle(X)
    # skdim.id.MLE with the default dnoise=None, unbiased=False gives per point (k−1)/Σ_{j<k} log(T_k/T_j) over its
    # n_neighbors = k nearest other points; comb="mle" inverts the mean of the inverses (MacKay–Ghahramani). Averaged
    # over k = 10..20 this is our definition exactly (measured: equal to 2e-16).
    fits = [skdim.id.MLE().fit(X, n_neighbors=k, comb="mle") for k in range(10, 21)]
    theirs = np.mean([fit.dimension_ for fit in fits])
    assert ours == pytest.approx(theirs, rel=0.01)
    assert ours == pytest.approx(theirs, rel=1e-9)
    # comb="mean" is Levina–Bickel's original arithmetic mean of the per-point estimates, which cannot coincide:
    # the arithmetic mean is >= the harmonic mean (equality only if all points agree), so it is larger (4.89 vs 4.51).
    arithmetic = np.mean([np.mean(fit.dimension_pw_) for fit in fits])  # what comb="mean" returns
    assert arithmetic > ours


def test_twonn_matches_scikit_dimension_default():
    skdim = pytest.importorskip("skdim")
    for ambient in (20, 40):  # skdim uses k-NN up to 25 features and chunked pairwise distances beyond
        X = synth.linear_manifold(np.random.default_rng(0), 2000, 5, ambient)
        # Default TwoNN: method="linear", discard_fraction=0.1, our variant (measured: equal to 3e-16).
        theirs = skdim.id.TwoNN().fit(X).dimension_
        assert estimators.intrinsic_dim_twonn(X) == pytest.approx(theirs, rel=0.01)
        assert estimators.intrinsic_dim_twonn(X) == pytest.approx(theirs, rel=1e-9)


def test_duplicate_rows_raise_a_clear_error():
    X = synth.linear_manifold(np.random.default_rng(6), 300, 3, 8)
    X = np.vstack([X, X[:4], X[:1]])  # 5 duplicate rows
    for estimator in (estimators.intrinsic_dim_mle, estimators.intrinsic_dim_twonn, estimators.curvature_sagitta):
        with pytest.raises(ValueError, match=r"5 duplicate rows.*np\.unique\(X, axis=0\)"):
            estimator(X)
    assert estimators.intrinsic_dim_mle(np.unique(X, axis=0)) > 0


def test_dimension_rejects_bad_parameters_before_compute(monkeypatch):
    def no_compute(*args, **kwargs):
        raise AssertionError("computed before validating")

    monkeypatch.setattr(estimators, "NearestNeighbors", no_compute)
    X = np.random.default_rng(0).standard_normal((50, 4))
    with pytest.raises(ValueError, match=r"k_min=1 is out of range; allowed: an integer 2 <= k_min <= k_max"):
        estimators.intrinsic_dim_mle(X, k_min=1)
    with pytest.raises(ValueError, match=r"k_min=21 is out of range"):
        estimators.intrinsic_dim_mle(X, k_min=21, k_max=20)
    with pytest.raises(ValueError, match=r"k_max=50 is out of range; allowed: an integer 2 <= k_max < n_samples=50"):
        estimators.intrinsic_dim_mle(X, k_max=50)
    with pytest.raises(ValueError, match=r"k_min=10\.0 is out of range"):
        estimators.intrinsic_dim_mle(X, k_min=10.0)
    with pytest.raises(ValueError, match="2-D array"):
        estimators.intrinsic_dim_twonn(X[0])


# --------------------------------------------------------------------------- curvature


def test_sagitta_curvature_orders_spheres_and_is_near_zero_when_flat():
    # Paper 000, E3 Part D: median relative error 0.17 (max 0.28) over κ ∈ [0.25, 4].
    # measured (intrinsic_dim estimated): −0.028, −0.026, −0.033 for κ = 0.25, 1, 4
    kappas = (0.25, 1.0, 4.0)
    estimates = []
    for seed, kappa in enumerate(kappas):
        X = synth.sphere_manifold(np.random.default_rng(10 + seed), 3000, intrinsic_dim=2, ambient_dim=10, kappa=kappa)
        estimates.append(estimators.curvature_sagitta(X))
    assert estimates == sorted(estimates)
    for estimate, kappa in zip(estimates, kappas, strict=True):
        assert abs(estimate / kappa - 1) < 0.35
    flat = synth.linear_manifold(np.random.default_rng(13), 3000, 2, 10)
    assert estimators.curvature_sagitta(flat) < 1e-3 * 0.25


def test_sagitta_curvature_options_and_reproducibility():
    X = synth.sphere_manifold(np.random.default_rng(14), 2000, intrinsic_dim=3, ambient_dim=8, kappa=1.0)
    explicit = estimators.curvature_sagitta(X, intrinsic_dim=3, n_neighbors=50, n_centres=100, seed=1)
    assert explicit == pytest.approx(1.0, rel=0.35)
    assert estimators.curvature_sagitta(X, intrinsic_dim=3, n_neighbors=50, n_centres=100, seed=1) == explicit
    assert estimators.default_sagitta_neighbors(2) == 30
    assert estimators.default_sagitta_neighbors(1) == 20


def test_sagitta_rejects_bad_parameters_before_compute(monkeypatch):
    def no_compute(*args, **kwargs):
        raise AssertionError("computed before validating")

    monkeypatch.setattr(estimators, "NearestNeighbors", no_compute)
    X = np.random.default_rng(0).standard_normal((100, 5))
    with pytest.raises(ValueError, match=r"intrinsic_dim=5 is out of range; allowed: None or an integer 1 <= "):
        estimators.curvature_sagitta(X, intrinsic_dim=5)
    with pytest.raises(ValueError, match=r"n_neighbors=100 is out of range"):
        estimators.curvature_sagitta(X, intrinsic_dim=2, n_neighbors=100)
    with pytest.raises(ValueError, match=r"n_neighbors=2 is out of range; allowed: intrinsic_dim=2 < n_neighbors"):
        estimators.curvature_sagitta(X, intrinsic_dim=2, n_neighbors=2)
    with pytest.raises(ValueError, match=r"n_centres=0 is out of range"):
        estimators.curvature_sagitta(X, intrinsic_dim=2, n_centres=0)


# --------------------------------------------------------------------------- concentration index


def test_concentration_index_extremes():
    rng = np.random.default_rng(20)
    d = 10
    assert estimators.concentration_index(rng.standard_normal((20000, d))) == pytest.approx(0.0, abs=0.01)
    rank_one = rng.standard_normal((500, 1)) * rng.standard_normal((1, d)) + 3.0
    assert estimators.concentration_index(rank_one) == pytest.approx(1 - 1 / d, abs=1e-9)
    wide = rng.standard_normal((30, 200))  # d > n works (singular values of the centred data)
    assert 0 <= estimators.concentration_index(wide) <= 1 - 1 / 200


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 40), d=st.integers(1, 30), seed=st.integers(0, 2**32 - 1),
    log_scales=st.lists(st.floats(-4, 4), min_size=30, max_size=30),
)
def test_concentration_index_range(n, d, seed, log_scales):
    X = np.random.default_rng(seed).standard_normal((n, d)) * np.exp(np.asarray(log_scales[:d]))
    beta = estimators.concentration_index(X)
    assert -1e-12 <= beta <= 1 - 1 / d + 1e-12


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_concentration_link_inverts_simulated_beta(alpha):
    d, s = 20, 3.0
    sample = synth.purity_mixture(np.random.default_rng(21), 20000, s, alpha, d=d)
    beta = estimators.concentration_index(sample.X)
    a = alpha * s**2 / 4  # forward link of the docstring: β = a(d − 1)/(d(d + a))
    assert beta == pytest.approx(a * (d - 1) / (d * (d + a)), rel=0.05)
    assert estimators.separation_from_concentration(beta, d, alpha) == pytest.approx(s, rel=0.05)


def test_concentration_link_round_trip_and_edges():
    for d in (2, 5, 768):
        for alpha in (0.1, 1.0):
            for s in (0.0, 0.3, 2.0, 9.0):
                a = alpha * s**2 / 4
                beta = a * (d - 1) / (d * (d + a))
                assert estimators.separation_from_concentration(beta, d, alpha) == pytest.approx(s, abs=1e-9)
    assert estimators.separation_from_concentration(1 - 1 / 4, 4) == float("inf")
    with pytest.raises(ValueError, match=r"beta=0\.9 is out of range; allowed: 0 <= beta <= 1 - 1/d = 0\.75"):
        estimators.separation_from_concentration(0.9, 4)
    with pytest.raises(ValueError, match=r"alpha=0 is out of range"):
        estimators.separation_from_concentration(0.1, 4, alpha=0)
    with pytest.raises(ValueError, match=r"d=1 is out of range"):
        estimators.separation_from_concentration(0.0, 1)
    with pytest.raises(ValueError, match="zero variance"):
        estimators.concentration_index(np.ones((5, 3)))


def test_neutral_offset_recovers_a_known_shift():
    rng = np.random.default_rng(11)
    along = synth.purity_mixture(rng, 20000, 2.0, 0.5, d=4, neutral_offset=np.array([0.6, 0.0, 0.0, 0.0]))
    across = synth.purity_mixture(rng, 20000, 2.0, 0.5, d=4, neutral_offset=np.array([0.0, 0.6, 0.0, 0.0]))
    for sample, expected in ((along, 0.6), (across, 0.0)):
        offset = estimators.neutral_offset(sample.X[sample.marked], sample.y[sample.marked], sample.X[~sample.marked])
        assert offset == pytest.approx(expected, abs=0.06)
    with pytest.raises(ValueError, match="X_neutral has 3 columns"):
        estimators.neutral_offset(along.X[along.marked], along.y[along.marked], np.zeros((2, 3)))


def test_standardised_separation_ignores_a_massive_coordinate_that_collapses_raw_separation():
    rng = np.random.default_rng(11)
    n, d = 400, 40
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, d))
    X[:, :5] += 0.6 * y[:, None]  # s = 0.6·√5 ≈ 1.34 over five coordinates
    scaled = X * np.r_[300.0, np.ones(d - 1)]  # one massive-activation coordinate (variance 9·10⁴ × the others)
    scaled[:, 0] += 0.0
    standard = estimators.separation_crossfit(X, y, seed=0)
    assert estimators.separation_crossfit(scaled, y, seed=0) == pytest.approx(standard, rel=1e-9)  # invariant
    assert estimators.separation_naive(scaled, y) == pytest.approx(estimators.separation_naive(X, y), rel=1e-9)
    raw = estimators.separation_crossfit(scaled, y, seed=0, standardize=False)
    assert standard == pytest.approx(0.6 * np.sqrt(5), abs=0.35)
    assert raw < 0.7 * standard  # shrinkage toward (tr/d)·I is dominated by the outlier: ŝ collapses


def test_the_floor_fit_removes_the_noise_floor_the_origin_fit_reads_as_curvature():
    rng = np.random.default_rng(0)
    for kappa in (0.25, 1.0):
        noisy = synth.sphere_manifold(rng, 2000, 3, 30, kappa, 0.01)  # the paper's generator: σ = 0.01, D = 30, m = 3
        origin = estimators.curvature_sagitta(noisy, intrinsic_dim=3, seed=0) / kappa - 1
        floor = estimators.curvature_sagitta(noisy, intrinsic_dim=3, seed=0, fit="floor") / kappa - 1
        assert origin > 0.25 and abs(floor) < 0.1
    clean = synth.sphere_manifold(rng, 2000, 3, 30, 1.0, 0.0)
    assert estimators.curvature_sagitta(clean, intrinsic_dim=3, fit="floor") == pytest.approx(1.0, rel=0.1)
    with pytest.raises(ValueError, match="fit='ols' is not a sagitta fit"):
        estimators.curvature_sagitta(clean, intrinsic_dim=3, fit="ols")


def test_concentration_from_separation_inverts_the_link():
    for s, d, alpha in [(0.5, 10, 1.0), (3.0, 64, 0.3), (8.0, 384, 1.0)]:
        beta = estimators.concentration_from_separation(s, d, alpha)
        assert estimators.separation_from_concentration(beta, d, alpha) == pytest.approx(s, rel=1e-9)


def test_concentration_tracks_curvature_through_the_chord():
    """β_B–curvature link: at fixed geodesic distance, β_B measured on sphere clusters follows the chord."""
    from lib.bias_probes import synth, theory

    rng = np.random.default_rng(5)
    for kappa in (0.0, 1.0, 4.0):
        betas = [estimators.concentration_index(synth.sphere_clusters(rng, 4000, kappa, 1.5, 0.5, d=6).X)
                 for _ in range(10)]
        predicted = estimators.concentration_from_separation(float(theory.chord_length(1.5, kappa)) / 0.5, 6)
        assert np.mean(betas) == pytest.approx(predicted, abs=0.01)


def test_concentration_link_holds_on_standardised_features_with_an_outlier_coordinate():
    rng = np.random.default_rng(6)
    d, n, s = 40, 4000, 3.0
    delta = rng.choice([-1.0, 1.0], size=d) * s / np.sqrt(d)  # energy spread over the coordinates
    y = rng.integers(2, size=n)
    Z = rng.standard_normal((n, d)) + np.outer(y - 0.5, delta)
    scales = np.ones(d)
    scales[0] = 300.0  # a massive-activation coordinate, no extra signal
    X = Z * scales
    standardised = (X - X.mean(0)) / X.std(0)
    recovered = estimators.separation_from_concentration(estimators.concentration_index(standardised), d)
    assert recovered == pytest.approx(s, rel=0.1)
    assert estimators.separation_from_concentration(estimators.concentration_index(X), d) > 5 * s
