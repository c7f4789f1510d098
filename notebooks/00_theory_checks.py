# %% [markdown]
# # 00 · Theory checks — the closed forms of paper 000 against Monte Carlo
#
# **Paper 000**, *When and Why Do Linear Bias Probes Fail?*, Sections IV-A–IV-E: Theorem 1
# (generalisation gap, Eq. 2), Proposition 1 (minimax lower bound), Theorem 2 and Corollary 1 (chord
# and curvature ceiling, Eq. 6–7, also with intrinsic spread), Theorem 3 (purity law, Eq. 8) and
# Theorem 4 (null of the AUC, detectability threshold α\*(n), Eq. 11). Each closed form in
# `lib.bias_probes.theory` is compared with a simulation of the generative model
# it describes, drawn by `lib.bias_probes.synth` and scored by `lib.bias_probes.simulate`.
#
# Writes (under `figures/<profile>/00_theory_checks/`): `purity_curves`, `chord_ceiling`,
# `null_variance`, `power_at_threshold`, `phase_plane`, `generalization_gap`, `minimax_rate`, `claims`.

# %%
import numpy as np
import pandas as pd
from IPython.display import display
from matplotlib import pyplot as plt
from scipy.stats import norm

from lib import config, plotting, results, uncertainty
from lib.bias_probes import figures, simulate, theory
from lib.claims import Bound, Point, claim, show_claims

# %% tags=["parameters"]
profile = "default"  # smoke | default | paper
recompute = True  # compute missing or stale results; false: only redraw figures from logged results
seed = 0  # root seed; every grid cell draws its own child seed
n_jobs = -1  # worker processes (-1: this process's share of cores); results do not depend on it
tolerance_z = 4.0  # allowed |Monte Carlo − closed form|, in Monte Carlo standard errors
purity_s = [0.5, 1.0, 2.0, 4.0, 8.0]  # Part A: separations s
purity_alphas = [0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0]  # Part A: purities α (5 × 7: 35 settings)
purity_n = 4000  # Part A: texts per simulated audit
purity_reps = 200  # Part A: replicates per setting
chord_kappas = [0.0, 0.25, 1.0, 4.0]  # Part B: curvatures κ (0: flat)
chord_r = [0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0]  # Part B: geodesic distances r
chord_sigma_w = 1.5  # Part B: ambient noise σ_w
chord_dim = 3  # Part B: ambient dimension
chord_n = 2000  # Part B: texts per replicate
chord_reps = 100  # Part B: replicates per (κ, r)
chord_tau = 0.5  # Part B: intrinsic geodesic spread of the second chordal check (τ > 0)
null_exact_sizes = [[2, 3], [4, 5], [6, 6], [8, 10]]  # Part C: (n₊, n₋) enumerated exactly
null_mc_sizes = [[50, 50], [100, 300], [1000, 1000]]  # Part C: (n₊, n₋) by Monte Carlo
null_mc_reps = 4000  # Part C: null replicates per size
delta = 0.05  # Part D: test level δ
gamma = 0.2  # Part D: type-II error γ (target power 1 − γ)
power_s = [0.25, 0.5, 1.0, 2.0, 4.0]  # Part D: separations at which power is checked at α*(n)
power_n = [300, 1000, 3000]  # Part D: audit sizes at which power is checked
power_reps = 2000  # Part D: replicates per power cell
power_tolerance = 0.05  # Part D: allowed |power − (1 − γ)| where the linearisation holds
phase_s = 1.0  # Part D: separation of the (α, n) phase plane
phase_n = [100, 200, 400, 800, 1600, 3200]  # Part D: audit sizes of the phase plane
phase_alphas = [0.02, 0.03, 0.05, 0.07, 0.1, 0.14, 0.2, 0.28, 0.4, 0.56, 0.8, 1.0]  # Part D: purities
phase_reps = 500  # Part D: replicates per phase-plane cell
gap_n = [50, 100, 200, 400, 800, 1600, 3200]  # Part E: training-set sizes
gap_dim = 20  # Part E: feature dimension
gap_s = 2.0  # Part E: separation
gap_alpha = 0.3  # Part E: purity
gap_reg = 1.0  # Part E: ℓ2 penalty per sample (C is 1/(reg·n))
gap_reps = 20  # Part E: probes fitted per n
gap_n_test = 20000  # Part E: held-out texts for the test risk
slope_tolerance = 0.1  # allowed |slope − (−½)| on log–log axes
minimax_n = [200, 800, 3200, 12800]  # Part F: training sizes (n ≥ 4·d_B)
minimax_dims = [2, 8, 32]  # Part F: intrinsic dimensions d_B of the hypercube family
minimax_ambient_dim = 64  # Part F: ambient dimension D the family is rotated into (≥ max d_B)
minimax_reps = 200  # Part F: samples per (n, d_B)


