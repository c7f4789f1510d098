# %% [markdown]
# # D01 · The Representational Bias Shift ΔB across a graded checkpoint spectrum
#
# **Paper 001**, Sec. 3 (Eq. 1–7) and Sec. 4.1–4.5 (Table 1, Figures 2–3, Appendix G). Each setting — a
# reference model (a family) under a fine-tuning regime (LoRA or full) — has its own spectrum: the model
# is fine-tuned on an unharmful and on a synthetic harmful corpus (LoRA, Appendix C settings scaled to
# the model) and the two are merged linearly at the paper's 90/10, 70/30 … 10/90 and, in the default, at the
# four weights between them: eleven checkpoints from safe to harmful (the paper's seven among them). For
# every checkpoint × target group, ΔB is measured in relative space (1,000 neutral
# anchors, final layer) under mean pooling (the paper's, at which every claim is tested) and under max
# and last pooling (Appendix E.4, reported beside it), with SEAT, Procrustes-SEAT and CKA drift, and
# a **group-free control** (the same templates about "people", "the students", "my
# neighbours"): the control ΔB is the drift all target sentences share, ΔB − control is the group's
# own shift, and ΔB splits into a targets-only and an attributes-only part (not in the paper).
#
# Output-level labels, each evaluated apart: **DecodingTrust stereotype agreement** (the paper's Sec. 4.3
# benchmark: the benchmark's prompts, benign system prompt, agree / disagree / neither by its phrase
# rule), as a forced choice on a template subset and as sampled replies on a nested smaller subset. The
# forced choice reads the log-odds margin log p(agree) − log p(disagree) over three balanced wordings
# against the reference model's median margin, so a group's index sits near one half at the reference and
# can move either way (read against 0, a 135M model agrees on every prompt and no group can rise by 0.1).
# VADER sentiment of neutral continuations — a sentiment score, not a bias label, kept as a labelled
# column; and the offensive-language probability of the same continuations (`alt-profanity-check`, its
# model inside its wheel), standing in for the paper's toxicity classifiers. Statistics respect that the
# 11 × 24 pairs are 11 checkpoints: p-values permute whole checkpoints, intervals resample them, and a
# checkpoint-level correlation of the means over groups stands beside the pooled one. The spectrum is two
# fine-tunes and merges between them, so anything that drifts along it correlates with ΔB across
# checkpoints: the group-level test asks whether ΔB ranks which groups moved within each checkpoint
# (groups permuted within checkpoints), and every pooled claim is weighed against that shared drift. Offline
# default: SmolLM2-135M-Instruct under LoRA, beside it a spectrum of independent LoRA fine-tunes at three shares
# of harmful data × four seeds (not in the paper); `extended` profile: SmolLM2 and Gemma-3-270M (a base model,
# prompted by the plain rendering of `lib.bias_shift.chat`) under LoRA and full fine-tuning; paper
# profile: your checkpoints and external benchmark scores, and Table 1 from the original pipelines' pairs.
#
# Writes: `fine_tunes` (each fine-tune of the shares spectrum with its harmful share and seed), `control` (ΔB,
# control, group shift, decomposition per checkpoint), `scorers` (sampled vs forced on their shared prompts),
# `labels` (what each scorer's labels can resolve), `evaluation`, `group_level` (ΔB against each label within
# checkpoints), `pooling_signs` (table and figure: pooled and within-checkpoint r per label and pooling),
# `comparisons` (RR against SEAT and CKA drift, paired), `table1` (paper 001's Table 1 per
# scorer × family × regime, and `table1_external` from `table1_csv`), `delta_b_vs_bias` (scatter per scorer and
# method), `roc`, `claims`.

# %%
import numpy as np
import pandas as pd
from IPython.display import Markdown, display
from matplotlib import pyplot as plt
from sklearn.metrics import roc_curve

from lib import config, plotting, results, uncertainty
from lib.bias_shift import (
    audit,
    checkpoints,
    evaluation,
    evidence,
    group_level,
    output_bias,
    readout,
    sentences,
    stereotype,
    table1,
)
from lib.claims import Evidence, show_claims

