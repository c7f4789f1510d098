"""``make publish``: a reference run, copied into a folder a reader can browse without running anything.

``publish(profile, target, notebooks=…)`` writes, for every notebook, its executed notebook (outputs kept,
figures as the inline PNGs the runner's kernel draws at ``figure.dpi`` 110, widget state stripped), its
``claims.json`` with the logged files its reasons and candidate causes name (``<notebook>.cited/``) and a run
manifest (commit, code key, parameters and their hash, package versions, the finishing attempt's wall time, the
notebook's lane time across interrupted attempts (:func:`lib.runner.lane_seconds`), and the SHA-256 of the script
and of each ``lib`` source it ran, so :mod:`lib.published` can later say what
changed); then the scoreboard ``CLAIMS.md``, the static report (:mod:`lib.report`) built over those
notebooks and the publication record (with the commit whose files every notebook ran, :func:`sources_commit`).
Every text file is scrubbed of the repository path (``.``), ``$HOME`` (``~``), the host and user names.

The folder is ``published/``, not ``docs/``: ``docs/`` holds prose written by hand and versioned with the code
(ARCHITECTURE.md, TIMINGS.md), while a publication is generated and replaced as a whole on every publish; a
folder of its own can be wiped and rewritten without touching a hand-written page, and a static host can serve
it as it is.

``publish(…, add=True)`` publishes the named notebooks beside those the publication already holds, which are kept
as they were (their files copied, their report entries carried by :func:`lib.report.carry`): a reference run made
in pieces, on checkouts that no longer hold each other's results, becomes one publication. A kept notebook must
still be current (:mod:`lib.published`); one that is not is refused by name, or left out with ``drop_stale`` (when
a code change staled them and they are rerun in a later piece).

Refusals, each one line before anything is written: a notebook whose run is not ``done`` (stale or missing),
a target that holds another profile's publication or files that are not a publication, and a folder above
:data:`BUDGET_BYTES` (assembled aside, then discarded). The command refuses the smoke profile outright.
"""

from __future__ import annotations

import getpass
import os
import re
import shutil
import socket
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import nbformat
import pandas as pd

from lib import (
    claims,
    config,
    notebook_names,
    papers,
    paths,
    published,
    report,
    results,
    runner,
    scoreboard,
    strict_json,
)

BUDGET_BYTES = 40 * 2**20
SMOKE_REFUSAL = "smoke results mean nothing and are never published"
#: Output types of ipywidgets; their state is dropped (a static page cannot run it).
_WIDGET_MIME = ("application/vnd.jupyter.widget-view+json", "application/vnd.jupyter.widget-state+json")
#: Images other than PNG that an output may carry beside its PNG; the PNG alone is kept.
_EXTRA_IMAGES = ("image/svg+xml", "application/pdf", "image/jpeg")
#: User and host names too generic to replace as bare words (they are still replaced inside paths).
_GENERIC_NAMES = frozenset({"root", "user", "admin", "ubuntu", "runner", "localhost", "vm", "host"})
_TEXT_SUFFIXES = (".html", ".json", ".ipynb", ".md", ".csv", ".txt", ".tex")


# --------------------------------------------------------------------------- scrubbing


def _bare_word(name: str) -> bool:
    return len(name) >= 4 and name.lower() not in _GENERIC_NAMES


def scrub(text: str) -> str:
    """``text`` without the repository path (``.``), ``$HOME`` (``~``), the host name or the user name."""
    root, home = str(paths.REPO_ROOT), os.path.expanduser("~")
    text = text.replace(root, ".")
    if home not in ("", "/"):
        text = re.sub(rf"(?<![\w.-]){re.escape(home)}(?![\w-])", "~", text)
    for name, placeholder in ((socket.gethostname(), "<host>"), (getpass.getuser(), "<user>")):
        if not name:
            continue
        text = re.sub(rf"(?<=@){re.escape(name)}\b|\b{re.escape(name)}(?=@)|(?<=/home/){re.escape(name)}\b|"
                      rf"(?<=/Users/){re.escape(name)}\b", placeholder, text)
        if _bare_word(name):
            text = re.sub(rf"\b{re.escape(name)}\b", placeholder, text)
    return text


