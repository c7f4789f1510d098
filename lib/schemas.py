"""Parameter schema of every notebook, registered under the notebook's name (lib.config).

Each field's default is the ``default`` profile's value; ``params/<profile>/<notebook>.yaml``
overrides them per profile. Bounds and choices are enforced before any compute.
"""

from __future__ import annotations

from dataclasses import dataclass

from lib.config import NotebookParams, param, register


@register("00_theory_checks")
@dataclass(frozen=True)
class TheoryChecks(NotebookParams):
    """Closed forms of paper 000 against Monte Carlo simulations of their generative models."""

    tolerance_z: float = param(4.0, gt=0, doc="|MC − closed form| allowed, in Monte Carlo s.e.")
    # Part A: purity law (Theorem 3)
    purity_s: tuple[float, ...] = param((0.5, 1.0, 2.0, 4.0, 8.0), gt=0)
    purity_alphas: tuple[float, ...] = param((0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0), ge=0, le=1)
    purity_n: int = param(4000, ge=20)
    purity_reps: int = param(200, ge=2)
    # Part B: chord and curvature ceiling (Theorem 2, Corollary 1)
    chord_kappas: tuple[float, ...] = param((0.0, 0.25, 1.0, 4.0), ge=0)
    chord_r: tuple[float, ...] = param((0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0), ge=0)
    chord_sigma_w: float = param(1.5, gt=0)
    chord_dim: int = param(3, ge=2)
    chord_n: int = param(2000, ge=20)
    chord_reps: int = param(100, ge=2)
    # Part C: null variance of the AUC (Theorem 4)
    null_exact_sizes: tuple[tuple[int, ...], ...] = param(((2, 3), (4, 5), (6, 6), (8, 10)), ge=1)
    null_mc_sizes: tuple[tuple[int, ...], ...] = param(((50, 50), (100, 300), (1000, 1000)), ge=1)
    null_mc_reps: int = param(4000, ge=2)
    # Part D: detectability threshold α*(n) (Theorem 4, Eq. 11)
    delta: float = param(0.05, gt=0, lt=1, doc="test level")
    gamma: float = param(0.2, gt=0, lt=1, doc="type-II error; target power 1 − γ")
    power_s: tuple[float, ...] = param((0.25, 0.5, 1.0, 2.0, 4.0), gt=0)
    power_n: tuple[int, ...] = param((300, 1000, 3000), ge=20)
    power_reps: int = param(2000, ge=2)
    power_tolerance: float = param(0.05, gt=0, lt=1, doc="allowed |power − (1 − γ)| where the linearisation holds")
    phase_s: float = param(1.0, gt=0)
    phase_n: tuple[int, ...] = param((100, 200, 400, 800, 1600, 3200), ge=20)
    phase_alphas: tuple[float, ...] = param(
        (0.02, 0.03, 0.05, 0.07, 0.1, 0.14, 0.2, 0.28, 0.4, 0.56, 0.8, 1.0), gt=0, le=1
    )
    phase_reps: int = param(500, ge=2)
    # Part E: generalisation gap (Theorem 1)
    gap_n: tuple[int, ...] = param((50, 100, 200, 400, 800, 1600, 3200), ge=10)
    gap_dim: int = param(20, ge=1)
    gap_s: float = param(2.0, gt=0)
    gap_alpha: float = param(0.3, gt=0, le=1)
    gap_reg: float = param(1.0, gt=0, doc="ℓ2 penalty per sample (C = 1/(reg·n))")
    gap_reps: int = param(20, ge=2)
    gap_n_test: int = param(20000, ge=100)
    slope_tolerance: float = param(0.1, gt=0, doc="allowed |slope − (−½)| on log–log axes")
