# %% [markdown]
# # K06 · SAE supports, feature correspondence across models, composition within one
#
# **Paper 002**, App. A.1.10 (SAE protocol), A.2.4 (correspondence, Lemma 3, Figures 8–9, Table 22) and
# A.2.5 (composition). Each class decision's SAE support is the smallest qualifying candidate of
# Algorithm 1 on the SAE codes of the last-position residual, at the task's SAE layer (neighbour
# confirmation over class-decision medians), against the sweep ceiling over *every* representation.
# For each model pair and decision held by both, the matching score T (within-class centred |correlations|,
# Hungarian matching of q = min(k_A, k_B) features) is compared with 1,000 label-matched null draws that
# replace the later model's features by unselected ones of similar label correlation: pass when
# T > Q₀.₉₉, z standardised. Composition refits each decision of a multiclass task on the union of the
# other decisions' supports (recovery (A − ½)/(C − ½), reconstructed), against equal-size random
# dictionaries, and reruns the test on residual coordinates.
#
# Offline default: the two causal LMs that ship offline, SmolLM2-135M-Instruct and Gemma-3-270M base (one
# pair, so pair-level rates are one pair's rate; the paper pairs causal LMs too), inputs cut at 256 tokens,
# four task pools capped at 300 texts per split, four grid blocks, and *offline TopK SAEs* (k = 50, width
# 4·d, 2,000 Adam steps) trained on token-level activations of the pools' training texts — the paper's Gemma
# Scope, Llama Scope and Qwen-Scope suites exist only for its models (`lib.kstar.sae.load` reads them). Their
# reconstruction is reported before any support is read, with a plateau check (the same training read at half
# its steps). What the paper lost
# (its Eq. 21, 31–33, the recovery formula) is reconstructed in `lib.kstar.{sae,correspondence,composition}`.
#
# Writes: `decisions`, `residual_sweep`, `sae_quality`, `sae_plateau`, `sae_sweep`, `sae_layers`, `supports`,
# `correspondence`, `pass_rates`, `composition`, `composition_summary`, figures `z_by_support` (Fig. 9)
# and `composition_recovery`, `claims`.

# %%
import functools

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display
from scipy import stats

from lib import config, plotting, results, uncertainty
from lib.claims import Bound, Point, Range, claim, show_claims
from lib.kstar import composition, layer_specs, measure, sae_measure
from lib.kstar import correspondence as corr

# %% tags=["parameters"]
profile = "default"  # smoke | default | paper
recompute = True  # compute missing or stale results; false: only redraw figures from logged results
n_jobs = 1  # worker processes (-1: this process's share of cores); results do not depend on it
scheduler = ""  # Dask scheduler address (tcp://host:8786) for the searches; empty: local processes; results do not depend on it
models = ["smollm2-135m", "gemma3-270m"]  # registry names, hub ids or local checkpoint folders (offline: the two causal LMs, as the paper pairs causal LMs); the later model of a pair supplies the null's replacements
tasks = ["bbc_topic", "rt_sentiment", "debate_moderator", "rt_subjectivity"]  # task pools (A.1.3)
composition_task = "bbc_topic"  # the multiclass task of the composition test (A.2.5)
cap = 300  # texts per split of a pool (A.1.3)
max_classes = 5  # one-vs-rest decisions per multiclass task
pool_seed = 0  # seed of the pools, shared by all models (A.1.3)
max_tokens = 256  # input truncation in tokens (paper: 768)
layers = "grid:4"  # probed blocks per model (residual and SAE): "grid:N" (N blocks evenly over depth), a list "3,6,9" or "table6" (the paper's Table 6 grid, A.1.9)
sweep_poolings = ["mean", "last"]  # residual representations that enter the sweep ceiling (A.1.10)
frac = 0.95  # threshold factor of Eq. 4: τ is ½ + frac·(C − ½)
min_positives = 5  # positives per split a decision needs (A.1.3)
sae_width = 4  # offline SAE width: d_sae is sae_width · d
sae_k = 50  # active features k of the TopK SAE (A.1.10: 50)
sae_texts = 600  # training texts whose tokens train each offline SAE
sae_steps = 2000  # Adam steps per offline SAE (the plateau check reads the same training at half of them)
sae_batch = 512  # tokens per step
sae_lr = 0.001  # Adam learning rate
sae_seed = 0  # seed of the token sample and the SAE initialisation
n_draws = 1000  # label-matched null draws per test (A.2.4)
n_nearest = 50  # candidates per selected feature, nearest in label correlation (A.2.4)
null_seed = 0  # root seed of the null draws (one stream per pair and decision)
composition_seeds = [0, 1, 2, 3, 4]  # random dictionaries per decision (A.2.5)

