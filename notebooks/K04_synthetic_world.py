# %% [markdown]
# # K04 · The synthetic factor world: supervised targets read at one feature, controls need tens
#
# **Paper 002**, App. A.3.3–A.3.4 (Eq. 45–50, Lemma 4, Propositions 5–7, Tables 35–39, Figure 10).
# Small transformers and GRUs learn to answer queries about 32 fair binary factors shown in random
# order; nine aggregate families (threshold over 2/4/8/16 factors, conjunction over 2/4, parity over
# 2/4/8) each have a supervised *target* and a *control* answered with fresh fair bits. Probes at the
# query position label the true aggregate in both cases; k^syn (Table 37: median over the prefix and
# L1 candidates of one size, the layer's own dense ceiling, minimum over readable layers, one probe
# seed) counts the coordinates a readout needs, raw and in a full-rank PCA basis. A query whose
# dense AUROC exceeds 0.90 at no layer is unreadable, never a count.
#
# The paper's 20 models ran about 30,000 updates each (its 150,000-update runs are "five times
# more"); the default profile trains four small models for a thousand updates on a 2-core CPU and two of
# them (`converge`: the GRU of width 64 and the two-layer transformer of width 64) on until their held-out
# answer loss lies within `loss_margin` = 0.02 of the *attainable* loss, at most the paper's 30,000 updates
# (`max_updates`). The attainable loss is (11/50)·log 2: Proposition 5's infimum (9/50)·log 2 assumes every
# target is learned, but the paper's own models leave the four- and eight-factor parity targets at chance
# ("fail the readability gate"), and each then costs log 2 like a control; a margin measured from the
# infimum itself cannot be reached by a model trained as well as the paper's (the run of 2026-12-03: the
# transformer d64 L2 sat 0.029 above it from 4,000 to 10,000 updates, with every other query learned).
# "Every readable target has k^syn = 1" is a statement about trained models, so it is counted only on the
# models that reached the margin; the others are reported apart. The parity and trajectory claims may differ
# (said in the closing cell).
#
# Writes: `label_rates`, `runs` (losses, accuracy, probe candidates), `counts`, `family_medians`,
# `overlap`, `association`, `trajectory`, `accuracy`, `convergence` (updates and held-out loss per model), `prop7`,
# `claims`; figures `counts`, `training`.

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

from lib import config, plotting, results
from lib.claims import Bound, Point, Range, claim, show_claims
from lib.kstar import synthetic, world

# %% tags=["parameters"]
profile = "default"  # smoke | default | paper
recompute = True  # compute missing or stale results; false: only redraw figures from logged results
n_jobs = 1  # worker processes for the probe fits (-1: this process's share of cores); results do not depend on it
architectures = ["transformer-d64-L2-s0", "transformer-d128-L1-s0", "gru-d64-L1-s0", "gru-d128-L1-s0"]  # '<arch>-d<width>-L<depth>-s<seed>', arch transformer or gru (A.3.4)
updates = 1000  # training updates per model (paper: ~30,000)
converge = ["gru-d64-L1-s0", "transformer-d64-L2-s0"]  # models trained past updates until their answer loss is within loss_margin of the attainable loss (of architectures)
loss_margin = 0.02  # how close to the attainable loss (11/50)·log 2 a converged model's held-out answer loss lies (about six s.e. of a 512-sequence estimate)
max_updates = 30000  # cap on the updates of a model in converge (the paper's ~30,000)
check_every = 500  # updates between two convergence checks of a model in converge
read_at_updates = [500]  # updates at which the tracked queries are read (A.3.4, Table 39)
tracked = ["threshold8_target", "parity2_target", "threshold8_control"]  # queries read at every update of read_at_updates (Table 39)
batch_size = 256  # fresh sequences per update (A.3.3)
lr = 0.002  # AdamW learning rate (a choice: the paper's settings table was lost)
n_train = 1000  # fresh probe training prefixes per query
n_test = 1000  # fresh probe test prefixes per query
n_eval = 512  # held-out sequences for answer accuracy (A.3.4: 512)
probe_seed = 0  # the one probe seed (Table 37) and the probe sequences' seed
frac = 0.95  # threshold factor of Eq. 4: τ is ½ + frac·(C − ½)
readable_ceiling = 0.9  # unreadable unless some layer's dense AUROC exceeds this
prop7_sigma = 1.0  # noise s.d. of Proposition 7's example (> √2/Φ⁻¹(0.975) ≈ 0.72)
prop7_n = 3000  # samples of Proposition 7's example (two thirds train, one third test)