def _scrub_folder(folder: Path) -> None:
    for file in folder.rglob("*"):
        if file.is_file() and file.suffix in _TEXT_SUFFIXES:
            text = file.read_text(errors="replace")
            cleaned = scrub(text)
            if cleaned != text:
                file.write_text(cleaned)


def clean_notebook(executed: Path) -> nbformat.NotebookNode:
    """An executed notebook with its outputs, widget state stripped and each figure as its PNG alone."""
    notebook = nbformat.read(executed, as_version=4)
    notebook.metadata.pop("widgets", None)
    for cell in notebook.cells:
        kept = []
        for output in cell.get("outputs", []):
            data = output.get("data")
            if data is not None:
                for mime in _WIDGET_MIME + (_EXTRA_IMAGES if "image/png" in data else ()):
                    data.pop(mime, None)
                if not data:
                    continue
            kept.append(output)
        if cell.cell_type == "code":
            cell.outputs = kept
        cell.metadata.pop("widgets", None)
    return notebook


# --------------------------------------------------------------------------- checks


def size(folder: Path) -> int:
    """Bytes of every file under ``folder``."""
    return sum(f.stat().st_size for f in Path(folder).rglob("*") if f.is_file())


def megabytes(count: int) -> str:
    return f"{count / 2**20:.1f} MB"


def check_target(profile: str, target: Path) -> None:
    """Refuse a target holding another profile's publication, or files that are no publication."""
    if not target.exists():
        return
    if not target.is_dir():
        raise config.ConfigError(f"{paths.display(target)} is a file, not a folder; publish elsewhere (--to)")
    found = published.record(target)
    if found is None and any(target.iterdir()):
        raise config.ConfigError(f"{paths.display(target)}/ holds files but no {published.RECORD}: not a "
                                 "publication; empty it or publish elsewhere (--to)")
    if found is not None and found.get("profile") != profile:
        raise config.ConfigError(f"{paths.display(target)}/ holds the {found.get('profile')!r} profile's "
                                 f"publication; profiles are never mixed: publish {profile!r} elsewhere (--to)")


def check_notebooks(profile: str, notebooks: Sequence[str]) -> None:
    """Refuse, in one line naming the notebook, any whose run is not ``done`` or left no executed notebook."""
    if not notebooks:
        raise config.ConfigError(f"no notebook under profile {profile!r} to publish")
    for notebook in notebooks:
        state = runner.status(profile, notebook)
        if state != "done":
            what = "results are stale (code or parameters changed since its run)" if state == "stale" else \
                "was never run to completion"
            raise config.ConfigError(f"{notebook}: {what}; status {state!r}: run `make reproduce "
                                     f"PROFILE={profile}` first, nothing was published")
        executed = paths.executed_notebook(profile, notebook)
        if not executed.is_file():
            raise config.ConfigError(f"{notebook}: no executed notebook {paths.display(executed)}; rerun it with "
                                     "--force, nothing was published")


def notebooks_of(profile: str, paper_ids: Sequence[str] | None, names: Sequence[str] = ()) -> list[str]:
    """The notebooks of ``profile`` to publish: every one, those of the papers ``paper_ids``, or those named in
    ``names`` (a reference run that could finish only some notebooks; each a full name or a short id,
    :mod:`lib.notebook_names`); an unknown id or name is refused in one line naming the allowed ones."""
    notebooks = runner.discover(profile)
    names = notebook_names.resolve_all(names, profile, notebooks)
    if paper_ids:
        known = [p.id for p in papers.all_papers()]
        unknown = [i for i in paper_ids if i not in known]
        if unknown:
            raise config.ConfigError(f"--paper {unknown[0]!r} is not a paper; allowed: {', '.join(known)}")
        notebooks = [n for n in notebooks if (paper := papers.paper_of(n)) is not None and paper.id in paper_ids]
    return [n for n in notebooks if not names or n in names]


