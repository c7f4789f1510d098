"""Files written whole or not at all, with the user's permissions, and their checksums.

Kept apart from :mod:`lib.results` (which re-exports these) so that :mod:`lib.features` and
:mod:`lib.wheels` write atomically without importing the parameters machinery.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path


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
