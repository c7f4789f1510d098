"""K01's smoke on a real Dask cluster (a scheduler and two workers on 127.0.0.1) counts exactly what a local run does.

The runner runs the notebook for real in a repository copy with ``--set scheduler=tcp://…``; its logged window rows
and k* table must equal those of the local run that the notebook tests make (tests/test_notebooks.py, one worker
with this module: both carry the ``K01_kstar`` group).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO, copy_repository, run_cli, smoke_run

distributed = pytest.importorskip("dask.distributed")

#: One pytest-xdist worker runs this with K01's smoke tests (tests/test_notebooks.py): K01's local run is made once.
pytestmark = pytest.mark.xdist_group("K01_kstar")

DASK = Path(sys.executable).with_name("dask")
START_TIMEOUT_S = 60  # for the scheduler file and both workers
RUN_TIMEOUT_S = 300  # for each notebook run
#: What a count depends on: the logged rows of every search, and the k* table read from them.
WINDOW_KEYS = ["model", "task", "decision", "block", "seed", "path", "size"]


def _private_tables(root: Path) -> None:
    """Give the copy its own ``cache/tables`` (the searches' cache), sharing every other cache with the repository.

    The cluster's run then computes its searches rather than reading them from a local run's table cache.
    """
    (root / "cache").unlink()
    (root / "cache").mkdir()
    for name in ("features", "generations", "tasks", "wheels"):
        (REPO / "cache" / name).mkdir(parents=True, exist_ok=True)
        (root / "cache" / name).symlink_to(REPO / "cache" / name)
    (root / "cache" / "tables").mkdir()


def _stop(process: subprocess.Popen) -> None:
    """End a process this test started and its children (its own session), politely, then for good."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=15)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A ``dask scheduler`` and two single-threaded ``dask worker`` processes on 127.0.0.1, torn down even on failure.

    Yields the scheduler's address and the repository copy the workers import ``lib`` from.
    """
    root = copy_repository(tmp_path / "companion")
    _private_tables(root)
    scheduler_file, logs = tmp_path / "scheduler.json", tmp_path / "logs"
    logs.mkdir()
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1", "HF_HUB_OFFLINE": "1"}
    started: list[subprocess.Popen] = []

    def start(name: str, *args: str) -> None:
        with open(logs / f"{name}.log", "w") as log:
            started.append(subprocess.Popen([str(DASK), *args], cwd=root, env=env, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True))

    try:
        start("scheduler", "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
              "--scheduler-file", str(scheduler_file))
        deadline = time.monotonic() + START_TIMEOUT_S
        while not scheduler_file.is_file() or not scheduler_file.read_text().strip():
            if time.monotonic() > deadline or started[0].poll() is not None:
                pytest.fail("the dask scheduler did not start:\n" + (logs / "scheduler.log").read_text())
            time.sleep(0.2)
        for index in range(2):
            start(f"worker{index}", "worker", "--scheduler-file", str(scheduler_file), "--nworkers", "1",
                  "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1")
        with distributed.Client(scheduler_file=str(scheduler_file), timeout=START_TIMEOUT_S) as client:
            client.wait_for_workers(2, timeout=START_TIMEOUT_S)
        yield json.loads(scheduler_file.read_text())["address"], root
    finally:
        for process in reversed(started):
            _stop(process)


def _logged(root: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """K01's logged window rows (sorted by what identifies a candidate) and k* table in the repository copy ``root``."""
    folder = root / "results" / "smoke" / "K01_kstar"
    window = pd.read_parquet(folder / "window.parquet").sort_values(WINDOW_KEYS, ignore_index=True)
    return window, pd.read_parquet(folder / "kstar.parquet")


def test_k01_smoke_on_a_dask_cluster_counts_what_the_local_run_counts(cluster, repo_copy):
    """Over 20 s: a real run of K01's smoke through the runner on the cluster, ~18 s on an idle core, mostly the
    runner's and the kernel's start-up, imports and figures (the compared searches take a few seconds of it); the
    local run it is compared with is the notebook tests' own."""
    address, root = cluster
    local = smoke_run(repo_copy, "K01_kstar")
    assert local.returncode == 0, local.stdout + local.stderr
    local_window, local_kstar = _logged(repo_copy)
    start = time.monotonic()
    result = run_cli(root, "run", "K01_kstar", "--profile", "smoke", "--set", f"scheduler={address}", "--force",
                     "--quiet", timeout=RUN_TIMEOUT_S)
    print(f"K01 smoke on the Dask cluster: {time.monotonic() - start:.1f} s")
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(p.name for p in (root / "results" / "smoke").iterdir()) == ["K01_kstar"]  # no variant folder
    dask_window, dask_kstar = _logged(root)
    pd.testing.assert_frame_equal(dask_kstar, local_kstar)
    pd.testing.assert_frame_equal(dask_window[[*WINDOW_KEYS, "auroc", "n_fits"]],
                                  local_window[[*WINDOW_KEYS, "auroc", "n_fits"]])
    with distributed.Client(address, timeout=START_TIMEOUT_S) as client:  # the searches ran on the cluster
        prefixes = client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.task_prefixes))
    assert any("_search_rows" in prefix for prefix in prefixes), prefixes
