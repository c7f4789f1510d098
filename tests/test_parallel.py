"""lib.parallel: results depend on the root seed only, not on the backend."""

import os
import subprocess
import sys

import numpy as np
import pytest

from lib import parallel


def draw(item: int, seed: int) -> float:
    return float(item + np.random.default_rng(seed).standard_normal())


def test_seeds_are_stable_and_distinct():
    seeds = parallel.spawn_seeds(7, 5)
    assert seeds == parallel.spawn_seeds(7, 5) and len(set(seeds)) == 5
    assert parallel.spawn_seeds(7, 3) == seeds[:3]  # position-stable
    with pytest.raises(ValueError, match="seed"):
        parallel.spawn_seeds(-1, 2)


def test_loky_matches_sequential():
    items = list(range(8))
    assert parallel.parallel_map(draw, items, seed=3, n_jobs=2) == parallel.parallel_map(draw, items, seed=3, n_jobs=1)


def blas_threads(item: int, seed: int) -> int:
    from threadpoolctl import threadpool_info

    return max(pool["num_threads"] for pool in threadpool_info())


def test_loky_workers_share_this_process_threads_instead_of_inheriting_them(monkeypatch):
    """Two workers under OMP_NUM_THREADS=2 (what lib sets for one job on two cores) get one thread each."""
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    monkeypatch.setattr(parallel, "threads_per_process", lambda concurrent_jobs=None: 2)
    assert parallel.parallel_map(blas_threads, [0, 1, 2, 3], n_jobs=2) == [1, 1, 1, 1]
    assert parallel.parallel_map(blas_threads, [0, 1], n_jobs=-1) == [1, 1]


def test_dask_cluster_matches_sequential():
    distributed = pytest.importorskip("dask.distributed")
    items = list(range(6))
    expected = parallel.parallel_map(draw, items, seed=4, n_jobs=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        assert parallel.parallel_map(draw, items, seed=4, scheduler=cluster.scheduler_address) == expected


def test_bad_n_jobs():
    with pytest.raises(ValueError, match="n_jobs=0"):
        parallel.parallel_map(draw, [1], n_jobs=0)


def test_threads_per_process_shares_the_cores() -> None:
    cores = len(os.sched_getaffinity(0))
    assert parallel.threads_per_process(1) == cores
    assert parallel.threads_per_process(cores * 4) == 1


def test_threads_per_process_rejects_zero_jobs() -> None:
    with pytest.raises(ValueError, match="concurrent_jobs=0"):
        parallel.threads_per_process(0)


def test_importing_lib_sets_a_passive_wait_policy_in_a_fresh_process() -> None:
    code = "import lib, os, torch; print(os.environ['OMP_WAIT_POLICY'], torch.get_num_threads())"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "OPENBLAS_", "MKL_"))}
    env["PROBE_COMPANION_JOBS"] = str(len(os.sched_getaffinity(0)))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["PASSIVE", "1"]
