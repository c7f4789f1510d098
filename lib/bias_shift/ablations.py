"""Robustness of ΔB, one pipeline component at a time (paper 001, Sec. 4.5 and Appendix E).

Four ablations on the same checkpoint spectrum and the same output-level labels: anchor source ×
anchor size (Figure 4), six attribute-sentence variants (Table 5a), six target-template variants
(Table 5b) and token pooling (Table 6, RR beside SEAT); each setting is scored by the ROC AUC of a
threshold on ΔB against "ΔBiasScore > 0.1". Fine-tuning seeds (Appendix E.5, Figure 5) are a fifth
check on the ends of the spectrum. Every setting changes one component; the others stay at the
base (neutral anchors at the largest size, base attributes and templates, mean pooling).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from lib.bias_shift import audit, checkpoints, evaluation, sentences
from lib.models import extraction

#: Shifts computed in the ablations: RR everywhere, SEAT beside it (Table 6 compares the two).
ABLATION_SHIFTS: tuple[str, ...] = ("delta_b", "seat_delta_b")
#: Columns scored: RR, RR minus the group-free control (not in the paper), SEAT.
ABLATION_METHODS: dict[str, str] = {"delta_b": "RR", "group_shift": "RR − control", "seat_delta_b": "SEAT"}


@dataclass(frozen=True)
class Setting:
    """One configuration of the ΔB pipeline (Sec. 4.5); defaults are the paper's main setting."""

    anchor_source: str = "neutral"
    anchor_size: int = sentences.N_ANCHORS
    attribute_variant: str = "base"
    target_variant: str = "base"
    pooling: str = "mean"


def _distinct(name: str, values: Sequence, check) -> list:
    values = list(values)
    if not values or len(set(values)) != len(values):
        raise ValueError(f"{name}={values!r} is not allowed; allowed: a non-empty list of distinct values")
    return [check(v) for v in values]


def _check_pooling(pooling: str) -> str:
    if pooling not in extraction.POOLINGS:
        raise ValueError(f"pooling={pooling!r} is not supported; allowed: {', '.join(extraction.POOLINGS)}")
    return pooling


def one_at_a_time(anchor_sources: Sequence[str], anchor_sizes: Sequence[int], attribute_variants: Sequence[str],
                  target_variants: Sequence[str], poolings: Sequence[str]) -> pd.DataFrame:
    """The ablation grid: one row per (axis, value) with the full :class:`Setting` it stands for.

    Anchors vary source × size together (Figure 4); the other axes vary alone around the base,
    whose anchors are neutral sentences at the largest requested size. Bad values raise before
    anything is embedded.
    """
    sources = _distinct("anchor_sources", anchor_sources, sentences.check_anchor_source)
    sizes = sorted(_distinct("anchor_sizes", anchor_sizes, sentences.check_anchor_size))
    attributes = _distinct("attribute_variants", attribute_variants, sentences.check_attribute_variant)
    targets = _distinct("target_variants", target_variants, sentences.check_target_variant)
    poolings = _distinct("poolings", poolings, _check_pooling)
    base = Setting(anchor_size=sizes[-1])
    rows = [{"axis": "anchors", "value": f"{source} {size}", **asdict(Setting(source, size))}
            for source in sources for size in sizes]
    rows += [{"axis": "attributes", "value": v, **asdict(base) | {"attribute_variant": v}} for v in attributes]
    rows += [{"axis": "targets", "value": v, **asdict(base) | {"target_variant": v}} for v in targets]
    rows += [{"axis": "pooling", "value": v, **asdict(base) | {"pooling": v}} for v in poolings]
    return pd.DataFrame(rows)


def _settings(grid: pd.DataFrame) -> list[Setting]:
    fields = list(asdict(Setting()))
    return [Setting(**row) for row in grid[fields].drop_duplicates().to_dict("records")]


