"""lib.kstar.tasks.task_files: a TaskPool from CSV, JSONL or Parquet; seeded, group-disjoint splits;
one-vs-rest; errors."""

import numpy as np
import pandas as pd
import pytest

from lib.kstar.tasks import task_files
from lib.kstar.tasks.tasks import MIN_POSITIVES, TaskPool

VOCABULARY = ("river", "window", "market", "garden", "winter", "letter", "bridge", "silver", "orange", "planet",
              "candle", "forest", "mirror", "pocket", "ladder", "rocket", "pillow", "tunnel", "violin", "basket")


def sentence(rng: np.random.Generator, label: str) -> str:
    """A text about ``label`` in eight random words: no two texts are near-duplicates (the pools drop those)."""
    return f"{label}: " + " ".join(rng.choice(VOCABULARY, size=8))


def rows(n_per_class: int = 30, classes=("cat", "dog"), groups: int = 0) -> pd.DataFrame:
    out = []
    for label in classes:
        rng = np.random.default_rng(list(label.encode()))  # each label its own texts, whichever classes are asked for
        for i in range(n_per_class):
            row = {"text": sentence(rng, label), "label": label}
            if groups:
                row["group"] = f"{label}-template-{i % groups}"
            out.append(row)
    return pd.DataFrame(out)


def write(frame: pd.DataFrame, path, suffix: str):
    file = path / f"task{suffix}"
    if suffix == ".csv":
        frame.to_csv(file, index=False)
    elif suffix == ".jsonl":
        frame.to_json(file, orient="records", lines=True)
    else:
        frame.to_parquet(file, index=False)
    return file


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_every_format_gives_the_same_task_pool(tmp_path, suffix):
    frame = rows(groups=6)
    pool = task_files.load_task(write(frame, tmp_path, suffix))
    reference = task_files.load_task(write(frame, tmp_path, ".csv"))
    assert isinstance(pool, TaskPool) and pool.name == "task" and pool.binary
    assert pool.classes == ("cat", "dog") and pool.evaluated == ("dog",)
    assert pool.texts_train == reference.texts_train and pool.texts_test == reference.texts_test
    np.testing.assert_array_equal(pool.y_train, reference.y_train)
    assert len(pool.texts_train) + len(pool.texts_test) == 60 and set(pool.length_auroc) == {"dog"}


def test_groups_never_straddle_the_seeded_split(tmp_path):
    frame = rows(n_per_class=50, classes=("a", "b", "c"), groups=10)
    for seed in (0, 1, 2):
        pool = task_files.load_task(write(frame, tmp_path, ".csv"), seed=seed)
        assert not set(pool.groups_train) & set(pool.groups_test)
        assert 0.1 <= len(pool.texts_test) / 150 <= 0.3
    other = task_files.load_task(write(frame, tmp_path, ".csv"), seed=1)
    again = task_files.load_task(write(frame, tmp_path, ".csv"), seed=1)
    assert other.texts_test == again.texts_test  # seeded


def test_without_split_or_group_the_hold_out_is_stratified(tmp_path):
    pool = task_files.load_task(write(rows(n_per_class=50), tmp_path, ".csv"))
    assert np.bincount(pool.y_test).tolist() == [10, 10] and np.bincount(pool.y_train).tolist() == [40, 40]


def test_a_given_split_is_kept(tmp_path):
    frame = rows(n_per_class=20).assign(split=lambda f: np.where(np.arange(len(f)) % 4 == 0, "Test", "train"))
    pool = task_files.load_task(write(frame, tmp_path, ".jsonl"))
    assert len(pool.texts_test) == 10 and set(pool.texts_test) == set(frame.text[frame.split == "Test"])


def test_multiclass_labels_become_one_vs_rest_decisions(tmp_path):
    pool = task_files.load_task(write(rows(n_per_class=30, classes=("x", "y", "z", "w")), tmp_path, ".csv"))
    assert pool.evaluated == ("w", "x", "y", "z") and not pool.binary
    decisions, skipped = task_files.check_pool(pool)
    assert [d.name for d in decisions] == ["w", "x", "y", "z"] and not skipped
    assert all(d.y_train.sum() == 24 and d.y_test.sum() == 6 for d in decisions)
    subset = task_files.load_task(write(rows(classes=tuple("abcdefghijkl")), tmp_path, ".csv"), max_classes=3)
    assert len(subset.evaluated) == 3 and len(subset.classes) == 12


