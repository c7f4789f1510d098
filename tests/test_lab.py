"""`make lab` serves the repository root, so jupytext finds `jupytext.toml` (issue 15 §1).

A real Jupyter server (jupytext's contents manager is enabled as a server extension) opens a percent
script as a notebook and saves it back through the contents API, as JupyterLab does on Ctrl-S. Served
from the repository root, the save writes the paired ``.ipynb`` and leaves the script's bytes alone.
Served from ``notebooks/`` (the old `make lab`), jupytext looks for its configuration only in the
notebook's folder and its parents up to the server root, so it never sees ``jupytext.toml``: no pair
is written and the header gains a ``jupytext_version`` block, a git diff on every save.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from conftest import REPO, copy_repository

pytest.importorskip("jupyter_server", reason="jupyter_server is not installed (the dev extras install it)")

NOTEBOOK = "notebooks/00_theory_checks.py"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class _Server:
    """A Jupyter server on ``root_dir`` with a token, isolated from the user's Jupyter/jupytext config."""

    def __init__(self, root_dir: Path, home: Path) -> None:
        self.token = secrets.token_hex(16)
        self.url = f"http://127.0.0.1:{_free_port()}"
        home.mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            "JUPYTER_CONFIG_DIR": str(home / "config"),  # the venv's config (jupytext enabled) stays in effect
            "JUPYTER_DATA_DIR": str(home / "data"),
            "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
            "XDG_CONFIG_HOME": str(home / "xdg"),  # no user-level jupytext.toml
        }
        command = [
            sys.executable, "-m", "jupyter", "server", f"--ServerApp.root_dir={root_dir}", "--no-browser",
            "--ServerApp.ip=127.0.0.1", f"--port={self.url.rsplit(':', 1)[1]}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
        ]
        if os.getuid() == 0:
            command.append("--allow-root")
        self.log = home / "server.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(command, cwd=root_dir, env=env, stdout=log, stderr=subprocess.STDOUT)

    def request(self, method: str, path: str, body: dict | None = None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path, data=data, method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def wait(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"jupyter server exited with {self.process.returncode}:\n{self.log.read_text()}")
            try:
                self.request("GET", "/api/status")
                return
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.2)
        pytest.fail(f"jupyter server did not answer within {timeout} s:\n{self.log.read_text()}")

    def save_unchanged(self, path: str) -> None:
        """Open ``path`` as a notebook and PUT the same model back, as JupyterLab's save does."""
        model = self.request("GET", f"/api/contents/{path}?content=1&type=notebook")
        assert model["type"] == "notebook", model["type"]
        saved = {"type": "notebook", "format": "json", "content": model["content"]}
        self.request("PUT", f"/api/contents/{path}", saved)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository copy with its jupytext.toml (copy_repository copies sources only)."""
    root = copy_repository(tmp_path_factory.mktemp("lab"))
    shutil.copy2(REPO / "jupytext.toml", root / "jupytext.toml")
    return root


def _save_through_server(root_dir: Path, home: Path, path: str) -> None:
    server = _Server(root_dir, home)
    try:
        server.wait()
        server.save_unchanged(path)
    finally:
        server.stop()


def test_saving_from_the_repository_root_pairs_and_keeps_the_header(repository: Path, tmp_path: Path) -> None:
    script = repository / NOTEBOOK
    before = script.read_bytes()
    assert not script.with_suffix(".ipynb").exists()
    _save_through_server(repository, tmp_path / "home", NOTEBOOK)
    assert script.with_suffix(".ipynb").exists(), "no paired .ipynb: jupytext.toml was not found"
    assert script.read_bytes() == before, "saving rewrote the script"


def test_saving_from_notebooks_misses_the_configuration(repository: Path, tmp_path: Path) -> None:
    """The negative control: served from ``notebooks/``, jupytext never sees the repository's jupytext.toml."""
    root = tmp_path / "repo"
    shutil.copytree(repository / "notebooks", root / "notebooks", ignore=shutil.ignore_patterns("*.ipynb"))
    shutil.copy2(repository / "jupytext.toml", root / "jupytext.toml")
    script = root / NOTEBOOK
    _save_through_server(root / "notebooks", tmp_path / "home", script.name)
    assert not script.with_suffix(".ipynb").exists()
    assert "jupytext_version" in script.read_text()