# %%
params = config.load("00_theory_checks", globals())
run = results.start(params)
plotting.use_style()
mc = {"seed": params.seed, "n_jobs": params.n_jobs}

# %% [markdown]
# ## Part A — the purity law (Theorem 3, Eq. 8)
#
# A fraction α of texts is marked (two groups at Mahalanobis distance s), the rest neutral at the
# midpoint with random labels. The oracle scores each text by the true discriminant direction;
# Eq. 8 is the expected AUC of that oracle, the best any probe can reach.

# %%
purity, purity_file = run.table(
    "purity_law",
    lambda: results.shared_table(
        simulate.purity_law, params.purity_s, params.purity_alphas, params.purity_n, params.purity_reps, **mc
    ),
)
alpha_fine = np.linspace(0.0, 1.0, 201)
s_fine = np.linspace(0.05, 40.0, 800)
increments = np.diff(theory.purity_auc(s_fine[:, None], alpha_fine[None, :]), axis=1)
s_saturated = s_fine[s_fine >= theory.SATURATION_S]
saturation_gap = np.abs(
    theory.purity_auc(s_saturated[:, None], alpha_fine) - theory.saturated_purity_auc(alpha_fine)
).max()
s_threshold = theory.saturation_threshold(theory.SATURATION_TOLERANCE)

# %%
fig, ax = plt.subplots(figsize=(5, 3.6))
for s_value, cell in purity.groupby("s"):
    line = ax.plot(alpha_fine, theory.purity_auc(s_value, alpha_fine), label=f"s = {s_value:g}")[0]
    ax.errorbar(cell.alpha, cell.mc_auc, yerr=2 * cell.mc_se, fmt="o", ms=3, color=line.get_color())
ax.plot(alpha_fine, theory.saturated_purity_auc(alpha_fine), "k--", lw=1, label="saturated, s → ∞")
ax.set(xlabel="purity α", ylabel="AUC", title="Eq. 8 (lines) vs oracle Monte Carlo (points)")
ax.legend(fontsize=7)
plotting.save_figure(
    fig, "purity_curves",
    "Purity law (paper 000, Theorem 3, Eq. 8): best achievable AUC against purity α for several "
    "separations s (lines) and the oracle AUC of simulated audits (points, ±2 s.e.).",
    [purity_file],
)

# %% [markdown]
# ## Part B — chord and curvature ceiling (Theorem 2, Corollary 1, Eq. 6–7)
#
# Two clusters at geodesic distance r on a sphere of curvature κ, with isotropic ambient noise σ_w:
# a linear probe sees only the chord. Flat AUC keeps rising with r; curved AUC saturates at the
# ceiling Φ(√2/(√κ σ_w)) (the shape of the paper's Fig. 3b).

# %%
chord, chord_file = run.table(
    "chordal_law",
    lambda: results.shared_table(
        simulate.chordal_law, params.chord_kappas, params.chord_r, params.chord_sigma_w, params.chord_n,
        params.chord_reps, params.chord_dim, **mc,
    ),
)

# %%
fig, (ax_chord, ax_auc) = plt.subplots(1, 2, figsize=(9, 3.6))
colours = figures.chordal_auc_panel(ax_auc, chord, params.chord_sigma_w)
r_fine = np.linspace(0, max(params.chord_r), 300)
for kappa, cell in chord.groupby("kappa"):
    r_ok = r_fine if kappa == 0 else r_fine[np.sqrt(kappa) * r_fine <= np.pi]
    ax_chord.plot(r_ok, theory.chord_length(r_ok, kappa), color=colours[kappa], label=f"κ = {kappa:g}")
    ax_chord.plot(cell.r, cell.chord_measured, "o", ms=3, color=colours[kappa])
ax_chord.set(xlabel="geodesic distance r", ylabel="chord", title="Eq. 6: chord (lines), embedded (points)")
ax_chord.legend(fontsize=7)
plotting.save_figure(
    fig, "chord_ceiling",
    "Chord and curvature ceiling (paper 000, Theorem 2 and Corollary 1, Eq. 6-7): chord length and "
    "oracle AUC against geodesic distance r on spheres of curvature κ (points: simulation, ±2 s.e.; "
    "lines: closed forms; dotted: ceiling Φ(√2/(√κ σ_w))).",
    [chord_file],
)

# %% [markdown]
# With intrinsic spread τ > 0 the classes are no longer Gaussian along the chord and Lemma 1 no longer gives
# the answer: the chord-direction AUC is Eq. 6 averaged over the spread (derived in
# `theory.chordal_auc_spread`), and it must stay under the ceiling.

