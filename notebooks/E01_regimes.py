# %% [markdown]
# # E01 · Counterfactual vs mixed regimes on real models
#
# **Paper 000**, Sec. VI (E1, family F1 of Sec. V-E) with Theorem 3. Every model × bias dimension is
# probed twice with the protocol of the ground-truth tier, unchanged: the counterfactual regime
# (α = 1, all 680 marked sentences) and a mixed regime (α = 0.3, n = 300). Beside them: the
# cross-fitted separation ŝ measured on the counterfactual pairs, the purity law's prediction at ŝ,
# the neutral-midpoint offset b_w with Corollary 2's prediction, and the family-wise audit of the
# detections (Bonferroni and Benjamini–Hochberg). The default profile uses the two offline models
# (MiniLM-L6, SmolLM2-135M-Instruct); the paper profile the paper's six. The paraphrase subset E1b
# runs in `E01b_paraphrases`.
#
# Writes: `regimes` (figure and table), `family_wise`, `claims`.

# %%
import numpy as np
from IPython.display import display
from matplotlib import pyplot as plt

from lib import config, plotting, results, stats
from lib.bias_probes import model_audit, theory
from lib.claims import Bound, Range, claim, show_claims

# %% tags=["parameters"]
profile = "default"  # smoke | default | paper
recompute = True  # compute missing or stale results; false: only redraw figures from logged results
seed = 0  # root seed; every cell draws its own child seed
n_jobs = -1  # worker processes (-1: this process's share of cores); results do not depend on it
models = ["minilm", "smollm2-135m"]  # registry names, hub ids or local checkpoint folders
dimensions = ["gender", "race", "religion", "age"]  # bias dimensions of the template grid
layer = "mid"  # hidden-state layer: "mid" (⌊L/2⌋, the paper's default), "last" (the final layer) or an index 0…L
pooling = "mean"  # token pooling: mean | last | max
mixed_alpha = 0.3  # purity of the mixed regime
mixed_n = 300  # texts in the mixed regime
fdr = 0.05  # family-wise level for Bonferroni and Benjamini–Hochberg

# %%
params = config.load("E01_regimes", globals())
run = results.start(params)
plotting.use_style()

# %%
regimes, regimes_file = run.table(
    "regimes",
    lambda: model_audit.regimes(
        model_audit.model_pools(params.models, params.dimensions, params.layer, params.pooling),
        params.mixed_alpha, params.mixed_n, seed=params.seed, n_jobs=params.n_jobs,
    ),
)
regimes["cor2_auc"] = theory.offset_purity_auc(regimes.s_hat, regimes.alpha, regimes.b_w)
columns = ["model", "dimension", "regime", "n", "auc_mean", "auc_sd", "detection_z", "detection_detected", "s_hat",
           "s_hat_raw", "b_w", "predicted_auc", "cor2_auc"]
display(regimes[columns])
plotting.save_table(
    regimes[columns].round(4), "regimes",
    "Counterfactual (α = 1) vs mixed regime per model and dimension (paper 000, E1): grouped-CV AUC (mean and s.d. over "
    "5 seeds), detection z against 1.4·σ₀, cross-fitted ŝ, neutral offset b_w, Eq. 8 at ŝ and Corollary 2 at (ŝ, b_w).",
    [regimes_file],
)

# %%
models = list(dict.fromkeys(regimes.model))
fig, axes = plt.subplots(1, len(models), figsize=(max(5.0, 0.45 * len(regimes) + 1), 3.6), sharey=True, squeeze=False)
for ax, model in zip(axes[0], models, strict=True):
    cells = regimes[regimes.model == model]
    x = np.arange(len(cells[cells.regime == "mixed"]))
    for offset, (regime, rows) in zip((-0.2, 0.2), cells.groupby("regime", sort=True), strict=True):
        ax.bar(x + offset, rows.auc_mean, width=0.38, yerr=rows.auc_sd, label=f"{regime} (measured)")
        ax.plot(x + offset, rows.predicted_auc, "k_", ms=14, mew=2, label="Eq. 8 at the cross-fitted ŝ")
    ax.axhline(0.5, color="grey", lw=1)
    ax.set_xticks(x, cells[cells.regime == "mixed"].dimension)
    ax.set(title=model, ylim=(0.45, 1.02))
