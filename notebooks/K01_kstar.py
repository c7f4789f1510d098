# %% [markdown]
# # K01 · The sparse-readout count k* of every task × model
#
# **Paper 002**, App. A.1.1–A.1.8 (Algorithms 1–2, Eq. 4–16, Figures 6–7, Tables 4–5). For each class
# decision, Algorithm 1 fits a dense class-balanced ℓ2 probe (γ chosen on a 20% validation portion),
# prefix probes on the top 1, 2, 4, … 1024 features by |Welch t|, and ten ℓ1 fits, and records every
# candidate's test AUROC before any threshold. Algorithm 2 runs a preliminary sweep (one seed, full
# training split, every grid block, mean and last pooling) to place a four-block window, then five
# seeds of 85% training subsamples on a fixed test split; the common ceiling C gives τ = ½ + 0.95(C − ½),
# the local count is the smallest qualifying candidate, neighbour confirmation keeps the smallest
# pairwise maximum over consecutive blocks, and the task value is the median over decisions, then seeds.
#
# Offline default: three models on six task pools built from PyPI wheels (`data/tasks/SOURCES.md`), capped at 300
# texts per split, inputs cut at 128 tokens. MiniLM (6 blocks, 384 wide; a sentence encoder, on raw text),
# SmolLM2-135M-Instruct (30 blocks, 576 wide; an instruction-tuned release, so A.1.2 reads each text as one user turn
# through its chat template plus the generation prompt) and Gemma-3-270M (18 blocks, 640 wide; the base release, so
# A.1.2 reads it on raw text: "Base models receive the raw text with the tokenizer's default special tokens and no chat
# template"). Gemma-3-270M is a model of the paper's own population ("The base models are Gemma-3 at 270M, 1B, …",
# A.1.9), the one base causal LM that ships offline, so K03 can test A.2.1's cross-model claims on base causal LMs; in
# the two decoders the final block is read after the final norm in transformers ≥ 5, so their grids stop one block
# earlier. This notebook is the producer of every model's searches: K02, K03 and K05 (whose reference condition,
# Gemma-3-270M on plain text, is this measurement under one content key) read them from `cache/tables`, and the runner
# starts them after K01 (their schemas declare `reads`). The paper's models, pools and 768-token limit are in
# `params/paper/K01_kstar.yaml`.
#
# Writes: `inputs` (texts cut at the token limit, A.1.2), `cues` (the surface-cue audit, A.1.3), `decisions`,
# `candidate_curves` (Fig. 6), `sweep_window_seeds` (Fig. 7), `kstar` (task × model), `precision` (Table 5), `claims`.

# %%
import functools
import math

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

from lib import config, plotting, results, uncertainty
from lib.claims import Evidence, show_claims
from lib.kstar import estimator, measure
from lib.kstar.evidence import claim_notes, paper_values, power_draws, seed_draws
from lib.kstar.protocol import counts, rules
from lib.kstar.tasks import cues

# %% tags=["parameters"]
profile = "default"  # choose a profile without editing this file: python -m lib run K01 --profile smoke|default|paper, or the Lab's copy lab/<profile>/K01_kstar.ipynb
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
precision_delta = 0.05  # δ of the McDiarmid radius (A.1.8)

# %%
params = config.load("K01_kstar", globals())
measure.prepare_models(params.models)  # an unknown model stops here, before any compute
run = results.start(params)
plotting.use_style()
protocol = estimator.Protocol.of(params)
print(estimator.input_formats(params.models))
# Algorithm 2 for every model in one entry, run once and only if a table below is missing or stale
algorithm2 = functools.cache(lambda: estimator.kstar_tables(params.models, protocol, n_jobs=params.n_jobs,
                                                            scheduler=params.scheduler))

# %% [markdown]
# ## Inputs within the token limit (A.1.2)
#
# A raw text is cut on the right; a chat input is cut inside its user text, so the template's head, the end of the
# user turn and the generation prompt survive and the last position is where the model would begin its reply.

# %%
inputs, inputs_file = run.table("inputs", lambda: measure.input_lengths_table(params.models, measure.pools(
    params.tasks, cap=params.cap, seed=params.pool_seed, max_classes=params.max_classes), params.max_tokens))
