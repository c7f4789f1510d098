"""The README's results block, generated from a publication (:mod:`lib.published`), never edited by hand.

``python -m lib publish`` rewrites it after publishing into ``published/``; ``python -m lib readme`` rewrites it
from whatever ``published/`` holds. The block sits between :data:`BEGIN` and :data:`END`: the run's profile,
date and commit, then per paper its paper claims in the verdicts (:data:`lib.claims.VERDICTS`) and one table
(notebook · what it reproduces · its paper claims by verdict · links to the published notebook and its figures),
and a line naming the profile's notebooks the run left out (a publication of some papers only, ``publish --paper``);
without a publication it is one line, :data:`NOTHING_YET`.
"""

from __future__ import annotations

import os
from pathlib import Path

from lib import claims, notebook_names, papers, paths, published, runner, strict_json

BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"
NOTHING_YET = "No reference run published yet: run `make reproduce`, then `make publish`."


def readme_file() -> Path:
    return paths.REPO_ROOT / "README.md"


def _paper_count(folder: Path, notebook: str) -> claims.Count | None:
    file = folder / published.NOTEBOOKS / f"{notebook}.claims.json"
    return claims.counts(claims.frame(strict_json.loads(file.read_text())))["paper"] if file.is_file() else None


def _verdicts(count: claims.Count) -> str:
    """"3 hold · 1 fails, explained · 2 not measured, no power at this scale" (the verdicts with a claim)."""
    found = [f"{n} {'hold' if verdict == claims.HOLDS else verdict}" for verdict, n in count.by_verdict().items() if n]
    return " · ".join(found) or "none"


def _paper_cell(folder: Path, notebook: str) -> str:
    count = _paper_count(folder, notebook)
    return "no claims" if count is None else _verdicts(count).replace("not measured, ", "")


def _what(title: str, notebook: str) -> str:
    """A notebook's title for a table cell: without the ``<short id> · `` its row's name already gives."""
    prefix = f"{notebook_names.short_id(notebook)} · "
    return title.removeprefix(prefix).replace("|", "\\|")


def block(folder: Path, readme_dir: Path) -> str:
    """The text between the markers for the publication in ``folder``, its links relative to ``readme_dir``."""
    record = published.record(folder)
    if record is None:
        return NOTHING_YET
    link = Path(os.path.relpath(Path(folder).resolve(), Path(readme_dir).resolve())).as_posix()
    commits = [record["commit"]] if isinstance(record["commit"], str) else list(record["commit"])
    commit = ("commit " if len(commits) == 1 else "commits ") + ", ".join(f"`{c[:12]}`" for c in commits)
    if len(commits) > 1 and record.get("sources_commit"):
        commit += f" (each notebook's script, `lib` sources and parameters those of `{record['sources_commit'][:12]}`)"
    lines = [f"Reference run: profile `{record['profile']}`, finished {str(record['finished'])[:10]}, "
             f"{commit}{' (uncommitted changes)' if record.get('dirty') else ''}; "
             f"[scoreboard]({link}/CLAIMS.md) · [report]({link}/report/index.html). "
             f"Paper claims only count as reproduction, each in one of {len(claims.VERDICTS)} verdicts: "
             f"{' · '.join(claims.VERDICTS)}.", ""]
    notebooks = list(record.get("notebooks", []))
    groups = [(p.id, p.title, [n for n in notebooks if papers.paper_of(n) == p]) for p in papers.all_papers()]
    groups.append(("other", "notebooks of no paper", [n for n in notebooks if papers.paper_of(n) is None]))
    for paper, title, members in groups:
        if not members:
            continue
        total = sum((c for n in members if (c := _paper_count(folder, n))), start=claims.Count())
        lines += [f"**Paper {paper}** — {title}", "", f"Paper claims: {_verdicts(total)}.", "",
                  "| executed notebook | what it reproduces | paper claims | figures |",
                  "|---|---|---|---|"]
        for notebook in members:
            what = _what(published.manifest(folder, notebook).get("title", notebook), notebook)
            lines.append(f"| [{notebook}]({link}/notebooks/{notebook}.ipynb) | {what} | "
                         f"{_paper_cell(folder, notebook)} | [figures]({link}/report/gallery.html#{notebook}) |")
        lines.append("")
    left_out = [n for n in runner.discover(record["profile"]) if n not in notebooks]
    if left_out:
        lines.append(f"Not in this reference run (profile `{record['profile']}`): {', '.join(left_out)}; their "
                     "results are not published and count nowhere above.")
    return "\n".join(lines).rstrip()


def current_block(text: str) -> str | None:
    """The text between the markers of ``text``, stripped, or None without them."""
    if BEGIN not in text or END not in text:
        return None
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip()


def update(readme: Path, folder: Path) -> bool:
    """Rewrite the block of ``readme`` from ``folder``; False when it has no markers (left alone)."""
    text = readme.read_text()
    if current_block(text) is None:
        return False
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    readme.write_text(f"{head}{BEGIN}\n{block(folder, readme.parent)}\n{END}{tail}")
    return True
