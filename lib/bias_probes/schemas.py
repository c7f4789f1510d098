"""Parameter schemas of paper 000's notebooks (00_theory_checks, E01–E11), registered by notebook name.

Each field's default is the ``default`` profile's value; ``params/<profile>/<notebook>.yaml``
overrides them per profile. Bounds and choices are enforced before any compute.
"""

from __future__ import annotations

from dataclasses import dataclass

from lib.parameters import NotebookParams, layer_param, param, register


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
    chord_tau: float = param(0.5, gt=0, doc="intrinsic geodesic spread of the second chordal check (τ > 0)")
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
    # Part F: the minimax lower bound (Proposition 1)
    minimax_n: tuple[int, ...] = param((200, 800, 3200, 12800), ge=10, doc="training sizes (n ≥ 4·d_B)")
    minimax_dims: tuple[int, ...] = param((2, 8, 32), ge=1, doc="intrinsic dimensions d_B of the hypercube family")
    minimax_ambient_dim: int = param(64, ge=1, doc="ambient dimension D the family is rotated into (≥ max d_B)")
    minimax_reps: int = param(200, ge=2)


_OFFLINE_MODELS = ("minilm", "smollm2-135m")
_DIMENSIONS = ("gender", "race", "religion", "age")


@dataclass(frozen=True)
class ModelNotebookParams(NotebookParams):
    """Parameters shared by the model-feature notebooks (paper 000, Sec. VI-A)."""

    models: tuple[str, ...] = param(_OFFLINE_MODELS, doc="registry names, hub ids or local checkpoint folders")
    dimensions: tuple[str, ...] = param(_DIMENSIONS, choices=_DIMENSIONS)
    layer: int | str = layer_param("mid")
    pooling: str = param("mean", choices=("mean", "last", "max"))


@register("E09_null_calibration")
@dataclass(frozen=True)
class NullCalibration(NotebookParams):
    """E09: false-positive rate and null s.d. of the full detection pipeline on label-free features."""

    pool_cells: int = param(340, ge=5, doc="context cells, one counterfactual pair each")
    neutral_per_cell: int = param(2, ge=0)
    feature_dim: int = param(64, ge=1)
    cell_scale: float = param(0.0, ge=0, doc="paper's null: label-free noise, no offset shared within a cell")
    stress_cell_scale: float = param(1.0, ge=0, doc="the stress column: s.d. of an offset a cell's texts share")
    cells: tuple[tuple[float, ...], ...] = param(
        ((0.1, 100), (0.3, 100), (0.3, 300), (1.0, 300), (0.3, 680), (1.0, 680)), ge=0,
        doc="pool-respecting (alpha, n) cells",
    )
    broken_cells: tuple[tuple[float, ...], ...] = param(((1.0, 1000),), ge=0, doc="cells resampled past the pool")
    reps: int = param(500, ge=2, doc="null replicates per cell")
    n_seeds: int = param(5, ge=1)
    n_splits: int = param(5, ge=2)
    level: float = param(0.05, gt=0, lt=1)


@register("E05_orthogonality")
@dataclass(frozen=True)
class Orthogonality(ModelNotebookParams):
    """E05: the orthogonality condition C3 checked exactly and stressed (synthetic), then confound
    resampling on real features (semi-synthetic)."""

    angles_deg: tuple[float, ...] = param((0.0, 15.0, 30.0, 45.0, 60.0, 75.0, 90.0), ge=0, le=90)
    s: float = param(2.0, gt=0)
    alpha: float = param(0.5, gt=0, lt=1, doc="purity: marked and neutral texts both present")
    shift: float = param(1.5, gt=0, doc="length of the marked-vs-neutral confound shift, in noise s.d.")
    n: int = param(1000, ge=20)
    dim: int = param(10, ge=2)
    reps: int = param(40, ge=2)
    tolerance_z: float = param(4.0, gt=0)
    confound_correlations: tuple[float, ...] = param((0.0, 0.5, 0.8, 1.0), ge=0, le=1,
                                                     doc="label-confound correlation in the training sample")
    confound_n: int = param(200, ge=20, doc="training texts per confounded sample")
    confound_draws: int = param(5, ge=1)