# %%
params = config.load("K06_sae_correspondence", globals())
measure.prepare_models(params.models)
run = results.start(params)
plotting.use_style()
task_pools = measure.pools(params.tasks, cap=params.cap, seed=params.pool_seed, max_classes=params.max_classes)
pool_args = {"tasks": params.tasks, "cap": params.cap, "pool_seed": params.pool_seed,
             "max_classes": params.max_classes, "max_tokens": params.max_tokens, "min_positives": params.min_positives}
grids = {model: layer_specs.resolve(model, params.layers) for model in params.models}
full_steps, half_steps = params.sae_steps, params.sae_steps // 2  # the plateau check: the same training at half
train = functools.partial(sae_measure.train_saes, tasks=tuple(params.tasks), cap=params.cap,
                          pool_seed=params.pool_seed, max_classes=params.max_classes, max_tokens=params.max_tokens,
                          width_factor=params.sae_width, k=params.sae_k, n_texts=params.sae_texts,
                          stages=(half_steps, full_steps), batch_size=params.sae_batch, lr=params.sae_lr,
                          seed=params.sae_seed)
print("grid blocks:", grids)

# %% [markdown]
# ## Class decisions and the residual sweep (A.1.3, A.1.6)
#
# The residual representations enter only through the ceiling: an SAE support must reach 95% of the
# above-chance AUROC of the best probe in *any* representation (A.1.10, "Design rationale").

# %%
decisions, decisions_file = run.table("decisions", lambda: measure.decisions_table(task_pools, params.min_positives))
residual_sweep, residual_file = run.table("residual_sweep", lambda: pd.concat([results.shared_table(
    measure.sweep_table, model, layers=params.layers, poolings=params.sweep_poolings, n_jobs=params.n_jobs,
    scheduler=params.scheduler, **pool_args) for model in params.models], ignore_index=True))
display(decisions)

# %% [markdown]
# ## Offline SAEs: reconstruction of the probed representation (A.1.10; Sec. 5 reports 0.35–0.73)

# %%
quality, quality_file = run.table("sae_quality", lambda: pd.concat([sae_measure.quality_table(
    model, train(model, blocks=grids[model])[full_steps], task_pools, params.max_tokens) for model in params.models],
    ignore_index=True))
display(quality)
plotting.save_table(quality.round(4), "sae_quality", "Offline TopK SAEs (paper 002, A.1.10; trained here on token-level "
                    "activations of the pools' training texts): width, median reconstruction cosine on the last-position "
                    "residuals of the test texts, mean active features and the share of features never active there.",
                    [quality_file])

# %% [markdown]
# Trained long enough? The same SAEs read halfway through their training (same tokens, same seeds): if the second half
# of training still moves the median reconstruction cosine, the supports below read an SAE that is still
# learning.

# %%
plateau, plateau_file = run.table("sae_plateau", lambda: pd.concat([sae_measure.quality_table(
    model, train(model, blocks=grids[model])[half_steps], task_pools, params.max_tokens) for model in params.models],
    ignore_index=True)[["model", "block", "cosine_median"]].rename(columns={"cosine_median": "cosine_half_steps"})
    .merge(quality[["model", "block", "cosine_median"]], on=["model", "block"])
    .assign(gain=lambda t: t.cosine_median - t.cosine_half_steps))
display(plateau)
plotting.save_table(plateau.round(4), "sae_plateau", f"Plateau check of the offline SAEs (paper 002, A.1.10): median "
                    f"reconstruction cosine on the test texts after {half_steps} and {full_steps} "
                    "Adam steps (same tokens and seeds) and the gain of the second half.", [plateau_file, quality_file])

# %% [markdown]
# ## The SAE sweep, the SAE layer and the supports (A.1.10)

# %%
sae_sweep, sae_sweep_file = run.table("sae_sweep", lambda: pd.concat([measure.run_searches(
    sae_measure.sae_sweep_items(model, train(model, blocks=grids[model])[full_steps], task_pools, max_tokens=params.max_tokens,
                                min_positives=params.min_positives), params.n_jobs, params.scheduler)
    for model in params.models],
    ignore_index=True))
sweep = pd.concat([residual_sweep, sae_sweep], ignore_index=True)
sae_layer_table, sae_layers_file = run.table("sae_layers", lambda: sae_measure.sae_layers(sweep, params.frac))
supports, supports_file = run.table("supports", lambda: pd.concat(
    [sae_measure.supports(sweep, sae_layer_table, params.frac, pooling) for pooling in ("sae", "last")], ignore_index=True))
