"""Paper 001's Table 1: ΔB against ΔBiasScore per benchmark × model family × fine-tuning regime.

Table 1 (Sec. 4.2–4.4) reports, for WildGuardMix, DecodingTrust and ToxiGen × Mistral, Llama, Gemma
under full fine-tuning and LoRA, the pooled Pearson r of ΔB with ΔBiasScore over checkpoints × groups
(stars for its two-tailed p), the ROC AUC of a threshold on ΔB for "ΔBiasScore > 0.1" and the MAE of a
linear fit (mean over 1,000 bootstrap resamples). The text reads it as "negative and statistically
significant for all three families under full fine-tuning" (Sec. 4.2) and significant for Mistral and
Llama but not Gemma under LoRA on WildGuardMix and DecodingTrust (Sec. 4.2–4.3).

:func:`table1` computes each row with :func:`lib.bias_shift.evaluation.evaluate` (RR only): the paper's
pooled p beside the p from permuting whole checkpoints, since the pairs of one checkpoint share its
weights. :func:`significant_count` gives "significant in k of N settings". :func:`read_external_pairs`
reads the pairs of the original pipelines for the paper profile. :data:`PAPER_TABLE1` is the paper's
Table 1 transcribed from its text.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from lib.bias_shift import evaluation

#: One Table 1 row: its benchmark (an offline scorer, or the paper's benchmark name), family and regime.
SETTING: tuple[str, ...] = ("benchmark", "family", "regime")
#: The columns of a pairs table (one row per setting × checkpoint × group).
PAIR_COLUMNS: tuple[str, ...] = (*SETTING, "checkpoint", "group", "delta_b", "delta_bias_score")
REGIMES: tuple[str, ...] = ("lora", "full")
#: The p-values a row can be called significant by: the paper's pooled one, or the checkpoint permutation's.
P_COLUMNS: tuple[str, ...] = ("p_pooled", "p_checkpoints")

#: Paper 001, Table 1, as printed: (family, benchmark, regime) → Pearson r, its stars (*** p < 0.001,
#: ** p < 0.01, * p < 0.05, 0 none; the usual reading — the legend was not in the text), ROC AUC, MAE.
PAPER_TABLE1: dict[tuple[str, str, str], dict[str, float]] = {
    ("Mistral", "WildGuardMix", "full"): {"r": -0.67, "stars": 3, "auc": 0.93, "mae": 0.12},
    ("Mistral", "WildGuardMix", "lora"): {"r": -0.61, "stars": 3, "auc": 0.78, "mae": 0.12},
    ("Llama", "WildGuardMix", "full"): {"r": -0.68, "stars": 3, "auc": 0.89, "mae": 0.12},
    ("Llama", "WildGuardMix", "lora"): {"r": -0.65, "stars": 3, "auc": 0.92, "mae": 0.11},
    ("Gemma", "WildGuardMix", "full"): {"r": -0.37, "stars": 2, "auc": 0.78, "mae": 0.17},
    ("Gemma", "WildGuardMix", "lora"): {"r": -0.04, "stars": 0, "auc": 0.77, "mae": 0.16},
    ("Mistral", "DecodingTrust", "full"): {"r": -0.82, "stars": 3, "auc": 0.75, "mae": 0.08},
    ("Mistral", "DecodingTrust", "lora"): {"r": -0.77, "stars": 3, "auc": 0.99, "mae": 0.07},
    ("Llama", "DecodingTrust", "full"): {"r": -0.84, "stars": 3, "auc": 0.91, "mae": 0.11},
    ("Llama", "DecodingTrust", "lora"): {"r": -0.75, "stars": 3, "auc": 0.92, "mae": 0.07},
    ("Gemma", "DecodingTrust", "full"): {"r": -0.34, "stars": 3, "auc": 0.76, "mae": 0.14},
    ("Gemma", "DecodingTrust", "lora"): {"r": -0.14, "stars": 0, "auc": 0.65, "mae": 0.07},
    ("Mistral", "ToxiGen", "full"): {"r": -0.19, "stars": 0, "auc": 0.78, "mae": 0.058},
    ("Mistral", "ToxiGen", "lora"): {"r": -0.43, "stars": 3, "auc": 0.86, "mae": 0.045},
    ("Llama", "ToxiGen", "full"): {"r": -0.62, "stars": 3, "auc": 0.91, "mae": 0.013},
    ("Llama", "ToxiGen", "lora"): {"r": -0.50, "stars": 3, "auc": 0.74, "mae": 0.018},
    ("Gemma", "ToxiGen", "full"): {"r": -0.31, "stars": 1, "auc": 0.69, "mae": 0.023},
    ("Gemma", "ToxiGen", "lora"): {"r": -0.25, "stars": 1, "auc": 0.69, "mae": 0.032},
}


def paper_table1() -> pd.DataFrame:
    """:data:`PAPER_TABLE1` as a frame: benchmark, family, regime, pearson_r, stars, roc_auc, mae, significant
    (at least one star: p < 0.05, all with r < 0), in the paper's row order."""
    return pd.DataFrame([{"benchmark": b, "family": f, "regime": g, "pearson_r": v["r"], "stars": int(v["stars"]),
                          "roc_auc": v["auc"], "mae": v["mae"], "significant": v["stars"] > 0 and v["r"] < 0}
                         for (f, b, g), v in PAPER_TABLE1.items()])


