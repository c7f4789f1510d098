"""lib.files: whole-or-nothing writes with the user's permissions, and checksums."""

import hashlib
import os
import stat

import pytest

from lib import files


def test_atomic_write_creates_parents_and_follows_the_umask(tmp_path):
    previous = os.umask(0o027)
    try:
        assert files.umask() == 0o027
        path = files.atomic_write_text(tmp_path / "a" / "b.txt", "héllo")
    finally:
        os.umask(previous)
    assert path.read_text(encoding="utf-8") == "héllo"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640  # 0666 less the umask, not mkstemp's 0600
    assert [p.name for p in path.parent.iterdir()] == ["b.txt"]  # no temp file left behind


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path):
    path = files.atomic_write_text(tmp_path / "x.txt", "old")
    with pytest.raises(TypeError):
        files.atomic_write_bytes(path, "not bytes")  # type: ignore[arg-type]
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["x.txt"]


def test_sha256_file_matches_hashlib(tmp_path):
    data = os.urandom(3 << 20)  # several read blocks
    path = files.atomic_write_bytes(tmp_path / "blob.bin", data)
    assert files.sha256_file(path) == hashlib.sha256(data).hexdigest()
