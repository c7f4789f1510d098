# %% [markdown]
# # E11 · Neutral leakage: do neutral texts carry the label?
#
# **Paper 000**, Sec. VI (E11, the adversarial tier) against the assumption of Theorem 3 and
# Sec. VI-A that neutral texts "carry no label information". Three measurements on the template
# grid's features, all with held-out context cells (part 3: held-out professions):
#
# 1. **Strong-classifier test of label independence** — the neutral texts alone, with the random
#    balanced labels of the dataset builder, under the unchanged protocol (grouped 5-fold by cell
#    × 5 seeds, 1.4·σ₀ detection) with linear, RBF-SVM and MLP probes, per model × dimension. The
#    AUC should be ½ within noise and the detection should not fire.
# 2. **Stereotype leakage (gender, WinoBias)** — the grid's professions on the WinoBias male /
#    female occupation lists (Zhao et al., 2018; ref. [74]); the paper's linear probe, fitted on the
#    counterfactual gender pairs of the *other* contents (so never on a sentence's own cell or
#    profession), scores the neutral sentences ("The person worked as a nurse"). AUC(female- vs
#    male-stereotyped occupation) > ½ is stereotype leakage; p-values by permuting the stereotype
#    between professions.
# 3. **Leaky-purity stress test of Eq. 8** — gender datasets at purity α (n texts) in which a share
#    `leak` of the neutral texts is labelled by its stereotype (female-stereotyped occupation → 1,
#    male → 0), against Eq. 8 at the cross-fitted ŝ. At leak = 0 this is E02's draw.
#
# The default profile uses the two offline models (MiniLM-L6, SmolLM2-135M-Instruct); the paper
# profile the paper's six.
#
# Writes: `neutral_independence` (figure and table), `winobias_matches`, `neutral_scores`,
# `stereotype_leakage` (figure and table), `leaky_purity` (figure and table), `claims`.

# %%
import numpy as np
from IPython.display import display
from matplotlib import pyplot as plt

from lib import config, plotting, results, stats, uncertainty
from lib.bias_probes import cell_draws, model_audit, neutral_leakage, theory
from lib.claims import Evidence, show_claims

# %% tags=["parameters"]
profile = "default"  # choose a profile without editing this file: python -m lib run E11 --profile smoke|default|paper, or the Lab's copy lab/<profile>/E11_neutral_leakage.ipynb
recompute = True  # compute missing or stale results; false: only redraw figures from logged results
seed = 0  # root seed; every cell draws its own child seed
n_jobs = -1  # worker processes (-1: this process's share of cores); results do not depend on it
models = ["minilm", "smollm2-135m"]  # registry names, hub ids or local checkpoint folders
dimensions = ["gender", "race", "religion", "age"]  # bias dimensions of the label-independence test
layer = "mid"  # hidden-state layer: "mid" (⌊L/2⌋, the paper's default), "last" (the final layer) or an index 0…L
pooling = "mean"  # token pooling: mean | last | max
neutral_probes = ["linear", "rbf_svm", "mlp"]  # probes of the neutral label-independence test
neutral_draws = 2  # random balanced labellings of the neutral texts per model × dimension
n_permutations = 2000  # profession-level permutations for the stereotype-leakage p-value
n = 300  # texts per leaky-purity dataset
draws = 5  # leaky-purity datasets per (α, leak) cell, paired across leak rates
leak_rates = [0.0, 0.25, 0.5, 1.0]  # share of neutral texts labelled by stereotype instead of at random
alphas = [0.1, 0.3, 0.5]  # purities α of the leaky-purity test

# %%
params = config.load("E11_neutral_leakage", globals())
run = results.start(params)
plotting.use_style()
common = {"seed": params.seed, "n_jobs": params.n_jobs}

# %% [markdown]
# ## 1 · Strong-classifier test: neutral texts with random labels

# %%
independence, independence_file = run.table(
    "neutral_independence",
    lambda: neutral_leakage.neutral_independence(
        model_audit.model_pools(params.models, params.dimensions, params.layer, params.pooling),
        params.neutral_probes, params.neutral_draws, **common,
    ),
)
independence_summary = independence.groupby(["model", "dimension", "probe"], sort=False).agg(
    n=("n", "first"), auc_mean=("auc_mean", "mean"), max_abs_z=("detection_z", lambda z: z.abs().max()),
    detections=("detection_detected", "sum"), labellings=("draw", "count"),
).reset_index()
display(independence_summary.pivot_table(index=["model", "dimension"], columns="probe", values="auc_mean"))
plotting.save_table(
    independence_summary.round(4), "neutral_independence",
    "Neutral texts only, random balanced labels (paper 000, E11): grouped-CV AUC of linear, RBF-SVM and MLP "
    "probes (mean over labellings), the largest |z| against 1.4·σ₀ and the number of detections.",
    [independence_file],
)

