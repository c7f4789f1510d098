"""Interventions on a selected support (paper 002, A.2.6, reconstructed): feature-space ablation and the model hook."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch
from conftest import tiny_causal_lm

from lib.kstar import interventions as iv
from lib.models import loading


def planted(n: int, d: int, signal: list[int], seed: int, shift: float = 1.5) -> tuple[np.ndarray, np.ndarray]:
    """Balanced labels; the label shifts the coordinates ``signal`` only, everything else is noise."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.standard_normal((n, d)) + 3.0  # non-zero means: zero and mean ablation write different values
    X[:, signal] += shift * y[:, None]
    return X, y


def summary(signal: list[int], support: list[int]) -> pd.Series:
    X_tr, y_tr = planted(160, 24, signal, 0)
    X_te, y_te = planted(160, 24, signal, 1)
    rows = iv.ablation_searches(X_tr, y_tr, X_te, y_te, support, seeds=(1, 2), random_seeds=(0, 1, 2), key="t")
    return iv.summary_table(rows).iloc[0]


# --------------------------------------------------------------------------- feature space


def test_ablate_writes_zero_or_the_mean_exactly_at_the_chosen_columns():
    X = np.arange(12.0).reshape(3, 4) + 1
    means = X.mean(axis=0)
    zero, mean = iv.ablate(X, [1, 3], "zero"), iv.ablate(X, [3, 1], "mean", means)
    assert np.all(zero[:, [1, 3]] == 0) and np.array_equal(zero[:, [0, 2]], X[:, [0, 2]])
    assert np.array_equal(mean[:, [1, 3]], np.tile(means[[1, 3]], (3, 1)))
    assert np.array_equal(mean[:, [0, 2]], X[:, [0, 2]])
    assert np.array_equal(X, np.arange(12.0).reshape(3, 4) + 1)  # the input is not modified


def test_ablating_a_planted_support_removes_the_signal_and_random_ablation_does_not():
    row = summary(signal=[0, 1, 2, 3], support=[0, 1, 2, 3])
    assert row.ceiling > 0.9
    assert row.ceiling_mean < 0.65 and row.necessary  # the label lived only there
    assert math.isinf(row.count_mean)
    assert row.random_ceiling_min > row.tau - row.tolerance  # every equal-size random edit leaves it readable
    assert row.random_overlap == 0.0 and row.support_only >= row.tau and row.sufficient
    assert row.random_only < 0.65  # four noise coordinates alone read nothing


def test_a_redundant_planted_support_is_sufficient_but_not_necessary():
    row = summary(signal=[0, 1, 2, 3, 4, 5, 6, 7], support=[0, 1, 2, 3])  # a second copy of the signal in 4-7
    assert row.sufficient and not row.necessary
    assert row.ceiling_mean >= row.tau - row.tolerance and math.isfinite(row.count_mean)


def test_zero_and_mean_ablation_give_identical_refits():
    X_tr, y_tr = planted(120, 16, [0, 1], 2)
    X_te, y_te = planted(120, 16, [0, 1], 3)
    rows = iv.ablation_searches(X_tr, y_tr, X_te, y_te, [0, 5], seeds=(1,), random_seeds=(0,))
    support = rows[(rows.condition == "support") & (rows.operation == "ablate")]
    zero, mean = support[support["mode"] == "zero"], support[support["mode"] == "mean"]
    assert len(zero) == len(mean) > 1
    assert np.array_equal(zero[["path", "size"]].to_numpy(), mean[["path", "size"]].to_numpy())
    assert np.array_equal(zero.auroc.to_numpy(), mean.auroc.to_numpy())


def test_random_sets_are_equal_sized_outside_the_support_and_fixed_by_their_seed():
    sets = iv.random_sets(30, 5, [0, 1, 2, 3, 4], seeds=(0, 1, 2), key="a")
    assert all(len(s) == 5 and not set(s) & {0, 1, 2, 3, 4} for s in sets)
    assert len(set(sets)) == 3
    assert sets == iv.random_sets(30, 5, [0, 1, 2, 3, 4], seeds=(0, 1, 2), key="a")
    assert sets != iv.random_sets(30, 5, [0, 1, 2, 3, 4], seeds=(0, 1, 2), key="b")
    wide = iv.random_sets(10, 7, list(range(7)), seeds=(0,))  # 3 outside: drawn from all 10
    assert len(wide[0]) == 7


