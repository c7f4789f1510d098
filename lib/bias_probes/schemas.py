"""Parameter schemas of paper 000's notebooks (00_theory_checks, E01–E11), registered by notebook name.

Each field's default is the ``default`` profile's value; ``params/<profile>/<notebook>.yaml``
overrides them per profile. Bounds and choices are enforced before any compute.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from lib.parameters import ParallelParams, SeededParams, layer_param, model_param, n_jobs_param, param, register

_POOLINGS = ("mean", "last", "max")


def _pooling() -> Any:
    """A ``pooling`` field: how a text's token states become one vector."""
    return param("mean", choices=_POOLINGS, doc="token pooling: mean | last | max")


@dataclass(frozen=True)
class Paper000Params(ParallelParams, SeededParams):
    """What paper 000's notebooks share: one root seed and worker processes, by default this process's whole
    share of the cores (the results do not depend on them)."""

    n_jobs: int = n_jobs_param(-1)


@register("00_theory_checks")
@dataclass(frozen=True)
class TheoryChecks(Paper000Params):
    """Closed forms of paper 000 against Monte Carlo simulations of their generative models."""

    docs: ClassVar[dict[str, str]] = {"seed": "root seed; every grid cell draws its own child seed"}

    # Part A: purity law (Theorem 3)
    purity_s: tuple[float, ...] = param((0.5, 1.0, 2.0, 4.0, 8.0), gt=0, doc="Part A: separations s")
    purity_alphas: tuple[float, ...] = param((0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0), ge=0, le=1,
                                             doc="Part A: purities α (5 × 7: 35 settings)")
    purity_n: int = param(4000, ge=20, doc="Part A: texts per simulated audit")
    purity_reps: int = param(200, ge=2, doc="Part A: replicates per setting")
    # Part B: chord and curvature ceiling (Theorem 2, Corollary 1)
    chord_kappas: tuple[float, ...] = param((0.0, 0.25, 1.0, 4.0), ge=0, doc="Part B: curvatures κ (0: flat)")
    chord_r: tuple[float, ...] = param((0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0), ge=0,
                                       doc="Part B: geodesic distances r")
    chord_sigma_w: float = param(1.5, gt=0, doc="Part B: ambient noise σ_w")
    chord_dim: int = param(3, ge=2, doc="Part B: ambient dimension")
    chord_n: int = param(2000, ge=20, doc="Part B: texts per replicate")
    chord_reps: int = param(100, ge=2, doc="Part B: replicates per (κ, r)")
    chord_tau: float = param(0.5, gt=0, doc="Part B: intrinsic geodesic spread of the second chordal check (τ > 0)")
    # Part C: null variance of the AUC (Theorem 4)
    null_exact_sizes: tuple[tuple[int, ...], ...] = param(((2, 3), (4, 5), (6, 6), (8, 10)), ge=1,
                                                          doc="Part C: (n₊, n₋) enumerated exactly")
    null_mc_sizes: tuple[tuple[int, ...], ...] = param(((50, 50), (100, 300), (1000, 1000)), ge=1,
                                                       doc="Part C: (n₊, n₋) by Monte Carlo")
    null_mc_reps: int = param(4000, ge=2, doc="Part C: null replicates per size")
    # Part D: detectability threshold α*(n) (Theorem 4, Eq. 11)
    delta: float = param(0.05, gt=0, lt=1, doc="Part D: test level δ")
    gamma: float = param(0.2, gt=0, lt=1, doc="Part D: type-II error γ (target power 1 − γ)")
    power_s: tuple[float, ...] = param((0.25, 0.5, 1.0, 2.0, 4.0), gt=0,
                                       doc="Part D: separations at which power is checked at α*(n)")
    power_n: tuple[int, ...] = param((300, 1000, 3000), ge=20, doc="Part D: audit sizes at which power is checked")
    power_reps: int = param(2000, ge=2, doc="Part D: replicates per power cell")
    phase_s: float = param(1.0, gt=0, doc="Part D: separation of the (α, n) phase plane")
    phase_n: tuple[int, ...] = param((100, 200, 400, 800, 1600, 3200), ge=20,
                                     doc="Part D: audit sizes of the phase plane")
    phase_alphas: tuple[float, ...] = param(
        (0.02, 0.03, 0.05, 0.07, 0.1, 0.14, 0.2, 0.28, 0.4, 0.56, 0.8, 1.0), gt=0, le=1,
        doc="Part D: purities"
    )
    phase_reps: int = param(500, ge=2, doc="Part D: replicates per phase-plane cell")
    # Part E: generalisation gap (Theorem 1)
    gap_n: tuple[int, ...] = param((50, 100, 200, 400, 800, 1600, 3200), ge=10, doc="Part E: training-set sizes")
    gap_dim: int = param(20, ge=1, doc="Part E: feature dimension")
    gap_s: float = param(2.0, gt=0, doc="Part E: separation")
    gap_alpha: float = param(0.3, gt=0, le=1, doc="Part E: purity")
    gap_reg: float = param(1.0, gt=0, doc="Part E: ℓ2 penalty per sample (C is 1/(reg·n))")
    gap_reps: int = param(20, ge=2, doc="Part E: probes fitted per n")
    gap_n_test: int = param(20000, ge=100, doc="Part E: held-out texts for the test risk")
    # Part F: the minimax lower bound (Proposition 1)
    minimax_n: tuple[int, ...] = param((200, 800, 3200, 12800), ge=10, doc="Part F: training sizes (n ≥ 4·d_B)")
    minimax_dims: tuple[int, ...] = param((2, 8, 32), ge=1,
                                          doc="Part F: intrinsic dimensions d_B of the hypercube family")
    minimax_ambient_dim: int = param(64, ge=1, doc="Part F: ambient dimension D the family is rotated into (≥ max d_B)")
    minimax_reps: int = param(200, ge=2, doc="Part F: samples per (n, d_B)")