axes[0, 0].set_ylabel("AUC")
handles, labels = axes[0, 0].get_legend_handles_labels()
legend = dict(zip(labels, handles, strict=True))  # one entry per label
fig.legend(legend.values(), legend.keys(), loc="outside lower center", ncols=3, fontsize=7)
plotting.save_figure(
    fig, "regimes",
    "Counterfactual vs mixed regime AUC per model and dimension (paper 000, E1), with the purity-law prediction "
    "at the cross-fitted ŝ.",
    [regimes_file],
)

# %% [markdown]
# ## Family-wise audit (family F1: every model × dimension × regime cell)

# %%
reject_bonferroni, _ = stats.adjust_pvalues(regimes.detection_p_value, "bonferroni", params.fdr)
reject_bh, _ = stats.adjust_pvalues(regimes.detection_p_value, "fdr_bh", params.fdr)
family, family_file = run.table("family_wise", lambda: regimes.assign(
    bonferroni=reject_bonferroni, benjamini_hochberg=reject_bh
)[["model", "dimension", "regime", "detection_p_value", "detection_log10_p", "detection_detected", "bonferroni",
   "benjamini_hochberg"]])
display(family)
plotting.save_table(family, "family_wise",
                    f"Family F1 (paper 000, Sec. V-E): nominal detections and those surviving Bonferroni and "
                    f"Benjamini-Hochberg at {params.fdr:g}.", [family_file])

# %% [markdown]
# ## Claims — paper value beside measured value
#
# The paper's E1 numbers come from its six models; here they are tested on the models named in the parameters
# (a different number on a different model is a finding). Corollary 2's formula was lost in extraction, so the
# check against the project's re-derivation is an extension; the Bonferroni survival of saturated counterfactual
# detections holds by construction.

# %%
counterfactual, mixed = regimes[regimes.regime == "counterfactual"], regimes[regimes.regime == "mixed"]
low, high = mixed.loc[mixed.auc_mean.idxmin()], mixed.loc[mixed.auc_mean.idxmax()]
detection_scale = (f"0.05 ≈ 1.4·σ₀ = {stats.DETECTION_NULL_MULTIPLIER * float(stats.null_auc_sd(150, 150)):.3f} at the "
                   "paper's n = 300 balanced texts (Theorem 4's null s.d. times the paper's calibration multiplier): one "
                   "calibrated null s.d. of a single audit's AUC, the scale of the paper's detection test")
gap_quote = "The counterfactual/realistic gap we quantify (AUC $1.0$ vs. $0.55$–$0.75$)"
hanley = ("each end widened by 3 s.e. of that cell's AUC (Hanley–McNeil at its n₊, n₋: the sampling s.e. of an "
          "AUC on one sample of texts)")
paper_mixed = "" if (params.mixed_alpha, params.mixed_n) == (0.3, 300) else (
    f"the profile's mixed regime (α = {params.mixed_alpha:g}, n = {params.mixed_n}) is not the paper's α = 0.3, n = 300")
s_quote = ("$\\hat{s}\\approx 8$–$40$ in our measurements; the regime occupied by every LLM measurement in this paper "
           "($\\hat{s}\\geq 8.3$)")