@pytest.mark.parametrize("call, named", [
    (lambda: iv.ablate(np.ones((3, 4)), [4], "zero"), "[4]"),
    (lambda: iv.ablate(np.ones((3, 4)), [1, 1], "zero"), "repeats"),
    (lambda: iv.ablate(np.ones((3, 4)), [], "zero"), "coords is empty"),
    (lambda: iv.ablate(np.ones((3, 4)), [1.0], "zero"), "[1.0]"),
    (lambda: iv.ablate(np.ones((3, 4)), [1], "median"), "'median'"),
    (lambda: iv.ablate(np.ones((3, 4)), [1], "mean"), "needs means"),
    (lambda: iv.ablate(np.ones((3, 4)), [1], "mean", np.ones(3)), "(3,)"),
    (lambda: iv.random_sets(10, 11, [0]), "size=11"),
    (lambda: iv.random_sets(10, 2, [0], seeds=()), "seeds=()"),
    (lambda: iv.ablation_searches(np.ones((8, 4)), np.r_[0, 1] * 4, np.ones((8, 3)), np.r_[0, 1] * 4, [0]), "(8, 3)"),
    (lambda: iv.ablation_searches(np.ones((8, 4)), np.tile([0, 1], 4), np.ones((8, 4)), np.tile([0, 1], 4), [9]),
     "support holds [9]"),
    (lambda: iv.balanced_indices([0, 0, 1], 4), "n=4"),
])
def test_bad_input_is_a_value_error_naming_the_value(call, named):
    with pytest.raises(ValueError) as err:
        call()
    assert named in str(err.value)


# --------------------------------------------------------------------------- inside the model


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = tiny_causal_lm(tmp_path_factory.mktemp("tiny") / "tiny-llama")
    return folder, loading.load_causal_lm(folder).eval()


def test_the_hook_changes_the_block_output_exactly_at_the_chosen_coordinates(tiny):
    folder, model = tiny
    ids, mask = iv._left_padded([[5, 6, 7, 8, 9], [10, 11, 12]], 0)
    coords, values = [3, 17, 30], np.array([0.5, -2.0, 7.0])
    plain, upstream = iv.block_output(model, 0, ids, mask), iv.block_output(model, 1, ids, mask)
    with iv.ablation_hook(model, 0, coords, values):
        edited, downstream = iv.block_output(model, 0, ids, mask), iv.block_output(model, 1, ids, mask)
    others = np.setdiff1d(np.arange(plain.shape[-1]), coords)
    assert torch.equal(edited[..., others], plain[..., others])
    assert torch.equal(edited[..., coords], torch.tensor(values, dtype=torch.float32).expand(2, 5, 3))
    assert not torch.equal(downstream, upstream)  # the next block reads the edited state
    assert torch.equal(iv.block_output(model, 0, ids, mask), plain)  # removed on exit
    check = iv.hook_check(str(folder), 0, coords, values, ["a short text", "another one here"])
    assert check["max_outside"] == 0 and check["max_inside"] == 0 and check["logit_change"] > 0


def test_first_reply_logprobs_of_left_padded_batches_match_an_unbatched_forward_pass(tiny):
    _, model = tiny
    prompts, tokens = [[5, 6, 7], [8, 9, 10, 11, 12]], [20, 21]
    replies, scores = iv.greedy_replies(model, prompts, max_new_tokens=2, pad_id=0, eos_ids=[102], score_tokens=tokens)
    for prompt, reply, row in zip(prompts, replies, scores, strict=True):
        with torch.inference_mode():
            logp = torch.log_softmax(model(input_ids=torch.tensor([prompt])).logits[0, -1], -1)
        assert row == pytest.approx(logp[tokens].numpy(), abs=1e-4)
        assert reply[0] == int(logp.argmax()) and 1 <= len(reply) <= 2


def test_hook_rejects_a_block_or_coordinate_the_model_lacks(tiny):
    _, model = tiny
    with pytest.raises(ValueError, match="block=2"), iv.ablation_hook(model, 2, [0], 0.0):
        pass
    with pytest.raises(ValueError, match=r"\[32\]"), iv.ablation_hook(model, 0, [32], 0.0):
        pass


def test_generation_table_reads_no_change_without_an_edit_and_a_change_with_one(tiny):
    folder, _ = tiny
    texts = ["good film", "bad film", "fine", "awful", "great fun", "dull"]
    X_train = np.random.default_rng(0).standard_normal((10, 32))
    prompts = iv.generation_prompts(str(folder), texts, [1, 0, 1, 0, 1, 0], 0, list(range(16)), X_train,
                                    instruction="Review: {text}", continuations=["yes", "no"], random_seeds=(0,),
                                    key="t", max_new_tokens=3, batch_size=4)
    assert len(prompts) == 5 * len(texts) and list(prompts.columns) == list(iv.PROMPT_COLUMNS)
    table = iv.generation_table(prompts)
    assert list(table.condition) == ["none", "support", "support", "random", "random"]
    base = table.iloc[0]
    assert base.margin_change == 0 and base.replies_changed == 0
    assert (table.margin_change.iloc[1:] > 0).all()
    assert table.set_size.iloc[1:].eq(16).all() and table.n_prompts.eq(len(texts)).all()
    with pytest.raises(ValueError, match=r"^instruction='no slot' holds 0 \{text\} slots; allowed: exactly one$"):
        iv.generation_prompts(str(folder), texts, [1, 0] * 3, 0, [0], X_train, instruction="no slot",
                              continuations=["yes", "no"])


