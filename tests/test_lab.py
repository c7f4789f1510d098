"""`make lab`: notebooks open as notebooks, run under any profile, and opening, running and saving one leaves its
script alone.

A real Jupyter server (jupytext's contents manager is enabled as a server extension) opens a percent
script as a notebook and saves it back through the contents API, as JupyterLab does on Ctrl-S or autosave.
Served from the repository root, the save writes the paired ``.ipynb`` and leaves the script's bytes alone,
also after a kernel has started and run a cell and the model carries the kernelspec and language_info
JupyterLab writes into it: the scripts carry no header (jupytext.toml filters all notebook metadata), so no
kernel display name can land in them. Served from ``notebooks/`` (the old `make lab`), jupytext looks for its
configuration only in the notebook's folder and its parents up to the server root, so it never sees
``jupytext.toml`` and writes no pair. The Lab settings that `make lab` installs open a ``.py`` with
jupytext's notebook viewer, and its contents manager (:class:`lib.lab.ContentsManager`) serves a script that
names no kernel with the default one. A profile runs in the working copy ``lab/<profile>/<name>.ipynb``
(:mod:`lib.lab`), never by editing the script. Headless Chromium drives the Lab itself: no kernel dialog on a
first open, a profile's working copy opened from the file browser, edited, run and saved, the script unchanged
and ``git status`` clean.
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
from conftest import REPO, copy_repository, headless_chromium

from lib import paths

pytest.importorskip("jupyter_server", reason="jupyter_server is not installed (the dev extras install it)")

NOTEBOOK = "notebooks/00_theory_checks.py"
#: The notebook a user opened in the Lab and saw rewritten by autosave.
RUN_NOTEBOOK = "notebooks/E01_regimes.py"
#: What `make lab` installs (Makefile: LAB_SETTINGS), relative to the venv.
SETTINGS_IN_VENV = Path("share", "jupyter", "lab", "settings", "overrides.json")
VIEWER = "Jupytext Notebook"  # the widget factory jupytext's lab extension registers
KERNEL_TIMEOUT_S = 60.0
#: The contents manager `make lab` serves with (Makefile: LAB_SERVER).
CONTENTS_MANAGER = "--ServerApp.contents_manager_class=lib.lab.ContentsManager"


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
            "PYTHONPATH": str(root_dir),  # the kernels import the copy's lib, wherever their notebook lies
        }
        for variable in ("JUPYTERLAB_DIR", "JUPYTERLAB_SETTINGS_DIR", "JUPYTERLAB_WORKSPACES_DIR"):
            env.pop(variable, None)
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


@pytest.fixture(scope="module")
def served(repository: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Server]:
    """One Jupyter server with jupytext's contents manager and no other option, on :func:`repository`, shared by the
    tests that need no other: each opens, runs and saves its own files (a server start costs seconds of CPU)."""
    with _running(repository, tmp_path_factory.mktemp("served")) as server:
        yield server


def _save_through_server(root_dir: Path, home: Path, path: str) -> None:
    with _running(root_dir, home) as server:
        server.save_unchanged(path)


def test_saving_from_the_repository_root_pairs_and_keeps_the_script(repository: Path, served: _Server) -> None:
    script = repository / NOTEBOOK
    before = script.read_bytes()
    assert not script.with_suffix(".ipynb").exists()
    served.save_unchanged(NOTEBOOK)
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
def test_opening_running_and_saving_leaves_the_script_byte_identical(repository: Path, served: _Server) -> None:
    """Open a script as a notebook, start its kernel, run a cell, save: twice, before and after the pair exists."""
    script = repository / RUN_NOTEBOOK
    pair = script.with_suffix(".ipynb")
    pair.unlink(missing_ok=True)
    before = script.read_bytes()
    first = _run_cell_and_save(served, RUN_NOTEBOOK)
    assert script.read_bytes() == before, "saving after a run rewrote the script"
    assert pair.is_file(), "no paired .ipynb: jupytext.toml was not found"
    again = _run_cell_and_save(served, RUN_NOTEBOOK)  # reopened: the kernel now comes from the pair
    assert script.read_bytes() == before, "saving after a second run rewrote the script"
    assert first == again and first["name"] == "python3", first  # Python 3 (ipykernel), as ipykernel names it
    assert json.loads(pair.read_text())["metadata"]["kernelspec"] == first  # the kernel lives in the pair


def test_saving_a_lib_module_from_the_notebook_view_leaves_it_alone(repository: Path, served: _Server) -> None:
    """The Lab opens every ``.py`` as a notebook, ``lib/`` too: a save with a kernel's metadata changes no byte."""
    modules = sorted(p.relative_to(repository).as_posix() for p in (repository / "lib").rglob("*.py"))
    before = {path: (repository / path).read_bytes() for path in modules}
    spec = served.request("GET", "/api/kernelspecs")["kernelspecs"]["python3"]["spec"]
    for path in modules:
        content = served.open_notebook(path)
        content["metadata"]["kernelspec"] = {
            "display_name": spec["display_name"], "language": spec["language"], "name": "python3",
        }
        content["metadata"]["language_info"] = {"name": "python", "file_extension": ".py"}
        served.save_notebook(path, content)
    assert [path for path in modules if (repository / path).read_bytes() != before[path]] == []
    assert sorted((repository / "lib").rglob("*.ipynb")) == [], "a lib module was paired"


