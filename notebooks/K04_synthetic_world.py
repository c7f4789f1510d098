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
# more"); the default profile trains four small models for a thousand updates on a 2-core CPU and one of
# them (`converge`: the two-layer transformer of width 64) on until its held-out answer loss lies within the
# *convergence margin* of the *attainable* loss, at most the paper's 30,000 updates (`max_updates`). The attainable
# loss is (11/50)·log 2: Proposition 5's infimum (9/50)·log 2 assumes every target is learned, but the paper's own
# models leave the four- and eight-factor parity targets at chance ("fail the readability gate"), and each then
# costs log 2 like a control; a margin measured from the infimum itself cannot be reached by a model trained as well
# as the paper's (the run of 2026-12-03: the transformer d64 L2 sat 0.029 above it from 4,000 to 10,000 updates,
# with every other query learned). The margin lies below the cost of any learnable query left at chance
# (Proposition 5's proof: at least the entropy H(r) of its label, on 1/50 of the answer positions): `margin_share`
# = ½ of the least such cost, the four-factor conjunction target's H(1/16)/50, so 0.0023 nats, each model judged
# against the loss attainable on its own held-out sequences (`lib.kstar.world.convergence`). A model with the
# two-factor parity target at chance sits log 2/50 = 0.0139 above the attainable loss and is not converged. The
# GRU of width 64 trained to the margin on this machine stopped 0.09 above the attainable loss at the cap, after
# 33 minutes (2026-12-05), so the default leaves it at a thousand updates with the others. "Every readable target
# has k^syn = 1" is a statement about trained models, so it is counted only on the models that reached the margin;
# the convergence tables count every model per architecture family, with the reason each other one missed (the
# step cap or the fixed updates and its loss gap, the queries at chance). The parity and trajectory claims may
# differ (said in the closing cell).
#
# Writes: `label_rates`, `runs` (losses, accuracy, probe candidates), `counts`, `family_medians`,
# `overlap`, `association`, `trajectory`, `accuracy`, `convergence` (per model: updates, held-out loss gap,
# converged, queries at chance, why not), `convergence_families` (per architecture family: models converged and
# why the others did not), `prop7`, `target_readouts` (each readable target's best one-coordinate readout beside τ
# and its test noise), `claims`; figures `counts`, `training`.

# %%
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

from lib import claim_power, config, plotting, results
from lib.claims import Evidence, show_claims
from lib.kstar.world import convergence, synthetic, synthetic_claims, world

# %% tags=["parameters"]
profile = "default"  # choose a profile without editing this file: python -m lib run K04 --profile smoke|default|paper, or the Lab's copy lab/<profile>/K04_synthetic_world.ipynb
recompute = True  # compute missing or stale results; false: only redraw figures from logged results
n_jobs = -1  # worker processes: the models train side by side, one thread each (with one worker, the probe fits of each model spread over them instead; -1: this process's share of cores); results do not depend on it
architectures = ["transformer-d64-L2-s0", "transformer-d128-L1-s0", "gru-d64-L1-s0", "gru-d128-L1-s0"]  # '<arch>-d<width>-L<depth>-s<seed>', arch transformer or gru (A.3.4)
updates = 1000  # training updates per model (paper: ~30,000)
converge = ["transformer-d64-L2-s0"]  # models trained past updates until their answer loss is within the convergence margin of the attainable loss (of architectures)
margin_share = 0.5  # the convergence margin as a share of the least cost of one learnable query at chance, H(r)/50 (the four-factor conjunction target: 0.0047 nats); below one, no model at chance on a learnable query counts as converged
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
factor_world = world.FactorWorld()  # Table 35, rebuilt (lib.kstar.world.world)
specs = synthetic.check_plan(params.architectures, params.tracked, params.read_at_updates, params.updates, factor_world)
if not set(params.converge) <= set(params.architectures):
    raise config.ConfigError(f"converge={list(params.converge)!r}; allowed: a subset of architectures "
                             f"{list(params.architectures)!r}")
if params.converge and params.max_updates < params.updates:
    raise config.ConfigError(f"max_updates={params.max_updates}; allowed: >= updates={params.updates}")
margin = convergence.margin(factor_world, params.margin_share)
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
cheapest = convergence.least_chance_cost(factor_world)
print(f"Proposition 5: infimum of the answer loss = (9/50)·log 2 = {infimum:.4f}; attainable without the "
      f"parity targets {', '.join(world.UNLEARNED_TARGETS)}: (11/50)·log 2 = {attainable:.4f}")
print(f"convergence margin: {params.margin_share:g} × the least cost of a learnable query at chance "
      f"({cheapest.name}: H({cheapest.rate:g})/50 = {cheapest.chance_cost / world.N_QUERIES:.4f}) = {margin:.4f}; "
      f"two-factor parity at chance costs {factor_world.query('parity2_target').chance_cost / world.N_QUERIES:.4f}")

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
converge_args = {"loss_margin": margin, "max_updates": params.max_updates, "check_every": params.check_every}
runs, runs_file = run.table("runs", lambda: synthetic.model_tables(
    [spec.name for spec in specs], params.converge, model_args=model_args, converge_args=converge_args,
    n_jobs=params.n_jobs))
