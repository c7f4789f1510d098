"""lib.runner: real papermill runs in a copy of the repository.

Covers skipping, ``--set``, failures that name the notebook and cell while the batch goes on,
``list``, and resumption after a batch is killed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import TINY_NOTEBOOK, TINY_SCHEMA, run_cli, tiny_repository


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository copy holding only the tiny notebook, under the smoke profile."""
    return tiny_repository(tmp_path, only_tiny=True)


def _stamp(root: Path) -> Path:
    return root / "build" / "smoke" / "ZZ_tiny.done.json"


def test_run_skip_override_and_list(repo):
    first = run_cli(repo, "run", "--profile", "smoke", "--quiet")
    assert first.returncode == 0, first.stderr
    assert "ran  ZZ_tiny" in first.stdout and _stamp(repo).is_file()
    assert (repo / "build" / "smoke" / "ZZ_tiny.ipynb").is_file()
    assert "done" in run_cli(repo, "list").stdout
    assert "skipped  ZZ_tiny" in run_cli(repo, "run", "--profile", "smoke", "--quiet").stdout
    assert "ran  ZZ_tiny" in run_cli(repo, "run", "--profile", "smoke", "--quiet", "--force").stdout
    changed = run_cli(repo, "run", "--profile", "smoke", "--quiet", "--set", "seed=5")
    assert "ran  ZZ_tiny" in changed.stdout
    assert json.loads((repo / "results/smoke/ZZ_tiny/first.json").read_text()) == {"seed": 5}
    assert "stale" in run_cli(repo, "list").stdout  # the YAML says seed 0, the last run used 5


def test_a_successful_run_removes_outputs_the_notebook_no_longer_writes(repo):
    stale = repo / "figures" / "smoke" / "ZZ_tiny" / "renamed_table.md"
    stale.parent.mkdir(parents=True)
    stale.write_text("| an old table |")
    os.utime(stale, (time.time() - 60, time.time() - 60))
    failed = run_cli(repo, "run", "--profile", "smoke", "--quiet", "--set", "fail=true")
    assert failed.returncode == 1 and stale.is_file()  # a failed run prunes nothing
    assert run_cli(repo, "run", "--profile", "smoke", "--quiet").returncode == 0
    assert not stale.exists()


def test_bad_override_fails_before_execution(repo):
    result = run_cli(repo, "run", "--profile", "smoke", "--set", "pause=1")
    assert result.returncode == 2
    assert "unknown parameter 'pause'; did you mean 'pause_s'" in result.stderr
    result = run_cli(repo, "run", "--profile", "smoke", "--set", "pause_s=-1")
    assert result.returncode == 2 and "'pause_s' = -1 is out of range" in result.stderr
    assert not (repo / "build").exists() and not (repo / "results").exists()
    assert run_cli(repo, "run", "nope", "--profile", "smoke").returncode == 2


def test_failing_notebook_is_named_and_the_batch_goes_on(repo):
    (repo / "notebooks" / "ZZ_tiny2.py").write_text(TINY_NOTEBOOK.replace("ZZ_tiny", "ZZ_tiny2"))
    (repo / "params" / "smoke" / "ZZ_tiny2.yaml").write_text("fail: true\n")
    with open(repo / "lib" / "schemas.py", "a") as handle:
        handle.write(TINY_SCHEMA.replace("ZZ_tiny", "ZZ_tiny2").replace("Tiny(", "Tiny2("))
    result = run_cli(repo, "run", "ZZ_tiny2", "ZZ_tiny", "--profile", "smoke", "--quiet", "--jobs", "2")
    assert result.returncode == 1
    assert "ZZ_tiny2: cell" in result.stderr and "ValueError: asked to fail" in result.stderr
    assert "`if params.fail:`" in result.stderr
    assert _stamp(repo).is_file() and not (repo / "build/smoke/ZZ_tiny2.done.json").exists()


def test_figures_command_never_recomputes(repo):
    missing = run_cli(repo, "figures", "--profile", "smoke", "--quiet")
    assert missing.returncode == 1 and "recompute is false" in missing.stderr
    assert run_cli(repo, "run", "--profile", "smoke", "--quiet").returncode == 0
    manifest = repo / "results/smoke/ZZ_tiny/first.json.manifest.json"
    before = manifest.read_text()
    redraw = run_cli(repo, "figures", "--profile", "smoke", "--quiet")
    assert redraw.returncode == 0, redraw.stderr
    assert manifest.read_text() == before


def test_killed_batch_resumes_without_redoing_finished_work(repo):
    (repo / "params" / "smoke" / "ZZ_tiny.yaml").write_text("pause_s: 6.0\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "lib", "run", "--profile", "smoke", "--quiet"],
        cwd=repo, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    first_manifest = repo / "results/smoke/ZZ_tiny/first.json.manifest.json"
    deadline = time.monotonic() + 120
    while not first_manifest.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert first_manifest.exists(), "the notebook never logged its first result"
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert not _stamp(repo).exists()
    assert "missing" in run_cli(repo, "list").stdout
    before = first_manifest.read_text()
    resumed = run_cli(repo, "run", "--profile", "smoke", "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert "ran  ZZ_tiny" in resumed.stdout and _stamp(repo).is_file()
    assert first_manifest.read_text() == before  # reused, not recomputed
    stamp = json.loads(_stamp(repo).read_text())
    assert sorted(stamp["results"]) == ["results/smoke/ZZ_tiny/first.json", "results/smoke/ZZ_tiny/second.json"]
