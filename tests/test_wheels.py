"""lib.wheels: pinned wheels fetched once, never installed; offline or altered ones refused with a clear message."""

import hashlib
import subprocess
from pathlib import Path

import pytest

from lib import wheels


def test_offline_fetch_names_the_pip_command(tmp_path, monkeypatch):
    def offline(*args, **kwargs):
        return subprocess.CompletedProcess(args, 1, "", "ERROR: Could not find a version (network unreachable)")

    monkeypatch.setattr(wheels.subprocess, "run", offline)
    with pytest.raises(wheels.WheelUnavailableError, match=r"-m pip download --no-deps .*wefe==1\.0\.1"):
        wheels.fetch("wefe==1.0.1", tmp_path)
    with pytest.raises(ValueError, match="name==version"):
        wheels.fetch("wefe>=1", tmp_path)


def _index_serving(data: bytes):
    """A stand-in for ``pip download`` (the index, not the code under test) that writes ``data`` as the wheel."""
    def download(command, **kwargs):
        dest = Path(command[command.index("--dest") + 1])
        (dest / "wefe-1.0.1-py3-none-any.whl").write_bytes(data)
        return subprocess.CompletedProcess(command, 0, "", "")

    return download


def test_a_cached_wheel_with_other_bytes_is_reported_and_fetched_again(tmp_path, monkeypatch, capsys):
    pinned = hashlib.sha256(b"the pinned wheel").hexdigest()
    wheel = tmp_path / "wefe-1.0.1-py3-none-any.whl"
    wheel.write_bytes(b"the pinned wheel, one byte off")
    monkeypatch.setattr(wheels.subprocess, "run", _index_serving(b"the pinned wheel"))
    assert wheels.fetch("wefe==1.0.1", tmp_path, sha256=pinned) == wheel
    assert wheel.read_bytes() == b"the pinned wheel" and str(wheel) in capsys.readouterr().err


def test_an_index_serving_other_bytes_is_refused_and_a_cached_wheel_is_not_fetched_again(tmp_path, monkeypatch):
    monkeypatch.setattr(wheels.subprocess, "run", _index_serving(b"not the pinned wheel"))
    with pytest.raises(wheels.WheelUnavailableError, match="SHA-256"):
        wheels.fetch("wefe==1.0.1", tmp_path, sha256="0" * 64)
    monkeypatch.setattr(wheels.subprocess, "run", None)  # a cached wheel never reaches pip
    wheel = tmp_path / "wefe-1.0.1-py3-none-any.whl"
    assert wheels.fetch("wefe==1.0.1", tmp_path) == wheel  # no pinned hash: the cached file is taken as is
