"""lib.kstar.world.ksyn: k^syn of the synthetic world (paper 002, A.3.4): median curves, per-layer ceilings,
the gate."""

import math

import pytest

from lib.kstar.protocol.probe_search import Candidate
from lib.kstar.world import ksyn


def _cands(pairs):
    return [Candidate("prefix" if i == 0 else "l1", size, tuple(range(size)), auroc, 1.0)
            for i, (size, auroc) in enumerate(pairs)]


def test_a_size_qualifies_only_when_its_median_candidate_reaches_tau():
    # C = 1 → τ = 0.975; one lucky size-1 candidate among three does not qualify
    layer = (1.0, _cands([(1, 0.99), (1, 0.60), (1, 0.70), (2, 0.98), (2, 0.97), (2, 0.99)]))
    assert ksyn.median_curve(layer[1]) == {1: 0.70, 2: 0.98}
    assert ksyn.synthetic_layer_count(*layer) == 2
    assert ksyn.synthetic_count({3: layer}).count == 2


def test_each_layer_uses_its_own_dense_ceiling_and_the_minimum_over_readable_layers_wins():
    curve = [(1, 0.93), (4, 0.96), (8, 0.99)]
    # layer 1: C = 0.95 → τ = 0.9275 → count 1; layer 2: C = 1.0 → τ = 0.975 → count 8
    found = ksyn.synthetic_count({1: (0.95, curve), 2: (1.0, curve)})
    assert (found.count, found.layer, found.ceiling) == (1, 1, 1.0)
    assert ksyn.synthetic_count({2: (1.0, curve)}).count == 8


def test_the_gate_makes_a_query_unreadable_not_a_large_count():
    chance = [(1, 0.51), (64, 0.52)]
    found = ksyn.synthetic_count({0: (0.52, chance), 1: (0.90, [(1, 0.9)])})  # 0.90 does not exceed 0.90
    assert found.count is None and not found.readable and found.ceiling == 0.90
    # a chance-level layer (τ ≈ ½) never manufactures a count of one beside a readable layer
    found = ksyn.synthetic_count({0: (0.52, chance), 2: (0.99, [(1, 0.7), (16, 0.98)])})
    assert (found.count, found.layer) == (16, 2)


def test_no_qualifying_size_is_infinite_and_empty_input_raises():
    assert ksyn.synthetic_count({1: (0.99, [(1, 0.6)])}).count == math.inf
    with pytest.raises(ValueError, match="at least one layer"):
        ksyn.synthetic_count({})