# %%
params = config.load("K04_synthetic_world", globals())
factor_world = world.FactorWorld()  # Table 35, rebuilt (lib.kstar.world)
specs = synthetic.check_plan(params.architectures, params.tracked, params.read_at_updates, params.updates, factor_world)
if not set(params.converge) <= set(params.architectures):
    raise config.ConfigError(f"converge={list(params.converge)!r}; allowed: a subset of architectures "
                             f"{list(params.architectures)!r}")
if params.converge and params.max_updates < params.updates:
    raise config.ConfigError(f"max_updates={params.max_updates}; allowed: >= updates={params.updates}")
run = results.start(params)
plotting.use_style()

# %% [markdown]
# ## The world: Lemma 4 and Proposition 5
#
# Target and control of a family see the same label distribution (Lemma 4: it depends on S only
# through |S|); the answer loss cannot fall below (9/50)·log 2 (Proposition 5), nor below (11/50)·log 2
# for a model that, like the paper's, does not learn the four- and eight-factor parity targets.

# %%
label_rates, label_rates_file = run.table("label_rates", lambda: synthetic.label_rate_table(
    factor_world, params.n_train, params.probe_seed))
display(label_rates.round(4))
plotting.save_table(label_rates.round(4), "label_rates", f"Empirical label rate of every aggregate query on "
                    f"{params.n_train} fresh prefixes beside Lemma 4's closed form (paper 002, A.3.3, Eq. 48, restated), "
                    "with the binomial s.e. and z.", [label_rates_file])
infimum, attainable = world.loss_infimum(), world.attainable_loss()
print(f"Proposition 5: infimum of the answer loss = (9/50)·log 2 = {infimum:.4f}; attainable without the "
      f"parity targets {', '.join(world.UNLEARNED_TARGETS)}: (11/50)·log 2 = {attainable:.4f}")

# %% [markdown]
# ## Training and measurement (A.3.3 Eq. 49; A.3.4)
#
# One computation per model (cached by its arguments): training losses, answer accuracy on held-out
# sequences, probe candidates of the tracked queries at each checkpoint and of all 18 aggregate
# queries after the last update.

# %%
model_args = {"updates": params.updates, "checkpoints": params.read_at_updates, "tracked": params.tracked,
              "n_train": params.n_train, "n_test": params.n_test, "n_eval": params.n_eval,
              "batch_size": params.batch_size, "lr": params.lr, "probe_seed": params.probe_seed,
              "readable_above": params.readable_ceiling, "n_jobs": params.n_jobs}
converge_args = {"loss_margin": params.loss_margin, "max_updates": params.max_updates,
                 "check_every": params.check_every}
runs, runs_file = run.table("runs", lambda: pd.concat(
    [results.shared_table(synthetic.model_table, spec.name, **model_args,
                          **(converge_args if spec.name in params.converge else {})) for spec in specs],
    ignore_index=True))
counts, counts_file = run.table("counts", lambda: synthetic.counts_table(runs, params.frac, params.readable_ceiling))
final = synthetic.last_updates(counts)  # each model at its own last update
last_update = runs.groupby("model")["update"].max()
final_loss = synthetic.last_updates(runs[(runs.kind == "accuracy") & (runs["query"] == "loss")]).set_index("model").value
converged_models = sorted(final_loss.index[final_loss - attainable <= params.loss_margin])
print("updates per model:", last_update.to_dict(), "\nwithin", params.loss_margin, "of the attainable loss:",
      converged_models)

# %% [markdown]
# ## Training: the loss against Proposition 5's infimum, answer accuracy per family

