# %% [markdown]
# # E06 · Scaling of the generalisation gap
#
# **Paper 000**, Theorem 1 (Eq. 2) and experiment E6: the generalisation gap of norm-bounded
# linear probes decays as n^−½ ("halving the audit's uncertainty requires quadrupling n"). Theorem 1
# bounds the worst case over a norm ball; a probe fitted inside the ball may generalise faster. On the
# purity generator at α = 0.3 this notebook measures (i) the train − held-out AUC gap of the paper's
# probe (standardised ℓ2 logistic, C = 1) and (ii) the worst-case gap over a norm ball, the quantity
# Theorem 1 bounds, each with its log–log slope, and draws the Theorem 1 bound beside them. On model
# features the same probe is trained on n texts at α = 0.3 from half the context cells and tested on
# the other half.
#
# With n < d the paper's probe interpolates on model features, so its AUC gap is not Theorem 1's
# quantity; the norm-bounded probe's ramp-loss gap is measured beside Eq. 2 at its own norm and the
# sample's radius. A last part runs the "double-edged sword" of Sec. IV on spheres: curvature shrinks
# the extrinsic radius, the bound's constant (better generalisation), while it shortens the chord
# (worse separability).
#
# Writes: `generalization_gap`, `model_generalization_gap`, `curvature_tradeoff` (figures),
# `bounded_probe_fits`, `bounded_probe_bound`, `curvature_geometry`, `claims`.

# %%
from functools import cache, partial

import numpy as np
from IPython.display import display
from matplotlib import pyplot as plt

from lib import config, plotting, results, stats, uncertainty
from lib.bias_probes import cell_draws, gap_scaling, groundtruth, model_audit, simulate, theory
from lib.claims import Evidence, show_claims

# %% tags=["parameters"]
profile = "default"  # choose a profile without editing this file: python -m lib run E06 --profile smoke|default|paper, or the Lab's copy lab/<profile>/E06_scaling.ipynb
recompute = True  # compute missing or stale results; false: only redraw figures from logged results
seed = 0  # root seed; every n draws its own child seed
n_jobs = -1  # worker processes (-1: this process's share of cores); results do not depend on it
models = ["minilm", "smollm2-135m"]  # model part: registry names, hub ids or local checkpoint folders
dimensions = ["gender", "race", "religion", "age"]  # model part: bias dimensions
layer = "mid"  # model part: hidden-state layer ("mid": ⌊L/2⌋, "last" or an index)
pooling = "mean"  # model part: token pooling
n_values = [50, 100, 200, 400, 800, 1600, 3200]  # training-set sizes
dim = 100  # feature dimension
s = 2.0  # Mahalanobis separation of the marked clusters
alpha = 0.3  # purity (the paper's E6 setting)
reps = 20  # probes fitted per n
n_test = 20000  # held-out texts for the test AUC and risk
reg = 1.0  # ℓ2 penalty per sample of the norm-bounded probe (C is 1/(reg·n))
model_n_values = [50, 100, 200, 400]  # model part: training sizes (half the cells train, half test)
model_draws = 5  # model part: cell splits per size
curvature_kappas = [0.0, 0.5, 1.0, 2.0, 4.0]  # curvature part: sphere curvatures κ (κ·r² ≤ π²), the reference first, the most curved last
curvature_r = 1.5  # curvature part: geodesic distance between the two clusters (needs √κ·r ≤ π)
curvature_tau = 0.5  # curvature part: intrinsic geodesic spread τ of each cluster
curvature_sigma_w = 0.1  # curvature part: ambient isotropic noise σ_w
curvature_n = 200  # curvature part: training size
curvature_dim = 10  # curvature part: ambient dimension
curvature_reps = 100  # curvature part: training samples per κ

# %%
params = config.load("E06_scaling", globals())
run = results.start(params)
plotting.use_style()
common = {"seed": params.seed, "n_jobs": params.n_jobs}

# built once, and only when a result has to be computed
pools = cache(partial(model_audit.model_pools, params.models, params.dimensions, params.layer, params.pooling))

