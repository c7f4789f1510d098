# %% [markdown]
# # K02 · Controls of the count: threshold, search path, layer rule, basis, input format, labels
#
# **Paper 002**, App. A.1.5 (Lemma 1, Proposition 1), A.1.11 (Tables 15, 19) and A.2.2. The estimator
# controls are recomputed from the curves K01 logs, without fitting again: threshold factor 0.90 and
# 0.975 instead of 0.95, ranking-only and ℓ1-only search, and the best single layer instead of
# neighbour confirmation; each is compared with the main task order by Spearman's ρ under the three
# treatments of infinite and low-ceiling cells (all, finite, gated). Lemma 1(ii) is checked on every
# decision and seed. Three controls fit again: a random rotation of the features on the same window, seeds,
# subsamples and test split, so its factor is read seed by seed (Proposition 1: only per-coordinate affine maps leave
# k* unchanged); the other input format, whose own sweep
# locates its own window (A.1.2 reads an instruction-tuned model as a single user turn plus the generation prompt,
# so its control is plain text, and a base model's is its chat template; A.3.2); and shuffled labels, the whole
# search on permuted labels (the paper: the search "does not produce high AUROCs from label noise"): its own sweep
# locates its own window, the five-seed window and confirmation follow, and the largest AUROC of any probe fitted is
# compared with the level that the largest of every shuffled fit together, read as independent null AUROCs,
# would exceed 5 % of the time (this notebook's reading; the paper's Table 7 was lost).
#
# Writes: `variants` (task tables per control), `agreement`, `rotated_window`, `rotation`, `rotation_pairs` (per
# seed, the count in both bases and their log ratio), `format_window`,
# `format`, `format_texts` (words per
# text of the format tasks), `shuffled_sweep`, `shuffled_window`, `shuffled_counts`, `shuffled` (the search
# maxima), `split_precision` (per task, the ceiling's s.e. against its gap C − τ), `claims`.

# %%
import dataclasses
import functools

import numpy as np
import pandas as pd
from IPython.display import display

from lib import claim_catalogue, config, plotting, results, uncertainty
from lib.claims import Evidence, show_claims
from lib.kstar import estimator, measure
from lib.kstar.evidence import claim_notes, seed_draws
from lib.kstar.protocol import counts

# %% tags=["parameters"]
profile = "default"  # choose a profile without editing this file: python -m lib run K02 --profile smoke|default|paper, or the Lab's copy lab/<profile>/K02_kstar_controls.ipynb
recompute = True  # compute missing or stale results; false: only redraw figures from logged results
n_jobs = 1  # worker processes (-1: this process's share of cores); results do not depend on it
scheduler = ""  # Dask scheduler address (tcp://host:8786) for the searches; empty: local processes; results do not depend on it
tasks = ["bbc_topic", "rt_sentiment", "rt_subjectivity", "debate_moderator", "dreaddit_stress", "word_valence"]  # task pools (A.1.3)
cap = 300  # texts per split of a pool (A.1.3 caps; the paper's pools hold up to 10,000)
max_classes = 5  # one-vs-rest decisions per multiclass task (a seeded subset beyond)
pool_seed = 0  # seed of the pools, shared by all models (A.1.3)
max_tokens = 128  # input truncation in tokens (paper: 768)
layers = "grid:6"  # probed blocks per model: "grid:N" (N blocks evenly over depth), a list "3,6,9" or "table6" (the paper's Table 6 grid, A.1.9)
sweep_poolings = ["mean", "last"]  # representations of the preliminary sweep (A.1.6)
seeds = [1, 2, 3, 4, 5]  # five-seed measurement (A.1.6: seeds 1-5)
subsample = 0.85  # share of each training class kept per seed (A.1.6)
frac = 0.95  # threshold factor of Eq. 4: τ is ½ + frac·(C − ½)
min_positives = 5  # positives per split a decision needs (A.1.3: 5 for core tasks)
models = ["minilm", "smollm2-135m", "gemma3-270m"]  # registry names, hub ids or local checkpoint folders
thresholds = [0.9, 0.975]  # alternative threshold factors frac of Eq. 4
control_model = "smollm2-135m"  # the model rotated and read in its other input format (one of models)
rotation_seed = 0  # seed of the random orthogonal rotation
format_tasks = ["rt_sentiment", "rt_subjectivity", "debate_moderator", "word_valence"]  # tasks read in the other input format (short texts: CPU budget)
shuffle_seed = 0  # seed of the shuffled-label control
min_shared_tasks = 6  # Spearman agreement needs this many shared tasks