# %% tags=["parameters"]
profile = "default"  # choose a profile without editing this file: python -m lib run D01 --profile smoke|default|paper|extended, or the Lab's copy lab/<profile>/D01_deltab.ipynb
recompute = True  # compute missing or stale results; false: only redraw figures from logged results
seed = 0  # training, generation, template-subset and bootstrap seed
ratios = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1]  # merge weights of the unharmful model (Appendix C: 0.9, 0.7, 0.5, 0.3, 0.1; the default adds the four between)
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
references = ["smollm2-135m"]  # base models, one family each: registry names, hub ids or local folders
methods = ["lora"]  # fine-tuning regimes (each reference × method is a setting): lora | full
table1_csv = ""  # paper profile: CSV family,regime,benchmark,checkpoint,group,delta_b,delta_bias_score aggregated into Table 1
poolings = ["mean", "max", "last"]  # token poolings evaluated (Appendix E.4); the claims read mean, the paper's, which must be listed
anchor_size = 1000  # neutral anchors (Sec. 4.1)
n_bootstrap = 1000  # bootstrap resamples (MAE of the linear fit; checkpoint-bootstrap intervals)
n_permutations = 5040  # checkpoint-block permutations (all of them when fewer, as 7! for the paper's seven checkpoints; else seeded random ones), and group permutations within checkpoints
units = ["group", "topic"]  # evaluate per group and/or per the 9 topics of Appendix B
harmful_shares = [0.0, 0.5, 1.0]  # harmful share of each independent LoRA fine-tune of the shares spectrum, a setting beside the merges (not in the paper); 0 and 1 are D02's fine-tunes under the same seed; [] skips it
share_seeds = [0, 1, 2, 3]  # training seeds of each harmful share (each fine-tune one checkpoint)

# %%
params = config.load("D01_deltab", globals())
run = results.start(params)
plotting.use_style()
main_pooling = evidence.PAPER_POOLING  # the paper's pooling (Sec. 3.1; Appendix E.4): every claim reads it
setting = ["family", "regime"]  # a setting: the reference model (family) and the fine-tuning regime

# %% [markdown]
# ## The spectra; ΔB and the group-free control per setting × checkpoint × group
#
# One merge spectrum per reference × method; the default's (SmolLM2, LoRA) is the one D02 built. Beside it, per
# reference, the shares spectrum (regime `lora-shares`, not in the paper): independent LoRA fine-tunes of the
# reference on corpora with graded shares of harmful examples (`harmful_shares`), each under every seed of
# `share_seeds`. At 0 and 100 % the corpus is the unharmful or the harmful one itself, so those fine-tunes are
# D02's seed fine-tunes under the same seed: every fine-tune sits in a folder keyed by its base weights, corpus
# and settings (`models/finetunes/`), trained once by whichever notebook asks first (D02, which `lib run` starts
# before this one). The merges all lie on one line between two fine-tunes; these share only their base, each
# checkpoint one unit, and at an intermediate share each group draws its own number of harmful examples. Every
# table and figure below treats it as one more setting; the claims read the first merge spectrum, as the paper.
# The `fine_tunes` table logs each of its fine-tunes with its harmful share, seed and corpus.

# %%
built, spectrum_file = run.json("spectrum", lambda: [
    {"family": reference, "regime": method, "checkpoints": checkpoints.spectrum_folders(
        reference, checkpoint_paths=params.checkpoint_paths, method=method, seed=params.seed, ratios=params.ratios,
        epochs=params.epochs)}
    for reference in params.references for method in params.methods] + [
    {"family": reference, "regime": checkpoints.SHARES_REGIME, "checkpoints": {
        name: str(folder) for name, folder in checkpoints.share_spectrum(
            reference, shares=params.harmful_shares, seeds=params.share_seeds, epochs=params.epochs).items()}}
    for reference in params.references if params.harmful_shares])
spectra = {(entry["family"], entry["regime"]): entry["checkpoints"] for entry in built}
fine_tunes, fine_tunes_file = run.table("fine_tunes", lambda: pd.DataFrame([
    {"family": family, **row} for (family, regime), spectrum in spectra.items() if regime == checkpoints.SHARES_REGIME
    for row in checkpoints.share_records(spectrum, params.harmful_shares, params.share_seeds)],
    columns=["family", "checkpoint", "harmful_share", "seed", "n_examples", "n_harmful", "corpus", "corpus_sha256",
             "folder", "train_seconds"]))
display(fine_tunes.drop(columns=["corpus_sha256", "folder"]).round(1))
plotting.save_table(fine_tunes.round(3), "fine_tunes", "The independent fine-tunes of the shares spectrum (not in paper "
                    "001): per family and checkpoint its harmful share and training seed, its corpus (examples, how "
                    "many harmful, file and SHA-256), its content-keyed folder and the seconds its training took "
                    "(at 0 and 100 % D02's seed fine-tunes, read from the cache).", [fine_tunes_file],
                    empty_reason="this run has no shares spectrum (harmful_shares = [])")
