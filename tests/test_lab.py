"""`make lab`: notebooks open as notebooks, and opening, running and saving one leaves its script alone.

A real Jupyter server (jupytext's contents manager is enabled as a server extension) opens a percent
script as a notebook and saves it back through the contents API, as JupyterLab does on Ctrl-S or autosave.
Served from the repository root, the save writes the paired ``.ipynb`` and leaves the script's bytes alone,
also after a kernel has started and run a cell and the model carries the kernelspec and language_info
JupyterLab writes into it: the scripts carry no header (jupytext.toml filters all notebook metadata), so no
kernel display name can land in them. Served from ``notebooks/`` (the old `make lab`), jupytext looks for its
configuration only in the notebook's folder and its parents up to the server root, so it never sees
``jupytext.toml`` and writes no pair. The Lab settings that `make lab` installs open a ``.py`` with
jupytext's notebook viewer and start the default kernel for a script that names none.
"""

from __future__ import annotations

import contextlib
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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, copy_repository

pytest.importorskip("jupyter_server", reason="jupyter_server is not installed (the dev extras install it)")

NOTEBOOK = "notebooks/00_theory_checks.py"
#: The notebook a user opened in the Lab and saw rewritten by autosave.
RUN_NOTEBOOK = "notebooks/E01_regimes.py"
#: What `make lab` installs (Makefile: LAB_SETTINGS), relative to the venv.
SETTINGS_IN_VENV = Path("share", "jupyter", "lab", "settings", "overrides.json")
VIEWER = "Jupytext Notebook"  # the widget factory jupytext's lab extension registers
KERNEL_TIMEOUT_S = 60.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class _Server:
    """A Jupyter server on ``root_dir`` with a token, isolated from the user's Jupyter/jupytext config."""

    def __init__(self, root_dir: Path, home: Path, *options: str) -> None:
        self.token = secrets.token_hex(16)
        self.url = f"http://127.0.0.1:{_free_port()}"
        home.mkdir(parents=True, exist_ok=True)
        self.runtime_dir = home / "runtime"
        env = {
            **os.environ,
            "JUPYTER_CONFIG_DIR": str(home / "config"),  # the venv's config (jupytext enabled) stays in effect
            "JUPYTER_DATA_DIR": str(home / "data"),  # no user-level kernelspecs: the venv's python3
            "JUPYTER_RUNTIME_DIR": str(self.runtime_dir),  # the kernels' connection files
            "XDG_CONFIG_HOME": str(home / "xdg"),  # no user-level jupytext.toml
        }
        env.pop("JUPYTERLAB_DIR", None)
        env.pop("JUPYTERLAB_SETTINGS_DIR", None)
        command = [
            sys.executable, "-m", "jupyter", "server", f"--ServerApp.root_dir={root_dir}", "--no-browser",
            "--ServerApp.ip=127.0.0.1", f"--port={self.url.rsplit(':', 1)[1]}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}", *options,
        ]
        if os.getuid() == 0:
            command.append("--allow-root")
        self.log = home / "server.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(command, cwd=root_dir, env=env, stdout=log, stderr=subprocess.STDOUT)

    def request(self, method: str, path: str, body: dict | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path, data=data, method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            payload = response.read()
        return json.loads(payload) if payload else None  # DELETE answers 204, no body

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

    def open_notebook(self, path: str) -> dict:
        """The notebook model of ``path``, as JupyterLab's notebook viewer asks for it."""
        model = self.request("GET", f"/api/contents/{path}?content=1&type=notebook")
        assert model["type"] == "notebook", model["type"]
        return model["content"]

    def save_notebook(self, path: str, content: dict) -> None:
        """PUT ``content`` back, as JupyterLab's save does."""
        self.request("PUT", f"/api/contents/{path}", {"type": "notebook", "format": "json", "content": content})

    def save_unchanged(self, path: str) -> None:
        """Open ``path`` as a notebook and PUT the same model back."""
        self.save_notebook(path, self.open_notebook(path))

    @contextlib.contextmanager
    def session(self, path: str, kernel_name: str) -> Iterator[Any]:
        """A notebook session with a running ``kernel_name`` kernel, as JupyterLab starts one; yields a client.

        The client talks to the kernel through its connection file in the server's runtime folder. On exit
        the client stops and the session, its kernel with it, is deleted.
        """
        from jupyter_client import BlockingKernelClient

        session = self.request("POST", "/api/sessions", {
            "path": path, "name": Path(path).name, "type": "notebook", "kernel": {"name": kernel_name},
        })
        client = None
        try:
            assert session["kernel"]["name"] == kernel_name
            connection_file = self.runtime_dir / f"kernel-{session['kernel']['id']}.json"
            deadline = time.monotonic() + KERNEL_TIMEOUT_S
            while not connection_file.is_file():
                assert time.monotonic() < deadline, f"no connection file {connection_file}"
                time.sleep(0.1)
            client = BlockingKernelClient(connection_file=str(connection_file))
            client.load_connection_file()
            client.start_channels()
            client.wait_for_ready(timeout=KERNEL_TIMEOUT_S)
            yield client
        finally:
            if client is not None:
                client.stop_channels()
            self.request("DELETE", f"/api/sessions/{session['id']}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@contextlib.contextmanager
def _running(root_dir: Path, home: Path, *options: str) -> Iterator[_Server]:
    server = _Server(root_dir, home, *options)
    try:
        server.wait()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository copy with its jupytext.toml (copy_repository copies sources only)."""
    root = copy_repository(tmp_path_factory.mktemp("lab"))
    shutil.copy2(REPO / "jupytext.toml", root / "jupytext.toml")
    return root


def _save_through_server(root_dir: Path, home: Path, path: str) -> None:
    with _running(root_dir, home) as server:
        server.save_unchanged(path)


def test_saving_from_the_repository_root_pairs_and_keeps_the_script(repository: Path, tmp_path: Path) -> None:
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


def _run_cell_and_save(server: _Server, path: str) -> dict:
    """Open ``path``, start the kernel it names (else the server's default), run its parameters cell, save.

    The saved model is what JupyterLab saves after a run: the kernelspec of the running kernel and the
    ``language_info`` of its kernel_info reply in the notebook metadata, the cell's execution count and
    outputs. Returns the kernelspec written.
    """
    content = server.open_notebook(path)
    specs = server.request("GET", "/api/kernelspecs")
    kernel_name = content["metadata"].get("kernelspec", {}).get("name") or specs["default"]
    index = next(i for i, cell in enumerate(content["cells"]) if "parameters" in cell["metadata"].get("tags", []))
    cell = content["cells"][index]
    outputs: list[dict] = []

    def keep_output(message: dict) -> None:
        kind = message["msg_type"]
        if kind in ("stream", "display_data", "execute_result", "error"):
            outputs.append({"output_type": kind, **message["content"]})

    with server.session(path, kernel_name) as client:
        info = client.kernel_info(reply=True, timeout=KERNEL_TIMEOUT_S)["content"]
        reply = client.execute_interactive(
            cell["source"], user_expressions={"profile": "profile"}, output_hook=keep_output,
            timeout=KERNEL_TIMEOUT_S,
        )["content"]
    assert reply["status"] == "ok", reply
    assert reply["user_expressions"]["profile"]["data"]["text/plain"] == "'default'"  # the cell ran in the kernel
    spec = specs["kernelspecs"][kernel_name]["spec"]
    kernelspec = {"display_name": spec["display_name"], "language": spec["language"], "name": kernel_name}
    content["metadata"]["kernelspec"] = kernelspec
    content["metadata"]["language_info"] = info["language_info"]
    cell["execution_count"] = reply["execution_count"]
    cell["outputs"] = [{key: value for key, value in output.items() if key != "transient"} for output in outputs]
    server.save_notebook(path, content)
    return kernelspec


@pytest.mark.timeout(300)
def test_opening_running_and_saving_leaves_the_script_byte_identical(repository: Path, tmp_path: Path) -> None:
    """Open a script as a notebook, start its kernel, run a cell, save: twice, before and after the pair exists."""
    script = repository / RUN_NOTEBOOK
    pair = script.with_suffix(".ipynb")
    pair.unlink(missing_ok=True)
    before = script.read_bytes()
    with _running(repository, tmp_path / "home") as server:
        first = _run_cell_and_save(server, RUN_NOTEBOOK)
        assert script.read_bytes() == before, "saving after a run rewrote the script"
        assert pair.is_file(), "no paired .ipynb: jupytext.toml was not found"
        again = _run_cell_and_save(server, RUN_NOTEBOOK)  # reopened: the kernel now comes from the pair
        assert script.read_bytes() == before, "saving after a second run rewrote the script"
    assert first == again and first["name"] == "python3", first  # Python 3 (ipykernel), as ipykernel names it
    assert json.loads(pair.read_text())["metadata"]["kernelspec"] == first  # the kernel lives in the pair


def test_saving_a_lib_module_from_the_notebook_view_leaves_it_alone(repository: Path, tmp_path: Path) -> None:
    """The Lab opens every ``.py`` as a notebook, ``lib/`` too: a save with a kernel's metadata changes no byte."""
    modules = sorted(p.relative_to(repository).as_posix() for p in (repository / "lib").rglob("*.py"))
    before = {path: (repository / path).read_bytes() for path in modules}
    with _running(repository, tmp_path / "home") as server:
        spec = server.request("GET", "/api/kernelspecs")["kernelspecs"]["python3"]["spec"]
        for path in modules:
            content = server.open_notebook(path)
            content["metadata"]["kernelspec"] = {
                "display_name": spec["display_name"], "language": spec["language"], "name": "python3",
            }
            content["metadata"]["language_info"] = {"name": "python", "file_extension": ".py"}
            server.save_notebook(path, content)
    assert [path for path in modules if (repository / path).read_bytes() != before[path]] == []
    assert sorted((repository / "lib").rglob("*.ipynb")) == [], "a lib module was paired"


@pytest.fixture(scope="module")
def installed_settings(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Lab settings file as `make lab` installs it, into a stand-in venv whose install stamps are current."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    venv = tmp_path_factory.mktemp("venv")
    stamps = [venv / ".installed", venv / ".lab-installed"]
    for stamp in stamps:
        stamp.touch()
    target = venv / SETTINGS_IN_VENV
    keep = [arg for stamp in stamps for arg in ("-o", str(stamp))]  # never reinstall the stand-in venv
    make = ["make", "-s", "-C", str(REPO), f"VENV={venv}", *keep]
    planned = subprocess.run([*make, "-n", "lab"], capture_output=True, text=True, check=True, timeout=60).stdout
    assert f"cp lab/overrides.json {target}" in planned, f"`make lab` does not install the settings:\n{planned}"
    subprocess.run([*make, str(target)], capture_output=True, text=True, check=True, timeout=60)
    return target


def test_make_lab_installs_the_viewer_settings_into_the_venv(installed_settings: Path) -> None:
    assert installed_settings.read_bytes() == (REPO / "lab" / "overrides.json").read_bytes()
    settings = json.loads(installed_settings.read_text())
    assert settings["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"] == {"python": VIEWER}
    assert settings["@jupyterlab/notebook-extension:tracker"]["autoStartDefaultKernel"] is True


@pytest.mark.timeout(120)
def test_the_lab_opens_python_files_with_the_jupytext_notebook_viewer(
    installed_settings: Path, repository: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Lab reads the installed file as its default settings, and jupytext's extension provides the viewer."""
    pytest.importorskip("jupyterlab", reason="jupyterlab is not installed (`make lab` installs the lab extras)")
    from jupyter_core.paths import jupyter_path
    from jupyterlab.labapp import LabApp

    monkeypatch.delenv("JUPYTERLAB_DIR", raising=False)
    assert Path(LabApp().app_settings_dir) == Path(sys.prefix) / SETTINGS_IN_VENV.parent  # where make writes it
    extension = next((Path(p) / "jupyterlab-jupytext" for p in jupyter_path("labextensions")
                      if (Path(p) / "jupyterlab-jupytext").is_dir()), None)
    assert extension is not None, "jupytext's lab extension is not installed"
    assert any(f'"{VIEWER}"' in js.read_text(errors="ignore") for js in extension.rglob("*.js"))

    options = (f"--LabApp.app_settings_dir={installed_settings.parent}",)
    with _running(repository, tmp_path / "home", *options) as server:
        viewers = server.request("GET", "/lab/api/settings/@jupyterlab/docmanager-extension:plugin")
        tracker = server.request("GET", "/lab/api/settings/@jupyterlab/notebook-extension:tracker")
    # An override becomes the schema's default; the Lab's value is the user's settings (none here) over it.
    assert viewers["schema"]["properties"]["defaultViewers"]["default"] == {"python": VIEWER}
    assert tracker["schema"]["properties"]["autoStartDefaultKernel"]["default"] is True
    assert "defaultViewers" not in viewers["settings"] and "autoStartDefaultKernel" not in tracker["settings"]
