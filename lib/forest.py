"""A claim's forest-plot row: the measured value and its ± 2 s.e. interval beside what the paper states, as inline
SVG drawn in Python (no script, no network), each row on its own x-scale.

What the paper states is read back from the claim's logged comparison, the words :mod:`lib.claims` writes for the
test it judged the claim by ("in [0.65, 0.99] widened by 3 s.e. (s.e. 0.1)", "within 0.05 of 0.9", "<= 0.05",
"> 0 by 2 s.e. (s.e. 0.02)"): the row shows the run's own test, even where the catalogue has changed since.
The SVG places its marks in percentages of its width, so a row stretches with the page while its marks keep their
shape; its colour is the ``currentColor`` of the element it sits in.
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass

#: A number as a logged comparison writes it (six significant digits, or inf, nan).
_NUMBER = r"([-+]?(?:inf|nan|\d+\.?\d*(?:e[-+]?\d+)?|\.\d+(?:e[-+]?\d+)?))"
_BY_SE = rf"{_NUMBER} s\.e\. \(s\.e\. {_NUMBER}\)"
_RANGE = re.compile(rf"in \[{_NUMBER}, {_NUMBER}\](?: widened by {_BY_SE})?$")
_WITHIN_SE = re.compile(rf"within {_NUMBER} s\.e\. of {_NUMBER} \(s\.e\. {_NUMBER}\)$")
_WITHIN = re.compile(rf"within {_NUMBER} of {_NUMBER}$")
_EQUALS = re.compile(rf"= {_NUMBER}$")
_BOUND = re.compile(rf"(<=|>=|<|>) {_NUMBER}(?: by {_BY_SE})?$")
#: The share of a row's span left blank at either end, so a mark at an end is drawn whole.
_PAD = 0.08
_HEIGHT = 18


@dataclass(frozen=True)
class Target:
    """What a claim's test accepts, ``lo`` to ``hi`` (an end infinite for a one-sided bound), and the paper's own
    value or range inside it, ``paper`` (both ends equal for a value)."""

    lo: float
    hi: float
    paper: tuple[float, float]


def _margin(k: str | None, se: str | None) -> float:
    """k·s.e. of a test widened by a logged standard error; 0 when it is not, or the s.e. is not finite."""
    if k is None or se is None or not math.isfinite(float(se)):
        return 0.0
    return float(k) * float(se)


def _point(text: str) -> Target | None:
    """A value, tested two-sided: within k s.e., within a tolerance, or exactly."""
    if found := _WITHIN_SE.match(text):
        value, margin = float(found[2]), _margin(found[1], found[3])
    elif found := _WITHIN.match(text):
        value, margin = float(found[2]), float(found[1])
    elif found := _EQUALS.match(text):
        value, margin = float(found[1]), 0.0
    else:
        return None
    return Target(value - margin, value + margin, (value, value))


def target(comparison: str) -> Target | None:
    """The :class:`Target` of a logged comparison, or None for words it cannot read."""
    text = " ".join(str(comparison).split())
    if found := _RANGE.match(text):
        lo, hi, margin = float(found[1]), float(found[2]), _margin(found[3], found[4])
        return Target(lo - margin, hi + margin, (lo, hi))
    if found := _BOUND.match(text):
        value, margin = float(found[2]), _margin(found[3], found[4])
        if found[1].startswith(">"):
            return Target(value + margin, math.inf, (value, value))
        return Target(-math.inf, value - margin, (value, value))
    return _point(text)


def domain(measured: float, se: float, found: Target | None) -> tuple[float, float]:
    """The x-range of one row: the measured value, its ± 2 s.e. and the target's finite ends and values, padded."""
    values = [measured]
    if math.isfinite(se):
        values += [measured - 2 * se, measured + 2 * se]
    if found is not None:
        values += [v for v in (found.lo, found.hi, *found.paper) if math.isfinite(v)]
    lo, hi = min(values), max(values)
    pad = _PAD * (hi - lo) if hi > lo else 0.5 * (abs(hi) or 1.0)
    return lo - pad, hi + pad


def _at(value: float, span: tuple[float, float]) -> float:
    """``value``'s place in ``span`` as a percentage of the row, clipped to it."""
    return 100 * min(max((value - span[0]) / (span[1] - span[0]), 0.0), 1.0)


def _band(lo: float, hi: float, span: tuple[float, float], kind: str, height: int) -> str:
    """A rectangle from ``lo`` to ``hi`` (a tick where they meet), centred on the row."""
    left, right = _at(lo, span), _at(hi, span)
    top = (_HEIGHT - height) / 2
    if right - left < 0.5:
        return f'<line class="{kind}" x1="{left:.2f}%" x2="{left:.2f}%" y1="1" y2="{_HEIGHT - 1}"/>'
    return f'<rect class="{kind}" x="{left:.2f}%" width="{right - left:.2f}%" y="{top:g}" height="{height}"/>'


def strip(measured: float, se: float, found: Target | None, label: str) -> str:
    """One row's SVG: the accepted region light, the paper's value or range dark, the measured value a dot with
    its ± 2 s.e. interval (when the s.e. is finite); ``label`` is its accessible name (plain text)."""
    span = domain(measured, se, found)
    marks = [f'<line class="axis" x1="0" x2="100%" y1="{_HEIGHT / 2:g}" y2="{_HEIGHT / 2:g}"/>']
    if found is not None:
        marks += [_band(found.lo, found.hi, span, "accepted", 12), _band(*found.paper, span, "paper", 6)]
    if math.isfinite(se):
        left, right = _at(measured - 2 * se, span), _at(measured + 2 * se, span)
        marks.append(f'<line class="interval" x1="{left:.2f}%" x2="{right:.2f}%" y1="{_HEIGHT / 2:g}" '
                     f'y2="{_HEIGHT / 2:g}"/>')
    marks.append(f'<circle class="measured" cx="{_at(measured, span):.2f}%" cy="{_HEIGHT / 2:g}" r="4.5"/>')
    return (f'<svg class="strip" width="100%" height="{_HEIGHT}" role="img" aria-label="{html.escape(label)}">'
            f"{''.join(marks)}</svg>")