counts, counts_file = run.table("counts", lambda: synthetic.counts_table(runs, params.frac, params.readable_ceiling))
final = synthetic.last_updates(counts)  # each model at its own last update
last_update = runs.groupby("model")["update"].max()

# %% [markdown]
# ## Convergence: the population the target claims read
#
# Each model at its last update against the convergence margin, on its held-out sequences: the loss gap above the
# loss attainable on them, the learnable queries at chance (accuracy within two binomial s.e. of the label rate's
# chance accuracy), and why a model is not converged; then per architecture family, how many reached the margin.

# %%
verdicts, verdicts_file = run.table("convergence", lambda: convergence.convergence_table(
    runs, factor_world, n_eval=params.n_eval, probe_seed=params.probe_seed, margin=margin, updates=params.updates,
    max_updates=params.max_updates, converge=params.converge))
families, families_file = run.table("convergence_families", lambda: convergence.family_table(verdicts))
trained = convergence.population(verdicts)
display(verdicts.round(4), families)
print(trained.note if trained.models else trained.undefined)
plotting.save_table(verdicts.round(4), "convergence", f"Per model at its last update: updates trained, whether it "
                    "trained on to the margin (its cap: max_updates, else updates), held-out answer loss on "
                    f"{params.n_eval} sequences, the loss attainable on them (controls and the four- and eight-factor "
                    f"parity targets at log 2), the gap, the margin {margin:.4f} ({params.margin_share:g} × the least "
                    "cost of a learnable query at chance, below every one), converged, the learnable queries at chance "
                    "and why the model is not converged (paper 002, A.3.3, Proposition 5; A.3.4).", [verdicts_file])
plotting.save_table(families, "convergence_families", "Per architecture family: models, how many reached the "
                    "convergence margin and which, and why each other one did not (paper 002, A.3.4: the target "
                    "claims read the converged models only).", [families_file])

# %% [markdown]
# ## Training: the loss against Proposition 5's infimum, answer accuracy per family

