"""The smoke batch and the test suite, each timed in a fresh clone of HEAD.

A fresh clone has no converted models, no tiny models, no feature or generation caches and no results, so
both numbers are cold, as a new user or CI meets them; the environment (this interpreter's packages) is
reused, its build excluded as the issue asks. Uncommitted changes are not measured (the clone is of HEAD).

- smoke batch: ``python -m lib run --profile smoke --jobs N`` (every notebook; N from ``--smoke-jobs``, the
  number of cores by default: one notebook's work is mostly one thread), against its budget of 3 min in all
  and 30 s per notebook; the per-notebook times come from the runner's completion stamps;
- test suite: ``make test``'s command without the environment build, ``python -m pytest -m "not models" -n 2
  --dist loadgroup``, against its budget of 10 min with paper 002 in (6 min was the budget before it);
- with ``--serial``, the same suite once more in another fresh clone without pytest-xdist, and the speed-up
  of the two workers over it.

Each prints measured / budget: a ratio ≤ 1 meets the budget. Minutes of CPU: run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SMOKE_BUDGET_S, SMOKE_NOTEBOOK_BUDGET_S, TEST_BUDGET_S = 180.0, 30.0, 600.0


def fresh_clone(parent: Path) -> Path:
    clone = parent / "clone"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
    return clone


def timed(command: list[str], cwd: Path) -> tuple[float, str]:
    """Wall seconds and stdout of ``command`` run in ``cwd``.

    ``python -m`` puts ``cwd`` first on ``sys.path``, so the clone's ``lib`` shadows the installed one; no
    PYTHONPATH, which would also shadow the repository copies the tests run notebooks in.
    """
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "MPLBACKEND": "Agg"}
    env.pop("PYTHONPATH", None)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed in {seconds:.0f} s:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return seconds, done.stdout


def smoke_batch(clone: Path, jobs: int) -> None:
    seconds, _ = timed([sys.executable, "-m", "lib", "run", "--profile", "smoke", "--quiet", "--jobs", str(jobs)],
                       clone)
    stamps = {p.name.removesuffix(".done.json"): json.loads(p.read_text())["seconds"]
              for p in (clone / "build" / "smoke").glob("*.done.json")}
    print(f"smoke batch, cold, --jobs {jobs}: {seconds:.0f} s for {len(stamps)} notebooks; "
          f"ratio to the {SMOKE_BUDGET_S:.0f} s budget {seconds / SMOKE_BUDGET_S:.2f}")
    for name, notebook_s in sorted(stamps.items(), key=lambda item: -item[1]):
        flag = "  over the 30 s budget" if notebook_s > SMOKE_NOTEBOOK_BUDGET_S else ""
        print(f"  {name:<28} {notebook_s:6.1f} s{flag}")


def test_suite(clone: Path, workers: int = 0) -> float:
    """Wall seconds of the suite in ``clone``, serial or over ``workers`` pytest-xdist processes."""
    spread = ["-n", str(workers), "--dist", "loadgroup"] if workers else []
    seconds, log = timed([sys.executable, "-m", "pytest", "-q", "-m", "not models", "-p", "no:cacheprovider",
                          *spread], clone)
    slowest = log[log.find("slowest"):].split("\n\n")[0] if "slowest" in log else ""
    print(slowest)
    how = f"pytest -n {workers} --dist loadgroup" if workers else "serial"
    print(f"test suite (make test without the environment build), cold, {how}: {seconds:.0f} s; "
          f"ratio to the {TEST_BUDGET_S:.0f} s budget {seconds / TEST_BUDGET_S:.2f}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serial", action="store_true", help="also time the suite without pytest-xdist")
    parser.add_argument("--smoke-jobs", type=int, default=len(os.sched_getaffinity(0)),
                        help="notebooks at once in the smoke batch (default: the cores)")
    args = parser.parse_args()
    if importlib.util.find_spec("xdist") is None:
        sys.exit("make test runs under pytest-xdist, which this environment lacks: pip install -e '.[dev]'")
    with tempfile.TemporaryDirectory() as smoke_dir:
        smoke_batch(fresh_clone(Path(smoke_dir)), args.smoke_jobs)
    with tempfile.TemporaryDirectory() as test_dir:
        spread = test_suite(fresh_clone(Path(test_dir)), workers=2)
    if args.serial:
        with tempfile.TemporaryDirectory() as test_dir:
            serial = test_suite(fresh_clone(Path(test_dir)))
        print(f"pytest -n 2 --dist loadgroup against serial: {serial / spread:.2f}x faster")


if __name__ == "__main__":
    main()
