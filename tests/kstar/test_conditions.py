"""lib.kstar.deployment.conditions: condition names, K01-identical cache keys for plain conditions, follower
tasks, the one-template check."""

import pandas as pd
import pytest

from lib import config, results
from lib.kstar import measure
from lib.kstar.deployment import conditions


def test_names_and_the_chat_flag_only_when_chat():
    assert conditions.condition_name("m", True) == "m|chat"
    assert conditions.Condition("m", False, ("t",)).name == "m|plain"
    assert conditions.Condition("m", False, ("t",)).format_args() == {}
    assert conditions.Condition("m", True, ("t",)).format_args() == {"chat_template": True}


def test_an_instruction_tuned_conditions_chat_format_is_its_main_protocols_key():
    """A.1.2 reads SmolLM2-135M-Instruct in chat format, so its chat condition shares K01's key and its plain
    condition forces plain text."""
    assert conditions.Condition("smollm2-135m", True, ("t",)).format_args() == {}
    assert conditions.Condition("smollm2-135m", False, ("t",)).format_args() == {"chat_template": False}


def test_a_condition_in_the_models_own_format_asks_for_k01s_exact_sweep(monkeypatch):
    keys = []
    monkeypatch.setattr(results, "shared_table", lambda func, *a, **kw: keys.append(
        results.to_json([func.__qualname__, a, {k: v for k, v in kw.items() if k != "n_jobs"}])) or pd.DataFrame())
    p = config.resolve("K01_kstar", "default")
    pool = {"cap": p.cap, "pool_seed": p.pool_seed, "max_classes": p.max_classes, "max_tokens": p.max_tokens,
            "min_positives": p.min_positives}
    results.shared_table(measure.sweep_table, "smollm2-135m", layers=p.layers, poolings=p.sweep_poolings,
                         n_jobs=p.n_jobs, scheduler=p.scheduler, tasks=p.tasks, **pool)  # K01's call
    conditions.sweeps([conditions.Condition("smollm2-135m", True, p.tasks)], layers=p.layers,
                      poolings=p.sweep_poolings, n_jobs=2, **pool)
    conditions.sweeps([conditions.Condition("smollm2-135m", False, p.tasks)], layers=p.layers,
                      poolings=p.sweep_poolings, **pool)
    assert keys[0] == keys[1] != keys[2]


def test_follower_tasks_are_the_union_of_their_bases_in_task_order():
    passing = {"a|plain": ("t3", "t1"), "b|plain": ("t2",), "c|plain": ()}
    out = conditions.follower_tasks({"a|chat": ["a|plain"], "x|chat": ["c|plain", "b|plain", "a|plain"],
                                "y|chat": ["c|plain"]}, passing, ["t1", "t2", "t3"])
    assert out == {"a|chat": ("t1", "t3"), "x|chat": ("t1", "t2", "t3"), "y|chat": ()}


def test_empty_condition_lists_give_empty_tables():
    assert conditions.sweeps([], layers="grid:4", poolings=("mean",)).empty
    assert conditions.windows(pd.DataFrame()).empty and conditions.task_tables(pd.DataFrame()).empty
    assert conditions.window_rows([], pd.DataFrame(), seeds=(1,), subsample=0.85).empty


@pytest.mark.models
def test_one_chat_template_for_both_weights():
    conditions.check_chat_template("smollm2-135m", "smollm2-135m")
    with pytest.raises(ValueError, match="one chat template"):
        conditions.check_chat_template("smollm2-135m", "minilm")  # an encoder without a chat template
