"""When an outcome is evidence: the decision rule, in one place.

A claim's test (:mod:`lib.claims`) holds or fails on the measured value; whether that outcome is *evidence* depends
on how often the test would have come out that way under the paper and under each null a sceptic would pick
(:mod:`lib.claim_power` gives the shares ``p1`` and ``p0`` from draws of the statistic):

- a **hold** is decisive when every null would rarely have held (``p0 ≤ 0.2`` for each) and the paper far more
  often (likelihood ratio ``p1 / p0 ≥ 4`` against each null);
- a **fail** is decisive when the paper, if right, would usually have held (``p1 ≥ 0.8``) and a null makes the
  fail far more likely than the paper does (``(1 − p0) / (1 − p1) ≥ 4``).

The likelihood ratio of the outcome (Royall, *Statistical Evidence*, 1997) is logged with every verdict: for a hold
the smallest over the nulls, for a fail the largest. Shares are Jeffreys estimates ``(k + ½) / (N + 1)`` of the
``k`` of ``N`` draws on which the test held, so no share is 0 or 1 and every ratio is finite; their Monte Carlo
standard error is logged beside them, and a share within two of them of a threshold is *borderline* (the engine
draws more where it can).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

#: A fail is decisive only when the paper, if right, would have held at least this often …
DECISIVE_IF_PAPER = 0.8
#: … and a hold only when each null would have held at most this often.
DECISIVE_IF_NULL = 0.2
#: The likelihood ratio of the outcome a decisive verdict needs (Royall's weak-evidence benchmark is 8).
DECISIVE_RATIO = 4.0
#: Monte Carlo standard errors within which a share counts as on its threshold.
BORDERLINE_MC_SE = 2.0

HOLD, FAIL = "hold", "fail"


@dataclass(frozen=True)
class Share:
    """``held`` of ``draws`` draws of the statistic on which the test held."""

    held: int
    draws: int

    @property
    def value(self) -> float:
        """The Jeffreys estimate ``(held + ½) / (draws + 1)``: never 0 or 1."""
        return (self.held + 0.5) / (self.draws + 1)

    @property
    def mc_se(self) -> float:
        """Its Monte Carlo standard error."""
        p = self.value
        return math.sqrt(p * (1 - p) / max(self.draws, 1))


def hold_ratio(p1: float, p0: float) -> float:
    """How much likelier a hold is if the paper is right than if the null is: ``p1 / p0`` (1 when neither ever
    holds; a logged share rounded to 0 gives infinity)."""
    if p0 > 0:
        return p1 / p0
    return math.inf if p1 > 0 else 1.0


def fail_ratio(p1: float, p0: float) -> float:
    """How much likelier a fail is if the null is right than if the paper is: ``(1 − p0) / (1 − p1)`` (1 when
    neither ever fails; a logged share rounded to 1 gives infinity)."""
    if p1 < 1:
        return (1 - p0) / (1 - p1)
    return math.inf if p0 < 1 else 1.0


@dataclass(frozen=True)
class Decision:
    """Whether an outcome (``hold`` or ``fail``) is evidence: its likelihood ratio against the null that counts
    (``against``: for a hold the null it beats by the least, for a fail the null that best accounts for it)."""

    side: str
    decisive: bool
    ratio: float
    against: str

    def describe(self) -> str:
        """"a hold is decisive: LR 12 against <null>" or why not."""
        lr = "∞" if math.isinf(self.ratio) else f"{self.ratio:.3g}"
        return (f"the {self.side} is {'decisive' if self.decisive else 'not decisive'} "
                f"(likelihood ratio {lr} against {self.against})")


def decide(side: str, p1: float, p0: Mapping[str, float]) -> Decision:
    """The decision rule (module docstring) for an outcome ``side`` (``hold`` or ``fail``), the paper's share
    ``p1`` and each null's share ``p0`` by the null's words. NaN shares are not decisive."""
    if side not in (HOLD, FAIL):
        raise ValueError(f"side={side!r} is not {HOLD!r} or {FAIL!r}")
    if not p0:
        raise ValueError("a decision needs at least one null")
    if math.isnan(p1) or any(math.isnan(p) for p in p0.values()):
        return Decision(side, False, math.nan, "a share that could not be computed")
    if side == HOLD:
        against = min(p0, key=lambda null: hold_ratio(p1, p0[null]))
        ratio = hold_ratio(p1, p0[against])
        decisive = max(p0.values()) <= DECISIVE_IF_NULL and ratio >= DECISIVE_RATIO
    else:
        against = max(p0, key=lambda null: fail_ratio(p1, p0[null]))
        ratio = fail_ratio(p1, p0[against])
        decisive = p1 >= DECISIVE_IF_PAPER and ratio >= DECISIVE_RATIO
    return Decision(side, decisive, ratio, against)


def borderline(share: Share) -> bool:
    """Whether ``share`` lies within :data:`BORDERLINE_MC_SE` Monte Carlo s.e. of a threshold it is judged by."""
    return any(abs(share.value - t) < BORDERLINE_MC_SE * share.mc_se for t in (DECISIVE_IF_PAPER, DECISIVE_IF_NULL))
