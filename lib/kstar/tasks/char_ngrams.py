"""Character n-gram counts of texts, the same matrix as scikit-learn's ``CountVectorizer(analyzer="char")``.

The near-duplicate rule of every task pool (paper 002, App. A.1.3: held-out texts are not copies of training
texts) compares character 5-gram TF-IDF vectors. scikit-learn builds the counts one n-gram string at a time in
Python, about a microsecond each: 4.8 s of a 12-s BBC pool build and 3.0 s of the templated questions'. Here
every n-gram of every text is one integer key computed by numpy, and the keys are counted by sorting them. The
result is the matrix ``CountVectorizer`` returns, column for column: the same preprocessing (lower case, every
run of two or more whitespace characters one space), the same n-grams, the columns in the same order (the
n-grams sorted by code points), float32 counts. ``tests/kstar/test_char_ngrams.py`` checks it against
``CountVectorizer`` itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import CountVectorizer

#: ``CountVectorizer``'s whitespace rule for character n-grams, applied inside its private ``_char_ngrams`` (so it
#: cannot be called from here): every run of two or more whitespace characters becomes one space.
_WHITE_SPACES = re.compile(r"\s\s+")
#: Characters packed into one int64 word of a key where the alphabet is too large for all n: 3 code points of at
#: most 21 bits each.
_PER_WORD = 3


def _dense_codes(docs: Sequence[str]) -> tuple[np.ndarray, int]:
    """The texts' characters, concatenated, as ranks among the distinct code points (so keys sort as the text
    does), and the number of distinct code points."""
    points = np.frombuffer("".join(docs).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    alphabet, codes = np.unique(points, return_inverse=True)
    return codes.astype(np.int64), len(alphabet)


def char_ngram_counts(texts: Sequence[str], n: int = 5) -> sparse.csr_matrix:
    """Counts of the character ``n``-grams of ``texts``: rows = texts, columns = the n-grams in sorted order;
    equal to ``CountVectorizer(analyzer="char", ngram_range=(n, n), dtype=np.float32).fit_transform(texts)``."""
    vectorizer = CountVectorizer(analyzer="char", ngram_range=(n, n), dtype=np.float32)
    preprocess = vectorizer.build_preprocessor()  # the library's own lower-casing, not a copy of it
    docs = [_WHITE_SPACES.sub(" ", preprocess(text)) for text in texts]
    lengths = np.fromiter(map(len, docs), dtype=np.int64, count=len(docs))
    if not (lengths >= n).any():
        return vectorizer.fit_transform(texts)  # no n-gram at all: scikit-learn's own "empty vocabulary" error
    codes, base = _dense_codes(docs)
    doc_of_char = np.repeat(np.arange(len(docs)), lengths)
    last = len(codes) - n + 1  # n-gram starts that fit the concatenation
    inside = doc_of_char[:last] == doc_of_char[n - 1:]  # the n-gram does not cross into the next text
    starts = np.flatnonzero(inside)
    per_word = n if base ** n < 2**63 else _PER_WORD  # one int64 key per n-gram where the alphabet allows
    words = []
    for first in range(0, n, per_word):
        word = np.zeros(len(starts), dtype=np.int64)
        for offset in range(first, min(first + per_word, n)):
            word = word * base + codes[starts + offset]
        words.append(word)
    if len(words) == 1:
        grams, column = np.unique(words[0], return_inverse=True)
        n_columns = len(grams)
    else:
        order = np.lexsort(words[::-1])  # the first word is the primary key
        new_gram = np.ones(len(order), dtype=bool)
        new_gram[1:] = np.logical_or.reduce([np.diff(word[order]) != 0 for word in words])
        column = np.empty(len(order), dtype=np.int64)
        column[order] = np.cumsum(new_gram) - 1
        n_columns = int(new_gram.sum())
    matrix = sparse.csr_matrix((np.ones(len(starts), dtype=np.float32), (doc_of_char[starts], column)),
                               shape=(len(docs), n_columns))
    matrix.sum_duplicates()
    return matrix
