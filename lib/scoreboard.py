"""The one scoreboard: every notebook's claims under a profile, counted per paper (:func:`lib.claims.counts`).

``python -m lib claims --profile P`` prints it (:func:`text`) and writes ``figures/<profile>/CLAIMS.md``
(:func:`write`): the scoreboard, then one table per paper of every claim — notebook, claim, the paper's words with
their section, measured value, comparison, outcome and reason. A claim citing another notebook's measurement is
listed where it stands and counted once, at its owner; a citation of a claim not logged under the profile is
named below the scoreboard.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from lib import claim_catalogue, claims, papers, paths, plotting, results

OTHER = "other"  # the paper column of notebooks that belong to no paper


def claims_file(profile: str) -> Path:
    """``figures/<profile>/CLAIMS.md``."""
    return paths.figures_index(profile).with_name("CLAIMS.md")


def _papers(table: pd.DataFrame) -> list[tuple[str, str]]:
    """(id, title) of every paper, then ``other`` when some claims belong to none."""
    found = [(p.id, p.title) for p in papers.all_papers()]
    known = {pid for pid, _ in found}
    if (~table["paper"].isin(known)).any():
        found.append((OTHER, "notebooks of no paper"))
    return found


def _of_paper(table: pd.DataFrame, paper: str, known: set[str]) -> pd.DataFrame:
    return table[~table["paper"].isin(known)] if paper == OTHER else table[table["paper"] == paper]


def scoreboard(table: pd.DataFrame) -> pd.DataFrame:
    """Per paper: its paper claims in the six verdicts (:data:`lib.claims.VERDICTS`), those measured on real models
    apart from the checks of synthetic or exact settings (:data:`lib.claims.SETTINGS`), extension, mechanism and
    sanity counts, citations."""
    rows = []
    listed = _papers(table)
    known = {pid for pid, _ in listed if pid != OTHER}
    table = claim_catalogue.with_settings(table) if len(table) else table.assign(setting="")
    for paper, title in listed:
        mine = _of_paper(table, paper, known)
        count = claims.counts(mine)
        real = claims.counts(mine[mine["setting"] == "real"])["paper"]
        other = claims.counts(mine[mine["setting"] != "real"])["paper"]
        rows.append({"paper": paper, "title": title, **count["paper"].by_verdict(),
                     "paper, real models held/measured": real.cell(),
                     "paper, synthetic or exact held/measured": other.cell(),
                     "extension held/measured": count["extension"].cell(),
                     "mechanism held/measured": count["mechanism"].cell(),
                     "sanity held/measured": count["sanity"].cell(),
                     "cited (counted at owner)": sum(c.cited for c in count.values())})
    return pd.DataFrame(rows)


def dangling(table: pd.DataFrame) -> list[str]:
    """``notebook:id cites X`` for each citation of a claim not logged under this profile."""
    logged = set(table["notebook"] + ":" + table["id"])
    citing = table[table["cites"] != ""]
    return [f"{row.notebook}:{row.id} cites {row.cites}" for row in citing.itertuples() if row.cites not in logged]


def _rows(table: pd.DataFrame) -> pd.DataFrame:
    """The claims of one paper as CLAIMS.md lists them."""
    return pd.DataFrame({
        "notebook": table["notebook"], "kind": table["kind"], "claim": table["id"] + ": " + table["statement"],
        "paper value (section)": table["paper_value"] + " (" + table["section"] + ")",
        "measured": table["measured"], "comparison": table["comparison"], "verdict": table["verdict"],
        "power": table["power"], "reason": claims.readable_table(table)["reason"].to_numpy() if len(table) else [],
    })


def markdown(profile: str, table: pd.DataFrame) -> str:
    """The text of ``CLAIMS.md``: the scoreboard, then one table per paper."""
    lines = [f"# Claims — profile `{profile}`", ""]
    if profile == "smoke":
        lines += [f"> {claims.SMOKE_NOTE}", ""]
    lines += ["Paper claims are the reproduction, counted in six verdicts: holds (every null would rarely have "
              "held: p0 ≤ 0.2 and likelihood ratio p1/p0 ≥ 4) · fails, explained (by a mechanism claim that holds "
              "decisively) · fails, unexplained · not measured, no power at this scale (the outcome is not decisive; "
              "a fail is when the paper, if right, would usually have held: p1 ≥ 0.8 and (1 − p0)/(1 − p1) ≥ 4) · "
              "not measured, needs the paper's data or models · not measured, undefined here. Extension, mechanism "
              "and sanity claims are reported, never counted as it. A claim citing another notebook's measurement "
              "is counted once, at its owner. `python -m lib claims --plan` prices what would make each "
              "undecided claim decisive.", "",
              plotting.markdown_table(scoreboard(table)), ""]
    listed = _papers(table)
    known = {pid for pid, _ in listed if pid != OTHER}
    for paper, title in listed:
        rows = _of_paper(table, paper, known)
        lines += [f"## Paper {paper} — {title}", ""]
        lines += [plotting.markdown_table(_rows(rows)) if len(rows) else "No claims logged.", ""]
    return "\n".join(lines)


def write(profile: str, table: pd.DataFrame | None = None) -> Path:
    """Write ``figures/<profile>/CLAIMS.md`` atomically; ``table`` defaults to the profile's logged claims."""
    table = results.gather_claims(profile) if table is None else table
    return results.atomic_write_text(claims_file(profile), markdown(profile, table))


def _paper_lines(table: pd.DataFrame) -> list[str]:
    """Per paper: its id and title, then how each kind came out (:func:`lib.claims.counts`)."""
    lines = []
    listed = _papers(table)
    known = {pid for pid, _ in listed if pid != OTHER}
    for paper, title in listed:
        count = claims.counts(_of_paper(table, paper, known))
        lines.append(f"{paper}  {title}")
        for kind, found in count.items():
            told = found.sentence() if found.measured or found.not_measured or found.cited else "none"
            lines.append(f"     {kind + ' claims:':<18} {told}")
    return lines


def text(profile: str) -> str:
    """What ``python -m lib claims`` prints: the scoreboard per paper, dangling citations, where CLAIMS.md went."""
    table = results.gather_claims(profile)
    written = paths.relative_to_root(write(profile, table))
    if not len(table):
        return (f"no claims under profile {profile}: no notebook has logged its claims in results/{profile}/ "
                f"(python -m lib run --profile {profile} runs them)\nwrote {written}")
    lines = [f"claims under profile {profile}"] + ([claims.SMOKE_NOTE] if profile == "smoke" else [])
    lines += ["", *_paper_lines(table), ""]
    lines += [f"citation of a claim not logged under {profile}: {line}" for line in dangling(table)]
    return "\n".join([*lines, f"wrote {written}"])
