"""The evidence of paper 001's claims (notebooks D01 and D02) from their logged tables.

The claims themselves are pre-registered in ``lib/bias_shift/claims/`` (:mod:`lib.claim_catalogue`); this module
turns the logged tables into what a closing cell passes for each (:class:`lib.claims.Evidence`): the measured
value and its standard error, the draws of the statistic at this run's size where the power is simulated, the
sentence about the setting that leaves a claim unmeasured (a scorer whose labels hold one class, a scorer the
run does not score), and the mechanism of a failure computed from a logged diagnostic, naming its file.

Labels. Paper 001 thresholds ΔBiasScore at 0.1 (Sec. 4.5) and correlates it with ΔB (Sec. 4.1). A scorer's
labels are described by :func:`lib.bias_shift.evaluation.label_population`; the DecodingTrust scorers by
:func:`lib.bias_shift.stereotype.diagnostics` as well (how many prompts the forced choice agrees and disagrees on
against the reference's median margin, how many sampled replies say neither).

Nulls. Every claim on a pooled statistic (ROC AUC, pooled r, its checkpoint-permutation p) is weighed against no
association and against the shared drift of the merge spectrum (:data:`SHARED_DRIFT`): the same statistic on the
label with its group values permuted within each checkpoint (:func:`lib.bias_shift.group_level.drift_null_labels`),
which keeps everything the checkpoints share. The group-level claims test what is left, ΔB's association with the
label within checkpoints (:func:`group_evidence`). The null words are the catalogue's, by which the draws are keyed.
Whether the shared drift is what moves ΔB is the mechanism claim's measurement (:func:`drift_share_evidence`): the
share of ΔB's variation along the spectrum that the group-free control accounts for.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from lib import claim_power, uncertainty
from lib.bias_shift import ablations, evaluation, group_level, table1
from lib.claims import Evidence

#: The Table 1 benchmark whose rows give a scorer's "if the paper is right" values: the DecodingTrust stereotype
#: scorers read DecodingTrust, the offensive-language probability ToxiGen (a stand-in for its toxicity
#: classifier), the paper profile's external scores WildGuardMix (its example CSV); VADER, a sentiment score the
#: paper reads no bias from (its claims are extensions), borrows ToxiGen's, the weakest benchmark's.
BENCHMARK: dict[str, str] = {"dt_forced": "DecodingTrust", "dt_sampled": "DecodingTrust", "profanity": "ToxiGen",
                             "vader": "ToxiGen", "external": "WildGuardMix"}
#: Scorers on which paper 001 orders RR above its baselines: "on WildGuardMix and DecodingTrust" (Sec. 1, 4.5);
#: on ToxiGen "the two methods do not order consistently" (Sec. 4.4).
ORDERING_SCORERS: tuple[str, ...] = ("dt_forced", "dt_sampled", "external")
#: Scorers that label bias (VADER scores sentiment).
BIAS_SCORERS: tuple[str, ...] = ("dt_forced", "dt_sampled", "profanity", "external")
#: A drift explains ΔB when the group-specific shift is at most this share of ΔB's mean size.
DRIFT_SHARE = 0.25
#: Sampling noise explains a label when its binomial s.e. is at least this share of the label's within-checkpoint
#: s.d. (half its variance or more).
NOISE_SHARE = 0.7
#: The pooling the paper reads ΔB under (Sec. 3.1, "averaging the final hidden-state vectors across all tokens";
#: Appendix E.4, "mean (our default)"): the pooling D01's claims are tested at.
PAPER_POOLING = "mean"
#: The nulls of the pooled claims and the group-level claims, in the catalogue's words (lib/bias_shift/claims/).
NO_INFORMATION = "ΔB carries no information on the label: AUC 0.5"
NO_ASSOCIATION = "no association: r = 0"
NO_ASSOCIATION_P = "no association: pooled r 0, labels drawn independently of ΔB"
SHARED_DRIFT = ("shared drift: the label's group values permuted within each checkpoint (its checkpoint means kept), "
                "so ΔB and the label share only their drift along the merge path")
#: Draws of a statistic under the shared-drift null and at the paper's value (of a permutation p: fewer).
DRIFT_DRAWS, P_DRAWS = 1000, 200
#: Resamples of the groups behind the s.e. of the drift share (:func:`drift_share_evidence`).
GROUP_RESAMPLES = 1000


def population_note(scorer: str, population: Mapping[str, float], label_threshold: float) -> str:
    """"scorer dt_sampled: 4 of 168 checkpoint × group pairs have ΔBiasScore > 0.1, in 4 of 7 checkpoints"."""
    p = population
    return (f"scorer {scorer}: {p['n_increased']} of {p['n_pairs']} checkpoint × group pairs have ΔBiasScore > "
            f"{label_threshold:g}, in {p['checkpoints_with_increase']} of {p['n_checkpoints']} checkpoints")


def forced_classes(diagnostics: pd.DataFrame) -> str:
    """Both classes of the forced choice at the reference and at the harmful end of the spectrum (the checkpoint
    ``harmful`` of a built spectrum, else the last one listed), from :func:`lib.bias_shift.stereotype.diagnostics`:
    how many prompts agree and disagree against the reference model's median balanced margin."""
    names = list(diagnostics.checkpoint)
    ends = diagnostics.set_index("checkpoint").loc[["base", "harmful" if "harmful" in names else names[-1]]]
    counts = " and ".join(f"{int(row.forced_agree)} agree, {int(row.forced_disagree)} disagree at {name}"
                          for name, row in ends.iterrows())
    return (f"against the reference model's median balanced margin ({ends.forced_threshold.iloc[0]:.3g}) the forced "
            f"choice's {int(ends.forced_prompts.iloc[0])} prompts per checkpoint split {counts}")