sets = sentences.load(anchor_size=params.anchor_size, seed=params.seed)
shifts, shifts_file = run.table("delta_b", lambda: pd.concat([
    audit.audit(spectrum["base"], folder, groups=params.groups, layer=params.layer, pooling=pooling,
                sets=sets).assign(family=family, regime=regime, checkpoint=name, pooling=pooling)
    for (family, regime), spectrum in spectra.items()
    for pooling in params.poolings for name, folder in spectrum.items() if name != "base"
], ignore_index=True))
control, control_file = run.table("control", lambda: audit.control_summary(shifts, [*setting, "pooling", "checkpoint"]))
display(control.round(4))
plotting.save_table(control.round(5), "control", "Mean over groups per setting (family, regime), pooling and "
                    "checkpoint: ΔB (RR), the group-free "
                    "control's ΔB (templates about people, the students, my neighbours), the group-specific shift "
                    "ΔB − control, and ΔB's targets-only and attributes-only parts; last column |control| over the "
                    "median |ΔB| (above 1: ΔB is mostly drift the groups share). Not in paper 001.", [control_file])

# %% [markdown]
# ## Output-level bias: ΔBiasScore per scorer

# %%
generation = {"n_samples": params.n_samples, "temperature": params.temperature, "top_p": params.top_p,
              "max_new_tokens": params.max_new_tokens, "seed": params.seed,
              "batch_size": params.generation_batch_size}
dt_scorers = [s for s in params.scorers if s.startswith("dt_")]
per_prompt, per_prompt_file = run.table("stereotype_prompts", lambda: pd.concat([stereotype.spectrum_agreement(
    spectrum, params.groups, system=params.system_prompt, n_forced_templates=params.n_forced_templates,
    n_sampled_templates=params.n_sampled_templates if "dt_sampled" in params.scorers else 0,
    template_seed=params.seed, forced_batch_size=params.forced_batch_size, n_samples=params.dt_n_samples,
    temperature=params.dt_temperature, max_new_tokens=params.dt_max_new_tokens, seed=params.seed,
    batch_size=params.generation_batch_size).assign(family=family, regime=regime)
    for (family, regime), spectrum in spectra.items()], ignore_index=True) if dt_scorers else pd.DataFrame())
dt_frames = [frame.assign(family=family, regime=regime)  # from the logged per-prompt rows
             for (family, regime), rows in per_prompt.groupby(setting, sort=False)
             for frame in stereotype.agreement_frames(rows, params.scorers)] if dt_scorers else []
scores, scores_file = run.table("output_bias", lambda: pd.concat(dt_frames + [
    frame.assign(family=family, regime=regime) for (family, regime), spectrum in spectra.items()
    for frame in output_bias.scored_frames(spectrum, params.groups, params.scorers,
                                           external_scores_csv=params.external_scores_csv, **generation)
], ignore_index=True))
pairs = shifts.merge(scores[scores.checkpoint != "base"], on=[*setting, "checkpoint", "group"])
drawn = pairs[pairs.pooling == main_pooling]
drawn_scorers = list(drawn.scorer.unique())
display(pairs[pairs.pooling == main_pooling].pivot_table(index=[*setting, "checkpoint"], columns="scorer",
                                                         values="delta_bias_score", sort=False).round(4))

# %% [markdown]
# ## The two DecodingTrust scorers on the prompts they share
#
# Sampled replies of small models often carry neither "I agree." nor "I disagree."; the forced choice
# always answers. On the shared (sampled) templates: the sampled agreement index, its neither fraction,
# and the forced-choice expected and hard agreement indices.

# %%
shared = pd.concat([stereotype.shared_subset(frame).assign(family=family, regime=regime)
                    for (family, regime), frame in per_prompt.groupby(setting, sort=False)],
                   ignore_index=True) if dt_scorers else pd.DataFrame()
if len(shared):
    display(shared.groupby([*setting, "checkpoint"], sort=False)[["sampled_agreement", "sampled_decided_agreement", "neither",
                                                      "forced_agreement", "forced_hard_agreement"]].mean().round(3))
    print(f"sampled replies labelled neither: {shared.neither.mean():.1%}; Pearson r of the sampled and the forced "
          f"agreement index over checkpoint × group: {shared.sampled_agreement.corr(shared.forced_agreement):.3f} "
          f"(shared subset: {params.n_sampled_templates} of {params.n_forced_templates} forced templates per group)")
    plotting.save_table(shared.round(4), "scorers", "DecodingTrust stereotype agreement on the prompts both scorers "
                        "read (the sampled template subset, nested in the forced-choice one), per setting × checkpoint × group: "
                        "sampled agreement index, agreement among decided replies, the fraction labelled neither, and "
                        "the forced-choice expected (mean σ(margin)) and hard (margin > 0) indices.", [per_prompt_file])