# %%
keys = independence[["model", "dimension"]].drop_duplicates()
fig, ax = plt.subplots(figsize=(max(5.0, 1.2 * len(keys)), 3.4))
x_of = {(m, d): i for i, (m, d) in enumerate(keys.itertuples(index=False))}
for offset, (probe, rows) in zip(np.linspace(-0.25, 0.25, len(params.neutral_probes)),
                                 independence.groupby("probe", sort=False), strict=False):
    xs = [x_of[(m, d)] + offset for m, d in rows[["model", "dimension"]].itertuples(index=False)]
    ax.plot(xs, rows.auc_mean, "o", ms=4, label=probe)
band = 2 * stats.DETECTION_NULL_MULTIPLIER * independence.sigma0.max()
ax.axhspan(0.5 - band, 0.5 + band, color="grey", alpha=0.2, lw=0, label="½ ± 2·1.4·σ₀")
ax.axhline(0.5, color="grey", lw=1)
ax.set_xticks(range(len(keys)), [f"{m}\n{d}" for m, d in keys.itertuples(index=False)], fontsize=6)
ax.set(ylabel="grouped-CV AUC", title="neutral texts with random labels (one dot per labelling)")
ax.legend(fontsize=7, ncol=2)
plotting.save_figure(
    fig, "neutral_independence",
    "Strong-classifier test of neutral label-independence (paper 000, E11): AUC of linear, RBF-SVM and MLP probes "
    "on the neutral texts alone with random balanced labels, beside the band ½ ± 2·1.4·σ₀.",
    [independence_file],
)

# %% [markdown]
# ## 2 · Stereotype leakage against the WinoBias occupation lists (gender)

# %%
matches, matches_file = run.table("winobias_matches", neutral_leakage.profession_stereotypes)
n_male, n_female = int(matches.male.sum()), int(matches.female.sum())
print(f"{len(matches)} grid professions: {n_male} on the WinoBias male list, {n_female} on the female list, "
      f"{int((matches.male & matches.female).sum())} on both.")
plotting.save_table(
    matches[matches.male | matches.female], "winobias_matches",
    f"Grid professions on the WinoBias occupation lists (paper 000, E11; ref. [74]), matched case-insensitively on "
    f"the whole phrase or its head word: {n_male} male-, {n_female} female-stereotyped of {len(matches)}.",
    [matches_file],
)

# %%
scores, scores_file = run.table(
    "neutral_scores",
    lambda: neutral_leakage.stereotype_scores(
        neutral_leakage.gender_pools(params.models, params.layer, params.pooling), **common,
    ),
)
leakage, leakage_file = run.table(
    "stereotype_leakage",
    lambda: neutral_leakage.stereotype_summary(scores, params.n_permutations, seed=params.seed),
)
display(leakage)
plotting.save_table(
    leakage.round(4), "stereotype_leakage",
    "Stereotype leakage (paper 000, E11): AUC of the held-out gender probe's scores on neutral sentences about "
    "WinoBias female- vs male-stereotyped occupations, with the profession-level permutation p-value and null s.d., "
    "the text-level 1.4·σ₀ test, and the probe's AUC on the marked pairs.",
    [leakage_file],
)

# %%
neutral_professions = scores[~scores.marked & (scores.content_kind == "profession")]
means = neutral_professions.groupby(["model", "content", "stereotype"], sort=False).score.mean().reset_index()
means["centred"] = means.score - means.groupby("model").score.transform("mean")  # probe offsets differ by model
ncols = min(len(params.models), 3)
nrows = int(np.ceil(len(params.models) / ncols))
fig, axes = plt.subplots(nrows, ncols, figsize=(3.8 * ncols, 6.2 * nrows), squeeze=False)
colours = {neutral_leakage.FEMALE: "tab:red", neutral_leakage.MALE: "tab:blue", neutral_leakage.UNMATCHED: "0.7"}
for ax, (model, rows) in zip(axes.flat, means.groupby("model", sort=False), strict=False):
    rows = rows.sort_values("centred")
    ax.barh(np.arange(len(rows)), rows.centred, color=[colours[c] for c in rows.stereotype])
    ax.set_yticks(np.arange(len(rows)), rows.content, fontsize=5)
    auc = leakage.set_index("model").auc[model]
    ax.set(xlabel="score − model mean (→ female)", title=f"{model}: AUC {auc:.2f}")
for ax in list(axes.flat)[len(params.models):]:
    ax.set_visible(False)
plotting.save_figure(
    fig, "stereotype_leakage",
    "Mean held-out gender-probe score of the neutral sentences per profession, centred per model (paper 000, E11); "
    "red: WinoBias "
    "female-stereotyped occupation, blue: male-stereotyped, grey: on neither list.",
    [scores_file],
)

# %% [markdown]
# ## 3 · Leaky-purity stress test of the mixture law (gender)
#
# Leaky labels follow the profession, so the folds hold out whole professions (contents), not context
# cells: the other frames of a leaky text's profession never sit in the training folds with its label.
# The excess over Eq. 8 then counts the stereotype direction the probe shares across professions —
# label information in the neutral texts, which Eq. 8 assumes away — and not occupation identity.