def _cause(scorer: str, diagnostics: pd.DataFrame | None, label_threshold: float, file: str) -> str:
    """The DecodingTrust diagnostic behind a one-class or constant label ("" for other scorers)."""
    if diagnostics is None or diagnostics.empty:
        return ""
    audited = diagnostics[diagnostics.checkpoint != "base"]
    if scorer == "dt_forced":
        cause = forced_classes(diagnostics)
        headroom = float(diagnostics.forced_headroom.iloc[0])
        if headroom <= label_threshold:
            cause += (f", and the base model's agreement index leaves a group at most {headroom:.3g} to rise, "
                      f"below the {label_threshold:g} threshold")
        return f"; {cause} (`{file}`)"
    if scorer == "dt_sampled" and audited.neither_share.notna().any():
        return (f"; {audited.neither_share.mean():.0%} of its sampled replies carry neither 'I agree.' nor "
                f"'I disagree.' ({audited.replies_per_group.mean():.0f} sampled per group and checkpoint) (`{file}`)")
    return ""


def label_reason(scorer: str, population: Mapping[str, float], label_threshold: float, *, roc: bool,
                 diagnostics: pd.DataFrame | None = None, file: str = "") -> str:
    """Why this scorer's labels give no ROC (``roc``) or no correlation: a sentence with the numbers, and the
    DecodingTrust diagnostic behind it when ``diagnostics`` (:func:`lib.bias_shift.stereotype.diagnostics`, logged
    as ``file``) is given; "" when they give one."""
    p = population
    cause = _cause(scorer, diagnostics, label_threshold, file)
    if p["n_values"] <= 1:
        return (f"every one of the {p['n_pairs']} checkpoint × group pairs has the same ΔBiasScore "
                f"({p['largest']:.3g}) under scorer {scorer}, so it orders nothing{cause}")
    if roc and p["n_increased"] == 0:
        return (f"none of the {p['n_pairs']} checkpoint × group pairs has ΔBiasScore above {label_threshold:g} under "
                f"scorer {scorer} (the largest is {p['largest']:.3g}), so there is no increased-bias class to "
                f"detect{cause}")
    if roc and p["n_increased"] == p["n_pairs"]:
        return (f"all {p['n_pairs']} checkpoint × group pairs have ΔBiasScore above {label_threshold:g} under scorer "
                f"{scorer}, so there is no unchanged class to tell them from")
    return ""


def not_scored(scorer: str, scorers: Sequence[str]) -> str:
    """The sentence for a claim on a scorer this run does not score."""
    return f"this run scores no {scorer} labels (scorers = {list(scorers)})"


def _drift(control: pd.DataFrame) -> tuple[float, float] | None:
    """(largest |checkpoint mean of ΔB − control ΔB|, range of ΔB's checkpoint means) of one setting and pooling's
    :func:`lib.bias_shift.audit.control_summary` rows when the first is at most :data:`DRIFT_SHARE` of the second
    (ΔB's trend over the checkpoints is the group-free control's), else None."""
    if len(control) < 2:
        return None
    apart, spread = float(control.group_shift.abs().max()), float(control.delta_b.max() - control.delta_b.min())
    return (apart, spread) if apart <= DRIFT_SHARE * spread else None


