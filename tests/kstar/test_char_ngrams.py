"""lib.kstar.tasks.char_ngrams: the n-gram counts equal scikit-learn's CountVectorizer, column for column."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer

from lib.kstar.tasks import char_ngrams


def _sklearn(texts, n=5):
    return CountVectorizer(analyzer="char", ngram_range=(n, n), dtype=np.float32).fit_transform(texts)


def _assert_same(texts, n=5):
    ours, theirs = char_ngrams.char_ngram_counts(texts, n), _sklearn(texts, n)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    assert (ours != theirs).nnz == 0  # the same counts in the same columns: the n-grams in the same order


def test_counts_equal_count_vectorizer_on_mixed_texts():
    texts = ["The cat sat on the mat.", "THE CAT  sat\t\ton\nthe mat!", "tiny", "", "    ", "a\nb\nc\nd\ne f",
             "Café crème brûlée — naïve façade", "日本語のテキストです。日本語", "emoji 🙂🙂 and 🙂", "the cat sat"]
    _assert_same(texts)
    _assert_same(texts, n=3)
    _assert_same(texts, n=7)


def test_counts_equal_count_vectorizer_on_random_texts_over_a_wide_alphabet():
    rng = np.random.default_rng(0)
    alphabet = [chr(c) for c in range(32, 127)] + [" ", "\n", "\t"] + [chr(c) for c in rng.integers(160, 0x2FFFF, 3000)]
    texts = ["".join(rng.choice(alphabet, size=rng.integers(0, 400))) for _ in range(300)]
    texts += [t[: len(t) // 2] + t for t in texts[:50]]  # shared n-grams across texts
    _assert_same(texts)


def test_no_ngram_at_all_raises_scikit_learns_error():
    with pytest.raises(ValueError, match="empty vocabulary"):
        char_ngrams.char_ngram_counts(["abc", "", "  x "])
