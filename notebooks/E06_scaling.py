# %% [markdown]
# # E06 · Scaling of the generalisation gap
#
# **Paper 000**, Theorem 1 (Eq. 2) and experiment E6: the generalisation gap of norm-bounded
# linear probes decays as n^−½ ("halving the audit's uncertainty requires quadrupling n"). On the
# purity generator at α = 0.3 this notebook measures (i) the train − held-out AUC gap of the paper's
# probe (standardised ℓ2 logistic, C = 1) and (ii) the worst-case gap over a norm ball, the quantity
# Theorem 1 bounds, each with its log–log slope against −½, and draws the Theorem 1 bound beside
# them. On model features the same probe is trained on n texts at α = 0.3 from half the context
# cells and tested on the other half.
#
# With n < d the paper's probe interpolates on model features, so its AUC gap is not Theorem 1's
# quantity; the norm-bounded probe's ramp-loss gap is measured beside it. A last part runs the
# "double-edged sword" of Sec. IV on spheres: curvature shrinks the extrinsic radius (better
# generalisation) while it shortens the chord (worse separability).
#
# Writes: `generalization_gap`, `model_generalization_gap`, `curvature_tradeoff` (figures), `claims`.

# %%
import numpy as np
from IPython.display import display
from matplotlib import pyplot as plt

from lib import config, plotting, results, uncertainty
from lib.bias_probes import groundtruth, model_audit, simulate
from lib.claims import Bound, Point, claim, show_claims

# %% tags=["parameters"]
profile = "default"  # smoke | default | paper
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
slope_tolerance = 0.1  # allowed |slope − (−½)| on log–log axes
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
        model_audit.model_pools(params.models, params.dimensions, params.layer, params.pooling),
        params.model_n_values, params.alpha, params.model_draws, reg=params.reg, **common,
    ),
)
by_pool = model_gap.groupby(["model", "dimension"])
model_slopes = by_pool.apply(lambda rows: simulate.loglog_slope(rows.n, rows.auc_gap.clip(lower=1e-12)),
                             include_groups=False).rename("auc_gap_slope")
bounded_slopes = by_pool.apply(lambda rows: simulate.loglog_slope(rows.n, rows.bounded_ramp_gap.clip(lower=1e-12)),
                               include_groups=False).rename("bounded_ramp_gap_slope")
display(model_slopes.to_frame().join(bounded_slopes), model_gap[["model", "dimension", "n", "train_auc", "test_auc"]])

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
# ## Curvature: better generalisation, worse separability (Sec. IV, Theorems 1–2)
#
# Two clusters at fixed geodesic distance r and intrinsic spread τ on spheres of growing κ. The extrinsic
# radius ρ_B shrinks (at most 1/√κ), so the worst-case gap over the unit ball should fall; the chord shrinks,
# so the AUC should fall (Eq. 6 with spread, derived in `theory.chordal_auc_spread`).

# %%
tradeoff, tradeoff_file = run.table(
    "curvature_tradeoff",
    lambda: simulate.curvature_tradeoff(
        params.curvature_kappas, params.curvature_r, params.curvature_tau, params.curvature_sigma_w,
        params.curvature_n, params.curvature_dim, params.reg, params.curvature_reps, params.n_test, **common,
    ),
)
display(tradeoff)
flat, curved = tradeoff.iloc[0], tradeoff.iloc[-1]
gap_drop_z = (flat.uniform_deviation - curved.uniform_deviation) / np.hypot(flat.uniform_deviation_se,
                                                                           curved.uniform_deviation_se)
auc_drop_z = (flat.probe_auc - curved.probe_auc) / np.hypot(flat.probe_auc_se, curved.probe_auc_se)

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
# The paper states the n^−½ law for E6 on its six models (here: the models named in the parameters); the synthetic
# slopes, the bound checks and the curvature AUC are extensions or sanity checks, reported, not counted as reproduction.

