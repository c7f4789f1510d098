"""lib.forest: a claim's test read back from the words lib.claims logs for it, and its row drawn on its own scale."""

from __future__ import annotations

import math
import re

import pytest

from lib import claims, forest


@pytest.mark.parametrize("comparison, lo, hi, paper", [
    (claims.Range(0.65, 0.99), 0.65, 0.99, (0.65, 0.99)),
    (claims.Range(0.65, 0.99, se=0.1, k=3), 0.35, 1.29, (0.65, 0.99)),
    (claims.Range(1, 2, se=math.nan), 1, 2, (1, 2)),
    (claims.Point(0.9, tol=0.05, reason="r"), 0.85, 0.95, (0.9, 0.9)),
    (claims.Point(-0.5, se=0.01, k=3), -0.53, -0.47, (-0.5, -0.5)),
    (claims.Point(0), 0, 0, (0, 0)),
    (claims.Bound("<=", 0.05), -math.inf, 0.05, (0.05, 0.05)),
    (claims.Bound(">", 0, se=0.02), 0.04, math.inf, (0, 0)),
    (claims.Bound(">=", 1e-5), 1e-5, math.inf, (1e-5, 1e-5)),
])
def test_the_target_is_read_back_from_the_logged_comparison(comparison, lo, hi, paper):
    found = forest.target(comparison.describe())
    assert found is not None
    assert found.lo == pytest.approx(lo) and found.hi == pytest.approx(hi)
    assert found.paper == pytest.approx(paper)


def test_words_it_cannot_read_give_no_target():
    assert forest.target("holds at every setting") is None


def _percentages(svg: str) -> list[float]:
    return [float(v) for v in re.findall(r'="(-?[\d.]+)%"', svg)]


def test_a_row_places_its_marks_on_its_own_scale_within_the_row():
    found = forest.target(claims.Bound("<=", 0.05).describe())
    svg = forest.strip(0.5, 0.1, found, "C1: 0.5 ± 0.1")
    lo, hi = forest.domain(0.5, 0.1, found)
    assert lo < 0.05 and hi > 0.7  # the bound's value and the interval's upper end both shown
    assert all(0 <= p <= 100 for p in _percentages(svg))
    dot = float(re.search(r'cx="([\d.]+)%"', svg)[1])
    assert dot == pytest.approx(100 * (0.5 - lo) / (hi - lo), abs=0.01)
    assert 'class="interval"' in svg and 'aria-label="C1: 0.5 ± 0.1"' in svg


def test_a_row_without_a_finite_se_or_a_target_still_shows_its_value():
    svg = forest.strip(3.0, math.nan, None, "C2")
    assert 'class="interval"' not in svg and 'class="paper"' not in svg
    assert float(re.search(r'cx="([\d.]+)%"', svg)[1]) == pytest.approx(50)