def _make(venv: Path, *args: str) -> subprocess.CompletedProcess:
    """`make ARGS` in the repository against the stand-in ``venv``, whose install stamps are never remade."""
    keep = [arg for stamp in (".installed", ".lab-installed") for arg in ("-o", str(venv / stamp))]
    return subprocess.run(["make", "-s", "-C", str(REPO), f"VENV={venv}", *keep, *args],
                          capture_output=True, text=True, check=True, timeout=60)


@pytest.fixture(scope="module")
def stand_in_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv folder whose install stamps are current, so that make plans `make lab` without installing."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    venv = tmp_path_factory.mktemp("venv")
    for stamp in (".installed", ".lab-installed"):
        (venv / stamp).touch()
    return venv


@pytest.fixture(scope="module")
def installed_settings(stand_in_venv: Path) -> Path:
    """The Lab settings file as `make lab` installs it, into the stand-in venv."""
    target = stand_in_venv / SETTINGS_IN_VENV
    planned = _make(stand_in_venv, "-n", "lab").stdout
    assert f"cp lab/overrides.json {target}" in planned, f"`make lab` does not install the settings:\n{planned}"
    _make(stand_in_venv, str(target))
    return target


def test_make_lab_writes_the_working_copies_and_serves_them_with_the_contents_manager(stand_in_venv: Path) -> None:
    python = stand_in_venv / "bin" / "python"
    planned = _make(stand_in_venv, "-n", "lab", "PROFILE=smoke").stdout.splitlines()
    server = next(i for i, line in enumerate(planned) if line.startswith(f"{python} -m jupyter lab "))
    assert f"{python} -m lib.lab" in planned[:server], planned  # the copies exist before the Lab opens
    assert CONTENTS_MANAGER in planned[server].split() and "--ServerApp.root_dir=." in planned[server].split()
    assert "--LabApp.default_url=/lab/tree/lab/smoke" in planned[server].split()


def test_make_lab_installs_the_viewer_settings_into_the_venv(installed_settings: Path) -> None:
    assert installed_settings.read_bytes() == (REPO / "lab" / "overrides.json").read_bytes()
    settings = json.loads(installed_settings.read_text())
    assert settings == {"@jupyterlab/docmanager-extension:plugin": {"defaultViewers": {"python": VIEWER}}}


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
    # An override becomes the schema's default; the Lab's value is the user's settings (none here) over it.
    assert viewers["schema"]["properties"]["defaultViewers"]["default"] == {"python": VIEWER}
    assert "defaultViewers" not in viewers["settings"]


# --------------------------------------------------------------------------- profiles: the working copies


def _parameter_namespace(copy: Any) -> dict[str, Any]:
    """The variables the parameters cell and the injected cell of ``copy`` leave, run in order as the Lab runs them."""
    namespace: dict[str, Any] = {}
    for cell in copy.cells:
        if {"parameters", "injected-parameters"} & set(cell.metadata.get("tags", [])):
            exec(cell.source, namespace)  # noqa: S102 (the notebooks' own assignments)
    return namespace