# %%
params = config.load("K02_kstar_controls", globals())
measure.prepare_models(params.models)  # an unknown model stops here, before any compute
if params.control_model not in params.models:
    raise config.ConfigError(f"control_model={params.control_model!r} is not one of models={list(params.models)}")
run = results.start(params)
plotting.use_style()
protocol = estimator.Protocol.of(params)
execution = {"n_jobs": params.n_jobs, "scheduler": params.scheduler}
print(estimator.input_formats(params.models))
# Algorithm 2 in one entry per condition, each run once and only if a table below is missing or stale
main_run = functools.cache(lambda: estimator.kstar_tables(params.models, protocol, **execution))

# %% [markdown]
# ## The main measurement (shared with K01: computed once, read from the table cache)

# %%
sweep, _ = run.table("sweep", lambda: main_run().sweep)
window, window_file = run.table("window", lambda: main_run().window_fits)

# %% [markdown]
# ## Estimator controls from the logged curves (A.1.11, Table 19)

# %%
tables, tables_file = run.table("variants", lambda: counts.variants(window, params.thresholds, params.frac))
agreement, agreement_file = run.table("agreement", lambda: counts.agreement_table(tables, params.min_shared_tasks))
display(tables.pivot_table(index=["model", "task"], columns="variant", values="kstar"))
display(agreement.pivot_table(index=["model", "variant"], columns="treatment", values="rho").round(3))
plotting.save_table(agreement.round(4), "agreement", "Spearman ρ between the main task order and each estimator "
                    "control, per model, under the three treatments of A.2.1 (all: ∞ tied at the top; finite; gated: "
                    "readable only); NaN where fewer shared tasks remain than the minimum (paper 002, A.1.11, A.2.2).",
                    [agreement_file])
monotone = counts.monotone_share(window, [*params.thresholds, params.frac])
print(f"Lemma 1(ii): confirmed counts non-decreasing in the threshold factor for {monotone:.1%} of decision × seed")

# %% [markdown]
# ## Random rotation of the basis (Proposition 1, Table 15)

# %%
main = tables[tables.variant == "main"].drop(columns="variant")
rotated = functools.cache(lambda: estimator.kstar_tables([params.control_model], protocol, control="rotation",
                                                         control_seed=params.rotation_seed, **execution))
rotated_window, _ = run.table("rotated_window", lambda: rotated().window_fits)
rotation, rotation_file = run.table("rotation", lambda: counts.compare_tables(
    main[main.model == params.control_model], rotated().counts))
main_seeds = seed_draws.per_seed_values(window, params.frac)
rotation_pairs, rotation_pairs_file = run.table("rotation_pairs", lambda: seed_draws.paired_ratios(
    main_seeds, seed_draws.per_seed_values(rotated_window, params.frac)))
display(rotation)
plotting.save_table(rotation.round(4), "rotation", f"k* and ceiling of {params.control_model} in its own basis and "
                    "after a random orthogonal rotation of the residual stream (same window, seeds and pools; paper 002, "
                    "A.1.5 Proposition 1, A.1.11 Table 15); ratio = rotated / main.", [rotation_file])
plotting.save_table(rotation_pairs.round(4), "rotation_pairs", f"Per task and seed of {params.control_model}: the "
                    "seed's task value in its own basis and after the rotation, each fitted on the seed's own training "
                    "subsample against the same test split, and log(rotated / main) (∞/∞ reads 0); the rotation factor "
                    "is exp(|median over seeds|) (paper 002, A.1.6, Table 15).", [rotation_pairs_file])

# %% [markdown]
# ## The other input format (A.1.2, A.3.2)
#
# The control model is read in the format A.1.2 does not give it, and that condition's own sweep locates its own
# window (A.3.2); the comparison is per task, control against main.

# %%
print(estimator.input_formats([params.control_model], "format"))
other_format = functools.cache(lambda: estimator.kstar_tables(
    [params.control_model], dataclasses.replace(protocol, tasks=tuple(params.format_tasks)), control="format",
    **execution))