coverage = supports.groupby(["pooling", "model", "task"]).has_support.agg(["sum", "size"]).reset_index()
display(sae_layer_table)
display(coverage)
plotting.save_table(supports[supports.pooling == "sae"].drop(columns="support").round(4), "supports",
                    "SAE supports (paper 002, A.1.10): per class decision, the task's SAE block (neighbour confirmation "
                    "over class-decision medians), the sweep ceiling over every representation, τ and the support size "
                    "(∞: no qualifying SAE support; such decisions do not enter the tests).",
                    [supports_file, sae_layers_file, sae_sweep_file, residual_file])

# %% [markdown]
# ## Correspondence across models (A.2.4, Eq. 31–33)

# %%
block_of = dict(zip(zip(sae_layer_table.model, sae_layer_table.task, strict=True), sae_layer_table.sae_block,
                    strict=True))
sae_supports = supports[supports.pooling == "sae"]
tests, tests_file = run.table("correspondence", lambda: pd.concat([corr.correspondence_tests(
    task, params.models, sae_measure.support_map(sae_supports, task),
    {model: sae_measure.encode_pool(model, train(model, blocks=grids[model])[full_steps], task_pools[task],
                                    block_of[(model, task)], params.max_tokens)[1] for model in params.models},
    {d.name: d.y_test.astype(int) for d in task_pools[task].decisions(params.min_positives) if not d.skipped},
    seed=params.null_seed, n_draws=params.n_draws, n_nearest=params.n_nearest) for task in params.tasks],
    ignore_index=True))
rates, rates_file = run.table("pass_rates", lambda: corr.pass_rates(tests))
display(rates)
plotting.save_table(rates.round(4), "pass_rates", "Correspondence pass rates (paper 002, A.2.4): per task and q-split, the "
                    "pooled rate over tests, the median over pairs of the pair rates, the median z and the share of "
                    "positive z; nominal rate under the null 1%. q = 0 comparisons are skipped and counted.",
                    [rates_file, tests_file])

# %%
tested = tests[tests.status == "tested"].astype({"passed": bool, "z": float})
held_by = sae_supports[sae_supports.has_support].groupby(["task", "decision"]).model.nunique()
print(f"decisions with an SAE support in every model: {int((held_by == len(params.models)).sum())} of "
      f"{sae_supports.groupby(['task', 'decision']).ngroups}; correspondence tests run: {len(tested)}")
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
axes[0].hist(tested.z.clip(-5, 20), bins=30, color="C0")
axes[0].set(xlabel="z (clipped to [−5, 20])", ylabel="tests", title=f"{len(tested)} tests")
for colour, (task, part) in enumerate(tested.groupby("task")):
    axes[1].scatter((part.k_a + part.k_b) / 2, part.z, s=12, color=f"C{colour}", label=task)
axes[1].axhline(0, color="k", lw=0.8)
axes[1].set(xscale="log", xlabel="mean support size", ylabel="z")
if len(tested):
    axes[1].legend(fontsize=7)
plotting.save_figure(fig, "z_by_support", "Standardised correspondence scores of every test (paper 002, A.2.4, Fig. 9): "
                     "their distribution and their relation to the mean support size of the two models.", [tests_file])

# %% [markdown]
# ## Composition from the other decisions' supports (A.2.5), and the residual-basis control

# %%
comp, comp_file = run.table("composition", lambda: pd.concat([sae_measure.composition_rows(
    model, train(model, blocks=grids[model])[full_steps], task_pools[params.composition_task], params.composition_task,
    supports[supports.pooling == basis], basis=basis, max_tokens=params.max_tokens, min_positives=params.min_positives,
    null_seeds=params.composition_seeds, frac=params.frac) for model in params.models for basis in ("sae", "last")],
    ignore_index=True))
summary, summary_file = run.table("composition_summary", lambda: composition.summary_table(comp))
display(summary)
plotting.save_table(summary.round(4), "composition_summary", "Composition (paper 002, A.2.5): per model and basis (SAE "
                    "codes; 'last': the residual-basis control), median recovery (A − ½)/(C − ½) from the leave-one-out "
                    "dictionary, the share ≥ 0.9, decisions above their random control, one-sided Wilcoxon p, own "
                    "overlap, and the width of the dictionary readout against the own support.", [summary_file, comp_file])