def test_every_working_copy_runs_its_profile_as_lib_run_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run in the Lab, a copy's parameters are its profile's YAML: the canonical results folder, no variant."""
    from lib import config, lab, runner

    monkeypatch.delenv(config.RESOLVED_VARIABLE, raising=False)  # as in a kernel the Lab starts
    for profile in paths.PROFILES:
        for name in runner.discover(profile):
            copy = lab.build(profile, name)
            assert copy.metadata["kernelspec"]["name"] == "python3"
            params = config.load(name, _parameter_namespace(copy))
            assert (params, config.variant(params)) == (config.canonical(name, profile), ""), (profile, name)
    edited = {**_parameter_namespace(lab.build("smoke", "E01_regimes")), "mixed_n": 50}
    assert config.variant(config.load("E01_regimes", edited)) == "mixed_n=50"  # an edit in a copy: a variant


def test_a_working_copy_follows_its_script_until_it_is_edited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import nbformat

    from lib import lab

    name, notebooks = "E01_regimes", tmp_path / "notebooks"
    notebooks.mkdir()
    script = shutil.copy2(REPO / RUN_NOTEBOOK, notebooks / f"{name}.py")
    monkeypatch.setattr(paths, "NOTEBOOKS_DIR", notebooks)
    monkeypatch.setattr(lab, "LAB_DIR", tmp_path / "lab")
    copy = lab.working_copy("smoke", name)
    assert copy == tmp_path / "lab" / "smoke" / f"{name}.ipynb"
    assert [lab.prepare("smoke", name), lab.prepare("smoke", name)] == ["written", "current"]

    ran = nbformat.read(copy, as_version=4)  # run and saved in the Lab: outputs, the kernel's display name
    ran.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="ran\n")]
    ran.metadata["kernelspec"]["display_name"] = "Python 3 (ipykernel)"
    nbformat.write(ran, copy)
    assert lab.prepare("smoke", name) == "current"
    assert nbformat.read(copy, as_version=4).cells[1].outputs[0]["text"] == "ran\n"

    script.write_text(script.read_text() + "\n# %%\nprint('a new cell')\n")
    assert lab.prepare("smoke", name) == "written"  # unedited: it follows the script
    assert nbformat.read(copy, as_version=4).cells[-1].source == "print('a new cell')"

    edited = nbformat.read(copy, as_version=4)
    edited.cells[3].source += "\nmixed_n = 50"
    nbformat.write(edited, copy)
    before = copy.read_bytes()
    script.write_text(script.read_text() + "\n# %%\nprint('another')\n")
    assert lab.prepare("smoke", name) == "kept" and copy.read_bytes() == before  # an edit is never overwritten
    copy.write_text("not a notebook")
    assert lab.prepare("smoke", name) == "kept" and copy.read_text() == "not a notebook"


def test_make_lab_writes_every_copy_it_can_and_names_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    from lib import lab

    name = "E01_regimes"
    (tmp_path / "notebooks").mkdir()
    shutil.copy2(REPO / RUN_NOTEBOOK, tmp_path / "notebooks" / f"{name}.py")
    for profile in ("smoke", "default"):
        (tmp_path / "params" / profile).mkdir(parents=True)
        shutil.copy2(paths.params_file(profile, name), tmp_path / "params" / profile / f"{name}.yaml")
    (tmp_path / "params" / "smoke" / f"{name}.yaml").write_text("mixed_n: -1\n")
    for variable, folder in (("NOTEBOOKS_DIR", "notebooks"), ("PARAMS_DIR", "params")):
        monkeypatch.setattr(paths, variable, tmp_path / folder)
    monkeypatch.setattr(lab, "LAB_DIR", tmp_path / "lab")
    assert lab.main([]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "lab/smoke/: 1 not written", lines
    assert lines[1].startswith(f"  lab/smoke/{name}.ipynb: not written: {name}: parameter 'mixed_n' = -1"), lines
    assert "lab/default/: 1 written" in lines and lab.working_copy("default", name).is_file()
    assert not lab.working_copy("smoke", name).exists()


def test_the_contents_manager_names_the_default_kernel_for_a_script(
    repository: Path, served: _Server, tmp_path: Path,
) -> None:
    """Jupytext alone serves a script before its pair exists with no kernel (the Lab then asks for one)."""
    (repository / RUN_NOTEBOOK).with_suffix(".ipynb").unlink(missing_ok=True)
    assert "kernelspec" not in served.open_notebook(RUN_NOTEBOOK)["metadata"]
    with _running(repository, tmp_path / "lab", CONTENTS_MANAGER) as server:
        metadata = server.open_notebook(RUN_NOTEBOOK)["metadata"]
        specs = server.request("GET", "/api/kernelspecs")
        before = (repository / RUN_NOTEBOOK).read_bytes()
        server.save_notebook(RUN_NOTEBOOK, server.open_notebook(RUN_NOTEBOOK))
    spec = specs["kernelspecs"][specs["default"]]["spec"]
    assert metadata["kernelspec"] == {
        "name": specs["default"], "display_name": spec["display_name"], "language": spec["language"],
    }
    assert (repository / RUN_NOTEBOOK).read_bytes() == before  # the kernelspec never reaches the script


# --------------------------------------------------------------------------- the Lab in headless Chromium

UI_TIMEOUT_S = 180.0
#: Lookups of a file-browser item again after it went stale under a click (the listing re-rendered).
STALE_RETRIES = 5
#: What config.load prints for E01's smoke copy, run in the Lab: the profile's YAML, the canonical folder.
SMOKE_RUN = ("E01_regimes: profile smoke (params/smoke/E01_regimes.yaml); overrides: none; "
             "results: results/smoke/E01_regimes/")
EDIT = "# edited in the Lab"


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=lab test", "-c", "user.email=lab@test", "-c", "commit.gpgsign=false",
                           *args], cwd=root, capture_output=True, text=True, check=True, timeout=60).stdout


@pytest.fixture
def committed_repository(tmp_path: Path) -> Path:
    """A repository copy with the files `make lab` reads, committed to a git repository of its own."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = copy_repository(tmp_path / "repo")
    for name in ("jupytext.toml", ".gitignore", "lab/overrides.json", "lab/jupytext.toml"):
        (root / name).parent.mkdir(exist_ok=True)
        shutil.copy2(REPO / name, root / name)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "the companion")
    return root


