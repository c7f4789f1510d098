"""lib.bias_probes.model_audit: the model-feature experiments on the real offline encoder (MiniLM)."""

import numpy as np
import pytest

from lib.bias_probes import model_audit, prompts

#: One pytest-xdist worker runs this module, so its module fixture (MiniLM's states of the whole template grid,
#: ~18 s on a fresh clone) is built once, not once on each worker that draws one of its tests.
pytestmark = pytest.mark.xdist_group("model_audit_pools")


@pytest.fixture(scope="module")
def pools():
    return model_audit.model_pools(["minilm"], ["gender"], layer="mid")


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


def test_subpool_and_held_out_experiments(pools):
    pool = pools[("minilm", "gender")]
    half = model_audit.subpool(pool, np.arange(170))
    assert set(np.unique(half.cell)) == set(range(170)) and half.X.shape[0] == 680
    confound = model_audit.confound_resampling(pools, [0.0, 1.0], n=80, draws=1)
    assert confound.test_auc.iloc[0] > 0.9  # ρ = 0: the marker is readable on held-out pairs
    gap = model_audit.generalization_gap(pools, [50], alpha=0.3, draws=1)
    assert 0 <= gap.test_auc.item() <= 1 and gap.auc_gap.item() > 0
    nonlinear = model_audit.nonlinear_probes(pools, [1.0], n=100, draws=1, probe_names=("linear", "rbf_svm"))
    assert set(nonlinear.probe) == {"linear", "rbf_svm"} and (nonlinear.auc > 0.8).all()


def test_concentration_predictions(pools):
    frame = model_audit.concentration_predictions(pools, [1.0], n=100, draws=1)
    beta = frame.beta.item()
    assert 0 <= beta <= 1 - 1 / 384 and frame.s_beta.item() > 0
    assert frame.predicted_from_beta.item() >= 0.5


def test_manifold_geometry_reads_the_estimators_on_marked_texts(pools):
    first = dict(list(pools.items())[:1])  # one pool: the estimators are slow on 680 × 384 and checked in E3
    geometry = model_audit.manifold_geometry(first, seed=0)
    assert len(geometry) == 1 and (geometry.n_texts == 680).all()
    assert (geometry.d_mle > 1).all() and (geometry.d_twonn > 1).all()
    assert (geometry.kappa_origin >= 0).all() and (geometry.kappa_floor >= 0).all()
    assert (geometry.tangent_dim == geometry.d_mle.round().clip(1, 50)).all()
