"""lib.model_audit: the model-feature experiments on the real offline encoder (MiniLM)."""

import numpy as np
import pytest

from lib import model_audit, prompts


@pytest.fixture(scope="module")
def pools():
    return model_audit.model_pools(["minilm"], ["gender"], layer=-1)


def test_pools_follow_the_grid(pools):
    pool = pools[("minilm", "gender")]
    assert pool.X.shape == (1360, 384) and pool.marked.sum() == 680
    assert model_audit.pool_respects(pool, 300, 0.3) and not model_audit.pool_respects(pool, 1000, 1.0)
    states = model_audit.grid_states("minilm", layers=[3])
    assert states.shape == (1, len(prompts.template_grid()), 384)


def test_regimes_and_geometry(pools):
    frame = model_audit.regimes(pools, alpha=0.3, n=100)
    assert set(frame.regime) == {"counterfactual", "mixed"}
    counterfactual = frame[frame.regime == "counterfactual"].iloc[0]
    assert counterfactual.n == 680 and counterfactual.auc_mean > 0.9  # the marker is linearly readable
    assert frame.s_hat.iloc[0] > 1 and np.isfinite(frame.b_w).all()


def test_curves_phase_and_leakage(pools):
    curve = model_audit.purity_curves(pools, [0.5], n=100, draws=2)
    assert {"auc", "predicted_auc", "s_hat"} <= set(curve.columns)
    phase = model_audit.phase_diagram(pools, [0.5, 1.0], [100, 1000], repeats=1)
    assert len(phase) == 3  # (α = 1, n = 1000) needs 500 pairs: skipped
    leak = model_audit.leakage(pools, [1.0], n=100)
    assert leak.n.item() == 680 and {"grouped_auc", "random_auc", "leakage"} <= set(leak.columns)
