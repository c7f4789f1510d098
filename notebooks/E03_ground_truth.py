# %% [markdown]
# # E03 · Ground truth — closed forms, probes and estimators where s, κ, d_B and α are known
#
# **Paper 000**, Sec. VI (experiment E3, Table VI, Fig. 3) and the propagation checks after it.
# Part A: the purity law (Eq. 8) against the oracle over 35 (s, α) settings, and learned probes never
# above it. Part B: the chordal formula (Eq. 6) on spheres and the flat-vs-curved saturation of
# Fig. 3b. Part C: the detection rate of the full protocol (grouped CV × seeds, 1.4·σ₀ test) over
# (α, n) against α\*(n) and its −½ slope. Part D: estimator calibration — κ̂ (sagitta; through the origin, the
# project's reading of the paper's fit, and the project's floor-corrected fit, over ambient noise levels the paper
# does not state), d̂ (MLE and
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

from lib import config, plotting, results, stats, uncertainty
from lib.bias_probes import claim_cells, figures, groundtruth, simulate, theory
from lib.claims import Bound, Point, Range, claim, show_claims

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
kappa_noise = [0.0, 0.005, 0.01, 0.02]  # Part D: ambient noise levels for κ̂ (paper 000 states none; the project's levels)
kappa_claim_noise = 0.01  # Part D: the noise level the noisy κ̂ claims read (one of kappa_noise; a level the project chose, the paper states no σ)
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
if params.kappa_claim_noise not in params.kappa_noise:
    raise config.ConfigError(f"kappa_claim_noise={params.kappa_claim_noise!r} is not one of kappa_noise={params.kappa_noise}")
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
kappas = sorted(curvature.kappa.unique())
ax_k.set_xticks(kappas, [f"{k:g}" for k in kappas])
ax_k.tick_params(axis="x", which="minor", labelbottom=False)
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
noisy = curvature[curvature.noise == params.kappa_claim_noise]
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
#
# The oracle purity and chord tables are the same simulations as 00_theory_checks' (`results.shared_table`): the
# claims on them are counted there and cited here. Kinds: the paper's E3 numbers and statements are `paper` claims;
# checks that hold by construction of a generator are `sanity`; the project's own estimator (the floor-corrected
# κ̂), noise levels the paper does not state, and the propagation shifts at the project's σ_w are `extension`.

# %%
tol_z = params.tolerance_z


purity_z = (oracle.error.abs() / oracle.mc_se.where(oracle.mc_se > 0)).max()
flat, curved_last = chord[chord.kappa == 0].sort_values("r"), chord[chord.kappa > 0].sort_values("r").groupby("kappa").tail(1)
chord_share = (curved_last.chord_theory * np.sqrt(curved_last.kappa) / 2).min()  # chord / diameter at the largest r
largest_linear = linear.intrinsic_dim.iloc[-1]
fitted_n = boundary.dropna(subset=["alpha_empirical"]).n
detect_step = uncertainty.grid_step(params.detect_alphas, boundary.alpha_star_exact)
origin_noisy, floor_noisy = noisy[noisy.fit == "origin"], noisy[noisy.fit == "floor"]
noise_text = (f"σ = {params.kappa_claim_noise:g} (the kappa_claim_noise parameter, a level the project chose: paper 000 "
              "states no ambient noise for its spheres)")
as_accurate = ("at a setting the paper does not state, the test is whether the error stays within what the paper "
               "reports for its estimator: a smaller error does not contradict it")
table_vi = f"d = {params.separation_dim}, n = {params.separation_n}, s = 0"
one_swap_reason = (f"'growing with d' is a direction: a strictly monotone drift has ρ = −1; −0.9 admits one adjacent "
                   f"swap among the {len(linear)} dimensions (ρ = {-uncertainty.one_swap_spearman(len(linear)):.2f}) for "
                   "Monte Carlo noise in d̂, whose s.e. is not logged")
