"""The power of a claim's test: how often it holds if the paper is right, and how often under each null.

A claim's test (:mod:`lib.claims`) is evidence only when its outcome would be unusual under the alternative: a
hold that the nulls would rarely produce, a fail that the paper, if right, would rarely produce. Its power is the
share of draws of the claim's statistic on which the test holds when the paper's value is the truth (``p1``) and
when each named null is (``p0``: chance, no association, independent orders, a shared drift, …); whether the
outcome is decisive is :func:`lib.verdict.decide`'s, the one place the thresholds live.

One function computes it, :func:`power`, from draws of the statistic under each hypothesis. The draws come from
the logged standard error (:func:`normal_draws`), from resampling the run's own seeds or splits (the notebook
draws them), or from simulating the statistic at this run's size (:func:`spearman_draws` and
:func:`independent_spearman_draws` for a rank correlation on a few tasks). Draws passed as a function of the
number wanted (``f(n) -> draws``) are drawn again, four times as many, while a share lies within two Monte Carlo
s.e. of a threshold. Draws that are all equal under a hypothesis may assert its share rather than estimate it:
an outcome that rests on such a share is not decisive (:meth:`Power.asserted`). A test with no random element
(an identity, a closed form evaluated exactly) has :class:`Exact` power: it says why.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike

from lib import verdict

#: Draws per hypothesis when they are drawn on demand (:func:`normal_draws`, or draws passed as a function).
DRAWS = 4000
#: The most draws a borderline share is drawn again with.
MAX_DRAWS = 64000
#: The paper's hypothesis, as the logged spreads name it.
PAPER = "paper"

Draws = ArrayLike | Callable[[int], ArrayLike]


class Test(Protocol):
    """What :func:`power` needs of a comparison (:class:`lib.claims.Range`, ``Point``, ``Bound``)."""

    def check(self, measured: float) -> tuple[str, str]: ...


@dataclass(frozen=True)
class Power:
    """The test's power at this run's scale: the share of draws on which it holds if the paper is right
    (``paper``) and under each null (``nulls``, by the null in words), with the mean and s.d. of each
    hypothesis's draws (``spread``, for the planner) and the hypotheses whose draws were all equal
    (``constant``)."""

    paper: verdict.Share
    nulls: Mapping[str, verdict.Share]
    spread: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    constant: tuple[str, ...] = ()

    @property
    def if_paper(self) -> float:
        return self.paper.value

    @property
    def if_null(self) -> float:
        """The largest share over the nulls (the one a hold must beat)."""
        return max(share.value for share in self.nulls.values())

    @property
    def null(self) -> str:
        """The null with the largest share, in words."""
        return max(self.nulls, key=lambda n: self.nulls[n].value)

    @property
    def mc_se(self) -> float:
        """The largest Monte Carlo s.e. of the shares."""
        return max(s.mc_se for s in (self.paper, *self.nulls.values()))

    def asserted(self, side: str) -> tuple[str, ...]:
        """The hypotheses whose constant draws the outcome ``side`` rests on: a hold on the nulls' shares (a null
        asserted never to hold would make any hold look decisive), a fail on the paper's (a paper asserted always
        to hold would make any fail look decisive). A simulation that lands on one value under the other
        hypothesis (ρ = 1 on a well-separated order, a permutation p at its floor) only sharpens the ratio."""
        return tuple(h for h in self.constant if (h == PAPER) == (side == verdict.FAIL))

    def decision(self, side: str) -> verdict.Decision:
        """:func:`lib.verdict.decide` for the outcome ``side``; never decisive when the shares it rests on are
        asserted (:meth:`asserted`)."""
        found = verdict.decide(side, self.if_paper, {n: s.value for n, s in self.nulls.items()})
        return found if not self.asserted(side) else verdict.Decision(side, False, found.ratio, found.against)

    def record(self, side: str | None = None) -> dict[str, Any]:
        """The logged form: ``{"if_paper": p1, "if_null": p0, "null": "<the null in words>", "nulls": {…},
        "draws": N, "mc_se": s}``, with the outcome's ``lr`` and ``decisive`` when ``side`` is given."""
        found: dict[str, Any] = {"if_paper": round(self.if_paper, 4), "if_null": round(self.if_null, 4),
                                 "null": self.null, "draws": min(s.draws for s in (self.paper, *self.nulls.values())),
                                 "mc_se": round(self.mc_se, 4)}
        if len(self.nulls) > 1:
            found["nulls"] = {n: round(s.value, 4) for n, s in self.nulls.items()}
        if self.spread:
            found["spread"] = {h: [float(f"{m:.6g}"), float(f"{s:.6g}")] for h, (m, s) in self.spread.items()}
        if self.constant:
            found["constant"] = list(self.constant)
        if side is not None:
            decision = self.decision(side)
            found["lr"] = None if not math.isfinite(decision.ratio) else float(f"{decision.ratio:.4g}")
            found["decisive"] = decision.decisive
        return found

    def describe(self) -> str:
        """"holds 93% if the paper is right, 4% if <null>" (every null, when there are several)."""
        nulls = ", ".join(f"{s.value:.0%} if {n}" for n, s in self.nulls.items())
        return f"holds {self.if_paper:.0%} if the paper is right, {nulls}"


