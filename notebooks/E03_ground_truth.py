# %% [markdown]
# # E03 · Ground truth — closed forms, probes and estimators where s, κ, d_B and α are known
#
# **Paper 000**, Sec. VI (experiment E3, Table VI, Fig. 3) and the propagation checks after it.
# Part A: the purity law (Eq. 8) against the oracle over 35 (s, α) settings, and learned probes never
# above it. Part B: the chordal formula (Eq. 6) on spheres and the flat-vs-curved saturation of
# Fig. 3b. Part C: the detection rate of the full protocol (grouped CV × seeds, 1.4·σ₀ test) over
# (α, n) against α\*(n) and its −½ slope. Part D: estimator calibration — κ̂ (sagitta; through the origin, the
# project's reading of the paper's fit, and the project's floor-corrected fit, over ambient noise levels the paper
# does not state), d̂ (MLE and Two-NN) on spheres and linear manifolds at several sample sizes, ŝ naive vs
# cross-fitted per sample — and what their errors do to the theory's predictions.
#
# Writes: `purity_law`, `chord_saturation`, `detection_grid`, `estimator_calibration` (figures),
# `estimators` (table, the Table VI equivalent), the per-replicate `dimension_replicates` and `separation_samples`,
# `propagation_by_noise`, `curvature_noise_match`, `claims`.

# %%
import numpy as np
import pandas as pd
from IPython.display import display
from matplotlib import pyplot as plt
from scipy.stats import spearmanr

from lib import claim_catalogue, claim_power, config, plotting, results, stats, uncertainty
from lib.bias_probes import claim_cells, estimator_checks, figures, groundtruth, simulate, theory
from lib.claims import Evidence, show_claims