claims = [
    claim("counterfactual_saturates", "Sec. I (2); Thm 3 (ii); E1",
          "lowest counterfactual-regime AUC (α = 1, all marked sentences; grouped 5-fold × 5 seeds) over models × "
          "dimensions, in the saturated zone",
          "the counterfactual regime ($\\alpha=1$) with the large separations typical of surface demographic markers "
          "... sits deep in the saturated zone—AUC $\\approx 1.0$", counterfactual.auc_mean.min(),
          Bound(">=", 0.997, reason="the paper's saturated zone: at α = 1 the law is Φ(s/√2), which 'exceeds 0.997 "
                "once s ≥ 4' (Thm 3 (ii)); an AUC cannot exceed 1, so the lower end is the whole test")),
    claim("mixed_auc_low", "Sec. II (related work); E1",
          f"lowest mixed-regime AUC (α = {params.mixed_alpha:g}, n = {params.mixed_n}) over models × dimensions, in the "
          f"paper's range, {hanley}", gap_quote, low.auc_mean,
          Range(0.55, 0.75, se=float(stats.hanley_mcneil_se(low.auc_mean, low.n_pos, low.n_neg)), k=3), not_measured=paper_mixed),
    claim("mixed_auc_high", "Sec. II (related work); E1",
          f"highest mixed-regime AUC (α = {params.mixed_alpha:g}, n = {params.mixed_n}) over models × dimensions, in the "
          f"paper's range, {hanley}", gap_quote, high.auc_mean,
          Range(0.55, 0.75, se=float(stats.hanley_mcneil_se(high.auc_mean, high.n_pos, high.n_neg)), k=3), not_measured=paper_mixed),
    claim("s_hat_min", "Sec. I (2); Thm 3 (ii)",
          "smallest cross-fitted ŝ (standardised features, counterfactual pairs) over models × dimensions, in the "
          "paper's span 8.3–40 (no s.e. of ŝ is logged)", s_quote, regimes.s_hat.min(), Range(8.3, 40)),
    claim("s_hat_max", "Sec. I (2); Thm 3 (ii)",
          "largest cross-fitted ŝ (standardised features, counterfactual pairs) over models × dimensions, in the "
          "paper's span 8.3–40 (no s.e. of ŝ is logged)", s_quote, regimes.s_hat.max(), Range(8.3, 40)),
    claim("mixed_vs_eq8", "Sec. I (validation summary); Thm 3 (iii)",
          f"largest |measured AUC − Eq. 8 at the cross-fitted ŝ| over the mixed-regime cells (α = {params.mixed_alpha:g}, "
          f"n = {params.mixed_n}): the zero-free-parameter prediction",
          "a single cross-fitted $\\hat{s}$ measured on counterfactual pairs predicts the entire AUC–$\\alpha$ curve "
          "with no further tuning", (mixed.auc_mean - mixed.predicted_auc).abs().max(),
          Bound("<=", 0.05, reason="the measured value is an absolute error, so the bound is two-sided about 0; "
                + detection_scale)),
    claim("mixed_vs_cor2", "Cor 2 (re-derived: the formula was lost in extraction); E1",
          "largest |measured AUC − the project's Corollary 2 at (ŝ, b_w)| over the mixed-regime cells, b_w the measured "
          "neutral offset", "Corollary 2 gives the formula for $b_{w}\\neq 0$ (the formula itself is not in the text)",
          (mixed.auc_mean - mixed.cor2_auc).abs().max(),
          Bound("<=", 0.05, reason="the measured value is an absolute error, so the bound is two-sided about 0; "
                + detection_scale), kind="extension"),
    claim("counterfactual_survive_bonferroni", "Sec. V-E (family F1)",
          "share of the counterfactual-regime detections that survive Bonferroni over family F1 (true by "
          "construction once the counterfactual AUC saturates: a saturated AUC on the 680 marked sentences has a z "
          "far beyond any Bonferroni threshold)",
          "we report, for each family, how many nominal .05 detections survive Bonferroni ($.05/m$) ... the paper’s "
          "conclusions use only detections that survive", family[family.regime == "counterfactual"].bonferroni.mean(),
          Bound(">=", 1, reason="every detection survives: a share of 1, the top of [0, 1]"), kind="sanity"),
]
# Reported, not a claim (the paper gives no number): the mixed-regime detections surviving Benjamini–Hochberg.
print(f"mixed-regime detections surviving BH: {family[family.regime == 'mixed'].benjamini_hochberg.mean():.0%}")
claims_table, claims_file = run.record_claims(claims)
plotting.save_table(claims_table, "claims", "E01 regimes (paper 000, E1): the paper's value beside the value measured on the "
                    "offline models (a different number on a different model is a finding).", [claims_file])

# %% [markdown]
# The paper's numbers come from GPT-2, BERT and Qwen2.5; these come from the models named in the
# parameters. A `fails` outcome marks a paper statement these models do not show, reported as measured.

# %%
show_claims(claims_table, params.profile)