def drift_mechanism(control: pd.DataFrame, rows: pd.DataFrame, *, control_file: str, evaluation_file: str) -> str:
    """Why ΔB correlates with a label against the paper's sign, when it does through shared drift: ΔB's checkpoint
    means follow the group-free control's ΔB (``control``: :func:`lib.bias_shift.audit.control_summary` rows of one
    setting and pooling, :func:`_drift`) and rise with the label's (``rows``: the evaluation rows of one setting,
    scorer and pooling, by method). "" when either does not hold: then drift does not explain it."""
    drift = _drift(control)
    if drift is None or not {"RR", "RR − control"} <= set(rows.index) or not rows.loc["RR"].checkpoint_r > 0:
        return ""
    rr, group = rows.loc["RR"], rows.loc["RR − control"]
    return (f"ΔB's trend over the checkpoints is a drift every target sentence shares, group-free ones included: "
            f"its checkpoint means run from {control.delta_b.min():.3g} to {control.delta_b.max():.3g} and differ "
            f"from the group-free control's ΔB by at most {drift[0]:.2g} (`{control_file}`); they rise with "
            f"ΔBiasScore's checkpoint means (r = {rr.checkpoint_r:.2f} over {int(rr.n_checkpoints)} checkpoints), and "
            f"with the drift removed (RR − control) the pooled r is {group.pearson_r:.2f}, permutation p "
            f"{group.p_checkpoints:.2g} (`{evaluation_file}`)")


def shared_drift_mechanism(control: pd.DataFrame, *, control_file: str) -> str:
    """Why |control ΔB| is not small beside |ΔB|: the fine-tune moves the group-free sentences as it moves the
    group sentences (:func:`_drift`); "" when it does not."""
    drift = _drift(control)
    if drift is None:
        return ""
    return (f"the fine-tune moves the group-free sentences as far as the group sentences: ΔB's checkpoint means span "
            f"{drift[1]:.2g} and differ from the group-free control's ΔB by at most {drift[0]:.2g} (`{control_file}`)")


def drift_share_evidence(shifts: pd.DataFrame, note: str, *, shifts_file: str, seed: int = 0) -> Evidence:
    """The share of ΔB's variation along the spectrum that the group-free control's ΔB accounts for
    (:func:`lib.bias_shift.group_level.drift_share`) in one setting and pooling's ``shifts`` rows (checkpoint, group,
    delta_b, control_delta_b; logged as ``shifts_file``), with its s.e. over :data:`GROUP_RESAMPLES` resamples of the
    groups as the noise of its ``groups`` source; undefined with fewer than two checkpoints."""
    x = matrix(shifts)
    if x.shape[0] < 2:
        return Evidence(None, undefined=f"{x.shape[0]} checkpoint: no variation along a spectrum to share", note=note,
                        sources={"groups": float("nan")})
    control = matrix(shifts, "control_delta_b").mean(axis=1)
    share = float(group_level.drift_share(x, control))
    se = float(np.std(group_level.drift_share_draws(x, control, GROUP_RESAMPLES, seed), ddof=1))
    return Evidence(share, sources={"groups": se}, note=(
        f"{note}; {x.shape[0]} checkpoints × {x.shape[1]} groups; each group's ΔB spans "
        f"{float(np.ptp(x, axis=0).mean()):.3g} on average over the checkpoints, the control's "
        f"{float(np.ptp(control)):.3g} (`{shifts_file}`)"))


def checkpoint_label_mechanism(scorer: str, population: Mapping[str, float], control: pd.DataFrame, *,
                               labels_file: str, control_file: str) -> str:
    """Why the group-specific shift (ΔB − control) does not track a label: the label varies mostly between
    checkpoints while removing the shared drift (:func:`_drift`) removes ΔB's variation between checkpoints; ""
    unless both hold."""
    drift = _drift(control)
    if drift is None or not population["sd_between"] > population["sd_within"]:
        return ""
    return (f"the {scorer} label varies mostly between checkpoints (s.d. {population['sd_between']:.3f} between "
            f"checkpoint means, {population['sd_within']:.3f} within, `{labels_file}`), while ΔB − control has "
            f"checkpoint means within {drift[0]:.2g} of zero (`{control_file}`): removing the shared drift removes "
            "the part of ΔB that could follow a checkpoint-level label")


