"""Logged results: atomic writes, run manifests, loading by name (docs/ARCHITECTURE.md, "Data flow").

A result ``results/<profile>/<notebook>/<name>.{json,parquet}`` is complete only when its
sidecar ``<name>.<ext>.manifest.json`` exists, is written *after* the data, and records the
data's SHA-256: a half-written or interrupted result never reads as done. It is current when its
manifest carries the run's parameter hash and the hash of the ``lib`` sources its notebook runs
(:mod:`lib.sources`). Parameters that differ from the profile's YAML write to the variant folder
``results/<profile>/<notebook>@<overrides>/`` (:func:`lib.config.variant`), never the canonical one.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from lib import claim_catalogue, claims, config, files, papers, parameters, paths, sources, strict_json
from lib.files import atomic_write_bytes, atomic_write_text, sha256_file  # also used from here by callers

_TRACKED_PACKAGES = (
    "numpy", "scipy", "pandas", "scikit-learn", "statsmodels", "matplotlib", "seaborn",
    "torch", "transformers", "papermill", "jupytext", "joblib", "dask",
)


class IncompleteResultError(RuntimeError):
    """A result is missing, has no manifest, or its bytes do not match its manifest."""


class CorruptResultError(IncompleteResultError):
    """A result and its manifest are both there, yet the manifest is not JSON or the bytes do not match its
    checksum: written in full once (the manifest lands last), then damaged (a truncated or edited file)."""


# --------------------------------------------------------------------------- JSON


def to_json(obj: Any) -> str:
    """Deterministic, strict JSON (sorted keys, numpy scalars and arrays converted): every results file, manifest,
    run stamp and publication record is written by it. A non-finite number is ``null`` with what it was in its
    object's ``non_finite`` map (:mod:`lib.strict_json`); :func:`load_json` reads it back as the float."""
    return strict_json.dumps(obj, indent=2, sort_keys=True)


# --------------------------------------------------------------------------- environment facts


@functools.cache
def git_state() -> dict[str, Any]:
    """Commit and dirty flag of the repository (``None`` outside a git checkout)."""

    def git(*args: str) -> str | None:
        try:
            out = subprocess.run(
                ["git", *args], cwd=paths.REPO_ROOT, capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return out.stdout.strip() if out.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": None if status is None else bool(status)}


@functools.cache
def package_versions() -> dict[str, str | None]:
    """Versions of the packages that shape the numbers, plus Python's."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in _TRACKED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


# --------------------------------------------------------------------------- the run


def manifest_path(result: Path) -> Path:
    """The manifest sidecar of a result file."""
    return result.with_name(result.name + ".manifest.json")


class Run:
    """One execution of a notebook: writes its results with manifests and reuses valid ones."""

    def __init__(self, params: parameters.NotebookParams) -> None:
        self.params = params
        self.params_hash = config.params_hash(params)
        self.variant = config.variant(params)
        self.directory = paths.results_dir(params.profile, params.notebook, self.variant)
        self.code = sources.of_file(paths.notebook_script(params.notebook))
        self.code_hash = sources.digest(self.code)
        self.started = datetime.now(UTC)
        self._t0 = time.perf_counter()

    def path(self, filename: str) -> Path:
        """Path of a result file of this run."""
        return self.directory / filename

    def _manifest(self, result: Path) -> dict[str, Any]:
        return {
            "file": paths.relative_to_root(result),
            "sha256": sha256_file(result),
            "notebook": self.params.notebook,
            "profile": self.params.profile,
            "params": config.as_dict(self.params),
            "params_hash": self.params_hash,
            "variant": self.variant,
            "code_hash": self.code_hash,
            "code": [sources.name(f) for f in self.code],
            "seeds": config.seeds_of(self.params),
            "git": git_state(),
            "packages": package_versions(),
            "cpu_count": os.cpu_count(),
            "started": self.started.isoformat(),
            "finished": datetime.now(UTC).isoformat(),
            "wall_time_s": round(time.perf_counter() - self._t0, 3),
        }

    def _commit(self, result: Path, data: bytes) -> Path:
        manifest = manifest_path(result)
        manifest.unlink(missing_ok=True)  # the data is invalid from here until the new manifest
        atomic_write_bytes(result, data)
        atomic_write_text(manifest, to_json(self._manifest(result)))
        return result

    def save_json(self, name: str, obj: Any) -> Path:
        """Log a JSON-serialisable object as ``<name>.json``."""
        return self._commit(self.path(f"{name}.json"), to_json(obj).encode())

    def save_table(self, name: str, frame: pd.DataFrame) -> Path:
        """Log a data frame as ``<name>.parquet``."""
        buffer = io.BytesIO()
        frame.to_parquet(buffer, index=False)
        return self._commit(self.path(f"{name}.parquet"), buffer.getvalue())

    def is_current(self, result: Path) -> bool:
        """True when ``result`` is complete and was computed with these parameters and this ``lib`` code; a corrupt
        one (:class:`CorruptResultError`) is reported in one line and is not."""
        try:
            manifest = read_manifest(result)
        except CorruptResultError as error:
            print(f"warning: {error}; not reused", file=sys.stderr)
            return False
        except IncompleteResultError:
            return False
        return manifest["params_hash"] == self.params_hash and manifest.get("code_hash") == self.code_hash

    def table(self, name: str, compute: Callable[[], pd.DataFrame]) -> tuple[pd.DataFrame, Path]:
        """The logged table ``name``: reused when current, else computed and logged.

        With ``recompute: false`` a missing or stale table is an error, never a computation.
        """
        result = self.path(f"{name}.parquet")
        if not self.is_current(result):
            self._require_recompute(result)
            self.save_table(name, compute())
        return load_table(result), result

    def json(self, name: str, compute: Callable[[], Any]) -> tuple[Any, Path]:
        """The logged JSON object ``name``: reused when current, else computed and logged."""
        result = self.path(f"{name}.json")
        if not self.is_current(result):
            self._require_recompute(result)
            self.save_json(name, compute())
        return load_json(result), result

    def _require_recompute(self, result: Path) -> None:
        if not self.params.recompute:
            raise IncompleteResultError(
                f"{paths.relative_to_root(result)} is missing, stale or corrupt and recompute is false; "
                f"run the notebook with recompute: true first"
            )

    def record_claims(self, evidence: Mapping[str, claims.Evidence]) -> tuple[pd.DataFrame, Path]:
        """Evaluate the notebook's catalogued claims (:mod:`lib.claim_catalogue`) on the closing cell's
        ``evidence`` by id and log them as ``claims.json``, each under the notebook's paper (its plugin record,
        :mod:`lib.papers`). The files a claim's reason or candidate cause names must be files this run logged."""
        notebook = self.params.notebook
        found = claim_catalogue.evaluate_all(notebook, evidence, self.params.profile)
        for c in found:
            named = dict.fromkeys(claims.cited_files(c.mechanism) + claims.cited_files(c.reason))
            if absent := [f for f in named if not self.path(f).is_file()]:
                raise ValueError(f"claim {c.id!r}: its reason or cause cites {', '.join(absent)}, which this run did "
                                 f"not log in {paths.display(self.directory)}")
        paper = papers.paper_of(notebook)
        path = self.save_json("claims", claims.records(found, paper.id if paper else ""))
        return load_claims(path), path