_OFFLINE_MODELS = ("minilm", "smollm2-135m")
_DIMENSIONS = ("gender", "race", "religion", "age")


@dataclass(frozen=True)
class ModelGridParams(Paper000Params):
    """The models and bias dimensions of a model-feature notebook (paper 000, Sec. VI-A)."""

    models: tuple[str, ...] = model_param(_OFFLINE_MODELS, doc="registry names, hub ids or local checkpoint folders")
    dimensions: tuple[str, ...] = param(_DIMENSIONS, choices=_DIMENSIONS, doc="bias dimensions of the template grid")


@dataclass(frozen=True)
class ModelNotebookParams(ModelGridParams):
    """Parameters shared by the model-feature notebooks that read one layer (paper 000, Sec. VI-A)."""

    layer: int | str = layer_param("mid", doc='hidden-state layer: "mid" (⌊L/2⌋, the paper\'s default), "last" (the '
                                              'final layer) or an index 0…L')
    pooling: str = _pooling()


@register("E09_null_calibration")
@dataclass(frozen=True)
class NullCalibration(Paper000Params):
    """E09: false-positive rate and null s.d. of the full detection pipeline on label-free features."""

    docs: ClassVar[dict[str, str]] = {"seed": "root seed; every replicate draws its own child seed"}

    pool_cells: int = param(340, ge=5, doc="context cells, one counterfactual pair each (Sec. VI-A)")
    neutral_per_cell: int = param(2, ge=0, doc="neutral texts per context cell (680 in all, as in the paper)")
    feature_dim: int = param(64, ge=1, doc="dimension of the label-free noise features")
    cell_scale: float = param(0.0, ge=0,
                              doc="the paper's null pool: label-free noise, no offset shared by a cell's texts")
    stress_cell_scale: float = param(1.0, ge=0,
                                     doc="stress column: s.d. of an offset shared by a cell's texts (pairs' null "
                                     "scores correlate)")
    cells: tuple[tuple[float, ...], ...] = param(
        ((0.1, 100.0), (0.3, 100.0), (0.3, 300.0), (1.0, 300.0), (0.3, 680.0), (1.0, 680.0)), ge=0,
        doc="pool-respecting (α, n) cells"
    )
    broken_cells: tuple[tuple[float, ...], ...] = param(((1.0, 1000.0),), ge=0,
                                                        doc="(α, n) cells that resample past the pool")
    # 6,000: the planner's scale for fpr_sigma0_max (12× the 500 of commit dbef79b; fpr_sigma0_min needs 8×), about
    # 67 lane-minutes at 0.093 s a replicate (docs/CLAIM_CHANGES.md, docs/TIMINGS.md).
    reps: int = param(6000, ge=2, doc="null replicates per cell of the paper's pool: FPR s.e. at most 0.0029 where "
                      "the FPR is at most .05")
    stress_reps: int = param(200, ge=2, doc="null replicates per cell of the stress pool (reported, not claimed): FPR "
                             "s.e. at most 0.016 where the FPR is at most .05")
    n_seeds: int = param(5, ge=1, doc="cross-validation seeds per replicate")
    n_splits: int = param(5, ge=2, doc="grouped folds")
    level: float = param(0.05, gt=0, lt=1, doc="nominal level of every test")