def kept_notebooks(profile: str, target: Path, notebooks: Sequence[str], drop_stale: bool = False) -> list[str]:
    """The notebooks of the publication in ``target`` that an ``add`` keeps beside ``notebooks``: every one not
    published again. One whose published run is no longer current is refused in one line, or with ``drop_stale``
    left out of the publication (named on stdout; the README's block then lists it as not in the run)."""
    lines = published.statuses(target, profile)  # one line per notebook of the publication; {} when none
    kept = []
    for notebook in (n for n in lines if n not in notebooks):
        if lines[notebook] == "current":
            kept.append(notebook)
        elif drop_stale:
            print(f"left out {notebook}: its published run is {lines[notebook]}")
        else:
            raise config.ConfigError(f"{notebook}: kept from {paths.display(target)}/ but its published run is "
                                     f"{lines[notebook]}; rerun it and publish it with the others (or leave the "
                                     "stale ones out with --drop-stale), nothing was published")
    return kept


# --------------------------------------------------------------------------- writing


def run_manifest(profile: str, notebook: str) -> dict[str, Any]:
    """The published manifest of one notebook, from its stamp and its result manifests."""
    stamp = strict_json.loads(paths.run_stamp(profile, notebook).read_text())
    manifests = [results.read_manifest(paths.from_root(r)) for r in stamp.get("results", [])]
    git = next((m["git"] for m in manifests if m.get("git")), {})
    script = paths.notebook_script(notebook)
    return {
        "notebook": notebook, "profile": profile,
        "title": report.title_of(paths.executed_notebook(profile, notebook), notebook),
        "commit": git.get("commit"), "dirty": git.get("dirty"),
        "code_key": stamp["fingerprint"], "code_hash": stamp.get("code_hash"), "params_hash": stamp["params_hash"],
        "params": stamp["params"], "script": paths.relative_to_root(script), "script_sha256": published.sha256(script),
        "sources": published.source_hashes(notebook),
        "packages": next((m["packages"] for m in manifests if m.get("packages")), {}),
        "wall_time_s": stamp.get("seconds"), "earlier_attempts_s": runner.earlier_attempts(manifests),
        "lane_time_s": runner.lane_seconds(stamp), "finished": stamp.get("finished"),
        **{key: stamp.get(key) for key in ("threads", "cpu", "cpu_count")},
        "results": [{"file": r, "sha256": m.get("sha256"), "wall_time_s": m.get("wall_time_s")}
                    for r, m in zip(stamp.get("results", []), manifests, strict=True)],
    }


def cited_folder(folder: Path, notebook: str) -> Path:
    """``<notebook>.cited/`` beside a published notebook: the logged files its claims' reasons and candidate causes
    name, so a reader can open what a verdict rests on."""
    return Path(folder) / f"{notebook}.cited"


def copy_cited(profile: str, notebook: str, folder: Path) -> list[str]:
    """Copy every logged file ``notebook``'s claims name (:func:`lib.report.cited_names`) into
    :func:`cited_folder`; return their names."""
    named = report.cited_names(results.load_claims(paths.results_dir(profile, notebook) / "claims.json"))
    for name in named:
        source = paths.results_dir(profile, notebook) / name
        cited_folder(folder, notebook).mkdir(exist_ok=True)
        shutil.copy2(source, cited_folder(folder, notebook) / name)
    return list(named)


def _write_notebook(profile: str, notebook: str, folder: Path) -> dict[str, Any]:
    """Copy one notebook's executed notebook, claims, the files they cite and manifest into ``folder``; return its
    manifest."""
    nbformat.write(clean_notebook(paths.executed_notebook(profile, notebook)), folder / f"{notebook}.ipynb")
    claims_file = paths.results_dir(profile, notebook) / "claims.json"
    if claims_file.is_file():
        results.read_manifest(claims_file)
        shutil.copy2(claims_file, folder / f"{notebook}.claims.json")
        copy_cited(profile, notebook, folder)
    entry = run_manifest(profile, notebook)
    (folder / f"{notebook}.manifest.json").write_text(results.to_json(entry))
    return entry


def _claims_table(profile: str, notebooks: Sequence[str]):
    table = results.gather_claims(profile)
    return table[table.notebook.isin(list(notebooks))].reset_index(drop=True)


def published_claims(folder: Path, notebook: str) -> pd.DataFrame:
    """A published notebook's claims (none when it logged none), ``notebook`` first as in
    :func:`lib.results.gather_claims`."""
    file = folder / published.NOTEBOOKS / f"{notebook}.claims.json"
    if not file.is_file():
        return pd.DataFrame(columns=["notebook", *claims.COLUMNS])
    return claims.frame(strict_json.loads(file.read_text())).assign(notebook=notebook)[["notebook", *claims.COLUMNS]]