def test_the_generator_reads_each_question_whole_ending_with_the_generation_prompt(tiny, monkeypatch):
    """A.1.2's rule for K07's generation: the text alone is cut, the instruction and the generation prompt survive,
    and every prompt the model answers fits max_tokens."""
    folder, _ = tiny
    tokenizer = loading.cached_tokenizer(str(folder))
    article = " ".join(f"word{i} of a long article" for i in range(80))
    question = "Is this about {text} Answer yes or no."
    read, replies = [], iv.greedy_replies

    def reading(model, prompts, **settings):  # the token ids the model answers, as generation_prompts passes them
        read.append(prompts)
        return replies(model, prompts, **settings)

    monkeypatch.setattr(iv, "greedy_replies", reading)
    iv.generation_prompts(str(folder), [article, "fine"], [1, 0], 0, [0, 1], np.zeros((3, 32)), instruction=question,
                          continuations=["yes", "no"], random_seeds=(0,), key="t", max_tokens=24, max_new_tokens=1)
    tail = tokenizer("answer yes or no. [SEP] [assistant]")["input_ids"][1:]  # less [CLS]; the tokenizer's [SEP] last
    for prompts in read:
        assert len(prompts[0]) == 24 and len(prompts[1]) < 24  # the article cut to the limit, the short text whole
        assert all(p[-len(tail):] == tail for p in prompts)
    inputs = iv.generation_inputs(str(folder), [article, "fine"], instruction=question, max_tokens=24)
    assert inputs.kept_tokens[0] < inputs.text_tokens[0] and inputs.kept_tokens[1] == inputs.text_tokens[1] == 1
    assert inputs.summary()["truncated"] == 0.5


def _prompts(support: float, randoms: list[float], n: int = 40, noise: float = 0.1, seed: int = 0) -> pd.DataFrame:
    """Per-prompt margin changes: S around ``support``, random set r around ``randoms[r]`` (mean mode)."""
    rng = np.random.default_rng(seed)
    rows = [{"condition": "support", "set_seed": -1, "mode": "mean", "prompt": i,
             "margin_change": abs(support + noise * rng.standard_normal())} for i in range(n)]
    rows += [{"condition": "random", "set_seed": r, "mode": "mean", "prompt": i,
              "margin_change": abs(level + noise * rng.standard_normal())}
             for r, level in enumerate(randoms) for i in range(n)]
    return pd.DataFrame(rows)


def test_margin_ratio_is_the_log2_ratio_to_the_median_random_set_with_a_bootstrap_se():
    value, se = iv.margin_ratio(_prompts(2.0, [0.5, 1.0, 1.0, 1.5, 3.0]), n_boot=400)
    assert value == pytest.approx(1.0, abs=0.05)  # 2 against the median set's 1
    assert 0 < se < 0.5
    tight, _ = iv.margin_ratio(_prompts(1.0, [1.0] * 5, noise=0.01), n_boot=50)
    assert tight == pytest.approx(0.0, abs=0.02)
    # a wider spread between random directions widens the s.e.
    assert iv.margin_ratio(_prompts(2.0, [0.2, 0.5, 1.0, 2.0, 5.0]), n_boot=400)[1] > se
    with pytest.raises(ValueError, match="no support or no random"):
        iv.margin_ratio(_prompts(2.0, [1.0]).query("condition == 'support'"))


def test_edit_norm_mechanism_names_a_smaller_edit_that_moves_more_per_unit():
    table = pd.DataFrame({"condition": ["support", "random", "random"], "mode": "mean", "edit_norm": [1.0, 4.0, 2.0],
                          "margin_change": [0.9, 1.2, 1.0]})
    text = iv.edit_norm_mechanism(table, "mean", "generation.parquet")
    assert "norm of 1 against a median 3" in text and text.endswith("(generation.parquet)")
    assert iv.edit_norm_mechanism(table.assign(edit_norm=[5.0, 4.0, 2.0]), "mean", "g.parquet") == ""
