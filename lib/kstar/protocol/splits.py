"""The per-class draws of paper 002's protocol: the validation portion (App. A.1.4) and the seed's subsample (A.1.6).

Both keep ⌊frac·n⌋ rows of each class, drawn without replacement (negatives first) by
``numpy.random.default_rng([purpose, seed])`` with distinct purposes, so the two draws of one seed are
independent. The paper does not say how it drew them; this is a choice, documented where it acts.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

VAL_FRAC = 0.2  #: validation portion per class, rounded down (A.1.4)
SUBSAMPLE_FRAC = 0.85  #: training subsample per class and seed, rounded down (A.1.6)

_SUBSAMPLE, _VALIDATION = 0, 1  # purposes of the two draws of one seed


def binary_labels(y, name: str) -> np.ndarray:
    """``y`` as int8 0/1 labels of one class decision (A.1.3); ValueError naming ``name`` otherwise."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {y.shape}")
    values = set(np.unique(y).tolist())
    if not values <= {0, 1}:
        raise ValueError(f"{name} holds the labels {sorted(values)!r}; allowed: 0 and 1 (or booleans)")
    return y.astype(np.int8)


def label_counts(y: np.ndarray) -> tuple[int, int]:
    """(positives, negatives) of 0/1 labels."""
    n_pos = int(np.sum(y))
    return n_pos, int(len(y) - n_pos)


def floor_fraction(n: int, frac: float) -> int:
    """⌊frac·n⌋ in exact arithmetic (0.85·20 is 16.999… in floating point on some inputs)."""
    return int(Fraction(str(frac)) * n)


def _per_class_draw(y, frac: float, seed: int, purpose: int) -> np.ndarray:
    y = binary_labels(y, "y")
    if seed < 0:
        raise ValueError(f"seed={seed!r} is out of range; allowed: >= 0")
    rng = np.random.default_rng([purpose, int(seed)])
    drawn = [rng.permutation(np.flatnonzero(y == cls))[: floor_fraction(int((y == cls).sum()), frac)]
             for cls in (0, 1)]
    return np.sort(np.concatenate(drawn))


def stratified_subsample(y, frac: float = SUBSAMPLE_FRAC, *, seed: int) -> np.ndarray:
    """Rows of one seed's training subsample: ⌊85%⌋ of each class (paper 002, App. A.1.6, "Seeds and subsamples").

    Sorted row indices, drawn without replacement per class (negatives first) by
    ``default_rng([0, seed])``; the test split is never subsampled.
    """
    if not 0.0 < frac <= 1.0:
        raise ValueError(f"frac={frac!r} is out of range; allowed: (0, 1]")
    return _per_class_draw(y, frac, seed, _SUBSAMPLE)


def validation_split(y, frac: float = VAL_FRAC, *, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(fit rows, validation rows): ⌊20%⌋ of each class held out (paper 002, App. A.1.4, "Regularization selection").

    Drawn with the fit's seed (``default_rng([1, seed])``, negatives first) and shared by every γ and
    every subset of one cell, so γ is compared on the same texts.
    """
    if not 0.0 < frac < 1.0:
        raise ValueError(f"frac={frac!r} is out of range; allowed: (0, 1)")
    val = _per_class_draw(y, frac, seed, _VALIDATION)
    return np.setdiff1d(np.arange(len(y)), val), val
