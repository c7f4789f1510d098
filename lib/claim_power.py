"""The power of a claim's test: how often it holds if the paper is right, and how often if its null is.

A claim's test (:mod:`lib.claims`) is evidence only when it can go both ways at this run's scale. Its power is
the pair ``(if_paper, if_null)``: the share of draws of the claim's statistic on which the test holds when the
paper's value is the truth, and when the named null is (chance, no association, independent orders, zero shift,
…). The test is *decisive* when ``if_paper ≥ 0.8`` and ``if_null ≤ 0.2`` (:data:`DECISIVE_IF_PAPER`,
:data:`DECISIVE_IF_NULL`); otherwise its outcome is "not measured, no power at this scale".

One function computes it, :func:`power`, from draws of the statistic under each hypothesis. The draws come from
the logged standard error (:func:`normal_draws`), from resampling the run's own seeds or splits (the notebook
draws them), or from simulating the statistic at this run's size (:func:`spearman_draws` and
:func:`independent_spearman_draws` for a rank correlation on a few tasks). A test with no random element
(an identity, a closed form evaluated exactly) has :class:`Exact` power: it says why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike

#: A test is decisive when it holds this often if the paper is right …
DECISIVE_IF_PAPER = 0.8
#: … and at most this often if its null is.
DECISIVE_IF_NULL = 0.2
#: Draws per hypothesis when the core draws them itself (:func:`normal_draws`).
DRAWS = 4000


class Test(Protocol):
    """What :func:`power` needs of a comparison (:class:`lib.claims.Range`, ``Point``, ``Bound``)."""

    def check(self, measured: float) -> tuple[str, str]: ...


@dataclass(frozen=True)
class Power:
    """The test's power at this run's scale: the share of draws on which it holds if the paper is right
    (``if_paper``) and if the null named in ``null`` is."""

    if_paper: float
    if_null: float
    null: str

    @property
    def decisive(self) -> bool:
        """Whether the test can both hold if the paper is right and fail if the null is."""
        return self.if_paper >= DECISIVE_IF_PAPER and self.if_null <= DECISIVE_IF_NULL

    def record(self) -> dict[str, Any]:
        """The logged form: ``{"if_paper": p1, "if_null": p0, "null": "<the null in words>"}``."""
        return {"if_paper": round(self.if_paper, 4), "if_null": round(self.if_null, 4), "null": self.null}

    def describe(self) -> str:
        """"holds 93% if the paper is right, 4% if <null>"."""
        return f"holds {self.if_paper:.0%} if the paper is right, {self.if_null:.0%} if {self.null}"


@dataclass(frozen=True)
class Exact:
    """A test with no random element: the value is computed exactly, so it holds or fails with certainty."""

    why: str

    decisive = True

    def record(self) -> dict[str, Any]:
        """The logged form: ``{"exact": "<why>"}``."""
        return {"exact": self.why}

    def describe(self) -> str:
        return f"exact: {self.why}"


def _holding_share(test: Test, draws: ArrayLike) -> float:
    values = np.asarray(draws, dtype=float).ravel()
    values = values[np.isfinite(values)]
    if not len(values):
        return math.nan
    return float(np.mean([test.check(float(v))[0] == "holds" for v in values]))


def power(test: Test, if_paper: ArrayLike, if_null: ArrayLike, null: str) -> Power:
    """The share of ``if_paper`` draws and of ``if_null`` draws of the statistic on which ``test`` holds.

    Non-finite draws (a resample on which the statistic is undefined) are left out; with none left the share is
    NaN, which is not decisive.
    """
    if not null.strip():
        raise ValueError("a power needs its null in words (chance, no association, zero shift, …)")
    return Power(_holding_share(test, if_paper), _holding_share(test, if_null), null.strip())


def normal_draws(centre: float, se: float, *, support: tuple[float, float] = (-math.inf, math.inf),
                 n: int = DRAWS, seed: int = 0) -> np.ndarray:
    """``n`` draws of a statistic with standard error ``se`` around ``centre``, clipped to its ``support``: its
    sampling distribution in the normal approximation, as the logged s.e. gives it."""
    rng = np.random.default_rng(seed)
    return np.clip(centre + se * rng.standard_normal(n), *support)


def _spearman_rows(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Spearman's ρ between ``first`` and each row of ``second`` (ties averaged, as scipy ranks them)."""
    from scipy import stats  # here, not at the top: every notebook and `python -m lib` imports this module

    a = stats.rankdata(first)
    b = stats.rankdata(second, axis=1)
    a, b = a - a.mean(), b - b.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (b @ a) / (np.sqrt((a**2).sum()) * np.sqrt((b**2).sum(axis=1)))


def spearman_draws(reference: ArrayLike, truth: ArrayLike, se: ArrayLike, *, n: int = DRAWS,
                   seed: int = 0) -> np.ndarray:
    """Spearman's ρ between ``reference`` (an order the paper gives, or the run's own) and ``truth`` measured with
    standard errors ``se`` (one per item, or one for all): the rank correlation a run of this size would report
    if the items' true values were ``truth``."""
    truth = np.asarray(truth, dtype=float)
    noise = np.broadcast_to(np.asarray(se, dtype=float), truth.shape)
    rng = np.random.default_rng(seed)
    measured = truth + noise * rng.standard_normal((n, len(truth)))
    return _spearman_rows(np.asarray(reference, dtype=float), measured)


def independent_spearman_draws(n_items: int, *, n: int = DRAWS, seed: int = 0) -> np.ndarray:
    """Spearman's ρ between a fixed order and a random permutation of ``n_items``: its distribution when the two
    orders are independent (the null of a rank correlation on a few tasks)."""
    if n_items < 2:
        raise ValueError(f"n_items={n_items} is below 2: a rank correlation needs two items")
    rng = np.random.default_rng(seed)
    orders = np.argsort(rng.random((n, n_items)), axis=1).astype(float)
    return _spearman_rows(np.arange(n_items, dtype=float), orders)
