"""Which claims changed verdict between two runs: the published reference run and this checkout's logged one.

``python -m lib claims --profile default --changes`` prints, as Markdown, every claim whose verdict differs between
``published/`` and ``results/<profile>/`` (a claim new or gone counts as a change), with the new reason: the
section of ``docs/CLAIM_CHANGES.md`` a republication adds. Why each *test* changed (the pre-registration's
history) is written there by hand beside it, with the reviewed diff of the catalogue.
"""

from __future__ import annotations

import re

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


def markdown(found: pd.DataFrame, old_name: str, new_name: str) -> str:
    """``found`` (:func:`changes`) as a Markdown section naming the two runs."""
    head = f"### Verdicts changed: {old_name} → {new_name}\n\n"
    if found.empty:
        return head + "No claim changed verdict.\n"
    return head + f"{len(found)} claims changed verdict.\n\n" + plotting.markdown_table(found) + "\n"


def _cell(value: str) -> str:
    """A table cell's text, as :func:`lib.plotting.markdown_table` escapes its cells (kept apart: that escape is
    local to it, and lib.plotting is a source of every notebook's code key)."""
    return str(value).replace("|", "\\|").replace("\n", " ")


def _row(change: pd.Series, stamp: str, last: str | None = None) -> str:
    """One row of a claim's table in ``docs/CLAIM_CHANGES.md`` for a republication's verdict change; ``last`` is
    the verdict its table's first row gives, read when the publication compared did not hold its notebook."""
    old, new = change["old verdict"], change["new verdict"]
    if new == GONE:
        return f"| `{change['id']}` (removed) | {stamp} | no longer in the catalogue | {old} → removed |  |"
    if old == NEW and last is not None:
        what, old = "republished (its notebook was not in the publication compared: its verdict from this table)", last
    else:
        what = "new in the catalogue" if old == NEW else "republished"
    moved = new if old == NEW else f"{old} → {new}"
    return f"| `{change['id']}` ({change['kind']}, {new}) | {stamp} | {what} | {moved} | {_cell(change['why'])} |"


def changelog(text: str, found: pd.DataFrame, stamp: str) -> str:
    """``text`` (``docs/CLAIM_CHANGES.md``) with a row for each of ``found``'s changes (:func:`changes`) at the
    top of its claim's rows, under its notebook's heading (``### <notebook>``): the claim's first cell (id, kind,
    verdict now) moves to the new row. A claim with no row yet gets one at the end of its notebook's table, or a
    new table. ``stamp`` is the rows' "date · commit" cell. A notebook without a heading is refused."""
    lines = text.split("\n")
    for _, change in found.iterrows():
        heading = f"### {change['notebook']}"
        if heading not in lines:
            raise ValueError(f"{change['notebook']}: no '{heading}' section to add its changes to")
        start = lines.index(heading) + 1
        end = next((i for i in range(start, len(lines)) if lines[i].startswith(("## ", "### "))), len(lines))
        first = next((i for i in range(start, end) if lines[i].startswith(f"| `{change['id']}` (")), None)
        last = re.match(r"\| `[^`]+` \([a-z]+, (.+?)\) \|", lines[first]) if first is not None else None
        row = _row(change, stamp, last.group(1) if last else None)
        if first is not None:
            lines[first] = "|  | " + lines[first].split(" | ", 1)[1]
            lines.insert(first, row)
            continue
        header = next((i for i in range(start, end) if lines[i].startswith("| claim (now) |")), None)
        if header is None:
            while end > start and not lines[end - 1].strip():
                end -= 1
            lines[end:end] = ["", "| claim (now) | date · commit | what changed | verdict | why |",
                              "|---|---|---|---|---|", row]
            continue
        last = header
        while last + 1 < end and lines[last + 1].startswith("|"):
            last += 1
        lines.insert(last + 1, row)
    return "\n".join(lines)
