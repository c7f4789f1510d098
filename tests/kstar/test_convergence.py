"""lib.kstar.world.convergence: the convergence margin of K04 (paper 002, A.3.3 Proposition 5, A.3.4), on predictors
whose answer loss and accuracy are computed position by position on sampled sequences."""

import math

import numpy as np
import pandas as pd
import pytest

from lib.kstar.world import convergence, world

N_EVAL = 512


@pytest.fixture(scope="module")
def fw():
    return world.FactorWorld()


def _predict(fw, batch, at_chance=(), eps=1e-6):
    """P(answer 1) at every position: the true value (to within ``eps``) for a learnable query, its label rate for
    one in ``at_chance`` (answered without reading the prefix), ½ for a control or an unlearned parity target."""
    out = np.empty(batch.queries.shape)
    for (i, j), index in np.ndenumerate(batch.queries):
        query = fw.queries[index]
        if query.name in at_chance:
            out[i, j] = query.rate
        elif query.learnable:
            out[i, j] = 1 - eps if batch.truth[i, j] else eps
        else:
            out[i, j] = 0.5
    return out


def _loss_and_accuracy(batch, p):
    """Eq. 49's loss on the shown answers and per-query accuracy against the truth, as networks.evaluate reads them
    (the more probable answer token; a tie reads 0)."""
    loss = float(-np.mean(np.where(batch.answers == 1, np.log(p), np.log(1 - p))))
    correct = ((p > 0.5) == batch.truth.astype(bool)).ravel()
    hits = np.bincount(batch.queries.ravel(), weights=correct, minlength=world.N_QUERIES)
    seen = np.bincount(batch.queries.ravel(), minlength=world.N_QUERIES)
    return loss, np.divide(hits, seen, out=np.full(world.N_QUERIES, np.nan), where=seen > 0)


def _verdict(fw, at_chance=()):
    batch = convergence.held_out_set(fw, N_EVAL, 0)
    loss, accuracy = _loss_and_accuracy(batch, _predict(fw, batch, at_chance))
    return convergence.judge(loss, accuracy, batch, fw, convergence.margin(fw, 0.5))


def test_the_margin_is_half_the_least_cost_of_a_learnable_query_at_chance(fw):
    assert convergence.least_chance_cost(fw).name == "conjunction4_target"
    h = -(1 / 16 * math.log(1 / 16) + 15 / 16 * math.log(15 / 16))
    assert convergence.margin(fw, 0.5) == pytest.approx(0.5 * h / 50)
    assert convergence.margin(fw, 0.5) < math.log(2) / 50  # below the two-factor parity's own cost
    for share in (0.0, 1.0):
        with pytest.raises(ValueError, match="share"):
            convergence.margin(fw, share)


def test_a_model_within_the_margin_on_every_target_is_converged(fw):
    verdict = _verdict(fw)
    assert verdict.converged and verdict.at_chance == ()
    assert 0 < verdict.gap < 1e-4
    assert verdict.least_accurate[1] == 1.0


def test_a_model_at_chance_on_the_two_factor_parity_is_not_converged(fw):
    verdict = _verdict(fw, at_chance=("parity2_target",))
    assert not verdict.converged
    assert [name for name, _ in verdict.at_chance] == ["parity2_target"]
    assert math.log(2) / 50 / 2 < verdict.gap < 0.02  # the former margin of 0.02 counted this model as converged


@pytest.mark.parametrize("target", [q.name for q in world.FactorWorld().queries if q.role == "target" and q.learnable])
def test_a_model_at_chance_on_any_learnable_target_is_not_converged(fw, target):
    verdict = _verdict(fw, at_chance=(target,))
    assert not verdict.converged
    assert target in [name for name, _ in verdict.at_chance]


def test_the_reason_says_where_training_stopped_and_what_is_at_chance(fw):
    margin = convergence.margin(fw, 0.5)
    parity = _verdict(fw, at_chance=("parity2_target",))
    capped = convergence.reason(parity, margin, last=30000, cap=30000, to_margin=True)
    assert capped.startswith("step cap 30000 reached with loss gap") and "at chance: parity2_target" in capped
    fixed = convergence.reason(parity, margin, last=1000, cap=1000, to_margin=False)
    assert fixed.startswith("trained the fixed 1000 updates")
    early = convergence.reason(parity, margin, last=2500, cap=30000, to_margin=True)
    assert early.startswith("stopped at 2500 updates within the margin on the stopping set")
    assert convergence.reason(_verdict(fw), margin, last=9, cap=9, to_margin=False) == ""
    factors = _verdict(fw, at_chance=("factor1", "factor2", "conjunction2_target"))
    assert convergence.chance_words(factors.at_chance).startswith("conjunction2_target (0.")
    assert convergence.chance_words(factors.at_chance).endswith(", 2 of 32 factors")


def _runs(fw, model, arch, update, at_chance=()):
    """The accuracy rows a K04 runs table holds for ``model`` at its last update, from :func:`_predict`."""
    batch = convergence.held_out_set(fw, N_EVAL, 0)
    loss, accuracy = _loss_and_accuracy(batch, _predict(fw, batch, at_chance))
    return pd.DataFrame({"model": model, "kind": "accuracy", "update": update, "arch": arch,
                         "query": [q.name for q in fw.queries] + ["loss"], "value": [*accuracy, loss]})


def test_models_are_counted_per_family_and_none_is_silently_dropped(fw):
    runs = pd.concat([_runs(fw, "transformer-a", "transformer", 3000),
                      _runs(fw, "transformer-b", "transformer", 1000, ("threshold16_target",)),
                      _runs(fw, "gru-c", "gru", 30000, ("parity2_target",))], ignore_index=True)
    args = {"n_eval": N_EVAL, "probe_seed": 0, "margin": convergence.margin(fw, 0.5), "updates": 1000,
            "max_updates": 30000, "converge": ["transformer-a", "gru-c"]}
    table = convergence.convergence_table(runs, fw, **args).set_index("model")
    assert table.converged.to_dict() == {"transformer-a": True, "transformer-b": False, "gru-c": False}
    assert table.loc["gru-c", "reason"].startswith("step cap 30000")
    assert table.loc["transformer-b", "at_chance"].startswith("threshold16_target (0.")
    families = convergence.family_table(table.reset_index()).set_index("arch")
    assert families.loc["transformer", ["models", "converged", "not_converged"]].tolist() == [2, 1, 1]
    assert families.loc["gru", "converged"] == 0 and "gru-c: step cap" in families.loc["gru", "why_not"]
    trained = convergence.population(table.reset_index())
    assert trained.models == ("transformer-a",) and trained.undefined == ""
    assert "tested on transformers only: no GRU reached it (gru-c: step cap 30000" in trained.note
    nobody = convergence.population(convergence.convergence_table(runs[runs.model != "transformer-a"], fw, **args))
    assert nobody.models == () and nobody.undefined.startswith("no model reached the convergence margin")
    assert "gru-c: step cap" in nobody.undefined and "transformer-b: trained the fixed" in nobody.undefined