def blocks(grid: pd.DataFrame, groups: Sequence[str], seed: int = 0) -> dict[str, list[str]]:
    """Every sentence block the grid needs, each once: ``anchors:<source>`` (the largest size),
    ``attributes:<variant>`` (𝒫 then 𝒩), ``targets:<variant>`` (50 per group, ``groups`` order) and
    ``controls:<variant>`` (the same templates with group-free subjects)."""
    largest = int(grid.anchor_size.max())
    out: dict[str, list[str]] = {}
    for setting in _settings(grid):
        out.setdefault(f"anchors:{setting.anchor_source}",
                       sentences.anchor_sentences(setting.anchor_source, largest, seed))
        positive, negative = sentences.attribute_sentences(setting.attribute_variant)
        out.setdefault(f"attributes:{setting.attribute_variant}", [*positive, *negative])
        targets = sentences.target_sentences(setting.target_variant)
        out.setdefault(f"targets:{setting.target_variant}", [t for g in groups for t in targets[g]])
        out.setdefault(f"controls:{setting.target_variant}", sentences.control_sentences(setting.target_variant))
    return out


def setting_space(embedded: Mapping[str, Mapping[str, np.ndarray]], setting: Setting, groups: Sequence[str],
                  largest: int, seed: int = 0) -> dict:
    """A model's ΔB inputs under ``setting`` from its embedded :func:`blocks` (pooling → block → rows).

    The anchors of a smaller size are rows of the largest set: the seeded subsets are nested.
    """
    rows = np.searchsorted(sentences.anchor_indices(largest, seed), sentences.anchor_indices(setting.anchor_size, seed))
    return audit.space(embedded[setting.pooling], anchors=f"anchors:{setting.anchor_source}",
                              attributes=f"attributes:{setting.attribute_variant}",
                              targets=f"targets:{setting.target_variant}", groups=groups, anchor_rows=rows,
                              controls=f"controls:{setting.target_variant}")


def grid_shifts(reference: Mapping, audited: Mapping[str, Mapping], grid: pd.DataFrame, groups: Sequence[str],
                seed: int = 0) -> pd.DataFrame:
    """RR and SEAT shifts for every distinct setting × audited checkpoint × group.

    ``reference`` and each value of ``audited`` are embedded blocks (:func:`lib.bias_shift.audit.embed_blocks`
    of :func:`blocks`). Columns: the :class:`Setting` fields, checkpoint, group, topic, delta_b,
    seat_delta_b, control_delta_b, group_shift, targets_only, attributes_only.
    """
    largest = int(grid.anchor_size.max())
    frames = []
    for setting in _settings(grid):
        ref = setting_space(reference, setting, groups, largest, seed)
        for name, embedded in audited.items():
            aud = setting_space(embedded, setting, groups, largest, seed)
            frame = audit.shifts(ref, aud, groups, methods=list(ABLATION_SHIFTS))
            frames.append(frame.assign(checkpoint=name, **asdict(setting)))
    return pd.concat(frames, ignore_index=True)


def roc_auc(shift: pd.Series, labels: pd.Series) -> float:
    """ROC AUC of "−shift above a threshold" for "bias increased" (NaN when only one class is present)."""
    from sklearn.metrics import roc_auc_score

    if labels.all() or not labels.any():
        return float("nan")
    return float(roc_auc_score(labels, -shift))


def auc_table(grid: pd.DataFrame, shifts: pd.DataFrame, scores: pd.DataFrame, label_threshold: float = 0.1
              ) -> pd.DataFrame:
    """ROC AUC per scorer, grid row and method against ΔBiasScore > ``label_threshold`` (Sec. 4.5).

    ``scores`` holds checkpoint, group, scorer, delta_bias_score (one scorer per output-level label).
    Columns: scorer, axis, value, method, roc_auc, n_pairs, n_increased.
    """
    fields = list(asdict(Setting()))
    rows = []
    for scorer, own in scores.groupby("scorer", sort=False):
        pairs = shifts.merge(own[["checkpoint", "group", "delta_bias_score"]], on=["checkpoint", "group"])
        pairs["increased"] = pairs.delta_bias_score > label_threshold
        per_setting = {key: frame for key, frame in pairs.groupby(fields, sort=False)}
        for row in grid.itertuples(index=False):
            frame = per_setting[tuple(getattr(row, f) for f in fields)]
            for column, method in ABLATION_METHODS.items():
                rows.append({"scorer": scorer, "axis": row.axis, "value": row.value, "method": method,
                             "roc_auc": roc_auc(frame[column], frame.increased), "n_pairs": len(frame),
                             "n_increased": int(frame.increased.sum())})
    return pd.DataFrame(rows)