def _chromium(profile_dir: Path) -> Any:
    """Headless Chromium with a fresh profile, wide enough for the Lab's file browser and a notebook."""
    return headless_chromium("--window-size=1400,1000", f"--user-data-dir={profile_dir}")


#: The state of the Lab's current notebook: its path, kernel name and status, and the text of any dialog.
_STATE_JS = """
const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
// The main area's current document tab: Lumino's lm-mod-current (JupyterLab 4.6), or jp-mod-current (earlier 4.x).
const tab = document.querySelector('.lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current[title*="Path: "]') ||
  document.querySelector('.lm-TabBar-tab.jp-mod-current[title*="Path: "]');
return {
  path: tab ? tab.title.split('\\n').find(l => l.startsWith('Path: ')).slice(6) : null,
  kernel: panel && panel.querySelector('.jp-Toolbar-kernelName') ?
    panel.querySelector('.jp-Toolbar-kernelName').textContent.trim() : null,
  status: panel && panel.querySelector('.jp-Notebook-ExecutionIndicator') ?
    panel.querySelector('.jp-Notebook-ExecutionIndicator').dataset.status : null,
  dialogs: Array.from(document.querySelectorAll('.jp-Dialog')).map(d => d.textContent.trim()),
};
"""


class _Lab:
    """JupyterLab in headless Chromium, driven through its UI alone (clicks, double-clicks, keys)."""

    def __init__(self, driver: Any, server: _Server) -> None:
        self.driver, self.server = driver, server

    def wait(self, what: str, predicate: Any) -> Any:
        """Poll ``predicate`` until it returns something true; fail naming ``what``, never waiting on a dialog."""
        deadline = time.monotonic() + UI_TIMEOUT_S
        while time.monotonic() < deadline:
            state = self.driver.execute_script(_STATE_JS)
            assert not state["dialogs"], f"a dialog while waiting for {what}: {state['dialogs']}"
            if value := predicate(state):
                return value
            time.sleep(0.2)
        pytest.fail(f"no {what} within {UI_TIMEOUT_S} s; the Lab shows {self.driver.execute_script(_STATE_JS)}")

    def open_url(self, path: str) -> None:
        self.driver.get(f"{self.server.url}/lab/tree/{path}?token={self.server.token}")

    def kernel_started(self, path: str) -> dict:
        """Wait until ``path`` is the current notebook and its kernel is idle: the Lab started one without asking."""
        return self.wait(f"an idle kernel for {path}", lambda s: s["path"] == path and s["kernel"] not in
                         (None, "", "No Kernel") and s["status"] == "idle" and s)

    def open_from_file_browser(self, path: str) -> None:
        """Double-click from the home folder, in the file browser, each folder of ``path`` and then the file.

        The listing re-renders while it loads, so an item found may be gone when it is read or clicked (Selenium's
        stale element): then it is looked up again, at most :data:`STALE_RETRIES` times."""
        from selenium.common.exceptions import StaleElementReferenceException
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.by import By

        def item_named(name: str) -> Any:
            try:
                listed = self.driver.find_elements(By.CSS_SELECTOR, ".jp-FileBrowser .jp-DirListing-item")
                return next((i for i in listed if i.get_attribute("title").startswith(f"Name: {name}\n")), None)
            except StaleElementReferenceException:
                return None

        self.driver.find_element(By.CSS_SELECTOR, ".jp-FileBrowser .jp-BreadCrumbs-home").click()
        for name in path.split("/"):
            for attempt in range(STALE_RETRIES):
                item = self.wait(f"{name} in the file browser", lambda _s, name=name: item_named(name))
                try:
                    ActionChains(self.driver).double_click(item).perform()
                    break
                except StaleElementReferenceException:
                    if attempt == STALE_RETRIES - 1:
                        raise

    def cell(self, index: int) -> Any:
        from selenium.webdriver.common.by import By

        panel = self.driver.find_element(By.CSS_SELECTOR, ".jp-NotebookPanel:not(.lm-mod-hidden)")
        return panel.find_elements(By.CSS_SELECTOR, ".jp-Notebook .jp-Cell")[index]

    def type_at_end(self, index: int, text: str) -> None:
        """Click into cell ``index``'s editor, go to its end and type ``text`` on a new line."""
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        self.cell(index).find_element(By.CSS_SELECTOR, ".cm-content").click()
        ActionChains(self.driver).key_down(Keys.CONTROL).send_keys(Keys.END).key_up(Keys.CONTROL) \
            .send_keys(Keys.ENTER, text, Keys.ESCAPE).perform()

    def run_from(self, index: int, count: int) -> None:
        """Select cell ``index`` and press Shift-Enter ``count`` times: run it and the cells after it."""
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        self.cell(index).find_element(By.CSS_SELECTOR, ".jp-InputPrompt").click()
        chain = ActionChains(self.driver)
        for _ in range(count):
            chain.key_down(Keys.SHIFT).send_keys(Keys.ENTER).key_up(Keys.SHIFT)
        chain.perform()

    def save(self) -> None:
        """Ctrl-S, as a user saves the current notebook."""
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        ActionChains(self.driver).key_down(Keys.CONTROL).send_keys("s").key_up(Keys.CONTROL).perform()

    def activate_tab(self, path: str) -> None:
        from selenium.webdriver.common.by import By

        tabs = self.driver.find_elements(By.CSS_SELECTOR, ".lm-TabBar-tab[title*='Path: ']")
        next(t for t in tabs if f"\nPath: {path}\n" in t.get_attribute("title")).click()