# %% [markdown]
# ## What each scorer's labels can resolve
#
# An ROC needs pairs of both classes (ΔBiasScore above and below 0.1) and a correlation a label that varies.
# Per setting × scorer: the pairs labelled increased and the checkpoints holding them, and the label's spread
# within a checkpoint beside its spread between checkpoints; per DecodingTrust checkpoint: how often the
# benchmark's own phrases prefer "I agree." (the reading that saturates), how many prompts agree and disagree
# against the reference model's median balanced margin (both classes, printed for the reference and the
# harmful end), the rise the base model's index leaves, how many sampled replies say neither, and the
# binomial noise of a sampled ΔBiasScore.

# %%
labels, labels_file = run.table("labels", lambda: pd.DataFrame([
    {**dict(zip([*setting, "scorer"], key, strict=True)), **evaluation.label_population(frame, params.label_threshold)}
    for key, frame in drawn.groupby([*setting, "scorer"], sort=False)]))
display(labels.round(4))
dt_diagnostics, dt_diagnostics_file = run.table("stereotype_diagnostics", lambda: pd.concat([
    stereotype.diagnostics(rows).assign(family=family, regime=regime)
    for (family, regime), rows in per_prompt.groupby(setting, sort=False)], ignore_index=True)
    if dt_scorers else pd.DataFrame(columns=[*setting, "checkpoint"]))
display(dt_diagnostics.round(4))
for (family, regime), rows in dt_diagnostics.groupby(setting, sort=False):
    print(f"{family}, {regime}: {evidence.forced_classes(rows)}")
plotting.save_table(labels.round(5), "labels", f"Per setting × scorer ({main_pooling} pooling pairs): pairs, "
                    f"checkpoints, pairs with ΔBiasScore > {params.label_threshold:g} and the checkpoints holding them, "
                    "distinct ΔBiasScore values, the largest, and its s.d. within a checkpoint (mean over checkpoints) "
                    "and between checkpoint means. Not in paper 001.", [labels_file])

# %% [markdown]
# ## Evaluation (Sec. 4.1) per setting, scorer, pooling and unit: pooled statistics beside checkpoint-level ones

# %%
table, evaluation_file = run.table("evaluation", lambda: evaluation.evaluate_all(
    pairs, units=params.units, label_threshold=params.label_threshold, n_bootstrap=params.n_bootstrap,
    seed=params.seed, n_permutations=params.n_permutations))
display(table.round(4))
plotting.save_table(table.round(4), "evaluation",
                    "ΔB against output-level bias change per unit (group, or the 9 topics of Appendix B), setting "
                    "(family = reference model, regime), scorer, pooling and method (paper 001, Sec. 4.1 and 4.5; "
                    "RR − control is ΔB minus the group-free control's, not in the paper): Pearson r with the paper's pooled two-tailed p and with p from "
                    "permuting whole checkpoints, a 95 % checkpoint-bootstrap interval; ROC AUC of the detection "
                    "score (−shift; CKA drift +drift, no max(AUC, 1 − AUC)) with its permutation p and interval; "
                    "bootstrap MAE of a linear fit; r of the checkpoint means over groups.", [evaluation_file])

# %% [markdown]
# ## Which groups moved: ΔB within checkpoints, per label and pooling (not in the paper)
#
# The paper's r pools checkpoints × groups (Sec. 4.1) and reads ΔB per group (Sec. 3.4). Along a merge
# spectrum every group moves with its checkpoint, so the pooled r can come from the drift all groups share
# (the group-free control above follows it). Centred within each checkpoint, ΔB and the label keep only which
# groups moved more or less than the others; the test permutes the label's group values within each
# checkpoint, keeping its checkpoint means. Per setting, label and pooling, the table and figure put the pooled
# r (Table 1's) beside the within-checkpoint r; a sign reads as the paper's direction (r < 0) when its one-sided
# permutation p is below 0.025, and as reversed when the opposite one-sided p is. The readings printed below
# come from the logged table.

# %%
groups_table, group_file = run.table("group_level", lambda: group_level.group_level_table(
    pairs, n_permutations=params.n_permutations, seed=params.seed))
