"""The evidence for K04's claims on the synthetic factor world (paper 002, App. A.3.4): statistics, s.e., power draws.

Each function reads the tables :mod:`lib.kstar.world.synthetic` logs (counts at each model's last update, the family
medians, the overlap and |S|-association tables, the probe rows) and returns what the catalogue's tests need:

- family medians of the readable controls carry an s.e. from the controls' pooled spread of log counts within a
  family (the median of n lognormal counts has log-scale s.e. √(π/2)·σ/√n), and draws of the smallest and largest
  family median at the run's family sizes (:func:`family_median_draws`): around the paper's span if the paper is
  right, around |S| if a control over |S| factors reads at |S| coordinates (the idealized factor coordinates of
  Proposition 6, the paper's second null);
- a readable target's count above one is set beside its best one-coordinate readout and τ, with the readout's
  Hanley–McNeil s.e. at the test prefixes (:func:`single_coordinate_gaps`), which tells noise from a wide readout;
- a chance-level query passes the 0.90 gate only by a test AUROC many null s.d. above ½
  (:func:`chance_readable_draws`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

from lib import stats
from lib.claim_power import DRAWS
from lib.claims import Evidence
from lib.kstar.evidence.power_draws import share_draws
from lib.kstar.protocol import rules
from lib.kstar.world import world as fw
from lib.kstar.world.convergence import Population

#: √(π/2): the s.e. of a median over the s.e. of a mean, for normal values (here log counts).
MEDIAN_EFFICIENCY = math.sqrt(math.pi / 2)


@dataclass(frozen=True)
class PaperBasis:
    """A.3.4's numbers in one basis: the span of the readable controls' family medians, the overlap control's
    median against the other readable controls', and the log-log slope and Spearman ρ of count on |S|."""

    span: tuple[float, float]
    overlap: tuple[float, float]
    slope: float
    spearman: float


#: A.3.4, "Result", "Overlapping inputs" and "Idealized factor coordinates", raw and PCA basis.
PAPER_BASES = {"raw": PaperBasis((29, 60.5), (60.5, 38), 0.31, 0.289),
               "pca": PaperBasis((16, 64), (64, 32), 0.35, 0.347)}


def learned_targets(final: pd.DataFrame) -> pd.DataFrame:
    """The targets of the seven learned families (threshold, conjunction, two-factor parity; A.3.4 "Result")."""
    return final[((final.role == "target") & (final.function != "parity")) | (final["query"] == "parity2_target")]


def control_log_sd(final: pd.DataFrame, basis: str) -> float:
    """The pooled within-family s.d. of log k^syn over the readable controls of ``basis`` (families with two or
    more readable models); NaN when no family has two."""
    controls = final[final.readable & (final.role == "control") & (final.basis == basis) & np.isfinite(final["count"])]
    logs = controls.assign(log=np.log(controls["count"].astype(float))).groupby("query").log
    dof = (logs.count() - 1).clip(lower=0)
    if dof.sum() < 1:
        return float("nan")
    return float(math.sqrt((logs.var(ddof=1).fillna(0) * dof).sum() / dof.sum()))


def median_log_se(sd_log: float, n: int) -> float:
    """The log-scale s.e. of a median of ``n`` lognormal counts with log s.d. ``sd_log``: √(π/2)·σ/√n."""
    return MEDIAN_EFFICIENCY * sd_log / math.sqrt(n) if n > 0 else float("nan")


def family_median_draws(centres: Sequence[float], sizes: Sequence[int], sd_log: float, *, n: int = DRAWS,
                        seed: int = 0) -> np.ndarray:
    """``n`` draws of every family's median count, shape (n, families): family f's median of ``sizes[f]``
    lognormal counts around ``centres[f]`` with log s.d. ``sd_log`` (the readable models of one control family)."""
    centres, sizes = np.asarray(centres, dtype=float), [int(s) for s in sizes]
    if len(centres) != len(sizes) or not len(sizes) or min(sizes) < 1:
        raise ValueError(f"centres {list(centres)} and sizes {sizes}; allowed: one size >= 1 per centre")
    rng = np.random.default_rng(seed)
    return np.stack([np.median(c * np.exp(sd_log * rng.standard_normal((n, s))), axis=1)
                     for c, s in zip(centres, sizes, strict=True)], axis=1)


