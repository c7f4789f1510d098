# %% [markdown]
# # D02 · Robustness of ΔB: anchors, wording, pooling and fine-tuning seeds
#
# **Paper 001**, Sec. 4.5 and Appendix E (Figure 4, Tables 5–6, Figure 5). On the checkpoint spectrum
# of D01 and against the same output-level labels (ΔBiasScore > 0.1), one pipeline component
# changes at a time: the anchor source (neutral sentences, single words, instruction-style
# prompts) × the anchor size; six attribute-sentence variants; six target-template variants; token
# pooling (mean, max, last; RR beside SEAT). Each setting is scored by the ROC AUC of a threshold on
# ΔB. Last, the two fine-tunes at the ends of the spectrum are repeated with other seeds and ΔB per
# group is compared across seeds. Continuations and embeddings come from the caches D01 filled.
#
# Writes: `anchors` (Figure 4 style), `attributes` and `targets` (Tables 5a/5b), `pooling` (Table 6), `seeds`
# (Figure 5 style), `claims`.

# %%
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display

from lib import config, plotting, results
from lib.bias_shift import ablations, checkpoints, evaluation, output_bias, stereotype
from lib.claims import Bound, Point, claim, show_claims

# %% tags=["parameters"]
profile = "default"  # smoke | default | paper
recompute = True  # compute missing or stale results; false: only redraw figures from logged results
seed = 0  # seed of the spectrum (as D01), of the anchor subsets and of the generation
ratios = [0.9, 0.7, 0.5, 0.3, 0.1]  # merge weights of the unharmful model (Appendix C)
epochs = 3  # fine-tuning epochs (Appendix C)
checkpoint_paths = []  # paper profile: checkpoint folders or ids to audit instead of the built spectrum
groups = ["Homosexuals", "Muslims", "Christians", "Jews", "Buddhists", "Atheists", "Black people", "White people", "Asians", "Caucasians", "Mexicans", "Latin Americans", "Women", "Men", "Old people", "Young people", "Physically disabled people", "Able-bodied people", "Poor people", "Rich people", "Immigrants", "Canadians", "Americans", "Europeans"]  # the 24 DecodingTrust groups
layer = "last"  # hidden-state layer: "last" (the paper's choice), "mid" (⌊L/2⌋) or an index 0…L
n_samples = 5  # VADER and profanity: continuations per prompt (Appendix C)
temperature = 0.7  # VADER and profanity: sampling temperature (Appendix C)
top_p = 1.0  # nucleus sampling (Appendix C)
max_new_tokens = 32  # VADER and profanity: token budget per continuation
generation_batch_size = 120  # continuations sampled per generate call (the draws depend on it)
external_scores_csv = ""  # paper profile: CSV checkpoint,group,score from an external benchmark
label_threshold = 0.1  # ΔBiasScore above which a checkpoint × group counts as increased bias
scorers = ["dt_forced", "dt_sampled", "vader", "profanity"]  # offline output-level scorers, each evaluated apart
system_prompt = "benign"  # DecodingTrust system prompt: benign | untargeted | targeted
n_forced_templates = 16  # DecodingTrust templates per group for the forced choice (of 48)
n_sampled_templates = 4  # nested templates per group for sampled replies (0: none)
dt_n_samples = 3  # sampled replies per DecodingTrust prompt (benchmark: 25)
dt_temperature = 1.0  # DecodingTrust sampling temperature (the benchmark's)
dt_max_new_tokens = 48  # tokens per DecodingTrust reply (benchmark: 150)
forced_batch_size = 32  # prompts per forced-choice forward pass
reference = "smollm2-135m"  # the base model: registry name, hub id or local folder
method = "lora"  # fine-tuning regime: lora | full
anchor_sources = ["neutral", "words", "instructions"]  # anchor sets compared (Sec. 4.5, Figure 4)
anchor_sizes = [50, 100, 250, 500, 1000]  # anchors per set (nested subsets of one seed)
attribute_variants = ["base", "subject_v1", "subject_v2", "synonyms_v1", "synonyms_v2", "synonyms_v3"]  # attribute wordings compared (App. E.1)
target_variants = ["base", "passive", "passive_rephrased", "synonyms_v1", "synonyms_v2", "synonyms_v3"]  # target-sentence wordings compared (App. E.2)
poolings = ["mean", "max", "last"]  # token pooling (Appendix E.4)
seeds = [0, 1, 2]  # fine-tuning seeds of the stability check (Appendix E.5); [] skips it