@dataclass(frozen=True)
class Exact:
    """A test with no random element: the value is computed exactly, so it holds or fails with certainty."""

    why: str

    def decision(self, side: str) -> verdict.Decision:
        return verdict.Decision(side, True, math.inf, "an exact computation")

    def record(self, side: str | None = None) -> dict[str, Any]:
        """The logged form: ``{"exact": "<why>"}``."""
        return {"exact": self.why}

    def describe(self) -> str:
        return f"exact: {self.why}"


def _values(draws: ArrayLike) -> np.ndarray:
    values = np.asarray(draws, dtype=float).ravel()
    return values[np.isfinite(values)]


def _held(test: Test, values: np.ndarray) -> int:
    return int(sum(test.check(float(v))[0] == "holds" for v in values))


def _share(test: Test, draws: Draws) -> tuple[verdict.Share, np.ndarray]:
    """The share of finite draws on which ``test`` holds, drawn again (four times as many, up to
    :data:`MAX_DRAWS`) while it is borderline and ``draws`` is a function of the number wanted."""
    n = DRAWS
    values = _values(draws(n) if callable(draws) else draws)
    share = verdict.Share(_held(test, values), len(values))
    while callable(draws) and len(values) and verdict.borderline(share) and n < MAX_DRAWS:
        n *= 4
        values = _values(draws(n))
        share = verdict.Share(_held(test, values), len(values))
    return share, values


def power(test: Test, if_paper: Draws, if_null: Draws | Mapping[str, Draws], null: str = "") -> Power:
    """The share of ``if_paper`` draws and of ``if_null`` draws of the statistic on which ``test`` holds.

    ``if_null`` is one null's draws, named in words by ``null``, or a mapping of each null's words to its draws
    (a hold must beat every one). Non-finite draws (a resample on which the statistic is undefined) are left
    out; with none left the share is NaN, which is not decisive.
    """
    nulls = dict(if_null) if isinstance(if_null, Mapping) else {null.strip(): if_null}
    if not all(name.strip() for name in nulls) or not nulls:
        raise ValueError("a power needs each null in words (chance, no association, zero shift, …)")
    found, spread, constant = {}, {}, []
    for name, draws in [(PAPER, if_paper), *nulls.items()]:
        share, values = _share(test, draws)
        found[name] = share if len(values) else NO_SHARE
        if len(values):
            spread[name] = (float(values.mean()), float(values.std()))
        if len(values) > 1 and np.ptp(values) == 0:
            constant.append(name)
    paper = found.pop(PAPER)
    return Power(paper, found, spread, tuple(constant))


class _NoShare(verdict.Share):
    """A share of no draws (the statistic undefined on every one): NaN, which is never decisive."""

    @property
    def value(self) -> float:
        return math.nan

    @property
    def mc_se(self) -> float:
        return math.nan


#: The share of no draws.
NO_SHARE: verdict.Share = _NoShare(0, 0)


#: Multiples of a run's units the planner tries, smallest first.
SCALES: tuple[float, ...] = (1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64)


def shares_at_scale(comparison_at: Callable[[float], Test], spread: Mapping[str, tuple[float, float]], m: float,
                    support: tuple[float, float] = (-math.inf, math.inf), n: int = DRAWS
                    ) -> tuple[float, dict[str, float]]:
    """p1 and each null's p0 at ``m`` times the units a statistic's draws resample: draws of
    ``N(mean, sd/√m)`` per hypothesis of ``spread`` (``paper`` and each null) through ``comparison_at(1/√m)``, the
    test with any widening s.e. shrunk by that factor. The statistic's expectation under each hypothesis stays."""
    comparison = comparison_at(1 / math.sqrt(m))
    z = np.random.default_rng(0).standard_normal(n)
    shares = {}
    for hypothesis, (mean, sd) in spread.items():
        values = np.clip(mean + sd / math.sqrt(m) * z, *support)
        shares[hypothesis] = verdict.Share(_held(comparison, values), n).value
    return shares.pop(PAPER), shares


def decisive_scale(comparison_at: Callable[[float], Test], spread: Mapping[str, tuple[float, float]],
                   support: tuple[float, float] = (-math.inf, math.inf)) -> tuple[float | None, float, float]:
    """(the smallest m of :data:`SCALES` at which a hold and a fail would both be decisive, p1 there, the largest
    p0 there); m None when none is, with the shares at the largest m."""
    for m in SCALES:
        p1, p0 = shares_at_scale(comparison_at, spread, m, support)
        if p0 and verdict.decide(verdict.HOLD, p1, p0).decisive and verdict.decide(verdict.FAIL, p1, p0).decisive:
            return m, p1, max(p0.values())
    return None, p1, max(p0.values(), default=math.nan)


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
