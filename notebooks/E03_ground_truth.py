# %% [markdown]
# # E03 · Ground truth — closed forms, probes and estimators where s, κ, d_B and α are known
#
# **Paper 000**, Sec. VI (experiment E3, Table VI, Fig. 3) and the propagation checks after it.
# Part A: the purity law (Eq. 8) against the oracle over 35 (s, α) settings, and learned probes never
# above it. Part B: the chordal formula (Eq. 6) on spheres and the flat-vs-curved saturation of
# Fig. 3b. Part C: the detection rate of the full protocol (grouped CV × seeds, 1.4·σ₀ test) over
# (α, n) against α\*(n) and its −½ slope. Part D: estimator calibration — κ̂ (sagitta; through the origin as
# the paper fits it and floor-corrected, over ambient noise levels), d̂ (MLE and
# Two-NN) on spheres and linear manifolds, ŝ naive vs cross-fitted — and what their errors do to the
# theory's predictions.
#
# Writes: `purity_law`, `chord_saturation`, `detection_grid`, `estimator_calibration` (figures),
# `estimators` (table, the Table VI equivalent), `claims`.

# %%
import numpy as np
import pandas as pd
from IPython.display import display
from matplotlib import pyplot as plt
from scipy.stats import spearmanr

from lib import config, plotting, results, stats
from lib.bias_probes import figures, groundtruth, simulate, theory
from lib.claims import Bound, Point, claim, show_claims

# %% tags=["parameters"]
profile = "default"  # smoke | default | paper
recompute = True  # compute missing or stale results; false: only redraw figures from logged results
seed = 0  # root seed; every cell draws its own child seed
n_jobs = -1  # worker processes (-1: this process's share of cores); results do not depend on it
tolerance_z = 4.0  # allowed |measured − closed form|, in Monte Carlo standard errors
purity_s = [0.5, 1.0, 2.0, 4.0, 8.0]  # Part A: separations s for the oracle
purity_alphas = [0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0]  # Part A: purities α (5 × 7: the paper's 35 settings)
purity_n = 4000  # Part A: texts per oracle audit
purity_reps = 200  # Part A: oracle audits per setting
probe_s = [1.0, 2.0, 4.0]  # Part A: separations for the learned probe
probe_alphas = [0.1, 0.3, 0.5, 1.0]  # Part A: purities for the learned probe
probe_n = 600  # Part A: texts per learned-probe audit
probe_dim = 10  # Part A: feature dimension for the learned probe
probe_reps = 10  # Part A: learned-probe audits per setting
chord_kappas = [0.0, 0.25, 1.0, 4.0]  # Part B: curvatures κ (0: flat)
chord_r = [0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0]  # Part B: geodesic distances r
chord_sigma_w = 1.5  # Part B: ambient noise σ_w
chord_dim = 3  # Part B: ambient dimension
chord_n = 2000  # Part B: texts per audit
chord_reps = 100  # Part B: audits per (κ, r)
detect_s = 1.0  # Part C: separation
detect_dim = 10  # Part C: feature dimension
detect_n = [100, 200, 400, 800, 1600]  # Part C: audit sizes
detect_alphas = [0.05, 0.1, 0.15, 0.2, 0.3, 0.45, 0.65, 1.0]  # Part C: purities
detect_reps = 20  # Part C: audits per cell
delta = 0.05  # Part C: test level δ
gamma = 0.2  # Part C: type-II error γ (the boundary is where the detection rate reaches 1 − γ)
kappa_values = [0.25, 0.5, 1.0, 2.0, 4.0]  # Part D: curvatures for κ̂
kappa_intrinsic_dim = 3  # Part D: sphere dimension for κ̂
kappa_noise = [0.0, 0.005, 0.01, 0.02]  # Part D: ambient noise levels for κ̂ (the paper's generator: 0.01)
kappa_paper_noise = 0.01  # Part D: the ambient noise of the paper's generator (one of kappa_noise; claims at and without it)
manifold_ambient_dim = 30  # Part D: ambient dimension for d̂
manifold_n = 2000  # Part D: points per manifold
linear_dims = [2, 5, 10, 15, 20, 25]  # Part D: intrinsic dimensions of linear manifolds
sphere_dims = [2, 3, 4, 5, 6]  # Part D: intrinsic dimensions of spheres
estimator_reps = 3  # Part D: manifolds drawn per setting
separation_dim = 768  # Part D: feature dimension for ŝ (Table VI)
separation_n = 300  # Part D: marked texts for ŝ (Table VI)
separation_s = [0.0, 2.0, 4.0, 8.0]  # Part D: true separations for ŝ
separation_reps = 10  # Part D: samples per separation
kappa_perturbation = 0.3  # propagation: relative κ error (the sagitta estimator's worst case)
ceiling_kappas = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0]  # propagation: curvatures for the ceiling