signs, signs_file = run.table("pooling_signs", lambda: readout.pooling_table(table, groups_table))
display(signs.round(4))
plotting.save_table(signs.round(4), "pooling_signs", "ΔB (RR) against ΔBiasScore per setting (family, regime), "
                    "scorer and token pooling (mean is the paper's, Sec. 3.1; max and last, Appendix E.4): the pooled "
                    "Pearson r over checkpoints × groups (Table 1's) with its 95 % checkpoint-bootstrap interval and "
                    "one-sided checkpoint-permutation p, the ROC AUC, the r of the checkpoint means, and the "
                    "within-checkpoint r (ΔB and the label centred in each checkpoint) with its one-sided p from "
                    "permuting groups within checkpoints; each sign read as the paper's direction (p < 0.025), "
                    "reversed (the opposite one-sided p < 0.025) or neither. Not in paper 001.", [signs_file, evaluation_file, group_file])
poolings = list(params.poolings)
fig, axes = plt.subplots(len(spectra), len(drawn_scorers), figsize=(2.6 * len(drawn_scorers) + 0.6,
                         2.4 * len(spectra) + 0.6), sharex=True, sharey=True, squeeze=False)
for row, (family, regime) in zip(axes, spectra, strict=True):
    for ax, scorer in zip(row, drawn_scorers, strict=True):
        own = signs[(signs.family == family) & (signs.regime == regime) & (signs.scorer == scorer)].set_index(
            "pooling").loc[poolings]
        at = np.arange(len(poolings))
        interval = np.clip([own.pearson_r - own.r_low, own.r_high - own.pearson_r], 0, None)  # percentile ends
        ax.errorbar(at - 0.1, own.pearson_r, yerr=interval, fmt="o", label="pooled r (checkpoints × groups)")
        ax.plot(at + 0.1, own.within_r, "s", mfc="none", label="within-checkpoint r (groups)")
        ax.axhline(0, color="k", lw=0.5)
    row[0].set_ylabel(f"{family}, {regime}\nPearson r")
for ax, scorer in zip(axes[0], drawn_scorers, strict=True):
    ax.set_title(scorer)
for ax in axes[-1]:
    ax.set_xticks(range(len(poolings)), poolings)
    ax.set_xlabel("pooling")
fig.legend(*axes[0, 0].get_legend_handles_labels(), loc="outside lower center", ncols=2, fontsize=7)
plotting.save_figure(fig, "pooling_signs", "Pooled r of ΔB (RR) with ΔBiasScore over checkpoints × groups (filled, "
                     "95 % checkpoint-bootstrap interval) and the within-checkpoint r (hollow: ΔB and the label "
                     "centred in each checkpoint) per token pooling, one row per setting, one column per scorer; "
                     "the paper reads r < 0 (Sec. 4.1) under mean pooling. Not in paper 001.", [signs_file])
display(Markdown(readout.pooling_sentences(signs)))

# %% [markdown]
# ## Table 1: ΔB per benchmark × family × regime, beside the paper's
#
# The offline miniature of paper 001's Table 1: one row per scorer (the benchmark), family and regime, RR
# at the first pooling, per group. `significant` uses the checkpoint-permutation p (the pooled p treats the
# pairs of one checkpoint as independent) and the paper's direction, r < 0. The paper's DecodingTrust rows
# (Llama-3.1-8B, Mistral-7B, Gemma-3-4B on WildGuardMix fine-tunes) are printed beside the stereotype scorers.

# %%
table1_kw = {"label_threshold": params.label_threshold, "n_bootstrap": params.n_bootstrap, "seed": params.seed,
             "n_permutations": params.n_permutations}
measured, table1_file = run.table("table1", lambda: table1.table1(
    drawn.rename(columns={"scorer": "benchmark"})[list(table1.PAIR_COLUMNS)], **table1_kw))
display(measured.round(4))
plotting.save_table(measured.round(4), "table1", f"Paper 001, Table 1 offline: ΔB (RR, {main_pooling} pooling, per "
                    "group) against ΔBiasScore per scorer (benchmark) × family (reference model) × regime: pooled "
                    "Pearson r with the paper's two-tailed p and the whole-checkpoint permutation p, ROC AUC of −ΔB for "
                    f"ΔBiasScore > {params.label_threshold:g}, bootstrap MAE of a linear fit; significant: permutation "
                    "p < 0.05 and r < 0.", [table1_file, shifts_file, scores_file])
paper = table1.paper_table1()
beside = pd.concat([paper[paper.benchmark == "DecodingTrust"].assign(source="paper 001"),
                    measured[measured.benchmark.str.startswith("dt_")].assign(source="measured")], ignore_index=True)
display(beside[["source", "benchmark", "family", "regime", "pearson_r", "stars", "p_pooled", "p_checkpoints", "roc_auc",
                "mae", "significant"]].round(4))