@register("E05_orthogonality")
@dataclass(frozen=True)
class Orthogonality(ModelNotebookParams):
    """E05: the orthogonality condition C3 checked exactly and stressed (synthetic), then confound
    resampling on real features (semi-synthetic)."""

    docs: ClassVar[dict[str, str]] = {
        "seed": "root seed; every angle draws its own child seed",
        "models": "semi-synthetic part: registry names, hub ids or local checkpoint folders",
        "dimensions": "semi-synthetic part: bias dimensions",
        "layer": 'semi-synthetic part: hidden-state layer ("mid": ⌊L/2⌋, "last" or an index)',
        "pooling": "semi-synthetic part: token pooling",
    }

    angles_deg: tuple[float, ...] = param((0.0, 15.0, 30.0, 45.0, 60.0, 75.0, 90.0), ge=0, le=90,
                                          doc="angle θ between the confound and Δ (90: C3 holds)")
    s: float = param(2.0, gt=0, doc="Mahalanobis separation of the marked clusters")
    alpha: float = param(0.5, gt=0, lt=1, doc="purity: marked and neutral texts both present")
    shift: float = param(1.5, gt=0, doc="length of the marked-vs-neutral confound shift, in noise s.d.")
    n: int = param(1000, ge=20, doc="texts per simulated audit")
    dim: int = param(10, ge=2, doc="feature dimension")
    reps: int = param(40, ge=2, doc="simulated audits per angle")
    confound_correlations: tuple[float, ...] = param((0.0, 0.5, 0.8, 1.0), ge=0, le=1,
                                                     doc="label–confound correlation ρ in the training sample")
    confound_n: int = param(200, ge=20, doc="training sentences per confounded sample")
    confound_draws: int = param(5, ge=1, doc="confounded samples per (model, dimension, ρ)")