# %%
losses = runs[runs.kind == "loss"]
fig, ax = plt.subplots(figsize=(6, 3.2))
for model, curve in losses.groupby("model"):
    smooth = curve.value.rolling(max(1, len(curve) // 50), min_periods=1).mean()
    ax.plot(curve["update"], smooth, label=model)
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
        points = shown[(shown.basis == basis) & (shown.role == role)]
        x = [family_names.index(f"{f} {n}") + offset for f, n in zip(points.function, points.n_factors, strict=True)]
        ax.scatter(x, points["count"], s=14, color=colour, alpha=0.7, label=role)
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
# The paper reads every readable target at one coordinate. Here each model's updates and held-out loss gap
# (`convergence`) are shown beside its share of readable targets read at 1: a target that passes the 0.90 dense
# gate while the model is still far from the attainable loss may be read by many coordinates, so the claims count
# only the models within the convergence margin.

# %%
readable_learned = final[final.readable & (final.role == "target") & (final.function != "parity")]
by_model = readable_learned.groupby(["model", "basis"])["count"].agg(
    readable_targets="size", read_at_one=lambda c: (c == 1).mean()).unstack("basis")
by_model.columns = [f"{statistic} ({basis})" for statistic, basis in by_model.columns]
by_model = by_model.join(verdicts.set_index("model")[["updates", "loss_gap", "converged", "at_chance"]])
display(by_model.round(3))

# %% [markdown]
# ## Readable targets against one coordinate's test noise
#
# A readable target read above one is either read wide or read at one coordinate whose AUROC lies within the test
# prefixes' noise of τ: each target's best one-coordinate readout Ã(1) at a readable layer, τ there, and the
# Hanley–McNeil s.e. of Ã(1) at `n_test` prefixes (z = (τ − Ã(1))/s.e.).

# %%
gaps, gaps_file = run.table("target_readouts", lambda: synthetic_claims.single_coordinate_gaps(
    runs, final, params.n_test, params.frac, params.readable_ceiling))
display(gaps.round(4))
plotting.save_table(gaps.round(4), "target_readouts", "Readable learned targets at each model's last update: k^syn, "
                    "the best median one-coordinate AUROC Ã(1) over readable layers, that layer's τ (own dense "
                    "ceiling), the Hanley–McNeil s.e. of Ã(1) at the test prefixes and z = (τ − Ã(1))/s.e. (paper 002, "
                    "A.3.4).", [gaps_file])

# %% [markdown]
# ## Claims — paper value beside measured value

# %%
raw, pca = (synthetic_claims.basis_evidence(final, medians, overlap, association, trained, basis, gaps,
                                            "target_readouts.parquet") for basis in ("raw", "pca"))
names = [spec.name for spec in specs]
# Table 39 tracks the four-layer width-256 transformer with training seed 0; a profile without it reads the first model.
first_model = "transformer-d256-L4-s0" if "transformer-d256-L4-s0" in names else names[0]
first_last = int(last_update[first_model])
first_stop = min([*params.read_at_updates, first_last])
track = counts[(counts.model == first_model) & (counts.basis == "raw")].set_index(["query", "update"])["count"]
tracked_note = f"{first_model}, first checkpoint {first_stop} updates, last {first_last}"
parity_hard = final[final["query"].isin(["parity4_target", "parity8_target"])]
n_layers = int(runs[runs.kind == "probe"].layer.max()) + 1
prop7_expected = 2 if params.prop7_sigma > synthetic.PROP7_SIGMA_MIN else 1
wide_controls = synthetic_claims.control_count_draws(final, "raw")
claims_table, claims_file = run.record_claims({
    "targets_at_one_raw": raw["targets_at_one"],
    "no_control_at_one_raw": raw["no_control_at_one"],
    "control_median_min_raw": raw["control_median_min"],
    "control_median_max_raw": raw["control_median_max"],
    "overlap_not_narrower_raw": raw["overlap_not_narrower"],
    "size_slope_raw": raw["size_slope"],
    "size_spearman_raw": raw["size_spearman"],
    "targets_at_one_pca": pca["targets_at_one"],
    "no_control_at_one_pca": pca["no_control_at_one"],
    "control_median_min_pca": pca["control_median_min"],
    "control_median_max_pca": pca["control_median_max"],
    "overlap_not_narrower_pca": pca["overlap_not_narrower"],
    "size_slope_pca": pca["size_slope"],
    "size_spearman_pca": pca["size_spearman"],
    "parity48_unreadable": Evidence(
        float(parity_hard.readable.sum()), note=f"{len(parity_hard)} queries (model × parity × basis), {n_layers} layers, {params.n_test} test "
        "prefixes", if_paper=synthetic_claims.chance_readable_draws(len(parity_hard), n_layers, params.n_test,
                                                                   params.readable_ceiling),
        if_null=np.full(claim_power.DRAWS, float(len(parity_hard)))),
    "threshold_target_first_checkpoint": Evidence(
        track.get(("threshold8_target", first_stop), np.nan), note=tracked_note,
        undefined="" if ("threshold8_target", first_stop) in track.index else "the eight-factor threshold "
        "target is not tracked at the first checkpoint", if_paper=np.ones(claim_power.DRAWS), if_null=wide_controls),
    "parity2_at_one_last": Evidence(
        track.get(("parity2_target", first_last), np.nan), note=tracked_note, if_paper=np.ones(claim_power.DRAWS),
        if_null=wide_controls, undefined="" if first_last >= 2000 else (
            f"the paper's two-factor parity target is unreadable at 500 and 1,000 updates and reads 1 from 2,000 on; "
            f"{first_model} trained {first_last}")),
    "prop7_count_U": Evidence(prop7["count"].iloc[0]),
    "prop7_count_V": Evidence(prop7["count"].iloc[1] - prop7_expected, note=f"σ = {params.prop7_sigma}"),
    "loss_above_infimum": Evidence(verdicts.held_out_loss.min() - infimum),
    "lemma4_label_rates": Evidence(label_rates.z.abs().max()),
})
plotting.save_table(claims_table, "claims", "K04 (paper 002, A.3.3–A.3.4): the paper's value beside the measured "
                    "value; kind 'sanity' holds by construction (Propositions 5 and 7, Lemma 4 on the generator) and is "
                    "not counted as reproduction.", [claims_file])

# %% [markdown]
# Each row gives the paper's value, the measured value, its verdict and the test's power at this run's size; a
# failure names its mechanism where the run logged one. The default profile trains a thousand updates (one model
# longer, until the convergence margin, at most 30,000) against the paper's ~30,000 and uses widths 64–128: the two-factor
# parity target, learned by the paper's models only after 2,000 updates, may stay unreadable (its claim is not
# measured below 2,000 updates). Family medians over three or four models, a Mann–Whitney or Spearman statistic over
# a few dozen controls carry their s.e. at this size, and a test that cannot tell the paper from its null reads "no
# power". GRUs learn more slowly than transformers here (after 10,000 updates the GRU d64's held-out answer loss was
# still 0.18 above the attainable loss in the run of 2026-12-03): half-learned targets can pass the 0.90 gate and be
# read by many coordinates, which is why `targets_at_one` counts only the models within the convergence margin (its
# note names them, and the families tested; with none converged it is undefined, with each model's reason), and the
# convergence tables show the rest. The paper profile holds the paper's scale (its 20-model grid, Table 36, was
# lost: a reconstruction).

# %%
show_claims(claims_table, params.profile)
