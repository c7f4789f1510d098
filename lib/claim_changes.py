"""Which claims changed verdict between two runs: the published reference run and this checkout's logged one.

``python -m lib claims --profile default --changes`` prints, as Markdown, every claim whose verdict differs between
``published/`` and ``results/<profile>/`` (a claim new or gone counts as a change), with the new reason: the
section of ``docs/CLAIM_CHANGES.md`` a republication adds. Why each *test* changed (the pre-registration's
history) is written there by hand beside it, with the reviewed diff of the catalogue.
"""

from __future__ import annotations

import pandas as pd

from lib import plotting

GONE, NEW = "(gone)", "(new)"


def changes(old: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """One row per claim (by notebook and id) whose verdict differs between ``old`` and ``new`` claims tables
    (:func:`lib.results.gather_claims`'s columns): notebook, id, kind, old verdict, new verdict and the new reason."""
    keys = ["notebook", "id"]
    merged = old[[*keys, "kind", "verdict"]].merge(new[[*keys, "kind", "verdict", "reason", "mechanism"]], on=keys,
                                                   how="outer", suffixes=("_old", "_new"))
    merged["old verdict"] = merged["verdict_old"].fillna(NEW)
    merged["new verdict"] = merged["verdict_new"].fillna(GONE)
    merged["kind"] = merged["kind_new"].fillna(merged["kind_old"])
    why = merged["reason"].fillna("").astype(str)
    mechanism = merged["mechanism"].fillna("").astype(str)
    merged["why"] = why.where(mechanism.eq(""), why + " — " + mechanism)
    moved = merged[merged["old verdict"] != merged["new verdict"]]
    return moved[[*keys, "kind", "old verdict", "new verdict", "why"]].sort_values(keys).reset_index(drop=True)


def markdown(old: pd.DataFrame, new: pd.DataFrame, old_name: str, new_name: str) -> str:
    """:func:`changes` as a Markdown section naming the two runs."""
    found = changes(old, new)
    head = f"### Verdicts changed: {old_name} → {new_name}\n\n"
    if found.empty:
        return head + "No claim changed verdict.\n"
    return head + f"{len(found)} claims changed verdict.\n\n" + plotting.markdown_table(found) + "\n"