def spread(values: Sequence[float]) -> dict[str, float]:
    """Mean, s.d., min and max of ROC AUCs across variants, as Tables 5–6 report them.

    The s.d. is the population one (ddof = 0): it reproduces the paper's 0.863 ± 0.030 and
    0.902 ± 0.008 from the AUCs of its Tables 5a and 5b.
    """
    array = np.asarray(values, dtype=float)
    return {"mean": float(array.mean()), "sd": float(array.std(ddof=0)), "min": float(array.min()),
            "max": float(array.max())}


def variant_table(auc: pd.DataFrame, axis: str, methods: Sequence[str] = ("RR",)) -> pd.DataFrame:
    """One ablation axis as the paper tabulates it: a row per value, then the mean, sd, min and max rows.

    ``auc`` is :func:`auc_table`'s output; columns are the ``methods``.
    """
    rows = auc[(auc.axis == axis) & auc.method.isin(methods)]
    wide = rows.pivot(index="value", columns="method", values="roc_auc").loc[rows.value.unique(), list(methods)]
    summary = pd.DataFrame({m: spread(wide[m]) for m in methods}).rename(index=lambda name: f"across {axis}: {name}")
    return pd.concat([wide, summary]).rename_axis(axis)


#: A key of :func:`bootstrap_aucs` and :func:`claim_statistics`: (axis, value, method) of one grid row and method.
Key = tuple[str, str, str]


def bootstrap_aucs(grid: pd.DataFrame, shifts: pd.DataFrame, scores: pd.DataFrame, label_threshold: float = 0.1,
                   n_bootstrap: int = 1000, seed: int = 0) -> dict[Key, np.ndarray]:
    """ROC AUC of every grid row and method (:data:`ABLATION_METHODS`) against one scorer's labels on the same
    ``n_bootstrap`` checkpoint resamples (:func:`lib.bias_shift.evaluation.bootstrap_aucs`): the draws of every
    Sec. 4.5 statistic (:func:`claim_statistics`) at this run's size, paired across settings. ``scores`` holds
    checkpoint, group, delta_bias_score of one scorer."""
    fields = list(asdict(Setting()))
    pairs = shifts.merge(scores[["checkpoint", "group", "delta_bias_score"]], on=["checkpoint", "group"])
    per_setting = {key: frame for key, frame in pairs.groupby(fields, sort=False)}
    out: dict[Key, np.ndarray] = {}
    for row in grid.itertuples(index=False):
        frame = per_setting[tuple(getattr(row, f) for f in fields)]
        matrices, labels = evaluation.detection_matrices(frame, list(ABLATION_METHODS), label_threshold)
        for method, draws in evaluation.bootstrap_aucs(matrices, labels, n_bootstrap, seed).items():
            out[(row.axis, row.value, method)] = draws
    return out


