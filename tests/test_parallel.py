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


def shared_row_sum(item: int, arrays) -> tuple[float, float, bool]:
    """Row ``item`` summed in the dense and the sparse shared array, and whether the dense one is read-only."""
    dense, sparse = arrays["dense"], arrays["sparse"]
    return float(dense[item].sum()), float(sparse[item].sum()), not dense.flags.writeable


def shared_fail(item: int, arrays) -> None:
    raise RuntimeError(f"item {item}")


def test_map_shared_gives_every_worker_the_same_arrays_as_inline(tmp_path, monkeypatch):
    import scipy.sparse as sp

    monkeypatch.setattr(parallel, "_shared_root", lambda: str(tmp_path))
    rng = np.random.default_rng(0)
    shared = {"dense": rng.standard_normal((6, 50)), "sparse": sp.random(6, 50, density=0.2, format="csr", rng=1)}
    inline = parallel.map_shared(shared_row_sum, range(6), shared, n_jobs=1)
    workers = parallel.map_shared(shared_row_sum, range(6), shared, n_jobs=2)
    assert [row[:2] for row in workers] == [row[:2] for row in inline]
    assert all(read_only for *_, read_only in workers)  # memory-mapped from one shared file, not pickled
    assert not any(read_only for *_, read_only in inline)  # inline: the arrays themselves
    assert list(tmp_path.iterdir()) == []  # the shared files are removed
    with pytest.raises(RuntimeError, match="item"):
        parallel.map_shared(shared_fail, range(2), shared, n_jobs=2)
    assert list(tmp_path.iterdir()) == []  # also when a task raises
    with pytest.raises(ValueError, match="n_jobs=0"):
        parallel.map_shared(shared_row_sum, range(2), shared, n_jobs=0)


def test_scheduler_addresses_are_checked_in_one_line():
    assert parallel.check_scheduler("") is None and parallel.check_scheduler(None) is None
    for address in ("tcp://127.0.0.1:8786", "node-7.cluster:8786", "tcp://[::1]:8786"):
        assert parallel.check_scheduler(address) == address  # passed on unchanged
    for address in ("http://host:8786", "tcp://host", "host:0", "host:65536", "tcp://a b:1"):
        with pytest.raises(ValueError, match=r"is not a Dask scheduler address; allowed: .*'tcp://host:port'"):
            parallel.check_scheduler(address)
    with pytest.raises(ValueError, match="scheduler='host'"):
        parallel.parallel_map(draw, [1], scheduler="host")


def test_map_shared_on_a_dask_cluster_scatters_the_arrays_and_matches_inline():
    import scipy.sparse as sp

    distributed = pytest.importorskip("dask.distributed")
    rng = np.random.default_rng(0)
    shared = {"dense": rng.standard_normal((6, 50)), "sparse": sp.random(6, 50, density=0.2, format="csr", rng=1)}
    inline = parallel.map_shared(shared_row_sum, range(6), shared, n_jobs=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        assert parallel.map_shared(shared_row_sum, range(6), shared, scheduler=cluster.scheduler_address) == inline
        other = {"dense": 2 * shared["dense"], "sparse": 2 * shared["sparse"]}  # same names, other arrays
        doubled = parallel.map_shared(shared_row_sum, range(6), other, scheduler=cluster.scheduler_address)
        assert [row[:2] for row in doubled] == [row[:2] for row in parallel.map_shared(shared_row_sum, range(6), other)]