# %%
params = config.load("E03_ground_truth", globals())
if params.kappa_paper_noise not in params.kappa_noise:
    raise config.ConfigError(f"kappa_paper_noise={params.kappa_paper_noise!r} is not one of kappa_noise={params.kappa_noise}")
run = results.start(params)
plotting.use_style()
common = {"seed": params.seed, "n_jobs": params.n_jobs}

# %% [markdown]
# ## Part A — the purity law: oracle and learned probes

# %%
oracle, oracle_file = run.table(
    "purity_oracle",
    lambda: results.shared_table(simulate.purity_law, params.purity_s, params.purity_alphas, params.purity_n,
                                 params.purity_reps, **common),
)
learned, learned_file = run.table(
    "purity_learned",
    lambda: groundtruth.probes_vs_purity_law(
        params.probe_s, params.probe_alphas, params.probe_n, params.probe_dim, params.probe_reps, **common
    ),
)

# %%
fig, ax = plt.subplots(figsize=(5, 3.6))
alpha_fine = np.linspace(0, 1, 101)
for s_value, cell in oracle.groupby("s"):
    line = ax.plot(alpha_fine, theory.purity_auc(s_value, alpha_fine), lw=1, label=f"s = {s_value:g}")[0]
    ax.plot(cell.alpha, cell.mc_auc, "o", ms=3, color=line.get_color())
    probe_cell = learned[learned.s == s_value]
    ax.errorbar(probe_cell.alpha, probe_cell.probe_auc, yerr=2 * probe_cell.probe_se, fmt="x", ms=5, color=line.get_color())
ax.set(xlabel="purity α", ylabel="AUC", title="Eq. 8 (lines), oracle (dots), learned probe (crosses)")
ax.legend(fontsize=7)
plotting.save_figure(
    fig, "purity_law",
    "Purity law (paper 000, Theorem 3, Eq. 8; E3 Part A, Fig. 3a): closed form, oracle Monte Carlo, and the "
    "grouped-CV AUC of the learned probe (±2 s.e.), which stays at or below the bound.",
    [oracle_file, learned_file],
)

# %% [markdown]
# ## Part B — chords on spheres: curved AUC saturates, flat AUC keeps rising (Fig. 3b)

# %%
chord, chord_file = run.table(
    "chordal_law",
    lambda: results.shared_table(simulate.chordal_law, params.chord_kappas, params.chord_r, params.chord_sigma_w,
                                 params.chord_n, params.chord_reps, params.chord_dim, **common),
)

# %%
fig, ax = plt.subplots(figsize=(5, 3.6))
figures.chordal_auc_panel(ax, chord, params.chord_sigma_w)
ax.legend(fontsize=7)
plotting.save_figure(
    fig, "chord_saturation",
    "Chordal AUC on spheres (paper 000, Theorem 2, Eq. 6-7; E3 Part B, Fig. 3b): oracle Monte Carlo (±2 s.e.) "
    "against geodesic distance; curved AUC saturates at its ceiling while flat AUC keeps rising.",
    [chord_file],
)

# %% [markdown]
# ## Part C — detection rate of the full protocol over (α, n)

