"""Shared fixtures: a path sandbox for in-process tests and a repository copy for runner tests."""

from __future__ import annotations

import compileall
import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# Under pytest-xdist this process is one of PYTEST_XDIST_WORKER_COUNT sharing the cores: lib.parallel (set up when
# lib is imported, next line) gives it its share of threads, and so do the notebooks and commands it starts.
os.environ.setdefault("PROBE_COMPANION_JOBS", os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))

from lib import paths  # noqa: E402

REPO = paths.REPO_ROOT


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Redirect every path of lib.paths into ``tmp_path`` (in-process tests only)."""
    for name, sub in [
        ("REPO_ROOT", ""), ("NOTEBOOKS_DIR", "notebooks"), ("PARAMS_DIR", "params"),
        ("RESULTS_DIR", "results"), ("FIGURES_DIR", "figures"), ("BUILD_DIR", "build"),
        ("FEATURES_CACHE_DIR", "cache/features"), ("GENERATIONS_CACHE_DIR", "cache/generations"),
        ("TABLES_CACHE_DIR", "cache/tables"),
    ]:
        monkeypatch.setattr(paths, name, tmp_path / sub if sub else tmp_path)
    return tmp_path


@functools.cache
def compiled_lib() -> None:
    """Byte-compile the repository's ``lib`` once per test process (``__pycache__``, as any import would).

    The commands the tests start run with ``PYTHONDONTWRITEBYTECODE`` (nothing written into the copies), so without
    bytecode in the copy every runner, kernel and command compiled each ``lib`` module it imports, again each time.
    A copy keeps the files' times, and the bytecode, checked against its source's time and size, stays valid there.
    """
    compileall.compile_dir(REPO / "lib", quiet=1)


def copy_repository(destination: Path) -> Path:
    """A working copy of the companion (sources, and lib's bytecode) where the runner can be run for real.

    ``python -m lib`` started inside it imports *its* ``lib`` (the working directory comes first
    on ``sys.path``), so every path it writes stays inside the copy.
    """
    compiled_lib()
    shutil.copytree(REPO / "lib", destination / "lib")  # with its bytecode: the copy's processes need not compile it
    for item in ("notebooks", "params", "data"):
        shutil.copytree(REPO / item, destination / item, ignore=shutil.ignore_patterns("__pycache__", "*.ipynb"))
    shutil.copy2(REPO / "pyproject.toml", destination / "pyproject.toml")
    (REPO / "models").mkdir(exist_ok=True)
    (REPO / "cache").mkdir(exist_ok=True)
    (destination / "models").symlink_to(REPO / "models")  # converted offline models are shared, not rebuilt
    (destination / "cache").symlink_to(REPO / "cache")  # the feature cache is content-keyed and atomic
    return destination


def run_cli(root: Path, *args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    """Run ``python -m lib ARGS`` in ``root`` and capture its output, under the Makefile's ``MPLBACKEND=Agg``."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg"}
    return subprocess.run(
        [sys.executable, "-m", "lib", *args], cwd=root, env=env, capture_output=True, text=True,
        timeout=timeout,
    )


TINY_NOTEBOOK = '''# %% [markdown]
# # A tiny notebook for runner tests

# %% tags=["parameters"]
profile = "smoke"  # profile
recompute = True  # reuse logged results
seed = 0  # seed
pause_s = 0.0  # seconds to wait before the second result
fail = False  # raise in the last cell

# %%
import time
from lib import config, results
params = config.load("ZZ_tiny", globals())
run = results.start(params)
first, _ = run.json("first", lambda: {"seed": params.seed})

# %%
second, _ = run.json("second", lambda: time.sleep(params.pause_s) or {"done": True})

# %%
if params.fail:
    raise ValueError("asked to fail")
'''

TINY_SCHEMA = '''
from dataclasses import dataclass

from lib.parameters import SeededParams, param, register


@register("ZZ_tiny")
@dataclass(frozen=True)
class Tiny(SeededParams):
    pause_s: float = param(0.0, ge=0)
    fail: bool = False
'''


TOY_PAPER = '''"""A toy fourth paper for the runner tests: one record, one schema module, notebooks named ZZ_*."""

from lib.papers import Paper

PAPER = Paper(id="999", title="A toy paper", authors="The tests", prefixes=("ZZ_",), schemas="lib.toy.schemas")
'''


def add_toy_schema(root: Path, schema: str) -> None:
    """Append a notebook's schema to the toy paper of the repository copy ``root`` (built on first use).

    The toy paper is a package ``lib/toy/`` with its plugin record: the core discovers it like the real papers.
    """
    package = root / "lib" / "toy"
    if not package.is_dir():
        package.mkdir()
        (package / "__init__.py").write_text('"""A toy paper package (tests only)."""\n')
        (package / "paper.py").write_text(TOY_PAPER)
        (package / "schemas.py").write_text('"""Parameter schemas of the toy paper\'s notebooks."""\n')
    with open(package / "schemas.py", "a") as handle:
        handle.write(schema)


def tiny_repository(destination: Path, only_tiny: bool = False) -> Path:
    """A repository copy with the toy paper's tiny notebook ``ZZ_tiny`` under the smoke profile (runner tests,
    benchmarks)."""
    root = copy_repository(destination)
    if only_tiny:
        for script in (root / "notebooks").glob("*.py"):
            script.unlink()
        for yaml_file in (root / "params").rglob("*.yaml"):
            yaml_file.unlink()
    (root / "notebooks" / "ZZ_tiny.py").write_text(TINY_NOTEBOOK)
    (root / "params" / "smoke" / "ZZ_tiny.yaml").write_text("pause_s: 0.0\n")
    add_toy_schema(root, TINY_SCHEMA)
    return root


def copy_finished(finished: Path, destination: Path) -> Path:
    """A copy at ``destination`` of the finished repository ``finished`` (:func:`finished_tiny`), for a test to change.

    Far cheaper than running the notebook again: the copy keeps every file's bytes and times, and its ``models`` and
    ``cache`` links, so its stamps, manifests and script records stay current there.
    """
    return Path(shutil.copytree(finished, destination, symlinks=True))


def restore_notebooks(root: Path) -> Path:
    """Put back in the repository copy ``root`` the notebooks and parameter files that ``only_tiny`` removed."""
    for script in (REPO / "notebooks").glob("*.py"):
        shutil.copy2(script, root / "notebooks" / script.name)
    for yaml_file in (REPO / "params").rglob("*.yaml"):
        target = root / yaml_file.relative_to(REPO)
        if not target.exists():
            shutil.copy2(yaml_file, target)
    return root


@pytest.fixture(scope="session")
def finished_tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess]:
    """A :func:`tiny_repository` (``only_tiny``) after one successful smoke run of ZZ_tiny, and that run's output.

    Built once per test process and never changed: a test takes its own :func:`copy_finished`.
    """
    root = tiny_repository(tmp_path_factory.mktemp("finished") / "repo", only_tiny=True)
    ran = run_cli(root, "run", "--profile", "smoke", "--quiet")
    assert ran.returncode == 0, ran.stderr
    return root, ran