def claim_statistics(aucs: Mapping[Key, float | np.ndarray], grid: pd.DataFrame) -> dict[str, float | np.ndarray]:
    """The Sec. 4.5 and Appendix E statistics of paper 001's ablation claims from ROC AUCs by (axis, value, method)
    (an :func:`auc_table`'s values, or :func:`bootstrap_aucs`' draws: each statistic comes out as the same shape):
    ``neutral_best`` (neutral anchors minus the best other source at the largest size, Figure 4),
    ``attributes_mean``/``attributes_sd`` and ``targets_mean``/``targets_sd`` (RR over the wording variants,
    population s.d., Tables 5a/5b), ``rr_minus_seat_min`` (the smallest RR − SEAT over poolings, Table 6) and
    ``mean_pooling_gap`` (RR under mean pooling minus the best other pooling, Table 6). NaN where the grid lacks
    what a statistic needs (one anchor source, mean pooling alone, …)."""
    def rows(axis: str, method: str = "RR") -> dict[str, np.ndarray]:
        return {v: np.asarray(aucs[(axis, v, method)], float) for v in grid.value[grid.axis == axis]}

    nan = np.full(np.shape(next(iter(aucs.values()))), np.nan)
    anchors = grid[grid.axis == "anchors"]
    largest = anchors[anchors.anchor_size == anchors.anchor_size.max()]
    at_largest = {r.anchor_source: np.asarray(aucs[("anchors", r.value, "RR")], float) for r in largest.itertuples()}
    others = [v for k, v in at_largest.items() if k != "neutral"]
    out: dict[str, float | np.ndarray] = {
        "neutral_best": at_largest["neutral"] - np.max(others, axis=0) if "neutral" in at_largest and others else nan}
    for axis in ("attributes", "targets"):
        values = list(rows(axis).values())
        out[f"{axis}_mean"] = np.mean(values, axis=0) if values else nan
        out[f"{axis}_sd"] = np.std(values, axis=0) if values else nan
    rr, seat = rows("pooling"), rows("pooling", "SEAT")
    out["rr_minus_seat_min"] = np.min([rr[p] - seat[p] for p in rr], axis=0) if rr else nan
    rest = [v for p, v in rr.items() if p != "mean"]
    out["mean_pooling_gap"] = rr["mean"] - np.max(rest, axis=0) if "mean" in rr and rest else nan
    return {k: float(v) if np.ndim(v) == 0 else v for k, v in out.items()}


