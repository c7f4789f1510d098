"""Surface-cue audit of a task pool's class decisions (paper 002, App. A.1.3, "Control for length").

For every evaluated decision the audit fits, on the training split only, and scores on the test split:

* one small logistic model per surface family (:data:`FAMILIES`: length, word count, punctuation,
  digits, casing) and one on all of them together (``surface``);
* a 1-2 term TF-IDF readout (unigrams and bigrams, sublinear tf): the single term whose value best
  separates the training classes (``term``), and the best pair found by adding to it the second term
  whose two-term logistic model separates the training classes best (``pair``).

Exclusion rule, the same for every task: a decision is excluded when any surface cue (a family or the
combined surface model) reaches a test AUROC >= :data:`EXCLUDE_AUROC` = 0.95. The term readout is
reported beside it and excludes nothing: reading a topic from its words is the task, not a cue, and
the text-side count is the subject of the input baseline (A.2.3).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

EXCLUDE_AUROC = 0.95  # a surface cue at or above this test AUROC excludes the decision
SCREENED_TERMS = 200  # terms screened by class-mean difference before exact AUROCs (single term)
PAIR_CANDIDATES = 50  # second terms tried for the pair
_PUNCT = re.compile(r"[^\w\s]")
_WORD = re.compile(r"\S+")


def _length(t: str) -> list[float]:
    return [math.log1p(len(t))]


def _words(t: str) -> list[float]:
    words = _WORD.findall(t)
    return [math.log1p(len(words)), sum(map(len, words)) / max(1, len(words))]


def _punctuation(t: str) -> list[float]:
    return [len(_PUNCT.findall(t)) / max(1, len(t)), float(t.count("?")), float(t.count("!"))]


def _digits(t: str) -> list[float]:
    n = sum(map(str.isdigit, t))  # map over the str methods: the same counts as a generator, at C speed
    return [n / max(1, len(t)), float(n > 0)]


def _casing(t: str) -> list[float]:
    letters = list(filter(str.isalpha, t))
    words = _WORD.findall(t)
    return [sum(map(str.isupper, letters)) / max(1, len(letters)),
            sum(w[:1].isupper() for w in words) / max(1, len(words))]


FAMILIES = {"length": _length, "words": _words, "punctuation": _punctuation, "digits": _digits, "casing": _casing}


def surface_features(texts: Sequence[str]) -> dict[str, np.ndarray]:
    """Each family's feature columns for ``texts`` (rows = texts)."""
    return {name: np.array([f(t) for t in texts], dtype=float).reshape(len(texts), -1) for name, f in FAMILIES.items()}


def _logistic_auroc(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, y_test: np.ndarray) -> float:
    mean, std = x_train.mean(axis=0), x_train.std(axis=0)
    std[std == 0] = 1.0
    model = LogisticRegression(solver="liblinear").fit((x_train - mean) / std, y_train)
    return float(roc_auc_score(y_test, model.decision_function((x_test - mean) / std)))


def _column_aurocs(x, y: np.ndarray) -> np.ndarray:
    """AUROC of every column of a sparse matrix ``x`` (ties averaged), by ranks."""
    dense = np.asarray(x.todense())
    ranks = pd.DataFrame(dense).rank(axis=0).to_numpy()
    n1, n0 = int(y.sum()), int((~y).sum())
    return (ranks[y].sum(axis=0) - n1 * (n1 + 1) / 2) / (n1 * n0)


def term_matrices(texts_train, texts_test):
    """TF-IDF (unigrams and bigrams, sublinear tf, at most 30000 terms) fitted on train: (train, test, terms)."""
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, max_features=30000)
    train = vectorizer.fit_transform(list(texts_train))
    return train.tocsc(), vectorizer.transform(list(texts_test)).tocsc(), vectorizer.get_feature_names_out()