@register("E06_scaling")
@dataclass(frozen=True)
class Scaling(ModelNotebookParams):
    """E06: the generalisation gap against n at α = 0.3, synthetic and on model features, beside Theorem 1."""

    docs: ClassVar[dict[str, str]] = {
        "seed": "root seed; every n draws its own child seed",
        "models": "model part: registry names, hub ids or local checkpoint folders",
        "dimensions": "model part: bias dimensions",
        "layer": 'model part: hidden-state layer ("mid": ⌊L/2⌋, "last" or an index)',
        "pooling": "model part: token pooling",
    }

    n_values: tuple[int, ...] = param((50, 100, 200, 400, 800, 1600, 3200), ge=10, doc="training-set sizes")
    dim: int = param(100, ge=1, doc="feature dimension")
    s: float = param(2.0, gt=0, doc="Mahalanobis separation of the marked clusters")
    alpha: float = param(0.3, gt=0, le=1, doc="purity (the paper's E6 setting)")
    reps: int = param(20, ge=2, doc="probes fitted per n")
    n_test: int = param(20000, ge=100, doc="held-out texts for the test AUC and risk")
    reg: float = param(1.0, gt=0, doc="ℓ2 penalty per sample of the norm-bounded probe (C is 1/(reg·n))")
    model_n_values: tuple[int, ...] = param((50, 100, 200, 400), ge=10,
                                            doc="model part: training sizes (half the cells train, half test)")
    model_draws: int = param(5, ge=1, doc="model part: cell splits per size")
    curvature_kappas: tuple[float, ...] = param((0.0, 0.5, 1.0, 2.0, 4.0), ge=0,
                                                doc="curvature part: sphere curvatures κ (κ·r² ≤ π²), the reference "
                                                "first, the most curved last")
    curvature_r: float = param(1.5, gt=0,
                               doc="curvature part: geodesic distance between the two clusters (needs √κ·r ≤ π)")
    curvature_tau: float = param(0.5, ge=0, doc="curvature part: intrinsic geodesic spread τ of each cluster")
    curvature_sigma_w: float = param(0.1, gt=0, doc="curvature part: ambient isotropic noise σ_w")
    curvature_n: int = param(200, ge=10, doc="curvature part: training size")
    curvature_dim: int = param(10, ge=2, doc="curvature part: ambient dimension")
    curvature_reps: int = param(100, ge=2, doc="curvature part: training samples per κ")


@register("E10_nonlinear")
@dataclass(frozen=True)
class Nonlinear(ModelNotebookParams):
    """E10: kernel, MLP and oracle probes on the E3 generators, and kernel and MLP probes on model features."""

    docs: ClassVar[dict[str, str]] = {
        "models": "model part: registry names, hub ids or local checkpoint folders",
        "dimensions": "model part: bias dimensions",
        "layer": 'model part: hidden-state layer ("mid": ⌊L/2⌋, "last" or an index)',
        "pooling": "model part: token pooling",
    }

    purity_s: tuple[float, ...] = param((1.0, 4.0), gt=0, doc="purity generator: separations s")
    purity_alphas: tuple[float, ...] = param((0.1, 0.3, 1.0), gt=0, le=1,
                                             doc="purity generator: purities α (the paper's E10 values)")
    purity_n: int = param(400, ge=20, doc="purity generator: texts per audit")
    purity_dim: int = param(10, ge=1, doc="purity generator: feature dimension")
    purity_reps: int = param(8, ge=2, doc="purity generator: audits per cell")
    sphere_kappa: float = param(4.0, gt=0, doc="sphere: curvature κ")
    sphere_r: tuple[float, ...] = param((1.0, 1.25, 1.5), gt=0, doc="sphere: geodesic distances r")
    sphere_sigma_w: float = param(1.0, gt=0, doc="sphere: ambient isotropic noise σ_w")
    sphere_tau: float = param(0.5, ge=0,
                              doc="sphere: intrinsic geodesic spread (> 0: a nonlinear Bayes rule for the probes to "
                              "recover)")
    sphere_n: int = param(400, ge=20, doc="sphere: texts per audit")
    sphere_dim: int = param(5, ge=2, doc="sphere: ambient dimension")
    sphere_reps: int = param(8, ge=2, doc="sphere: audits per cell")
    model_alphas: tuple[float, ...] = param((0.1, 0.3, 1.0), gt=0, le=1,
                                            doc="model part: purities (the paper's E10 values)")
    model_n: int = param(300, ge=20, doc="model part: texts per dataset in the mixed regimes (α < 1)")
    model_draws: int = param(2, ge=1, doc="model part: datasets per purity")


