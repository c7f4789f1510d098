"""lib.bias_probes.simulate: the Monte Carlo tables the theory notebook is built on."""

import numpy as np
import pytest

from lib.bias_probes import simulate, theory


def test_purity_law_table_is_unbiased():
    frame = simulate.purity_law([1.0], [0.0, 0.5, 1.0], n=1000, reps=40, seed=1)
    assert (frame.error.abs() < 4 * frame.mc_se).all()
    np.testing.assert_allclose(frame.theory_auc, theory.purity_auc(1.0, frame.alpha_realised))


def test_chordal_law_skips_impossible_distances():
    frame = simulate.chordal_law([0.0, 4.0], [0.5, 2.0], sigma_w=0.5, n=400, reps=5)
    assert len(frame) == 3  # r = 2 > π/2 is beyond the κ = 4 sphere
    np.testing.assert_allclose(frame.chord_measured, frame.chord_theory)


def test_null_variance_tables():
    exact = simulate.null_variance_exact([(3, 4)])
    assert exact.null_var.item() == pytest.approx(exact.theory_var.item())
    mc = simulate.null_variance_mc([(30, 30)], reps=3000, seed=2)
    assert abs(mc.null_var.item() - mc.theory_var.item()) < 4 * mc.null_var_se.item()


def test_detection_power_is_the_level_at_alpha_zero():
    frame = simulate.detection_power([(1.0, 200, 1e-9)], reps=2000, seed=3)
    assert frame.power.item() == pytest.approx(0.05, abs=0.02)


def test_crossing_purity_and_slope():
    alphas = np.array([0.1, 0.2, 0.4])
    assert simulate.crossing_purity(alphas, np.array([0.2, 0.6, 1.0]), 0.8) == pytest.approx(np.sqrt(0.08))
    assert np.isnan(simulate.crossing_purity(alphas, np.array([0.1, 0.2, 0.3]), 0.8))
    assert np.isnan(simulate.crossing_purity(alphas, np.array([0.9, 0.95, 1.0]), 0.8))  # censored by the grid
    assert simulate.loglog_slope([1, 4, 16], [1, 0.5, 0.25]) == pytest.approx(-0.5)


def test_generalization_gap_table_respects_its_bounds():
    frame = simulate.generalization_gap([50, 200], d=5, s=2.0, alpha=0.5, reg=1.0, reps=3, n_test=2000)
    assert (frame.erm_gap <= frame.erm_bound).all()
    assert (frame.rademacher_empirical <= frame.rademacher_bound).all()
    assert (frame.uniform_deviation <= frame.uniform_bound).all()


def test_detection_boundary_and_censoring():
    import pandas as pd

    rows = [{"n": n, "alpha": a, "rate": min(1.0, a * np.sqrt(n) / 4)} for n in (100, 400) for a in (0.05, 0.2, 0.8)]
    boundary, slope = simulate.detection_boundary(pd.DataFrame(rows), "rate", s=1.0, target=0.8)
    assert list(boundary.n) == [100, 400] and (boundary.alpha_empirical.notna()).all()
    assert slope < 0 and np.allclose(boundary.alpha_star, theory.critical_purity(boundary.n, 1.0))
    _, censored = simulate.detection_boundary(pd.DataFrame(rows[:3]), "rate", s=1.0, target=0.8)
    assert np.isnan(censored)


def test_detection_boundary_reads_alpha_star_at_the_test_null_scale():
    import pandas as pd

    rows = [{"n": n, "alpha": a, "rate": min(1.0, a * np.sqrt(n) / 4)} for n in (100, 400) for a in (0.05, 0.2, 0.8)]
    plain, _ = simulate.detection_boundary(pd.DataFrame(rows), "rate", s=1.0, target=0.8)
    wider, _ = simulate.detection_boundary(pd.DataFrame(rows), "rate", s=1.0, target=0.8, null_scale=1.4)
    assert (wider.alpha_star_exact > plain.alpha_star_exact).all()  # a wider null needs more purity
    exact = [theory.critical_purity_exact(n, 1.0, null_scale=1.4) for n in (100, 400)]
    assert np.allclose(wider.alpha_star_exact, exact)
    assert wider.linearisation_holds.dtype == bool
    assert plain.linearisation_holds.all()  # s = 1: Eq. 11 within 10% of the exact root (0.509 vs 0.539)
    large_s, _ = simulate.detection_boundary(pd.DataFrame(rows), "rate", s=6.0, target=0.8)
    assert not large_s.linearisation_holds.any()  # s = 6: the purity law is far from linear (0.085 vs 0.162)
