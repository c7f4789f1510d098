"""Files written whole or not at all, with the user's permissions, and their checksums.

Kept apart from :mod:`lib.results` (which re-exports these) so that :mod:`lib.models` and
:mod:`lib.wheels` write atomically without importing the parameters machinery.

Cache entries prove their content: :func:`write_checked` stores a file with a ``<name>.sha256``
beside it and :func:`read_checked` returns the bytes only when they match it; a folder (a converted
model, a checkpoint) carries a ``SHA256SUMS`` in ``sha256sum`` format (:func:`write_folder_sums`,
:func:`folder_sums_match`). A mismatch is reported in one line (:func:`report_corrupt`) and the
caller recomputes the entry: a flipped byte never reaches a result.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile
from pathlib import Path

#: The checksum list of a folder, in the format ``sha256sum -c SHA256SUMS`` checks.
FOLDER_SUMS = "SHA256SUMS"


def umask() -> int:
    """The process's umask, read without changing it where Linux shows it (``/proc/self/status``)."""
    try:
        match = re.search(r"^Umask:\s*([0-7]+)$", Path("/proc/self/status").read_text(), re.M)
    except OSError:
        match = None
    if match:
        return int(match[1], 8)
    current = os.umask(0o022)  # elsewhere: read by setting, then restore at once
    os.umask(current)
    return current


def atomic_write_bytes(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temp file in the same folder and an atomic rename.

    The file gets the mode a plain ``open(path, "w")`` would give (0666 less the umask), not the
    0600 of :func:`tempfile.mkstemp`.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), 0o666 & ~umask())
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def atomic_write_text(path: Path, text: str) -> Path:
    """Atomically write UTF-8 text."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def sha256_file(path: Path) -> str:
    """SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def report_corrupt(path: Path, what: str = "cache entry") -> None:
    """One line on stderr: ``path`` does not match its checksum and is rebuilt."""
    print(f"warning: {what} {path} does not match its SHA-256 checksum (corrupted); recomputing it", file=sys.stderr)


def _sum_file(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def write_checked(path: Path, data: bytes) -> Path:
    """Write ``data`` atomically, then its SHA-256 to ``<name>.sha256`` (the old checksum goes first).

    Until the new checksum lands, the entry reads as missing, never as done.
    """
    path = Path(path)
    _sum_file(path).unlink(missing_ok=True)
    atomic_write_bytes(path, data)
    atomic_write_text(_sum_file(path), hashlib.sha256(data).hexdigest() + "\n")
    return path


def read_checked(path: Path) -> bytes | None:
    """The bytes of a :func:`write_checked` entry; None when it or its checksum is missing, or they differ
    (then reported in one line: the caller recomputes and rewrites it)."""
    path = Path(path)
    try:
        expected = _sum_file(path).read_text().strip()
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    if hashlib.sha256(data).hexdigest() != expected:
        report_corrupt(path)
        return None
    return data


def write_folder_sums(folder: Path) -> Path:
    """``SHA256SUMS`` over every file below ``folder`` (relative POSIX paths, sorted), written atomically."""
    folder = Path(folder)
    names = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                   if p.is_file() and p.name != FOLDER_SUMS)
    lines = [f"{sha256_file(folder / name)}  {name}\n" for name in names]
    return atomic_write_text(folder / FOLDER_SUMS, "".join(lines))


def folder_sums_match(folder: Path, hasher=sha256_file) -> bool | None:
    """Whether every file listed in ``folder/SHA256SUMS`` has its listed checksum; None without the list.

    ``hasher`` maps a path to its SHA-256 (callers that hash the same weights again pass a cached one).
    """
    try:
        listed = (Path(folder) / FOLDER_SUMS).read_text().splitlines()
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        return all(hasher(Path(folder) / name) == digest
                   for digest, name in (line.split("  ", 1) for line in listed if line))
    except (FileNotFoundError, ValueError):
        return False
