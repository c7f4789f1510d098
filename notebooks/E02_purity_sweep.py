# %% [markdown]
# # E02 · Purity sweep and detection phase diagram on real models
#
# **Paper 000**, Sec. VI (E2, family F2) with Theorems 3 and 4. (i) AUC(α) at n = 300 over nine
# purities, predicted with zero free parameters from a single cross-fitted ŝ measured on the
# counterfactual pairs (Eq. 8), against the empirical curve; no inversion is allowed. (ii) The
# detection rate over (α, n), eight datasets per cell with the single-seed test, against α\*(n)
# (Eq. 11) and its −½ boundary slope. Cells that would have to resample past the pool are skipped
# (at n = 1000 only 0.32 ≤ α ≤ 0.68 fit the 340 pairs and 680 neutral sentences), and a boundary
# already crossed at the smallest drawable α is censored and left out of the slope.
#
# Writes: `purity_curves`, `phase_diagram` (figures), `family_f2` (table), `curve_shortfall` (the diagnostic of
# the curve's shortfall below Eq. 8), `claims`.

# %%
from functools import cache, partial

import numpy as np
import pandas as pd
from IPython.display import display
from matplotlib import pyplot as plt

from lib import config, plotting, results, stats, uncertainty
from lib.bias_probes import curve_power, model_audit, regime_checks, simulate, theory
from lib.claims import Evidence, show_claims

# %% tags=["parameters"]
profile = "default"  # choose a profile without editing this file: python -m lib run E02 --profile smoke|default|paper, or the Lab's copy lab/<profile>/E02_purity_sweep.ipynb
recompute = True  # compute missing or stale results; false: only redraw figures from logged results
seed = 0  # root seed; every cell draws its own child seed
n_jobs = -1  # worker processes (-1: this process's share of cores); results do not depend on it
models = ["minilm", "smollm2-135m"]  # registry names, hub ids or local checkpoint folders
dimensions = ["gender", "race", "religion", "age"]  # bias dimensions of the template grid
layer = "mid"  # hidden-state layer: "mid" (⌊L/2⌋, the paper's default), "last" (the final layer) or an index 0…L
pooling = "mean"  # token pooling: mean | last | max
curve_alphas = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 0.85, 1.0]  # the nine purities of the AUC(α) curve
curve_n = 300  # texts per dataset on the curve
curve_draws = 3  # datasets drawn per purity
phase_alphas = [0.01, 0.02, 0.04, 0.08, 0.15, 0.3, 0.4, 0.5, 0.6, 1.0]  # purities of the phase diagram
phase_n = [100, 300, 1000]  # audit sizes of the phase diagram
phase_repeats = 8  # datasets per phase cell (the paper's 8 seeds)
gamma = 0.2  # the boundary is where the detection rate reaches 1 − γ

# %%
params = config.load("E02_purity_sweep", globals())
run = results.start(params)
plotting.use_style()
common = {"seed": params.seed, "n_jobs": params.n_jobs}


# built once, and only when a result has to be computed
pools = cache(partial(model_audit.model_pools, params.models, params.dimensions, params.layer, params.pooling))

# %% [markdown]
# ## AUC(α) from a single ŝ

# %%
curves, curves_file = run.table(
    "purity_curves",
    lambda: model_audit.purity_curves(pools(), params.curve_alphas, params.curve_n, params.curve_draws, **common),
)
curves["error"] = curves.auc - curves.predicted_auc
display(curves.pivot_table(index=["model", "dimension"], columns="alpha", values="error").round(3))

# %%
combos = curves.groupby(["model", "dimension"], sort=True)
fig, axes = plt.subplots(1, len(params.models), figsize=(4.6 * len(params.models), 3.6), squeeze=False)
for ax, model in zip(axes[0], params.models, strict=True):
    for (m, dim), rows in combos:
        if m != model:
            continue
        line = ax.errorbar(rows.alpha, rows.auc, yerr=2 * rows.auc_se.fillna(0), fmt="o", ms=3, label=dim)
        ax.plot(rows.alpha, rows.predicted_auc, "-", color=line[0].get_color(), lw=1)
    ax.set(xlabel="purity α", ylabel="AUC", title=f"{model}: points measured, lines Eq. 8 at ŝ")
    ax.legend(fontsize=7)
plotting.save_figure(
    fig, "purity_curves",
    f"AUC against purity at n = {params.curve_n} (paper 000, E2): grouped-CV AUC (±2 s.e. over datasets) and the "
    "zero-free-parameter prediction of Eq. 8 from one cross-fitted ŝ per model and dimension.",
    [curves_file],
)

