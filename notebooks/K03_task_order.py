# %% [markdown]
# # K03 · Do models order tasks alike? Cross-model agreement and the text-side baseline
#
# **Paper 002**, App. A.2.1 (Eq. 24–25, Tables 11–13) and A.2.3 (Eq. 30). Within a task, the spread
# ratio σ_t = max/min of k* over the models where the task is readable; across tasks, Spearman's ρ
# between two models' count vectors under three treatments of ∞ and low ceilings, and a permutation test
# that shuffles task labels within each model. The text-side baseline runs Algorithm 1 on TF-IDF features
# of the raw text (1–2-grams, sublinear tf, 30,000 terms, one seed): k_first against k_stable, the prefix
# score s(k) of models and text at k = 64 and 256 (Wilcoxon), the ceiling correlation, and the partial rank
# correlation of two models' orders given each text-side reading. Offline there are two models, so there is
# one model pair and the permutation test cannot reach the paper's p < 10⁻⁵ (its floor is 1/n_tasks!).
#
# Writes: `task_table`, `pairs`, `text_baseline`, `text_ceiling_searches`, `prefix_scores` (figure), `partial`,
# `claims`.

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

from lib import config, plotting, results, uncertainty
from lib.claims import Bound, Point, Range, claim, show_claims
from lib.kstar import counts, measure, order, text_baseline

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
n_permutations = 100000  # task-label shuffles within each model (A.2.1)
permutation_seed = 0  # seed of the permutation test (the paper's: 0)
tfidf_max_features = 30000  # TF-IDF vocabulary (A.2.3: 1-2-grams, sublinear tf)
text_ks = [4, 8, 16, 64, 256]  # prefix sizes read off s(k) (A.2.1)

# %%
params = config.load("K03_task_order", globals())
measure.prepare_models(params.models)  # an unknown model stops here, before any compute
run = results.start(params)
plotting.use_style()
pool_args = {"tasks": params.tasks, "cap": params.cap, "pool_seed": params.pool_seed,
             "max_classes": params.max_classes, "min_positives": params.min_positives}

# %% [markdown]
# ## k* of every task × model (the measurement of K01, read from the table cache)

# %%
sweep, _ = run.table("sweep", lambda: pd.concat([results.shared_table(
    measure.sweep_table, model, layers=params.layers, poolings=params.sweep_poolings,
    max_tokens=params.max_tokens, n_jobs=params.n_jobs, scheduler=params.scheduler, **pool_args)
    for model in params.models], ignore_index=True))
windows = counts.best_blocks(sweep, params.frac)
window, _ = run.table("window", lambda: pd.concat([results.shared_table(
    measure.window_table, model, {t: [int(b) for b in w] for t, w in zip(cell.task, cell.window, strict=True)},
    seeds=params.seeds, subsample=params.subsample, max_tokens=params.max_tokens, n_jobs=params.n_jobs,
    scheduler=params.scheduler, **pool_args)
    for model, cell in windows.groupby("model", sort=False)], ignore_index=True))
task_table, task_file = run.table("task_table", lambda: counts.window_counts(window, params.frac))
display(task_table.pivot(index="task", columns="model", values="kstar"))

# %% [markdown]
# ## Agreement within a task (σ_t) and across tasks (ρ, permutation test)

# %%
spread, ceiling_range = order.spread_ratios(task_table), order.ceiling_ranges(task_table)
pairs, pairs_file = run.table("pairs", lambda: order.pairwise_agreement(task_table, params.models))
display(pairs)
shared_order = order.shared_order_test(task_table, params.models, params.n_permutations, params.permutation_seed)
common, observed, p_value = shared_order.common, shared_order.observed, shared_order.p_value
labs = {model: order.lab(model) for model in params.models}
print(f"labs: {labs}; {shared_order.n_pairs} cross-lab pair(s)"
      + (" (one pair: the median over cross-lab pairs is that pair's ρ)" if shared_order.n_pairs == 1 else ""))
print(f"tasks readable in every model: {common}; median cross-lab ρ {observed:.3f}, permutation p = {p_value:.2g}")
plotting.save_table(pairs.round(4), "pairs", "Spearman ρ between the k* orders of every model pair under the three "
                    "treatments (paper 002, A.2.1, Eq. 25, Table 12): all (∞ tied at the top), finite, gated (readable).",
                    [pairs_file])