def start(params: parameters.NotebookParams) -> Run:
    """Begin a notebook run under its validated parameters."""
    return Run(params)


def shared_table(func: Callable[..., pd.DataFrame], *args: Any, **kwargs: Any) -> pd.DataFrame:
    """``func(*args, **kwargs)`` computed once for every notebook that asks for it.

    Two notebooks that log the same simulation (00_theory_checks and E03 share the purity and chord
    tables) each keep their own logged copy with its manifest; the computation runs once, cached under
    ``cache/tables/`` keyed by the function, its arguments (the execution keys ``n_jobs`` and ``scheduler``
    excluded: they never change a result) and the sources it runs (its module and the ``lib`` modules that
    imports, transitively: :func:`lib.sources.of_function`). Written atomically with its SHA-256
    (:func:`lib.files.write_checked`), so neither a half-written nor a corrupted table is ever read: either is
    computed again.
    """
    key = to_json({"func": f"{func.__module__}.{func.__qualname__}", "args": args,
                   "kwargs": {k: v for k, v in sorted(kwargs.items()) if k not in config.EXECUTION_KEYS},
                   "code": sources.digest(sources.of_function(func))})
    cached = paths.TABLES_CACHE_DIR / f"{func.__name__}-{hashlib.sha256(key.encode()).hexdigest()[:20]}.parquet"
    if (stored := files.read_checked(cached)) is not None:
        return pd.read_parquet(io.BytesIO(stored))
    frame = func(*args, **kwargs)
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    files.write_checked(cached, buffer.getvalue())
    return frame


# --------------------------------------------------------------------------- reading


def read_manifest(result: Path) -> dict[str, Any]:
    """The manifest of a complete result; raises :class:`IncompleteResultError` otherwise
    (:class:`CorruptResultError` when both files are there but do not agree)."""
    result = Path(result)
    manifest = manifest_path(result)
    if not result.is_file() or not manifest.is_file():
        raise IncompleteResultError(f"{result} is missing or has no manifest")
    try:
        content = strict_json.loads(manifest.read_text())
    except json.JSONDecodeError as err:
        raise CorruptResultError(f"{paths.display(manifest)} is not valid JSON ({err}): corrupt") from None
    if not isinstance(content, dict) or content.get("sha256") != sha256_file(result):
        raise CorruptResultError(f"{paths.display(result)} does not match the checksum in its manifest: corrupt")
    return content