# %% [markdown]
# ## Family F2: every purity-curve point as a detection claim (Sec. V-E)
#
# Each point is tested with the 1.4·σ₀ test at its dataset size (n₊ = n₋ = n/2); averaging over
# datasets only lowers the variance, so the single-dataset σ₀ keeps the test conservative.

# %%
tests = [stats.detection_test(auc, params.curve_n // 2, params.curve_n - params.curve_n // 2) for auc in curves.auc]
p_values = [t.p_value for t in tests]
family, family_file = run.table("family_f2", lambda: curves[["model", "dimension", "alpha", "auc"]].assign(
    p_value=p_values, nominal=[t.detected for t in tests],
    bonferroni=stats.adjust_pvalues(p_values, "bonferroni")[0], benjamini_hochberg=stats.adjust_pvalues(p_values)[0],
))
display(family.groupby("alpha")[["nominal", "bonferroni", "benjamini_hochberg"]].sum())
plotting.save_table(family, "family_f2", "Family F2 (paper 000, Sec. V-E): purity-curve detections at nominal .05 and "
                    "those surviving Bonferroni and Benjamini-Hochberg.", [family_file])

# %% [markdown]
# ## Detection phase diagram

# %%
phase, phase_file = run.table(
    "phase_diagram",
    lambda: model_audit.phase_diagram(pools(), params.phase_alphas, params.phase_n, params.phase_repeats, **common),
)
s_hat = curves.groupby(["model", "dimension"]).s_hat.first()
boundary = pd.DataFrame([
    {"model": m, "dimension": d, "n": n,
     "alpha_empirical": simulate.crossing_purity(rows.alpha.to_numpy(), rows.detection_rate.to_numpy(), 1 - params.gamma),
     "alpha_star": theory.critical_purity_exact(n, s_hat[(m, d)], null_scale=stats.DETECTION_NULL_MULTIPLIER),
     "alpha_star_linearised": float(theory.critical_purity(n, s_hat[(m, d)]))}
    for (m, d, n), rows in phase.groupby(["model", "dimension", "n"], sort=True)
])
slopes = boundary.dropna().groupby(["model", "dimension"]).apply(
    lambda b: simulate.loglog_slope(b.n, b.alpha_empirical) if b.n.nunique() >= 2 else np.nan, include_groups=False
).rename("slope")
display(boundary, slopes)

# %%
fig, ax = plt.subplots(figsize=(5.5, 3.8))
for (model, dim), rows in boundary.groupby(["model", "dimension"]):
    line = ax.plot(rows.n, rows.alpha_empirical, "o-", ms=3, label=f"{model}/{dim}")[0]
    ax.plot(rows.n, rows.alpha_star, ":", color=line.get_color(), lw=1)
ax.set(xscale="log", yscale="log", xlabel="audit size n", ylabel=f"purity at {1 - params.gamma:.0%} detection",
       title="points: empirical boundary; dotted: α*(n) at ŝ (1.4·σ₀)")
ax.legend(fontsize=6, ncol=2)
plotting.save_figure(
    fig, "phase_diagram",
    "Detection phase boundary on real features (paper 000, E2): the purity at which the single-seed 1.4·σ₀ test "
    "detects in 80% of datasets, per audit size, beside α*(n) at the cross-fitted ŝ: the exact root of the power "
    "condition at the test's 1.4·σ₀ (the linearised Eq. 11 at σ₀ is logged beside it).",
    [phase_file, curves_file],
)

# %% [markdown]
# ## Why a learnt curve falls below Eq. 8
#
# Eq. 8 is the best achievable (Bayes) AUC; the probe learns its direction from n texts in the model's feature
# dimension. At the purity where the curves miss Eq. 8 most, the paper's probe on isotropic synthetic purity mixtures
# at each curve's ŝ, n and feature dimension shows the finite-sample shortfall a learnt probe has where Eq. 8's
# assumptions hold exactly. The mechanism claim `curve_shortfall_is_finite_sample` weighs the curves' shortfall there
# as a share of this synthetic one.

# %%
worst_alpha = curve_power.worst_purity(curves)
worst_points = curves[curves.alpha == worst_alpha]
shortfall, shortfall_file = run.table(
    "curve_shortfall",
    lambda: curve_power.synthetic_shortfall(
        worst_points.assign(d=[pools()[(m, dim)].X.shape[1]
                               for m, dim in zip(worst_points.model, worst_points.dimension, strict=True)]),
        params.curve_n, params.curve_draws, **common),
)
display(shortfall.assign(shortfall=shortfall.probe_auc - shortfall.bound).round(4))
share = regime_checks.shortfall_share(worst_points.predicted_auc - worst_points.auc, worst_points.auc_se,
                                      shortfall.bound - shortfall.probe_auc, shortfall.probe_se)

# %% [markdown]
# ## Claims — paper value beside measured value
#
# The claims, their tests and their power are pre-registered in `lib/bias_probes/claims/E02_purity_sweep.yaml`. The
# paper's E2 statements come from its six models; here they are tested on the models named in the parameters (a
# different number on a different model is a finding). A curve claim's power redraws every curve point from its
# logged s.e., once around Eq. 8 at ŝ and once around the competitor (`lib.bias_probes.curve_power`).

# %%
steps = curves.sort_values("alpha").groupby(["model", "dimension"]).auc.diff().dropna()
dilution_offset = curve_power.linear_dilution_auc(curves.s_hat, curves.alpha) - curves.predicted_auc
log_ratios = np.log2(boundary.alpha_empirical / boundary.alpha_star).abs().dropna()
phase_step = uncertainty.grid_step(params.phase_alphas, boundary.alpha_star)
curve_note = (f"{len(curves)} points: {curves.groupby(['model', 'dimension']).ngroups} curves × "
              f"{len(params.curve_alphas)} purities, n = {params.curve_n}, {params.curve_draws} datasets each")
thin_curves = "" if params.curve_draws > 1 else ("one dataset per purity (curve_draws = 1): a curve point's s.e. is "
                                                 "not estimable")
# Sec. V-E's family-wise audit: the paper draws conclusions from the Bonferroni survivors only (no number to compare).
print(f"F2 detections surviving Bonferroni: {int(family.bonferroni.sum())} of {int(family.nominal.sum())} nominal")
claims_table, claims_file = run.record_claims({
    "curve_prediction_mae": Evidence(
        curves.error.abs().mean(), undefined=thin_curves,
        if_paper=curve_power.abs_error_draws(0.0, curves.auc_se, "mean"),
        if_null=curve_power.abs_error_draws(dilution_offset, curves.auc_se, "mean", seed=1), note=curve_note),
    "curve_prediction_max": Evidence(
        curves.error.abs().groupby(curves.alpha).mean().max(), undefined=thin_curves,
        if_paper=curve_power.abs_error_draws(0.0, curves.auc_se, "max", curves.alpha),
        if_null=curve_power.abs_error_draws(dilution_offset, curves.auc_se, "max", curves.alpha, seed=1),
        mechanism=curve_power.shortfall_mechanism(curves, shortfall, shortfall_file.name),
        note=f"{curve_note}; largest at α = {worst_alpha:g}"),
    "curve_shortfall_is_finite_sample": Evidence(
        share.value, sources={"samples": share.measured_se, "replicates": share.simulated_se},
        undefined=thin_curves or share.undefined,
        note=f"α = {worst_alpha:g}, {len(worst_points)} curves: measured shortfall {share.measured:.3f}, the probe's on "
             f"synthetic data {share.simulated:.3f}"),
    "no_inversion": Evidence(
        -steps.min() if len(steps) else None, undefined=thin_curves,
        if_paper=curve_power.largest_drop_draws(curves, curves.predicted_auc, curves.auc_se),
        if_null=curve_power.largest_drop_draws(curves, curve_power.with_dip(curves, curves.predicted_auc, 0.06),
                                               curves.auc_se, seed=1),
        note=curve_note),
    "boundary_slope": Evidence(
        slopes.median(), se=uncertainty.median_se(slopes),
        undefined="" if slopes.notna().sum() >= 2 else "fewer than two model × dimension curves cross 80% "
                                                          "detection at two or more audit sizes inside the purity grid",
        note=f"{int(slopes.notna().sum())} curves, n in {list(params.phase_n)}, {params.phase_repeats} datasets per cell"),
    "boundary_vs_alpha_star": Evidence(
        log_ratios.median() if len(log_ratios) else None, se=uncertainty.median_se(log_ratios),
        undefined="" if len(log_ratios) >= 2 else "fewer than two (model, dimension, n) cells cross 80% "
                                                     "detection inside the purity grid",
        note=f"{len(log_ratios)} cells; the run's purity grid brackets α*(n) within a factor {phase_step:.2f}"),
})
plotting.save_table(claims_table, "claims", "E02 purity sweep (paper 000, E2): the paper's value beside the value measured "
                    "on the offline models.", [claims_file])

# %% [markdown]
# Each row gives the paper's words, the measured value and its verdict; a failure names the logged diagnostic that
# accounts for it.

# %%
show_claims(claims_table, params.profile)
