# %% [markdown]
# # E08 · Leakage meter: grouped vs random cross-validation
#
# **Paper 000**, Sec. VI-A (leakage controls after [37]) and E8. The same datasets are probed twice:
# with folds grouped by context cell (counterfactual pair members together — the paper's protocol)
# and with random folds that let a template context, or a pair's partner, sit in both train and test.
# The difference measures how much template leakage would inflate the AUC.
#
# Writes: `leakage` (figure and table), `claims`.

# %%
from IPython.display import display
from matplotlib import pyplot as plt

from lib import config, plotting, results, uncertainty
from lib.bias_probes import model_audit
from lib.claims import Evidence, show_claims

# %% tags=["parameters"]
profile = "default"  # choose a profile without editing this file: python -m lib run E08 --profile smoke|default|paper, or the Lab's copy lab/<profile>/E08_leakage.ipynb
recompute = True  # compute missing or stale results; false: only redraw figures from logged results
seed = 0  # root seed; every cell draws its own child seed
n_jobs = -1  # worker processes (-1: this process's share of cores); results do not depend on it
models = ["minilm", "smollm2-135m"]  # registry names, hub ids or local checkpoint folders
dimensions = ["gender", "race", "religion", "age"]  # bias dimensions of the template grid
layer = "mid"  # hidden-state layer: "mid" (⌊L/2⌋, the paper's default), "last" (the final layer) or an index 0…L
pooling = "mean"  # token pooling: mean | last | max
alphas = [0.3, 1.0]  # purities (1: every marked sentence)
n = 300  # texts per dataset in the mixed regimes (α < 1)

# %%
params = config.load("E08_leakage", globals())
run = results.start(params)
plotting.use_style()

# %%
leak, leak_file = run.table(
    "leakage",
    lambda: model_audit.leakage(model_audit.model_pools(params.models, params.dimensions, params.layer, params.pooling),
                                params.alphas, params.n, seed=params.seed, n_jobs=params.n_jobs),
)
display(leak)
plotting.save_table(leak.round(4), "leakage", "Grouped vs random cross-validation on identical data (paper 000, E8).",
                    [leak_file])

# %%
fig, ax = plt.subplots(figsize=(4.5, 4))
for alpha, rows in leak.groupby("alpha"):
    ax.scatter(rows.grouped_auc, rows.random_auc, label=f"α = {alpha:g}")
low = min(leak.grouped_auc.min(), leak.random_auc.min())
ax.plot([low, 1], [low, 1], "k--", lw=1)
ax.set(xlabel="grouped-CV AUC (paper's protocol)", ylabel="random-CV AUC")
ax.legend(fontsize=7)
plotting.save_figure(fig, "leakage", "Leakage meter (paper 000, E8): random-fold against grouped-fold AUC on identical "
                     "data, per model, dimension and purity; points above the diagonal are leakage.", [leak_file])

# %% [markdown]
# ## Claims — measured values (the paper states no E8 value: extensions, reported, not counted as reproduction)

# %%
mixed = leak[leak.alpha < 1]
claims_table, claims_file = run.record_claims({
    "leakage_mixed_mean": Evidence(mixed.leakage.mean(), se=uncertainty.mean_se(mixed.leakage),
                                   note=f"{len(mixed)} cells"),
})
plotting.save_table(claims_table, "claims", "E08 leakage (paper 000, E8): measured values on the offline models.",
                    [claims_file])

# %%
show_claims(claims_table, params.profile)