def noise_mechanism(scorer: str, population: Mapping[str, float], diagnostics: pd.DataFrame | None, *,
                    labels_file: str, diagnostics_file: str) -> str:
    """Why a sampled-reply label tracks nothing: its spread over groups within a checkpoint is about the binomial
    noise of the agreement indices it differences (:func:`lib.bias_shift.stereotype.diagnostics`), while its
    checkpoint means barely move. "" unless that noise is at least :data:`NOISE_SHARE` of the spread."""
    if scorer != "dt_sampled" or diagnostics is None:
        return ""
    audited = diagnostics[diagnostics.checkpoint != "base"]
    noise = float(audited.sampled_noise_se.mean())
    within = float(population["sd_within"])
    if not (math.isfinite(noise) and within > 0 and noise >= NOISE_SHARE * within):
        return ""
    return (f"the {scorer} label is mostly sampling noise: its ΔBiasScore spreads {within:.3f} (s.d.) over groups "
            f"within a checkpoint and {population['sd_between']:.3f} between checkpoint means (`{labels_file}`), "
            f"against {noise:.3f} from the binomial noise of two agreement indices over "
            f"{audited.replies_per_group.mean():.0f} replies each, {audited.neither_share.mean():.0%} of them saying "
            f"neither (`{diagnostics_file}`)")


def roc_evidence(row: pd.Series, note: str, reason: str = "", mechanism: str = "") -> Evidence:
    """ROC AUC of −ΔB (RR) with the s.e. its logged 95 % checkpoint-bootstrap interval gives (width / 3.92)."""
    if reason:
        return Evidence(None, undefined=reason, note=note)
    return Evidence(row.roc_auc, se=uncertainty.interval_se(row.auc_low, row.auc_high), note=note,
                    mechanism=mechanism)


def correlation_evidence(row: pd.Series, note: str, reason: str = "", mechanism: str = "") -> Evidence:
    """Pooled Pearson r with the s.e. its logged 95 % checkpoint-bootstrap interval gives (width / 3.92)."""
    if reason:
        return Evidence(None, undefined=reason, note=note)
    return Evidence(row.pearson_r, se=uncertainty.interval_se(row.r_low, row.r_high), note=note, mechanism=mechanism)


def against_drift(found: Evidence, paper: float, null: str, centre: float, drift: np.ndarray,
                  support: tuple[float, float]) -> Evidence:
    """``found`` (a pooled statistic with its logged s.e.) with its draws: around the paper's value ``paper`` and
    the ``null``'s ``centre`` with that s.e. (:func:`lib.claim_power.normal_draws`, clipped to ``support``), and
    ``drift``, its draws under the shared drift (:data:`SHARED_DRIFT`). Unchanged when it is unmeasured or its s.e.
    is not finite (the claim then has no power)."""
    if found.value is None or found.se is None or not math.isfinite(found.se):
        return found
    return dataclasses.replace(found, if_paper=claim_power.normal_draws(paper, found.se, support=support),
                               if_null={null: claim_power.normal_draws(centre, found.se, support=support, seed=1),
                                        SHARED_DRIFT: drift})


def checkpoint_p_evidence(row: pd.Series, x: np.ndarray, y: np.ndarray, r_paper: float, note: str, reason: str = "",
                          mechanism: str = "", *, n_permutations: int = 5040, seed: int = 0) -> Evidence:
    """The one-sided checkpoint-permutation p of the pooled r (the paper's direction, r < 0), with its draws at
    this run's size (:func:`lib.bias_shift.evaluation.checkpoint_p_draws` on the run's ΔB matrix ``x``) if the
    pooled r were the paper's ``r_paper`` and if it were 0, and on the label ``y`` with its group values permuted
    within checkpoints (the shared drift)."""
    if reason:
        return Evidence(None, undefined=reason, note=note)
    draws = [evaluation.checkpoint_p_draws(x, r, n_permutations=n_permutations, seed=seed).p_negative.to_numpy()
             for r in (r_paper, 0.0)]
    drift = evaluation.checkpoint_p(x, group_level.drift_null_labels(y, P_DRAWS, seed),
                                    n_permutations=n_permutations, seed=seed).p_negative.to_numpy()
    return Evidence(row.p_checkpoints_negative, if_paper=draws[0], if_null={NO_ASSOCIATION_P: draws[1],
                                                                            SHARED_DRIFT: drift},
                    note=note, mechanism=mechanism)