# %%
spread, spread_file = run.table(
    "chordal_law_spread",
    lambda: results.shared_table(
        simulate.chordal_law, params.chord_kappas, params.chord_r, params.chord_sigma_w, params.chord_n,
        params.chord_reps, params.chord_dim, tau=params.chord_tau, **mc,
    ),
)
spread_z = (spread.error / spread.mc_se).abs()
display(spread[["kappa", "r", "tau", "mc_auc", "mc_se", "theory_auc", "ceiling"]].round(4))

# %% [markdown]
# ## Part C — null variance of the AUC (Theorem 4)
#
# Under H0 the empirical AUC is the Mann–Whitney statistic with variance (n₊+n₋+1)/(12 n₊ n₋):
# checked against the exact permutation distribution (small n) and Monte Carlo (large n).

# %%
null, null_file = run.table(
    "null_variance",
    lambda: pd.concat([
        simulate.null_variance_exact(params.null_exact_sizes),
        simulate.null_variance_mc(params.null_mc_sizes, params.null_mc_reps, **mc),
    ], ignore_index=True),
)
null["relative_error"] = null.null_var / null.theory_var - 1
null_mc_z = ((null.null_var - null.theory_var) / null.null_var_se)[null.method == "Monte Carlo"]
display(null)
plotting.save_table(
    null.round(6), "null_variance",
    "Null variance of the empirical AUC (paper 000, Theorem 4): exact permutation enumeration and "
    "Monte Carlo against (n₊+n₋+1)/(12 n₊ n₋).",
    [null_file],
)

# %% [markdown]
# ## Part D — the detectability threshold α\*(n) (Theorem 4, Eq. 11)
#
# Simulated audits at α = α\*(n) with the level-δ test of Theorem 4 (oracle scores, σ₀ from the
# realised class sizes) should have power near 1 − γ where the small-α, small-s linearisation of
# Eq. 8 holds. Where it does not (large s), the measured power shows by how much α\*(n) is off;
# the exact root of the full purity law (`critical_purity_exact`) is shown beside it.

# %%
grid = pd.DataFrame([(s, n) for s in params.power_s for n in params.power_n], columns=["s", "n"])
grid["alpha_star"] = theory.critical_purity(grid.n, grid.s, params.delta, params.gamma)
grid = grid[grid.alpha_star <= 1].reset_index(drop=True)
grid["alpha_star_exact"] = [
    theory.critical_purity_exact(n, s, params.delta, params.gamma) for s, n in zip(grid.s, grid.n, strict=True)
]
linear_gain = grid.alpha_star * grid.s / (2 * np.sqrt(np.pi))
grid["linearisation_error"] = (theory.purity_auc(grid.s, grid.alpha_star) - 0.5) / linear_gain - 1
power, power_file = run.table(
    "power_at_threshold",
    lambda: simulate.detection_power(
        list(zip(grid.s, grid.n, grid.alpha_star, strict=True)), params.power_reps, params.delta, **mc
    ).merge(grid, on=["s", "n"]),
)
power["linearisation_holds"] = power.linearisation_error.abs() < 0.05
display(power)
plotting.save_table(
    power.round(4), "power_at_threshold",
    "Power of the Theorem 4 test at α = α*(n) (paper 000, Eq. 11) by separation s and audit size n; "
    "target 1 − γ. linearisation_error: relative error of AUC − ½ ≈ αs/(2√π) at α*; "
    "alpha_star_exact: root of the full purity law.",
    [power_file],
)

# %%
phase, phase_file = run.table(
    "phase_plane",
    lambda: simulate.detection_power(
        [(params.phase_s, n, a) for n in params.phase_n for a in params.phase_alphas],
        params.phase_reps, params.delta, **mc,
    ),
)
boundary, boundary_slope = simulate.detection_boundary(
    phase, "power", params.phase_s, 1 - params.gamma, params.delta, params.gamma
)
fitted = boundary.dropna()

# %%
fig, ax = plt.subplots(figsize=(5, 3.6))
rates = phase.pivot(index="alpha", columns="n", values="power")
mesh = ax.pcolormesh(rates.columns, rates.index, rates.to_numpy(), shading="nearest", cmap="viridis")
fig.colorbar(mesh, label="detection rate")
ax.plot(boundary.n, boundary.alpha_star, "w-", lw=2, label="α*(n), Eq. 11")
ax.plot(fitted.n, fitted.alpha_empirical, "r--o", ms=3,
        label=f"empirical {1 - params.gamma:.0%} power (slope {boundary_slope:.2f})")
