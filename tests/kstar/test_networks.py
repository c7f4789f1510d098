"""lib.kstar.world.networks: tiny transformers and GRUs of the synthetic world (paper 002, A.3.3–A.3.4)."""

import math

import numpy as np
import pytest
import torch

from lib.kstar.world import networks, world


@pytest.fixture(scope="module")
def fw():
    return world.FactorWorld()


@pytest.mark.parametrize("arch", networks.ARCHITECTURES)
def test_readout_has_embeddings_as_layer_zero_and_one_state_per_layer(fw, arch):
    model = networks.build(networks.NetworkSpec(arch, 8, 2, seed=1))
    probes = fw.probe_set(np.random.default_rng(0), 20, ["threshold2_target"])
    states = networks.readout(model, probes.tokens[0], batch_size=7)
    assert states.shape == (3, 20, 8) and states.dtype == np.float64
    # layer 0 at the query position is the query's embedding (plus its position): the same for every prefix
    assert np.allclose(states[0], states[0][0])
    assert not np.allclose(states[2], states[2][0])


def test_transformer_is_causal_and_read_before_the_final_norm(fw):
    model = networks.build(networks.NetworkSpec("transformer", 8, 2))
    tokens = torch.from_numpy(fw.sample(np.random.default_rng(1), 4).tokens)
    changed = tokens.clone()
    changed[:, 40:] = world.QUERY0
    with torch.no_grad():
        a, b = model.states(tokens), model.states(changed)
        assert torch.allclose(a[-1][:, :40], b[-1][:, :40], atol=1e-6)
        last = a[-1][:, -1]
        assert not torch.allclose(last.mean(-1), torch.zeros(4), atol=1e-3)  # not layer-normalised
        assert torch.allclose(model.logits(last), model.head(model.norm(last)))


def test_gru_layers_are_read_one_by_one(fw):
    model = networks.build(networks.NetworkSpec("gru", 6, 2))
    tokens = torch.from_numpy(fw.sample(np.random.default_rng(2), 3).tokens)
    with torch.no_grad():
        states = model.states(tokens)
        first, _ = model.layers[0](model.token(tokens))
        second, _ = model.layers[1](first)
    assert torch.allclose(states[1], first) and torch.allclose(states[2], second)


def test_answer_loss_is_the_cross_entropy_at_the_12_answer_positions_only(fw):
    model = networks.build(networks.NetworkSpec("transformer", 8, 1))
    tokens = torch.from_numpy(fw.sample(np.random.default_rng(3), 5).tokens)
    with torch.no_grad():
        full = model.logits(model.states(tokens)[-1])  # every position
        log_p = torch.log_softmax(full, -1)
        expected = -np.mean([log_p[i, p - 1, tokens[i, p]].item() for i in range(5) for p in world.ANSWER_POSITIONS])
        assert networks.answer_loss(model, tokens).item() == pytest.approx(expected, rel=1e-5)


def test_training_lowers_the_loss_and_keeps_snapshots(fw):
    model = networks.build(networks.NetworkSpec("transformer", 16, 1))
    trained = networks.train(model, fw, 40, batch_size=32, lr=3e-3, checkpoints=[10, 40])
    assert trained.losses[0] > 4.0  # about log 118 at initialisation
    assert trained.losses[-5:].mean() < 2.0  # the two answer tokens are found quickly
    assert set(trained.snapshots) == {10, 40}  # the checkpoints and the last update
    assert not torch.equal(trained.snapshots[10]["head.weight"], trained.snapshots[40]["head.weight"])
    loss, accuracy = networks.evaluate(model, fw.sample(np.random.default_rng(4), 64))
    assert loss >= 0 and accuracy.shape == (50,) and np.nanmax(accuracy) <= 1


def test_training_goes_on_in_blocks_until_converged_or_the_cap(fw):
    def after(checks):
        seen = []
        return lambda model: seen.append(model.training) or len(seen) >= checks  # checked in eval mode

    def updates_run(converged, **kwargs):
        model = networks.build(networks.NetworkSpec("gru", 4, 1))
        trained = networks.train(model, fw, 6, batch_size=4, checkpoints=[3], converged=converged, **kwargs)
        assert set(trained.snapshots) == {3, len(trained.losses)}
        return len(trained.losses)

    assert updates_run(after(1), check_every=5, max_updates=50) == 6  # converged at the first check
    assert updates_run(after(3), check_every=5, max_updates=50) == 16  # two more blocks of five
    assert updates_run(lambda model: False, check_every=5, max_updates=13) == 13  # the cap
    with pytest.raises(ValueError, match="max_updates=None"):
        updates_run(lambda model: True)
    with pytest.raises(ValueError, match="max_updates=4"):
        updates_run(lambda model: True, max_updates=4)
    flags = []
    networks.train(networks.build(networks.NetworkSpec("gru", 4, 1)), fw, 2, batch_size=4,
                   converged=lambda model: flags.append(model.training) or True, max_updates=5)
    assert flags == [False]  # judged in eval mode, training resumes in train mode


def test_training_is_reproducible(fw):
    runs = [networks.train(networks.build(networks.NetworkSpec("gru", 8, 1, seed=3)), fw, 3, batch_size=8, seed=5)
            for _ in range(2)]
    assert np.array_equal(runs[0].losses, runs[1].losses)


def test_a_loss_minimiser_reaches_the_infimum_of_proposition_5(fw):
    """An oracle that puts probability one half on each answer at controls and (almost) one on the truth elsewhere."""
    batch = fw.sample(np.random.default_rng(6), 4000)
    control = np.isin(batch.queries, [q.index for q in fw.queries if q.role == "control"])
    loss = np.where(control, math.log(2), 0.0).mean()
    assert loss == pytest.approx(world.loss_infimum(), abs=0.01)


@pytest.mark.parametrize(("name", "message"), [
    ("lstm-d8-L1-s0", "lstm"), ("transformer-d0-L1-s0", "width=0"), ("transformer-64-2", "not understood"),
])
def test_bad_model_names_raise_naming_the_value(name, message):
    with pytest.raises(ValueError, match=message):
        networks.parse_spec(name)


def test_spec_name_round_trips_and_bad_training_arguments_raise(fw):
    spec = networks.parse_spec("gru-d128-L1-s3")
    assert spec == networks.NetworkSpec("gru", 128, 1, 3) and spec.name == "gru-d128-L1-s3"
    model = networks.build(networks.NetworkSpec("gru", 4, 1))
    with pytest.raises(ValueError, match=r"checkpoints \[5\]"):
        networks.train(model, fw, 3, checkpoints=[5])
    with pytest.raises(ValueError, match="updates=0"):
        networks.train(model, fw, 0)