# %%
detect, detect_file = run.table(
    "detection_grid",
    lambda: groundtruth.probe_detection_rates(
        [(params.detect_s, n, a) for n in params.detect_n for a in params.detect_alphas],
        params.detect_dim, params.detect_reps, **common,
    ),
)
boundary, boundary_slope = simulate.detection_boundary(
    detect, "detection_rate", params.detect_s, 1 - params.gamma, params.delta, params.gamma,
    null_scale=stats.DETECTION_NULL_MULTIPLIER,  # the test that produced the rates
)
fitted = boundary.dropna()
display(boundary)

# %%
fig, ax = plt.subplots(figsize=(5, 3.6))
rates = detect.pivot(index="alpha", columns="n", values="detection_rate")
mesh = ax.pcolormesh(rates.columns, rates.index, rates.to_numpy(), shading="nearest", cmap="viridis", vmin=0, vmax=1)
fig.colorbar(mesh, label="detection rate (1.4·σ₀ test)")
ax.plot(boundary.n, boundary.alpha_star_exact, "w-", lw=2, label="α*(n), exact root at 1.4·σ₀")
ax.plot(boundary.n, boundary.alpha_star, "w:", lw=1.5, label="α*(n), Eq. 11 (σ₀, linearised)")
ax.plot(fitted.n, fitted.alpha_empirical, "r--o", ms=3, label=f"empirical {1 - params.gamma:.0%} rate (slope {boundary_slope:.2f})")
ax.set(xscale="log", yscale="log", xlabel="audit size n", ylabel="purity α", title=f"learned probe, s = {params.detect_s:g}")
ax.legend(fontsize=7, loc="lower left")
plotting.save_figure(
    fig, "detection_grid",
    "Detection rate of the full protocol (grouped 5-fold × 5 seeds, 1.4·σ₀ test) over (n, α) at known s "
    "(paper 000, E3 Part C), the threshold α*(n) of Eq. 11 and the empirical boundary with its log-log slope.",
    [detect_file],
)

# %% [markdown]
# ## Part D — estimator calibration

# %%
curvature, curvature_file = run.table(
    "curvature_calibration",
    lambda: pd.concat([
        groundtruth.curvature_calibration(params.kappa_values, params.kappa_intrinsic_dim, params.manifold_ambient_dim,
                                          params.manifold_n, noise, params.estimator_reps, fit=fit, **common)
        for noise in params.kappa_noise for fit in ("origin", "floor")
    ], ignore_index=True),
)
dimension, dimension_file = run.table(
    "dimension_calibration",
    lambda: pd.concat([
        groundtruth.dimension_calibration(manifold, dims, params.manifold_ambient_dim, params.manifold_n,
                                          params.estimator_reps, **common)
        for manifold, dims in (("linear", params.linear_dims), ("sphere", params.sphere_dims))
    ], ignore_index=True),
)
separation, separation_file = run.table(
    "separation_calibration",
    lambda: groundtruth.separation_calibration(params.separation_s, params.separation_dim, params.separation_n,
                                               params.separation_reps, **common),
)
display(curvature, dimension, separation)

# %%
fig, (ax_k, ax_d, ax_s) = plt.subplots(1, 3, figsize=(12, 3.6))
for (noise, fit), cell in curvature.groupby(["noise", "fit"]):
    ax_k.errorbar(cell.kappa, cell.kappa_hat, yerr=2 * cell.kappa_hat_se, fmt="o-" if fit == "origin" else "s:", ms=3,
                  label=f"σ = {noise:g}, {fit} fit")
ax_k.plot(curvature.kappa, curvature.kappa, "k--", lw=1, label="truth")
ax_k.set(xscale="log", yscale="log", xlabel="κ", ylabel="κ̂ (sagitta)", title=f"spheres, d_B = {params.kappa_intrinsic_dim}")
ax_k.legend(fontsize=7)
for manifold, cell in dimension.groupby("manifold"):
    for column, marker in (("mle", "o"), ("twonn", "s")):
        ax_d.plot(cell.intrinsic_dim, cell[column], marker + "-", ms=3, label=f"{column}, {manifold}")