display(inputs)
plotting.save_table(inputs.round(3), "inputs", "Inputs within the token limit (paper 002, A.1.2): per model and task, "
                    "the input format, the share of texts (both splits) whose text was cut at max_tokens and the "
                    "text tokens kept (median, min, max); a chat input is cut inside its user text, so its generation "
                    "prompt survives.", [inputs_file])

# %% [markdown]
# ## Task pools and their class decisions (A.1.3)
#
# A decision needs ≥ 5 positives per split; the length-only AUROC is the cue check (0.5: length tells nothing).

# %%
decisions, decisions_file = run.table("decisions", lambda: measure.decisions_table(
    measure.pools(params.tasks, cap=params.cap, seed=params.pool_seed, max_classes=params.max_classes),
    params.min_positives))
display(decisions)
plotting.save_table(decisions.round(3), "decisions", "Class decisions of the offline task pools (paper 002, A.1.3): "
                    "split sizes, positives, the test AUROC of a length-only classifier (the cue check) and why a "
                    "decision is skipped, if it is.", [decisions_file])

# %% [markdown]
# ## Surface-cue audit (A.1.3, `lib/kstar/tasks/cues.py`)
#
# Per decision: test AUROC of a small logistic model on each surface family (length, words, punctuation,
# digits, casing) and on all together, fitted on train; the best 1–2 TF-IDF terms chosen on train. A decision
# with any surface cue at AUROC ≥ 0.95 is excluded (returned skipped), by one rule for every task.

# %%
cue_table, cues_file = run.table("cues", lambda: cues.audit_table(
    measure.pools(params.tasks, cap=params.cap, seed=params.pool_seed, max_classes=params.max_classes)))
display(cue_table)
plotting.save_table(cue_table.round(3), "cues", "Surface-cue audit of the offline task pools (paper 002, A.1.3; "
                    "lib/kstar/tasks/cues.py): test AUROC of train-fitted logistic models on length, word count, punctuation, "
                    "digits, casing and all five, the best single TF-IDF term and greedy pair chosen on train, and the "
                    f"exclusion (any surface cue ≥ {cues.EXCLUDE_AUROC}).", [cues_file])

# %% [markdown]
# ## Preliminary sweep and the window (Algorithm 2, A.1.6)

# %%
sweep, sweep_file = run.table("sweep", lambda: algorithm2().sweep)
windows, windows_file = run.table("windows", lambda: algorithm2().best_blocks)
display(windows)

# %%
window, window_file = run.table("window", lambda: algorithm2().window_fits)
ceilings, ceilings_file = run.table("ceilings", lambda: algorithm2().ceilings)
print("unreadable decisions (C ≤ ½, logged, never counted):",
      ceilings[ceilings.unreadable][["model", "task", "decision"]].to_dict("records") or "none")
kstar, kstar_file = run.table("kstar", lambda: algorithm2().counts)

# %% [markdown]
# ## Candidate curves (Fig. 6): both search paths at the best block, seed 1

# %%
first_seed = params.seeds[0]
shown = windows.merge(kstar, on=["model", "task"]).groupby("model", sort=False).head(4)
by_model = shown.groupby("model", sort=False)
columns = by_model.size().max()
fig, axes = plt.subplots(by_model.ngroups, columns, figsize=(max(3 * columns, 5), 2.8 * by_model.ngroups + 0.6),
                         squeeze=False)
for row_axes, (model, tasks) in zip(axes, by_model, strict=True):
    row_axes[0].set_ylabel(f"{model}\ntest AUROC")
    for ax, row in zip(row_axes, tasks.itertuples(), strict=False):
        cell = window[(window.model == model) & (window.task == row.task) & (window.block == row.best_block)
                      & (window.seed == first_seed)]
        decision = cell.decision.iloc[0]
        cell = cell[cell.decision == decision]
        tau = ceilings.set_index(["model", "task", "decision"]).tau[(model, row.task, decision)]
        prefix, l1 = cell[cell.path == "prefix"], cell[cell.path == "l1"]
        ax.plot(prefix["size"], prefix.auroc, "o-", ms=3, label="ranked prefixes")
        ax.plot(l1["size"], l1.auroc, "s", ms=4, label="ℓ1 supports")
        ax.axhline(tau, color="k", ls="--", lw=1, label="τ")
        ax.set(xscale="log", xlabel="features")
        ax.set_title(f"{row.task} ({decision})\nblock {row.best_block}", fontsize=8)