@register("E06_scaling")
@dataclass(frozen=True)
class Scaling(ModelNotebookParams):
    """E06: the generalisation gap against n at α = 0.3, synthetic and on model features, beside Theorem 1."""

    n_values: tuple[int, ...] = param((50, 100, 200, 400, 800, 1600, 3200), ge=10)
    dim: int = param(100, ge=1)
    s: float = param(2.0, gt=0)
    alpha: float = param(0.3, gt=0, le=1)
    reps: int = param(20, ge=2)
    n_test: int = param(20000, ge=100)
    reg: float = param(1.0, gt=0, doc="ℓ2 penalty per sample of the norm-bounded probe (C is 1/(reg·n))")
    slope_tolerance: float = param(0.1, gt=0)
    model_n_values: tuple[int, ...] = param((50, 100, 200, 400), ge=10, doc="training sizes on model features")
    model_draws: int = param(5, ge=1)
    curvature_kappas: tuple[float, ...] = param((0.0, 0.5, 1.0, 2.0, 4.0), ge=0,
                                                doc="sphere curvatures; the first is the reference, the last the most "
                                                "curved")
    curvature_r: float = param(1.5, gt=0, doc="geodesic distance between the clusters (needs √κ·r ≤ π)")
    curvature_tau: float = param(0.5, ge=0, doc="intrinsic geodesic spread of each cluster")
    curvature_sigma_w: float = param(0.1, gt=0, doc="ambient isotropic noise")
    curvature_n: int = param(200, ge=10)
    curvature_dim: int = param(10, ge=2)
    curvature_reps: int = param(100, ge=2)


@register("E10_nonlinear")
@dataclass(frozen=True)
class Nonlinear(ModelNotebookParams):
    """E10: kernel, MLP and oracle probes on the E3 generators, and kernel and MLP probes on model features."""

    purity_s: tuple[float, ...] = param((1.0, 4.0), gt=0)
    purity_alphas: tuple[float, ...] = param((0.1, 0.3, 1.0), gt=0, le=1)
    purity_n: int = param(400, ge=20)
    purity_dim: int = param(10, ge=1)
    purity_reps: int = param(8, ge=2)
    sphere_kappa: float = param(4.0, gt=0)
    sphere_r: tuple[float, ...] = param((1.0, 1.25, 1.5), gt=0)
    sphere_sigma_w: float = param(1.0, gt=0)
    sphere_tau: float = param(0.5, ge=0, doc="intrinsic geodesic spread; at 0 the classes are Gaussian and the Bayes "
                              "rule is linear, so the nonlinear probes have nothing to recover")
    sphere_n: int = param(400, ge=20)
    sphere_dim: int = param(5, ge=2)
    sphere_reps: int = param(8, ge=2)
    tolerance_z: float = param(4.0, gt=0)
    recovered_tolerance: float = param(0.25, gt=0, doc="largest share of the chordal-geodesic gap called 'none'")
    model_alphas: tuple[float, ...] = param((0.1, 0.3, 1.0), gt=0, le=1)
    model_n: int = param(300, ge=20)
    model_draws: int = param(2, ge=1)