# %%
fig, ax = plt.subplots(figsize=(7, 3.6))
labels = [f"{m[:8]}·{b}·{d}" for m, b, d in zip(comp.model, comp.basis, comp.decision, strict=True)]
ax.bar(np.arange(len(comp)) - 0.2, comp.recovery, 0.4, label="leave-one-out dictionary")
ax.bar(np.arange(len(comp)) + 0.2, comp.random_recovery, 0.4, label="random, equal size (mean)")
ax.axhline(composition.RECOVERY_CRITERION, color="k", ls="--", lw=1)
ax.set_xticks(np.arange(len(comp)), labels, rotation=60, ha="right", fontsize=6)
ax.set(ylabel="recovery")
ax.legend(fontsize=7)
plotting.save_figure(fig, "composition_recovery", "Recovery of each held-out class decision from the other decisions' "
                     "supports against random dictionaries of equal size (paper 002, A.2.5), in the SAE basis and the "
                     "residual-basis control; dashed: the 0.9 criterion.", [comp_file])

# %% [markdown]
# ## Claims — paper value beside measured value

# %%
n_tests, n_pass = len(tested), int(tested.passed.sum())
lower = stats.binomtest(n_pass, n_tests).proportion_ci(0.95).low if n_tests else np.nan
pooled = n_pass / n_tests if n_tests else np.nan
# Binomial s.e. of the pooled rate over its n_tests tests, taken at the nearest end of the paper's range (the rate
# the comparison tests), so a rate of 0 or 1 on few tests keeps its sampling error; the tests share models and
# decisions (A.2.4, 'Dependence'), so this s.e. likely understates the rate's real spread.
p_null = min(max(pooled, 0.343), 0.562) if n_tests else np.nan
pooled_se = uncertainty.binomial_se(p_null, n_tests)
no_tests = "" if n_tests else ("no class decision holds an SAE support in both models, so no correspondence test "
                               "ran (supports table)")
# A rate within 3 s.e. of the paper's range is measured only when the null's nominal 1% would fail that test (a
# rule fixed before the run): on a handful of tests 3 binomial s.e. span nearly [0, 1], and nothing could fail.
too_few_tests = "" if not n_tests or 0.343 - 3 * pooled_se > 0.01 else (
    f"on {n_tests} test(s) 3 binomial s.e. ({3 * pooled_se:.3g}) reach below the nominal 1%: a rate at the null would "
    "hold as well, so the pooled rate is not measured against the paper's range")
sae_comp, res_comp = comp[comp.basis == "sae"], comp[comp.basis == "last"]
sae_summary = summary[summary.basis == "sae"]
wilcoxon_all = composition.criteria(sae_comp)["wilcoxon_p"] if len(sae_comp) else np.nan
no_sae_comp = "" if len(sae_comp) else (f"no {params.composition_task} decision holds an SAE support with a "
                                        "leave-one-out dictionary: nothing to compose")
no_res_comp = "" if len(res_comp) else (f"no {params.composition_task} decision holds a residual support with a "
                                        "leave-one-out dictionary: nothing to compose")