# %% tags=["parameters"]
profile = "default"  # choose a profile without editing this file: python -m lib run E03 --profile smoke|default|paper, or the Lab's copy lab/<profile>/E03_ground_truth.ipynb
recompute = True  # compute missing or stale results; false: only redraw figures from logged results
seed = 0  # root seed; every cell draws its own child seed
n_jobs = -1  # worker processes (-1: this process's share of cores); results do not depend on it
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
separation_reps = 1000  # Part D: samples per separation
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
# d̂ per manifold at each sample size (the paper states none for E3-D): the claims read n = manifold_n, the smaller
# sizes are the diagnostic of how the MLE's bias moves with n. Spheres span the linear grid's dimensions too, the
# range over which the paper reports its d̂ calibration (up to d = 25).
dimension_sizes = sorted({params.manifold_n // 8, params.manifold_n // 4, params.manifold_n // 2, params.manifold_n})
dimension_reps, dimension_reps_file = run.table(
    "dimension_replicates",
    lambda: pd.concat([
        estimator_checks.dimension_replicates(manifold, dims, params.manifold_ambient_dim, dimension_sizes,
                                              params.estimator_reps, **common)
        for manifold, dims in (("linear", params.linear_dims),
                               ("sphere", sorted({*params.sphere_dims, *params.linear_dims})))
    ], ignore_index=True),
)
dimension_by_n, dimension_file = run.table("dimension_calibration",
                                           lambda: estimator_checks.dimension_summary(dimension_reps))
dimension = dimension_by_n[dimension_by_n.n == params.manifold_n]
separation_draws, separation_draws_file = run.table(
    "separation_samples",
    lambda: estimator_checks.separation_samples(params.separation_s, params.separation_dim, params.separation_n,
                                                params.separation_reps, **common),
)
separation, separation_file = run.table("separation_calibration",
                                        lambda: estimator_checks.separation_summary(separation_draws))
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
ax_d.set(xlabel="d_B", ylabel="d̂", title=f"intrinsic dimension, n = {params.manifold_n}")
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
#
# The shifts of Eq. 6 and Eq. 7 under a ±30% κ error are closed forms on the Part B grid; the paper states neither
# its E3-B grid nor its σ_w, so the table recomputes them over a range of noise scales beside the run's.

# %%
grid = chord[chord.kappa > 0]
propagation, propagation_file = run.table(
    "propagation_by_noise",
    lambda: estimator_checks.propagation_by_noise(grid.kappa, grid.r, params.ceiling_kappas, params.chord_sigma_w,
                                                  params.kappa_perturbation),
)
at_run = propagation[propagation.run].iloc[0]
alpha_star_shift, alpha_star_shift_se = estimator_checks.alpha_star_shift(separation)
clean = curvature[(curvature.noise == 0) & (curvature.fit == "origin")]
noisy = curvature[curvature.noise == params.kappa_claim_noise]
noise_sweep = curvature.assign(abs_error=curvature.relative_error.abs()).groupby(["noise", "fit"]).abs_error.agg(
    ["median", "max"]).reset_index()
display(propagation, noise_sweep)
linear = dimension[dimension.manifold == "linear"].sort_values("intrinsic_dim")
spheres = dimension[(dimension.manifold == "sphere") & dimension.intrinsic_dim.isin(params.linear_dims)]
null_separation = separation[separation.s == 0]
summary = pd.DataFrame({
    "estimator": ["κ̂ sagitta, median |relative error| (noise-free spheres)", "d̂ MLE, median |relative error| (spheres)",
                  "d̂ MLE, relative error (linear, largest d)", "d̂ Two-NN, relative error (linear, largest d)",
                  "ŝ naive (s = 0)", "ŝ cross-fitted (s = 0)"],
    "claim": ["kappa_median_error", "dimension_spheres", "dimension_linear_largest", "twonn_same_drift",
              "separation_naive_null", "separation_crossfit_null"],
    "measured": [clean.relative_error.abs().median(), spheres.mle_relative_error.abs().median(),
                 linear.mle_relative_error.iloc[-1], linear.twonn_relative_error.iloc[-1],
                 null_separation.naive.mean(), null_separation.crossfit.mean()],
})
summary, summary_file = run.table("estimators", lambda: summary)
plotting.save_table(summary.round(4), "estimators",
                    "Estimator calibration summary (paper 000, E3 Part D, Table VI equivalent); the paper's values "
                    "are in the claims table beside each claim.", [summary_file])

# %% [markdown]
# ## κ̂ at the noise level matched to the paper's median
#
# Paper 000 reports κ̂'s median (0.17) and largest (0.28) relative error from one calibration, at an ambient noise it
# does not state. The origin fit is calibrated again at σ*, the noise at which its median over κ is the paper's
# (bisection between the logged levels that bracket it, on the same spheres), and at σ* ± 10%: the largest error at
# σ* is what an unstated noise would make of the paper's second number (the mechanism claim `kappa_noise_pair`).

# %%
catalogue = claim_catalogue.load(params.notebook)
matched, matched_file = run.table(
    "curvature_noise_match",
    lambda: estimator_checks.noise_matched_calibration(curvature, catalogue["kappa_median_error"].test["point"],
                                                       **common),
)
pair = estimator_checks.noise_pair(matched)
display(matched)
plotting.save_table(matched.round(5), "curvature_noise_match",
                    f"κ̂ by the origin (sagitta) fit at σ*, the ambient noise at which its median |relative error| over "
                    f"κ is the paper's {catalogue['kappa_median_error'].test['point']:g}, and at σ* ± 10% (paper 000, "
                    "E3 Part D; the paper states no noise level).",
                    [curvature_file, matched_file])

# %% [markdown]
# ## Claims — paper value beside measured value
#
# The claims, their tests and their power are pre-registered in `lib/bias_probes/claims/E03_ground_truth.yaml`. The
# oracle purity and chord tables are the same simulations as 00_theory_checks' (`results.shared_table`): the claims
# on them are counted there and cited here. Kinds: the paper's E3 numbers and statements are `paper` claims; checks
# that hold by construction of a generator are `sanity`; the project's own estimator (the floor-corrected κ̂), noise
# levels the paper does not state, and the propagation shifts at the project's σ_w are `extension`. A failing
# estimator claim names the logged diagnostic that accounts for it: κ̂'s error against ambient noise
# (`curvature_calibration`), d̂'s against the sample size (`dimension_calibration`), single-sample cross-fitted ŝ
# (`separation_samples`), the propagation shifts against σ_w (`propagation_by_noise`).

# %%
purity_z = (oracle.error.abs() / oracle.mc_se.where(oracle.mc_se > 0)).max()
flat, curved_last = chord[chord.kappa == 0].sort_values("r"), chord[chord.kappa > 0].sort_values("r").groupby("kappa").tail(1)
chord_share = (curved_last.chord_theory * np.sqrt(curved_last.kappa) / 2).min()  # chord / diameter at the largest r
ratios = fitted.alpha_empirical / fitted.alpha_star_exact
detect_step = uncertainty.grid_step(params.detect_alphas, boundary.alpha_star_exact)
origin_noisy, floor_noisy = noisy[noisy.fit == "origin"], noisy[noisy.fit == "floor"]
one_manifold = ("" if params.estimator_reps > 1 else
                "one manifold per setting (estimator_reps = 1): the estimator's s.e. is not estimable")
largest_linear = int(linear.intrinsic_dim.iloc[-1])
sphere_errors_by_n = estimator_checks.median_abs_error_by_n(dimension_by_n, "sphere", params.linear_dims)
linear_sizes = dimension_by_n[(dimension_by_n.manifold == "linear")
                              & (dimension_by_n.intrinsic_dim == largest_linear)].set_index("n")
linear_by_n = linear_sizes.mle_relative_error
table_vi = (params.separation_dim, params.separation_n) == (768, 300)
not_table_vi = "" if table_vi else ("the paper states this value for Table VI's setting (d = 768 dimensions, n = 300 "
                                    f"texts per sample), and this profile samples d = {params.separation_dim} "
                                    f"dimensions and n = {params.separation_n} texts")
noise_note = f"σ = {params.kappa_claim_noise:g}, {len(params.kappa_values)} curvatures"
propagation_note = f"{len(grid)} (κ, r) cells, σ_w = {params.chord_sigma_w:g}, ±{params.kappa_perturbation:.0%}"
claims_table, claims_file = run.record_claims({
    # Part A
    "purity_oracle_max_error": Evidence(oracle.error.abs().max()),
    "purity_oracle_z": Evidence(purity_z),
    "learned_below_bound": Evidence(
        learned.excess_z.max(), note=f"{int(learned.excess_z.notna().sum())} settings, d = {params.probe_dim}, "
                                     f"n = {params.probe_n}"),
    # Part B
    "chordal_max_error": Evidence(chord.error.abs().max()),
    "flat_keeps_rising": Evidence(flat.mc_auc.diff().min()),
    "curved_saturates": Evidence(
        ((curved_last.ceiling - curved_last.mc_auc).abs() / curved_last.mc_se).max(),
        note=f"{len(curved_last)} curvatures; at the largest r the chord is {chord_share:.1%} or more of the diameter"),
    # Part C
    "boundary_slope": Evidence(
        boundary_slope, se=uncertainty.crossing_slope_se(detect, "detection_rate", "detection_rate_se",
                                                         1 - params.gamma, fitted.n),
        undefined="" if len(fitted) >= 2 else "fewer than two audit sizes cross 80% detection inside the purity "
                                                 "grid, so the boundary has no slope",
        note=f"s = {params.detect_s:g}, {len(fitted)} audit sizes, {params.detect_reps} audits per cell"),
    "boundary_vs_alpha_star": Evidence(
        ratios.median() if len(ratios) else None, se=uncertainty.median_se(ratios),
        undefined="" if len(fitted) >= 2 else "fewer than two audit sizes cross 80% detection inside the purity "
                                                 "grid",
        note=f"{len(fitted)} audit sizes; the run's purity grid brackets α*(n) within a factor {detect_step:.2f}"),
    # Part D: curvature κ̂
    "kappa_median_error": Evidence(
        clean.relative_error.abs().median(), se=claim_cells.relative_kappa_se(clean, "relative_error", "median"),
        undefined=one_manifold,
        mechanism=estimator_checks.curvature_noise_mechanism(
            curvature, "median", catalogue["kappa_median_error"].test["point"], curvature_file.name),
        note=f"{len(clean)} curvatures, {params.estimator_reps} manifolds each"),
    "kappa_max_error": Evidence(
        clean.relative_error.abs().max(), se=claim_cells.relative_kappa_se(clean, "relative_error", "max"),
        undefined=one_manifold,
        mechanism=estimator_checks.curvature_noise_mechanism(
            curvature, "max", catalogue["kappa_max_error"].test["point"], curvature_file.name),
        note=f"{len(clean)} curvatures, {params.estimator_reps} manifolds each"),
    "kappa_noise_pair": Evidence(
        pair.value, se=pair.se, undefined=one_manifold or pair.undefined,
        note=f"σ* = {pair.noise:.5f}, where the median is {pair.median:.3f}; {len(clean)} curvatures, "
             f"{params.estimator_reps} manifolds each"),
    "kappa_ordering": Evidence(
        spearmanr(clean.kappa, clean.kappa_hat).statistic, undefined=one_manifold,
        if_paper=claim_power.spearman_draws(clean.kappa, clean.kappa, clean.kappa_hat_se),
        if_null=claim_power.independent_spearman_draws(len(clean), seed=1), note=f"{len(clean)} curvatures"),
    "kappa_noisy_origin": Evidence(
        origin_noisy.relative_error.abs().median(),
        se=claim_cells.relative_kappa_se(origin_noisy, "relative_error", "median"), undefined=one_manifold,
        mechanism=estimator_checks.noise_floor_mechanism(
            curvature, params.kappa_claim_noise, "median", catalogue["kappa_noisy_origin"].test["value"],
            curvature_file.name),
        note=noise_note),
    "kappa_noisy_floor": Evidence(
        floor_noisy.relative_error.abs().median(),
        se=claim_cells.relative_kappa_se(floor_noisy, "relative_error", "median"), undefined=one_manifold,
        note=noise_note),
    "kappa_noisy_floor_max": Evidence(
        floor_noisy.relative_error.abs().max(),
        se=claim_cells.relative_kappa_se(floor_noisy, "relative_error", "max"), undefined=one_manifold,
        note=noise_note),
    # Part D: intrinsic dimension d̂
    "dimension_spheres": Evidence(
        spheres.mle_relative_error.abs().median(),
        se=claim_cells.median_cell_se(spheres.mle_relative_error.abs(), spheres.mle_relative_error_se),
        undefined=one_manifold,
        mechanism=estimator_checks.size_mechanism(
            sphere_errors_by_n, "the MLE's median |relative error| over the spheres",
            catalogue["dimension_spheres"].test["point"], catalogue["dimension_spheres"].test["tol"],
            dimension_file.name),
        note=f"spheres of d = {', '.join(map(str, spheres.intrinsic_dim))}, n = {params.manifold_n}, "
             f"{params.estimator_reps} manifolds each"),
    "dimension_linear_largest": Evidence(
        linear.mle_relative_error.iloc[-1], se=float(linear.mle_relative_error_se.iloc[-1]),
        settings={f"n = {int(n):,}": Evidence(row.mle_relative_error, se=float(row.mle_relative_error_se))
                  for n, row in linear_sizes.iterrows()},
        unstated="the number of points per manifold n in E3-D",
        undefined=one_manifold if largest_linear == 25 else
        f"the profile's largest linear dimension is {largest_linear}, not the paper's d = 25",
        mechanism=estimator_checks.size_mechanism(
            linear_by_n, f"the MLE's relative error at d = {largest_linear}",
            catalogue["dimension_linear_largest"].test["point"], catalogue["dimension_linear_largest"].test["tol"],
            dimension_file.name),
        note=f"n = {params.manifold_n}, {params.estimator_reps} manifolds"),
    "dimension_underestimation_grows": Evidence(
        spearmanr(linear.intrinsic_dim, linear.mle_relative_error).statistic, undefined=one_manifold,
        if_paper=claim_power.spearman_draws(linear.intrinsic_dim, linear.mle_relative_error,
                                            linear.mle_relative_error_se),
        if_null=claim_power.independent_spearman_draws(len(linear), seed=1),
        note=f"d = {', '.join(map(str, linear.intrinsic_dim))}"),
    "twonn_same_drift": Evidence(
        spearmanr(linear.intrinsic_dim, linear.twonn_relative_error).statistic, undefined=one_manifold,
        if_paper=claim_power.spearman_draws(linear.intrinsic_dim, linear.twonn_relative_error,
                                            linear.twonn_relative_error_se),
        if_null=claim_power.independent_spearman_draws(len(linear), seed=1),
        note=f"d = {', '.join(map(str, linear.intrinsic_dim))}"),
    # Part D: separation ŝ (Table VI)
    "separation_naive_null": Evidence(
        null_separation.naive.mean() if len(null_separation) else None,
        se=float(null_separation.naive_se.mean()) if len(null_separation) else None, undefined=not_table_vi,
        note=f"{params.separation_reps} samples"),
    "separation_crossfit_null": Evidence(
        null_separation.crossfit.mean() if len(null_separation) else None,
        se=float(null_separation.crossfit_se.mean()) if len(null_separation) else None, undefined=not_table_vi,
        mechanism=estimator_checks.crossfit_null_mechanism(
            separation_draws, catalogue["separation_crossfit_null"].test["point"], separation_draws_file.name),
        settings={how: Evidence(value, se=se) for how, (value, se) in estimator_checks.aggregations(
            separation_draws[separation_draws.s == 0].crossfit).items()},
        unstated="how Table VI aggregates the samples' ŝ", note=f"{params.separation_reps} samples"),
    # Propagation
    "kappa_propagation_max": Evidence(
        at_run.max_shift, note=propagation_note,
        mechanism=estimator_checks.propagation_mechanism(
            propagation, "max_shift", catalogue["kappa_propagation_max"].test["point"],
            catalogue["kappa_propagation_max"].test["tol"], "the run's Part B (κ, r) cells", propagation_file.name)),
    "kappa_propagation_median": Evidence(
        at_run.median_shift, note=propagation_note,
        mechanism=estimator_checks.propagation_mechanism(
            propagation, "median_shift", catalogue["kappa_propagation_median"].test["point"],
            catalogue["kappa_propagation_median"].test["tol"], "the run's Part B (κ, r) cells",
            propagation_file.name)),
    "ceiling_propagation": Evidence(
        at_run.ceiling_shift, note=f"κ in {list(params.ceiling_kappas)}, σ_w = {params.chord_sigma_w:g}",
        mechanism=estimator_checks.propagation_mechanism(
            propagation, "ceiling_shift", catalogue["ceiling_propagation"].test["point"],
            catalogue["ceiling_propagation"].test["tol"], f"κ in {list(params.ceiling_kappas)}",
            propagation_file.name)),
    "alpha_star_shift": Evidence(
        alpha_star_shift, se=alpha_star_shift_se,
        undefined="" if params.separation_reps > 1 else "one sample per separation (separation_reps = 1): the "
                                                           "s.e. of ŝ's median relative error is not estimable",
        note=f"true s in {[s for s in params.separation_s if s > 0]}, d = {params.separation_dim}, "
             f"n = {params.separation_n}, {params.separation_reps} samples each"),
})
plotting.save_table(claims_table, "claims",
                    "E03 ground truth (paper 000, E3 Parts A-D and propagation): the paper's value beside the measured value.",
                    [claims_file])

# %% [markdown]
# Each row gives the paper's words, the measured value and its verdict. The propagation shifts depend on the noise
# scale σ_w and the grid of Part B, which the paper does not state, so they are extensions; so is every κ̂ claim at an
# ambient noise level above 0, a level paper 000 does not state either.

# %%
show_claims(claims_table, params.profile)