def single_coordinate_gaps(runs: pd.DataFrame, final: pd.DataFrame, n_test: int, frac: float = rules.FRAC,
                           readable_above: float = rules.READABLE_ABOVE) -> pd.DataFrame:
    """Per readable learned target (:func:`learned_targets`) at its model's last update: k^syn and, at the readable
    layer where the one-coordinate readout comes closest to qualifying, Ã(1) (the median AUROC of the size-1
    candidates, A.3.4), that layer's τ, the Hanley–McNeil s.e. of Ã(1) at the test prefixes (class counts from
    Lemma 4's label rate) and z = (τ − Ã(1))/s.e.: a count above one with z ≤ 2 is within the test noise of one."""
    probes = runs[runs.kind == "probe"]
    probes = probes[probes["update"] == probes.groupby("model")["update"].transform("max")]
    rows = []
    for target in learned_targets(final[final.readable]).itertuples():
        rates = fw.label_rate(target.function, int(target.n_factors))
        n_pos = max(round(rates * n_test), 1)
        best = None
        mine = probes[(probes.model == target.model) & (probes["query"] == target.query)
                      & (probes.basis == target.basis)]
        for layer, rows_l in mine.groupby("layer"):
            dense = float(rows_l.loc[rows_l.path == "dense", "value"].iloc[0])
            ones = rows_l[(rows_l.path != "dense") & (rows_l["size"] == 1)].value
            if dense <= readable_above or ones.empty:
                continue
            single, tau = float(np.median(ones)), rules.threshold(dense, frac)
            if best is None or single - tau > best[1] - best[2]:
                best = (int(layer), single, tau)
        if best is None:
            continue
        se = float(stats.hanley_mcneil_se(min(best[1], 1 - 1e-9), n_pos, max(n_test - n_pos, 1)))
        rows.append({"model": target.model, "query": target.query, "basis": target.basis, "count": target.count,
                     "layer": best[0], "single_auroc": best[1], "tau": best[2], "se": se,
                     "z": (best[2] - best[1]) / se if se > 0 else math.inf})
    return pd.DataFrame(rows, columns=["model", "query", "basis", "count", "layer", "single_auroc", "tau", "se", "z"])


def noise_mechanism(gaps: pd.DataFrame, models: Sequence[str], basis: str, file: str, k: float = 2.0) -> str:
    """Why readable targets of ``models`` read above one in ``basis``: a sentence when every such target's best
    one-coordinate readout lies within ``k`` s.e. of τ (the count of two is the test prefixes' noise around a
    one-coordinate readout), citing ``file``; "" when some target is read wide beyond that noise, or none is."""
    above = gaps[gaps.model.isin(list(models)) & (gaps.basis == basis) & (gaps["count"] > 1)]
    if above.empty or not (above.z <= k).all():
        return ""
    worst = above.loc[above.z.idxmax()]
    return (f"{len(above)} readable target(s) read above one, each with a one-coordinate readout within {k:g} s.e. "
            f"of τ (the farthest: {worst['query']} on {worst['model']}, Ã(1) {worst.single_auroc:.4f} against τ "
            f"{worst.tau:.4f}, s.e. {worst.se:.4f}; `{file}`): at these test prefixes one coordinate and τ are not "
            "told apart")


def chance_readable_draws(n_queries: int, n_layers: int, n_test: int, gate: float, *, n: int = DRAWS,
                          seed: int = 0) -> np.ndarray:
    """``n`` draws of how many of ``n_queries`` chance-level queries pass the readability gate (some of ``n_layers``
    dense test AUROCs above ``gate``), each AUROC normal around ½ with Theorem 4's null s.d. at a balanced test
    split of ``n_test`` (paper 000; the parity labels are fair, Lemma 4)."""
    sigma0 = float(stats.null_auc_sd(n_test / 2, n_test / 2))
    per_query = 1 - (1 - float(sps.norm.sf((gate - 0.5) / sigma0))) ** max(n_layers, 1)
    return np.random.default_rng(seed).binomial(max(n_queries, 0), per_query, size=n).astype(float)


def basis_evidence(final: pd.DataFrame, medians: pd.DataFrame, overlap: pd.DataFrame, association: pd.DataFrame,
                   trained: Population, basis: str, gaps: pd.DataFrame, gaps_file: str) -> dict[str, Evidence]:
    """The evidence of K04's seven claims in ``basis`` (A.3.4), by the claim's id without its basis suffix; the
    targets are read on the ``trained`` population only (:func:`lib.kstar.world.convergence.population`)."""
    paper = PAPER_BASES[basis]
    learned = learned_targets(final)
    targets = learned[learned.readable & (learned.basis == basis) & learned.model.isin(list(trained.models))]
    controls = final[final.readable & (final.role == "control") & (final.basis == basis)]
    control_rate = float((controls["count"] == 1).mean()) if len(controls) else math.nan
    target_rate = float((learned[learned.readable & (learned.basis == basis)]["count"] == 1).mean()) \
        if len(learned) else math.nan
    no_targets = trained.undefined or ("" if len(targets) else
                                       "no readable learned target on the models within the convergence margin")
    evidence = {
        "targets_at_one": Evidence(
            (targets["count"] == 1).mean() if len(targets) else math.nan, undefined=no_targets,
            note=f"{len(targets)} readable learned targets; {trained.note}",
            if_paper=share_draws(1.0, len(targets)) if len(targets) else None,
            if_null=share_draws(control_rate, len(targets)) if len(targets) and math.isfinite(control_rate)
            else None,
            mechanism=noise_mechanism(gaps, trained.models, basis, gaps_file)),
        "no_control_at_one": Evidence(
            float((controls["count"] == 1).sum()) if len(controls) else math.nan, note=f"{len(controls)} readable "
            "controls", undefined="" if len(controls) else "no control is readable",
            if_paper=share_draws(0.0, len(controls)) * len(controls) if len(controls) else None,
            if_null=share_draws(target_rate, len(controls)) * len(controls)
            if len(controls) and math.isfinite(target_rate) else None),
    }
    evidence.update(_family_evidence(final, medians, basis, paper))
    evidence.update(_overlap_evidence(final, overlap, basis))
    evidence.update(_association_evidence(final, association, basis))
    return evidence