def term_readout(texts_train, y_train, texts_test, y_test, matrices=None) -> dict[str, object]:
    """Best single TF-IDF term and best greedy pair on train, with their test AUROCs (A.1.3 cue audit)."""
    train, test, names = matrices or term_matrices(texts_train, texts_test)
    gap = np.asarray(train[y_train].mean(axis=0) - train[~y_train].mean(axis=0)).ravel()
    screened = np.argsort(-np.abs(gap), kind="stable")[:SCREENED_TERMS]
    folded = _column_aurocs(train[:, screened], y_train)
    order = np.argsort(-np.abs(folded - 0.5), kind="stable")
    first = int(screened[order[0]])
    sign = 1.0 if folded[order[0]] >= 0.5 else -1.0
    term_auroc = float(roc_auc_score(y_test, sign * test[:, first].toarray().ravel()))
    best, second = -1.0, first
    for index in screened[order[1:PAIR_CANDIDATES + 1]]:
        columns = [first, int(index)]
        x = train[:, columns].toarray()
        model = LogisticRegression(solver="liblinear").fit(x, y_train)
        score = roc_auc_score(y_train, model.decision_function(x))
        if score > best:
            best, second, fitted = score, int(index), model
    pair_auroc = term_auroc
    if second != first:
        pair_auroc = float(roc_auc_score(y_test, fitted.decision_function(test[:, [first, second]].toarray())))
    return {"term": str(names[first]), "term_auroc": term_auroc,
            "pair": f"{names[first]} + {names[second]}", "pair_auroc": pair_auroc}


def audit_decision(texts_train, y_train, texts_test, y_test, features=None, matrices=None) -> dict[str, object]:
    """Test AUROCs of every surface family, the combined surface model and the term readout of one decision
    (``features``, ``matrices``: precomputed :func:`surface_features` of both splits and :func:`term_matrices`)."""
    y_train, y_test = np.asarray(y_train, dtype=bool), np.asarray(y_test, dtype=bool)
    train, test = features or (surface_features(texts_train), surface_features(texts_test))
    row: dict[str, object] = {name: _logistic_auroc(train[name], y_train, test[name], y_test) for name in FAMILIES}
    row["surface"] = _logistic_auroc(np.hstack(list(train.values())), y_train, np.hstack(list(test.values())), y_test)
    row.update(term_readout(texts_train, y_train, texts_test, y_test, matrices))
    row["excluded"] = exclusion(row) or ""
    return row


def exclusion(row: dict[str, object]) -> str | None:
    """The written rule (module docstring): the reason a decision is excluded, or None."""
    over = [f"{name} {row[name]:.3f}" for name in (*FAMILIES, "surface")
            if isinstance(row.get(name), float) and row[name] >= EXCLUDE_AUROC]
    return f"surface cue AUROC >= {EXCLUDE_AUROC}: {', '.join(over)}" if over else None


def audit_pool(pool, min_positives: int = 2) -> dict[str, dict[str, object]]:
    """The audit of every decision of ``pool`` (a :class:`lib.kstar.tasks.tasks.TaskPool`) with both classes in both
    splits (at least ``min_positives`` of each)."""
    out: dict[str, dict[str, object]] = {}
    decisions = [d for d in pool.decisions(min_positives, cues=False)
                 if min(int(y.sum()) for y in (d.y_train, d.y_test, ~d.y_train, ~d.y_test)) >= min_positives]
    if decisions:
        features = surface_features(pool.texts_train), surface_features(pool.texts_test)
        matrices = term_matrices(pool.texts_train, pool.texts_test)
        for d in decisions:
            out[d.name] = audit_decision(pool.texts_train, d.y_train, pool.texts_test, d.y_test, features, matrices)
    return out


def audit_table(task_pools: dict[str, object], min_positives: int = 2) -> pd.DataFrame:
    """One row per audited decision of every pool (K01's ``cues`` table)."""
    rows = [{"task": task, "decision": name, "n_train": len(pool.texts_train), "n_test": len(pool.texts_test), **row}
            for task, pool in task_pools.items()
            for name, row in (pool.cue_auroc or audit_pool(pool, min_positives)).items()]
    return pd.DataFrame(rows)