def _until(what: str, predicate: Any) -> None:
    """Poll ``predicate`` on the files the Lab writes until it holds."""
    deadline = time.monotonic() + UI_TIMEOUT_S
    while not predicate():
        assert time.monotonic() < deadline, f"{what} within {UI_TIMEOUT_S} s"
        time.sleep(0.2)


@pytest.mark.timeout(900)
def test_the_lab_runs_a_profile_and_leaves_the_script_and_git_status_clean(
    committed_repository: Path, installed_settings: Path, tmp_path: Path,
) -> None:
    """Through the Lab's UI: a script opens on a kernel without a dialog; its smoke copy, opened from the file
    browser, edited, run and saved, runs the smoke profile; saving both leaves the script's bytes and git alone.
    Over 20 s: `python -m lib.lab`, a Jupyter server, Chromium and two kernels are what it tests."""
    pytest.importorskip("jupyterlab", reason="jupyterlab is not installed (`make lab` installs the lab extras)")
    root = committed_repository
    made = subprocess.run([sys.executable, "-m", "lib.lab"], cwd=root, capture_output=True, text=True, timeout=600)
    script, copy = root / RUN_NOTEBOOK, "lab/smoke/E01_regimes.ipynb"
    assert made.returncode == 0 and (root / copy).is_file(), made.stdout + made.stderr
    before = script.read_bytes()
    options = (CONTENTS_MANAGER, f"--LabApp.app_settings_dir={installed_settings.parent}")
    with _running(root, tmp_path / "home", *options) as server:
        driver = _chromium(tmp_path / "chromium")
        try:
            lab = _Lab(driver, server)
            lab.open_url(RUN_NOTEBOOK)  # the first open: no pair yet, the script names no kernel
            assert lab.kernel_started(RUN_NOTEBOOK)["kernel"] == "Python 3 (ipykernel)"

            lab.open_from_file_browser(copy)  # the profile switch: the smoke folder's copy
            lab.kernel_started(copy)
            lab.type_at_end(3, EDIT)  # the injected parameters cell
            lab.run_from(1, 4)  # imports, parameters, injected parameters, config.load
            lab.wait("the smoke run's line", lambda _s: SMOKE_RUN in lab.cell(4).get_attribute("textContent"))
            lab.save()
            _until("the edit saved in the copy", lambda: EDIT in (root / copy).read_text())

            lab.activate_tab(RUN_NOTEBOOK)
            lab.kernel_started(RUN_NOTEBOOK)
            lab.save()  # what autosave does to the script's model, dirty since its kernel started
            _until("the script's pair saved", script.with_suffix(".ipynb").is_file)
        finally:
            driver.quit()
    assert script.read_bytes() == before, "the Lab rewrote the script"
    assert _git(root, "status", "--porcelain") == ""