# %% [markdown]
# ## The text-side baseline (A.2.3)

# %%
text_rows, text_file = run.table("text_baseline", lambda: results.shared_table(
    text_baseline.tfidf_table, max_features=params.tfidf_max_features, n_jobs=params.n_jobs,
    scheduler=params.scheduler, **pool_args))
text_scores = text_baseline.prefix_scores(text_rows)
first_stable = text_baseline.task_first_and_stable(text_baseline.first_and_stable(text_scores))
best = windows[["model", "task", "best_block"]].rename(columns={"best_block": "block"})
model_rows = sweep[sweep.pooling == "mean"].merge(best, on=["model", "task", "block"])
model_scores = text_baseline.prefix_scores(model_rows)
ceiling_rows, _ = run.table("text_ceiling_searches", lambda: results.shared_table(
    text_baseline.tfidf_ceiling_table, max_features=params.tfidf_max_features, seeds=params.seeds,
    subsample=params.subsample, n_jobs=params.n_jobs, scheduler=params.scheduler, **pool_args))
text_ceiling = text_baseline.text_ceilings(ceiling_rows)  # the model's search: five subsampled seeds (A.1.6)
readings, prefix_file = run.table("prefix_scores", lambda: text_baseline.task_prefix_scores(
    pd.concat([model_scores, text_scores], ignore_index=True), params.text_ks).merge(text_ceiling, on="task"))
unreadable_text = sorted(text_ceiling.task[text_ceiling.text_flagged])
print(f"unreadable from text (text ceiling ≤ 0.90, A.1.6), left out of the s(k) statistics: {unreadable_text}")
display(readings.round(3))

fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
for ax, k in zip(axes, (64, 256), strict=True):
    text_side = readings[readings.model == text_baseline.TEXT_MODEL].set_index("task")
    text_k = text_side[f"s_{k}"].where(~text_side.text_flagged)  # unreadable from text: not drawn
    for model in params.models:
        model_k = readings[readings.model == model].set_index("task")[f"s_{k}"]
        ax.scatter(text_k.reindex(model_k.index), model_k, label=model)
    ax.plot([0, 1], [0, 1], "k:", lw=1)
    ax.set(xlabel=f"text s({k})", ylabel=f"model s({k})", title=f"prefix score at k = {k}")
axes[0].legend(fontsize=7)
plotting.save_figure(fig, "prefix_scores", "Prefix score s(k) of Eq. 30, the running maximum over j ≤ k of "
                     "(A_rank(j) − ½)/(C − ½), of each model (sweep, best block, mean pooling, median over decisions) "
                     "against the TF-IDF text baseline, per task readable from text, at k = 64 and 256 (paper 002, "
                     "A.2.3, Eq. 30); dotted: equality.", [prefix_file])

# %%
comparison, comparison_file = run.table("text_comparison", lambda: order.model_vs_text(readings, task_table,
                                                                                     params.models))
partial, partial_file = run.table("partial", lambda: order.partial_agreement(
    readings, task_table, params.models, [*(f"s_{k}" for k in params.text_ks), "text_ceiling"], common))
display(comparison.round(4))
display(partial.round(4))
plotting.save_table(comparison.round(4), "text_comparison", "Model against text at k = 64 and 256 (median s(k) over "
                    "tasks readable from text, two-sided Wilcoxon signed-rank test across them; text_unreadable: left out) "
                    "and ceilings (k = 0: Spearman correlation and median gain of the model's task ceiling over the "
                    "TF-IDF ceiling, both searched over five subsampled seeds) (paper 002, A.2.3).",
                    [comparison_file])
plotting.save_table(partial.round(4), "partial", "Spearman ρ of two models' k* orders and the partial rank correlation "
                    "given each text-side reading, on the tasks readable in every model (s(k): those of them readable from "
                    "text) (paper 002, A.2.1, Table 13); the "
                    "last row recomputes ρ on log k* (the order statistic's invariance).", [partial_file])

# %% [markdown]
# ## Claims — paper value beside measured value

# %%
cross = [(params.models[i], params.models[j]) for i, j in order.cross_lab_pairs(params.models)]
on_common = task_table[task_table.task.isin(common)]
common_rhos = [counts.agreement(on_common[on_common.model == a], on_common[on_common.model == b], "all", 3)[0]
               for a, b in cross]