def _check_pairs(pairs: pd.DataFrame) -> None:
    missing = [c for c in PAIR_COLUMNS if c not in pairs]
    if missing:
        raise ValueError(f"pairs lacks the columns {missing}; allowed: a frame with {', '.join(PAIR_COLUMNS)}")


def table1(pairs: pd.DataFrame, *, label_threshold: float = 0.1, n_bootstrap: int = 1000, seed: int = 0,
           n_permutations: int = 5040, alpha: float = 0.05, p: str = "p_checkpoints") -> pd.DataFrame:
    """One row per benchmark × family × regime of ``pairs`` (columns :data:`PAIR_COLUMNS`), sorted by them.

    Per row, from :func:`lib.bias_shift.evaluation.evaluate` on ΔB (RR): ``pearson_r``, ``p_pooled`` (the
    paper's two-tailed p, pairs taken as independent), ``p_checkpoints`` (whole-checkpoint permutations),
    ``roc_auc`` (of −ΔB against ΔBiasScore > ``label_threshold``), ``mae`` (bootstrap mean of a linear
    fit's MAE), ``n_pairs``, ``n_checkpoints``; ``significant``: ``p`` (a column of :data:`P_COLUMNS`,
    named in ``significance_p``) below ``alpha`` and r < 0, the paper's direction. The rows do not depend
    on the order of ``pairs``' rows.
    """
    _check_pairs(pairs)
    if p not in P_COLUMNS:
        raise ValueError(f"p={p!r} is not allowed; allowed: {', '.join(P_COLUMNS)}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha={alpha!r} is not allowed; allowed: 0 < alpha < 1")
    rows = []
    for key, frame in pairs.groupby(list(SETTING), sort=True):
        row = evaluation.evaluate(frame[["checkpoint", "group", "delta_b", "delta_bias_score"]], label_threshold,
                                  n_bootstrap, seed, n_permutations=n_permutations, methods=["delta_b"]).iloc[0]
        rows.append({**dict(zip(SETTING, key, strict=True)),
                     **{c: row[c] for c in ("pearson_r", "p_pooled", "p_checkpoints", "roc_auc", "mae", "n_pairs",
                                            "n_checkpoints")}})
    table = pd.DataFrame(rows)
    return table.assign(significant=(table[p] < alpha) & (table.pearson_r < 0), significance_p=p)


def significant_count(table: pd.DataFrame) -> tuple[int, int]:
    """(k, N): ``table``'s rows (:func:`table1`, or :func:`paper_table1`) significant, and its rows."""
    if "significant" not in table:
        raise ValueError("table lacks the column 'significant'; allowed: a table1() or paper_table1() frame")
    return int(table.significant.sum()), len(table)