ax.set(xscale="log", yscale="log", xlabel="audit size n", ylabel="purity α",
       title=f"detectability, s = {params.phase_s:g}")
ax.legend(fontsize=7, loc="lower left")
plotting.save_figure(
    fig, "phase_plane",
    f"Detectability phase plane (paper 000, Theorem 4, Eq. 11) at s = {params.phase_s:g}: detection "
    f"rate of the level-{params.delta:g} test over (n, α), the threshold α*(n) and the empirical "
    f"{1 - params.gamma:.0%}-power boundary with its log-log slope.",
    [phase_file],
)

# %% [markdown]
# ## Part E — the n^−½ law of the generalisation gap (Theorem 1, Eq. 2)
#
# The bound controls the worst case over the norm ball, whose gap decays exactly as n^−½; a
# fitted ℓ2 probe's own gap can decay faster. Both are measured and drawn beside the bound.

# %%
gap, gap_file = run.table(
    "generalization_gap",
    lambda: simulate.generalization_gap(
        params.gap_n, params.gap_dim, params.gap_s, params.gap_alpha, params.gap_reg,
        params.gap_reps, params.gap_n_test, params.delta, **mc,
    ),
)
uniform_slope = simulate.loglog_slope(gap.n, gap.uniform_deviation)
erm_slope = simulate.loglog_slope(gap.n, gap.erm_gap.clip(lower=1e-12))

# %%
fig, ax = plt.subplots(figsize=(5, 3.6))
ax.plot(gap.n, gap.uniform_deviation, "o-", color="C0", label=f"worst case, ‖w‖ ≤ 1 (slope {uniform_slope:.2f})")
ax.plot(gap.n, gap.uniform_bound, "--", color="C0", label="its bound 2ρ/√n (Theorem 1)")
ax.errorbar(gap.n, gap.erm_gap, yerr=2 * gap.erm_gap_se, fmt="s-", ms=3, color="C2",
            label=f"fitted ℓ2 probe, ramp loss (slope {erm_slope:.2f})")
ax.plot(gap.n, gap.erm_bound, ":", color="C2", label="its bound, Eq. 2 at the probe's ‖w‖")
ax.set(xscale="log", yscale="log", xlabel="training size n", ylabel="generalisation gap")
ax.legend(fontsize=7)
plotting.save_figure(
    fig, "generalization_gap",
    "Generalisation gap against n (paper 000, Theorem 1, Eq. 2): worst-case gap over the unit norm "
    "ball and the gap of a fitted ℓ2 logistic probe (±2 s.e.), each beside its bound.",
    [gap_file],
)

# %% [markdown]
# ## Part F — the minimax lower bound Ω(√(d_B/n)) (Proposition 1)
#
# Assouad's hypercube family (re-derived; the proposition's proof was lost): the text sits at one of d_B
# points of the bias manifold, each with its own label bias ±ε, ε = ½√(d_B/n). Its Bayes excess risk under a
# uniform prior (exact, `theory.hypercube_bayes_excess`) lower-bounds every learner and scales as √(d_B/n); a
# nearly unpenalised linear probe in ambient dimension D is simulated beside it. On d_B orthonormal points that
# probe is a per-point majority vote, the Bayes rule of this family, so its sharing the rate holds by construction
# (sanity claims): it shows the construction and the code agree, not a property of the paper's probes.

# %%
minimax, minimax_file = run.table(
    "minimax_rate",
    lambda: simulate.minimax_rate(params.minimax_n, params.minimax_dims, params.minimax_ambient_dim,
                                  params.minimax_reps, **mc),
)
n_slopes = minimax.groupby("intrinsic_dim").apply(
    lambda rows: simulate.loglog_slope(rows.n, rows.probe_excess), include_groups=False)
dim_slopes = minimax.groupby("n").apply(
    lambda rows: simulate.loglog_slope(rows.intrinsic_dim, rows.probe_excess), include_groups=False)
below_bayes_z = ((minimax.bayes_excess - minimax.probe_excess) / minimax.probe_excess_se).max()
display(minimax.round(5), n_slopes.rename("slope in n"), dim_slopes.rename("slope in d_B"))

# %%
fig, ax = plt.subplots(figsize=(5, 3.6))
for dim, rows in minimax.groupby("intrinsic_dim"):
    line = ax.plot(rows.n, rows.bayes_excess, "-", label=f"Bayes (exact), d_B = {dim}")[0]
    ax.errorbar(rows.n, rows.probe_excess, yerr=2 * rows.probe_excess_se, fmt="o", ms=3, color=line.get_color())
ax.set(xscale="log", yscale="log", xlabel="training size n", ylabel="excess risk",
       title=f"hypercube family in D = {params.minimax_ambient_dim}")
