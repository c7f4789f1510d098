"""A published reference run, read back: its record, its notebooks, and whether each still matches the code.

:mod:`lib.publish` writes the folder; this module only reads it, so ``python -m lib list --published`` and
the report can say which published notebook is stale and why without importing the writer. Each published
notebook's manifest keeps the SHA-256 of its script and of every ``lib`` source it ran (:mod:`lib.sources`), and
its parameters; :func:`changes` compares them with the current files and ``params/<profile>/`` and names what
moved: ``lib/kstar/protocol/rules.py changed``, ``parameter cap 300 → 200``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from lib import config, paths, sources, strict_json

#: The record at the top of a publication: its profile, commit, dates and notebooks.
RECORD = "PUBLICATION.json"
NOTEBOOKS = "notebooks"


def default_folder() -> Path:
    """``published/`` at the repository root."""
    return paths.REPO_ROOT / "published"


def pointer(folder: Path | None = None) -> str | None:
    """Where a finished reference run is and how to open it, in two lines; None when ``folder`` (default
    ``published/``) holds no publication. The commands that find nothing local print it (a fresh clone)."""
    folder = default_folder() if folder is None else Path(folder)
    found = record(folder)
    if found is None:
        return None
    where = paths.display(folder)
    return (f"a finished reference run is in {where}/ (profile {found.get('profile')}, "
            f"{len(found.get('notebooks', []))} notebooks, finished {str(found.get('finished', '?'))[:10]}): "
            f"open {where}/report/index.html in a browser\n"
            f"  its scoreboard: {where}/CLAIMS.md; which of its notebooks still match the code: "
            "python -m lib list --published")


def record(folder: Path) -> dict[str, Any] | None:
    """The publication record of ``folder``, or None when it holds none (absent or unreadable)."""
    try:
        found = json.loads((Path(folder) / RECORD).read_text())
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def manifest_file(folder: Path, notebook: str) -> Path:
    return Path(folder) / NOTEBOOKS / f"{notebook}.manifest.json"


def manifest(folder: Path, notebook: str) -> dict[str, Any]:
    """One published notebook's run manifest."""
    return strict_json.loads(manifest_file(folder, notebook).read_text())


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def source_hashes(notebook: str) -> dict[str, str]:
    """``{lib/…py: sha256}`` of every ``lib`` source the notebook's script runs, now."""
    return {sources.name(f): sha256(f) for f in sources.of_file(paths.notebook_script(notebook))}


def _show(value: Any) -> str:
    return json.dumps(value) if isinstance(value, list | dict) else str(value)


def _parameter_changes(notebook: str, profile: str, published: dict[str, Any]) -> list[str]:
    try:
        current = config.as_dict(config.resolve(notebook, profile))
    except config.ConfigError as error:
        return [f"parameters no longer resolve ({str(error).splitlines()[0]})"]
    names = sorted(set(current) | set(published))
    return [f"parameter {name} {_show(published.get(name, '(none)'))} → {_show(current.get(name, '(none)'))}"
            for name in names if published.get(name) != current.get(name)]


def parameters_current(folder: Path, notebook: str) -> bool:
    """Whether the published run of ``notebook`` ran at the parameters its profile resolves to now (its logged
    standard errors are then those of the run the current parameters define)."""
    try:
        entry = manifest(folder, notebook)
    except (OSError, ValueError):
        return False
    return not _parameter_changes(notebook, entry.get("profile", ""), entry.get("params", {}))


def changes(entry: dict[str, Any]) -> list[str]:
    """What changed since a published manifest ``entry`` was written: script, ``lib`` sources, parameters."""
    notebook, profile = entry["notebook"], entry["profile"]
    script = paths.notebook_script(notebook)
    if not script.is_file():
        return [f"{paths.relative_to_root(script)} removed"]
    found = [] if sha256(script) == entry["script_sha256"] else [f"{paths.relative_to_root(script)} changed"]
    before, now = entry.get("sources", {}), source_hashes(notebook)
    found += [f"{name} changed" for name in sorted(before) if name in now and now[name] != before[name]]
    found += [f"{name} now imported" for name in sorted(set(now) - set(before))]
    found += [f"{name} no longer imported" for name in sorted(set(before) - set(now))]
    return found + _parameter_changes(notebook, profile, entry.get("params", {}))


def status_line(found: list[str]) -> str:
    """``current``, or ``stale: what changed; …``."""
    return "current" if not found else "stale: " + "; ".join(found)


def statuses(folder: Path, profile: str | None = None) -> dict[str, str]:
    """Each published notebook's :func:`status_line`; empty when ``folder`` holds no publication (of ``profile``)."""
    found = record(folder)
    if found is None or (profile is not None and found.get("profile") != profile):
        return {}
    lines = {}
    for notebook in found.get("notebooks", []):
        try:
            lines[notebook] = status_line(changes(manifest(folder, notebook)))
        except (OSError, ValueError, KeyError) as error:
            lines[notebook] = f"unreadable published manifest ({type(error).__name__}: {error})"
    return lines
