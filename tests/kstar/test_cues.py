"""The surface-cue audit of paper 002's task pools (lib.kstar.tasks.cues, App. A.1.3) on synthetic pools."""

from __future__ import annotations

import numpy as np

from lib.kstar.tasks import cues
from lib.kstar.tasks.tasks import TaskPool

WORDS = np.array("the a report said market team film new game vote plan data city year people".split())


def _texts(rng: np.random.Generator, n: int, words: tuple[int, int]) -> list[str]:
    return [" ".join(rng.choice(WORDS, rng.integers(*words))).capitalize() + "." for _ in range(n)]


def _pool(longer_positives: bool, n: int = 200) -> TaskPool:
    rng = np.random.default_rng(0)
    long_words = (30, 40) if longer_positives else (5, 15)
    splits = {}
    for split in ("train", "test"):
        texts = _texts(rng, n, (5, 15)) + _texts(rng, n, long_words)
        splits[split] = (tuple(texts), np.repeat([0, 1], n))
    groups = np.arange(2 * n).astype(str)
    return TaskPool("planted", *splits["train"], *splits["test"], ("neg", "pos"), ("pos",), groups, groups,
                    {}, "synthetic", None, 0)


def test_a_planted_length_cue_is_flagged():
    row = cues.audit_pool(_pool(True))["pos"]
    assert row["length"] >= cues.EXCLUDE_AUROC and row["words"] >= cues.EXCLUDE_AUROC
    assert cues.exclusion(row) and "length" in row["excluded"]


def test_a_cue_free_pool_is_not_flagged():
    row = cues.audit_pool(_pool(False))["pos"]
    assert all(abs(row[f] - 0.5) < 0.15 for f in (*cues.FAMILIES, "surface")), row
    assert abs(row["term_auroc"] - 0.5) < 0.15 and cues.exclusion(row) is None and row["excluded"] == ""


def test_the_rule_reads_every_family_alike():
    base = {f: 0.5 for f in (*cues.FAMILIES, "surface")}
    for family in (*cues.FAMILIES, "surface"):
        assert family in cues.exclusion({**base, family: cues.EXCLUDE_AUROC})
        assert cues.exclusion({**base, family: cues.EXCLUDE_AUROC - 0.001}) is None
    assert cues.exclusion({**base, "term_auroc": 1.0, "pair_auroc": 1.0}) is None  # terms are reported, not a cue


def test_the_audit_table_has_one_row_per_decision():
    table = cues.audit_table({"a": _pool(True), "b": _pool(False)})
    assert table[["task", "decision"]].values.tolist() == [["a", "pos"], ["b", "pos"]]
    assert table.excluded.astype(bool).tolist() == [True, False]