def tiny_causal_lm(folder: Path) -> Path:
    """A 2-layer, hidden-32 random Llama with MiniLM's shipped tokenizer and a chat template (plumbing tests only)."""
    from lib.models import converters

    converters.build_tiny_model(folder, "llama")
    return folder


def tiny_base_lm(folder: Path) -> Path:
    """:func:`tiny_causal_lm` without its chat template: a base model (like Gemma-3-270M) for the plain rendering."""
    import json

    tiny_causal_lm(folder)
    (folder / "chat_template.jinja").unlink(missing_ok=True)
    config_file = folder / "tokenizer_config.json"
    config = json.loads(config_file.read_text())
    config.pop("chat_template", None)
    config_file.write_text(json.dumps(config))
    return folder


@pytest.fixture(scope="session")
def repo_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One repository copy shared by the notebook smoke runs and the provenance tests."""
    return copy_repository(tmp_path_factory.mktemp("companion"))


_smoke_runs: dict[tuple[Path, str], subprocess.CompletedProcess] = {}


def smoke_run(root: Path, notebook: str) -> subprocess.CompletedProcess:
    """``lib run NOTEBOOK --profile smoke --force --quiet`` in the repository copy ``root``, once per process.

    Under pytest-xdist (``make test``: ``-n 2 --dist loadgroup``) the tests that read one notebook's smoke run share an
    ``xdist_group`` named after it, so they meet on one worker and the notebook runs once.
    """
    if (root, notebook) not in _smoke_runs:
        _smoke_runs[root, notebook] = run_cli(root, "run", notebook, "--profile", "smoke", "--force", "--quiet")
    return _smoke_runs[root, notebook]


def flip_byte(path: Path, offset: int | None = None) -> None:
    """Invert one byte of ``path`` in place (its middle by default): same size, different content."""
    data = bytearray(path.read_bytes())
    at = len(data) // 2 if offset is None else offset
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))


def judged(*args, **kwargs):
    """:func:`lib.claims.claim` with an exact power: in tests of tables and counting the comparison alone decides."""
    from lib import claim_power, claims

    return claims.claim(*args, power=claim_power.Exact("a fixed value in a test"), **kwargs)


def use_catalogue(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    """Make the YAML ``text`` every notebook's claims catalogue (in-process tests of recording claims)."""
    import textwrap

    from lib import claim_catalogue

    entries = claim_catalogue.parse(textwrap.dedent(text), "test catalogue")
    monkeypatch.setattr(claim_catalogue, "load", lambda notebook: entries)


def claims_table(*found, paper: str = "000", notebook: str = "00_theory_checks"):
    """Claims as the logged table of ``notebook`` under ``paper`` (for tests of the counting)."""
    from lib import claims

    return claims.frame(claims.records(found, paper)).assign(notebook=notebook)


CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
#: Headless, and none of Chromium's background connections (this machine's network refuses them).
CHROMIUM_FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run")


def headless_chromium(*arguments: str, browser_log: bool = False):
    """Debian's Chromium driven by Selenium with ``arguments`` beside :data:`CHROMIUM_FLAGS`, or a skip naming what
    is missing (`.ci/run` installs both)."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[dev]')")
    for binary in (CHROMIUM, CHROMEDRIVER):
        if not binary.is_file():
            pytest.skip(f"{binary} is missing: apt-get install chromium chromium-driver (.ci/run does)")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (*CHROMIUM_FLAGS, *arguments):
        options.add_argument(argument)
    if browser_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=webdriver.ChromeService(executable_path=str(CHROMEDRIVER)), options=options)


#: A claim cell and its toy-paper catalogue for ZZ_tiny (a notebook that records one paper claim).
CLAIM_CELL = '''
# %%
from lib.claims import Evidence
run.record_claims({"toy": Evidence(1.0)})
'''
TOY_CATALOGUE = """- {id: toy, kind: paper, section: Sec. 1, paper_says: "1", measures: "the toy paper's one claim",
   test: {point: 1}, null_hypothesis: "a value of 0", power: {exact: "a constant"}}
"""
