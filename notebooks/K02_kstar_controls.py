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
# turn plus the generation prompt) against plain text, and shuffled labels (no ceiling should leave the
# null band ½ + 4σ₀).
#
# Writes: `variants` (task tables per control), `agreement`, `rotation`, `format`, `shuffled`, `claims`.

# %%
import numpy as np
import pandas as pd
from IPython.display import display

from lib import config, plotting, results, stats
from lib.claims import Bound, Point, claim, show_claims
from lib.kstar import counts, measure

# %% tags=["parameters"]
profile = "default"  # smoke | default | paper
recompute = True  # compute missing or stale results; false: only redraw figures from logged results
n_jobs = 1  # worker processes (-1: this process's share of cores); results do not depend on it
scheduler = ""  # Dask scheduler address (tcp://host:8786) for the searches; empty: local processes; results do not depend on it
tasks = ["bbc_topic", "rt_sentiment", "rt_subjectivity", "debate_moderator", "dreaddit_stress", "discrim_question", "word_valence"]  # task pools (A.1.3)
cap = 300  # texts per split of a pool (A.1.3 caps; the paper's pools hold up to 10,000)
max_classes = 5  # one-vs-rest decisions per multiclass task (a seeded subset beyond)
pool_seed = 0  # seed of the pools, shared by all models (A.1.3)
max_tokens = 128  # input truncation in tokens (paper: 768)
grid_size = 6  # probed blocks per model, an even sweep over depth (A.1.9, Table 6)
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
    measure.sweep_table, model, grid_size=params.grid_size, poolings=params.sweep_poolings, n_jobs=params.n_jobs,
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
# ## Shuffled labels: the ceiling of a label-free decision
#
# Both splits' labels are permuted (seeded) and only the dense probe is fitted per block and seed:
# the control reads the common ceiling, a maximum over the window's 20 dense probes.

# %%
shuffled_window, _ = run.table("shuffled_window", lambda: pd.concat([results.shared_table(
    measure.window_table, model, window_of[model], label_seed=params.shuffle_seed, **window_args, **pool_args)
    for model in params.models], ignore_index=True))
shuffled, shuffled_file = run.table("shuffled", lambda: counts.window_ceilings(shuffled_window, params.frac).assign(
    sigma0=lambda f: stats.null_auc_sd(f.n_test_pos, f.n_test_neg),
    z=lambda f: (f.ceiling - 0.5) / f.sigma0))
display(shuffled)
plotting.save_table(shuffled.round(4), "shuffled", "Common ceilings (largest dense AUROC over the window's blocks and "
                    "seeds) with both splits' labels shuffled (dense probes only), and z = (C − ½)/σ₀ with Theorem 4's σ₀ of the test split: "
                    "the ceiling is a maximum over 20 probes, so it sits above ½ by chance, not beyond the band.",
                    [shuffled_file])

# %% [markdown]
# ## Claims — paper value beside measured value

# %%
median_rho = agreement[agreement.treatment == "all"].groupby("variant").rho.median()
threshold_rhos = [median_rho.get(f"threshold {f:g}", np.nan) for f in params.thresholds]
tolerance = "; ≥ 0.9 chosen: with ~7 tasks one swapped pair costs 0.04-0.07 of ρ"
claims = [
    claim("threshold_agreement_min", "A.1.11, Table 19", "lowest median ρ (all treatment) of a threshold variant "
          f"with the main order{tolerance}", "0.97-0.99", np.nanmin(threshold_rhos), Bound(">=", 0.9, reason="agreement: the statement's ≥ 0.9 (one swapped pair of ~7 tasks costs 0.04-0.07)")),
    claim("ranking_only_agreement", "A.1.11, Table 19", f"median ρ of ranking-only search with the main order{tolerance}",
          "0.99", median_rho.get("ranking only", np.nan), Bound(">=", 0.9, reason="agreement: the statement's ≥ 0.9 (one swapped pair of ~7 tasks costs 0.04-0.07)")),
    claim("single_layer_agreement", "A.1.11, Table 19", f"median ρ of the best single layer with the main order{tolerance}",
          "0.98", median_rho.get("single layer", np.nan), Bound(">=", 0.9, reason="agreement: the statement's ≥ 0.9 (one swapped pair of ~7 tasks costs 0.04-0.07)")),
    claim("lemma1_monotone", "A.1.6, Lemma 1(ii), (iv)", "share of decision × seed whose confirmed count never falls "
          "as the threshold factor rises", "1 (a theorem)", monotone, Point(1), kind="sanity"),
    claim("rotation_moves_counts", "A.1.11, Table 15", "median count ratio rotated / main over tasks (the paper reports "
          "moves of ×1.5 to ×20)", "1.5-20", rotation.ratio.median(), Bound(">=", 1.5, reason="the paper reports moves of at least ×1.5: the test is that rotation moves counts")),
    claim("rotation_keeps_ceilings", "A.1.11, Table 15", "largest |ceiling change| under rotation",
          "<= 0.03", rotation.ceiling_change.abs().max(), Bound("<=", 0.03)),
    claim("format_keeps_ceilings", "A.1.2, A.3.1", "largest |ceiling change| chat vs plain",
          "<= 0.03", formats.ceiling_change.abs().max(), Bound("<=", 0.03)),
    claim("shuffled_labels_in_band", "A.1.8", "largest (C − ½)/σ₀ of a decision with shuffled labels",
          "no ceiling above ½ + 4σ₀", shuffled.z.max(), Bound("<=", 4)),
]
claims_table, claims_file = run.record_claims(claims)
plotting.save_table(claims_table, "claims", "K02 (paper 002, A.1.11, A.2.2): the paper's value beside the measured "
                    "value; kind 'sanity' holds by construction and is not counted as reproduction.", [claims_file])

# %% [markdown]
# A `fails` outcome marks a number not reproduced here, reported as measured. The format control reads
# only the short-text tasks (a CPU budget); the paper's format factorial on Gemma-2-9B base and IT is K05.

# %%
show_claims(claims_table, params.profile)