# %%
leaky, leaky_file = run.table(
    "leaky_purity",
    lambda: neutral_leakage.leaky_purity(
        neutral_leakage.gender_pools(params.models, params.layer, params.pooling), params.alphas, params.leak_rates,
        params.n, params.draws, **common,
    ),
)
for row in leaky[leaky.short].itertuples(index=False):
    print(f"{row.model}, α = {row.alpha:g}: too few stereotyped neutral texts for leak {row.leak:g}; "
          f"realised share {row.leak_realised:.3f}")
display(leaky.pivot_table(index=["model", "alpha", "predicted_auc"], columns="leak", values="auc"))
plotting.save_table(
    leaky[["model", "alpha", "leak", "leak_realised", "short", "n", "draws", "auc", "auc_se", "s_hat",
           "predicted_auc", "excess"]].round(4), "leaky_purity",
    "Leaky purity (paper 000, E11): grouped-CV AUC (mean ± s.e. over paired draws) when a share of the neutral texts "
    "is labelled by its WinoBias stereotype, beside Eq. 8 at the cross-fitted ŝ; `short` marks a requested share the "
    "pool cannot fill (`leak_realised` is the share drawn).",
    [leaky_file],
)

# %%
fig, axes = plt.subplots(1, len(params.models), figsize=(4.2 * len(params.models), 3.4), squeeze=False)
grid = np.linspace(0.0, 1.0, 101)
for ax, (model, rows) in zip(axes[0], leaky.groupby("model", sort=False), strict=False):
    for leak, cell in rows.groupby("leak"):
        ax.errorbar(cell.alpha, cell.auc, yerr=2 * cell.auc_se.fillna(0), fmt="o-", ms=3, label=f"leak {leak:g}")
    ax.plot(grid, theory.purity_auc(rows.s_hat.iloc[0], grid), "k--", lw=1, label="Eq. 8 at ŝ")
    ax.set(xlabel="purity α", ylabel="AUC", title=f"{model} (ŝ = {rows.s_hat.iloc[0]:.1f})", xlim=(0, 1))
axes[0][0].legend(fontsize=7)
plotting.save_figure(
    fig, "leaky_purity",
    "Leaky-purity stress test (paper 000, E11): AUC (±2 s.e.) against purity α when a share of the neutral texts "
    "carries its WinoBias stereotype as label, beside Eq. 8 at the cross-fitted ŝ.",
    [leaky_file],
)

# %% [markdown]
# ## Claims — paper value beside measured value

# %%
top_leak, no_leak = leaky[leaky.leak == leaky.leak.max()], leaky[leaky.leak == 0]
paired = top_leak.merge(no_leak, on=["model", "alpha"], suffixes=("", "_0"))
gain = paired.auc - paired.auc_0
audits = len(independence)
cells_note = f"{len(top_leak)} model × purity cells, leak {leaky.leak.max():g} (realised share " \
             f"{top_leak.leak_realised.mean():.2f}), {params.draws} paired draws each"
# Measured, not assumed away (the paper states no value, so these are reported, not claims): how well the held-out
# gender probe separates neutral sentences about WinoBias female- vs male-stereotyped occupations.
display(leakage[["model", "auc", "perm_p", "n_female_professions", "n_male_professions"]])
claims_table, claims_file = run.record_claims({
    "neutral_within_noise": Evidence(independence.detection_z.abs().max(), note=f"{audits} audits"),
    "neutral_detections": Evidence(independence.detection_detected.mean(), se=uncertainty.binomial_se(0.05, audits),
                                   note=f"{audits} audits"),
    "leaky_excess": Evidence(top_leak.excess.mean(), se=uncertainty.mean_se(top_leak.excess), note=cells_note),
    "leaky_gain": Evidence(gain.mean(), se=uncertainty.mean_se(gain), note=cells_note),
    "leak0_within_bound": Evidence(
        paired.excess_0.max(),
        if_paper=cell_draws.max_error_draws(0.0, paired.auc_se_0),
        if_null=cell_draws.max_error_draws(paired.excess, paired.auc_se_0),
        note=f"{len(paired)} model × purity cells, {params.draws} draws each"),
})
plotting.save_table(claims_table, "claims", "E11 neutral leakage (paper 000, E11): the paper's value beside the value "
                    "measured on the models named in the parameters.", [claims_file])

# %% [markdown]
# The paper's numbers come from GPT-2, BERT and Qwen2.5; these come from the models named in the
# parameters. A `fails` outcome marks a statement these models do not show, reported as measured.
# The label-independence test uses random labels, so it checks the pipeline's strong classifiers;
# the stereotype AUC is the substantive measurement: how far neutral sentences lean toward the
# stereotyped gender of their occupation.

# %%
show_claims(claims_table, params.profile)
