# %% [markdown]
# # E07 · The concentration index β_B as a label-free pre-audit
#
# **Paper 000**, Definition 1 and Eq. 13 (both lost in extraction; re-derived in
# `lib.bias_probes.estimators.concentration_index` and `separation_from_concentration`) and experiment E7. β_B is
# computed on the marked texts' features without their labels, turned into ŝ_β through the link
# derived for two clusters plus isotropic noise, and fed to the purity law (Eq. 8); the prediction is
# compared with the empirical AUC across models, dimensions and purities, and with the supervised
# route through the cross-fitted ŝ. The correlation is reported as measured, whatever it is. The direction
# the paper states ("larger = more linearly detectable") is read within each model, across its bias
# dimensions, beside β_B's bootstrap s.e. and the alignment of the direction it reads with the marker's.
#
# Writes: `concentration` (figure and table), `manifold_geometry`, `concentration_draws`, `concentration_bootstrap`,
# `alignment_two_cluster`, `beta_curvature_link`, `claims`.

# %%
from functools import cache, partial

import numpy as np
from IPython.display import display
from matplotlib import pyplot as plt
from scipy.stats import pearsonr

from lib import config, plotting, results
from lib.bias_probes import cell_draws, concentration_order, estimators, model_audit, simulate
from lib.claims import Evidence, show_claims

# %% tags=["parameters"]
profile = "default"  # choose a profile without editing this file: python -m lib run E07 --profile smoke|default|paper, or the Lab's copy lab/<profile>/E07_concentration.ipynb
recompute = True  # compute missing or stale results; false: only redraw figures from logged results
seed = 0  # root seed; every cell draws its own child seed
n_jobs = -1  # worker processes (-1: this process's share of cores); results do not depend on it
models = ["minilm", "smollm2-135m"]  # registry names, hub ids or local checkpoint folders
dimensions = ["gender", "race", "religion", "age"]  # bias dimensions of the template grid
layer = "mid"  # hidden-state layer: "mid" (⌊L/2⌋, the paper's default), "last" (the final layer) or an index 0…L
pooling = "mean"  # token pooling: mean | last | max
alphas = [0.1, 0.3, 0.5, 1.0]  # purities
n = 300  # texts per dataset
draws = 2  # datasets per purity
beta_reps = 200  # bootstrap resamples of counterfactual pairs for β_B's s.e.
link_kappas = [0.0, 0.5, 1.0, 2.0, 4.0]  # β_B–curvature link: sphere curvatures κ
link_r = 1.5  # β_B–curvature link: geodesic distance between the two clusters (needs √κ·r ≤ π)
link_sigma_w = 0.5  # β_B–curvature link: ambient noise σ_w
link_dim = 6  # β_B–curvature link: ambient dimension
link_n = 4000  # β_B–curvature link: texts per sample
link_reps = 10  # β_B–curvature link: samples per κ

# %%
params = config.load("E07_concentration", globals())
run = results.start(params)
plotting.use_style()

# built once, and only when a result has to be computed
pools = cache(partial(model_audit.model_pools, params.models, params.dimensions, params.layer, params.pooling))

# %%
table, table_file = run.table(
    "concentration",
    lambda: model_audit.concentration_predictions(
        pools(), params.alphas, params.n, params.draws, seed=params.seed, n_jobs=params.n_jobs,
    ),
)
display(table[["model", "dimension", "alpha", "auc", "beta", "beta_raw", "s_beta", "s_beta_raw", "predicted_from_beta",
               "s_hat", "predicted_auc"]])
plotting.save_table(table.round(4), "concentration",
                    "β_B → ŝ_β → Eq. 8 against the empirical AUC, beside the cross-fitted route (paper 000, E7).",
                    [table_file])

# %%
fig, (ax_pred, ax_s) = plt.subplots(1, 2, figsize=(9, 3.8))
ax_pred.scatter(table.predicted_from_beta, table.auc, label="from β_B (label-free)")
ax_pred.scatter(table.predicted_auc, table.auc, marker="x", label="from cross-fitted ŝ")
ax_pred.plot([0.5, 1], [0.5, 1], "k--", lw=1)
ax_pred.set(xlabel="predicted AUC (Eq. 8)", ylabel="empirical AUC")
ax_pred.legend(fontsize=7)
geometry = table.drop_duplicates(["model", "dimension"])
ax_s.scatter(geometry.s_hat, geometry.s_beta)
ax_s.set(xlabel="cross-fitted ŝ", ylabel="ŝ from β_B", title="label-free vs supervised separation")
plotting.save_figure(
    fig, "concentration",
    "Label-free pre-audit (paper 000, E7): Eq. 8 at the separation implied by the concentration index β_B against "
    "the empirical grouped-CV AUC, beside the prediction from the cross-fitted ŝ; right: ŝ_β against ŝ.",
    [table_file],
)

# %% [markdown]
# ## The bias submanifold's geometry on model features (Sec. V-F)
#
# d̂ (MLE, Two-NN) and κ̂ (sagitta, the paper's fit and the noise-floor-corrected one) of each dimension's
# marked texts, the estimators E3 Part D calibrates on ground truth, read where the paper applies them.

# %%
geometry_table, geometry_file = run.table("manifold_geometry", lambda: model_audit.manifold_geometry(pools(), params.seed))
display(geometry_table.round(3))
plotting.save_table(geometry_table.round(4), "manifold_geometry", "Intrinsic dimension (Levina–Bickel MLE, Two-NN) and "
                    "curvature (sagitta fit at tangent dimension round(d̂), through the origin and noise-floor-corrected) "
                    "of the counterfactual texts of each model × dimension (paper 000, Sec. V-F; calibrated in E3 Part D, "
                    "where the MLE underestimates large d and the origin fit reads ambient noise as curvature).",
                    [geometry_file])

