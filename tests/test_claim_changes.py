"""lib.claim_changes: the claims whose verdict differs between two runs."""

from __future__ import annotations

import pandas as pd
import pytest

from lib import claim_changes


def _table(rows: list[tuple[str, str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame([{"notebook": nb, "id": i, "kind": "paper", "verdict": v, "reason": r, "mechanism": ""}
                         for nb, i, v, r in rows])


def test_a_changed_new_or_gone_claim_is_listed_and_an_unchanged_one_is_not():
    old = _table([("K02", "rotation", "fails, unexplained", "inf is not <= 3"), ("K02", "same", "holds", ""),
                  ("K08", "wanda", "not measured, no power at this scale", "lost")])
    new = _table([("K02", "rotation", "holds", ""), ("K02", "same", "holds", ""),
                  ("K05", "format", "not measured, needs the paper profile", "Gemma-2-9B")])
    found = claim_changes.changes(old, new)
    assert found[["notebook", "id", "old verdict", "new verdict"]].values.tolist() == [
        ["K02", "rotation", "fails, unexplained", "holds"],
        ["K05", "format", claim_changes.NEW, "not measured, needs the paper profile"],
        ["K08", "wanda", "not measured, no power at this scale", claim_changes.GONE]]
    assert found.why.tolist()[1] == "Gemma-2-9B"
    text = claim_changes.markdown(found, "published/", "results/default/")
    assert text.startswith("### Verdicts changed: published/ → results/default/\n\n3 claims changed verdict.")
    assert "No claim changed verdict." in claim_changes.markdown(claim_changes.changes(old, old), "a", "b")


_CHANGELOG = """## Paper 002

### K02

- 2026-12-04 · `aaaaaaa` — a bullet

| claim (now) | date · commit | what changed | verdict | why |
|---|---|---|---|---|
| `rotation` (paper, fails, unexplained) | 2026-12-04 · `aaaaaaa` | test changed | old test fails · new fails |  |
|  | 2026-12-02 · `bbbbbbb` | test set | old test holds · new fails |  |
| `same` (paper, holds) | 2026-12-02 · `bbbbbbb` | test set | old test holds · new holds |  |

### K05

- 2026-12-04 · `aaaaaaa` — a bullet

### K08
"""


def test_a_changelog_gets_a_row_at_the_top_of_each_changed_claim_and_a_table_where_its_notebook_had_none():
    old = _table([("K02", "rotation", "fails, unexplained", "inf is not <= 3"), ("K02", "same", "holds", ""),
                  ("K02", "gone", "holds", "")])
    new = _table([("K02", "rotation", "holds", "1.2 | 1.5 in range"), ("K02", "same", "holds", ""),
                  ("K02", "fresh", "holds", ""), ("K05", "format", "not measured, no power at this scale", "lost")])
    text = claim_changes.changelog(_CHANGELOG, claim_changes.changes(old, new), "2026-12-06 · `ccccccc`")
    lines = text.splitlines()
    at = lines.index("| `rotation` (paper, holds) | 2026-12-06 · `ccccccc` | republished | fails, unexplained → "
                     "holds | 1.2 \\| 1.5 in range |")
    assert lines[at + 1] == "|  | 2026-12-04 · `aaaaaaa` | test changed | old test fails · new fails |  |"
    assert lines[at + 3].startswith("| `same` (paper, holds)")  # unchanged claims keep their rows
    assert "| `fresh` (paper, holds) | 2026-12-06 · `ccccccc` | new in the catalogue | holds |  |" in lines
    assert "| `gone` (removed) | 2026-12-06 · `ccccccc` | no longer in the catalogue | holds → removed |  |" in lines
    k05 = lines.index("### K05")
    assert lines[k05 + 3:k05 + 7] == ["", "| claim (now) | date · commit | what changed | verdict | why |",
                                      "|---|---|---|---|---|", "| `format` (paper, not measured, no power at this "
                                      "scale) | 2026-12-06 · `ccccccc` | new in the catalogue | not measured, no "
                                      "power at this scale | lost |"]
    assert lines[k05 + 7:k05 + 9] == ["", "### K08"]
    with pytest.raises(ValueError, match="K09: no '### K09' section"):
        claim_changes.changelog(_CHANGELOG, claim_changes.changes(old, _table([("K09", "x", "holds", "")])),
                                "today")


def test_a_claim_of_a_notebook_the_publication_did_not_hold_reads_its_verdict_from_its_table():
    """A notebook left out of the publication compared (dropped as stale, published again later): its claims have
    no old verdict there, and their tables give the one they were last published with."""
    new = _table([("K02", "same", "fails, unexplained", "0.1 is not > 0.2"), ("K02", "fresh", "holds", "")])
    text = claim_changes.changelog(_CHANGELOG, claim_changes.changes(_table([("K05", "other", "holds", "")]), new),
                                   "2026-12-06 · `ddddddd`")
    lines = text.splitlines()
    assert ("| `same` (paper, fails, unexplained) | 2026-12-06 · `ddddddd` | republished (its notebook was not in the "
            "publication compared: its verdict from this table) | holds → fails, unexplained | 0.1 is not > 0.2 |"
            ) in lines
    assert "| `fresh` (paper, holds) | 2026-12-06 · `ddddddd` | new in the catalogue | holds |  |" in lines