def load_json(result: Path) -> Any:
    """Read a complete JSON result, its recorded non-finite numbers as floats (:func:`lib.strict_json.loads`)."""
    read_manifest(result)
    return strict_json.loads(Path(result).read_text())


def load_table(result: Path) -> pd.DataFrame:
    """Read a complete Parquet result."""
    read_manifest(result)
    return pd.read_parquet(result)


def load_claims(result: Path) -> pd.DataFrame:
    """A logged ``claims.json`` as a table in :data:`lib.claims.COLUMNS` order (:func:`lib.claims.frame`)."""
    return claims.frame(load_json(result))


# --------------------------------------------------------------------------- for reading

#: Significant digits of a number in a table rendered for reading (Markdown, HTML, LaTeX, the terminal, displayed
#: frames); the logged results and the figures' CSVs keep every digit.
READABLE_DIGITS = 4
_NUMBER = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")


def readable_number(value: float, digits: int = READABLE_DIGITS) -> str:
    """``value`` rounded to ``digits`` significant digits, in its shortest form: 0.07999999999999996 → "0.08",
    3200.0 → "3200", 2.220446e-16 → "2.22e-16"; NaN → "nan", infinities as ``str`` writes them."""
    rounded = float(f"{float(value):.{digits}g}")
    if rounded.is_integer() and abs(rounded) < 1e15:
        return str(int(rounded))
    return str(rounded)


def _significant_digits(text: str) -> int:
    mantissa = re.split(r"[eE]", text.strip().lstrip("+-"))[0].replace(".", "")
    return len(mantissa.lstrip("0"))


def _readable_cell(value: Any, digits: int) -> Any:
    """A float as :func:`readable_number` writes it; a float written as text (a CSV read back as strings) with more
    than ``digits`` significant digits likewise; anything else (ints, bools, words, "0.00", "12345") as it is."""
    if isinstance(value, float | np.floating):
        return value if np.isnan(value) else readable_number(value, digits)
    if (isinstance(value, str) and _NUMBER.match(value) and any(c in value for c in ".eE")
            and _significant_digits(value) > digits):
        return readable_number(float(value), digits)
    return value


def readable(frame: pd.DataFrame, digits: int = READABLE_DIGITS) -> pd.DataFrame:
    """A copy of ``frame`` for reading: every float, and every over-long numeric string, at ``digits``
    significant digits (:func:`readable_number`); NaN stays missing so each renderer shows it its way."""
    return frame.map(lambda value: _readable_cell(value, digits))


def complete_results(profile: str, notebook: str, variant: str = "") -> list[Path]:
    """Every complete result file of a notebook (or one of its variants) under a profile."""
    directory = paths.results_dir(profile, notebook, variant)
    found = []
    for manifest in sorted(directory.glob("*.manifest.json")):
        result = manifest.with_name(manifest.name.removesuffix(".manifest.json"))
        try:
            read_manifest(result)
        except IncompleteResultError:
            continue
        found.append(result)
    return found


def corrupt_results(profile: str, notebook: str, variant: str = "") -> list[str]:
    """One line per corrupt result of a notebook's folder (:class:`CorruptResultError`), in name order."""
    found = []
    for manifest in sorted(paths.results_dir(profile, notebook, variant).glob("*.manifest.json")):
        try:
            read_manifest(manifest.with_name(manifest.name.removesuffix(".manifest.json")))
        except CorruptResultError as error:
            found.append(str(error))
        except IncompleteResultError:
            continue
    return found


def discard_results(profile: str, notebook: str, variant: str = "") -> None:
    """Delete a folder's logged results, each manifest before its data (``--force``: recompute everything)."""
    directory = paths.results_dir(profile, notebook, variant)
    for manifest in sorted(directory.glob("*.manifest.json")):
        manifest.unlink(missing_ok=True)
        manifest.with_name(manifest.name.removesuffix(".manifest.json")).unlink(missing_ok=True)


def gather_claims(profile: str) -> pd.DataFrame:
    """Every notebook's complete ``claims.json`` under ``profile`` in one table, ``notebook`` first
    (docs/ARCHITECTURE.md, "Notebooks"); variants are left out."""
    frames = []
    for path in sorted(paths.RESULTS_DIR.joinpath(paths.check_profile(profile)).glob("*/claims.json")):
        if paths.split_run_name(path.parent.name)[1]:
            continue  # a variant's claims are not the profile's
        try:
            frames.append(load_claims(path).assign(notebook=path.parent.name))
        except IncompleteResultError:
            continue
    if not frames:
        return pd.DataFrame(columns=["notebook", *claims.COLUMNS])
    table = pd.concat(frames, ignore_index=True)
    return table[["notebook", *claims.COLUMNS]]