# %%
losses = runs[runs.kind == "loss"]
fig, ax = plt.subplots(figsize=(6, 3.2))
for model, cell in losses.groupby("model"):
    smooth = cell.value.rolling(max(1, len(cell) // 50), min_periods=1).mean()
    ax.plot(cell["update"], smooth, label=model)
ax.axhline(infimum, color="k", ls="--", lw=1, label="(9/50)·log 2")
ax.axhline(attainable, color="k", ls=":", lw=1, label="(11/50)·log 2 (parity 4, 8 at chance)")
ax.set(xlabel="update", ylabel="answer loss (Eq. 49)", yscale="log")
ax.legend(fontsize=7)
plotting.save_figure(fig, "training", "Training loss of Eq. 49 (batch of fresh sequences, rolling mean) per model; "
                     "dashed: the infimum (9/50)·log 2 of Proposition 5; dotted: the attainable (11/50)·log 2 with the "
                     "four- and eight-factor parity targets at chance (paper 002, A.3.3-A.3.4).", [runs_file])
plt.show()
accuracy_rows = synthetic.last_updates(runs[(runs.kind == "accuracy") & (runs["query"] != "loss")])
accuracy_rows = accuracy_rows.assign(family=[q if q.startswith(("threshold", "conjunction", "parity")) else "factor"
                                             for q in accuracy_rows["query"]])
accuracy, accuracy_file = run.table("accuracy", lambda: accuracy_rows.groupby(["model", "family"]).value.mean()
                                    .unstack("model").reset_index())
display(accuracy.round(3))
plotting.save_table(accuracy.round(3), "accuracy", f"Answer accuracy against the true value on {params.n_eval} held-out "
                    "sequences at each model's last update (factor: mean over the 32 factor queries); controls are "
                    "trained on fresh bits, so chance is expected there (paper 002, A.3.4).", [accuracy_file])

# %% [markdown]
# ## Counts: targets against controls (A.3.4 "Result", Figure 10)

# %%
medians, medians_file = run.table("family_medians", lambda: synthetic.family_medians(final))
display(medians)
plotting.save_table(medians, "family_medians", "k^syn at each model's last update per basis, role and family: "
                    "models where the query is readable (some layer's dense AUROC > 0.90), median and range of the "
                    "count (paper 002, A.3.4, Figure 10, Table 38).", [counts_file])
shown = final[final.readable & (final.role != "factor")]
family_names = [f"{f} {s}" for f, s in world.FAMILIES]
fig, axes = plt.subplots(1, len(synthetic.BASES), figsize=(9, 3.4), sharey=True)
for ax, basis in zip(axes, synthetic.BASES, strict=True):
    for offset, role, colour in ((-0.15, "target", "C0"), (0.15, "control", "C1")):
        cell = shown[(shown.basis == basis) & (shown.role == role)]
        x = [family_names.index(f"{f} {n}") + offset for f, n in zip(cell.function, cell.n_factors, strict=True)]
        ax.scatter(x, cell["count"], s=14, color=colour, alpha=0.7, label=role)
    ax.set(title=f"{basis} basis", yscale="log", xticks=range(len(family_names)), ylabel="k^syn")
    ax.set_xticklabels(family_names, rotation=60, ha="right")
axes[0].legend(fontsize=7)
plotting.save_figure(fig, "counts", "k^syn of every readable aggregate query per model at its last update, "
                     "raw and PCA basis; unreadable queries are not drawn (see family_medians) (paper 002, "
                     "A.3.4, Figure 10).", [counts_file])
plt.show()

# %% [markdown]
# ## Overlapping inputs and the number of input factors (A.3.4)

# %%
overlap, overlap_file = run.table("overlap", lambda: synthetic.overlap_comparison(final))
association, association_file = run.table("association", lambda: synthetic.size_association(final))
display(overlap, association)
plotting.save_table(overlap.round(4), "overlap", "The eight-factor threshold control (factors 16–23, sharing 16–19 "
                    "with the trained target 12–19) against the other readable controls: medians and a two-sided "
                    "Mann–Whitney p-value (paper 002, A.3.4, 'Overlapping inputs').", [overlap_file])
plotting.save_table(association.round(4), "association", "Readable threshold and conjunction controls: Spearman ρ "
                    "between |S| and k^syn, its two-sided p-value (observations share models: an association, not a "
                    "test of independent units) and the log-log slope (paper 002, A.3.4).", [association_file])

# %% [markdown]
# ## Trajectory of the tracked queries (A.3.4, Table 39)

# %%
trajectory, trajectory_file = run.table("trajectory", lambda: counts[counts["query"].isin(params.tracked)].pivot_table(
    index=["model", "query", "basis"], columns="update", values="count", dropna=False).reset_index()
    .rename(columns=str))
display(trajectory)
plotting.save_table(trajectory, "trajectory", "k^syn of the tracked queries at every checkpoint (NaN: unreadable) "
                    "(paper 002, A.3.4, Table 39).", [trajectory_file])

# %% [markdown]
# ## Proposition 7: a change of basis moves the count, not the information

# %%
prop7, prop7_file = run.table("prop7", lambda: synthetic.prop7_table(params.prop7_sigma, params.prop7_n,
                                                                      params.probe_seed))
display(prop7)
plotting.save_table(prop7.round(4), "prop7", f"Proposition 7 (paper 002, A.3.4) with σ = {params.prop7_sigma} "
                    f"(> √2/Φ⁻¹(0.975) = {synthetic.PROP7_SIGMA_MIN:.4f} gives two coordinates in V): k^syn in "
                    "U = (2Y−1, N) and in V = QU, and the best single-coordinate AUROC beside its population value.",
                    [prop7_file])

# %% [markdown]
# ## Readable targets by architecture and training
#
# The paper reads every readable target at one coordinate. Here each model's updates and held-out answer
# loss (its distance from the infimum and from the attainable loss) are logged beside its share of readable
# targets read at 1: a target that passes the 0.90 dense gate while the model is still far from the
# attainable loss may be read by many coordinates, so the claims count only the models within `loss_margin`
# of it.

# %%
readable_learned = final[final.readable & (final.role == "target") & (final.function != "parity")]
by_model = readable_learned.groupby(["model", "basis"])["count"].agg(
    readable_targets="size", read_at_one=lambda c: (c == 1).mean()).unstack("basis")
by_model.columns = [f"{statistic} ({basis})" for statistic, basis in by_model.columns]
by_model["updates"] = last_update.reindex(by_model.index)
by_model["held_out_loss_minus_attainable"] = final_loss.reindex(by_model.index) - attainable
by_model["converged"] = by_model.index.isin(converged_models)
convergence, convergence_file = run.table("convergence", lambda: pd.DataFrame({
    "model": final_loss.index, "updates": last_update.reindex(final_loss.index).to_numpy(),
    "held_out_loss": final_loss.to_numpy(), "minus_infimum": (final_loss - infimum).to_numpy(),
    "minus_attainable": (final_loss - attainable).to_numpy(),
    "converged": final_loss.index.isin(converged_models)}))
display(by_model.round(3))
plotting.save_table(convergence.round(4), "convergence", f"Per model: updates trained, held-out answer loss on "
                    f"{params.n_eval} sequences, its distance from the infimum (9/50)·log 2 of Proposition 5 and from "
                    "the attainable (11/50)·log 2 (the four- and eight-factor parity targets at chance, as in the "
                    f"paper's models); converged: within {params.loss_margin:g} of the attainable loss (paper 002, "
                    "A.3.3-A.3.4; the models of `converge` trained on until a separate stopping set came within the "
                    "margin, at most max_updates).", [convergence_file])

# %% [markdown]
# ## Claims — paper value beside measured value

# %%
learned = final[((final.role == "target") & (final.function != "parity")) | (final["query"] == "parity2_target")]
readable_controls = final[final.readable & (final.role == "control")]
held_out = final_loss
names = [spec.name for spec in specs]
# Table 39 tracks the four-layer width-256 transformer with training seed 0; a profile without it reads the first model.
first_model = "transformer-d256-L4-s0" if "transformer-d256-L4-s0" in names else names[0]
model_note = "" if first_model == "transformer-d256-L4-s0" else " (the paper's is the four-layer width-256 transformer)"
first_last = int(last_update[first_model])
first_stop = min([*params.read_at_updates, first_last])
track = counts[(counts.model == first_model) & (counts.basis == "raw")].set_index(["query", "update"])["count"]
# A.3.4: family-median spans of the readable controls, overlap control against the others, |S| association.
paper_values = {"raw": ((29, 60.5), "60.5", "38", 0.31, 0.289), "pca": ((16, 64), "64", "32", 0.35, 0.347)}

claims = []
for basis, ((span_lo, span_hi), paper_overlap, paper_others, paper_slope, paper_rho) in paper_values.items():
    targets = learned[learned.readable & (learned.basis == basis) & learned.model.isin(converged_models)]
    controls = readable_controls[readable_controls.basis == basis]
    family = medians[(medians.basis == basis) & (medians.role == "control") & (medians.readable > 0)]
    lap = overlap[overlap.basis == basis]
    assoc = association[association.basis == basis]
    n_assoc = int(assoc.n.iloc[0]) if len(assoc) else 0
    sized = controls[controls.function.isin(["threshold", "conjunction"]) & np.isfinite(controls["count"])]
    fit = (np.polyfit(np.log(sized.n_factors), np.log(sized["count"]), 1, cov=True)
           if len(sized) > 3 and sized.n_factors.nunique() > 1 and sized["count"].nunique() > 1 else None)
    span = f"{span_lo:g} to {span_hi:g}"
    slope_se = math.sqrt(fit[1][0, 0]) if fit is not None else math.nan
    rho_se = 1 / math.sqrt(n_assoc - 1) if n_assoc > 1 else math.nan
    claims += [
        claim(f"targets_at_one_{basis}", "A.3.4, Result", f"share of readable learned targets ({len(targets)}: "
              f"threshold, conjunction and two-factor parity) read at k^syn = 1, {basis} basis, on the "
              f"{len(converged_models)} model(s) within {params.loss_margin:g} of the attainable loss "
              f"({', '.join(converged_models) or 'none'}; the others in the convergence table)",
              "Every readable target in the seven learned families has k^syn=1 in all 20 main models and in both bases",
              (targets["count"] == 1).mean() if len(targets) else math.nan, Point(1),
              not_measured="" if len(targets) else ("no model reached the loss margin" if not converged_models
                                                    else "no readable learned target on the converged models")),
        claim(f"no_control_at_one_{basis}", "A.3.4, Result", f"readable controls ({len(controls)}) at k^syn = 1, "
              f"{basis} basis", "no control reaches a count of one in any model",
              (controls["count"] == 1).sum() if len(controls) else math.nan, Point(0)),
        claim(f"control_median_min_{basis}", "A.3.4, Result", "smallest family median of the readable controls, "
              f"{basis} basis, against the paper's span of family medians",
              f"Readable controls span family medians of {span} in the {basis.replace('pca', 'PCA')} basis",
              family["median"].min() if len(family) else math.nan, Range(span_lo, span_hi)),
        claim(f"control_median_max_{basis}", "A.3.4, Result", "largest family median of the readable controls, "
              f"{basis} basis, against the paper's span of family medians",
              f"Readable controls span family medians of {span} in the {basis.replace('pca', 'PCA')} basis",
              family["median"].max() if len(family) else math.nan, Range(span_lo, span_hi)),
        claim(f"overlap_not_narrower_{basis}", "A.3.4, Overlapping inputs", "median count of the eight-factor threshold "
              "control that shares four factors with the trained target, divided by the median of the other readable "
              f"controls, {basis} basis (the paper's {paper_overlap}/{paper_others})",
              "Training the target therefore does not narrow the readout of an untrained aggregate over half of its "
              f"inputs (its median {paper_overlap} against {paper_others} for the other readable controls)",
              (lap.overlap_median / lap.others_median).iloc[0] if len(lap) else math.nan,
              Bound(">=", 1, reason="the paper's statement is a direction: the overlap control does not read "
                    "narrower than the other readable controls (its null: narrower), so a ratio of at least 1 is it")),
        claim(f"size_slope_{basis}", "A.3.4, Idealized factor coordinates", "least-squares slope of log count on "
              f"log |S| over the {len(sized)} readable threshold and conjunction controls, {basis} basis, within 3 "
              "least-squares s.e. of the slope (observations share models, so this s.e. understates the "
              "uncertainty); measured only when 3 s.e. is below the paper's slope",
              "with log-log slopes of 0.31 and 0.35 rather than one (raw, PCA)",
              assoc.loglog_slope.iloc[0] if len(assoc) else math.nan, Point(paper_slope, se=slope_se, k=3),
              not_measured=synthetic.association_unmeasurable(paper_slope, slope_se, "slope")),
        claim(f"size_spearman_{basis}", "A.3.4, Idealized factor coordinates", f"Spearman ρ of |S| and count over "
              f"{n_assoc} readable threshold and conjunction controls, {basis} basis, within 3 s.e. 1/√(n − 1) (the "
              "s.e. behind the paper's own p-values: 0.289·√119 = 3.15, p ≈ 0.0016 against its 0.0014); measured "
              "only when 3 s.e. is below the paper's ρ",
              "the Spearman correlation ... between |S| and the count is 0.289 in the raw basis and 0.347 in the PCA "
              "basis",
              assoc.spearman.iloc[0] if len(assoc) else math.nan, Point(paper_rho, se=rho_se, k=3),
              not_measured=synthetic.association_unmeasurable(paper_rho, rho_se, "Spearman ρ")),
    ]
parity_hard = final[final["query"].isin(["parity4_target", "parity8_target"])]
claims += [
    claim("parity48_unreadable", "A.3.4, Result", "readable four- and eight-factor parity targets (models × bases)",
          "Four- and eight-factor parity targets fail the readability gate", parity_hard.readable.sum(), Point(0)),
    claim("threshold_target_first_checkpoint", "A.3.4, Training trajectory (Table 39)", "k^syn of the eight-factor "
          f"threshold target of {first_model}{model_note} at its first checkpoint ({first_stop} updates), raw basis",
          "The readable threshold target already has a one-feature readout at the earliest checkpoint after 500 "
          "updates", track.get(("threshold8_target", first_stop), math.nan), Point(1)),
    claim("parity2_at_one_last", "A.3.4, Training trajectory (Table 39)", "k^syn of the two-factor parity target of "
          f"{first_model}{model_note} after its {first_last} updates, raw basis",
          "reads at a count of one from 2,000 updates on", track.get(("parity2_target", first_last), math.nan),
          Point(1), not_measured="" if first_last >= 2000 else f"the paper's two-factor parity target is "
          f"unreadable at 500 and 1,000 updates and reads 1 from 2,000 on; {first_model} trained {first_last}"),
    claim("prop7_count_U", "A.3.4, Proposition 7", "k^syn in U on a sample of Proposition 7's example; its first "
          "coordinate is 2Y − 1, a perfect separator by construction", "1", prop7["count"].iloc[0], Point(1),
          kind="sanity"),
    claim("prop7_count_V", "A.3.4, Proposition 7", f"k^syn in V = QU with σ = {params.prop7_sigma} on a sample of "
          f"Proposition 7's example (two when σ > {synthetic.PROP7_SIGMA_MIN:.4f}, by the proposition's proof)",
          "2" if params.prop7_sigma > synthetic.PROP7_SIGMA_MIN else "1", prop7["count"].iloc[1],
          Point(2 if params.prop7_sigma > synthetic.PROP7_SIGMA_MIN else 1), kind="sanity"),
    claim("loss_above_infimum", "A.3.3, Proposition 5", "smallest held-out answer loss minus (9/50)·log 2 over models; "
          "−0.02 allows the sampling noise of the share of control positions in 512 sequences (its s.e. "
          "log 2·√(0.18·0.82/(12·512)) ≈ 0.0034)", "≥ 0", held_out.min() - infimum, Bound(">=", -0.02), kind="sanity"),
    claim("lemma4_label_rates", "A.3.3, Lemma 4", "largest |z| of an empirical label rate against the closed form",
          "0", label_rates.z.abs().max(), Bound("<=", 4), kind="sanity"),
]
claims_table, claims_file = run.record_claims(claims)
plotting.save_table(claims_table, "claims", "K04 (paper 002, A.3.3–A.3.4): the paper's value beside the measured "
                    "value; kind 'sanity' holds by construction (Propositions 5 and 7, Lemma 4 on the generator) and is "
                    "not counted as reproduction.", [claims_file])

# %% [markdown]
# A `fails` outcome marks a number not reproduced here, reported as measured. The default profile trains
# a thousand updates (two models longer, until the loss margin, at most 30,000) against the paper's ~30,000
# and uses widths 64–128: the two-factor parity target, learned by the paper's models only after 2,000
# updates, may stay unreadable (its claim is not measured below 2,000 updates), and statistics over four
# models (Mann–Whitney, Spearman) are far noisier than over twenty: the |S| slope and Spearman ρ read not
# measured when their 3-s.e. slack reaches the paper's value, since 0 would then hold too. GRUs learn more
# slowly than transformers here (after 10,000 updates the GRU d64's held-out answer loss was still 0.18 above
# the attainable loss in the run of 2026-12-03, its factor queries at 0.86 accuracy): half-learned targets
# can pass the 0.90 gate and be read by many coordinates, which is why `targets_at_one` counts only the
# models within the loss margin, and the convergence table shows the rest. The paper profile holds the paper's scale (its
# 20-model grid, Table 36, was lost: a reconstruction).

# %%
show_claims(claims_table, params.profile)