fig.suptitle(f"Candidate curves at the best block, seed {first_seed}")
fig.legend(*axes[0, 0].get_legend_handles_labels(), loc="outside lower center", ncols=3, fontsize=8)
plotting.save_figure(fig, "candidate_curves", "Recorded candidate curves of Algorithm 1 (paper 002, A.1.5, Fig. 6): "
                     "test AUROC of each ranked prefix and each ℓ1 support against its size, at the sweep's best block "
                     "and seed 1, first class decision of four tasks per model (one row per model); dashed: the common "
                     "threshold τ.", [window_file, windows_file])

# %% [markdown]
# ## Sweep profile, window and seed values (Fig. 7)

# %%
sweep_counts = counts.local_counts(sweep, counts.sweep_ceilings(sweep, params.frac))
profile_by_block = (sweep_counts[sweep_counts.pooling == "mean"].groupby(["model", "task", "block"])["count"]
                    .agg(rules.ext_median).reset_index())
per_seed = counts.confirmed_counts(counts.local_counts(window, ceilings)).groupby(["model", "task", "seed"]).confirmed.agg(
    rules.ext_median).reset_index()
fig, axes = plt.subplots(1, len(params.models), figsize=(6 * len(params.models), 3.6), squeeze=False)
for ax, model in zip(axes.ravel(), params.models, strict=True):
    for colour, task in enumerate(params.tasks):
        line = profile_by_block[(profile_by_block.model == model) & (profile_by_block.task == task)]
        finite = line["count"].replace(math.inf, np.nan)
        ax.plot(line.block, finite, "o-", ms=3, color=f"C{colour}", label=task)
        seeds_here = per_seed[(per_seed.model == model) & (per_seed.task == task)].confirmed.replace(math.inf, np.nan)
        block = windows[(windows.model == model) & (windows.task == task)].best_block.iloc[0]
        ax.scatter(np.full(len(seeds_here), block) + 0.15, seeds_here, marker="x", color=f"C{colour}")
    ax.set(yscale="log", xlabel="block", ylabel="median local count (sweep)", title=model)
axes.ravel()[0].legend(fontsize=6)
plotting.save_figure(fig, "sweep_window_seeds", "Preliminary sweep profile (median local count over class decisions per "
                     "block, mean pooling; gaps: ∞) and the five seed values of the window measurement, drawn beside the "
                     "best block (paper 002, A.1.6, Fig. 7).", [sweep_file, window_file, windows_file])

# %% [markdown]
# ## k* per task × model (Table 4's layout)

# %%
table = kstar.assign(k=kstar.kstar.map(counts.display_count),
                     seed_range=[f"[{counts.display_count(a)}, {counts.display_count(b)}]"
                                 for a, b in zip(kstar.seed_min, kstar.seed_max, strict=True)])
wide = table.pivot(index="task", columns="model", values="k")
display(table[["model", "task", "ceiling", "k", "seed_range", "flagged", "n_decisions"]])
plotting.save_table(table[["model", "task", "ceiling", "k", "seed_range", "flagged", "n_decisions"]].round(4), "kstar",
                    "k* per task and model (paper 002, A.1.6, Eq. 16): the task ceiling (median of its decisions' common "
                    "ceilings), k* (median over decisions, then seeds; shown rounded half to even), the seed range and the "
                    "readability flag (ceiling ≤ 0.90).", [kstar_file])

# %% [markdown]
# ## Precision of the ceiling (A.1.8, Table 5)

# %%
readable = counts.readable_decisions(ceilings, kstar)
n_scorers = int(window.groupby(["model", "task", "decision"]).size().median())
precision, precision_file = run.table("precision", lambda: counts.precision_table(
    ceilings, kstar, n_scorers, params.precision_delta))
display(precision)
plotting.save_table(precision.round(4), "precision", "Test-split precision of the readable ceilings (paper 002, A.1.8, "
                    "Table 5): median Hanley–McNeil s.e., median gap C − τ = 0.05(C − ½), share of decisions with "
                    "1.96·s.e. below the gap, and the McDiarmid radius over the scorers of one decision.", [precision_file])