@register("E03_ground_truth")
@dataclass(frozen=True)
class GroundTruth(NotebookParams):
    """E03: closed forms, learned probes and estimators on synthetic manifolds with known truth."""

    tolerance_z: float = param(4.0, gt=0, doc="|measured − closed form| allowed, in Monte Carlo s.e.")
    # Part A: purity law, oracle and learned probes
    purity_s: tuple[float, ...] = param((0.5, 1.0, 2.0, 4.0, 8.0), gt=0)
    purity_alphas: tuple[float, ...] = param((0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0), ge=0, le=1)
    purity_n: int = param(4000, ge=20)
    purity_reps: int = param(200, ge=2)
    probe_s: tuple[float, ...] = param((1.0, 2.0, 4.0), gt=0)
    probe_alphas: tuple[float, ...] = param((0.1, 0.3, 0.5, 1.0), gt=0, le=1)
    probe_n: int = param(600, ge=20)
    probe_dim: int = param(10, ge=1)
    probe_reps: int = param(10, ge=2)
    # Part B: chord and ceiling on spheres
    chord_kappas: tuple[float, ...] = param((0.0, 0.25, 1.0, 4.0), ge=0)
    chord_r: tuple[float, ...] = param((0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0), ge=0)
    chord_sigma_w: float = param(1.5, gt=0)
    chord_dim: int = param(3, ge=2)
    chord_n: int = param(2000, ge=20)
    chord_reps: int = param(100, ge=2)
    # Part C: detection-rate grid of the full protocol
    detect_s: float = param(1.0, gt=0)
    detect_dim: int = param(10, ge=1)
    detect_n: tuple[int, ...] = param((100, 200, 400, 800, 1600), ge=20)
    detect_alphas: tuple[float, ...] = param((0.05, 0.1, 0.15, 0.2, 0.3, 0.45, 0.65, 1.0), gt=0, le=1)
    detect_reps: int = param(20, ge=2)
    delta: float = param(0.05, gt=0, lt=1)
    gamma: float = param(0.2, gt=0, lt=1)
    # Part D: estimator calibration
    kappa_values: tuple[float, ...] = param((0.25, 0.5, 1.0, 2.0, 4.0), gt=0)
    kappa_intrinsic_dim: int = param(3, ge=1)
    kappa_noise: tuple[float, ...] = param((0.0, 0.005, 0.01, 0.02), ge=0, doc="ambient noise levels for κ̂")
    kappa_paper_noise: float = param(0.01, ge=0, doc="the ambient noise of the paper's generator (one of kappa_noise)")
    manifold_ambient_dim: int = param(30, ge=2)
    manifold_n: int = param(2000, ge=50)
    linear_dims: tuple[int, ...] = param((2, 5, 10, 15, 20, 25), ge=1)
    sphere_dims: tuple[int, ...] = param((2, 3, 4, 5, 6), ge=1)
    estimator_reps: int = param(3, ge=1)
    separation_dim: int = param(768, ge=2)
    separation_n: int = param(300, ge=8)
    separation_s: tuple[float, ...] = param((0.0, 2.0, 4.0, 8.0), ge=0)
    separation_reps: int = param(10, ge=1)
    kappa_perturbation: float = param(0.3, gt=0, lt=1, doc="relative κ error propagated (the sagitta worst case)")
    ceiling_kappas: tuple[float, ...] = param((0.25, 0.5, 1.0, 2.0, 4.0, 8.0), gt=0)


@register("E01_regimes")
@dataclass(frozen=True)
class Regimes(ModelNotebookParams):
    """E01: counterfactual (α = 1) vs mixed (α = 0.3, n = 300) on every model × dimension, family-wise audit."""

    mixed_alpha: float = param(0.3, gt=0, lt=1)
    mixed_n: int = param(300, ge=20)
    fdr: float = param(0.05, gt=0, lt=1, doc="family-wise level for Bonferroni and Benjamini-Hochberg")


@register("E02_purity_sweep")
@dataclass(frozen=True)
class PuritySweep(ModelNotebookParams):
    """E02: AUC(α) predicted from one ŝ, and the (α, n) detection phase diagram."""

    curve_alphas: tuple[float, ...] = param((0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 0.85, 1.0), gt=0, le=1)
    curve_n: int = param(300, ge=20)
    curve_draws: int = param(3, ge=1, doc="datasets drawn per purity")
    phase_alphas: tuple[float, ...] = param((0.01, 0.02, 0.04, 0.08, 0.15, 0.3, 0.4, 0.5, 0.6, 1.0), gt=0, le=1)
    phase_n: tuple[int, ...] = param((100, 300, 1000), ge=20)
    phase_repeats: int = param(8, ge=1, doc="datasets per cell (the paper's 8 seeds)")
    gamma: float = param(0.2, gt=0, lt=1, doc="boundary where the detection rate reaches 1 − γ")


@register("E04_layers")
@dataclass(frozen=True)
class Layers(ModelNotebookParams):
    """E04: every layer of each model: mixed-regime AUC and ŝ."""

    mixed_alpha: float = param(0.3, gt=0, lt=1)
    mixed_n: int = param(300, ge=20)


@register("E08_leakage")
@dataclass(frozen=True)
class Leakage(ModelNotebookParams):
    """E08: grouped vs random cross-validation on identical data."""

    alphas: tuple[float, ...] = param((0.3, 1.0), gt=0, le=1)
    n: int = param(300, ge=20)