ax.legend(fontsize=7)
plotting.save_figure(
    fig, "minimax_rate",
    "Minimax lower bound (paper 000, Proposition 1): excess risk on Assouad's hypercube family, exact Bayes risk "
    "under a uniform prior (lines, a lower bound for every learner) and a linear probe (points, ±2 s.e.).",
    [minimax_file],
)

# %% [markdown]
# ## Claims — paper value beside measured value
#
# Kinds: the paper's own numbers and theorem statements, tested on simulations of the generative model, are `paper`
# claims; evaluations of the paper's closed forms (no simulation) and checks that hold by construction of a
# generator are `sanity`; the project's re-derivations and settings the paper leaves open are `extension`.
# The purity and chord simulations are shared with E03 (the same tables): they are claimed here and cited there.

# %%
z_purity = (purity.error.abs() / purity.mc_se.where(purity.mc_se > 0)).max()
flat, curved = chord[chord.kappa == 0].sort_values("r"), chord[chord.kappa > 0]
ceiling_margin = ((curved.ceiling - curved.mc_auc) / curved.mc_se).min()
spread_curved = spread[spread.kappa > 0]
exact_null, mc_null = null[null.method == "exact permutation"], null[null.method == "Monte Carlo"]
valid, invalid = power[power.linearisation_holds], power[~power.linearisation_holds]
target_power = 1 - params.gamma
tol_z, tol_slope = params.tolerance_z, params.slope_tolerance
z_sum = norm.isf(params.delta) + norm.isf(params.gamma)
linearisation_shift = norm.pdf(norm.isf(params.gamma)) * 0.05 * z_sum  # power moved by a 5% error in the test's z
power_binomial_se = uncertainty.binomial_se(target_power, params.power_reps)
phase_slope_se = uncertainty.crossing_slope_se(phase, "power", "power_se", target_power,
                                   boundary.dropna(subset=["alpha_empirical"]).n)
