"""Feature correspondence across models: the matching score, its label-matched null, pass rates.

Paper 002, App. A.2.4 ("Estimator", "Null", "Aggregation", "Degenerate comparisons") and Lemma 3.
For a model pair (A, B) and a class decision with labels y on n shared test inputs, X^A (n × k_A)
and X^B (n × k_B) hold the SAE features each model selected (its support, App. A.1.10).

- Within-class profiles (Eq. 31, lost; re-derived from the prose and the proof of Lemma 3): remove
  each feature's mean within each class, then divide by the standard deviation of the centred column
  over all n inputs (denominator n); a zero s.d. is replaced by one, so a column constant within
  each class stays at zero. A non-constant column then has ‖P_:j‖² = n.
- R_ij = |P^A_:iᵀ P^B_:j| / n, an absolute Pearson correlation (≤ 1 by Cauchy–Schwarz).
- Matching score (Eq. 32, lost; re-derived): T = (1/q)·max over one-to-one matchings of q = min(k_A, k_B)
  columns of Σ R_ij, solved exactly by ``scipy.optimize.linear_sum_assignment``. Whether the paper
  sums or averages the q matched correlations was lost; the mean is used (T ∈ [0, 1]). The null
  keeps q fixed, so the exceedance and z do not depend on this choice. With q = 1 T is the largest
  single |correlation|, as the paper states.
- Null: for each selected feature j of B, λ_j = |corr(X^B_:j, y)|; the candidate list N_j holds the 50
  non-constant, unselected features of B whose label correlations are closest to λ_j (ties: lower
  feature index first, a choice; fewer than 50 when B has fewer such features). Each of 1,000 draws
  samples one replacement per list uniformly and independently (a collection with multiplicity) and
  recomputes T with A's profiles unchanged. Pass: T > Q₀.₉₉ (empirical quantile, linear
  interpolation, strict); z = (T − mean)/sd of the null draws (sd with ddof 1, a choice: the
  equation was lost).
- B, the side that supplies replacements, is the later model in the model list; each (pair,
  decision) gets its own seed derived from the names (:func:`comparison_rng`), so adding a model never
  changes the draws of existing pairs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from lib import uncertainty

N_DRAWS = 1000  #: null draws per test (A.2.4)
N_NEAREST = 50  #: candidates per selected feature, nearest in label correlation (A.2.4)
QUANTILE = 0.99  #: the exceedance quantile (A.2.4); the nominal pass rate is 1 − QUANTILE
NOMINAL_RATE = 1 - QUANTILE  #: the pass rate under the null (A.2.4, "Null prediction")
#: A.2.4, "Result by task": (pass rate, tests) of intent classification, language identification, tool selection
PAPER_TASK_RATES = {"intent": (0.562, 447), "language": (0.489, 280), "tool selection": (0.343, 105)}
#: The span of the paper's per-task pass rates (Sec. 5, statement 4: "34.3 to 56.2%")
PAPER_RATE_SPAN = (0.343, 0.562)
Z_CAP = 10.0  #: |z| above this is clipped before a median over tests (:func:`median_z`)
_REL_TOL = 1e-12  # a centred column whose s.d. is below this times its scale counts as constant (rounding)


def _matrix(X, name: str) -> np.ndarray:
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"{name} must be a two-dimensional (inputs × features) matrix; got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} holds non-finite entries")
    return X


def _binary(y, n: int) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or y.size != n:
        raise ValueError(f"y must be one label per input ({n}); got shape {y.shape}")
    if not set(np.unique(y).tolist()) <= {0, 1}:
        raise ValueError(f"y holds {sorted(set(np.unique(y).tolist()))!r}; allowed: 0 and 1")
    return y.astype(bool)


def profiles(X, y) -> np.ndarray:
    """Within-class centred, scaled profiles P (paper 002, A.2.4, Eq. 31; re-derived): (n × k) float64.

    Each column minus its mean within each class, divided by the s.d. of the centred column over all n
    inputs (denominator n); s.d. 0 → 1, so a column constant within each class is all zeros (a centred
    s.d. below 1e-12 of the column's scale is rounding and counts as zero — a choice).
    """
    X = _matrix(X, "X")
    y = _binary(y, X.shape[0])
    P = X.copy()
    for cls in (False, True):
        rows = y == cls
        if rows.any():
            P[rows] -= X[rows].mean(axis=0)
    sd = P.std(axis=0)
    scale = np.abs(X).max(axis=0, initial=0.0)
    flat = sd <= _REL_TOL * np.maximum(scale, 1.0)
    P[:, flat] = 0.0
    sd[flat] = 1.0
    return P / sd


def correlations(PA: np.ndarray, PB: np.ndarray) -> np.ndarray:
    """R = |P^Aᵀ P^B| / n: absolute within-class correlations of the profile columns (k_A × k_B)."""
    return np.abs(PA.T @ PB) / PA.shape[0]


def matched_mean(R: np.ndarray) -> float:
    """(1/q)·max over one-to-one matchings of Σ R_ij, q = min(k_A, k_B) (Eq. 32; Hungarian, exact)."""
    if min(R.shape) == 0:
        raise ValueError(f"the correlation matrix has shape {R.shape}; q = min(k_A, k_B) must be >= 1")
    if min(R.shape) == 1:
        return float(R.max())
    rows, cols = linear_sum_assignment(R, maximize=True)
    return float(R[rows, cols].mean())


def match_score(XA, XB, y) -> float:
    """T(A, B; c): the matching score of two selected feature sets on shared inputs (paper 002, A.2.4, Eq. 32).

    Invariant under class-constant shifts and per-feature rescaling or sign flips, bounded by 1 and
    symmetric in (A, B) (Lemma 3).
    """
    XA, XB = _matrix(XA, "XA"), _matrix(XB, "XB")
    if XA.shape[0] != XB.shape[0]:
        raise ValueError(f"XA has {XA.shape[0]} inputs but XB has {XB.shape[0]}; the inputs must be shared")
    if min(XA.shape[1], XB.shape[1]) == 0:
        raise ValueError(f"q = min(k_A, k_B) = 0 (shapes {XA.shape}, {XB.shape}); both supports must be non-empty")
    return matched_mean(correlations(profiles(XA, y), profiles(XB, y)))


def label_correlations(X, y) -> np.ndarray:
    """|point-biserial correlation| of each column with y; NaN for a constant column."""
    X = _matrix(X, "X")
    y = _binary(y, X.shape[0]).astype(np.float64)
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    denom = np.sqrt((Xc**2).sum(axis=0) * (yc**2).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(X.max(axis=0) > X.min(axis=0), np.abs(Xc.T @ yc) / denom, np.nan)


def candidate_lists(XB_all, y, support_B: Sequence[int], n_nearest: int = N_NEAREST) -> np.ndarray:
    """N_j for every selected feature j of B: (k_B × m) feature indices, m = min(n_nearest, available).

    The non-constant, unselected features of B whose |label correlation| is nearest to λ_j (A.2.4, "Null").
    """
    XB_all = _matrix(XB_all, "XB_all")
    support = np.asarray(support_B, dtype=int)
    if support.ndim != 1 or support.size == 0 or support.min() < 0 or support.max() >= XB_all.shape[1]:
        raise ValueError(f"support_B={list(support_B)!r}; allowed: a non-empty set of feature indices "
                         f"0..{XB_all.shape[1] - 1}")
    if n_nearest < 1:
        raise ValueError(f"n_nearest={n_nearest!r}; allowed: >= 1")
    lam = label_correlations(XB_all, y)
    pool = np.setdiff1d(np.flatnonzero(~np.isnan(lam)), support)
    if pool.size == 0:
        raise ValueError("model B has no non-constant unselected feature to draw the null from")
    target = np.nan_to_num(lam[support], nan=0.0)  # a selected constant column: λ = 0 (it scores 0 anyway)
    distance = np.abs(lam[pool][None, :] - target[:, None])
    nearest = np.argsort(distance, axis=1, kind="stable")[:, : min(n_nearest, pool.size)]
    return pool[nearest]


@dataclass(frozen=True)
class NullTest:
    """One correspondence test: the observed score, its null summary and the verdict (A.2.4, Eq. 33)."""

    score: float
    null_mean: float
    null_sd: float
    q99: float
    passed: bool
    z: float
    q: int
    k_a: int
    k_b: int
    n_candidates: int


def _draws(lists: np.ndarray, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """(n_draws × k_B) replacement features: one uniform pick per list per draw."""
    picks = rng.integers(0, lists.shape[1], size=(n_draws, lists.shape[0]))
    return lists[np.arange(lists.shape[0])[None, :], picks]


def _summary(score: float, null: np.ndarray, quantile: float, k_a: int, k_b: int, m: int) -> NullTest:
    q99 = float(np.quantile(null, quantile))  # linear interpolation (numpy's default)
    sd = float(null.std(ddof=1))
    z = (score - float(null.mean())) / sd if sd > 0 else (np.inf if score > null.mean() else 0.0)
    return NullTest(score, float(null.mean()), sd, q99, bool(score > q99), float(z), min(k_a, k_b), k_a, k_b, m)


def label_matched_null(XA, XB_all, support_B: Sequence[int], y, *, n_draws: int = N_DRAWS,
                       n_nearest: int = N_NEAREST, quantile: float = QUANTILE,
                       seed: int | np.random.Generator = 0) -> NullTest:
    """The label-matched null test of one comparison (paper 002, A.2.4, "Null", Eq. 33).

    ``XA``: A's selected features (n × k_A); ``XB_all``: every feature of B on the same inputs
    (n × d_B); ``support_B``: B's selected feature indices. Vectorised: every candidate's profile and
    its correlations with A's profiles are computed once, each draw gathers its k_A × k_B block and
    solves one assignment (q = 1: a maximum, no assignment).
    """
    if n_draws < 2:
        raise ValueError(f"n_draws={n_draws!r}; allowed: >= 2")
    if not 0.0 < quantile < 1.0:
        raise ValueError(f"quantile={quantile!r}; allowed: (0, 1)")
    XA, XB_all = _matrix(XA, "XA"), _matrix(XB_all, "XB_all")
    if XA.shape[0] != XB_all.shape[0]:
        raise ValueError(f"XA has {XA.shape[0]} inputs but XB_all has {XB_all.shape[0]}; the inputs must be shared")
    if XA.shape[1] == 0:
        raise ValueError("XA has no columns: q = 0, nothing to match")
    lists = candidate_lists(XB_all, y, support_B, n_nearest)
    support = np.asarray(support_B, dtype=int)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    drawn = _draws(lists, n_draws, rng)
    used, inverse = np.unique(np.concatenate([support, drawn.ravel()]), return_inverse=True)
    PA = profiles(XA, y)
    R_all = correlations(PA, profiles(XB_all[:, used], y))  # k_A × (distinct features used)
    observed = R_all[:, inverse[: support.size]]
    blocks = R_all[:, inverse[support.size:].reshape(n_draws, -1)]  # k_A × n_draws × k_B
    if min(XA.shape[1], support.size) == 1:
        null = blocks.max(axis=(0, 2))
    else:
        null = np.array([matched_mean(blocks[:, b, :]) for b in range(n_draws)])
    return _summary(matched_mean(observed), null, quantile, XA.shape[1], support.size, lists.shape[1])


def label_matched_null_loop(XA, XB_all, support_B: Sequence[int], y, *, n_draws: int = N_DRAWS,
                            n_nearest: int = N_NEAREST, quantile: float = QUANTILE,
                            seed: int | np.random.Generator = 0) -> NullTest:
    """The same test as :func:`label_matched_null` written as the direct loop (one :func:`match_score`
    per draw, same draws): the reference for the tests and the benchmark baseline."""
    XA, XB_all = _matrix(XA, "XA"), _matrix(XB_all, "XB_all")
    lists = candidate_lists(XB_all, y, support_B, n_nearest)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    drawn = _draws(lists, n_draws, rng)
    null = np.array([match_score(XA, XB_all[:, cols], y) for cols in drawn])
    support = list(support_B)
    return _summary(match_score(XA, XB_all[:, support], y), null, quantile, XA.shape[1], len(support), lists.shape[1])


def comparison_rng(seed: int, model_a: str, model_b: str, task: str, decision: str) -> np.random.Generator:
    """The generator of one (pair, decision): seeded by ``seed`` and a hash of the names (A.2.4, "Aggregation"),
    so adding a model or a decision never changes another test's draws."""
    digest = hashlib.sha256("\0".join((model_a, model_b, task, decision)).encode()).digest()
    return np.random.default_rng([int(seed), int.from_bytes(digest[:8], "little")])


_TEST_COLUMNS = ["task", "model_a", "model_b", "decision", "k_a", "k_b", "q", "status", "score", "null_mean",
                 "null_sd", "q99", "passed", "z", "n_candidates"]


def correspondence_tests(task: str, models: Sequence[str], supports: Mapping[tuple[str, str], Sequence[int] | None],
                         codes: Mapping[str, object], labels: Mapping[str, np.ndarray], *, seed: int = 0,
                         n_draws: int = N_DRAWS, n_nearest: int = N_NEAREST) -> pd.DataFrame:
    """Every eligible comparison of one task: each model pair (A before B in ``models``) × class decision.

    ``supports[(model, decision)]``: the decision's support in that model (feature indices; None or
    missing: no qualifying support); ``codes[model]``: every SAE feature of that model on the task's
    shared test inputs (n × d_sae, dense or scipy sparse); ``labels[decision]``: the test labels.
    One row per (pair, decision) that both models hold a support for: ``status`` "tested" (with the
    :class:`NullTest` fields) or "q=0" (an empty support: skipped, counted). B supplies the replacements.
    """
    rows = []
    dense = {m: _matrix(codes[m], f"codes[{m!r}]") for m in models}
    for i, model_a in enumerate(models):
        for model_b in models[i + 1:]:
            for decision, y in labels.items():
                sa, sb = supports.get((model_a, decision)), supports.get((model_b, decision))
                if sa is None or sb is None:
                    continue
                row = {"task": task, "model_a": model_a, "model_b": model_b, "decision": decision,
                       "k_a": len(sa), "k_b": len(sb), "q": min(len(sa), len(sb))}
                if row["q"] == 0:
                    rows.append({**row, "status": "q=0"})
                    continue
                result = label_matched_null(dense[model_a][:, list(sa)], dense[model_b], list(sb), y,
                                            n_draws=n_draws, n_nearest=n_nearest,
                                            seed=comparison_rng(seed, model_a, model_b, task, decision))
                rows.append({**row, **asdict(result), "status": "tested"})
    return pd.DataFrame(rows, columns=_TEST_COLUMNS)


def pass_rates(tests: pd.DataFrame) -> pd.DataFrame:
    """Per task and q-split ("all", "q=1", "q>1"): the pooled pass rate (every test weighs equally), the median
    over pairs of the pair-level rates (every pair weighs equally), the median z, tests, pairs, and the
    skipped q = 0 comparisons (A.2.4, "Aggregation", "Degenerate comparisons")."""
    rows = []
    for task, cell in tests.groupby("task", sort=False):
        tested = cell[cell.status == "tested"].astype({"passed": bool, "z": float})
        for split, part in (("all", tested), ("q=1", tested[tested.q == 1]), ("q>1", tested[tested.q > 1])):
            pair_rates = part.groupby(["model_a", "model_b"]).passed.mean()
            rows.append({"task": task, "split": split, "tests": len(part), "passed": int(part.passed.sum()),
                         "pooled_rate": part.passed.mean() if len(part) else np.nan,
                         "median_pair_rate": pair_rates.median() if len(part) else np.nan,
                         "pairs": len(pair_rates), "median_z": part.z.median() if len(part) else np.nan,
                         "share_z_positive": (part.z > 0).mean() if len(part) else np.nan,
                         "skipped_q0": int((cell.status == "q=0").sum())})
    return pd.DataFrame(rows)


def paper_pooled_rate() -> float:
    """The paper's pooled pass rate over its 832 tests, from its three per-task rates and test counts (A.2.4)."""
    passed = sum(rate * tests for rate, tests in PAPER_TASK_RATES.values())
    return passed / sum(tests for _, tests in PAPER_TASK_RATES.values())


def median_z(z) -> tuple[float, float]:
    """(median, s.e. of the median from the spread) of the tests' z, each clipped to ±``Z_CAP``: a null whose
    draws all coincide has s.d. 0 and an infinite or rounding-sized z (:func:`_summary`), and a clipped value
    changes the median only when more than half the tests exceed the cap. NaN without a test; s.e. NaN below two."""
    values = np.clip(np.asarray(z, dtype=float), -Z_CAP, Z_CAP)
    values = values[np.isfinite(values)]
    if not len(values):
        return float("nan"), float("nan")
    return float(np.median(values)), uncertainty.median_se(values)