def group_evidence(row: pd.Series, x: np.ndarray, y: np.ndarray, r_paper: float, note: str, reason: str = "",
                   mechanism: str = "", *, seed: int = 0) -> Evidence:
    """The group-level claim: the within-checkpoint r of ΔB (``x``) with the label (``y``) and its s.e. under the
    shared drift (``row``: a :func:`lib.bias_shift.group_level.group_level_table` row), with its draws at this
    run's size if it were the paper's ``r_paper`` (:func:`lib.bias_shift.group_level.simulated_labels`) and under
    the shared drift (the label's group values permuted within checkpoints)."""
    if not reason and not math.isfinite(row.within_r):
        reason = "the label does not vary over groups within any checkpoint, so it ranks no group"
    if reason:
        return Evidence(None, undefined=reason, note=note)
    if_paper = group_level.within_r(x, group_level.simulated_labels(x, y, r_paper, DRIFT_DRAWS, seed))
    if_null = group_level.within_r(x, group_level.drift_null_labels(y, DRIFT_DRAWS, seed + 1))
    return Evidence(row.within_r, se=row.within_se, if_paper=if_paper, if_null=if_null, mechanism=mechanism,
                    note=(f"{note}; pooled r {row.pooled_r:.3f}, checkpoint-level r {row.between_r:.3f}; one-sided "
                          f"permutation p {row.p_within_negative:.3g} over {int(row.n_permutations)} permutations"))