# %%
auc_gap, auc_gap_file = run.table(
    "probe_auc_gap",
    lambda: groundtruth.probe_generalization_gap(
        params.n_values, params.dim, params.s, params.alpha, params.reps, params.n_test, **common
    ),
)
class_gap, class_gap_file = run.table(
    "norm_ball_gap",
    lambda: simulate.generalization_gap(
        params.n_values, params.dim, params.s, params.alpha, params.reg, params.reps, params.n_test, **common
    ),
)
auc_slope = simulate.loglog_slope(auc_gap.n, auc_gap.auc_gap.clip(lower=1e-12))
uniform_slope = simulate.loglog_slope(class_gap.n, class_gap.uniform_deviation)
display(auc_gap, class_gap)

# %%
fig, ax = plt.subplots(figsize=(5.5, 3.8))
ax.errorbar(auc_gap.n, auc_gap.auc_gap, yerr=2 * auc_gap.auc_gap_se, fmt="o-", color="C1",
            label=f"paper's probe: train − test AUC (slope {auc_slope:.2f})")
ax.plot(class_gap.n, class_gap.uniform_deviation, "s-", color="C0",
        label=f"worst case over ‖w‖ ≤ 1 (slope {uniform_slope:.2f})")
ax.plot(class_gap.n, class_gap.uniform_bound, "--", color="C0", label="its Theorem 1 bound 2ρ/√n")
ax.plot(auc_gap.n, auc_gap.auc_gap.iloc[0] * (auc_gap.n / auc_gap.n.iloc[0]) ** -0.5, ":", color="k",
        label="n^−½ reference")
ax.set(xscale="log", yscale="log", xlabel="training size n", ylabel="generalisation gap",
       title=f"α = {params.alpha:g}, s = {params.s:g}, d = {params.dim}")
ax.legend(fontsize=7)
plotting.save_figure(
    fig, "generalization_gap",
    "Generalisation gap against n at α = 0.3 (paper 000, Theorem 1, E6, synthetic part): train − held-out "
    "AUC of the paper's probe (±2 s.e.), the worst-case gap over the unit norm ball and its bound.",
    [auc_gap_file, class_gap_file],
)

# %% [markdown]
# ## On model features

# %%
model_gap, model_gap_file = run.table(
    "model_generalization_gap",
    lambda: model_audit.generalization_gap(
        pools(), params.model_n_values, params.alpha, params.model_draws, reg=params.reg, **common,
    ),
)
model_slopes = model_gap.groupby(["model", "dimension"]).apply(
    lambda rows: simulate.loglog_slope(rows.n, rows.auc_gap.clip(lower=1e-12)), include_groups=False,
).rename("auc_gap_slope")
display(model_slopes.to_frame(), model_gap[["model", "dimension", "n", "train_auc", "test_auc"]])

# %%
fig, ax = plt.subplots(figsize=(5.5, 3.8))
for (model, dim), rows in model_gap.groupby(["model", "dimension"]):
    ax.errorbar(rows.n, rows.auc_gap, yerr=2 * rows.auc_gap_se.fillna(0), fmt="o-", ms=3, label=f"{model}/{dim}")
ax.set(xscale="log", yscale="log", xlabel="training size n", ylabel="train − held-out AUC", title=f"α = {params.alpha:g}")
ax.legend(fontsize=6, ncol=2)
plotting.save_figure(
    fig, "model_generalization_gap",
    "Generalisation gap against n on model features at α = 0.3 (paper 000, E6): train − held-out-cells AUC of the "
    "paper's probe (±2 s.e. over cell splits).",
    [model_gap_file],
)

# %% [markdown]
# ### The norm-bounded probe against Eq. 2
#
# Theorem 1's class: a fixed ℓ2 penalty per sample (C = 1/(reg·n)) keeps ‖w‖ bounded as n grows. Each fit's
# ramp-loss gap on the held-out cells is set beside Eq. 2 at δ = .05 for the smallest ball holding every fit at that
# n, on the largest radius of the standardised training texts. A bound above 1 says nothing about the ramp loss,
# whose values lie in [0, 1].