# %% [markdown]
# ## Claims — paper value beside measured value

# %%
example_tau = rules.threshold(0.9790)
example_seeds = [341, 332, 342, 344, 339]
per_seed = seed_draws.per_seed_values(window, params.frac)  # the seed values whose resamples give each s.e.
readable_cells = kstar[~kstar.flagged][["model", "task"]]
precision_note = claim_notes.split_note(claim_notes.split_precision(ceilings).merge(readable_cells))
# The test-split precision of A.1.8 is a function of the test class counts (Eq. 20): comparable with the paper's
# only where the splits reach its sizes ("The test splits hold 472 to 3000 texts"); a split holds at most `cap`.
small_splits = (f"the profile caps each split at {params.cap} texts, below the paper's smallest test split (472 "
                "texts; its splits hold 472 to 3000): the s.e. of Eq. 20 grows as 1/√n, so the paper's value is "
                "not reachable here (the measured value is logged beside it)") if params.cap < 472 else ""
no_readable = "" if len(readable) else ("no task of this profile is readable (every task ceiling is at or below "
                                        "0.90), so no readable class decision has a ceiling to weigh")
near_ratio = claim_notes.log2_near_ceiling_ratio(kstar)
# k* values the paper prints for its base models (A.1.7, A.2.1), matched by the hub id's last component.
paper_base = {"gemma-3-270m", "gemma-3-1b-pt", "gemma-3-4b-pt", "gemma-3-12b-pt", "gemma-3-27b-pt", "gemma-2-9b",
              "llama-3.1-8b", "mistral-7b-v0.3", "olmo-2-1124-7b", "qwen3-8b-base"}