widths = pd.to_numeric(sae_comp.width_ratio, errors="coerce").dropna()  # an empty composition table holds no numbers
claims = [
    claim("pooled_pass_rate", "A.2.4, 'Result by task'; Sec. 5 (4)", "pooled correspondence pass rate (T above the "
          "null's 0.99 quantile) over every test of every task, compared with the span of the paper's per-task rates "
          "(intent 56.2% of 447, language 48.9% of 280, tool selection 34.3% of 105), each end widened by 3 binomial "
          "s.e. over the tests run here", "pass rates of 34.3 to 56.2% against a nominal 1%", pooled,
          Range(0.343, 0.562, se=pooled_se, k=3), not_measured=no_tests or too_few_tests),
    claim("pass_rate_above_nominal", "A.2.4; Sec. 5 (4)", "selected features correspond beyond label correlation: "
          "the 95% Clopper-Pearson lower bound of the pooled pass rate, compared with the nominal 1%",
          "correspond across models beyond class means and label correlation ... against a nominal 1%", lower,
          Bound(">", 0.01, reason="the paper's statement is that the rate exceeds the nominal 1% of the null; its "
                "per-task values are tested in pooled_pass_rate"), not_measured=no_tests),
    claim("median_z", "A.2.4, 'Result by task'", "median standardised score z over every test of every task, "
          "compared with the span of the paper's per-task medians (intent +3.08, language +3.71, tool selection "
          "+1.68)", "+1.68 to +3.71 (per task)", tested.z.median() if n_tests else np.nan, Range(1.68, 3.71),
          not_measured=no_tests),
    claim("composition_median_recovery", "A.2.5, 'Criteria'; 'Finding'", "smallest per-model median recovery "
          "(A − ½)/(C − ½) of a held-out decision from the other decisions' SAE supports, against the criterion the "
          "paper fixed before the test (it reports 0.98 on each of three models)",
          "a median recovery of at least 0.9", sae_summary.median_recovery.min() if len(sae_summary) else np.nan,
          Bound(">=", 0.9, reason="the paper's pre-fixed criterion is one-sided: a median recovery of at least 0.9"),
          not_measured=no_sae_comp),
    claim("composition_above_random", "A.2.5, 'Criteria'; 'Result'", "recovery above the equal-size random "
          "dictionaries: one-sided Wilcoxon p over the decisions of both models pooled, at level 0.05 (the paper's "
          "p ≤ 7.6e-6 per model rest on 18-20 decisions; here 5 per model, so p ≥ 1/1024 at best)",
          "recovery above the random null", wilcoxon_all,
          Bound("<", 0.05, reason="the paper's criterion is one-sided (recovery above the random null); 0.05 is the "
                "conventional level, since p values like the paper's need its 18-20 decisions per model"),
          not_measured=no_sae_comp),
    claim("own_overlap", "A.2.5, 'Result'; 'Finding'", "largest per-model median own overlap |S ∩ U| / |S| of a "
          "held-out decision's SAE support with its leave-one-out dictionary", "an own overlap of at most 0.24",
          sae_summary.median_own_overlap.max() if len(sae_summary) else np.nan,
          Bound("<=", 0.24, reason="the paper states an upper limit ('at most 0.24'); 0.11 is its lowest model, not "
                "a lower limit"), not_measured=no_sae_comp),
    claim("width_ratio", "A.2.5, 'Composability and minimality'", "median over decisions (both models pooled) of the "
          "width of the dictionary readout over the own support size, decisions with a qualifying prefix, compared "
          "with the span of the paper's per-model medians", "3.8 to 5.2", widths.median() if len(widths) else np.nan,
          Range(3.8, 5.2), not_measured=no_sae_comp or ("" if len(widths) else "no dictionary prefix clears the "
                                                        "threshold, so no width is defined")),
    claim("residual_control", "A.2.5, 'Scope'", "residual-basis control: median recovery minus median random "
          "recovery on residual coordinates (the paper: 0.997 − 0.994 = 0.003, 'loses all resolution')",
          "a recovery of 0.997 against a random control of 0.994", res_comp.recovery.median()
          - res_comp.random_recovery.median() if len(res_comp) else np.nan,
          Point(0.003, tol=0.05, reason="the paper gives no width for 'loses all resolution'; 0.05 is half the gap "
                "between its recovery criterion 0.9 and full recovery, the margin the criterion itself leaves"),
          not_measured=no_res_comp),
    claim("sae_reconstruction", "Sec. 5", "median reconstruction cosine of the offline TopK SAEs trained here on the "
          "probed representation, compared with the paper's range for its released suites at the intervened layer. "
          "The offline SAEs are the project's own (width, k, steps and data chosen here), so their quality measures "
          "the project's training, not the paper's suites", "0.35 to 0.73 in cosine",
          quality.cosine_median.median(), Range(0.35, 0.73), kind="extension"),
    claim("sae_plateau", "A.1.10", f"largest gain of the median reconstruction cosine over the second half of the "
          f"offline SAEs' training ({half_steps} to {full_steps} steps), over models and blocks",
          "the SAE is trained (the paper uses released suites)", plateau.gain.max(),
          Bound("<=", 0.01, reason="a plateau: the second half of training moves the reconstruction by at most 0.01 "
                "cosine, a tenth of the gap between the paper's best suite (0.73) and a perfect reconstruction"),
          kind="extension"),
]
claims_table, claims_file = run.record_claims(claims)
plotting.save_table(claims_table, "claims", "K06 (paper 002, A.1.10, A.2.4-A.2.5): the paper's value beside the measured "
                    "value; offline models, pools and SAEs, so a gap is reported, not tuned away.", [claims_file])

# %% [markdown]
# Each row gives the paper's value, the measured value and whether it holds. The offline run has one model
# pair (the paper 28), four tasks with few decisions each (the paper's intents number 19-20) and small
# offline SAEs; the pooled rate therefore rests on few tests, and the composition test on five decisions per
# model, whose one-sided Wilcoxon p cannot go below 1/32 per model. A correspondence test needs the same
# decision to hold an SAE support in both models; where none does (the `default` run of 2026-12-03 with
# MiniLM and SmolLM2 at 128 tokens and 400-step SAEs: MiniLM's SAE supports covered the five bbc_topic
# decisions, SmolLM2's only rt_subjectivity), nothing is matched and the three correspondence claims read
# not measured, which is not the same as not reproduced.

# %%
show_claims(claims_table, params.profile)
