# %% [markdown]
# # E04 · Layer-wise scan on real models
#
# **Paper 000**, Sec. VI (E4: all layers of GPT-2 Small and BERT-base). Every layer of each model
# (0 = embeddings) is probed in the mixed regime (α = 0.3, n = 300) with the unchanged protocol, and
# the cross-fitted ŝ is measured on the counterfactual pairs at the same layer. The paper states the
# scan but its conclusion did not survive extraction: this notebook reports where the signal peaks
# and how the paper's default, the mid-depth layer ⌊L/2⌋, compares. The default profile scans the
# offline encoder (MiniLM, 7 hidden states) and decoder (SmolLM2, 31); the paper profile GPT-2 Small
# and BERT-base.
#
# Writes: `layers` (figure), `held_out_layer`, `claims`.

# %%
from IPython.display import display
from matplotlib import pyplot as plt

from lib import config, plotting, results, uncertainty
from lib.bias_probes import model_audit, regime_checks
from lib.claims import Evidence, show_claims

# %% tags=["parameters"]
profile = "default"  # choose a profile without editing this file: python -m lib run E04 --profile smoke|default|paper, or the Lab's copy lab/<profile>/E04_layers.ipynb
recompute = True  # compute missing or stale results; false: only redraw figures from logged results
seed = 0  # root seed; every cell draws its own child seed
n_jobs = -1  # worker processes (-1: this process's share of cores); results do not depend on it
models = ["minilm", "smollm2-135m"]  # registry names, hub ids or local checkpoint folders
dimensions = ["gender", "race", "religion", "age"]  # bias dimensions of the template grid
pooling = "mean"  # token pooling: mean | last | max
mixed_alpha = 0.3  # purity of the mixed regime
mixed_n = 300  # texts per dataset

# %%
params = config.load("E04_layers", globals())
run = results.start(params)
plotting.use_style()

# %%
scan, scan_file = run.table(
    "layers",
    lambda: model_audit.layer_scan(params.models, params.dimensions, params.mixed_alpha, params.mixed_n,
                                   params.pooling, seed=params.seed, n_jobs=params.n_jobs),
)
scan["depth"] = scan.layer / scan.n_layers
display(scan.pivot_table(index=["model", "layer"], columns="dimension", values="auc_mean").round(3))

# %%
fig, (ax_auc, ax_s) = plt.subplots(1, 2, figsize=(10, 3.6))
for (model, dim), rows in scan.groupby(["model", "dimension"]):
    line = ax_auc.plot(rows.depth, rows.auc_mean, "o-" if model == params.models[0] else "s--", ms=3,
                       label=f"{model}/{dim}")[0]
    ax_s.plot(rows.depth, rows.s_hat, "o-" if model == params.models[0] else "s--", ms=3, color=line.get_color())
    ax_s.plot(rows.depth, rows.s_hat_raw, "x:", ms=3, lw=0.8, color=line.get_color())
for ax in (ax_auc, ax_s):
    ax.axvline(0.5, color="grey", lw=1, ls=":")
ax_auc.set(xlabel="relative depth (layer / L)", ylabel=f"AUC at α = {params.mixed_alpha:g}, n = {params.mixed_n}")
ax_s.set(xlabel="relative depth (layer / L)", ylabel="cross-fitted ŝ (×: raw coordinates)", yscale="log")
ax_auc.legend(fontsize=6, ncol=2)
plotting.save_figure(
    fig, "layers",
    "Layer-wise scan (paper 000, E4): mixed-regime grouped-CV AUC and cross-fitted ŝ at every layer of each "
    "model, against relative depth; ŝ on standardised coordinates (lines) and raw ones (crosses: Ledoit–Wolf's "
    "scaled-identity target is not affine-invariant, so a massive-activation coordinate collapses raw ŝ); dotted "
    "vertical line: the paper's default mid-depth layer.",
    [scan_file],
)

# %% [markdown]
# ## The mid-depth default against a scan-chosen layer
#
# Per model and dimension, the layer a scan would choose on the model's *other* dimensions (highest mean AUC over
# them), scored on this dimension beside the paper's default ⌊L/2⌋: each layer's AUC comes from its own sample, so
# a layer chosen elsewhere carries no winner's curse (the best of L noisy AUCs picked on the same AUCs would).

# %%
held_out, held_out_file = run.table("held_out_layer", lambda: regime_checks.held_out_layer_shortfall(scan))
display(held_out)
plotting.save_table(
    held_out.round(4), "held_out_layer",
    "E4 (paper 000): mixed-regime AUC at the paper's default layer ⌊L/2⌋ and at the layer chosen on the model's other "
    "dimensions, per model and dimension, and the shortfall (chosen − default).", [scan_file, held_out_file],
)

# %% [markdown]
# ## Claims — measured values (the paper's E4 conclusion is not in the extracted text, so the claim is an
# extension: reported, not counted as reproduction). Pre-registered in `lib/bias_probes/claims/E04_layers.yaml`.

# %%
best = scan.loc[scan.groupby(["model", "dimension"]).auc_mean.idxmax()]
# Reported, not claims (the paper states no value; the best layer beats layer 0 by construction):
embedding_gain = (best.set_index(["model", "dimension"]).auc_mean
                  - scan[scan.layer == 0].set_index(["model", "dimension"]).auc_mean).mean()
print(f"mean AUC gain of the best layer over the embeddings: {embedding_gain:.3f}; "
      f"median relative depth of the best layer: {best.depth.median():.2f}")
chosen = held_out.dropna(subset=["shortfall"])
claims_table, claims_file = run.record_claims({
    "mid_depth_shortfall": Evidence(
        chosen.shortfall.mean(), se=uncertainty.mean_se(chosen.shortfall),
        undefined="" if len(chosen) > 1 else (
            "each model is scanned on one dimension, so no layer can be chosen on held-out dimensions"),
        note=f"{len(chosen)} model × dimension cells, α = {params.mixed_alpha:g}, n = {params.mixed_n}"),
})
plotting.save_table(claims_table, "claims", "E04 layer scan (paper 000, E4): measured values on the offline models.",
                    [claims_file])

# %%
show_claims(claims_table, params.profile)