# %%
fits, fits_file = run.table(
    "bounded_probe_fits",
    lambda: gap_scaling.bounded_probe_fits(pools(), params.model_n_values, params.alpha, params.model_draws,
                                           reg=params.reg, **common),
)
bound, bound_file = run.table("bounded_probe_bound", lambda: gap_scaling.bound_check(fits))
bounded_slopes = bound.groupby(["model", "dimension"]).apply(
    lambda rows: simulate.loglog_slope(rows.n, rows.ramp_gap.clip(lower=1e-12)), include_groups=False,
)
display(bound.round(4))
print(f"median log–log slope of the norm-bounded probe's gap: {bounded_slopes.median():.2f} (a fixed penalty per "
      "sample makes the fit stable, with expected gap O(1/n); Theorem 1's −½ is the worst case over the ball)")

# %% [markdown]
# ## Curvature: better generalisation, worse separability (Sec. IV, Theorems 1–2)
#
# Two clusters at fixed geodesic distance r and intrinsic spread τ on spheres of growing κ. The extrinsic
# radius ρ_B, the constant of Theorem 1's bound, shrinks (at most 1/√κ on the sphere), so the bound falls; whether
# the worst-case gap over the unit ball falls with it is measured beside the second moments that set it. The chord
# shrinks, so the AUC should fall (Eq. 6 with spread, derived in `theory.chordal_auc_spread`).

# %%
tradeoff, tradeoff_file = run.table(
    "curvature_tradeoff",
    lambda: simulate.curvature_tradeoff(
        params.curvature_kappas, params.curvature_r, params.curvature_tau, params.curvature_sigma_w,
        params.curvature_n, params.curvature_dim, params.reg, params.curvature_reps, params.n_test, **common,
    ),
)
display(tradeoff)
geometry, geometry_file = run.table(
    "curvature_geometry",
    lambda: gap_scaling.curvature_geometry(
        params.curvature_kappas, params.curvature_r, params.curvature_tau, params.curvature_sigma_w,
        params.curvature_n, params.curvature_dim, params.curvature_reps, seed=params.seed,
    ),
)
display(geometry)

# %%
fig, (ax_gap, ax_auc) = plt.subplots(1, 2, figsize=(9, 3.6))
ax_gap.errorbar(tradeoff.kappa, tradeoff.uniform_deviation, yerr=2 * tradeoff.uniform_deviation_se, fmt="o-",
                label="worst case over ‖w‖ ≤ 1")
ax_gap.plot(tradeoff.kappa, 2 * tradeoff.radius / np.sqrt(params.curvature_n), "--", label="its bound 2ρ/√n")
ax_gap.set(xlabel="curvature κ", ylabel="generalisation gap", yscale="log", title=f"n = {params.curvature_n}")
ax_gap.legend(fontsize=7)
ax_auc.errorbar(tradeoff.kappa, tradeoff.probe_auc, yerr=2 * tradeoff.probe_auc_se, fmt="o", label="fitted probe")
ax_auc.plot(tradeoff.kappa, tradeoff.chordal_auc, "-", label="Eq. 6 with spread τ")
ax_auc.set(xlabel="curvature κ", ylabel="test AUC", title=f"r = {params.curvature_r:g}, τ = {params.curvature_tau:g}")
ax_auc.legend(fontsize=7)
plotting.save_figure(
    fig, "curvature_tradeoff",
    "Curvature's double edge (paper 000, Sec. IV): at fixed geodesic distance and spread, the worst-case gap "
    "falls with κ (left, ±2 s.e., with the Theorem 1 bound at the sample radius) while the AUC falls with the "
    "chord (right).",
    [tradeoff_file],
)

# %% [markdown]
# ## Claims — paper value beside measured value
#
# The paper states the n^−½ law for E6 on its six models (here: the models named in the parameters) and the bound
# of Theorem 1; the synthetic slopes, the worst case's response to curvature and the curvature AUC are extensions or
# sanity checks, reported, not counted as reproduction.

