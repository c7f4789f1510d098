# %% [markdown]
# # K02 · Controls of the count: threshold, search path, layer rule, basis, input format, labels
#
# **Paper 002**, App. A.1.5 (Lemma 1, Proposition 1), A.1.11 (Tables 15, 19) and A.2.2. The estimator
# controls are recomputed from the curves K01 logs, without fitting again: threshold factor 0.90 and
# 0.975 instead of 0.95, ranking-only and ℓ1-only search, and the best single layer instead of
# neighbour confirmation; each is compared with the main task order by Spearman's ρ under the three
# treatments of infinite and low-ceiling cells (all, finite, gated). Lemma 1(ii) is checked on every
# decision and seed. Three controls fit again on the same window: a random rotation of the features
# (Proposition 1: only per-coordinate affine maps leave k* unchanged), chat-formatted input (the user
# turn plus the generation prompt) against plain text. The shuffled-label control runs the whole search on
# permuted labels (the paper: the search "does not produce high AUROCs from label noise"): its own sweep locates
# its own window, the five-seed window and confirmation follow, and the largest AUROC of any probe fitted is
# compared with the level that many independent null AUROCs would exceed 5 % of the time (this notebook's
# reading; the paper's Table 7 was lost).
#
# Writes: `variants` (task tables per control), `agreement`, `rotation`, `format`, `shuffled_sweep`,
# `shuffled_window`, `shuffled_counts`, `shuffled` (the search maxima), `claims`.

# %%
import numpy as np
import pandas as pd
from IPython.display import display

from lib import config, plotting, results
from lib.claims import Bound, Point, Range, claim, show_claims
from lib.kstar import counts, measure

# %% tags=["parameters"]
profile = "default"  # smoke | default | paper
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
models = ["minilm", "smollm2-135m"]  # registry names, hub ids or local checkpoint folders
thresholds = [0.9, 0.975]  # alternative threshold factors frac of Eq. 4
control_model = "smollm2-135m"  # the model rotated and read in chat format (one of models)
rotation_seed = 0  # seed of the random orthogonal rotation
format_tasks = ["rt_sentiment", "rt_subjectivity", "debate_moderator", "word_valence"]  # tasks read in chat format (short texts: CPU budget)
shuffle_seed = 0  # seed of the shuffled-label control
min_shared_tasks = 6  # Spearman agreement needs this many shared tasks

# %%
params = config.load("K02_kstar_controls", globals())
measure.prepare_models(params.models)  # an unknown model stops here, before any compute
run = results.start(params)
plotting.use_style()
pool_args = {"tasks": params.tasks, "cap": params.cap, "pool_seed": params.pool_seed,
             "max_classes": params.max_classes, "max_tokens": params.max_tokens, "min_positives": params.min_positives}
window_args = {"seeds": params.seeds, "subsample": params.subsample, "n_jobs": params.n_jobs,
               "scheduler": params.scheduler}
if params.control_model not in params.models:
    raise config.ConfigError(f"control_model={params.control_model!r} is not one of models={list(params.models)}")

# %% [markdown]
# ## The main measurement (shared with K01: computed once, read from the table cache)

# %%
sweep, _ = run.table("sweep", lambda: pd.concat([results.shared_table(
    measure.sweep_table, model, layers=params.layers, poolings=params.sweep_poolings, n_jobs=params.n_jobs,
    scheduler=params.scheduler, **pool_args) for model in params.models], ignore_index=True))
windows = counts.best_blocks(sweep, params.frac)
window_of = {model: {t: [int(b) for b in w] for t, w in zip(cell.task, cell.window, strict=True)}
             for model, cell in windows.groupby("model", sort=False)}
window, window_file = run.table("window", lambda: pd.concat([results.shared_table(
    measure.window_table, model, window_of[model], **window_args, **pool_args) for model in params.models],
    ignore_index=True))

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
rotated_window, _ = run.table("rotated_window", lambda: results.shared_table(
    measure.window_table, params.control_model, window_of[params.control_model], rotation_seed=params.rotation_seed,
    **window_args, **pool_args))
rotation, rotation_file = run.table("rotation", lambda: counts.compare_tables(
    main[main.model == params.control_model], counts.window_counts(rotated_window, params.frac)))
display(rotation)
plotting.save_table(rotation.round(4), "rotation", f"k* and ceiling of {params.control_model} in its own basis and "
                    "after a random orthogonal rotation of the residual stream (same window, seeds and pools; paper 002, "
                    "A.1.5 Proposition 1, A.1.11 Table 15); ratio = rotated / main.", [rotation_file])

