"""One place that maps independent work over processes or a Dask cluster (docs/ARCHITECTURE.md).

Every item gets its own seed, spawned from one root seed with ``numpy.random.SeedSequence``,
so a result depends on (root seed, item position) only — never on the backend, the number of
workers or the scheduling order. :func:`map_shared` maps over items that all read the same large
arrays, written once to shared memory instead of being pickled into every task.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import numpy as np
from threadpoolctl import threadpool_limits

# Environment variables read once, when the OpenMP / BLAS runtimes load (before torch or numpy import).
CONCURRENT_JOBS_VARIABLE = "PROBE_COMPANION_JOBS"
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def threads_per_process(concurrent_jobs: int | None = None) -> int:
    """Intra-op threads for one process: the usable cores shared evenly by the concurrent jobs (≥ 1).

    ``concurrent_jobs`` defaults to ``$PROBE_COMPANION_JOBS`` (set by ``lib run --jobs``), else 1.
    """
    if concurrent_jobs is None:
        concurrent_jobs = int(os.environ.get(CONCURRENT_JOBS_VARIABLE, "1"))
    if concurrent_jobs < 1:
        raise ValueError(f"concurrent_jobs={concurrent_jobs!r} is out of range; allowed: >= 1")
    return max(1, len(os.sched_getaffinity(0)) // concurrent_jobs)


def configure_threads(concurrent_jobs: int | None = None) -> int:
    """Decide this process's thread policy once, before torch or BLAS start.

    OpenMP threads that busy-wait (the libgomp default) spin against another process's threads on a
    small machine: two processes on two cores ran a LoRA fine-tune 14x slower, half the time in the
    kernel. A passive wait policy and as many threads as this process's share of the cores removes the
    spinning. Values the user set in the environment win. Returns the thread count.
    """
    threads = threads_per_process(concurrent_jobs)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    for variable in THREAD_VARIABLES:
        os.environ.setdefault(variable, str(threads))
    if "torch" in sys.modules:  # already loaded: its pool size can still be set at run time
        torch = sys.modules["torch"]
        if torch.get_num_threads() != int(os.environ["OMP_NUM_THREADS"]):
            torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    return threads


@contextmanager
def one_torch_thread() -> Iterator[None]:
    """torch on one intra-op thread inside the block (restored after), or in every call of a function it decorates:
    a training loop whose floating-point reductions must not depend on the machine's cores or on how many jobs
    share them."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


T = TypeVar("T")
R = TypeVar("R")

#: A Dask scheduler address: ``tcp://host:port`` or ``host:port`` (host a name, an IPv4 or a bracketed IPv6).
SCHEDULER_FORM = re.compile(r"(?:tcp://)?(?:[A-Za-z0-9][A-Za-z0-9._-]*|\[[0-9A-Fa-f:.]+\]):(\d{1,5})")


def check_scheduler(address: str | None) -> str | None:
    """``address`` as :func:`parallel_map` takes it: ``None`` for local processes (``None`` or ``""``), else the
    address unchanged; raises ValueError in one line for anything but ``tcp://host:port`` or ``host:port``."""
    if not address:
        return None
    match = SCHEDULER_FORM.fullmatch(address)
    if match is None or not 0 < int(match.group(1)) < 65536:
        raise ValueError(f"scheduler={address!r} is not a Dask scheduler address; allowed: '' (local processes), "
                         "'tcp://host:port' or 'host:port' (port 1-65535)")
    return address


def draw_seed(rng: np.random.Generator) -> int:
    """One seed for a downstream fit drawn from ``rng`` (an integer in [0, 2³¹), as scikit-learn accepts)."""
    return int(rng.integers(2**31))


def spawn_seeds(seed: int, count: int) -> list[int]:
    """``count`` independent 64-bit seeds derived from ``seed`` (position-stable)."""
    if seed < 0:
        raise ValueError(f"seed={seed!r} is out of range; allowed: >= 0")
    children = np.random.SeedSequence(seed).spawn(count)
    return [int(child.generate_state(1, dtype=np.uint64)[0]) for child in children]