# Table 12's columns (lost in extraction) summarise ρ over pairs: here the median, lowest and highest over all pairs.
columns = pairs.groupby("treatment").rho.agg(["median", "min", "max"])
treatment_gap = (columns.max() - columns.min()).max() if len(columns) else np.nan
at64 = comparison[comparison.k == 64]
at256 = comparison[comparison.k == 256]
ceiling_rows = comparison[comparison.k == 0]
controlled = partial[~partial.control.str.startswith("log")]
controlled = controlled[[(a, b) in cross for a, b in zip(controlled.model_a, controlled.model_b, strict=True)]]
invariance = partial[partial.control.str.startswith("log")]
# The permutation p cannot fall below the chance that every shuffled model repeats the observed relative order,
# (1/n!)^(m − 1) for m models on n untied tasks, nor below 1/(1 + n_permutations).
floor = (math.factorial(len(common)) ** -(len(params.models) - 1) if common else np.nan)
floor = max(floor, 1 / (1 + params.n_permutations)) if common else np.nan
p_unreachable = (f"the paper's p < 1e-5 is unreachable here: {len(params.models)} models on {len(common)} tasks "
                 f"readable in all of them with {params.n_permutations} permutations give a floor of {floor:.2g} "
                 "(the paper: 10 models, 30 cross-lab pairs, nine tasks, 10^5 permutations)") \
    if common and floor >= 1e-5 else ""
paper_first = 14 / 24  # A.2.3: k_first ≠ k_stable in 14 of the 24 tasks
first_se = uncertainty.binomial_se(paper_first, len(first_stable))
gains = ceiling_rows.median_difference.dropna()
gain = gains.loc[(gains - 0.026).abs().idxmax()] if len(gains) else np.nan  # the model farthest from the paper's
n_text = int(at64.n_tasks.min()) if len(at64) else 0
agreement_reason = ("ρ ≤ 1, and the paper's statement is that the agreement survives the text-side control ('The "
                    "agreement thus rests mostly on the part of the order that the text does not predict'); a higher "
                    "partial ρ is closer agreement, not a contradiction, so the paper's lowest value is the test")