ax_d.plot(dimension.intrinsic_dim, dimension.intrinsic_dim, "k--", lw=1)
ax_d.set(xlabel="d_B", ylabel="d̂", title="intrinsic dimension")
ax_d.legend(fontsize=7)
ax_s.plot(separation.s, separation.naive, "o-", label="naive plug-in")
ax_s.plot(separation.s, separation.crossfit, "s-", label="cross-fitted")
ax_s.plot(separation.s, separation.s, "k--", lw=1, label="truth")
ax_s.set(xlabel="s", ylabel="ŝ", title=f"d = {params.separation_dim}, n = {params.separation_n}")
ax_s.legend(fontsize=7)
plotting.save_figure(
    fig, "estimator_calibration",
    "Estimator calibration on ground-truth manifolds (paper 000, E3 Part D, Table VI): curvature κ̂ by the "
    "sagitta fit, intrinsic dimension d̂ (Levina-Bickel MLE, Two-NN), and Mahalanobis separation ŝ naive vs cross-fitted.",
    [curvature_file, dimension_file, separation_file],
)

# %% [markdown]
# ## Propagation — what the estimators' errors do to the predictions

# %%
grid = chord[chord.kappa > 0]
shifts = np.concatenate([
    np.abs(theory.chordal_auc(grid.r, grid.kappa * (1 + sign * params.kappa_perturbation), params.chord_sigma_w)
           - theory.chordal_auc(grid.r, grid.kappa, params.chord_sigma_w))
    for sign in (-1, 1)
])
ceiling_kappas = np.asarray(params.ceiling_kappas)
ceiling_shift = max(
    np.abs(theory.curvature_ceiling(ceiling_kappas * (1 + sign * params.kappa_perturbation), params.chord_sigma_w)
           - theory.curvature_ceiling(ceiling_kappas, params.chord_sigma_w)).max()
    for sign in (-1, 1)
)
positive_s = separation[separation.s > 0]
median_s_error = np.median(np.abs(positive_s.crossfit_median_relative_error))
alpha_star_shift = abs(1 / (1 + median_s_error) - 1)  # α* ∝ 1/s exactly (Eq. 11)
clean = curvature[(curvature.noise == 0) & (curvature.fit == "origin")]
noisy = curvature[curvature.noise == params.kappa_paper_noise]
noise_sweep = curvature.assign(abs_error=curvature.relative_error.abs()).groupby(["noise", "fit"]).abs_error.agg(
    ["median", "max"]).reset_index()
display(noise_sweep)
linear = dimension[dimension.manifold == "linear"].sort_values("intrinsic_dim")
spheres = dimension[dimension.manifold == "sphere"]
null_separation = separation[separation.s == 0]
summary = pd.DataFrame({
    "estimator": ["κ̂ sagitta (spheres)", "d̂ MLE (spheres)", "d̂ MLE (linear, largest d)", "d̂ Two-NN (linear, largest d)",
                  "ŝ naive (s = 0)", "ŝ cross-fitted (s = 0)"],
    "measured": [clean.relative_error.abs().median(), spheres.mle_relative_error.abs().median(),
                 linear.mle_relative_error.iloc[-1], linear.twonn_relative_error.iloc[-1],
                 null_separation.naive.mean(), null_separation.crossfit.mean()],
    "paper": ["median rel. error 0.17 (max 0.28)", "≈ 0.15", "≈ −0.40 at d = 25", "same downward drift", "3.24", "0.50"],
})
summary, summary_file = run.table("estimators", lambda: summary)
plotting.save_table(summary.round(4), "estimators",
                    "Estimator calibration summary (paper 000, E3 Part D, Table VI equivalent).",
                    [summary_file])

# %% [markdown]
# ## Claims — paper value beside measured value