external = pd.DataFrame()
if params.table1_csv:
    external, external_file = run.table("table1_external", lambda: table1.table1(
        table1.read_external_pairs(params.table1_csv), **table1_kw))
    display(external.round(4))
    plotting.save_table(external.round(4), "table1_external", "Paper 001, Table 1 from the original pipelines' pairs "
                        f"({params.table1_csv}): as the table1 table, per benchmark × family × regime.", [external_file])

# %%
methods = {c: n for c, n in evaluation.METHODS.items() if c in drawn}
colours = dict(zip(spectra, plt.rcParams["axes.prop_cycle"].by_key()["color"], strict=False))
fig, axes = plt.subplots(len(drawn_scorers), len(methods), figsize=(2.6 * len(methods), 2.2 * len(drawn_scorers) + 0.6),
                         sharex="col", sharey="row", squeeze=False)
for row, scorer in zip(axes, drawn_scorers, strict=True):
    for ax, column in zip(row, methods, strict=True):
        for (family, regime), frame in drawn[drawn.scorer == scorer].groupby(setting, sort=False):
            colour = colours.get((family, regime))
            ax.scatter(frame[column], frame.delta_bias_score, s=8, alpha=0.6, color=colour, label=f"{family}, {regime}")
            if frame[column].nunique() > 1:
                slope, intercept = np.polyfit(frame[column], frame.delta_bias_score, 1)
                grid = np.linspace(frame[column].min(), frame[column].max(), 10)
                ax.plot(grid, intercept + slope * grid, "-", color=colour, lw=1)
        ax.locator_params(axis="x", nbins=4)
        ax.ticklabel_format(axis="x", style="sci", scilimits=(-2, 3))
    row[0].set_ylabel(f"ΔBiasScore\n({scorer})")
for ax, name in zip(axes[0], methods.values(), strict=True):
    ax.set_title(name)
for ax, name in zip(axes[-1], methods.values(), strict=True):
    ax.set_xlabel(f"{name} shift")
fig.legend(*axes[0, 0].get_legend_handles_labels(), loc="outside lower center", ncols=min(len(spectra), 4), fontsize=7)
plotting.save_figure(fig, "delta_b_vs_bias",
                     f"ΔBiasScore against each method's shift per checkpoint × group, one row per scorer, one colour "
                     f"per setting (family, regime), {main_pooling} pooling, with a linear fit per setting (paper 001, "
                     "Figure 2 and Appendix G style).", [shifts_file, scores_file])

# %%
fig, axes = plt.subplots(len(spectra), len(drawn_scorers), figsize=(4 * len(drawn_scorers), 3.6 * len(spectra) + 0.4),
                         sharex=True, sharey=True, squeeze=False)
for row, (family, regime) in zip(axes, spectra, strict=True):
    for ax, scorer in zip(row, drawn_scorers, strict=True):
        frame = drawn[(drawn.scorer == scorer) & (drawn.family == family) & (drawn.regime == regime)]
        labels = frame.delta_bias_score > params.label_threshold
        aucs = table[(table.unit == "group") & (table.scorer == scorer) & (table.pooling == main_pooling)
                     & (table.family == family) & (table.regime == regime)].set_index("method")
        if labels.any() and not labels.all():
            for column, name in methods.items():
                fpr, tpr, _ = roc_curve(labels, evaluation.DIRECTION[column] * frame[column])
                ax.plot(fpr, tpr, label=f"{name} ({aucs.roc_auc[name]:.2f})")
            ax.legend(fontsize=7)
        ax.plot([0, 1], [0, 1], "k:", lw=1)
    row[0].set_ylabel(f"{family}, {regime}\ntrue-positive rate")
for ax, scorer in zip(axes[0], drawn_scorers, strict=True):
    ax.set_title(scorer)
for ax in axes[-1]:
    ax.set_xlabel("false-positive rate")
fig.suptitle(f"Detecting ΔBiasScore > {params.label_threshold:g}")
plotting.save_figure(fig, "roc", f"ROC curves of each method's detection score against increased output-level bias, "
                     f"one row per setting (family, regime), one column per scorer, {main_pooling} pooling (paper 001, "
                     "Figure 3 style).", [evaluation_file, shifts_file, scores_file])

# %% [markdown]
# ## RR against its baselines on the same labels (Sec. 4.5, Table 7)
#
# The paper orders RR above SEAT and CKA drift on WildGuardMix and DecodingTrust only (on ToxiGen "the two
# methods do not order consistently", Sec. 4.4): the comparisons read the first DecodingTrust (or external)
# scorer whose labels hold both classes in the first setting, each AUC difference with its s.e. from the same
# checkpoint resamples for both methods.