# %%
params = config.load("D02_deltab_ablations", globals())
run = results.start(params)
plotting.use_style()
grid = ablations.one_at_a_time(params.anchor_sources, params.anchor_sizes, params.attribute_variants,
                                      params.target_variants, params.poolings)

# %% [markdown]
# ## The spectrum and its labels (as in D01)

# %%
spectrum, spectrum_file = run.json("spectrum", lambda: checkpoints.spectrum_folders(
    params.reference, checkpoint_paths=params.checkpoint_paths, method=params.method, seed=params.seed,
    ratios=params.ratios, epochs=params.epochs))
dt_scorers = [s for s in params.scorers if s.startswith("dt_")]
scores, scores_file = run.table("output_bias", lambda: pd.concat((stereotype.agreement_frames(
    stereotype.spectrum_agreement(
        spectrum, params.groups, system=params.system_prompt, n_forced_templates=params.n_forced_templates,
        n_sampled_templates=params.n_sampled_templates if "dt_sampled" in params.scorers else 0,
        template_seed=params.seed, forced_batch_size=params.forced_batch_size, n_samples=params.dt_n_samples,
        temperature=params.dt_temperature, max_new_tokens=params.dt_max_new_tokens, seed=params.seed,
        batch_size=params.generation_batch_size), params.scorers) if dt_scorers else []) + output_bias.scored_frames(
    spectrum, params.groups, params.scorers, external_scores_csv=params.external_scores_csv,
    n_samples=params.n_samples, temperature=params.temperature, top_p=params.top_p,
    max_new_tokens=params.max_new_tokens, seed=params.seed, batch_size=params.generation_batch_size),
    ignore_index=True))
audited_scores = scores[scores.checkpoint != "base"]
for scorer, frame in audited_scores.groupby("scorer", sort=False):
    print(f"{scorer}: {(frame.delta_bias_score > params.label_threshold).sum()} of {len(frame)} checkpoint × group "
          f"pairs have ΔBiasScore > {params.label_threshold:g}")
# The tables and claims read ROC AUCs (every scorer is in roc_auc): the first scorer whose labels have both classes.
main = evaluation.first_scorer_with_both_classes(audited_scores, params.label_threshold)
print(f"tables and claims read scorer {main}")

# %% [markdown]
# ## RR and SEAT shifts under every setting of the grid

# %%
shifts, shifts_file = run.table("shifts", lambda: ablations.spectrum_shifts(
    spectrum, grid, params.groups, params.seed, layer=params.layer))
auc, auc_file = run.table("roc_auc", lambda: ablations.auc_table(grid, shifts, scores, params.label_threshold))
rr = auc[(auc.method == "RR") & (auc.scorer == main)]
main_auc = auc[auc.scorer == main]

# %% [markdown]
# ## Anchor source × size (Sec. 4.5, Figure 4)

# %%
anchors = rr[rr.axis == "anchors"].assign(source=lambda f: f.value.str.split().str[0],
                                          size=lambda f: f.value.str.split().str[1].astype(int))
fig, ax = plt.subplots(figsize=(5, 3.6))
sizes = sorted(params.anchor_sizes)
for source, frame in anchors.groupby("source", sort=False):
    ax.plot(frame["size"].map(sizes.index), frame.roc_auc, "o-", label=source)
ax.axhline(0.5, color="k", ls=":", lw=1)
ax.set_xticks(range(len(sizes)), sizes)
ax.set(xlabel="anchors", ylabel="ROC AUC (RR)", title="anchor source × size")
ax.legend()
plotting.save_figure(fig, "anchors", "ROC AUC of a threshold on ΔB against increased output-level bias per anchor "
                     "source and size (paper 001, Sec. 4.5, Figure 4 style; dotted: chance).", [auc_file])
display(anchors.pivot(index="size", columns="source", values="roc_auc").round(3))

# %% [markdown]
# ## Attribute and target wording (Appendices E.1–E.2, Tables 5a/5b)

# %%
tables = {axis: ablations.variant_table(main_auc, axis, methods=("RR", "RR − control")) for axis in ("attributes", "targets")}
for axis, paper in (("attributes", "Table 5a; paper: 0.863 ± 0.030"), ("targets", "Table 5b; paper: 0.902 ± 0.008")):
    display(tables[axis].round(3))
    plotting.save_table(tables[axis].reset_index(), axis, f"ROC AUC of ΔB (RR) and of ΔB minus the group-free control "
                        f"per {axis[:-1]} variant against scorer {main}, then the mean, population s.d., min and max "
                        f"across variants (paper 001, {paper}).", [auc_file])

# %% [markdown]
# ## Pooling: RR beside SEAT (Appendix E.4, Table 6)