def read_external_pairs(path: str | Path) -> pd.DataFrame:
    """The (ΔB, ΔBiasScore) pairs of the original pipelines, for the paper profile's Table 1.

    A CSV with a header holding the columns :data:`PAIR_COLUMNS` (others are ignored): ``family`` (the
    reference model), ``regime`` (lora or full), ``benchmark`` (WildGuardMix, DecodingTrust, ToxiGen, …),
    ``checkpoint``, ``group`` (or topic), ``delta_b`` and ``delta_bias_score`` finite numbers; one row per
    setting × checkpoint × group, at least 2 checkpoints per setting. A problem raises a ValueError
    naming the file, the column and the value.
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"table1_csv={str(path)!r} is not a file")
    text = [*SETTING, "checkpoint", "group"]
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)  # every cell as written, to name a bad one
    missing = [c for c in PAIR_COLUMNS if c not in frame]
    if missing:
        raise ValueError(f"{path} lacks the columns {missing}; allowed: a header with {', '.join(PAIR_COLUMNS)} "
                         f"(found: {list(frame.columns)})")
    frame = frame[list(PAIR_COLUMNS)]
    for column in text:
        blank = frame[column].str.strip() == ""
        if blank.any():
            raise ValueError(f"{path}: column {column!r} is empty in data row {int(blank.idxmax()) + 1}")
    bad = ~frame.regime.isin(REGIMES)
    if bad.any():
        raise ValueError(f"{path}: column 'regime' holds {frame.regime[bad].iloc[0]!r} in data row "
                         f"{int(bad.idxmax()) + 1}; allowed: {', '.join(REGIMES)}")
    for column in ("delta_b", "delta_bias_score"):
        values = pd.to_numeric(frame[column], errors="coerce")
        bad = ~values.map(lambda v: pd.notna(v) and math.isfinite(v))
        if bad.any():
            raise ValueError(f"{path}: column {column!r} holds {frame[column][bad].iloc[0]!r} in data row "
                             f"{int(bad.idxmax()) + 1}; allowed: a finite number")
        frame[column] = values.astype(float)
    duplicated = frame.duplicated([*SETTING, "checkpoint", "group"])
    if duplicated.any():
        row = frame[duplicated].iloc[0]
        raise ValueError(f"{path}: (benchmark, family, regime, checkpoint, group) = "
                         f"{tuple(row[c] for c in (*SETTING, 'checkpoint', 'group'))} appears more than once")
    checkpoints = frame.groupby(list(SETTING)).checkpoint.unique()
    for key, names in checkpoints.items():
        if len(names) < 2:
            raise ValueError(f"{path}: column 'checkpoint' holds only {list(names)} for (benchmark, family, regime) = "
                             f"{key}; allowed: at least 2 checkpoints per setting")
    return frame.reset_index(drop=True)


def printed(paper: pd.DataFrame, benchmark: str, regime: str, column: str, stars: bool = False) -> str:
    """The paper's Table 1 values of one benchmark × regime (rows of :func:`paper_table1`), family by family, as
    printed, with their significance stars when ``stars``."""
    rows = paper[(paper.benchmark == benchmark) & (paper.regime == regime)]
    return ", ".join(f"{row.family} {row[column]:g}" + "*" * int(row.stars) * stars for _, row in rows.iterrows())


def paper_median(benchmark: str, regime: str, column: str = "pearson_r") -> float:
    """The median over the paper's three families of one Table 1 ``column`` (``pearson_r``, ``roc_auc``, ``mae``)
    for ``benchmark`` × ``regime``: the value a claim's power takes "if the paper is right" for a family that
    is none of its three."""
    paper = paper_table1()
    rows = paper[(paper.benchmark == benchmark) & (paper.regime == regime)]
    if rows.empty:
        raise ValueError(f"Table 1 has no {benchmark} × {regime} rows; allowed: benchmarks "
                         f"{sorted(set(paper.benchmark))}, regimes {list(REGIMES)}")
    return float(rows[column].median())