def _family_evidence(final: pd.DataFrame, medians: pd.DataFrame, basis: str, paper: PaperBasis
                     ) -> dict[str, Evidence]:
    family = medians[(medians.basis == basis) & (medians.role == "control") & (medians.readable > 0)]
    sd_log = control_log_sd(final, basis)
    if family.empty or not math.isfinite(sd_log):
        reason = ("no control family is readable" if family.empty else
                  "no control family is readable in two models, so the spread of its counts is unknown")
        return {"control_median_min": Evidence(None, undefined=reason),
                "control_median_max": Evidence(None, undefined=reason)}
    sizes = family.readable.astype(int).to_numpy()
    lo, hi = paper.span
    if_paper = np.log2(family_median_draws(np.geomspace(lo, hi, len(family)), sizes, sd_log))
    if_null = np.log2(family_median_draws(family.n_factors.to_numpy(), sizes, sd_log, seed=1))
    note = f"{len(family)} readable control families of {sizes.min()}–{sizes.max()} models, log s.d. {sd_log:.2f}"
    out = {}
    for name, pick, reduce in (("control_median_min", "idxmin", np.min), ("control_median_max", "idxmax", np.max)):
        at = family.loc[getattr(family["median"], pick)()]
        out[name] = Evidence(math.log2(at["median"]), se=median_log_se(sd_log, int(at.readable)) / math.log(2),
                             note=f"{note}; {at.function}{int(at.n_factors)} control, median {at['median']:g} on "
                                  f"{int(at.readable)} models", if_paper=reduce(if_paper, axis=1),
                             if_null=reduce(if_null, axis=1))
    return out


def _overlap_evidence(final: pd.DataFrame, overlap: pd.DataFrame, basis: str) -> dict[str, Evidence]:
    lap = overlap[overlap.basis == basis]
    sd_log = control_log_sd(final, basis)
    if lap.empty or not (lap.overlap_n.iloc[0] and lap.others_n.iloc[0]) or not math.isfinite(sd_log):
        return {"overlap_not_narrower": Evidence(None, undefined="the overlap control or the other controls are "
                                                 "unreadable, or no family is readable in two models")}
    row = lap.iloc[0]
    se = math.hypot(median_log_se(sd_log, int(row.overlap_n)), median_log_se(sd_log, int(row.others_n))) / math.log(2)
    return {"overlap_not_narrower": Evidence(
        math.log2(row.overlap_median / row.others_median), se=se,
        note=f"overlap control {row.overlap_median:g} on {int(row.overlap_n)} models against {row.others_median:g} "
             f"on {int(row.others_n)} readable controls")}


def _association_evidence(final: pd.DataFrame, association: pd.DataFrame, basis: str) -> dict[str, Evidence]:
    assoc = association[association.basis == basis]
    chosen = final[final.readable & (final.role == "control") & (final.basis == basis)
                   & final.function.isin(["threshold", "conjunction"]) & np.isfinite(final["count"])]
    fitted = len(chosen) > 3 and chosen.n_factors.nunique() > 1 and chosen["count"].nunique() > 1
    slope_se = (math.sqrt(np.polyfit(np.log(chosen.n_factors), np.log(chosen["count"].astype(float)), 1,
                                     cov=True)[1][0, 0]) if fitted else math.nan)
    n = int(assoc.n.iloc[0]) if len(assoc) else 0
    thin = "" if fitted else (f"{len(chosen)} readable threshold and conjunction controls: too few, or one |S| or one "
                              "count, for a slope")
    note = (f"{len(chosen)} readable threshold and conjunction controls; observations share models, so the s.e. "
            "understates the uncertainty")
    return {
        "size_slope": Evidence(assoc.loglog_slope.iloc[0] if len(assoc) else math.nan, se=slope_se,
                               undefined=thin, note=note),
        "size_spearman": Evidence(assoc.spearman.iloc[0] if len(assoc) else math.nan,
                                  se=1 / math.sqrt(n - 1) if n > 1 else math.nan, undefined=thin, note=note),
    }


def control_count_draws(final: pd.DataFrame, basis: str, *, n: int = DRAWS, seed: int = 0) -> np.ndarray | None:
    """``n`` counts drawn with replacement from the readable controls of ``basis`` at the models' last update: a
    target read as wide as an untrained aggregate (the null that training has not narrowed it); None when no
    control is readable."""
    counts = final[final.readable & (final.role == "control") & (final.basis == basis)]["count"].to_numpy(float)
    counts = counts[np.isfinite(counts)]
    return np.random.default_rng(seed).choice(counts, size=n) if len(counts) else None