# %% [markdown]
# ## Does β_B order a model's dimensions as ŝ does? (Sec. V, Def. 1)
#
# β_B's scale follows each model's feature spectrum, so the direction the paper states is read within a model,
# across its bias dimensions: β_B with its bootstrap s.e. over counterfactual pairs, beside ŝ, and the |cosine|
# between the top principal direction β_B reads and the marker's class-mean difference.

# %%
resamples, resamples_file = run.table(
    "concentration_draws", lambda: concentration_order.concentration_draws(pools(), params.beta_reps, params.seed),
)
bootstrap, bootstrap_file = run.table(
    "concentration_bootstrap", lambda: concentration_order.concentration_bootstrap(pools(), resamples),
)
orders = bootstrap.merge(geometry[["model", "dimension", "s_hat"]], on=["model", "dimension"])
within = concentration_order.within_model_spearman(orders, "beta", "s_hat")
display(orders.round(4), within.rename("Spearman ρ(β_B, ŝ) across dimensions"))

# %% [markdown]
# The same alignment on the model Definition 1's link assumes, two clusters at each pool's ŝ plus isotropic noise in
# its d dimensions: there β_B's top direction is the marker's.

# %%
two_cluster, two_cluster_file = run.table(
    "alignment_two_cluster", lambda: concentration_order.two_cluster_alignment(orders, seed=params.seed),
)
display(two_cluster.groupby(["model", "dimension"]).top_alignment.describe()[["min", "mean", "max"]].round(4))

# %% [markdown]
# ## The β_B–curvature link (Def. 1, Theorem 2; re-derived)
#
# At a fixed geodesic distance r, curvature shortens the chord between the clusters (Eq. 6), and β_B is the
# two-cluster concentration at separation chord/σ_w (the link is re-derived in
# `estimators.concentration_from_separation`; the paper's Eq. 13 was lost). Sphere clusters with known κ test it.

# %%
link, link_file = run.table(
    "beta_curvature_link",
    lambda: simulate.concentration_curvature_link(params.link_kappas, params.link_r, params.link_sigma_w, params.link_dim,
                                                  params.link_n, params.link_reps, seed=params.seed),
)
display(link)

# %% [markdown]
# ## Measured values (the paper reports the correlations as measured; no paper number to compare)

# %%
mixed = table[table.alpha < 1]
r_beta = pearsonr(mixed.predicted_from_beta, mixed.auc).statistic if mixed.predicted_from_beta.nunique() > 1 else np.nan
r_s = pearsonr(mixed.predicted_auc, mixed.auc).statistic if mixed.predicted_auc.nunique() > 1 else np.nan
r_geometry = pearsonr(geometry.s_hat, geometry.s_beta).statistic if len(geometry) > 2 else np.nan
r_geometry_raw = (pearsonr(geometry.s_hat, geometry.s_beta_raw.clip(upper=1e6)).statistic
                  if len(geometry) > 2 and np.isfinite(geometry.s_beta_raw).any() else np.nan)
measured = {
    "Pearson r, β_B prediction vs empirical AUC (α < 1)": r_beta,
    "Pearson r, ŝ prediction vs empirical AUC (α < 1)": r_s,
    "mean |AUC − β_B prediction| (α < 1)": (mixed.auc - mixed.predicted_from_beta).abs().mean(),
    "Pearson r, ŝ_β vs ŝ (pooled across models and dimensions)": r_geometry,
    "Pearson r, ŝ_β (raw features) vs ŝ": r_geometry_raw,
}
display(measured)

# %% [markdown]
# ## Claims

# %%
per_model = orders.groupby("model").size()
order_if_paper, order_if_null = concentration_order.order_draws(orders)
flat_beta = estimators.concentration_from_separation(params.link_r / params.link_sigma_w, params.link_dim)
claims_table, claims_file = run.record_claims({
    "beta_orders_separation": Evidence(
        within.mean(), if_paper=order_if_paper, if_null=order_if_null,
        mechanism=concentration_order.order_mechanism(bootstrap, "concentration_bootstrap.parquet"),
        undefined="" if per_model.min() >= 3 else (
            f"a model has {per_model.min()} bias dimensions: a rank correlation across fewer than three is a coin"),
        note=f"{len(per_model)} models × {per_model.max()} dimensions"),
    "beta_reads_context_direction": Evidence(
        bootstrap.top_alignment.max(), if_paper=concentration_order.largest_alignment(resamples),
        if_null=concentration_order.largest_alignment(two_cluster),
        note=f"{len(bootstrap)} pools, |cos| {bootstrap.top_alignment.min():.3f}…{bootstrap.top_alignment.max():.3f}; "
             f"{params.beta_reps} resamples of pairs, {two_cluster.draw.nunique()} two-cluster samples per pool"),
    "beta_curvature_link": Evidence(
        (link.error / link.beta_se).abs().max(),
        if_paper=cell_draws.max_abs_z_draws(0.0, link.beta_se),
        if_null=cell_draws.max_abs_z_draws(flat_beta - link.beta_predicted, link.beta_se),
        note=f"{len(link)} curvatures, {params.link_reps} samples of {params.link_n} texts each"),
    "beta_falls_with_curvature": Evidence(link.beta_measured.iloc[-1] - link.beta_measured.iloc[0]),
})
plotting.save_table(claims_table, "claims", "E07 concentration index (paper 000, E7): measured values on the offline models.",
                    [claims_file, bootstrap_file, resamples_file, two_cluster_file, link_file])

# %%
show_claims(claims_table, params.profile)
