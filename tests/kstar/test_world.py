"""lib.kstar.world.world: the synthetic factor world of paper 002, A.3.3 (Eq. 45–48, Lemma 4, Proposition 5,
Table 35)."""

import math
from itertools import product

import numpy as np
import pytest
from scipy import stats as sps

from lib.kstar.world import world
from lib.kstar.world.world import FactorWorld


@pytest.fixture(scope="module")
def fw():
    return FactorWorld()


def test_table_35_keeps_the_stated_constraints():
    table = world.TABLE_35
    for function, size in world.FAMILIES:
        assert len(table[(function, size, "target")]) == len(table[(function, size, "control")]) == size
    assert table[("threshold", 8, "target")] == tuple(range(12, 20))
    assert table[("threshold", 8, "control")] == tuple(range(16, 24))
    control16 = set(table[("threshold", 16, "control")])
    assert set(table[("conjunction", 2, "target")]) <= control16
    assert set(table[("conjunction", 4, "target")]) <= control16
    # only the overlap pair shares factors within a family
    for function, size in world.FAMILIES:
        shared = set(table[(function, size, "target")]) & set(table[(function, size, "control")])
        assert bool(shared) == ((function, size) == ("threshold", 8))


def test_vocabulary_and_lengths_follow_the_paper(fw):
    assert world.VOCAB_SIZE == 118 and world.SEQ_LEN == 58 and world.PREFIX_LEN == 35
    assert world.N_QUERIES == 50 and len(fw.queries) == 50
    assert sum(q.role == "control" for q in fw.queries) == 9
    assert sum(q.role == "target" for q in fw.queries) == 9
    assert fw.query("threshold8_target").factors == tuple(range(11, 19))  # factors 12–19, 0-based


