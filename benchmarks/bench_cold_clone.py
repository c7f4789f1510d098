"""The smoke batch and the test suite, each timed in a fresh clone of HEAD (issue 14 §1, §2 and "Done when").

A fresh clone has no converted models, no tiny models, no feature or generation caches and no results, so
both numbers are cold, as a new user or CI meets them; the environment (this interpreter's packages) is
reused, its build excluded as the issue asks. Uncommitted changes are not measured (the clone is of HEAD).

- smoke batch: ``python -m lib run --profile smoke`` (every notebook), against its budget of 3 min in all
  and 30 s per notebook; the per-notebook times come from the runner's completion stamps;
- test suite: ``python -m pytest -m "not models"`` (``make test`` without the environment build), against
  its budget of 10 min with paper 002 in (6 min was the budget before it).

Each prints measured / budget: a ratio ≤ 1 meets the budget. Minutes of CPU: run it on a quiet machine.
"""

from __future__ import annotations

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


def smoke_batch(clone: Path) -> None:
    seconds, _ = timed([sys.executable, "-m", "lib", "run", "--profile", "smoke", "--quiet"], clone)
    stamps = {p.name.removesuffix(".done.json"): json.loads(p.read_text())["seconds"]
              for p in (clone / "build" / "smoke").glob("*.done.json")}
    print(f"smoke batch, cold: {seconds:.0f} s for {len(stamps)} notebooks; "
          f"ratio to the {SMOKE_BUDGET_S:.0f} s budget {seconds / SMOKE_BUDGET_S:.2f}")
    for name, notebook_s in sorted(stamps.items(), key=lambda item: -item[1]):
        flag = "  over the 30 s budget" if notebook_s > SMOKE_NOTEBOOK_BUDGET_S else ""
        print(f"  {name:<28} {notebook_s:6.1f} s{flag}")


def test_suite(clone: Path) -> None:
    seconds, log = timed([sys.executable, "-m", "pytest", "-q", "-m", "not models", "-p", "no:cacheprovider"], clone)
    slowest = log[log.find("slowest"):].split("\n\n")[0] if "slowest" in log else ""
    print(slowest)
    print(f"test suite (make test without the environment build), cold: {seconds:.0f} s; "
          f"ratio to the {TEST_BUDGET_S:.0f} s budget {seconds / TEST_BUDGET_S:.2f}")


def main() -> None:
    with tempfile.TemporaryDirectory() as smoke_dir:
        smoke_batch(fresh_clone(Path(smoke_dir)))
    with tempfile.TemporaryDirectory() as test_dir:
        test_suite(fresh_clone(Path(test_dir)))


if __name__ == "__main__":
    main()