# %%
flat, curved = tradeoff.iloc[0], tradeoff.iloc[-1]
auc_drop_z = (flat.probe_auc - curved.probe_auc) / np.hypot(flat.probe_auc_se, curved.probe_auc_se)
gap_ratio, gap_ratio_se = gap_scaling.last_over_first(tradeoff.uniform_deviation, tradeoff.uniform_deviation_se)
radius_ratio, radius_ratio_se = gap_scaling.last_over_first(geometry.radius, geometry.radius_se)
bound_if_paper, bound_if_null = gap_scaling.bound_ratio_draws(bound)
learning_shares = gap_scaling.learning_curve_shares(model_gap)
# the test AUC's noise: the probes' spread over training samples and the shared test set's (Hanley–McNeil)
auc_se = np.hypot(tradeoff.probe_auc_se, stats.hanley_mcneil_se(tradeoff.chordal_auc, params.n_test / 2, params.n_test / 2))
flat_auc = theory.chordal_auc_spread(params.curvature_r, 0.0, params.curvature_sigma_w, params.curvature_tau)
kappas = f"κ = {flat.kappa:g} → {curved.kappa:g}, n = {params.curvature_n}, {params.curvature_reps} samples per κ"
claims_table, claims_file = run.record_claims({
    "probe_gap_slope": Evidence(
        auc_slope, se=uncertainty.loglog_slope_se(auc_gap.n, auc_gap.auc_gap, auc_gap.auc_gap_se),
        mechanism=gap_scaling.plateau_mechanism(auc_gap, params.dim, "probe_auc_gap.parquet"),
        note=f"n = {auc_gap.n.min()}…{auc_gap.n.max()}, d = {params.dim}, {params.reps} probes per n"),
    "norm_ball_gap_slope": Evidence(uniform_slope),
    "norm_ball_gap_below_bound": Evidence((class_gap.uniform_deviation / class_gap.uniform_bound).max()),
    "model_gap_slope": Evidence(
        model_slopes.median(), se=uncertainty.median_se(model_slopes),
        mechanism=gap_scaling.interpolation_mechanism(model_gap, bound.d, "model_generalization_gap.parquet"),
        note=f"{len(model_slopes)} model × dimension pools, n = {model_gap.n.min()}…{model_gap.n.max()}, "
             f"{params.model_draws} cell splits per n"),
    "model_gap_is_learning_curve": Evidence(
        learning_shares.median(), se=uncertainty.median_se(learning_shares),
        undefined="" if learning_shares.notna().all() else (
            "the test learning curve falls at −½ or faster, or is measured at one n, in "
            f"{int(learning_shares.isna().sum())} pool(s): no departure from −½ for it to account for"),
        note=f"{len(learning_shares)} pools, shares {learning_shares.min():.2f}…{learning_shares.max():.2f}; train AUC "
             f"≥ {model_gap.train_auc.min():.3f}"),
    "model_bounded_gap_within_bound": Evidence(
        bound.ratio.max(), if_paper=bound_if_paper, if_null=bound_if_null,
        note=f"{len(bound)} cells; Eq. 2 ≥ {bound.bound.min():.2f} in every cell (`bounded_probe_bound.parquet`)"),
    "curvature_shrinks_bound": Evidence(radius_ratio, se=radius_ratio_se, note=kappas),
    "curvature_shrinks_gap": Evidence(
        gap_ratio, se=gap_ratio_se, note=kappas,
        mechanism=gap_scaling.curvature_mechanism(geometry, gap_ratio, "curvature_geometry.parquet")),
    "curvature_lowers_auc": Evidence(auc_drop_z),
    "curvature_auc_matches_chord": Evidence(
        (tradeoff.probe_auc - tradeoff.chordal_auc).abs().max(),
        if_paper=cell_draws.max_error_draws(0.0, auc_se, absolute=True),
        if_null=cell_draws.max_error_draws(flat_auc - tradeoff.chordal_auc, auc_se, absolute=True)),
})
plotting.save_table(claims_table, "claims",
                    "E06 scaling (paper 000, Theorem 1, E6): the paper's value beside the measured value.",
                    [claims_file, auc_gap_file, class_gap_file, model_gap_file, bound_file, tradeoff_file,
                     geometry_file])

# %% [markdown]
# A `fails` outcome marks a number not reproduced here, reported as measured, with its mechanism. A fitted probe's
# own gap need not follow the n^−½ of the worst case: while it interpolates its gap is 1 − test AUC and barely
# moves, and past n ≈ d it falls faster. Eq. 2 is the statement Theorem 1 makes about the norm-bounded probe; on
# model features, at the sizes the template grid allows, it lies far above any gap the probe could show. In the
# curvature part the bound's constant (the sample's extrinsic radius) falls with κ while the worst-case gap itself
# falls far less: the gap follows the spread of y·x, which curvature barely moves, not the radius.

# %%
show_claims(claims_table, params.profile)