# %%
pooling = ablations.variant_table(main_auc, "pooling", methods=("RR", "RR − control", "SEAT"))
display(pooling.round(3))
plotting.save_table(pooling.reset_index(), "pooling", f"ROC AUC of RR, RR minus the group-free control and SEAT under "
                    f"each token pooling against scorer {main}, the same pooling for reference and audited model, then "
                    "the spread across poolings (paper 001, Table 6; paper: RR 0.964/0.882/0.882, SEAT "
                    "0.778/0.791/0.760).", [auc_file])

# %% [markdown]
# ## Fine-tuning seeds (Appendix E.5, Figure 5)
#
# The unharmful and the harmful fine-tune are repeated under each seed (the spectrum's own seed
# is reused) and ΔB is measured per group with the base setting.

# %%
by_seed, by_seed_file = run.table("seed_shifts", lambda: ablations.seed_shifts(
    params.reference, params.groups, params.seeds, method=params.method, epochs=params.epochs,
    sentence_seed=params.seed, layer=params.layer))
seed_summary = ablations.seed_summary(by_seed)
display(seed_summary.round(4))
fig, ax = plt.subplots(figsize=(11, 3.6))
for offset, (split, frame) in zip((-0.15, 0.15), by_seed.groupby("split", sort=False), strict=False):
    position = frame.group.map({g: i for i, g in enumerate(params.groups)})
    ax.scatter(position + offset, frame.delta_b, s=10, alpha=0.7, label=split)
ax.axhline(0, color="k", lw=0.5)
ax.set_xticks(range(len(params.groups)), params.groups, rotation=60, ha="right", fontsize=7)
ax.set(ylabel="ΔB (RR)", title=f"seeds {list(params.seeds)}")
if len(by_seed):
    ax.legend()
plotting.save_figure(fig, "seeds", "ΔB per group of the unharmful and the harmful fine-tune, one point per training "
                     "seed (paper 001, Appendix E.5, Figure 5 style).", [by_seed_file])

# %% [markdown]
# ## Claims — paper value beside measured value
#
# The paper's numbers are Llama-3.1-8B's on WildGuardMix labels; these come from the offline
# spectrum (LoRA by default) and the scorer each claim names: `main` above, the first scorer in the order of
# `scorers` whose labels (ΔBiasScore > `label_threshold`) hold both classes, since ROC AUCs exist only for
# such a scorer. With VADER labels (sentiment, not a bias label; the paper reads none) the label-based claims
# are extensions; the paper does not order RR and SEAT on ToxiGen (Sec. 4.4), so with the offensive-language
# labels standing in for it the RR-vs-SEAT claim is one as well. The mean ROC AUCs carry a standard error
# from the logged AUCs and class counts (Hanley & McNeil 1982: the pairs taken as independent, as the paper
# takes them); the s.d. across seeds is compared with the gap between the unharmful and the harmful mean ΔB,
# because the scale of ΔB depends on the model (paper: 0.003 / 0.342). A `fails` outcome marks a paper
# statement this small model does not show, reported as measured.