format_window, _ = run.table("format_window", lambda: other_format().window_fits)
formats, formats_file = run.table("format", lambda: counts.compare_tables(
    main[(main.model == params.control_model) & main.task.isin(params.format_tasks)], other_format().counts))
format_texts, format_texts_file = run.table("format_texts", lambda: claim_notes.text_lengths(measure.pools(
    params.format_tasks, cap=params.cap, seed=params.pool_seed, max_classes=params.max_classes)))
display(formats)
plotting.save_table(formats.round(4), "format", f"k* and ceiling of {params.control_model} in its A.1.2 input format "
                    f"({measure.format_words(params.control_model)}) and in the other "
                    f"({measure.format_words(params.control_model, not measure.reads_chat(params.control_model))}), "
                    "each condition's own sweep and window, the same seeds (paper 002, A.1.2, A.3.2); ratio = other "
                    "format / main.", [formats_file])

# %% [markdown]
# ## Shuffled labels: the whole search on a label-free decision
#
# Both splits' labels are permuted (seeded, one permutation per decision) and Algorithm 2 runs on them as on
# the real labels: the preliminary sweep (every block, both representations, all three paths) locates the
# window, the five seeds fit every path there, and confirmation counts. Two readings: the readability flag
# of A.1.6 (ceiling ≤ 0.90) on every shuffled task, and the largest test AUROC over every probe the search
# fitted (`lib.kstar.protocol.counts.search_maximum`, with each decision's own Šidák level), whose largest z over all
# shuffled decisions the claim compares with the Šidák level of every test AUROC the shuffled search recorded
# (`lib.kstar.evidence.seed_draws.family_ratio`): a per-decision level over many decisions would be crossed by chance.

# %%
shuffled_run = functools.cache(lambda: estimator.kstar_tables(params.models, protocol, control="shuffled",
                                                              control_seed=params.shuffle_seed, **execution))
shuffled_sweep, shuffled_sweep_file = run.table("shuffled_sweep", lambda: shuffled_run().sweep)
shuffled_window, shuffled_window_file = run.table("shuffled_window", lambda: shuffled_run().window_fits)
shuffled_counts, shuffled_counts_file = run.table("shuffled_counts", lambda: shuffled_run().counts)
shuffled, shuffled_file = run.table("shuffled", lambda: counts.search_maximum(
    pd.concat([shuffled_sweep, shuffled_window], ignore_index=True)))
shuffled_tasks = shuffled_window[["model", "task"]].drop_duplicates()
readable_shuffled = shuffled_counts[~shuffled_counts.flagged]
display(shuffled_counts)
display(shuffled)
plotting.save_table(shuffled_counts.round(4), "shuffled_counts", "k* and the task ceiling of the whole search on "
                    "shuffled labels (sweep, window, confirmation; paper 002, A.1.6, A.1.11 Table 7); flagged: ceiling "
                    "≤ 0.90, unreadable; a task whose every decision reads at or below ½ has no row.",
                    [shuffled_counts_file])
plotting.save_table(shuffled.round(4), "shuffled", "Per shuffled decision: the largest test AUROC of any probe the whole "
                    "search fitted, the number of test AUROCs behind it, z = (max − ½)/σ₀ (Theorem 4's σ₀ of the test split) and the "
                    "Šidák level z_limit that the largest of that many independent null AUROCs exceeds with chance 0.05.",
                    [shuffled_file])

# %% [markdown]
# ## Claims — paper value beside measured value

# %%
median_rho = agreement[agreement.treatment == "all"].groupby("variant").rho.median()
threshold_rhos = pd.Series([median_rho.get(f"threshold {f:g}", np.nan) for f in params.thresholds], dtype=float)
precision_by_task, _ = run.table("split_precision", lambda: claim_notes.split_precision(
    counts.window_ceilings(window, params.frac)))
# Power of the order agreements: if the paper is right a control orders the tasks as the main protocol does, so
# its ρ is drawn as that of the main protocol against a seed-resampled copy of itself; under A.1.11's null the
# orders are independent (a random permutation of the main task values).
self_draws = seed_draws.self_agreement_draws(main_seeds, params.min_shared_tasks)
null_draws = seed_draws.permuted_agreement_draws(main, params.min_shared_tasks, seed=1)
self_lowest = seed_draws.self_agreement_draws(main_seeds, params.min_shared_tasks, lowest_of=len(params.thresholds))
null_lowest = seed_draws.permuted_agreement_draws(main, params.min_shared_tasks, lowest_of=len(params.thresholds),
                                                  seed=1)