@register("E03_ground_truth")
@dataclass(frozen=True)
class GroundTruth(Paper000Params):
    """E03: closed forms, learned probes and estimators on synthetic manifolds with known truth."""

    # Part A: purity law, oracle and learned probes
    purity_s: tuple[float, ...] = param((0.5, 1.0, 2.0, 4.0, 8.0), gt=0, doc="Part A: separations s for the oracle")
    purity_alphas: tuple[float, ...] = param((0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0), ge=0, le=1,
                                             doc="Part A: purities α (5 × 7: the paper's 35 settings)")
    purity_n: int = param(4000, ge=20, doc="Part A: texts per oracle audit")
    purity_reps: int = param(200, ge=2, doc="Part A: oracle audits per setting")
    probe_s: tuple[float, ...] = param((1.0, 2.0, 4.0), gt=0, doc="Part A: separations for the learned probe")
    probe_alphas: tuple[float, ...] = param((0.1, 0.3, 0.5, 1.0), gt=0, le=1,
                                            doc="Part A: purities for the learned probe")
    probe_n: int = param(600, ge=20, doc="Part A: texts per learned-probe audit")
    probe_dim: int = param(10, ge=1, doc="Part A: feature dimension for the learned probe")
    probe_reps: int = param(10, ge=2, doc="Part A: learned-probe audits per setting")
    # Part B: chord and ceiling on spheres
    chord_kappas: tuple[float, ...] = param((0.0, 0.25, 1.0, 4.0), ge=0, doc="Part B: curvatures κ (0: flat)")
    chord_r: tuple[float, ...] = param((0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0), ge=0,
                                       doc="Part B: geodesic distances r")
    chord_sigma_w: float = param(1.5, gt=0, doc="Part B: ambient noise σ_w")
    chord_dim: int = param(3, ge=2, doc="Part B: ambient dimension")
    chord_n: int = param(2000, ge=20, doc="Part B: texts per audit")
    chord_reps: int = param(100, ge=2, doc="Part B: audits per (κ, r)")
    # Part C: detection-rate grid of the full protocol
    detect_s: float = param(1.0, gt=0, doc="Part C: separation")
    detect_dim: int = param(10, ge=1, doc="Part C: feature dimension")
    detect_n: tuple[int, ...] = param((100, 200, 400, 800, 1600), ge=20, doc="Part C: audit sizes")
    detect_alphas: tuple[float, ...] = param((0.05, 0.1, 0.15, 0.2, 0.3, 0.45, 0.65, 1.0), gt=0, le=1,
                                             doc="Part C: purities")
    detect_reps: int = param(20, ge=2, doc="Part C: audits per cell")
    delta: float = param(0.05, gt=0, lt=1, doc="Part C: test level δ")
    gamma: float = param(0.2, gt=0, lt=1,
                         doc="Part C: type-II error γ (the boundary is where the detection rate reaches 1 − γ)")
    # Part D: estimator calibration
    kappa_values: tuple[float, ...] = param((0.25, 0.5, 1.0, 2.0, 4.0), gt=0, doc="Part D: curvatures for κ̂")
    kappa_intrinsic_dim: int = param(3, ge=1, doc="Part D: sphere dimension for κ̂")
    kappa_noise: tuple[float, ...] = param((0.0, 0.005, 0.01, 0.02), ge=0,
                                           doc="Part D: ambient noise levels for κ̂ (paper 000 states none; "
                                           "the project's levels)")
    kappa_claim_noise: float = param(0.01, ge=0,
                                     doc="Part D: the noise level the noisy κ̂ claims read (one of kappa_noise; a "
                                     "level the project chose, the paper states no σ)")
    manifold_ambient_dim: int = param(30, ge=2, doc="Part D: ambient dimension for d̂")
    manifold_n: int = param(2000, ge=50, doc="Part D: points per manifold")
    linear_dims: tuple[int, ...] = param((2, 5, 10, 15, 20, 25), ge=1,
                                         doc="Part D: intrinsic dimensions of linear manifolds")
    sphere_dims: tuple[int, ...] = param((2, 3, 4, 5, 6), ge=1, doc="Part D: intrinsic dimensions of spheres")
    estimator_reps: int = param(3, ge=1, doc="Part D: manifolds drawn per setting")
    separation_dim: int = param(768, ge=2, doc="Part D: feature dimension for ŝ (Table VI)")
    separation_n: int = param(300, ge=8, doc="Part D: marked texts for ŝ (Table VI)")
    separation_s: tuple[float, ...] = param((0.0, 2.0, 4.0, 8.0), ge=0, doc="Part D: true separations for ŝ")
    # 1,000: the s.e. of alpha_star_shift's median-based shift falls to about 0.001, where the 1% limit can decide
    # both ways (10 left it unable to hold; docs/CLAIM_CHANGES.md).
    separation_reps: int = param(1000, ge=1, doc="Part D: samples per separation")
    kappa_perturbation: float = param(0.3, gt=0, lt=1,
                                      doc="propagation: relative κ error (the sagitta estimator's worst case)")
    ceiling_kappas: tuple[float, ...] = param((0.25, 0.5, 1.0, 2.0, 4.0, 8.0), gt=0,
                                              doc="propagation: curvatures for the ceiling")