claims = [
    claim("spread_ratio_max", "A.2.1, Count ranges and ceilings", "largest σ_t = max/min of k* over the models where "
          "the task is readable (Eq. 24), over tasks readable in at least two models; the paper's one exception, PII "
          "detection, has no pool here", "σ_t is at most 3.2, except for PII detection, which ranges from 1 to 8",
          spread.max(), Bound("<=", 3.2)),
    claim("pairwise_rho_min", "A.2.1, Result for the main-text summary", "lowest cross-lab pair's Spearman ρ (Eq. 25) "
          f"over the {len(common)} task(s) readable in every model (the paper's nine-task summary set), "
          f"{len(cross)} cross-lab pair(s)", "a range of 0.7812 to 1.0000", pd.Series(common_rhos, dtype=float).min(),
          Range(0.7812, 1.0)),
    claim("treatments_agree", "A.2.1, Result for the pairwise treatments (Table 12)", "largest spread across the three "
          "treatments (all, finite, gated) of the median, lowest and highest ρ over all model pairs",
          "the three treatments agree to within 0.05 in every column", treatment_gap, Bound("<=", 0.05)),
    claim("permutation_p", "A.2.1, Result for the main-text summary", f"permutation p of the median ρ over "
          f"{shared_order.n_pairs} cross-lab pair(s) on {len(common)} readable tasks (task labels shuffled within "
          "each model)" + (" (one cross-lab pair: the median is that pair's ρ)" if shared_order.n_pairs == 1 else ""),
          "no permutation reaches the observed median and p<10^{-5}", p_value, Bound("<", 1e-5),
          not_measured=p_unreachable),
    claim("permutation_p_at_05", "A.2.1, Result for the main-text summary", "the same permutation p at the "
          "conventional 0.05, this notebook's level where the paper's 1e-5 is out of reach (it needs about nine "
          "tasks readable in several models: see permutation_p)",
          "no permutation reaches the observed median and p<10^{-5}", p_value, Bound("<", 0.05), kind="extension"),
    claim("ceilings_across_models", "A.2.1, Count ranges and ceilings", "largest ceiling range across models on a "
          "readable task", "Ceilings differ by at most 0.05 across models on every readable task",
          ceiling_range.max(), Bound("<=", 0.05)),
    claim("first_vs_stable", "A.2.3, Why we report no input-side k*", "share of tasks whose text-baseline (TF-IDF) "
          "k_first ≠ k_stable, each the task-level estimator of A.1.7 (median over decisions, then seeds), within 3 "
          f"binomial s.e. √(p(1 − p)/N) at the paper's p = 14/24 over the N = {len(first_stable)} tasks",
          "In 14 of the 24 tasks, k_first ≠ k_stable",
          float(first_stable.differs.mean()) if len(first_stable) else np.nan,
          Point(paper_first, se=first_se, k=3)),
    claim("model_ahead_at_64", "A.2.3, Result", "smallest model-minus-text median s(64) difference across models, on "
          f"the {n_text} task(s) readable from text (paper 0.991 vs 0.919 on Gemma-2-9B)",
          "The model reaches more of its own ceiling within 64 features", at64.median_difference.min(),
          Bound(">", 0)),
    claim("model_ahead_at_64_p", "A.2.3, Result", "largest two-sided Wilcoxon p of model against text s(64) across "
          f"models, on the {n_text} task(s) readable from text (the difference is significant at 64, since it is "
          "'no longer significant at 256')", "The model reaches more of its own ceiling within 64 features, and the "
          "difference is no longer significant at 256", at64.p_value.max(), Bound("<", 0.05),
          not_measured="" if n_text > 5 else f"a two-sided Wilcoxon test on {n_text} pairs cannot reach p < 0.05"),
    claim("not_ahead_at_256", "A.2.3, Result", "smallest two-sided Wilcoxon p of model against text s(256) across "
          "models", "the difference is no longer significant at 256", at256.p_value.min(), Bound(">=", 0.05)),
    claim("ceiling_correlation", "A.2.3, The ceiling axis", "lowest Spearman correlation across models of the "
          "model's task ceilings with the TF-IDF ceilings (paper: Gemma-2-9B over 24 tasks)",
          "Input-side and model-side ceilings correlate at ρ=0.950", ceiling_rows.ceiling_correlation.min(),
          Bound(">=", 0.95, reason="the paper's statement is that dense readability is mostly a property of the text "
                "('Dense ceilings are largely fixed by the text, at a correlation of 0.950'); a higher correlation "
                "says so more strongly, not less, so the lower side is the test")),
    claim("ceiling_gain", "A.2.3, The ceiling axis", "median model-minus-text ceiling gain over tasks, of the model "
          "farthest from the paper's 0.026 (every model within the tolerance when it is)",
          "The model exceeds the input baseline by a median of 0.026 AUROC", gain,
          Point(0.026, tol=0.005, reason="the paper's ceilings 'move by at most 0.0024 between independent runs' "
                "(A.2.3), so a difference of two ceilings moves by at most 0.0048")),
    claim("partial_rho_min", "A.2.1, Text-level control (Table 13)", "lowest, over the six text-side readings, of the "
          f"median cross-lab partial ρ of two models' k* orders given that reading, on the {len(common)} task(s) "
          "readable in every model (the paper's nine)",
          "the median cross-lab partial correlation is 0.86 to 0.92 ... its lowest value of 0.860",
          controlled.groupby("control").partial_rho.median().min() if len(controlled) else np.nan,
          Bound(">=", 0.86, reason=agreement_reason)),
    claim("log_invariance", "A.2.1, Remark (invariance of the order statistic)", "largest |ρ(log k*) − ρ(k*)| over "
          "model pairs", "0 (exact)", (invariance.partial_rho - invariance.rho).abs().max(), Point(0), kind="sanity"),
]
claims_table, claims_file = run.record_claims(claims)
plotting.save_table(claims_table, "claims", "K03 (paper 002, A.2.1, A.2.3): the paper's value beside the measured "
                    "value; kind 'sanity' holds by construction, kind 'extension' goes beyond the paper; neither is "
                    "counted as reproduction.", [claims_file])

# %% [markdown]
# A `fails` outcome marks a number not reproduced here, reported as measured, with the reason in its
# statement. Two offline models give one pair, so "lowest" and "median" over pairs coincide.

# %%
show_claims(claims_table, params.profile)