def parallel_map(
    func: Callable[[T, int], R],
    items: Sequence[T],
    *,
    seed: int = 0,
    n_jobs: int = 1,
    scheduler: str | None = None,
) -> list[R]:
    """``[func(item, item_seed) for item in items]`` over loky processes or a Dask cluster.

    ``n_jobs``: worker processes for the local loky backend (−1: this process's share of the cores,
    :func:`threads_per_process`, so notebooks run side by side by ``lib run --jobs`` do not each take every
    core; 1 runs inline). Each worker gets that share divided by the workers in BLAS and OpenMP threads (at
    least 1): workers inherit this process's thread count otherwise, and two workers of two threads on two
    cores ran E02 over 3× slower than one thread each.
    ``scheduler``: a Dask scheduler address (``tcp://host:8786``, :func:`check_scheduler`; ``None`` or ``""``:
    local processes); when given, work goes to that cluster through joblib's ``dask`` backend and ``n_jobs`` is
    not used. ``func`` must be picklable (a module-level function) and importable on the workers.
    """
    if n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs={n_jobs!r} is out of range; allowed: -1 or >= 1")
    scheduler = check_scheduler(scheduler)
    seeds = spawn_seeds(seed, len(items))
    share = threads_per_process()
    workers = share if n_jobs == -1 else n_jobs
    if scheduler is None and workers == 1:
        # Inline, like a loky worker: one BLAS thread per work item. The items are many small fits that
        # gain nothing from threads, and on a busy machine threaded BLAS slows them several-fold.
        with threadpool_limits(limits=1):
            return [func(item, item_seed) for item, item_seed in zip(items, seeds, strict=True)]
    import joblib  # here, not at the top: every lib import loads this module (lib/__init__), and joblib costs ~0.15 s

    calls = [joblib.delayed(func)(item, item_seed) for item, item_seed in zip(items, seeds, strict=True)]
    if scheduler is None:
        with joblib.parallel_config(backend="loky", inner_max_num_threads=max(1, share // workers)):
            return list(joblib.Parallel(n_jobs=workers)(calls))
    from dask.distributed import Client  # imported only when a cluster is asked for

    with Client(scheduler) as client, joblib.parallel_config(backend="dask", client=client):
        return list(joblib.Parallel()(calls))


SHARED_PREFIX = "lib-shared-"  #: name prefix of the folders :func:`map_shared` writes (and removes)


def _shared_root() -> str | None:
    """Where :func:`map_shared` writes: ``/dev/shm`` (memory) when writable, else the temporary folder."""
    return "/dev/shm" if os.access("/dev/shm", os.W_OK) else None


def _write_shared(folder: str, name: str, array) -> str:
    import scipy.sparse as sp  # here, like joblib in parallel_map: every lib import loads this module

    if sp.issparse(array):
        path = os.path.join(folder, f"{name}.npz")
        sp.save_npz(path, array, compressed=False)
    else:
        path = os.path.join(folder, f"{name}.npy")
        np.save(path, np.asarray(array))
    return path


def _open_shared(path: str):
    """A dense array memory-mapped read-only, or a scipy sparse matrix loaded as CSR."""
    import scipy.sparse as sp

    return sp.load_npz(path).tocsr() if path.endswith(".npz") else np.load(path, mmap_mode="r")


def _call_shared(task: tuple[Callable, Any, dict[str, str]], _item_seed: int):
    func, item, paths = task
    return func(item, {name: _open_shared(path) for name, path in paths.items()})


def _call_scattered(item: Any, task: Callable, arrays: Mapping[str, Any]):
    """One task of :func:`map_shared` on a cluster: ``arrays`` arrive resolved from their scattered futures."""
    with threadpool_limits(limits=1):
        return task(item, arrays)


def _map_scattered(func: Callable, items: Sequence[Any], shared: Mapping[str, Any], scheduler: str) -> list:
    """:func:`map_shared` on a Dask cluster: every array sent once to every worker, the items mapped over them."""
    from dask.distributed import Client  # imported only when a cluster is asked for

    names = list(shared)
    with Client(scheduler) as client:  # unique keys (hash=False): a name never meets another map's array
        arrays = dict(zip(names, client.scatter([shared[n] for n in names], broadcast=True, hash=False), strict=True))
        futures = client.map(_call_scattered, list(items), task=func, arrays=arrays, pure=False)
        return client.gather(futures)


def map_shared(
    func: Callable[[T, Mapping[str, Any]], R],
    items: Sequence[T],
    shared: Mapping[str, Any],
    *,
    n_jobs: int = 1,
    scheduler: str | None = None,
) -> list[R]:
    """``[func(item, shared) for item in items]`` over loky processes, ``shared`` written once to shared memory.

    ``shared``: name → a large array every item reads (numpy, or scipy sparse). With one worker (``n_jobs=1``,
    or ``-1`` where this process's share of the cores is one) ``func`` gets the arrays as they are, inline.
    Otherwise each array is written once to a folder under ``/dev/shm`` (the temporary folder where that is not
    writable) and every task opens it there: dense arrays memory-mapped read-only, sparse ones loaded as CSR.
    The folder is removed when the map returns or raises. ``func`` must be picklable (a module-level
    function) and must not write to the arrays; as with :func:`parallel_map` workers get one BLAS thread each
    (inline, too), so a pure ``func`` gives the same result for every ``n_jobs``. Items carry their own seeds.
    ``scheduler``: a Dask scheduler address (:func:`parallel_map`). Shared memory does not cross machines, so
    each array is then sent once to every worker (``client.scatter(..., broadcast=True)``) and every task reads
    that worker's copy; ``n_jobs`` is not used.
    """
    if n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs={n_jobs!r} is out of range; allowed: -1 or >= 1")
    if (scheduler := check_scheduler(scheduler)) is not None:
        return _map_scattered(func, items, shared, scheduler)
    workers = threads_per_process() if n_jobs == -1 else n_jobs
    if workers == 1:
        with threadpool_limits(limits=1):
            return [func(item, shared) for item in items]
    folder = tempfile.mkdtemp(prefix=SHARED_PREFIX, dir=_shared_root())
    try:
        paths = {name: _write_shared(folder, name, array) for name, array in shared.items()}
        return parallel_map(_call_shared, [(func, item, paths) for item in items], n_jobs=workers)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