# %%
law = "the generalization gap follows the $n^{-1/2}$ law"
z_reason = "a direction, tested one-sided: z > 2 is stricter than the z > 1.645 of a one-sided test at the paper's level .05"
claims = [
    claim("probe_gap_slope", "Thm 1; E6 (the paper reports E6 on its six models; this synthetic setting is ours)",
          f"log–log slope over n = {params.n_values[0]}…{params.n_values[-1]} of the train − test AUC gap of the paper's "
          f"probe (standardised ℓ2 logistic, C = 1) on the purity generator at α = {params.alpha:g}, d = {params.dim}, "
          "against −½ within 3 Monte Carlo s.e. (delta method from the logged per-n s.e.)",
          "Experiment E6 checks the $n^{-1/2}$ law directly (log–log slope of the measured gap)", auc_slope,
          Point(-0.5, se=uncertainty.loglog_slope_se(auc_gap.n, auc_gap.auc_gap, auc_gap.auc_gap_se), k=3),
          kind="extension"),
    claim("norm_ball_gap_slope", "Thm 1, Eq. 2", "log–log slope of the worst-case gap over the unit norm ball (true by "
          "construction: that worst case is ‖mean(y·x) − E[y·x]‖, a sample-mean deviation, which scales as n^−½)",
          "The generalization gap of norm-bounded linear probes decays as $n^{-1/2}$", uniform_slope,
          Point(-0.5, tol=params.slope_tolerance,
                reason="no s.e. of the worst-case gap is logged; the slope of a sample-mean norm is −½ up to "
                       "O(1/n) terms, so ±0.1 only guards against an implementation error"),
          kind="sanity"),
    claim("norm_ball_gap_below_bound", "Thm 1, Eq. 2", "worst-case gap over the unit ball / its bound 2ρ/√n, largest "
          "over n (true by construction: symmetrisation bounds the expected worst case by twice the unit ball's "
          "Rademacher complexity, at most ρ/√n)", "no value stated (the bound (2) itself is lost in extraction)",
          (class_gap.uniform_deviation / class_gap.uniform_bound).max(),
          Bound("<=", 1, reason="a bound: the ratio may be anything up to 1"), kind="sanity"),
    claim("model_gap_slope", "validation summary (six models); E6",
          "median over models × dimensions of the log–log slope of the paper's probe's (C = 1) train − held-out-cells "
          f"AUC gap over n = {params.model_n_values[0]}…{params.model_n_values[-1]} at α = {params.alpha:g}, against −½ "
          "within 3 s.e. of the median (from the spread of the per-pool slopes); with n < d the probe interpolates "
          f"(mean train AUC {model_gap.train_auc.mean():.3f}), so its gap tends to 1 − test AUC rather than to 0",
          law, model_slopes.median(), Point(-0.5, se=uncertainty.median_se(model_slopes), k=3)),
    claim("model_bounded_gap_slope", "Thm 1, Eq. 2; E6",
          "median over models × dimensions of the log–log slope of the norm-bounded probe's (C = 1/(reg·n)) ramp-loss "
          "gap on model features (the class Theorem 1 bounds), against −½ within 3 s.e. of the median (from the "
          "spread of the per-pool slopes)",
          "The generalization gap of norm-bounded linear probes decays as $n^{-1/2}$", bounded_slopes.median(),
          Point(-0.5, se=uncertainty.median_se(bounded_slopes), k=3)),
    claim("curvature_shrinks_gap", "Sec. IV (after Thm 1); Thm 2", "worst-case gap over the unit ball, flat minus "
          "largest κ, in Monte Carlo s.e. (curvature improves generalisation)",
          "it improves generalization (smaller $\\rho_{B}$ in (2)) exactly while it degrades separability",
          gap_drop_z, Bound(">", 2, reason=z_reason)),
    claim("curvature_lowers_auc", "Thm 2; Sec. IV", "probe AUC, flat minus largest κ, in Monte Carlo s.e. (true by "
          "construction: at fixed geodesic distance the generator's chord shrinks with κ)",
          "no value stated", auc_drop_z, Bound(">", 2, reason=z_reason), kind="sanity"),
    claim("curvature_auc_matches_chord", "Thm 2, Eq. 6 with spread (re-derived)", "fitted probe AUC against the "
          "project's Eq. 6 with intrinsic spread τ (theory.chordal_auc_spread), largest |error| over κ",
          "E3 validates (6) on spheres with known $\\kappa$ to within $0.005$ AUC (Eq. 6 without spread)",
          (tradeoff.probe_auc - tradeoff.chordal_auc).abs().max(),
          Bound("<=", 0.005, reason="the paper's E3 agreement for Eq. 6, applied to the re-derived form with spread"),
          kind="extension"),
]
claims_table, claims_file = run.record_claims(claims)
plotting.save_table(claims_table, "claims",
                    "E06 scaling (paper 000, Theorem 1, E6): the paper's value beside the measured value.",
                    [claims_file, auc_gap_file, class_gap_file, model_gap_file, tradeoff_file])

# %% [markdown]
# A `fails` outcome marks a number not reproduced here, reported as measured: a probe's own gap can
# decay faster than the worst case that Theorem 1 bounds. On model features the paper's probe (C = 1) has
# n < d and interpolates, so its AUC gap is not Theorem 1's quantity; the norm-bounded probe's gap is. In
# the curvature part, the bound's constant (the sample's extrinsic radius) falls about threefold from κ = 0
# to the largest κ, while the worst-case gap itself falls far less: the gap follows the spread of y·x (its
# variance), which curvature moves from the chord into the orthogonal axis, not the radius. "Curvature
# improves generalisation" is a statement about the bound; whether the measured gap shows it is reported.

# %%
show_claims(claims_table, params.profile)