@register("E01_regimes")
@dataclass(frozen=True)
class Regimes(ModelNotebookParams):
    """E01: counterfactual (α = 1) vs mixed (α = 0.3, n = 300) on every model × dimension, family-wise audit."""

    mixed_alpha: float = param(0.3, gt=0, lt=1, doc="purity of the mixed regime")
    mixed_n: int = param(300, ge=20, doc="texts in the mixed regime")
    fdr: float = param(0.05, gt=0, lt=1, doc="family-wise level for Bonferroni and Benjamini–Hochberg")


@register("E02_purity_sweep")
@dataclass(frozen=True)
class PuritySweep(ModelNotebookParams):
    """E02: AUC(α) predicted from one ŝ, and the (α, n) detection phase diagram."""

    curve_alphas: tuple[float, ...] = param((0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 0.85, 1.0), gt=0, le=1,
                                            doc="the nine purities of the AUC(α) curve")
    curve_n: int = param(300, ge=20, doc="texts per dataset on the curve")
    curve_draws: int = param(3, ge=1, doc="datasets drawn per purity")
    phase_alphas: tuple[float, ...] = param((0.01, 0.02, 0.04, 0.08, 0.15, 0.3, 0.4, 0.5, 0.6, 1.0), gt=0, le=1,
                                            doc="purities of the phase diagram")
    phase_n: tuple[int, ...] = param((100, 300, 1000), ge=20, doc="audit sizes of the phase diagram")
    phase_repeats: int = param(8, ge=1, doc="datasets per phase cell (the paper's 8 seeds)")
    gamma: float = param(0.2, gt=0, lt=1, doc="the boundary is where the detection rate reaches 1 − γ")


@register("E04_layers")
@dataclass(frozen=True)
class Layers(ModelGridParams):
    """E04: every layer of each model: mixed-regime AUC and ŝ (no ``layer``: every layer is scanned)."""

    pooling: str = _pooling()
    mixed_alpha: float = param(0.3, gt=0, lt=1, doc="purity of the mixed regime")
    mixed_n: int = param(300, ge=20, doc="texts per dataset")


@register("E08_leakage")
@dataclass(frozen=True)
class Leakage(ModelNotebookParams):
    """E08: grouped vs random cross-validation on identical data."""

    alphas: tuple[float, ...] = param((0.3, 1.0), gt=0, le=1, doc="purities (1: every marked sentence)")
    n: int = param(300, ge=20, doc="texts per dataset in the mixed regimes (α < 1)")


@register("E07_concentration")
@dataclass(frozen=True)
class Concentration(ModelNotebookParams):
    """E07: label-free β_B → ŝ → predicted AUC against the empirical AUC."""

    alphas: tuple[float, ...] = param((0.1, 0.3, 0.5, 1.0), gt=0, le=1, doc="purities")
    n: int = param(300, ge=20, doc="texts per dataset")
    draws: int = param(2, ge=1, doc="datasets per purity")
    beta_reps: int = param(200, ge=2, doc="bootstrap resamples of counterfactual pairs for β_B's s.e.")
    link_kappas: tuple[float, ...] = param((0.0, 0.5, 1.0, 2.0, 4.0), ge=0,
                                           doc="β_B–curvature link: sphere curvatures κ")
    link_r: float = param(1.5, gt=0,
                          doc="β_B–curvature link: geodesic distance between the two clusters (needs √κ·r ≤ π)")
    link_sigma_w: float = param(0.5, gt=0, doc="β_B–curvature link: ambient noise σ_w")
    link_dim: int = param(6, ge=2, doc="β_B–curvature link: ambient dimension")
    link_n: int = param(4000, ge=20, doc="β_B–curvature link: texts per sample")
    link_reps: int = param(10, ge=2, doc="β_B–curvature link: samples per κ")