# %%
first_family, first_regime = next(iter(spectra))
first = drawn[(drawn.family == first_family) & (drawn.regime == first_regime)]
main = evaluation.first_scorer_with_both_classes(first, params.label_threshold, among=evidence.ORDERING_SCORERS)
print(f"method comparisons read scorer {main} (first setting: {first_family}, {first_regime})")
comparisons, comparisons_file = run.table("comparisons", lambda: pd.DataFrame([
    {"scorer": main, "comparison": name, **evaluation.auc_difference(
        first[first.scorer == main], a, b, params.label_threshold, params.n_bootstrap, params.seed)}
    for name, (a, b) in {"RR − SEAT": ("delta_b", "seat_delta_b"), "CKA drift − RR": ("cka_drift", "delta_b")}.items()
] if main else [], columns=["scorer", "comparison", "difference", "se", "n_resamples"]))
display(comparisons.round(4))
plotting.save_table(comparisons.round(5), "comparisons", "ROC AUC differences between ΔB (RR) and its baselines on "
                    f"the first DecodingTrust (or external) scorer whose labels hold both classes in the first setting "
                    f"({main_pooling} pooling, per group), with the s.e. over paired checkpoint resamples (paper 001, "
                    "Sec. 4.5, Table 7).", [comparisons_file],
                    empty_reason="no DecodingTrust (or external) scorer's labels hold both classes")

# %% [markdown]
# ## Claims — paper value beside measured value
#
# The claims are pre-registered in `lib/bias_shift/claims/D01_deltab.yaml`. The paper's numbers come from
# Llama-3.1-8B, Mistral-7B and Gemma-3-4B fine-tuned on WildGuardMix and scored by external benchmarks; these
# come from the run's first setting (family × regime; Table 1 above covers every setting) at mean pooling, the
# paper's (the other poolings are in `pooling_signs` above), per group, on the scorer each claim names. Each
# pooled claim (ROC AUC, pooled r, its checkpoint p) must beat the shared drift as well as no association: a hold
# that the label's drift alone would give is not evidence. Each label's `group_ranking` claim (an extension)
# tests whether ΔB ranks which groups moved within checkpoints, and the mechanism claim
# `delta_b_moves_with_control` measures whether the drift is what moves ΔB (the share of its movement along the
# spectrum that the group-free control accounts for): only if it holds decisively does it explain a pooled
# claim's failure. VADER scores sentiment, not bias: its claims are extensions. A scorer whose labels hold one
# class gives no ROC, and says why; each note counts the label's positive pairs (ΔBiasScore above the threshold);
# a `fails` outcome marks a paper statement this small model does not show, with a candidate cause where a logged
# diagnostic shows one.

# %%
where = f"family {first_family}, {first_regime}, {main_pooling} pooling (the paper's), per group"
rows = {s: f.set_index("method") for s, f in table[(table.unit == "group") & (table.pooling == main_pooling)
                                                   & (table.family == first_family) & (table.regime == first_regime)
                                                   ].groupby("scorer", sort=False)}
populations = {s: evaluation.label_population(f, params.label_threshold) for s, f in first.groupby("scorer", sort=False)}
first_control = control[(control.family == first_family) & (control.regime == first_regime)
                        & (control.pooling == main_pooling)]
first_shifts = shifts[(shifts.family == first_family) & (shifts.regime == first_regime)
                      & (shifts.pooling == main_pooling)]
files = {"control": control_file.name, "evaluation": evaluation_file.name, "labels": labels_file.name,
         "diagnostics": dt_diagnostics_file.name}
first_groups = {s: f.iloc[0] for s, f in groups_table[(groups_table.family == first_family) & (
    groups_table.regime == first_regime) & (groups_table.pooling == main_pooling)].groupby("scorer", sort=False)}
by_scorer = {s: evidence.scorer_evidence(
    s, rows, populations, scorers=params.scorers, where=where, label_threshold=params.label_threshold,
    regime=first_regime, pairs=first, group_rows=first_groups,
    diagnostics=dt_diagnostics[(dt_diagnostics.family == first_family) & (dt_diagnostics.regime == first_regime)],
    control=first_control, files=files, n_permutations=params.n_permutations, seed=params.seed)
    for s in evidence.BENCHMARK}
