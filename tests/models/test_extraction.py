"""lib.models.extraction: batched extraction of every layer, pooling, token-level states, the chat rendering."""


import numpy as np
import pytest
import torch

from lib.models import extraction, loading

TEXTS = ["The man works as a nurse.", "The woman is very quiet today.", "The person spent the afternoon reading.",
         "The elderly neighbor enjoys doing the laundry on weekends.", "The individual is curious."]


def test_minilm_all_layers_match_a_per_sentence_loop(sandbox):
    batched = extraction.extract("minilm", TEXTS, progress=False, batch_size=4)
    assert batched.shape == (7, len(TEXTS), 384) and batched.dtype == np.float32
    single = np.stack([extraction.compute_hidden_states("minilm", [t], progress=False)[:, 0] for t in TEXTS], axis=1)
    np.testing.assert_allclose(batched, single, atol=1e-5)


def test_length_batches_sort_by_length_and_respect_both_limits():
    lengths = [5, 3, 9, 9, 2, 40, 1]
    batches = extraction.length_batches(lengths, max_texts=3, token_budget=20)
    assert [b.tolist() for b in batches] == [[6, 4, 1], [0, 2], [3], [5]]  # 40 tokens exceed the budget: alone
    assert all(len(b) <= 3 and (len(b) == 1 or len(b) * max(lengths[i] for i in b) <= 20) for b in batches)
    assert sorted(np.concatenate(batches).tolist()) == list(range(len(lengths)))
    with pytest.raises(ValueError, match="token_budget=0"):
        extraction.length_batches(lengths, 3, 0)


def test_mean_pooling_is_the_masked_token_average():
    model, tokenizer = loading.load("minilm")
    encoded = tokenizer([TEXTS[0]], return_tensors="pt")
    with torch.inference_mode():
        hidden = model(**encoded, output_hidden_states=True).hidden_states[3][0]
    expected = hidden.mean(0).numpy()
    got = extraction.compute_hidden_states("minilm", [TEXTS[0], TEXTS[3]], progress=False)[3, 0]
    np.testing.assert_allclose(got, expected, atol=1e-5)










def test_several_poolings_from_one_pass_equal_one_pooling_at_a_time(sandbox):
    together = extraction.extract_poolings("minilm", TEXTS, layers=[3], progress=False)
    assert set(together) == set(extraction.POOLINGS)
    for pooling, states in together.items():
        alone = extraction.compute_hidden_states("minilm", TEXTS, pooling=pooling, progress=False)[[3]]
        np.testing.assert_allclose(states, alone, atol=1e-5)
        np.testing.assert_array_equal(extraction.extract("minilm", TEXTS, pooling=pooling, layers=[3]), states)
    with pytest.raises(ValueError, match="poolings=.* is not allowed"):
        extraction.extract_poolings("minilm", TEXTS, poolings=("mean", "mean"))


@pytest.mark.parametrize("pooling", ["last", "max"])
def test_other_poolings(pooling):
    states = extraction.compute_hidden_states("minilm", TEXTS, pooling=pooling, progress=False)
    assert states.shape == (7, len(TEXTS), 384) and np.isfinite(states).all()


def test_decoder_plumbing_with_a_tiny_random_llama(tmp_path):
    """Right padding and `last` pooling on a decoder (a tiny random model: plumbing only)."""
    from transformers import LlamaConfig, LlamaModel

    config = LlamaConfig(vocab_size=30522, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=2)
    LlamaModel(config).save_pretrained(tmp_path, safe_serialization=True)
    loading.load("minilm")[1].save_pretrained(tmp_path)  # a real tokenizer; ids fit the 30522-word vocabulary
    _, tokenizer = loading.load(str(tmp_path))
    texts = ["a b", "a b c d e f"]
    batched = extraction.compute_hidden_states(str(tmp_path), texts, pooling="last", progress=False)
    alone = extraction.compute_hidden_states(str(tmp_path), texts[:1], pooling="last", progress=False)
    assert batched.shape == (3, 2, 16)
    np.testing.assert_allclose(batched[:, 0], alone[:, 0], atol=1e-5)
    assert tokenizer.padding_side == "right"


def test_bad_input_fails_before_compute():
    with pytest.raises(ValueError, match="pooling='median' is not supported; allowed: mean, last, max"):
        extraction.extract("minilm", TEXTS, pooling="median")
    with pytest.raises(ValueError, match=r"layers=\[9\] is out of range; allowed: 'all' or indices 0..6"):
        extraction.extract("minilm", TEXTS, layers=[9])
    with pytest.raises(ValueError, match="non-empty"):
        extraction.extract("minilm", [])
    with pytest.raises(ValueError, match="no chat template"):
        extraction.compute_hidden_states("minilm", TEXTS, chat_template=True, progress=False)














@pytest.mark.models
def test_chat_input_is_the_user_turn_plus_the_generation_prompt():
    rendered = extraction.render("smollm2-135m", ["Is this review positive?"], chat_template=True)[0]
    assert "Is this review positive?" in rendered
    assert rendered.rstrip().endswith("<|im_start|>assistant")
    assert extraction.render("smollm2-135m", ["plain"], chat_template=False) == ["plain"]








def test_token_states_are_every_real_token_in_text_order():
    states, owner = extraction.token_states("minilm", TEXTS[:3], layers=[0, 6], progress=False, batch_size=2)
    model, tokenizer = loading.load("minilm")
    lengths = [len(tokenizer(t)["input_ids"]) for t in TEXTS[:3]]
    assert states.shape == (2, sum(lengths), 384)
    assert owner.tolist() == sum(([i] * n for i, n in enumerate(lengths)), [])
    with torch.inference_mode():
        alone = model(**tokenizer([TEXTS[1]], return_tensors="pt"), output_hidden_states=True).hidden_states[6][0]
    np.testing.assert_allclose(states[1, owner == 1], alone.numpy(), atol=1e-5)
    with pytest.raises(ValueError, match="layers"):
        extraction.token_states("minilm", TEXTS, layers=[7])








