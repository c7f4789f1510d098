"""lib.bias_probes.claim_cells: the logged cell a claim reads and its standard error."""

import numpy as np
import pandas as pd
import pytest

from lib.bias_probes import claim_cells


def test_extreme_returns_value_se_and_replicates():
    frame = pd.DataFrame({"fpr": [0.1, 0.3, 0.2], "fpr_se": [0.01, 0.03, 0.02], "reps": [10, 20, 30]})
    assert claim_cells.extreme(frame, "fpr", largest=True) == (0.3, 0.03, 20.0)
    value, se, reps = claim_cells.extreme(frame.drop(columns="fpr_se"), "fpr", largest=False)
    assert (value, reps) == (0.1, 10.0) and np.isnan(se)


def test_relative_kappa_se_reads_the_picked_cell_and_needs_replicates():
    rows = pd.DataFrame({"relative_error": [0.1, -0.3, 0.2], "kappa_hat_se": [0.1, 0.2, 0.4],
                         "kappa": [1.0, 2.0, 4.0], "reps": [5, 5, 5]})
    assert claim_cells.relative_kappa_se(rows, "relative_error", "max") == 0.1  # |−0.3|: 0.2 / 2
    assert claim_cells.relative_kappa_se(rows, "relative_error", "median") == 0.1  # |0.2|: 0.4 / 4
    assert np.isnan(claim_cells.relative_kappa_se(rows.assign(reps=1), "relative_error", "max"))


def test_median_cell_se_reads_the_middle_cell_or_the_two_middle_cells():
    assert claim_cells.median_cell_se([0.3, 0.1, 0.2], [0.03, 0.01, 0.02]) == 0.02
    assert claim_cells.median_cell_se([0.4, 0.1, 0.3, 0.2], [0.04, 0.01, 0.03, 0.02]) == np.hypot(0.02, 0.03) / 2
    assert np.isnan(claim_cells.median_cell_se([], []))


def test_median_cell_se_matches_the_spread_of_a_simulated_median():
    rng = np.random.default_rng(0)
    values, se = np.array([0.1, 0.5, 0.9]), np.array([0.01, 0.02, 0.01])
    medians = np.median(values + se * rng.standard_normal((20000, 3)), axis=1)
    assert medians.std() == pytest.approx(claim_cells.median_cell_se(values, se), rel=0.03)