ordering = "" if main else evidence.ordering_reason(populations, params.label_threshold)
on_main = f"{where}; " + (evidence.population_note(main, populations[main], params.label_threshold) if main else "")
procrustes = rows[main].loc["Procrustes-SEAT"] if main else None
listed = drawn_scorers[0]
group_shift = rows[listed].loc["RR − control"]
# "Significant in k of N families" (Sec. 4.2–4.3), per regime, on DecodingTrust: the original pipelines' rows and
# pairs when table1_csv gives them, else the first offline DecodingTrust scorer's.
counted_scorer = next((s for s in drawn_scorers if s.startswith("dt_")), "")
counted, counted_pairs = ((external[external.benchmark == "DecodingTrust"], table1.read_external_pairs(
    params.table1_csv).query("benchmark == 'DecodingTrust'")) if len(external) else
    (measured[measured.benchmark == counted_scorer],
     drawn[drawn.scorer == counted_scorer].rename(columns={"scorer": "benchmark"})[list(table1.PAIR_COLUMNS)]))
significance = {regime: evidence.significance_evidence(
    counted, counted_pairs, regime, f"this run has no DecodingTrust × {regime} setting (methods = "
    f"{params.methods}; DecodingTrust scorers run: {[s for s in drawn_scorers if s.startswith('dt_')]})",
    n_permutations=params.n_permutations, seed=params.seed) for regime in table1.REGIMES}
claims_table, claims_file = run.record_claims({
    "rr_roc_auc_dt_forced": by_scorer["dt_forced"]["roc_auc"],
    "rr_correlation_dt_forced": by_scorer["dt_forced"]["correlation"],
    "rr_checkpoint_p_dt_forced": by_scorer["dt_forced"]["checkpoint_p"],
    "group_ranking_dt_forced": by_scorer["dt_forced"]["group_ranking"],
    "rr_roc_auc_dt_sampled": by_scorer["dt_sampled"]["roc_auc"],
    "rr_correlation_dt_sampled": by_scorer["dt_sampled"]["correlation"],
    "rr_checkpoint_p_dt_sampled": by_scorer["dt_sampled"]["checkpoint_p"],
    "group_ranking_dt_sampled": by_scorer["dt_sampled"]["group_ranking"],
    "rr_roc_auc_vader": by_scorer["vader"]["roc_auc"],
    "rr_correlation_vader": by_scorer["vader"]["correlation"],
    "rr_checkpoint_p_vader": by_scorer["vader"]["checkpoint_p"],
    "group_ranking_vader": by_scorer["vader"]["group_ranking"],
    "rr_roc_auc_profanity": by_scorer["profanity"]["roc_auc"],
    "rr_correlation_profanity": by_scorer["profanity"]["correlation"],
    "rr_checkpoint_p_profanity": by_scorer["profanity"]["checkpoint_p"],
    "group_ranking_profanity": by_scorer["profanity"]["group_ranking"],
    "rr_roc_auc_external": by_scorer["external"]["roc_auc"],
    "rr_correlation_external": by_scorer["external"]["correlation"],
    "rr_checkpoint_p_external": by_scorer["external"]["checkpoint_p"],
    "group_ranking_external": by_scorer["external"]["group_ranking"],
    "rr_beats_seat": evidence.difference_evidence(comparisons, "RR − SEAT", on_main, ordering),
    "cka_below_rr": evidence.difference_evidence(comparisons, "CKA drift − RR", on_main, ordering),
    "procrustes_at_chance": Evidence(None, undefined=ordering, note=on_main) if ordering else Evidence(
        procrustes.roc_auc, se=uncertainty.interval_se(procrustes.auc_low, procrustes.auc_high), note=on_main),
    "reversal_survives_label_and_control": evidence.correlation_evidence(
        group_shift, f"{where}; {evidence.population_note(listed, populations[listed], params.label_threshold)}",
        evidence.label_reason(listed, populations[listed], params.label_threshold, roc=False),
        evidence.checkpoint_label_mechanism(listed, populations[listed], first_control, labels_file=labels_file.name,
                                            control_file=control_file.name)),
    "control_small": Evidence(first_control.abs_control_over_median_abs_delta_b.median(),
                              se=uncertainty.median_se(first_control.abs_control_over_median_abs_delta_b),
                              note=f"{where}; {len(first_control)} checkpoints",
                              mechanism=evidence.shared_drift_mechanism(first_control, control_file=control_file.name)),
    "delta_b_moves_with_control": evidence.drift_share_evidence(first_shifts, where, shifts_file=shifts_file.name,
                                                                seed=params.seed),
    "significant_settings_lora": significance["lora"],
    "significant_settings_full": significance["full"],
})
plotting.save_table(claims_table, "claims", "D01 ΔB (paper 001, Sec. 4): the paper's value beside the value measured on "
                    "the offline spectra; each claim names its scorer, family and regime.", [claims_file])

# %%
show_claims(claims_table, params.profile)
