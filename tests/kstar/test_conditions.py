"""lib.kstar.deployment.conditions: condition names, K01-identical cache keys for plain conditions, follower
tasks, the one-template check."""

import pandas as pd
import pytest

from lib import config, results
from lib.kstar import estimator, measure
from lib.kstar.deployment import conditions


def test_names_and_the_chat_flag_only_when_chat():
    assert conditions.condition_name("m", True) == "m|chat"
    assert conditions.Condition("m", False, ("t",)).name == "m|plain"
    assert conditions.Condition("m", False, ("t",)).control == ""
    assert conditions.Condition("m", True, ("t",)).control == "format"


def test_an_instruction_tuned_models_chat_condition_is_its_main_protocol():
    """A.1.2 reads SmolLM2-135M-Instruct in chat format, so its chat condition is K01's measurement and its plain
    condition the format control."""
    assert conditions.Condition("smollm2-135m", True, ("t",)).control == ""
    assert conditions.Condition("smollm2-135m", False, ("t",)).control == "format"


def test_a_condition_in_the_models_own_format_asks_for_k01s_exact_sweep(monkeypatch):
    keys = []
    monkeypatch.setattr(results, "shared_table", lambda func, *a, **kw: keys.append(
        results.to_json([func.__qualname__, a, {k: v for k, v in kw.items() if k != "n_jobs"}])) or pd.DataFrame())
    p = config.resolve("K01_kstar", "default")
    pool = {"cap": p.cap, "pool_seed": p.pool_seed, "max_classes": p.max_classes, "max_tokens": p.max_tokens,
            "min_positives": p.min_positives}
    results.shared_table(measure.sweep_table, "smollm2-135m", layers=p.layers, poolings=p.sweep_poolings,
                         n_jobs=p.n_jobs, scheduler=p.scheduler, tasks=p.tasks, **pool)  # K01's call
    protocol = estimator.Protocol.of(p)
    for chat in (True, False):
        with pytest.raises(KeyError):  # the stub's empty sweep stops the estimator after its first stage
            conditions.tables([conditions.Condition("smollm2-135m", chat, p.tasks)], protocol, n_jobs=2)
    assert keys[0] == keys[1] != keys[2]


def test_follower_tasks_are_the_union_of_their_bases_in_task_order():
    passing = {"a|plain": ("t3", "t1"), "b|plain": ("t2",), "c|plain": ()}
    out = conditions.follower_tasks({"a|chat": ["a|plain"], "x|chat": ["c|plain", "b|plain", "a|plain"],
                                "y|chat": ["c|plain"]}, passing, ["t1", "t2", "t3"])
    assert out == {"a|chat": ("t1", "t3"), "x|chat": ("t1", "t2", "t3"), "y|chat": ()}


def test_an_empty_condition_list_gives_empty_tables():
    found = conditions.tables([], estimator.Protocol.of(config.resolve("K05_deployment", "smoke")))
    assert all(getattr(found, f).empty for f in ("sweep", "best_blocks", "window_fits", "ceilings", "counts"))


@pytest.mark.models
def test_one_chat_template_for_both_weights():
    conditions.check_chat_template("smollm2-135m", "smollm2-135m")
    with pytest.raises(ValueError, match="one chat template"):
        conditions.check_chat_template("smollm2-135m", "minilm")  # an encoder without a chat template


def test_the_default_reference_condition_is_k01s_measurement_and_runs_after_it():
    """One content key: under `default` K05's reference model is one of K01's models under K01's protocol, so its plain
    condition asks for K01's sweep and window; K05 (and K02, K03, which reuse K01's searches) read K01, so the runner
    starts them after it and two lanes never compute one search twice."""
    k01, k05 = config.resolve("K01_kstar", "default"), config.resolve("K05_deployment", "default")
    assert k05.model in k01.models and estimator.Protocol.of(k05) == estimator.Protocol.of(k01)
    assert conditions.Condition(k05.model, False, k05.tasks).control == ""  # a base model on raw text: no control
    for notebook in ("K02_kstar_controls", "K03_task_order", "K05_deployment"):
        assert "K01_kstar" in config.resolve(notebook, "default").reads


def test_the_inputs_table_reads_each_condition_in_its_own_format_and_tasks(monkeypatch):
    """K05's `inputs` table: a condition's texts in its own format (A.3.2), only its tasks, and a chat input cut inside
    its text within max_tokens (tiny-llama's chat format adds 9 tokens, its plain input 2)."""
    from types import SimpleNamespace

    long = " ".join(f"word{i} of a long article" for i in range(40))
    pools = {"a": SimpleNamespace(texts_train=[long], texts_test=["A short one."]),
             "b": SimpleNamespace(texts_train=["Two words"], texts_test=["Three short words"])}
    monkeypatch.setattr(measure, "pools", lambda tasks, **_: {t: pools[t] for t in tasks})
    protocol = estimator.Protocol(tasks=("a", "b"), cap=20, pool_seed=0, max_classes=2, max_tokens=16, min_positives=1,
                                  layers="grid:2", sweep_poolings=("mean",), frac=0.95)
    table = conditions.input_lengths_table([conditions.Condition("tiny-llama", False, ("a", "b")),
                                            conditions.Condition("tiny-llama", True, ("a",))], protocol)
    assert table[["condition", "task", "format"]].values.tolist() == [
        ["tiny-llama|plain", "a", "plain"], ["tiny-llama|plain", "b", "plain"], ["tiny-llama|chat", "a", "chat"]]
    assert table.kept_max.tolist() == [16 - 2, 3, 16 - 9] and table.truncated.tolist() == [0.5, 0.0, 0.5]