def test_a_rare_class_is_skipped_with_its_reason(tmp_path):
    frame = pd.concat([rows(n_per_class=30, classes=("x", "y")), rows(n_per_class=4, classes=("rare",))])
    measurable, skipped = task_files.check_pool(task_files.load_task(write(frame, tmp_path, ".csv")))
    assert [d.name for d in measurable] == ["x", "y"] and [d.name for d in skipped] == ["rare"]
    assert f"fewer than {MIN_POSITIVES}" in skipped[0].skipped


def test_the_positive_class_and_the_cap(tmp_path):
    frame = rows(n_per_class=40, classes=("0", "1"))
    assert task_files.load_task(write(frame, tmp_path, ".csv")).evaluated == ("1",)
    assert task_files.load_task(write(rows(classes=("true", "zeta")), tmp_path, ".csv")).evaluated == ("true",)
    assert task_files.load_task(write(frame, tmp_path, ".csv"), positive="0").evaluated == ("0",)
    capped = task_files.load_task(write(frame, tmp_path, ".csv"), cap=20)
    assert len(capped.texts_train) == 20 and np.bincount(capped.y_train).tolist() == [10, 10]
    with pytest.raises(ValueError, match="positive='2' is not a label"):
        task_files.load_task(write(frame, tmp_path, ".csv"), positive="2")


def test_duplicates_and_conflicting_texts_go(tmp_path):
    frame = pd.concat([rows(), rows().head(3), pd.DataFrame({"text": ["same", "same"], "label": ["cat", "dog"]})])
    pool = task_files.load_task(write(frame, tmp_path, ".csv"))
    assert len(pool.texts_train) + len(pool.texts_test) == 60
    assert pool.counts["duplicates_dropped"] == 3 and pool.counts["conflicting_label_texts_dropped"] == 2


@pytest.mark.parametrize(("frame", "suffix", "match"), [
    (rows().drop(columns="label"), ".csv", "lacks the column\\(s\\) label; it has text; required: text,label"),
    (rows(), ".txt", "allowed: .csv, .jsonl, .parquet"),
    (rows().assign(split="dev"), ".csv", "split holds \\['dev'\\]; allowed: train, test"),
    (rows().assign(label=lambda f: f.label.where(f.index != 3, "")), ".csv", "1 rows have no label"),
    (rows(classes=("only",)), ".csv", "holds one label"),
])
def test_a_bad_file_is_one_clear_error(tmp_path, frame, suffix, match):
    with pytest.raises(ValueError, match=match):
        task_files.load_task(write(frame, tmp_path, suffix) if suffix != ".txt" else tmp_path / "task.txt")


def test_a_single_class_split_and_too_few_positives_are_refused(tmp_path):
    one_class = rows().assign(split=lambda f: np.where(f.label == "cat", "test", "train"))
    with pytest.raises(ValueError, match="the train split of 'task' holds only the class 'dog'"):
        task_files.check_pool(task_files.load_task(write(one_class, tmp_path, ".csv")))
    few = pd.concat([rows(n_per_class=40, classes=("cat",)), rows(n_per_class=6, classes=("dog",))])
    with pytest.raises(ValueError, match="too few positives: no class decision of 'task' can be measured"):
        task_files.check_pool(task_files.load_task(write(few, tmp_path, ".csv")))


def test_a_test_text_near_a_training_text_goes(tmp_path):
    frame = rows().assign(split=lambda f: np.where(np.arange(len(f)) % 5 == 0, "test", "train"))
    copy = frame[frame.split == "train"].iloc[0]
    frame.loc[len(frame)] = {"text": copy.text + "!", "label": copy.label, "split": "test"}  # a changed copy
    pool = task_files.load_task(write(frame, tmp_path, ".csv"))
    assert pool.counts["near_duplicates_dropped"] == 1 and copy.text + "!" not in pool.texts_test


def test_a_planted_length_cue_excludes_the_decision_by_the_catalogues_rule(tmp_path):
    frame = rows()
    longer = frame.label == "dog"
    frame.loc[longer, "text"] = frame.text[longer] + " and more words" * 6
    pool = task_files.load_task(write(frame, tmp_path, ".csv"))
    assert pool.cue_auroc["dog"]["length"] >= 0.95
    (decision,) = pool.decisions(min_positives=5)
    assert decision.skipped.startswith("surface cue AUROC >= 0.95: length")
    with pytest.raises(ValueError, match="no class decision of 'task' can be measured .*surface cue"):
        task_files.check_pool(pool)
