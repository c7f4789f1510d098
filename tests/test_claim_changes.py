"""lib.claim_changes: the claims whose verdict differs between two runs."""

from __future__ import annotations

import pandas as pd

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
    text = claim_changes.markdown(old, new, "published/", "results/default/")
    assert text.startswith("### Verdicts changed: published/ → results/default/\n\n3 claims changed verdict.")
    assert "No claim changed verdict." in claim_changes.markdown(old, old, "a", "b")