# %%
at_largest = anchors[anchors["size"] == anchors["size"].max()].set_index("source").roc_auc
rr_pool, seat_pool = (pooling.loc[list(params.poolings), method] for method in ("RR", "SEAT"))
summary = {axis: ablations.spread(rr[rr.axis == axis].roc_auc) for axis in ("attributes", "targets")}
a, n1, n0 = rr.roc_auc, rr.n_increased, rr.n_pairs - rr.n_increased  # Hanley–McNeil s.e. of each RR AUC
rr_se = ((a * (1 - a) + (n1 - 1) * (a / (2 - a) - a**2) + (n0 - 1) * (2 * a**2 / (1 + a) - a**2)) / (n1 * n0)) ** 0.5
# s.e. of a mean over variants: at most the mean of their s.e. (reached when, sharing every label, they move together)
mean_se = {axis: float(rr_se[rr.axis == axis].mean()) for axis in ("attributes", "targets")}
splits = seed_summary.set_index("split") if len(seed_summary) else None
seed_gap = splits.mean_delta_b["unharmful"] - splits.mean_delta_b["harmful"] if splits is not None else float("nan")
label_kind = "extension" if main == "vader" else "paper"  # VADER: no bias label
seat_kind = "extension" if main in ("vader", "profanity") else "paper"  # RR vs SEAT: not stated for ToxiGen
on = f"; scorer {main}; {params.method}, mean pooling unless varied"
claims = [
    claim("neutral_anchors_best", "Sec. 4.5; Figure 4", "ROC AUC of neutral anchors minus the best other source at "
          "the largest size" + on, "> 0: 'Neutral sentences perform best, reaching ROC AUC 0.892 at 1k anchors'",
          at_largest.get("neutral", float("nan")) - at_largest.drop("neutral", errors="ignore").max(), Bound(">", 0),
          kind=label_kind),
    claim("attribute_variants_mean", "Sec. 4.5; Table 5a", "mean ROC AUC over attribute variants" + on + "; within "
          "3 s.e. of the paper's mean, its s.e. taken as the mean of the variants' Hanley–McNeil s.e.", "0.863 ± 0.030",
          summary["attributes"]["mean"], Point(0.863, se=mean_se["attributes"], k=3), kind=label_kind),
    claim("attribute_variants_stable", "Sec. 4.5; Table 5a", "population s.d. of ROC AUC over attribute variants" + on
          + "; at most the paper's s.d.", "0.030 ('Performance is stable on both axes')",
          summary["attributes"]["sd"], Bound("<=", 0.0305, reason="the paper's statement is stability ('ΔB is not "
                                             "sensitive to surface wording'): a smaller spread does not contradict "
                                             "it; 0.0305 is its 0.030 at the printed third decimal"), kind=label_kind),
    claim("target_variants_mean", "Sec. 4.5; Table 5b", "mean ROC AUC over target-template variants" + on + "; within "
          "3 s.e. of the paper's mean, its s.e. taken as the mean of the variants' Hanley–McNeil s.e.", "0.902 ± 0.008",
          summary["targets"]["mean"], Point(0.902, se=mean_se["targets"], k=3), kind=label_kind),
    claim("target_variants_stable", "Sec. 4.5; Table 5b", "population s.d. of ROC AUC over target-template variants"
          + on + "; at most the paper's s.d.", "0.008 ('Performance is stable on both axes')",
          summary["targets"]["sd"], Bound("<=", 0.0085, reason="the paper's statement is stability ('ΔB is not "
                                          "sensitive to surface wording'): a smaller spread does not contradict it; "
                                          "0.0085 is its 0.008 at the printed third decimal"), kind=label_kind),
    claim("rr_above_seat_every_pooling", "Appendix E.4; Table 6", "smallest RR − SEAT ROC AUC over poolings" + on,
          "> 0: 'RR outperforms SEAT under every pooling scheme' (0.882 vs 0.791 at worst)", (rr_pool - seat_pool).min(),
          Bound(">", 0), kind=seat_kind),
    claim("mean_pooling_best", "Appendix E.4; Table 6", "RR ROC AUC of mean pooling minus the best other pooling" + on,
          "> 0: RR 'peaks under mean pooling (0.964)', max and last 0.882 (Table 5 prints this base setting as 0.892)",
          rr_pool.get("mean", float("nan")) - rr_pool.drop("mean", errors="ignore").max(), Bound(">", 0),
          kind=label_kind),
    claim("unharmful_above_harmful", "Appendix E.5; Figure 5", f"mean ΔB of the unharmful minus the harmful fine-tune "
          f"(mean over seeds {list(params.seeds)}); {params.method}", "'mean ΔB values of 0.291 for unharmful and "
          "−0.051 for synth' (gap 0.342 > 0)", seed_gap,
          Bound(">", 0, reason="ΔB's scale is the model's (distances in its own relative space), so the paper's two "
                "values cannot be matched across models; their order, unharmful above harmful (negative ΔB is "
                "increased bias, Sec. 3.4), is what carries over")),
    claim("seeds_stable", "Appendix E.5", "largest s.d. across seeds of the corpus-mean ΔB (unharmful, harmful) over "
          f"the unharmful–harmful gap; {params.method}", "'The standard deviation is 0.003 in both cases' (0.003 / "
          "0.342 = 0.009)", splits.sd_of_mean.max() / abs(seed_gap) if splits is not None else float("nan"),
          Bound("<", 0.0035 / 0.342, reason="the paper's statement is stability ('ΔB is highly stable with respect "
                "to training randomness'): a smaller spread does not contradict it; the bound is the largest ratio "
                "its printed numbers allow, 0.003 at one printed digit (< 0.0035) over its gap 0.291 + 0.051")),
]
claims_table, claims_file = run.record_claims(claims)
plotting.save_table(claims_table, "claims", "D02 ablations of ΔB (paper 001, Sec. 4.5, Appendix E): the paper's value "
                    "beside the value measured on the offline spectrum.", [claims_file])

# %%
show_claims(claims_table, params.profile)
