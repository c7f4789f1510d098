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


def test_a_checked_entry_reads_back_and_a_flipped_byte_reads_as_missing(tmp_path, capsys):
    from conftest import flip_byte

    entry = files.write_checked(tmp_path / "cache" / "entry.bin", b"0123456789")
    assert files.read_checked(entry) == b"0123456789" and capsys.readouterr().err == ""
    flip_byte(entry)
    assert files.read_checked(entry) is None
    [line] = capsys.readouterr().err.splitlines()
    assert str(entry) in line and "checksum" in line
    assert files.read_checked(tmp_path / "absent.bin") is None and capsys.readouterr().err == ""


def test_an_entry_without_its_checksum_reads_as_missing(tmp_path):
    entry = files.write_checked(tmp_path / "entry.bin", b"done")
    (tmp_path / "entry.bin.sha256").unlink()  # the state an interrupted write leaves
    assert files.read_checked(entry) is None


def test_folder_sums_are_sha256sum_format_and_catch_a_flip(tmp_path):
    from conftest import flip_byte

    (tmp_path / "sub").mkdir()
    (tmp_path / "a.bin").write_bytes(b"alpha")
    (tmp_path / "sub" / "b.bin").write_bytes(b"beta")
    assert files.folder_sums_match(tmp_path) is None
    listing = files.write_folder_sums(tmp_path).read_text()
    alpha, beta = (hashlib.sha256(data).hexdigest() for data in (b"alpha", b"beta"))
    assert listing == f"{alpha}  a.bin\n{beta}  sub/b.bin\n"
    assert files.folder_sums_match(tmp_path) is True
    flip_byte(tmp_path / "sub" / "b.bin")
    assert files.folder_sums_match(tmp_path) is False
    (tmp_path / "sub" / "b.bin").unlink()
    assert files.folder_sums_match(tmp_path) is False