law = "The generalization gap of norm-bounded linear probes decays as $n^{-1/2}$"
claims = [
    # Part A: the purity law (Theorem 3); the simulation is E3-A's, shared with E03
    claim("purity_law_mc", "Sec. VI (E3-A, Table VI); Thm 3, Eq. 8",
          f"largest |oracle AUC − Eq. 8| over the {len(purity)} (s, α) settings of the purity generator (oracle "
          f"scoring along the true discriminant direction, {params.purity_n} texts × {params.purity_reps} replicates "
          "per setting; the paper's grid has 35 settings)",
          "the mixture law (8) matches empirical AUC over $35$ $(s,\\alpha)$ settings to a maximum absolute error "
          "below $0.006$", purity.error.abs().max(),
          Bound("<", 0.006, reason="the paper states an upper limit ('a maximum absolute error below 0.006')")),
    claim("purity_law_z", "Thm 3, Eq. 8",
          "largest |oracle AUC − Eq. 8| in Monte Carlo s.e. over the (s, α) settings of the purity generator: Eq. 8 "
          "is the oracle's exact expected AUC, so the errors should be Monte Carlo noise",
          "The best achievable AUC at purity $\\alpha$ is exactly $\\alpha^{2}\\Phi(\\frac{s}{\\sqrt{2}})+2\\alpha"
          "(1-\\alpha)\\Phi(\\frac{s}{2\\sqrt{2}})+\\frac{(1-\\alpha)^{2}}{2}$", z_purity,
          Bound("<=", tol_z, reason=uncertainty.z_tolerance_reason(tol_z, purity.mc_se.gt(0).sum()))),
    claim("purity_monotone", "Thm 3 (i)",
          "smallest increment of Eq. 8 between neighbouring α on a 201-point grid over [0, 1], for 800 separations s "
          "in (0, 40] (arithmetic on the paper's closed form, no simulation)",
          "This function is strictly increasing in $\\alpha$", increments.min(),
          Bound(">", 0, reason="the paper states a direction: strictly increasing"), kind="sanity"),
    claim("binormal_saturation", "Thm 3 (ii)", "Φ(s/√2) at s = 4 (arithmetic on the paper's closed form; Φ(s/√2) "
          "rises with s, so s = 4 is the smallest case)",
          "At $\\alpha=1$ the law reduces to $\\Phi(s/\\sqrt{2})$, which exceeds $0.997$ once $s\\geq 4$",
          theory.binormal_auc(4.0), Bound(">", 0.997, reason="the paper states a lower limit ('exceeds 0.997')"),
          kind="sanity"),
    claim("saturated_form", "Thm 3 (ii)",
          f"largest |Eq. 8 − (½ + α(2−α)/2)| over α in [0, 1] and s from {theory.SATURATION_S} to 40 (arithmetic on "
          "the paper's closed forms)",
          "for $s\\geq 6.6$ the entire curve (8) lies within $0.005$ of the $s$-independent saturated form "
          "$\\tfrac{1}{2}+\\tfrac{\\alpha(2-\\alpha)}{2}$", saturation_gap,
          Bound("<=", theory.SATURATION_TOLERANCE, reason="the paper states an upper limit ('within 0.005')"),
          kind="sanity"),
    claim("saturated_form_threshold", "Thm 3 (ii)",
          f"smallest s from which the whole curve (8) stays within {theory.SATURATION_TOLERANCE} of the saturated "
          "form (root of the largest gap over α; arithmetic on the paper's closed forms), against the paper's 6.6",
          "for $s\\geq 6.6$ the entire curve (8) lies within $0.005$ of the $s$-independent saturated form",
          s_threshold,
          Point(theory.SATURATION_S, tol=0.05, reason="the paper prints the threshold to one decimal (6.6), so ±0.05; "
                "the one-sided reading (threshold ≤ 6.6) is saturated_form's statement"),
          kind="sanity"),
    # Part B: chord and ceiling (Theorem 2, Corollary 1); the τ = 0 simulation is E3-B's, shared with E03
    claim("chord_geometry", "Thm 2, Eq. 6",
          "largest |embedded chord − (2/√κ)·sin(√κ·r/2)| over the (κ, r) grid (true by construction: the generator "
          "places the two centres on the sphere at geodesic distance r)",
          "the chord subtended by geodesic distance $r$ has length $\\frac{2}{\\sqrt{\\kappa}}\\sin(\\frac{\\sqrt{"
          "\\kappa}\\,r}{2})$", (chord.chord_measured - chord.chord_theory).abs().max(),
          Bound("<", 1e-9, reason="exact up to float rounding"), kind="sanity"),
    claim("chordal_auc_mc", "Sec. VI (E3-B, Table VI); Thm 2, Eq. 6",
          f"largest |oracle AUC − Φ(chord/(√2·σ_w))| over the {len(chord)} (κ, r) cells of two clusters on spheres "
          f"(σ_w = {params.chord_sigma_w:g}, a noise scale the paper does not state; {params.chord_n} texts × "
          f"{params.chord_reps} replicates per cell); Sec. IV-C states the same E3 validation as 'to within 0.005 "
          "AUC', the results paragraph's 0.013 is tested",
          "the chordal formula (6) matches oracle AUC to within $0.013$ across a $(\\kappa,r)$ grid",
          chord.error.abs().max(), Bound("<=", 0.013, reason="the paper states an upper limit ('to within 0.013')")),
    claim("chordal_auc_spread_z", "Thm 2, Eq. 6 with spread (re-derived)",
          f"largest |oracle AUC − Eq. 6 averaged over an intrinsic spread τ = {params.chord_tau:g}| in Monte Carlo "
          "s.e. over the (κ, r) cells (the form with spread is the project's, theory.chordal_auc_spread)",
          "no value stated (the paper's Eq. 6 has no intrinsic spread)", spread_z.max(),
          Bound("<=", tol_z, reason=uncertainty.z_tolerance_reason(tol_z, len(spread))), kind="extension"),
    claim("spread_below_ceiling", "Cor 1, Eq. 7",
          f"smallest (ceiling − curved oracle AUC)/s.e. with intrinsic spread τ = {params.chord_tau:g} (true by "
          "construction: every point's projection on the chord is at most the radius 1/√κ, so the chord-direction "
          "separation never exceeds the diameter 2/√κ the ceiling is built on)",
          "The resulting AUC ceiling $\\Phi\\big(\\sqrt{2}/(\\sqrt{\\kappa}\\,\\sigma_{w})\\big)$",
          ((spread_curved.ceiling - spread_curved.mc_auc) / spread_curved.mc_se).min(),
          Bound(">=", -tol_z, reason="a ceiling is one-sided: the AUC may lie anywhere below it; −tolerance_z s.e. "
                "allows Monte Carlo noise"), kind="sanity"),
    claim("flat_keeps_rising", "Sec. VI (E3-B); Cor 1; Fig. 3b",
          "smallest step of the flat (κ = 0) oracle AUC between neighbouring r (true by construction: on the flat "
          "generator the chord is r itself, so the AUC Φ(r/(√2·σ_w)) rises with r)",
          "flat-manifold AUC keeps rising with geodesic separation while curved-manifold AUC saturates at the "
          "ceiling (Fig. 3b)", flat.mc_auc.diff().min(), Bound(">", 0, reason="the paper states a direction"),
          kind="sanity"),
    claim("curved_below_ceiling", "Cor 1, Eq. 7; Fig. 3b",
          "smallest (ceiling − curved oracle AUC)/s.e. over the κ > 0 cells (true by construction: the generator's "
          "centres lie on the sphere, whose chords are at most its diameter 2/√κ, and the oracle AUC is Lemma 1 at "
          "the chord)",
          "The resulting AUC ceiling $\\Phi\\big(\\sqrt{2}/(\\sqrt{\\kappa}\\,\\sigma_{w})\\big)$", ceiling_margin,
          Bound(">=", -tol_z, reason="a ceiling is one-sided: the AUC may lie anywhere below it; −tolerance_z s.e. "
                "allows Monte Carlo noise"), kind="sanity"),
    # Part C: the null of the AUC (Theorem 4)
    claim("null_variance_exact", "Thm 4",
          "largest relative error of the exact permutation variance of the AUC (every label assignment enumerated) "
          "against (n₊+n₋+1)/(12·n₊·n₋), over the small (n₊, n₋) sizes",
          "a $U$-statistic with variance $\\frac{n_{+}+n_{-}+1}{12n_{+}n_{-}}$", exact_null.relative_error.abs().max(),
          Bound("<", 1e-12, reason="both sides are exact: they agree up to the float rounding of sums over at most "
                "a few ten thousand permutations")),
    claim("null_variance_mc", "Thm 4",
          f"largest |Monte Carlo null variance of the AUC − (n₊+n₋+1)/(12·n₊·n₋)| in s.e. (normal theory) over the "
          f"large (n₊, n₋) sizes, {params.null_mc_reps} random-label replicates each",
          "a $U$-statistic with variance $\\frac{n_{+}+n_{-}+1}{12n_{+}n_{-}}$", null_mc_z.abs().max(),
          Bound("<=", tol_z, reason=uncertainty.z_tolerance_reason(tol_z, len(mc_null)))),
    # Part D: the detectability threshold (Theorem 4, Eq. 11)
    claim("power_at_threshold", "Thm 4, Eq. 11",
          f"largest |power − (1 − γ)| of the level-{params.delta:g} test (oracle scores, σ₀ from the class sizes) at "
          f"α = α*(n), over the (s, n) cells where the small-α, small-s linearisation of Eq. 8 is within 5%",
          "a critical purity $\\alpha^{*}(n)\\approx 2.05\\,(z_{1-\\delta}+z_{1-\\gamma})/(s\\sqrt{n})$ below which "
          "no level-$\\delta$ test achieves power $1-\\gamma$", (valid.power - target_power).abs().max(),
          Bound("<=", params.power_tolerance,
                reason=f"|power − (1 − γ)| is two-sided about 1 − γ; the power_tolerance parameter "
                       f"({params.power_tolerance:g}, fixed before the run): where the linearisation is within 5%, the "
                       f"test's z at α* is within 5% of z_(1−δ) + z_(1−γ) = {z_sum:.2f}, which moves the power by at "
                       f"most φ(z_(1−γ))·0.05·{z_sum:.2f} = {linearisation_shift:.3f}; the rest is "
                       f"{(params.power_tolerance - linearisation_shift) / power_binomial_se:.1f} binomial s.e. "
                       f"√(0.8·0.2/{params.power_reps}) of a power over {params.power_reps} replicates")),
    claim("power_beyond_linearisation", "Thm 4, Eq. 11",
          "lowest power of the same test at α = α*(n) over the cells where the linearisation is off by more than 5% "
          "(derived here: Φ is concave on the positive axis, so Eq. 8's AUC − ½ never exceeds αs/(2√π), and "
          "α*(n) is too small wherever the linearisation is off)",
          "no value stated (Eq. 11 is the small-$\\alpha$, small-$s$ form)", invalid.power.min(),
          Bound("<", target_power, reason="a direction: below the target power 1 − γ"), kind="extension"),
    claim("boundary_slope", "Sec. I (4); Thm 4",
          f"log–log slope over n of the empirical {target_power:.0%}-power boundary of the oracle-score σ₀ test at "
          f"s = {params.phase_s:g}, against −½ within 3 Monte Carlo s.e. (delta method: each crossing's s.e. from "
          "the logged power s.e. of the two cells it interpolates between)",
          "The $(\\alpha,n)$ plane splits into a detectable and an undetectable phase with boundary slope "
          "$-\\tfrac{1}{2}$ on log–log axes", boundary_slope, Point(-0.5, se=phase_slope_se, k=3)),
    # Part E: the generalisation gap (Theorem 1)
    claim("gap_uniform_slope", "Thm 1, Eq. 2",
          "log–log slope over n of the worst-case gap over the unit norm ball (true by construction: that worst "
          "case is ‖mean(y·x) − E[y·x]‖, a sample-mean deviation, which scales as n^−½)", law, uniform_slope,
          Point(-0.5, tol=tol_slope, reason="no s.e. of the worst-case gap is logged; the slope of a sample-mean "
                "norm is −½ up to O(1/n) terms, so ±0.1 (the slope_tolerance parameter) only guards against an "
                "implementation error"), kind="sanity"),
    claim("gap_below_bound", "Sec. III (Rademacher bound); Thm 1, Eq. 2 (re-derived: lost in extraction)",
          "largest ratio over n of the fitted ℓ2 probe's ramp-loss gap to its bound 2·‖w‖·ρ/√n + √(log(1/δ)/2n) at "
          "the probe's largest ‖w‖ and the sample radius ρ (true by construction: the standard Rademacher bound holds "
          "with probability ≥ 1 − δ for every w in the ball)",
          "with probability $\\geq 1-\\delta$, every $f$ in a $[0,1]$-loss class satisfies $R(f)\\leq\\widehat{R}_{n}"
          "(f)+2\\mathfrak{R}_{n}(\\mathcal{F})+\\sqrt{\\log(1/\\delta)/2n}$", (gap.erm_gap / gap.erm_bound).max(),
          Bound("<=", 1, reason="a bound: the ratio may be anything up to 1"), kind="sanity"),
    claim("gap_erm_slope", "Thm 1; E6 (the paper reports E6 on its six models; this synthetic setting is ours)",
          f"log–log slope over n = {params.gap_n[0]}…{params.gap_n[-1]} of a fitted ℓ2 logistic probe's ramp-loss "
          f"gap (C = 1/(reg·n)) on the purity generator at α = {params.gap_alpha:g}, d = {params.gap_dim}, against "
          "−½ within 3 Monte Carlo s.e. (delta method from the logged per-n s.e.; not measured when a gap is not "
          "positive)", law, erm_slope, Point(-0.5, se=uncertainty.loglog_slope_se(gap.n, gap.erm_gap, gap.erm_gap_se), k=3),
          kind="extension"),
    # Part F: the minimax lower bound (Proposition 1, re-derived on Assouad's hypercube)
    claim("minimax_rate_n", "Prop 1 (proof re-derived)",
          "median over d_B of the log–log slope in n of the linear probe's excess risk on the hypercube family (true by "
          "construction: the family's bias ε = ½√(d_B/n) sets the rate, and a near-unpenalised linear probe on d_B "
          "orthonormal points is a per-point majority vote, the Bayes rule there)",
          "a matching minimax lower bound $\\Omega(\\sqrt{d_{B}/n})$", n_slopes.median(),
          Point(-0.5, tol=tol_slope, reason="the construction's excess is ∝ √(d_B/n) up to the finite-n terms of a "
                "binomial vote, so ±0.1 (the slope_tolerance parameter) only guards against an implementation error"),
          kind="sanity"),
    claim("minimax_rate_dim", "Prop 1 (proof re-derived)",
          "median over n of the log–log slope in d_B of the probe's excess risk, ambient D fixed (true by "
          "construction, as minimax_rate_n)",
          "the intrinsic dimension $d_{B}$ is the correct hardness parameter from below", dim_slopes.median(),
          Point(0.5, tol=tol_slope, reason="the construction's excess is ∝ √(d_B/n) up to the finite-n/d_B terms of "
                "a binomial vote, so ±0.1 (the slope_tolerance parameter) only guards against an implementation error"),
          kind="sanity"),
    claim("minimax_no_learner_below_bayes", "Prop 1 (proof re-derived)",
          "largest (exact Bayes excess − probe excess)/s.e. over (n, d_B) (true by construction: under the uniform "
          "prior on the signs the Bayes risk lower-bounds every learner's average risk)",
          "a matching minimax lower bound $\\Omega(\\sqrt{d_{B}/n})$", below_bayes_z,
          Bound("<=", tol_z, reason=uncertainty.z_tolerance_reason(tol_z, len(minimax))), kind="sanity"),
]
claims_table, claims_file = run.record_claims(claims)
plotting.save_table(
    claims_table, "claims",
    "Paper 000 closed forms: the paper's value beside the value measured by this notebook.",
    [claims_file],
)

# %% [markdown]
# The table below is the notebook's conclusion: each row gives the paper's words, the measured value, its
# comparison and its outcome. A `fails` row is a result not reproduced here, reported as measured.

# %%
show_claims(claims_table, params.profile)