def test_training_sequences_have_the_layout_of_eq_46(fw):
    batch = fw.sample(np.random.default_rng(0), 500)
    tokens = batch.tokens
    assert tokens.shape == (500, 58) and tokens.min() >= 0 and tokens.max() < world.VOCAB_SIZE
    assert (tokens[:, 0] == world.BOS).all() and (tokens[:, 33] == world.SEP).all()
    obs = tokens[:, 1:33] - world.OBSERVATION0
    assert (np.sort(obs // 2, axis=1) == np.arange(32)).all()  # every factor observed once
    z_from_tokens = np.zeros((500, 32), dtype=np.int8)
    np.put_along_axis(z_from_tokens, obs // 2, (obs % 2).astype(np.int8), axis=1)
    assert (z_from_tokens == batch.factors).all()
    queries = tokens[:, 34::2] - world.QUERY0
    assert (queries == batch.queries).all()
    assert all(len(set(row)) == 12 for row in queries.tolist())  # distinct queries
    assert (tokens[:, list(world.ANSWER_POSITIONS)] - world.ANSWER0 == batch.answers).all()
    # factor and target answers are the truth; control answers are independent fair bits
    supervised = ~np.isin(batch.queries, [q.index for q in fw.queries if q.role == "control"])
    assert (batch.answers[supervised] == batch.truth[supervised]).all()
    control = ~supervised
    agree = (batch.answers[control] == batch.truth[control]).mean()
    assert abs(agree - 0.5) < 4 * 0.5 / math.sqrt(control.sum())


def test_order_is_uniform_so_no_factor_sits_at_a_fixed_position(fw):
    tokens = fw.sample(np.random.default_rng(1), 4000).tokens
    first = (tokens[:, 1] - world.OBSERVATION0) // 2
    counts = np.bincount(first, minlength=32)
    assert sps.chisquare(counts).pvalue > 1e-3


@pytest.mark.parametrize(("function", "size"), world.FAMILIES)
def test_lemma_4_label_rates_match_monte_carlo(fw, function, size):
    probes = fw.probe_set(np.random.default_rng(4), 20_000, [f"{function}{size}_target", f"{function}{size}_control"])
    rate = world.label_rate(function, size)
    se = math.sqrt(rate * (1 - rate) / 20_000)
    assert np.all(np.abs(probes.labels.mean(axis=1) - rate) < 4 * se)


def test_label_rate_closed_forms():
    assert world.label_rate("threshold", 2) == pytest.approx(0.75)  # 1 − P(both 0)
    assert world.label_rate("threshold", 4) == pytest.approx(11 / 16)
    assert world.label_rate("threshold", 16) == pytest.approx(0.5 + math.comb(16, 8) / 2**17)
    assert world.label_rate("conjunction", 4) == 1 / 16
    assert world.label_rate("parity", 8) == 0.5
    # exact enumeration for an odd size (ties cannot happen)
    assert world.label_rate("threshold", 5) == pytest.approx(
        np.mean([sum(z) >= 2.5 for z in product((0, 1), repeat=5)]))


def test_proposition_5_infimum():
    assert world.loss_infimum() == pytest.approx(9 / 50 * math.log(2))


def test_attainable_loss_is_the_loss_of_a_model_that_leaves_the_unlearned_parities_at_chance(fw):
    """An oracle that answers every query exactly except the controls and the two parity targets the paper's
    models do not learn (answered ½/½) has mean answer loss (11/50)·log 2 on the pool's queries."""
    roles = {q.name: q.role for q in fw.queries}
    assert all(roles[name] == "target" for name in world.UNLEARNED_TARGETS)
    at_chance = [q.role == "control" or q.name in world.UNLEARNED_TARGETS for q in fw.queries]
    assert np.mean(at_chance) * math.log(2) == pytest.approx(world.attainable_loss())
    assert world.attainable_loss() == pytest.approx(11 / 50 * math.log(2))


def test_the_attainable_loss_of_a_set_counts_its_own_positions_at_chance(fw):
    """log 2 at each position of a control or an unlearned parity target, zero elsewhere; over many sequences it
    approaches (11/50)·log 2."""
    batch = fw.sample(np.random.default_rng(6), 64)
    unlearned = [fw.queries[q].role == "control" or fw.queries[q].name in world.UNLEARNED_TARGETS
                 for q in batch.queries.ravel()]
    assert fw.attainable_loss_on(batch) == pytest.approx(np.mean(unlearned) * math.log(2))
    large = fw.sample(np.random.default_rng(7), 20_000)
    se = math.log(2) * math.sqrt(0.22 * 0.78 / large.queries.size)
    assert abs(fw.attainable_loss_on(large) - world.attainable_loss()) < 4 * se


def test_a_query_at_chance_costs_the_entropy_of_its_label(fw):
    assert fw.query("factor3").chance_cost == pytest.approx(math.log(2))
    assert fw.query("parity2_target").chance_cost == pytest.approx(math.log(2))
    assert fw.query("conjunction4_target").chance_cost == pytest.approx(
        -(1 / 16 * math.log(1 / 16) + 15 / 16 * math.log(15 / 16)))
    assert world.binary_entropy(0.0) == 0.0
    learnable = {q.name for q in fw.queries if q.learnable}
    assert "parity2_target" in learnable and "factor1" in learnable
    assert not learnable & {"parity4_target", "parity8_target", "parity2_control", "threshold8_control"}
    assert len(learnable) == 32 + 7  # the factors and the seven learned families' targets


def test_probe_prefixes_end_at_the_query_and_label_the_true_aggregate(fw):
    probes = fw.probe_set(np.random.default_rng(2), 300, ["parity2_control", "factor5"])
    assert probes.tokens.shape == (2, 300, 35)
    assert (probes.tokens[0, :, :-1] == probes.tokens[1, :, :-1]).all()  # same z and order
    assert (probes.tokens[0, :, -1] == fw.query("parity2_control").token).all()
    obs = probes.tokens[0, :, 1:33] - world.OBSERVATION0
    z = np.zeros((300, 32), dtype=int)
    np.put_along_axis(z, obs // 2, obs % 2, axis=1)
    s = fw.query("parity2_control").factors
    assert (probes.labels[0] == z[:, list(s)].sum(1) % 2).all()
    assert (probes.labels[1] == z[:, 4]).all()


def test_vectorised_sampling_is_reproducible(fw):
    a = fw.sample(np.random.default_rng(7), 64)
    b = fw.sample(np.random.default_rng(7), 64)
    assert (a.tokens == b.tokens).all()


@pytest.mark.parametrize(("change", "named"), [
    ({("threshold", 2, "target"): (1, 2, 3)}, "(1, 2, 3)"),
    ({("parity", 4, "control"): (1, 1, 2, 3)}, "(1, 1, 2, 3)"),
    ({("conjunction", 2, "target"): (0, 5)}, "[0]"),
    ({("conjunction", 2, "target"): (5, 33)}, "[33]"),
    ({("parity", 2, "control"): (10, 23)}, "(10, 23)"),
    ({("parity", 3, "target"): (1, 2, 3)}, "('parity', 3, 'target')"),
])
def test_subsets_breaking_a_constraint_raise_naming_the_value(change, named):
    subsets = {**world.TABLE_35, **change}
    with pytest.raises(ValueError, match=named.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        FactorWorld(subsets)


def test_missing_key_and_bad_arguments_raise(fw):
    subsets = dict(world.TABLE_35)
    del subsets[("parity", 8, "control")]
    with pytest.raises(ValueError, match="lacks"):
        FactorWorld(subsets)
    with pytest.raises(ValueError, match="n=0"):
        fw.sample(np.random.default_rng(0), 0)
    with pytest.raises(ValueError, match="nope"):
        fw.query("nope")
    with pytest.raises(ValueError, match="majority"):
        world.label_rate("majority", 2)