@register("E11_neutral_leakage")
@dataclass(frozen=True)
class NeutralLeakage(ModelNotebookParams):
    """E11: do neutral texts carry the label? Strong-classifier tests, WinoBias stereotype leakage, leaky purity."""

    docs: ClassVar[dict[str, str]] = {"dimensions": "bias dimensions of the label-independence test"}

    neutral_probes: tuple[str, ...] = param(("linear", "rbf_svm", "mlp"), choices=("linear", "rbf_svm", "mlp"),
                                            doc="probes of the neutral label-independence test")
    neutral_draws: int = param(2, ge=1, doc="random balanced labellings of the neutral texts per model × dimension")
    n_permutations: int = param(2000, ge=10, doc="profession-level permutations for the stereotype-leakage p-value")
    n: int = param(300, ge=20, doc="texts per leaky-purity dataset")
    draws: int = param(5, ge=1, doc="leaky-purity datasets per (α, leak) cell, paired across leak rates")
    leak_rates: tuple[float, ...] = param((0.0, 0.25, 0.5, 1.0), ge=0, le=1,
                                          doc="share of neutral texts labelled by stereotype instead of at random")
    alphas: tuple[float, ...] = param((0.1, 0.3, 0.5), gt=0, lt=1, doc="purities α of the leaky-purity test")


@register("E01b_paraphrases")
@dataclass(frozen=True)
class Paraphrases(ModelNotebookParams):
    """E1b: the E1 regimes on LLM-paraphrased prompts, lexically validated to keep the marker."""

    docs: ClassVar[dict[str, str]] = {"seed": "root seed; the cell subset and every draw derive from it"}

    generator: str = model_param("smollm2-135m", layered=False,
                                 doc="offline paraphrasing model (used when ollama_url is empty)")
    ollama_url: str = param("", doc="a local ollama server, e.g. http://localhost:11434 (empty: offline generator)")
    ollama_model: str = param("", doc="ollama model tag, recorded with the paraphrases")
    cells_per_dimension: int = param(60, ge=5, le=340,
                                     doc="context cells paraphrased per dimension (shared by the dimensions)")
    max_new_tokens: int = param(40, ge=5, doc="reply length cap of the offline generator")
    mixed_alpha: float = param(0.3, gt=0, lt=1, doc="purity of the mixed regime")
    mixed_n: int = param(100, ge=20, doc="texts in the mixed regime, capped at what the surviving pool supports")
    mixed_draws: int = param(5, ge=1, doc="mixed-regime draws averaged (the same draws for paraphrases and templates)")


@register("A01_audit_your_model")
@dataclass(frozen=True)
class AuditYourModel(SeededParams):
    """A01: the auditor's power calculator on one model (Sec. VII): ŝ, α*(n), n(α), the verdict of an audit."""

    docs: ClassVar[dict[str, str]] = {"seed": "seed of the cross-fitting splits"}

    model: str = model_param("minilm", doc="registry name, hub id or local checkpoint folder")
    dimensions: tuple[str, ...] = param(_DIMENSIONS, choices=_DIMENSIONS, doc="bias dimensions of the template grid")
    layer: int | str = layer_param("mid")
    pooling: str = _pooling()
    n: int = param(300, ge=10, doc="test texts of the audit (balanced classes)")
    alpha: float = param(0.3, gt=0, le=1, doc="purity of the audited texts: share of bias-marked texts")
    audit_auc: float | None = param(None, ge=0, le=1, doc="a finished audit's AUC at n (None: no verdict)")
    delta: float = param(0.05, gt=0, lt=1, doc="level of the detection test")
    gamma: float = param(0.2, gt=0, lt=1, doc="1 − power")