tasks_per_model = main.groupby("model").size()
most_tasks = int(tasks_per_model.max()) if len(tasks_per_model) else 0
few_tasks = "" if most_tasks >= params.min_shared_tasks else (
    f"no model has the {params.min_shared_tasks} tasks A.1.11 requires under both protocols (a model with fewer is "
    f"skipped); this profile reads at most {most_tasks} per model")
order_note = "; ".join(filter(None, [
    f"{int((tasks_per_model >= params.min_shared_tasks).sum())} models × {most_tasks} tasks, {len(params.seeds)} "
    "seeds" + (f"; one swap of two neighbours gives ρ = {uncertainty.one_swap_spearman(most_tasks):.3f}"
               if most_tasks > 1 else ""),
    claim_notes.split_note(precision_by_task)]))
# The rotation's factors, read seed by seed (the same subsamples and test split in both bases), on the tasks
# readable in both bases with finite counts in both (A.1.6, Table 15). Their draws resample both bases' seeds
# together and each basis's test split; if the paper is right every task's true factor sits at the centre of its
# range or at either end, whichever the test holds on least often.
catalogue = claim_catalogue.load(params.notebook)
readable = claim_notes.readable_factors(rotation).index
factors = seed_draws.paired_factors(rotation_pairs[rotation_pairs.task.isin(readable)])
errors = seed_draws.paired_noise_draws(window, rotated_window, [(params.control_model, t) for t in factors.index],
                                       params.frac)
placed = {claim: seed_draws.paper_factor_draws(errors, catalogue[claim].comparison(),
                                               smallest=claim == "rotation_moves_counts")
          for claim in ("rotation_moves_counts", "rotation_moves_counts_max") if errors is not None}
placed_note = {claim: f"if the paper is right, drawn with {where}, where the test holds least often"
               for claim, (where, _) in placed.items()}
no_factor = "" if len(factors) else (f"no task of {params.control_model} is readable (ceiling above 0.90) with a "
                                     "finite k* in both bases, so no factor between counts is defined")
rotation_note = "; ".join(filter(None, [", ".join(f"{t}: {f:.3g}" for t, f in factors.items()),
                                        claim_notes.left_out_note(rotation)]))
control_precision = precision_by_task[precision_by_task.model == params.control_model]
rotation_cells = [(params.control_model, t) for t in rotation.task]
format_cells = [(params.control_model, t) for t in formats.task]
shuffled_tests = len(shuffled_sweep) + len(shuffled_window)  # one test AUROC per logged row of the shuffled search
search_paper, search_null = (seed_draws.family_ratio_draws(shuffled, shuffled_tests) if len(shuffled)
                             else (None, None))