# %%
purity_z = (oracle.error.abs() / oracle.mc_se.where(oracle.mc_se > 0)).max()
flat, curved_last = chord[chord.kappa == 0].sort_values("r"), chord[chord.kappa > 0].sort_values("r").groupby("kappa").tail(1)
largest_linear = linear.intrinsic_dim.iloc[-1]
claims = [
    claim("purity_oracle_max_error", "E3-A", "oracle AUC vs Eq. 8 over the (s, α) settings, max |error|",
          "< 0.006", oracle.error.abs().max(), Bound("<", 0.006), cites="00_theory_checks:purity_law_mc"),
    claim("purity_oracle_z", "E3-A", "oracle AUC vs Eq. 8, max |error| / s.e.", "exact", purity_z, Bound("<=", params.tolerance_z), cites="00_theory_checks:purity_law_z"),
    claim("learned_below_bound", "E3-A", "learned probe above Eq. 8, max (AUC − bound) / s.e.",
          "never beyond MC noise", learned.excess_z.max(), Bound("<=", params.tolerance_z)),
    claim("chordal_max_error", "E3-B, Eq. 6", "oracle AUC vs chordal formula over the (κ, r) grid, max |error|",
          "< 0.013", chord.error.abs().max(), Bound("<", 0.013), cites="00_theory_checks:chordal_auc_mc"),
    claim("flat_keeps_rising", "E3-B; Fig. 3b", "flat AUC increases with r: min step", "> 0", flat.mc_auc.diff().min(), Bound(">", 0), cites="00_theory_checks:flat_keeps_rising"),
    claim("curved_saturates", "E3-B; Fig. 3b", "curved AUC at the largest r vs ceiling, max |gap| / s.e.", "saturates at Eq. 7",
          ((curved_last.ceiling - curved_last.mc_auc).abs() / curved_last.mc_se).max(), Bound("<=", params.tolerance_z)),
    claim("boundary_slope", "E3-C; Thm 4", "log-log slope of the empirical detection boundary (learned probe, 1.4·σ₀)",
          "-0.5", boundary_slope, Point(-0.5, tol=0.15, reason="tolerance chosen before the run")),
    claim("boundary_vs_alpha_star", "E3-C; Eq. 11", "median empirical boundary / α*(n), α* the exact root at the "
          "test's 1.4·σ₀ (0.5 chosen: the paper says the boundary 'tracks' α*)",
          "tracks α*(n)", (fitted.alpha_empirical / fitted.alpha_star_exact).median(), Point(1, tol=0.5, reason="0.5 chosen: the paper says the boundary 'tracks' α* without a tolerance")),
    claim("kappa_median_error", "E3-D", "κ̂ median relative error on spheres (no ambient noise)",
          "0.17", clean.relative_error.abs().median(), Bound("<=", 0.17, reason="the paper's value is an error or a spread: a smaller one does not contradict it")),
    claim("kappa_max_error", "E3-D", "κ̂ max relative error on spheres (no ambient noise)",
          "0.28", clean.relative_error.abs().max(), Bound("<=", 0.28, reason="the paper's value is an error or a spread: a smaller one does not contradict it")),
    claim("kappa_ordering", "E3-D", "Spearman ρ of κ̂ with κ", "1 (ordering correct)",
          spearmanr(clean.kappa, clean.kappa_hat).statistic, Bound(">=", 0.999, reason="ρ cannot exceed 1: the lower bound is the two-sided test of ρ = 1")),
    claim("kappa_noisy_origin", "E3-D", f"κ̂ median |relative error| at the paper's ambient noise σ = "
          f"{params.kappa_paper_noise:g}, the paper's fit through the origin (the noise floor reads as curvature)",
          "0.17", noisy[noisy.fit == "origin"].relative_error.abs().median(), Bound("<=", 0.17, reason="the paper's value is an error or a spread: a smaller one does not contradict it")),
    claim("kappa_noisy_floor", "E3-D", f"κ̂ median |relative error| at σ = {params.kappa_paper_noise:g} with the "
          "floor-corrected fit (h² on ‖t‖⁴ with an intercept)", "0.17",
          noisy[noisy.fit == "floor"].relative_error.abs().median(), Bound("<=", 0.17, reason="the paper's value is an error or a spread: a smaller one does not contradict it")),
    claim("kappa_noisy_floor_max", "E3-D", f"κ̂ max |relative error| at σ = {params.kappa_paper_noise:g}, floor fit",
          "0.28", noisy[noisy.fit == "floor"].relative_error.abs().max(), Bound("<=", 0.28, reason="the paper's value is an error or a spread: a smaller one does not contradict it")),
    claim("dimension_spheres", "E3-D", "d̂ (MLE) median |relative error| on spheres", "≈ 0.15",
          spheres.mle_relative_error.abs().median(), Bound("<=", 0.2, reason="the paper's value is an error or a spread: a smaller one does not contradict it")),
    claim("dimension_linear_largest", "E3-D", f"d̂ (MLE) relative error on the linear manifold with d = {largest_linear}",
          "≈ -0.40 at d = 25", linear.mle_relative_error.iloc[-1], Point(-0.40, tol=0.15, reason="tolerance chosen before the run")),
    claim("dimension_underestimation_grows", "E3-D", "Spearman ρ of MLE relative error with d (linear)",
          "-1 (grows with d)", spearmanr(linear.intrinsic_dim, linear.mle_relative_error).statistic, Bound("<=", -0.9, reason="ρ cannot fall below −1: the upper bound is the two-sided test of ρ = −1")),
    claim("twonn_same_drift", "E3-D", "Spearman ρ of Two-NN relative error with d (linear)",
          "same downward drift", spearmanr(linear.intrinsic_dim, linear.twonn_relative_error).statistic, Bound("<=", -0.9)),
    claim("separation_naive_null", "E3-D; Table VI", f"naive ŝ at d = {params.separation_dim}, n = {params.separation_n}, s = 0",
          "3.24", null_separation.naive.mean(), Point(3.24, tol=0.3, reason="tolerance chosen before the run")),
    claim("separation_crossfit_null", "E3-D; Table VI", f"cross-fitted ŝ at d = {params.separation_dim}, n = {params.separation_n}, s = 0",
          "0.50", null_separation.crossfit.mean(), Bound("<=", 0.50, reason="the paper's value is an error or a spread: a smaller one does not contradict it")),
    claim("kappa_propagation_max", "after E3", f"max shift of Eq. 6 under ±{params.kappa_perturbation:.0%} κ over the Part B grid",
          "0.021", shifts.max(), Bound("<=", 0.021, reason="the paper's value is an error or a spread: a smaller one does not contradict it")),
    claim("kappa_propagation_median", "after E3", f"median shift of Eq. 6 under ±{params.kappa_perturbation:.0%} κ",
          "0.003", np.median(shifts), Bound("<=", 0.003, reason="the paper's value is an error or a spread: a smaller one does not contradict it")),
    claim("ceiling_propagation", "after E3", f"max shift of the ceiling (Eq. 7) under ±{params.kappa_perturbation:.0%} κ, κ in [0.25, 8]",
          "0.041", ceiling_shift, Bound("<=", 0.041, reason="the paper's value is an error or a spread: a smaller one does not contradict it")),
    claim("alpha_star_shift", "after E3; Eq. 11", "shift of α* from the median cross-fitted ŝ error", "< 1%",
          alpha_star_shift, Bound("<", 0.01)),
]
claims_table, claims_file = run.record_claims(claims)
plotting.save_table(claims_table, "claims",
                    "E03 ground truth (paper 000, E3 Parts A-D and propagation): the paper's value beside the measured value.",
                    [claims_file])

# %% [markdown]
# Each row gives the paper's value, the measured value and its outcome; a `fails` outcome marks a
# number not reproduced here, reported as measured. The propagation shifts depend on the noise scale
# σ_w of the Part B grid, which the paper does not state.

# %%
show_claims(claims_table, params.profile)
