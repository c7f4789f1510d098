"""JupyterLab on the companion (`make lab`): a working copy of each notebook per profile, and a kernel for each.

``notebooks/<name>.py`` is the source: an edit in the Lab, to its parameters cell too, is saved into it. To run a
notebook under a profile without touching it, open its working copy ``lab/<profile>/<name>.ipynb`` (gitignored):
the script with the profile's parameters injected after its parameters cell, as papermill injects them for
``python -m lib run``, so a run in the Lab writes ``results/<profile>/<name>/`` as that run does, and an edited
value makes a variant (:func:`lib.config.load`). ``python -m lib.lab`` writes the copies that are missing and
rewrites the ones the script or the profile's YAML changed since, unless they were edited in the Lab: those it
keeps and names. ``lab/jupytext.toml`` pairs no copy with a script.

:class:`ContentsManager` is jupytext's, with one change: a notebook that names no kernel (a script before its
paired ``.ipynb`` exists) is served naming the server's default one, so the Lab starts it without asking.
"""

from __future__ import annotations

import argparse
import copy as _copy
import functools
import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jupytext
import nbformat
from jupytext.async_contentsmanager import AsyncTextFileContentsManager

from lib import config, files, paths

LAB_DIR: Path = paths.REPO_ROOT / "lab"
#: The kernel the runner names (lib.runner.execute), written into every working copy.
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}
#: The notebook metadata key under which a copy records the digest of its cells as written.
METADATA_KEY = "working_copy"


def working_copy(profile: str, notebook: str) -> Path:
    """Where the working copy of ``notebook`` under ``profile`` lives."""
    return LAB_DIR / paths.check_profile(profile) / f"{notebook}.ipynb"


def _cells_digest(notebook: nbformat.NotebookNode) -> str:
    """SHA-256 of the cells' types and sources (outputs, ids and metadata left out)."""
    cells = [[cell.cell_type, cell.source] for cell in notebook.cells]
    return hashlib.sha256(json.dumps(cells).encode()).hexdigest()


@functools.cache
def _parsed_script(path: str, mtime_ns: int, size: int) -> nbformat.NotebookNode:
    """The script at ``path`` read as a notebook, once per version of the file (its mtime and size): every
    profile's copy starts from it."""
    return jupytext.read(path)


def _script_notebook(notebook: str) -> nbformat.NotebookNode:
    """A fresh notebook of ``notebook``'s script, the caller's to change."""
    script = paths.notebook_script(notebook)
    stat = script.stat()
    return _copy.deepcopy(_parsed_script(str(script), stat.st_mtime_ns, stat.st_size))


def build(profile: str, notebook: str) -> nbformat.NotebookNode:
    """The working copy: the script with the profile's parameters injected after its parameters cell."""
    from papermill.translators import translate_parameters

    copy = _script_notebook(notebook)
    copy.metadata = nbformat.from_dict({"kernelspec": KERNELSPEC})
    values = config.as_dict(config.canonical(notebook, profile))
    where = paths.display(paths.params_file(profile, notebook))
    injected = nbformat.v4.new_code_cell(
        translate_parameters(KERNELSPEC["name"], KERNELSPEC["language"], values,
                             f"Parameters of the {profile} profile ({where})"),
        metadata={"tags": ["injected-parameters"]},
    )
    index = next(i for i, cell in enumerate(copy.cells) if "parameters" in cell.metadata.get("tags", []))
    copy.cells.insert(index + 1, injected)
    copy.metadata[METADATA_KEY] = {"cells_sha256": _cells_digest(copy)}
    return copy


def _read(path: Path) -> nbformat.NotebookNode | None:
    """The copy at ``path``, or ``None`` when it cannot be read as a notebook."""
    try:
        return nbformat.read(path, as_version=4)
    except (OSError, ValueError):  # not JSON, or not a notebook
        return None


def prepare(profile: str, notebook: str) -> str:
    """Bring one working copy up to date: ``written``, ``current`` or ``kept`` (edited in the Lab since it was
    written, and no longer what the script and the YAML give: left as it is)."""
    path, fresh = working_copy(profile, notebook), build(profile, notebook)
    if path.exists():
        old = _read(path)
        digest = None if old is None else _cells_digest(old)
        if digest == _cells_digest(fresh):
            return "current"
        if old is None or digest != old.metadata.get(METADATA_KEY, {}).get("cells_sha256"):
            return "kept"
    path.parent.mkdir(parents=True, exist_ok=True)
    files.atomic_write_text(path, nbformat.writes(fresh))
    return "written"


class ContentsManager(AsyncTextFileContentsManager):
    """Jupytext's contents manager; a notebook that names no kernel is served naming the server's default one.

    The scripts carry no kernelspec (jupytext.toml), and jupytext's own fallback needs a kernelspec whose command is
    this very interpreter (ipykernel's names ``python``): without it the Lab asks for a kernel on the first open.
    The kernelspec never reaches a script: jupytext.toml filters it out on save.
    """

    async def get(self, path: str, content: bool = True, type: str | None = None, format: str | None = None,
                  **kwargs: Any) -> dict[str, Any]:
        model = await super().get(path, content=content, type=type, format=format, **kwargs)
        if model["type"] == "notebook" and model["content"] is not None \
                and "kernelspec" not in model["content"].metadata:
            name = self.parent.kernel_manager.default_kernel_name
            spec = self.parent.kernel_spec_manager.get_kernel_spec(name)
            model["content"].metadata["kernelspec"] = {
                "name": name, "display_name": spec.display_name, "language": spec.language,
            }
        return model


def main(argv: Sequence[str] | None = None) -> int:
    """Write or refresh every profile's working copies; name those kept or not written."""
    from lib import runner  # here, not above: the Lab's server imports this module for its contents manager

    argparse.ArgumentParser(prog="python -m lib.lab", description=__doc__.splitlines()[0]).parse_args(argv)
    for profile in paths.PROFILES:
        counts: Counter[str] = Counter()
        notes: list[str] = []
        for name in runner.discover(profile):
            try:
                outcome = prepare(profile, name)
            except config.ConfigError as error:  # an invalid YAML: the other copies are still written
                outcome, note = "not written", str(error)
            else:
                note = "edited in the Lab, and its script or parameters changed since; delete it for a fresh copy"
            counts[outcome] += 1
            if outcome in ("kept", "not written"):
                notes.append(f"  lab/{profile}/{name}.ipynb: {outcome}: {note}")
        print(f"lab/{profile}/: " + ", ".join(f"{n} {kind}" for kind, n in counts.items()), *notes, sep="\n",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