def _keep_notebook(source: Path, notebook: str, folder: Path) -> tuple[dict[str, Any], pd.DataFrame]:
    """Copy a kept notebook's published files from ``source`` into ``folder``; return its manifest and claims."""
    for suffix in (".ipynb", ".claims.json", ".manifest.json"):
        file = source / published.NOTEBOOKS / f"{notebook}{suffix}"
        if file.is_file():
            shutil.copy2(file, folder / file.name)
    if (cited := cited_folder(source / published.NOTEBOOKS, notebook)).is_dir():
        shutil.copytree(cited, cited_folder(folder, notebook))
    return published.manifest(source, notebook), published_claims(source, notebook)


def sources_commit() -> str | None:
    """The commit whose files every published notebook ran: the checkout's ``HEAD`` when no tracked file differs
    from it (each notebook, new or kept, is refused unless its script, ``lib`` sources and parameters are those of
    the working tree), else ``None``. A run made in pieces names several commits in its manifests; this one says
    that their code is one."""
    state = results.git_state()
    return state["commit"] if state["commit"] and state["dirty"] is False else None


def publish(profile: str, target: Path, *, notebooks: Sequence[str], add: bool = False,
            drop_stale: bool = False) -> int:
    """Publish ``notebooks`` of ``profile`` into ``target`` (replaced as a whole; with ``add``, beside the
    notebooks it already holds, kept as they were, the stale ones refused or, with ``drop_stale``, left out);
    return the folder's bytes.

    Every refusal is a one-line :class:`lib.config.ConfigError`; the folder is assembled aside and only
    replaces ``target`` once complete and within :data:`BUDGET_BYTES`.
    """
    target = Path(target).resolve()
    check_target(profile, target)
    check_notebooks(profile, notebooks)
    if drop_stale and not add:
        raise config.ConfigError("drop_stale applies to an add (it leaves stale kept notebooks out); allowed with add")
    kept = kept_notebooks(profile, target, notebooks, drop_stale) if add else []
    staging = target.with_name(f".{target.name}.publishing")
    shutil.rmtree(staging, ignore_errors=True)
    (staging / published.NOTEBOOKS).mkdir(parents=True)
    try:
        entries = [_write_notebook(profile, n, staging / published.NOTEBOOKS) for n in notebooks]
        kept_entries, kept_claims = zip(*[_keep_notebook(target, n, staging / published.NOTEBOOKS) for n in kept],
                                        strict=True) if kept else ((), ())
        table = pd.concat([_claims_table(profile, notebooks), *kept_claims], ignore_index=True)
        table = table.sort_values("notebook", kind="stable", ignore_index=True)
        (staging / "CLAIMS.md").write_text(scoreboard.markdown(profile, table))
        executed = {n: staging / published.NOTEBOOKS / f"{n}.ipynb" for n in notebooks}
        try:
            carried = [report.carry(target / "report", n, str(e.get("title", n)), c)
                       for n, e, c in zip(kept, kept_entries, kept_claims, strict=True)]
        except (OSError, ValueError) as error:
            raise config.ConfigError(f"{error}: its report entry cannot be kept; nothing was published") from error
        report.build(profile, site=staging / "report", executed=executed, notebooks=notebooks, carried=carried)
        entries += kept_entries
        order = [n for n in runner.discover(profile) if n in set(notebooks) | set(kept)]
        commits = sorted({str(e["commit"]) for e in entries})
        (staging / published.RECORD).write_text(results.to_json({
            "profile": profile, "commit": commits[0] if len(commits) == 1 else commits,
            "dirty": any(bool(e["dirty"]) for e in entries), "sources_commit": sources_commit(),
            "finished": max(str(e["finished"]) for e in entries),
            "published": datetime.now(UTC).isoformat(timespec="seconds"), "notebooks": order,
            "claims": claims.summary(table).splitlines(),
        }))
        _scrub_folder(staging)
        total = size(staging)
        if total > BUDGET_BYTES:
            raise config.ConfigError(f"the publication is {megabytes(total)}, over its {megabytes(BUDGET_BYTES)} "
                                     f"budget; nothing was published (lower figure sizes or outputs)")
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return total