def statistics_table(grid: pd.DataFrame, auc: pd.DataFrame, shifts: pd.DataFrame, scores: pd.DataFrame,
                     label_threshold: float = 0.1, n_bootstrap: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Each :func:`claim_statistics` statistic of one scorer: its value on the run (``auc``: :func:`auc_table` rows
    of that scorer), its s.e. over ``n_bootstrap`` paired checkpoint resamples (:func:`bootstrap_aucs`; resamples
    with one class left out) and the resamples it rests on. Columns: statistic, value, se, n_resamples."""
    observed = claim_statistics({(r.axis, r.value, r.method): r.roc_auc for r in auc.itertuples()}, grid)
    draws = claim_statistics(bootstrap_aucs(grid, shifts, scores, label_threshold, n_bootstrap, seed), grid)
    rows = []
    for name, value in observed.items():
        finite = np.asarray(draws[name], float)
        finite = finite[np.isfinite(finite)]
        rows.append({"statistic": name, "value": value, "n_resamples": len(finite),
                     "se": float(finite.std(ddof=1)) if len(finite) > 1 else float("nan")})
    return pd.DataFrame(rows, columns=["statistic", "value", "se", "n_resamples"])


def base_shifts(shifts: pd.DataFrame, grid: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``shifts`` (:func:`grid_shifts`) under the grid's base setting: neutral anchors at the largest
    size, base attributes and targets, mean pooling (empty when the grid lacks it)."""
    base = asdict(Setting(anchor_size=int(grid.anchor_size.max())))
    return shifts[np.logical_and.reduce([shifts[k] == v for k, v in base.items()])]


def seed_summary(seed_shifts: pd.DataFrame) -> pd.DataFrame:
    """Appendix E.5 per fine-tuning corpus: mean ΔB, its s.d. across seeds, and the mean per-group s.d.

    ``seed_shifts`` holds seed, split, group, delta_b. The paper reports one s.d. per corpus
    (0.003) without saying over what; both readings are given: ``sd_of_mean`` (the corpus-mean ΔB
    across seeds) and ``mean_group_sd`` (each group's ΔB across seeds, averaged over groups).
    """
    rows = []
    for split, frame in seed_shifts.groupby("split", sort=False):
        per_seed = frame.groupby("seed").delta_b.mean()
        per_group_sd = frame.groupby("group").delta_b.std(ddof=1)
        rows.append({"split": split, "n_seeds": int(frame.seed.nunique()), "mean_delta_b": float(per_seed.mean()),
                     "sd_of_mean": float(per_seed.std(ddof=1)), "mean_group_sd": float(per_group_sd.mean())})
    return pd.DataFrame(rows)


def spectrum_shifts(spectrum: Mapping[str, str], grid: pd.DataFrame, groups: Sequence[str], seed: int, *,
                    layer: int | str = "last") -> pd.DataFrame:
    """RR and SEAT shifts of every audited checkpoint of ``spectrum`` (name → folder, ``base`` the reference)
    under every setting of the one-at-a-time ``grid`` (Sec. 4.5); each sentence block embedded once."""
    sentence_blocks = blocks(grid, groups, seed)
    embedded = {name: audit.embed_blocks(folder, sentence_blocks, layer=layer) for name, folder in spectrum.items()}
    audited = {name: e for name, e in embedded.items() if name != "base"}
    return grid_shifts(embedded["base"], audited, grid, groups, seed)


def seed_shifts(reference: str, groups: Sequence[str], seeds: Sequence[int], *, method: str, epochs: int,
                sentence_seed: int, layer: int | str = "last") -> pd.DataFrame:
    """ΔB per group (mean pooling, the base setting's sentences) of the unharmful and the harmful fine-tune repeated
    under each training seed (Appendix E.5, Figure 5), beside the group-free control's ΔB: columns group, delta_b,
    control_delta_b, seed, split. The fine-tunes are :func:`lib.bias_shift.checkpoints.finetuned_pair`'s,
    content-keyed: D01's shares spectrum at 0 and 100 % harmful data under the same seed reads the same ones."""
    sets = sentences.load(seed=sentence_seed)
    frames = []
    for run_seed in seeds:
        pair = checkpoints.finetuned_pair(reference, method=method, seed=run_seed, epochs=epochs)
        for split, folder in pair.items():
            shifts = audit.audit(reference, str(folder), groups=groups, layer=layer, sets=sets)
            frames.append(shifts[["group", "delta_b", "control_delta_b"]].assign(seed=run_seed, split=split))
    if not frames:
        return pd.DataFrame(columns=["group", "delta_b", "control_delta_b", "seed", "split"])
    return pd.concat(frames, ignore_index=True)


def seed_gaps(seed_shifts: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The unharmful − harmful gap of each training seed (Appendix E.5) from :func:`seed_shifts`: ΔB's per group
    (seeds × groups) and the group-free control's (per seed)."""
    wide = seed_shifts.pivot_table(index=["seed", "group"], columns="split", values=["delta_b", "control_delta_b"])
    gap = (wide.xs("unharmful", axis=1, level="split") - wide.xs("harmful", axis=1, level="split")).unstack("group")
    return gap["delta_b"].to_numpy(float), gap["control_delta_b"].mean(axis=1).to_numpy(float)


def gap_share(delta_gaps: np.ndarray, control_gaps: np.ndarray) -> np.ndarray:
    """The group-free control's share of the unharmful − harmful gap in mean ΔB (Appendix E.5's two fine-tunes, ΔB of
    Eq. 7; not in the paper): its mean gap over seeds over ΔB's mean gap over seeds and groups (``delta_gaps`` …,
    seeds × groups; ``control_gaps`` …, seeds: a leading axis gives one share per draw). 1 when the two fine-tunes
    move the sentences naming no group as they move the groups', 0 when the gap is the groups' own."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(control_gaps, float).mean(axis=-1) / np.asarray(delta_gaps, float).mean(axis=(-2, -1))