on_paper_models = kstar[kstar.model.map(lambda m: str(m).rstrip("/").split("/")[-1].lower()).isin(paper_base)]
harm_gemma = functools.partial(paper_values.value, task="harmfulness", model="gemma-2-9b")
harm_lowest = functools.partial(paper_values.value, task="harmfulness", how="min")
harm_highest = functools.partial(paper_values.value, task="harmfulness", how="max")
language_median = functools.partial(paper_values.value, task="language_id", how="median")
routing_highest = functools.partial(paper_values.value, task="routing", how="max")
banking_llama = functools.partial(paper_values.value, task="banking77", model="llama-3.1-8b")
clinc_qwen = functools.partial(paper_values.value, task="clinc150", model="qwen3-8b-base")
claims_table, claims_file = run.record_claims({
    "worked_threshold": Evidence(example_tau),
    "worked_confirmation": Evidence(rules.neighbor_confirm([341, 137, 342, 369])),
    "worked_task_value": Evidence(rules.task_value(example_seeds)),
    "worked_seed_range": Evidence(np.subtract(*rules.seed_range(example_seeds)[::-1])),
    "isolated_minimum": Evidence(rules.neighbor_confirm([32, 8, 16, math.inf])),
    "median_ceiling_se": Evidence(
        readable.se.median() if len(readable) else np.nan, se=uncertainty.median_se(readable.se),
        undefined=no_readable, needs_data=small_splits,
        note="; ".join(filter(None, [f"{len(readable)} readable class decisions", precision_note]))),
    "se_within_gap_share": Evidence(
        readable.se_within_gap.mean() if len(readable) else np.nan,
        se=uncertainty.binomial_se(claim_notes.PAPER_SE_WITHIN_GAP, len(readable)),
        if_paper=power_draws.share_draws(claim_notes.PAPER_SE_WITHIN_GAP, len(readable)) if len(readable) else None,
        if_null=power_draws.share_draws(claim_notes.NULL_SE_WITHIN_GAP, len(readable), seed=1) if len(readable)
        else None,
        undefined=no_readable, mechanism=small_splits,
        note="; ".join(filter(None, [f"N = {len(readable)}", precision_note]))),
    "count_ratio_near_ceilings": Evidence(
        near_ratio, se=seed_draws.seed_se(per_seed, kstar, claim_notes.log2_near_ceiling_ratio),
        undefined="" if math.isfinite(near_ratio) else (
            f"no two readable tasks of one model have finite counts and ceilings within {claim_notes.NEAR_CEILINGS}"),
        note="; ".join(filter(None, [f"largest ratio {2 ** near_ratio:.3g}", claim_notes.count_span_note(kstar),
                                     precision_note]))),
    "kstar_harmfulness_gemma2_9b": Evidence(
        harm_gemma(on_paper_models), se=seed_draws.seed_se(per_seed, on_paper_models, harm_gemma),
        needs_data=paper_values.unmeasured(on_paper_models, params.models, params.tasks, "harmfulness",
                                             "gemma-2-9b")),
    "kstar_harmfulness_lowest": Evidence(
        harm_lowest(on_paper_models), se=seed_draws.seed_se(per_seed, on_paper_models, harm_lowest),
        needs_data=paper_values.unmeasured(on_paper_models, params.models, params.tasks, "harmfulness")),
    "kstar_harmfulness_highest": Evidence(
        harm_highest(on_paper_models), se=seed_draws.seed_se(per_seed, on_paper_models, harm_highest),
        needs_data=paper_values.unmeasured(on_paper_models, params.models, params.tasks, "harmfulness")),
    "kstar_language_id_median": Evidence(
        language_median(on_paper_models), se=seed_draws.seed_se(per_seed, on_paper_models, language_median),
        needs_data=paper_values.unmeasured(on_paper_models, params.models, params.tasks, "language_id")),
    "kstar_routing_highest": Evidence(
        routing_highest(on_paper_models), se=seed_draws.seed_se(per_seed, on_paper_models, routing_highest),
        needs_data=paper_values.unmeasured(on_paper_models, params.models, params.tasks, "routing")),
    "kstar_banking77_llama": Evidence(
        banking_llama(on_paper_models), se=seed_draws.seed_se(per_seed, on_paper_models, banking_llama),
        needs_data=paper_values.unmeasured(
            on_paper_models, params.models, params.tasks, "banking77", "llama-3.1-8b",
            "" if params.max_classes >= 10 else f"the paper's Banking77 evaluates ten intents; max_classes="
            f"{params.max_classes}")),
    "kstar_clinc150_qwen3": Evidence(
        clinc_qwen(on_paper_models), se=seed_draws.seed_se(per_seed, on_paper_models, clinc_qwen),
        needs_data=paper_values.unmeasured(
            on_paper_models, params.models, params.tasks, "clinc150", "qwen3-8b-base",
            "" if params.max_classes >= 20 else f"the paper's CLINC150 evaluates 20 intents; max_classes="
            f"{params.max_classes} keeps a subset of them")),
    "fits_per_cell": Evidence(window.n_fits.max()),
})
plotting.save_table(claims_table, "claims", "K01 (paper 002, A.1.1–A.2.1): the paper's value beside the measured value, "
                    "with its verdict and the power of its test; kind 'sanity' is arithmetic on the paper's own numbers "
                    "or holds by construction and is not counted as reproduction; a value the paper prints for a task "
                    "and model only the paper profile reads is 'not measured, needs the paper profile'.", [claims_file])

# %% [markdown]
# Each row gives the paper's value, the measured value, its verdict and the power of its test: the share of
# draws of the statistic at this run's size on which the test holds if the paper is right and if its null is.
# The k* values the paper prints (harmfulness, language identification, routing, Banking77, CLINC150) and its
# pair of near-equal ceilings with counts 64 apart (intent and harmfulness on Gemma-2-9B) belong to its models
# and hub task pools: only the paper profile reads them, so under the offline profiles those rows read
# `not measured, needs the paper profile`, with the offline panel's own value beside them. Their tests are
# widened by 3 s.e. of the statistic over resampled seeds (`lib/kstar/evidence/seed_draws.py`). The ceiling precision of
# A.1.8 depends on the test-split size, so it is tested only where the splits reach the paper's; the notes name
# a task whose test split is smaller than the others' (debate_moderator holds 104 test texts at any cap). Every
# count above is recomputed from the logged curves (`window.parquet`, `sweep.parquet`), so any other threshold
# or aggregation can be applied without fitting again (K02 does).

# %%
show_claims(claims_table, params.profile)