# %% [markdown]
# ## Chat format against plain text (A.1.2, A.3.1)

# %%
format_pools = {**pool_args, "tasks": params.format_tasks}
chat_window, _ = run.table("chat_window", lambda: results.shared_table(
    measure.window_table, params.control_model, {t: window_of[params.control_model][t] for t in params.format_tasks},
    chat_template=True, **window_args, **format_pools))
formats, formats_file = run.table("format", lambda: counts.compare_tables(
    main[(main.model == params.control_model) & main.task.isin(params.format_tasks)],
    counts.window_counts(chat_window, params.frac)))
display(formats)
plotting.save_table(formats.round(4), "format", f"k* and ceiling of {params.control_model} on plain text and on the "
                    "chat-formatted input (user turn plus generation prompt), same window and seeds (paper 002, A.1.2); "
                    "ratio = chat / plain.", [formats_file])

# %% [markdown]
# ## Shuffled labels: the whole search on a label-free decision
#
# Both splits' labels are permuted (seeded, one permutation per decision) and Algorithm 2 runs on them as on
# the real labels: the preliminary sweep (every block, both representations, all three paths) locates the
# window, the five seeds fit every path there, and confirmation counts. Two readings: the readability flag
# of A.1.6 (ceiling ≤ 0.90) on every shuffled task, and the largest test AUROC over every probe the search
# fitted against the Šidák level for that many fits (`lib.kstar.counts.search_maximum`).

# %%
shuffled_sweep, shuffled_sweep_file = run.table("shuffled_sweep", lambda: pd.concat([results.shared_table(
    measure.sweep_table, model, layers=params.layers, poolings=params.sweep_poolings,
    label_seed=params.shuffle_seed, n_jobs=params.n_jobs, scheduler=params.scheduler, **pool_args)
    for model in params.models], ignore_index=True))
shuffled_windows = counts.best_blocks(shuffled_sweep, params.frac)
shuffled_window, shuffled_window_file = run.table("shuffled_window", lambda: pd.concat([results.shared_table(
    measure.window_table, model, {t: [int(b) for b in w] for t, w in zip(cell.task, cell.window, strict=True)},
    label_seed=params.shuffle_seed, **window_args, **pool_args)
    for model, cell in shuffled_windows.groupby("model", sort=False)], ignore_index=True))
shuffled_counts, shuffled_counts_file = run.table("shuffled_counts", lambda: counts.window_counts(
    shuffled_window, params.frac))
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
                    "search fitted, the number of fits, z = (max − ½)/σ₀ (Theorem 4's σ₀ of the test split) and the "
                    "Šidák level z_limit that the largest of that many independent null AUROCs exceeds with chance 0.05.",
                    [shuffled_file])

# %% [markdown]
# ## Claims — paper value beside measured value

# %%
median_rho = agreement[agreement.treatment == "all"].groupby("variant").rho.median()
threshold_rhos = [median_rho.get(f"threshold {f:g}", np.nan) for f in params.thresholds]
order_note = ("; Table 19's 'all' treatment (∞ tied at the top), median over models. With n tasks one swap of two "
              "neighbours already gives ρ = 1 − 12/(n³ − n), 0.964 at n = 7")
survives = ("ρ ≤ 1, and the paper's statement is that the task order survives the variant (A.1.11, Null: otherwise ρ "
            "would 'fall well below 1'); a median above the paper's is closer agreement, not a contradiction, so only "
            "its lower end is tested")
