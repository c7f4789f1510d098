"""lib.kstar.sae.composition: leave-one-out dictionaries recover a family, random sets do not (paper 002, A.2.5)."""

import math

import numpy as np
import pytest

from lib.kstar.protocol import fitscore
from lib.kstar.sae import composition


def test_recovery_is_the_kept_share_of_the_above_chance_ceiling():
    assert composition.recovery(0.95, 0.95) == 1.0
    assert composition.recovery(0.5, 0.9) == 0.0
    assert composition.recovery(0.8, 0.9) == pytest.approx(0.75)
    with pytest.raises(ValueError, match="ceiling"):
        composition.recovery(0.6, 0.5)


def test_leave_one_out_dictionary_and_own_overlap():
    supports = {"a": [1, 2], "b": [2, 3], "c": [7]}
    loo = composition.leave_one_out(supports)
    assert loo == {"a": (2, 3, 7), "b": (1, 2, 7), "c": (1, 2, 3)}
    assert composition.own_overlap(supports["a"], loo["a"]) == 0.5
    assert composition.own_overlap(supports["c"], loo["c"]) == 0.0
    with pytest.raises(ValueError, match="at least two"):
        composition.leave_one_out({"a": [1]})


def _family(seed=0, n=240, n_classes=5, n_shared=10, n_noise=60):
    """A multiclass world: shared family features with a class-specific mean pattern, one private feature per
    class, and noise features. Support of class c: its private feature and its two most shifted shared ones."""
    rng = np.random.default_rng(seed)
    labels = np.arange(2 * n) % n_classes
    pattern = rng.normal(0, 1.5, (n_classes, n_shared))
    shared = pattern[labels] + rng.standard_normal((2 * n, n_shared))
    private = 2.0 * (labels[:, None] == np.arange(n_classes)) + rng.standard_normal((2 * n, n_classes))
    X = np.hstack([shared, private, rng.standard_normal((2 * n, n_noise))])
    ys = {f"c{c}": (labels == c).astype(int) for c in range(n_classes)}
    supports = {f"c{c}": [n_shared + c, *np.argsort(-np.abs(pattern[c] - pattern.mean(0)))[:2].tolist()]
                for c in range(n_classes)}
    train = slice(0, n)
    test = slice(n, 2 * n)
    ceilings = {d: fitscore.fit_score(X[train], y[train], X[test], y[test], 0)[0] for d, y in ys.items()}
    y_tr, y_te = {d: y[train] for d, y in ys.items()}, {d: y[test] for d, y in ys.items()}
    return X[train], X[test], y_tr, y_te, supports, ceilings


def test_a_shared_family_dictionary_recovers_held_out_decisions_above_random_sets():
    Z_tr, Z_te, y_tr, y_te, supports, ceilings = _family()
    table = composition.composition_table(Z_tr, Z_te, y_tr, y_te, supports, ceilings, null_seeds=(0, 1, 2),
                                          centre=True)
    summary = composition.criteria(table)
    assert summary["median_recovery"] >= 0.9
    assert summary["above_random"] == len(table) == 5
    assert summary["wilcoxon_p"] == pytest.approx(1 / 32)  # all five above: the smallest one-sided exact p
    assert (table.own_overlap < 1).all()
    finite = table[np.isfinite(table.width)]
    assert len(finite) and (finite.width <= finite.dictionary_size).all()
    assert np.allclose(table.width_ratio, table.width / table.support_size)


def test_width_is_infinite_when_no_prefix_reaches_tau():
    Z_tr, Z_te, y_tr, y_te, _, _ = _family()
    assert composition.width(Z_tr, y_tr["c0"], Z_te, y_te["c0"], [60, 61, 62], tau=0.99, centre=True) == math.inf
