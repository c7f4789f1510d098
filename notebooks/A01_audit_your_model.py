# %% [markdown]
# # A01 · Audit your model: how many texts does a bias probe need?
#
# **Paper 000**, Sec. VII (the audit as a power analysis), Theorem 4 and Eq. 8, 11. Point `model` at any
# local checkpoint or registry name: the notebook measures the cross-fitted, standardised separation ŝ
# of the model's counterfactual pairs per bias dimension (template grid, Sec. VI-A), predicts the probe's
# AUC at the audit's purity α (Eq. 8), and reports the critical purity α*(n) of the calibrated 1.4·σ₀
# test (the exact root, with the linearised Eq. 11 beside it) and the test-set budget n(α). Given a
# finished audit's AUC at n (`audit_auc`), it says which reading of a null result applies:
# "underpowered at this n" or "no linear signal at this power". The same numbers come from
# `python -m lib power --model … --dimension …`.
#
# Writes: `reports` (table), `auc_curve` (figure), `budget` (figure), `claims`.

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

from lib import config, plotting, results, stats
from lib.bias_probes import power, theory
from lib.claims import Evidence, show_claims

# %% tags=["parameters"]
profile = "default"  # choose a profile without editing this file: python -m lib run A01 --profile smoke|default|paper, or the Lab's copy lab/<profile>/A01_audit_your_model.ipynb
recompute = True  # compute missing or stale results; false: only redraw figures from logged results
seed = 0  # seed of the cross-fitting splits
model = "minilm"  # registry name, hub id or local checkpoint folder
dimensions = ["gender", "race", "religion", "age"]  # bias dimensions of the template grid
layer = "mid"  # hidden-state layer: "mid" (⌊L/2⌋), "last" (the final layer) or an index 0…L
pooling = "mean"  # token pooling: mean | last | max
n = 300  # test texts of the audit (balanced classes)
alpha = 0.3  # purity of the audited texts: share of bias-marked texts
audit_auc = None  # a finished audit's AUC at n (None: no verdict)
delta = 0.05  # level of the detection test
gamma = 0.2  # 1 − power

# %%
params = config.load("A01_audit_your_model", globals())
power.check_audit_inputs(params.n, params.alpha, params.audit_auc, params.delta, params.gamma)
run = results.start(params)
plotting.use_style()

# %% [markdown]
# ## ŝ per dimension and the power report

# %%
separation, separation_file = run.table("separation", lambda: pd.DataFrame([
    {"dimension": d, "s_hat": power.measure_separation(params.model, d, params.layer, params.pooling, params.seed)}
    for d in params.dimensions]))
reports, reports_file = run.table("reports", lambda: pd.DataFrame([
    {"dimension": row.dimension, **power.power_report(row.s_hat, params.n, params.alpha, params.audit_auc,
                                                      params.delta, params.gamma).as_dict()}
    for row in separation.itertuples()]).drop(columns="caveats"))
display(reports)
plotting.save_table(reports.round(4), "reports", f"Power analysis of a linear bias audit of {params.model} (layer "
                    f"{params.layer}, {params.pooling} pooling) at n = {params.n} and purity α = {params.alpha:g} (paper "
                    "000, Sec. VII): cross-fitted standardised ŝ on counterfactual pairs, α*(n) at the 1.4·σ₀ test (exact; "
                    "Eq. 11 linearised beside it), the test-set budget n(α), Eq. 8's predicted AUC, the AUC a detection "
                    "needs, and the verdict when an audit's AUC is given.", [reports_file, separation_file])
print("Caveats:", *power.CAVEATS, sep="\n- ")

# %% [markdown]
# ## Predicted AUC against purity, with the audit's sampling band

# %%
alphas = np.linspace(0.01, 1, 100)
fig, ax = plt.subplots(figsize=(5.5, 3.8))
for row in reports.itertuples():
    curve = power.auc_curve(row.s_hat, params.n, alphas, params.delta)
    line = ax.plot(alphas, curve["predicted_auc"], label=f"{row.dimension} (ŝ = {row.s_hat:.2f})")[0]
    ax.fill_between(alphas, curve["low"], curve["high"], color=line.get_color(), alpha=0.15, lw=0)
ax.axhline(reports.detection_auc.iloc[0], color="k", ls="--", lw=1, label=f"detection at n = {params.n}")
ax.axvline(params.alpha, color="grey", ls=":", lw=1)
ax.set(xlabel="purity α", ylabel="AUC", title=f"{params.model}: Eq. 8 at ŝ, ±1.96·1.4·σ₀ band")
ax.legend(fontsize=7)
plotting.save_figure(fig, "auc_curve", "Predicted probe AUC against purity (Eq. 8 at the measured ŝ) with the sampling "
                     "band of an audit at n texts (±z·1.4·σ₀) and the AUC a detection needs (dashed) (paper 000, Sec. VII).",
                     [reports_file])

# %% [markdown]
# ## The test-set budget n(α)

# %%
fig, ax = plt.subplots(figsize=(5.5, 3.8))
for row in reports.itertuples():
    budget = [power.required_n(row.s_hat, a, params.delta, params.gamma) for a in alphas]
    ax.plot(alphas, budget, label=row.dimension)
ax.axhline(params.n, color="k", ls="--", lw=1, label=f"n = {params.n}")
ax.set(xscale="log", yscale="log", xlabel="purity α", ylabel="test texts needed",
       title=f"power {1 - params.gamma:.0%} at level {params.delta:g}, 1.4·σ₀ test")
ax.legend(fontsize=7)
plotting.save_figure(fig, "budget", "Test texts an audit needs to detect purity α with power 1 − γ at level δ under the "
                     "calibrated 1.4·σ₀ test, per dimension, at the measured ŝ (paper 000, Sec. VII, Eq. 11 solved "
                     "exactly).", [reports_file])

# %% [markdown]
# ## Claims
#
# The calculator has no paper number to reproduce on this model; its claims, pre-registered in
# `lib/bias_probes/claims/A01_audit_your_model.yaml`, are sanity checks of the algebra (kind `sanity`, never
# counted as reproduction).

# %%
finite = reports[reports.n_required.notna()]
round_trip = max([abs(theory.critical_purity_exact(power.required_n(r.s_hat, params.alpha, params.delta, params.gamma),
                                                   r.s_hat, params.delta, params.gamma, stats.DETECTION_NULL_MULTIPLIER)
                      - params.alpha) for r in finite.itertuples()], default=np.nan)
claims_table, claims_file = run.record_claims({
    "budget_round_trip": Evidence(
        round_trip, note=f"{len(finite)} of {len(reports)} dimensions with a finite budget",
        undefined="" if len(finite) else "no dimension's ŝ gives a finite budget at this purity, so there is no "
                                            "budget to solve back"),
    "detection_line": Evidence(reports.detection_auc.iloc[0] - (0.5 + 1.6448536 * power.null_scale(params.n)),
                               note=f"n = {params.n}"),
})
plotting.save_table(claims_table, "claims", "A01 (paper 000, Sec. VII): sanity checks of the power calculator.",
                    [claims_file])
show_claims(claims_table, params.profile)