worst = shuffled.loc[shuffled.z.idxmax()] if len(shuffled) else None
chance_readable = seed_draws.readable_by_chance(shuffled_window)
claims_table, claims_file = run.record_claims({
    "threshold_agreement_min": Evidence(
        threshold_rhos.min(), if_paper=self_lowest, if_null=null_lowest, undefined=few_tasks,
        note=f"factors {', '.join(f'{f:g}' for f in params.thresholds)} instead of {params.frac:g}; {order_note}"),
    "ranking_only_agreement": Evidence(median_rho.get("ranking only", np.nan), if_paper=self_draws, if_null=null_draws,
                                       undefined=few_tasks, note=order_note),
    "l1_only_agreement": Evidence(median_rho.get("l1 only", np.nan), if_paper=self_draws, if_null=null_draws,
                                  undefined=few_tasks, note=order_note),
    "single_layer_agreement": Evidence(median_rho.get("single layer", np.nan), if_paper=self_draws,
                                       if_null=null_draws, undefined=few_tasks, note=order_note),
    "lemma1_monotone": Evidence(monotone),
    "rotation_moves_counts": Evidence(
        factors.min() if len(factors) else np.nan,
        if_paper=placed["rotation_moves_counts"][1] if placed else None,
        if_null=None if errors is None else seed_draws.factor_draws(errors, smallest=True),
        undefined=no_factor, note="; ".join(filter(None, [params.control_model, rotation_note,
                                                         placed_note.get("rotation_moves_counts", "")]))),
    "rotation_moves_counts_max": Evidence(
        factors.max() if len(factors) else np.nan,
        if_paper=placed["rotation_moves_counts_max"][1] if placed else None,
        if_null=None if errors is None else seed_draws.factor_draws(errors, smallest=False),
        undefined=no_factor, note="; ".join(filter(None, [params.control_model, rotation_note,
                                                         placed_note.get("rotation_moves_counts_max", "")]))),
    "rotation_keeps_ceilings": Evidence(
        rotation.ceiling_change.abs().max(), if_paper=seed_draws.ceiling_change_draws(window, rotation_cells),
        if_null=seed_draws.reshuffled_ceiling_draws(rotation, seed=1),
        note="; ".join(filter(None, [f"{params.control_model}, {len(rotation)} tasks",
                                     claim_notes.split_note(control_precision, rotation.task)]))),
    "format_keeps_ceilings": Evidence(
        formats.ceiling_change.abs().max(), if_paper=seed_draws.ceiling_change_draws(window, format_cells),
        if_null=seed_draws.reshuffled_ceiling_draws(formats, seed=1),
        mechanism=claim_notes.ceiling_change_mechanism(formats, format_texts, formats_file.name,
                                                       format_texts_file.name) if len(formats) else "",
        note="; ".join(filter(None, [f"{params.control_model}, {len(formats)} tasks",
                                     claim_notes.split_note(control_precision, formats.task)]))),
    "shuffled_search_below_limit": Evidence(
        seed_draws.family_ratio(shuffled, shuffled_tests) if len(shuffled) else np.nan, if_paper=search_paper,
        if_null=search_null, note="" if worst is None else (
            f"{shuffled_tests} test AUROCs over {len(shuffled)} shuffled decisions, family level z = "
            f"{counts.sidak_z_limit(shuffled_tests):.2f}; the largest z, "
            f"{worst.z:.2f}, is {worst.model}'s {worst.task} ({worst.decision}: AUROC {worst.maximum:.3f} on "
            f"{int(worst.n_test_pos + worst.n_test_neg)} test texts)")),
    "shuffled_tasks_unreadable": Evidence(
        1 - len(readable_shuffled) / len(shuffled_tasks) if len(shuffled_tasks) else np.nan,
        if_paper=seed_draws.unreadable_share_draws(chance_readable.to_numpy()) if len(chance_readable) else None,
        if_null=seed_draws.unreadable_share_draws(np.ones(len(chance_readable))) if len(chance_readable) else None,
        note=f"{len(shuffled_tasks)} model × task cells; the largest chance that label noise lifts one past 0.90 "
        f"is {chance_readable.max():.2g}" if len(chance_readable) else ""),
})
plotting.save_table(claims_table, "claims", "K02 (paper 002, A.1.11, A.2.2): the paper's value beside the measured "
                    "value, with its verdict and the power of its test; kind 'sanity' holds by construction, kind "
                    "'extension' goes beyond the paper's stated values; neither is counted as reproduction.",
                    [claims_file])

# %% [markdown]
# Each row gives the paper's value, the measured value, its verdict and the power of its test: the share of
# draws of the statistic at this run's size on which the test holds if the paper is right and if its null is
# (`lib/kstar/evidence/seed_draws.py`). An order agreement on six tasks is weighed against the main protocol compared
# with a seed-resampled copy of itself; where even that copy rarely reaches the paper's ρ, the row reads
# `not measured, no power at this scale` with its value shown. `split_precision.parquet` logs, per model and
# task, the ceiling's s.e. against its gap C − τ: where the s.e. is larger, the count moves with the test split,
# and debate_moderator, whose test split holds 104 texts at any cap, moves most; the notes say where it enters a
# statistic. A factor between counts is read only on tasks readable in both bases with finite counts in both, seed by
# seed: the rotation refits each seed on the main window's own subsample against the same test split, so the noise
# the two bases share cancels in each seed's ratio, and the factor is the median of those ratios.
# The format control reads only the short-text tasks (a CPU budget); the paper's format factorial on Gemma-2-9B
# base and IT is K05.

# %%
show_claims(claims_table, params.profile)