claims = [
    # Part A
    claim("purity_oracle_max_error", "Sec. VI (E3-A, Table VI); Thm 3, Eq. 8",
          "largest |oracle AUC − Eq. 8| over the (s, α) settings of the purity generator (the shared 00_theory_checks "
          "simulation)",
          "the mixture law (8) matches empirical AUC over $35$ $(s,\\alpha)$ settings to a maximum absolute error "
          "below $0.006$", oracle.error.abs().max(),
          Bound("<", 0.006, reason="the paper states an upper limit ('a maximum absolute error below 0.006')"),
          cites="00_theory_checks:purity_law_mc"),
    claim("purity_oracle_z", "Thm 3, Eq. 8",
          "largest |oracle AUC − Eq. 8| in Monte Carlo s.e. over the (s, α) settings (the shared 00_theory_checks "
          "simulation)",
          "The best achievable AUC at purity $\\alpha$ is exactly $\\alpha^{2}\\Phi(\\frac{s}{\\sqrt{2}})+2\\alpha"
          "(1-\\alpha)\\Phi(\\frac{s}{2\\sqrt{2}})+\\frac{(1-\\alpha)^{2}}{2}$", purity_z,
          Bound("<=", tol_z, reason=uncertainty.z_tolerance_reason(tol_z, oracle.mc_se.gt(0).sum())), cites="00_theory_checks:purity_law_z"),
    claim("learned_below_bound", "Sec. VI (E3-A)",
          f"largest (learned probe's grouped-CV AUC − Eq. 8)/s.e. over the (s, α) settings, d = {params.probe_dim}, "
          f"n = {params.probe_n} (true by construction: the generator's likelihood ratio is monotone in the projection "
          "on Δ, so Eq. 8 is its Bayes AUC and no probe can exceed it beyond noise)",
          "learned probes never exceed the bound beyond Monte-Carlo noise—consistent with (8) being the exact maximum",
          learned.excess_z.max(), Bound("<=", tol_z, reason=uncertainty.z_tolerance_reason(tol_z, learned.excess_z.notna().sum())),
          kind="sanity"),
    # Part B
    claim("chordal_max_error", "Sec. VI (E3-B, Table VI); Thm 2, Eq. 6",
          "largest |oracle AUC − Φ(chord/(√2·σ_w))| over the (κ, r) grid (the shared 00_theory_checks simulation)",
          "the chordal formula (6) matches oracle AUC to within $0.013$ across a $(\\kappa,r)$ grid",
          chord.error.abs().max(), Bound("<=", 0.013, reason="the paper states an upper limit ('to within 0.013')"),
          cites="00_theory_checks:chordal_auc_mc"),
    claim("flat_keeps_rising", "Sec. VI (E3-B); Cor 1; Fig. 3b",
          "smallest step of the flat (κ = 0) oracle AUC between neighbouring r (the shared 00_theory_checks "
          "simulation; true by construction: on the flat generator the chord is r itself)",
          "flat-manifold AUC keeps rising with geodesic separation while curved-manifold AUC saturates at the "
          "ceiling (Fig. 3b)", flat.mc_auc.diff().min(), Bound(">", 0, reason="the paper states a direction"),
          kind="sanity", cites="00_theory_checks:flat_keeps_rising"),
    claim("curved_saturates", "Sec. VI (E3-B); Cor 1, Eq. 7; Fig. 3b",
          "largest |ceiling − curved oracle AUC|/s.e. at the largest r of each κ > 0 (true by construction: there the "
          f"grid's chord is already {chord_share:.1%} or more of the sphere's diameter 2/√κ, so Eq. 6 is the ceiling "
          "Eq. 7; Eq. 6 itself is tested in 00_theory_checks:chordal_auc_mc)",
          "curved-manifold AUC saturates at the ceiling (Fig. 3b)",
          ((curved_last.ceiling - curved_last.mc_auc).abs() / curved_last.mc_se).max(),
          Bound("<=", tol_z, reason=uncertainty.z_tolerance_reason(tol_z, len(curved_last))), kind="sanity"),
    # Part C
    claim("boundary_slope", "Thm 4 (after Eq. 11); E3-C",
          f"log–log slope over n of the empirical {1 - params.gamma:.0%}-detection boundary of the full protocol "
          f"(learned probe, grouped 5-fold × 5 seeds, 1.4·σ₀ test) at the exact s = {params.detect_s:g}, against −½ "
          "within 3 Monte Carlo s.e. (delta method: each crossing's s.e. from the logged detection-rate s.e. of the two "
          "cells it interpolates between)",
          "E2 (real models) and E3 Part C (synthetic, where $s$ is exact) test the boundary and its $-1/2$ slope",
          boundary_slope,
          Point(-0.5, se=uncertainty.crossing_slope_se(detect, "detection_rate", "detection_rate_se", 1 - params.gamma, fitted_n),
                k=3)),
    claim("boundary_vs_alpha_star", "Sec. I (validation summary); E3-C; Eq. 11",
          "median over n of the empirical boundary / α*(n), α* the exact root of the power condition at the test's "
          f"1.4·σ₀ and the exact s, within one grid step of a ratio 1 (the detection purities bracketing α*(n) are up "
          f"to a factor {detect_step:.2f} apart, the resolution at which the grid locates the boundary)",
          "the empirical detection boundary tracks $\\alpha^{*}(n)$",
          (fitted.alpha_empirical / fitted.alpha_star_exact).median(), Range(1 / detect_step, detect_step)),
    # Part D: curvature κ̂ (sagitta)
    claim("kappa_median_error", "Sec. VI (E3-D)",
          f"median |relative error| of κ̂ (the project's reading of the paper's sagitta fit: residuals on squared "
          f"tangential radius through the origin) over κ in {list(params.kappa_values)} on noise-free spheres, "
          "against the paper's 0.17 within 3 Monte Carlo s.e. (the logged κ̂ s.e. of the median cell, over its "
          "estimator_reps manifolds; paper 000 states no ambient noise)",
          "$\\hat{\\kappa}$ recovers curvature with median relative error $0.17$ (max $0.28$)",
          clean.relative_error.abs().median(), Point(0.17, se=claim_cells.relative_kappa_se(clean, "relative_error", "median"), k=3)),
    claim("kappa_max_error", "Sec. VI (E3-D)",
          "largest |relative error| of κ̂ (the same fit) over κ on noise-free spheres, against the paper's 0.28 within "
          "3 Monte Carlo s.e. (the logged κ̂ s.e. of that cell)",
          "$\\hat{\\kappa}$ recovers curvature with median relative error $0.17$ (max $0.28$)",
          clean.relative_error.abs().max(), Point(0.28, se=claim_cells.relative_kappa_se(clean, "relative_error", "max"), k=3)),
    claim("kappa_ordering", "Sec. VI (E3-D)", "Spearman ρ of κ̂ with κ on noise-free spheres (ρ = 1: ordering correct)",
          "correct ordering across $\\kappa\\in[0.25,4]$", spearmanr(clean.kappa, clean.kappa_hat).statistic,
          Bound(">=", 0.999, reason="ρ cannot exceed 1: the lower bound is the two-sided test of ρ = 1, up to float "
                "rounding")),
    claim("kappa_noisy_origin", "Sec. VI (E3-D), at a noise level the paper does not state",
          f"median |relative error| of κ̂ (the same origin fit) at ambient noise {noise_text}: the noise floor reads "
          "as curvature", "$\\hat{\\kappa}$ recovers curvature with median relative error $0.17$",
          origin_noisy.relative_error.abs().median(), Bound("<=", 0.17, reason=as_accurate), kind="extension"),
    claim("kappa_noisy_floor", "Sec. VI (E3-D); the project's floor-corrected fit",
          f"median |relative error| of the project's floor-corrected κ̂ (h² on ‖t‖⁴ with an intercept) at {noise_text}",
          "$\\hat{\\kappa}$ recovers curvature with median relative error $0.17$",
          floor_noisy.relative_error.abs().median(),
          Bound("<=", 0.17, reason="the floor-corrected fit is the project's estimator: the test is that it is at "
                "least as accurate as the paper reports its own (median 0.17)"), kind="extension"),
    claim("kappa_noisy_floor_max", "Sec. VI (E3-D); the project's floor-corrected fit",
          f"largest |relative error| of the project's floor-corrected κ̂ at {noise_text}",
          "$\\hat{\\kappa}$ recovers curvature with median relative error $0.17$ (max $0.28$)",
          floor_noisy.relative_error.abs().max(),
          Bound("<=", 0.28, reason="the floor-corrected fit is the project's estimator: the test is that it is at "
                "least as accurate as the paper reports its own (max 0.28)"), kind="extension"),
    # Part D: intrinsic dimension d̂
    claim("dimension_spheres", "Sec. VI (E3-D)",
          f"median |relative error| of d̂ (Levina–Bickel MLE, MacKay–Ghahramani) on spheres of intrinsic dimension "
          f"{list(params.sphere_dims)} in D = {params.manifold_ambient_dim}, n = {params.manifold_n}",
          "$\\hat{d}_{B}$ has median relative error $\\approx 0.15$ on spheres", spheres.mle_relative_error.abs().median(),
          Point(0.15, tol=0.025, reason="the paper marks 0.15 approximate ('≈'): read as 0.15 to the nearest 0.05, so "
                "±0.025; no s.e. of d̂ is logged (dimension_calibration logs means over estimator_reps manifolds)")),
    claim("dimension_linear_largest", "Sec. VI (E3-D)",
          f"relative error of d̂ (MLE) on the linear manifold of intrinsic dimension {largest_linear} in "
          f"D = {params.manifold_ambient_dim}, n = {params.manifold_n}",
          "the known MLE underestimation growing with $d$ (up to $\\approx 40\\%$ at $d{=}25$ on linear manifolds)",
          linear.mle_relative_error.iloc[-1],
          Point(-0.40, tol=0.05, reason="the paper marks 40% approximate ('≈', whole tens of percent): read as −0.40 "
                "to the nearest 0.1, so ±0.05; no s.e. of d̂ is logged"),
          not_measured="" if largest_linear == 25 else f"the profile's largest linear dimension is {largest_linear}, "
          "not the paper's d = 25"),
    claim("dimension_underestimation_grows", "Sec. VI (E3-D)",
          "Spearman ρ of the MLE's relative error with d on linear manifolds",
          "the known MLE underestimation growing with $d$", spearmanr(linear.intrinsic_dim, linear.mle_relative_error).statistic,
          Bound("<=", -0.9, reason=one_swap_reason)),
    claim("twonn_same_drift", "Sec. VI (E3-D)", "Spearman ρ of the Two-NN relative error with d on linear manifolds",
          "the Two-NN cross-check [28] shows the same downward drift",
          spearmanr(linear.intrinsic_dim, linear.twonn_relative_error).statistic,
          Bound("<=", -0.9, reason=one_swap_reason)),
    # Part D: separation ŝ (Table VI)
    claim("separation_naive_null", "Sec. V-F; Table VI",
          f"mean naive plug-in ŝ over {params.separation_reps} samples at {table_vi}, within 3 Monte Carlo s.e.",
          "at $d=768$, $n=300$, true $s=0$, the naive estimate is $3.24$", null_separation.naive.mean(),
          Point(3.24, se=float(null_separation.naive_se.mean()), k=3),
          not_measured="" if (params.separation_dim, params.separation_n) == (768, 300) else
          f"the profile's d = {params.separation_dim}, n = {params.separation_n} is not the paper's d = 768, n = 300"),
    claim("separation_crossfit_null", "Sec. V-F; Table VI",
          f"mean cross-fitted ŝ over {params.separation_reps} samples at {table_vi}, within 3 Monte Carlo s.e.",
          "the naive estimate is $3.24$ while the cross-fitted one is $0.50$ (Table VI)", null_separation.crossfit.mean(),
          Point(0.50, se=float(null_separation.crossfit_se.mean()), k=3),
          not_measured="" if (params.separation_dim, params.separation_n) == (768, 300) else
          f"the profile's d = {params.separation_dim}, n = {params.separation_n} is not the paper's d = 768, n = 300"),
    # Propagation (closed-form arithmetic on the project's Part B grid and σ_w)
    claim("kappa_propagation_max", "Sec. VI (propagation checks)",
          f"largest |shift| of Eq. 6 when κ is moved by ±{params.kappa_perturbation:.0%} over the Part B (κ > 0, r) grid "
          f"at σ_w = {params.chord_sigma_w:g} (closed-form arithmetic at a grid and noise scale the project chose: the "
          "paper states neither)",
          "perturbing $\\kappa$ by the $\\pm 30\\%$ worst-case bias of the sagitta estimator moves the chordal "
          "prediction (6) by at most $0.021$ AUC (median $0.003$) over the E3-B grid", shifts.max(),
          Point(0.021, tol=0.0005, reason="the paper prints the largest shift as 0.021 (three decimals), so ±0.0005"),
          kind="extension"),
    claim("kappa_propagation_median", "Sec. VI (propagation checks)",
          f"median |shift| of Eq. 6 under ±{params.kappa_perturbation:.0%} κ over the same grid and σ_w",
          "moves the chordal prediction (6) by at most $0.021$ AUC (median $0.003$) over the E3-B grid",
          np.median(shifts),
          Point(0.003, tol=0.0005, reason="the paper prints the median shift as 0.003 (three decimals), so ±0.0005"),
          kind="extension"),
    claim("ceiling_propagation", "Sec. VI (propagation checks)",
          f"largest |shift| of the ceiling Eq. 7 under ±{params.kappa_perturbation:.0%} κ over κ in "
          f"{list(params.ceiling_kappas)} at σ_w = {params.chord_sigma_w:g} (closed-form arithmetic at the project's σ_w)",
          "the ceiling (7) by at most $0.041$ over $\\kappa\\in[0.25,8]$ at the same noise scale", ceiling_shift,
          Point(0.041, tol=0.0005, reason="the paper prints the largest shift as 0.041 (three decimals), so ±0.0005"),
          kind="extension"),
    claim("alpha_star_shift", "Sec. VI (propagation checks); Eq. 11",
          f"relative shift of α* (∝ 1/s exactly) implied by the median |relative error| of the cross-fitted ŝ over the "
          f"true s > 0 of Part D (d = {params.separation_dim}, n = {params.separation_n})",
          "the median cross-fitted calibration error of E3-D shifts $\\alpha^{*}$ by under $1\\%$", alpha_star_shift,
          Bound("<", 0.01, reason="the paper states an upper limit ('by under 1%')")),
]
claims_table, claims_file = run.record_claims(claims)
plotting.save_table(claims_table, "claims",
                    "E03 ground truth (paper 000, E3 Parts A-D and propagation): the paper's value beside the measured value.",
                    [claims_file])

# %% [markdown]
# Each row gives the paper's words, the measured value and its outcome; a `fails` outcome marks a number not
# reproduced here, reported as measured. The propagation shifts depend on the noise scale σ_w of the Part B grid,
# which the paper does not state, so they are extensions; so is every κ̂ claim at an ambient noise level above 0,
# a level paper 000 does not state either.

# %%
show_claims(claims_table, params.profile)