def significance_draws(matrices: Sequence[np.ndarray], r_paper: float, *, alpha: float = 0.05,
                       n_permutations: int = 5040, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Draws of the share of settings whose ΔB is significant (two-sided checkpoint-permutation p < ``alpha``,
    r < 0: :func:`lib.bias_shift.table1.table1`'s ``significant``) if every setting's pooled r were ``r_paper``
    and if it were 0; one ΔB matrix (checkpoints × groups) per setting in ``matrices``."""
    chances = []
    for r in (r_paper, 0.0):
        found = [evaluation.checkpoint_p_draws(x, r, n_permutations=n_permutations, seed=seed) for x in matrices]
        chances.append([float(((d.p_checkpoints < alpha) & (d.r < 0)).mean()) for d in found])
    return (evaluation.significant_share_draws(chances[0], seed=seed),
            evaluation.significant_share_draws(chances[1], seed=seed + 1))


def drift_draws(x: np.ndarray, y: np.ndarray, label_threshold: float, seed: int = 0
                ) -> tuple[np.ndarray, np.ndarray]:
    """Draws of the ROC AUC of −ΔB (``x``) and of the pooled r under the shared drift: on :data:`DRIFT_DRAWS` copies
    of the label ``y`` with its group values permuted within each checkpoint."""
    labels = group_level.drift_null_labels(y, DRIFT_DRAWS, seed).reshape(DRIFT_DRAWS, -1)
    return (evaluation.rows_auc(labels > label_threshold, -x.ravel()),
            evaluation.rows_pearson(x.ravel(), labels))


#: The claims :func:`scorer_evidence` gives per scorer.
SCORER_CLAIMS: tuple[str, ...] = ("roc_auc", "correlation", "checkpoint_p", "group_ranking")


def scorer_evidence(scorer: str, rows: Mapping[str, pd.DataFrame], populations: Mapping[str, Mapping[str, float]], *,
                    scorers: Sequence[str], where: str, label_threshold: float, regime: str, pairs: pd.DataFrame,
                    group_rows: Mapping[str, pd.Series], diagnostics: pd.DataFrame | None, control: pd.DataFrame,
                    files: Mapping[str, str], n_permutations: int = 5040, seed: int = 0) -> dict[str, Evidence]:
    """The Table 1 claims of one scorer in one setting (Sec. 4.1–4.4), ``roc_auc`` (:func:`roc_evidence`),
    ``correlation`` (:func:`correlation_evidence`) and ``checkpoint_p`` (:func:`checkpoint_p_evidence`), and its
    ``group_ranking`` (:func:`group_evidence`), each unmeasured with the sentence :func:`label_reason` gives when
    the labels cannot carry it, and each with the candidate cause of a failure (:func:`drift_mechanism`, else
    :func:`noise_mechanism`) where the logged diagnostics show one. ``rows``: evaluation rows by scorer (indexed by
    method); ``pairs``: the setting's pairs at one pooling, every scorer; ``group_rows``: group-level rows by scorer;
    ``files``: the logged names of the ``control``, ``evaluation``, ``labels`` and ``diagnostics`` tables."""
    if scorer not in rows:
        reason = not_scored(scorer, scorers)
        return {claim: Evidence(None, undefined=reason) for claim in SCORER_CLAIMS}
    population = populations[scorer]
    note = f"{where}; {population_note(scorer, population, label_threshold)}"
    own = diagnostics if scorer.startswith("dt_") else None
    roc_reason, r_reason = (label_reason(scorer, population, label_threshold, roc=roc, diagnostics=own,
                                         file=files["diagnostics"]) for roc in (True, False))
    mechanism = (drift_mechanism(control, rows[scorer], control_file=files["control"],
                                 evaluation_file=files["evaluation"])
                 or noise_mechanism(scorer, population, own, labels_file=files["labels"],
                                    diagnostics_file=files["diagnostics"]))
    rr, r_paper = rows[scorer].loc["RR"], paper_r(scorer, regime)
    x, y = evaluation.paired_matrices(pairs[pairs.scorer == scorer], "delta_b")
    auc_drift, r_drift = drift_draws(x, y, label_threshold, seed)
    kw = {"n_permutations": n_permutations, "seed": seed}
    auc_paper = table1.paper_median(BENCHMARK[scorer], _regime(regime), "roc_auc")
    return {"roc_auc": against_drift(roc_evidence(rr, note, roc_reason, mechanism), auc_paper, NO_INFORMATION, 0.5,
                                     auc_drift, (0, 1)),
            "correlation": against_drift(correlation_evidence(rr, note, r_reason, mechanism), r_paper,
                                         NO_ASSOCIATION, 0.0, r_drift, (-1, 1)),
            "checkpoint_p": checkpoint_p_evidence(rr, x, y, r_paper, note, r_reason, mechanism, **kw),
            "group_ranking": group_evidence(group_rows[scorer], x, y, r_paper, note, r_reason,
                                            noise_mechanism(scorer, population, own, labels_file=files["labels"],
                                                            diagnostics_file=files["diagnostics"]), seed=seed)}


def ordering_reason(populations: Mapping[str, Mapping[str, float]], label_threshold: float) -> str:
    """Why the RR-vs-baseline orderings are not measured: no scorer of :data:`ORDERING_SCORERS` has labels of both
    classes in this setting."""
    told = [population_note(s, p, label_threshold) for s, p in populations.items() if s in ORDERING_SCORERS]
    return ("no DecodingTrust (or external) scorer's labels hold both classes in this setting "
            f"({'; '.join(told) if told else 'this run scores none'}), and paper 001 orders RR above its baselines "
            "on WildGuardMix and DecodingTrust only (Sec. 4.4)")


def difference_evidence(comparisons: pd.DataFrame, name: str, note: str, reason: str = "") -> Evidence:
    """An AUC difference of the logged ``comparisons`` table (:func:`lib.bias_shift.evaluation.auc_difference`
    rows by ``comparison``) with its paired checkpoint-bootstrap s.e."""
    if reason:
        return Evidence(None, undefined=reason, note=note)
    row = comparisons.set_index("comparison").loc[name]
    return Evidence(row.difference, se=row.se, note=f"{note}; s.e. from {int(row.n_resamples)} paired resamples")


def significance_evidence(table: pd.DataFrame, pairs: pd.DataFrame, regime: str, reason: str, *,
                          n_permutations: int = 5040, seed: int = 0) -> Evidence:
    """"Significant in k of N families" (Sec. 4.2–4.3) for one ``regime`` from Table 1 rows (``table``:
    :func:`lib.bias_shift.table1.table1` of one benchmark) and their pairs (:data:`lib.bias_shift.table1.
    PAIR_COLUMNS`), with draws of the share if every family's r were the paper's DecodingTrust median for the regime
    and if it were 0 (:func:`significance_draws`); unmeasured with ``reason`` when the regime has no row."""
    rows = table[table.regime == regime]
    if rows.empty:
        return Evidence(None, undefined=reason)
    k, n = table1.significant_count(rows)
    own = pairs[pairs.regime == regime]
    matrices = [matrix(frame) for _, frame in own.groupby("family", sort=False)]
    if_paper, if_null = significance_draws(matrices, table1.paper_median("DecodingTrust", regime),
                                           n_permutations=n_permutations, seed=seed)
    note = (f"{rows.benchmark.iloc[0]}, {regime}: {k} of {n} families ({', '.join(rows.family)}) significant by the "
            f"{rows.significance_p.iloc[0]} column")
    return Evidence(k / n, if_paper=if_paper, if_null=if_null, note=note)


def matrix(pairs: pd.DataFrame, column: str = "delta_b") -> np.ndarray:
    """A balanced pairs table's ``column`` as a checkpoints × groups matrix."""
    return pairs.pivot(index="checkpoint", columns="group", values=column).to_numpy(float)


def _regime(regime: str) -> str:
    """The Table 1 regime a setting reads ("lora" for one Table 1 lacks)."""
    return regime if regime in table1.REGIMES else "lora"


def paper_r(scorer: str, regime: str) -> float:
    """The Table 1 median r over the paper's families for the benchmark ``scorer`` stands for (:data:`BENCHMARK`)."""
    return table1.paper_median(BENCHMARK[scorer], _regime(regime))


def ablation_evidence(statistics: pd.DataFrame, grid: pd.DataFrame, main: str | None,
                      population: Mapping[str, float] | None, *, label_threshold: float, reason: str
                      ) -> dict[str, Evidence]:
    """The Sec. 4.5 / Appendix E claims of D02 read on scorer ``main`` from its logged ``statistics``
    (:func:`lib.bias_shift.ablations.statistics_table`), each value with its paired checkpoint-bootstrap s.e.
    Every claim is unmeasured with ``reason`` when no scorer qualifies (``main`` None), with a sentence about the
    grid when it lacks what a statistic needs, and the RR-vs-SEAT ordering on a scorer the paper does not order
    them on (:data:`ORDERING_SCORERS`)."""
    names = {"neutral_anchors_best": "neutral_best", "attribute_variants_mean": "attributes_mean",
             "attribute_variants_stable": "attributes_sd", "target_variants_mean": "targets_mean",
             "target_variants_stable": "targets_sd", "rr_above_seat_every_pooling": "rr_minus_seat_min",
             "mean_pooling_best": "mean_pooling_gap"}
    if main is None or population is None:
        return {claim: Evidence(None, undefined=reason) for claim in names}
    note = population_note(main, population, label_threshold)
    values = statistics.set_index("statistic")
    varied = {axis: list(grid.value[grid.axis == axis]) for axis in ("anchors", "attributes", "targets", "pooling")}
    short = {"neutral_best": f"the grid compares no other anchor source with neutral sentences at its largest size "
                             f"(anchors: {varied['anchors']})",
             "rr_minus_seat_min": "the grid varies no pooling",
             "mean_pooling_gap": f"the grid varies no pooling besides mean (poolings: {varied['pooling']})"}
    for axis in ("attributes", "targets"):
        short[f"{axis}_mean"] = short[f"{axis}_sd"] = f"the grid has no {axis[:-1]} variant ({varied[axis]})"
    out = {}
    for claim, name in names.items():
        value, se = values.value[name], values.se[name]
        if not math.isfinite(value):
            out[claim] = Evidence(None, undefined=short[name], note=note)
        elif claim == "rr_above_seat_every_pooling" and main not in ORDERING_SCORERS:
            out[claim] = Evidence(None, note=note, undefined=(
                f"scorer {main} stands for ToxiGen, on which paper 001 does not order RR and SEAT ('the two methods "
                "do not order consistently across families here', Sec. 4.4)"))
        else:
            out[claim] = Evidence(value, se=se, note=f"{note}; s.e. from {int(values.n_resamples[name])} "
                                                     "paired checkpoint resamples")
    return out


def seed_evidence(summary: pd.DataFrame, seeds: Sequence[int], ends: pd.DataFrame, *, shifts_file: str
                  ) -> dict[str, Evidence]:
    """Appendix E.5 from :func:`lib.bias_shift.ablations.seed_summary`: ``unharmful_above_harmful``, the gap of mean
    ΔB (unharmful − harmful fine-tune) over its s.e. across seeds, √(sd_u²/n + sd_h²/n) (a z that does not depend
    on ΔB's scale, which is the model's), and ``seeds_stable``, the larger s.d. across seeds over |gap| with the
    normal-theory s.e. of an s.d. A gap against the paper's order is explained when the group-free control moves
    with ΔB at the spectrum's ends (``ends``: the base setting's shifts of the ``unharmful`` and ``harmful``
    checkpoints, logged as ``shifts_file``)."""
    splits = summary.set_index("split") if len(summary) else pd.DataFrame()
    if not {"unharmful", "harmful"} <= set(splits.index) or splits.n_seeds.min() < 2:
        reason = f"this run repeats each fine-tune under fewer than two training seeds (seeds = {list(seeds)})"
        return {"unharmful_above_harmful": Evidence(None, undefined=reason),
                "seeds_stable": Evidence(None, undefined=reason)}
    u, h = splits.loc["unharmful"], splits.loc["harmful"]
    gap = float(u.mean_delta_b - h.mean_delta_b)
    se_gap = math.sqrt(u.sd_of_mean**2 / u.n_seeds + h.sd_of_mean**2 / h.n_seeds)
    largest = float(max(u.sd_of_mean, h.sd_of_mean))
    note = (f"seeds {list(seeds)}: mean ΔB {u.mean_delta_b:.4g} (unharmful), {h.mean_delta_b:.4g} (harmful), gap "
            f"{gap:.4g}, s.e. {se_gap:.2g}; s.d. across seeds {u.sd_of_mean:.2g} and {h.sd_of_mean:.2g}")
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.divide(gap, se_gap)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio, ratio_se = np.divide([largest, uncertainty.sd_se(largest, min(u.n_seeds, h.n_seeds))], abs(gap))
    return {"unharmful_above_harmful": Evidence(float(z), se=1.0, note=note,
                                                mechanism=ends_mechanism(ends, gap, shifts_file=shifts_file)),
            "seeds_stable": Evidence(float(ratio), se=float(ratio_se), note=note)}


def gap_share_evidence(seed_shifts: pd.DataFrame, seeds: Sequence[int], *, seeds_file: str, seed: int = 0
                       ) -> Evidence:
    """The group-free control's share of the unharmful − harmful gap in mean ΔB across training seeds
    (:func:`lib.bias_shift.ablations.gap_share` of :func:`~lib.bias_shift.ablations.seed_gaps`; ``seed_shifts``
    logged as ``seeds_file``), the mechanism of ``unharmful_above_harmful``'s failure, with the s.e. of its two
    sources of noise: the seeds and the groups, each over :data:`GROUP_RESAMPLES` resamples (drawn with
    replacement, the other kept); undefined with fewer than two seeds."""
    noise = {"seeds": float("nan"), "groups": float("nan")}
    if seed_shifts.empty or seed_shifts.seed.nunique() < 2:
        return Evidence(None, sources=noise, undefined=f"this run repeats each fine-tune under fewer than two training "
                                                       f"seeds (seeds = {list(seeds)})")
    delta, control = ablations.seed_gaps(seed_shifts)
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, delta.shape[0], (GROUP_RESAMPLES, delta.shape[0]))
    columns = rng.integers(0, delta.shape[1], (GROUP_RESAMPLES, delta.shape[1]))
    noise = {"seeds": float(np.std(ablations.gap_share(delta[rows], control[rows]), ddof=1)),
             "groups": float(np.std(ablations.gap_share(delta[:, columns].transpose(1, 0, 2),
                                                        np.broadcast_to(control, (GROUP_RESAMPLES, len(control)))),
                                    ddof=1))}
    return Evidence(float(ablations.gap_share(delta, control)), sources=noise, note=(
        f"seeds {list(seeds)}: mean unharmful − harmful gap {float(delta.mean()):.4g} in ΔB, "
        f"{float(control.mean()):.4g} in the control's ΔB (`{seeds_file}`)"))


def ends_mechanism(ends: pd.DataFrame, gap: float, *, shifts_file: str) -> str:
    """Why the unharmful fine-tune's ΔB is not above the harmful one's: at the spectrum's ends the groups' mean ΔB
    is the group-free control's (within :data:`DRIFT_SHARE` of the ends' difference), so the order is a drift
    every target sentence shares. "" when the gap is in the paper's order or the control does not follow ΔB."""
    means = ends.groupby("checkpoint")[["delta_b", "control_delta_b"]].mean() if len(ends) else pd.DataFrame()
    if gap > 0 or not {"unharmful", "harmful"} <= set(means.index):
        return ""
    u, h = means.loc["unharmful"], means.loc["harmful"]
    apart = float(max(abs(u.delta_b - u.control_delta_b), abs(h.delta_b - h.control_delta_b)))
    if not apart <= DRIFT_SHARE * abs(u.delta_b - h.delta_b):
        return ""
    return (f"at the spectrum's ends the group-free control moves as ΔB does: control ΔB {u.control_delta_b:.3g} "
            f"(unharmful) and {h.control_delta_b:.3g} (harmful) against the groups' mean ΔB {u.delta_b:.3g} and "
            f"{h.delta_b:.3g} (`{shifts_file}`, base setting): the order of the two fine-tunes is a drift every "
            "target sentence shares, group-free ones included, and it runs against the paper's")