# Proposition 1 allows a rotation to move a count either way: the factor of a task is max(r, 1/r) of its ratio r;
# a task infinite in both bases has no count to move and is left out.
counted = rotation[np.isfinite(rotation.kstar_main) | np.isfinite(rotation.kstar_control)]
factors = counted.ratio.map(lambda r: max(r, 1 / r) if r > 0 else np.inf)
claims = [
    claim("threshold_agreement_min", "A.2 summary (1); A.1.11, Table 19", "lowest median ρ of a threshold variant "
          f"(factor {', '.join(f'{f:g}' for f in params.thresholds)} instead of {params.frac:g}) with the main task "
          f"order{order_note}",
          "this order survives changes of threshold, search path, and layer rule at median correlations of 0.97 to "
          "0.99", np.nanmin(threshold_rhos), Bound(">=", 0.97, reason=survives)),
    claim("ranking_only_agreement", "A.2 summary (1); A.1.11, Table 19", "median ρ of ranking-only search (ranked "
          f"prefixes, no ℓ1 path) with the main task order{order_note}",
          "this order survives changes of threshold, search path, and layer rule at median correlations of 0.97 to "
          "0.99", median_rho.get("ranking only", np.nan), Bound(">=", 0.97, reason=survives)),
    claim("l1_only_agreement", "A.2 summary (1); A.1.11, Table 19", "median ρ of ℓ1-only search (no ranked prefixes) "
          f"with the main task order{order_note}",
          "this order survives changes of threshold, search path, and layer rule at median correlations of 0.97 to "
          "0.99", median_rho.get("l1 only", np.nan), Bound(">=", 0.97, reason=survives)),
    claim("single_layer_agreement", "A.1.7, What the example shows; Table 19", "median ρ of the best single layer "
          f"(no neighbour confirmation) with the main task order{order_note}",
          "the two readings order the 14 core tasks alike at a median Spearman correlation of 0.98",
          median_rho.get("single layer", np.nan), Bound(">=", 0.98, reason=survives)),
    claim("lemma1_monotone", "A.1.6, Lemma 1(ii), (iv)", "share of decision × seed whose confirmed count never falls "
          "as the threshold factor rises", "1 (a theorem)", monotone, Point(1), kind="sanity"),
    claim("rotation_moves_counts", "A.2 summary (2); A.1.5 Proposition 1, Table 15", "smallest factor max(r, 1/r) "
          f"over tasks by which a random rotation of {params.control_model}'s residual stream moves k* (r = rotated / "
          "main; tasks infinite in both bases left out), against the paper's range of factors",
          "Absolute counts depend on the basis and on the wording of the texts by factors of 1.5 to 20",
          factors.min() if len(factors) else np.nan, Range(1.5, 20)),
    claim("rotation_moves_counts_max", "A.2 summary (2); A.1.5 Proposition 1, Table 15", "largest factor max(r, 1/r) "
          f"over tasks by which a random rotation of {params.control_model}'s residual stream moves k* (r = rotated / "
          "main; ∞ where only one side is finite; tasks infinite in both left out), against the paper's range of "
          "factors", "Absolute counts depend on the basis and on the wording of the texts by factors of 1.5 to 20",
          factors.max() if len(factors) else np.nan, Range(1.5, 20)),
    claim("rotation_keeps_ceilings", "A.2 summary (2); Table 15", "largest |ceiling change| over tasks under the "
          "random rotation", "while ceilings move by at most 0.03", rotation.ceiling_change.abs().max(),
          Bound("<=", 0.03)),
    claim("format_keeps_ceilings", "A.1.2 Input format; A.1.11", "largest |ceiling change| over the format tasks, "
          "chat-formatted against plain input on the same model. The paper measures the input format (A.1.11, "
          "Table 14, lost in extraction) but its surviving bound of 0.03 names the basis and the wording, not the "
          "format: 0.03 is borrowed from it", "while ceilings move by at most 0.03",
          formats.ceiling_change.abs().max(), Bound("<=", 0.03), kind="extension"),
    claim("shuffled_search_below_limit", "Test-set use (Table 7)", "largest z / z_limit over shuffled decisions: "
          "z of the largest test AUROC of any probe the whole search fitted on shuffled labels, over the Šidák level "
          "for that many independent null fits. The paper states no value (Table 7 was lost): staying below the "
          "independent-fits level is this notebook's reading of 'no high AUROC'",
          "the shuffled-label control in Table 7 shows that the search does not produce high AUROCs from label "
          "noise", (shuffled.z / shuffled.z_limit).max(), Bound("<=", 1), kind="extension"),
    claim("shuffled_tasks_unreadable", "Test-set use (Table 7); A.1.6 readability flag", "share of model × task "
          "cells of the whole search on shuffled labels that the readability flag marks unreadable (task ceiling ≤ "
          "0.90, or no decision above ½)", "the search does not produce high AUROCs from label noise",
          1 - len(readable_shuffled) / len(shuffled_tasks) if len(shuffled_tasks) else np.nan, Point(1),
          kind="extension"),
]
claims_table, claims_file = run.record_claims(claims)
plotting.save_table(claims_table, "claims", "K02 (paper 002, A.1.11, A.2.2): the paper's value beside the measured "
                    "value; kind 'sanity' holds by construction, kind 'extension' goes beyond the paper's stated "
                    "values; neither is counted as reproduction.", [claims_file])

# %% [markdown]
# A `fails` outcome marks a number not reproduced here, reported as measured. The format control reads
# only the short-text tasks (a CPU budget); the paper's format factorial on Gemma-2-9B base and IT is K05.

# %%
show_claims(claims_table, params.profile)