@register("E07_concentration")
@dataclass(frozen=True)
class Concentration(ModelNotebookParams):
    """E07: label-free β_B → ŝ → predicted AUC against the empirical AUC."""

    alphas: tuple[float, ...] = param((0.1, 0.3, 0.5, 1.0), gt=0, le=1)
    n: int = param(300, ge=20)
    draws: int = param(2, ge=1)
    link_kappas: tuple[float, ...] = param((0.0, 0.5, 1.0, 2.0, 4.0), ge=0, doc="β_B–curvature link: curvatures")
    link_r: float = param(1.5, gt=0, doc="β_B–curvature link: geodesic distance (needs √κ·r ≤ π)")
    link_sigma_w: float = param(0.5, gt=0)
    link_dim: int = param(6, ge=2)
    link_n: int = param(4000, ge=20)
    link_reps: int = param(10, ge=2)
    link_tolerance: float = param(0.01, gt=0, doc="allowed max |β̂ − β(chord)|")


@register("E11_neutral_leakage")
@dataclass(frozen=True)
class NeutralLeakage(ModelNotebookParams):
    """E11: do neutral texts carry the label? Strong-classifier tests, WinoBias stereotype leakage, leaky purity."""

    neutral_probes: tuple[str, ...] = param(("linear", "rbf_svm", "mlp"), choices=("linear", "rbf_svm", "mlp"),
                                            doc="probes of the neutral label-independence test")
    neutral_draws: int = param(2, ge=1, doc="random balanced labellings of the neutral texts per model × dimension")
    n_permutations: int = param(2000, ge=10, doc="profession-level permutations for the stereotype-leakage p-value")
    n: int = param(300, ge=20)
    draws: int = param(5, ge=1)
    leak_rates: tuple[float, ...] = param((0.0, 0.25, 0.5, 1.0), ge=0, le=1,
                                          doc="share of neutral texts labelled by stereotype instead of at random")
    alphas: tuple[float, ...] = param((0.1, 0.3, 0.5), gt=0, lt=1)


@register("E01b_paraphrases")
@dataclass(frozen=True)
class Paraphrases(ModelNotebookParams):
    """E1b: the E1 regimes on LLM-paraphrased prompts, lexically validated to keep the marker."""

    generator: str = param("smollm2-135m", doc="offline paraphrasing model (used when ollama_url is empty)")
    ollama_url: str = param("", doc="a local ollama server, e.g. http://localhost:11434 (empty: offline generator)")
    ollama_model: str = param("", doc="ollama model tag, recorded with the paraphrases")
    cells_per_dimension: int = param(60, ge=5, le=340, doc="context cells paraphrased per dimension")
    max_new_tokens: int = param(40, ge=5, doc="reply length cap of the offline generator")
    mixed_alpha: float = param(0.3, gt=0, lt=1)
    mixed_n: int = param(100, ge=20, doc="texts in the mixed regime, capped at what the surviving pool supports")
    mixed_draws: int = param(5, ge=1, doc="mixed-regime draws averaged (the same draws for paraphrases and templates)")


@register("A01_audit_your_model")
@dataclass(frozen=True)
class AuditYourModel(NotebookParams):
    """A01: the auditor's power calculator on one model (Sec. VII): ŝ, α*(n), n(α), the verdict of an audit."""

    model: str = param("minilm", doc="registry name, hub id or local checkpoint folder")
    dimensions: tuple[str, ...] = param(_DIMENSIONS, choices=_DIMENSIONS)
    layer: int | str = layer_param("mid")
    pooling: str = param("mean", choices=("mean", "last", "max"))
    n: int = param(300, ge=10, doc="test texts of the audit (balanced classes)")
    alpha: float = param(0.3, gt=0, le=1, doc="purity of the audited texts: share of bias-marked texts")
    audit_auc: float | None = param(None, ge=0, le=1, doc="a finished audit's AUC at n (null: no verdict)")
    delta: float = param(0.05, gt=0, lt=1, doc="level of the detection test")
    gamma: float = param(0.2, gt=0, lt=1, doc="1 − power")
