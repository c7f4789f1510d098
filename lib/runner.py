"""Batch execution of the notebooks with papermill (the command line is :mod:`lib.__main__`).

A notebook runs under a profile when ``params/<profile>/<notebook>.yaml`` exists. It is skipped
when its script, its resolved parameters and the ``lib`` sources hash as in the completion stamp
``build/<profile>/<notebook>.done.json`` and every result the stamp lists is still complete.
The stamp is written last and atomically, so an interrupted batch simply reruns what is
missing; inside a notebook, :class:`lib.results.Run` reuses every result that is already
complete, so the rerun resumes rather than restarts.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from lib import config, parallel, parameters, paths, plotting, progress, results

DEFAULT_CELL_TIMEOUT_S = 3600


@dataclass(frozen=True)
class Outcome:
    """What happened to one notebook in a batch."""

    notebook: str
    status: str  # "ran", "skipped" or "failed"
    seconds: float
    message: str = ""


def discover(profile: str) -> list[str]:
    """Notebooks that have a percent script and parameters under ``profile``, sorted."""
    scripts = {p.stem for p in paths.NOTEBOOKS_DIR.glob("*.py")}
    configured = {p.stem for p in paths.PARAMS_DIR.joinpath(paths.check_profile(profile)).glob("*.yaml")}
    return sorted(scripts & configured)


def fingerprint(params: parameters.NotebookParams) -> str:
    """What a completed run must match to be skipped: script, parameters, lib sources."""
    digest = hashlib.sha256()
    digest.update(paths.notebook_script(params.notebook).read_bytes())
    digest.update(config.params_hash(params).encode())
    digest.update(results.lib_sources_hash().encode())
    return digest.hexdigest()


def _stamp(profile: str, notebook: str) -> dict[str, Any] | None:
    try:
        return json.loads(paths.run_stamp(profile, notebook).read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None


def _stamp_is_current(stamp: dict[str, Any] | None, target: str) -> bool:
    """The stamp records ``target`` and every result it lists is still complete."""
    if stamp is None or stamp.get("fingerprint") != target:
        return False
    for relative in stamp.get("results", []):
        try:
            results.read_manifest(paths.from_root(relative))
        except results.IncompleteResultError:
            return False
    return True


def status(profile: str, notebook: str) -> str:
    """``done`` (stamp matches and results complete), ``stale`` (run before, not current) or ``missing``."""
    stamp = _stamp(profile, notebook)
    if stamp is None:
        return "missing"
    try:
        current = fingerprint(config.resolve(notebook, profile))
    except config.ConfigError:
        return "stale"
    return "done" if _stamp_is_current(stamp, current) else "stale"


def _failure_message(notebook: str, error: Exception) -> str:
    from papermill.exceptions import PapermillExecutionError

    if isinstance(error, PapermillExecutionError):
        first_line = next((line for line in error.source.splitlines() if line.strip()), "")
        return (
            f"{notebook}: cell {error.exec_count} (index {error.cell_index}, `{first_line.strip()}`) "
            f"raised {error.ename}: {error.evalue}"
        )
    return f"{notebook}: {type(error).__name__}: {error}"


def execute(params: parameters.NotebookParams, *, cell_timeout_s: int, log_output: bool) -> None:
    """Convert the percent script with jupytext and execute it with papermill into build/."""
    import jupytext
    import papermill

    notebook = jupytext.read(paths.notebook_script(params.notebook))
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    output = paths.executed_notebook(params.profile, params.notebook)
    output.parent.mkdir(parents=True, exist_ok=True)
    with progress.running(params.notebook, progress.cell_labels(notebook)) as kernel_options:
        papermill.execute_notebook(
            notebook,
            str(output),
            parameters=config.as_dict(params),
            kernel_name="python3",
            cwd=str(paths.REPO_ROOT),
            log_output=log_output,
            progress_bar=False,
            execution_timeout=cell_timeout_s,
            **kernel_options,
        )


def run_one(
    params: parameters.NotebookParams, *, force: bool, cell_timeout_s: int, log_output: bool
) -> Outcome:
    """Run one validated notebook unless it is already done; never raises on notebook failure."""
    name, profile = params.notebook, params.profile
    target = fingerprint(params)
    if not force and _stamp_is_current(_stamp(profile, name), target):
        return Outcome(name, "skipped", 0.0, "up to date")
    paths.run_stamp(profile, name).unlink(missing_ok=True)
    start, started_at = time.perf_counter(), time.time()
    try:
        execute(params, cell_timeout_s=cell_timeout_s, log_output=log_output)
    except Exception as error:  # a failing notebook must not stop the batch
        return Outcome(name, "failed", time.perf_counter() - start, _failure_message(name, error))
    seconds = time.perf_counter() - start
    plotting.prune_outputs(profile, name, since=started_at)
    produced = [paths.relative_to_root(p) for p in results.complete_results(profile, name)]
    results.atomic_write_text(
        paths.run_stamp(profile, name),
        results.to_json({
            "fingerprint": target, "params": config.as_dict(params), "results": produced,
            "seconds": round(seconds, 3), "finished": datetime.now(UTC).isoformat(),
        }),
    )
    return Outcome(name, "ran", seconds)


def run_batch(
    notebooks: Sequence[str],
    profile: str,
    overrides: Mapping[str, Any] | None = None,
    *,
    force: bool = False,
    jobs: int = 1,
    cell_timeout_s: int = DEFAULT_CELL_TIMEOUT_S,
    log_output: bool = True,
) -> list[Outcome]:
    """Validate every notebook's parameters first (ConfigError before any compute), then run."""
    from tqdm.auto import tqdm

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    # Kernels inherit the environment: each takes its share of the cores (lib.parallel.configure_threads).
    os.environ[parallel.CONCURRENT_JOBS_VARIABLE] = str(jobs)
    for variable in parallel.THREAD_VARIABLES:
        os.environ[variable] = str(parallel.threads_per_process(jobs))
    os.environ.setdefault("TQDM_MININTERVAL", str(progress.KERNEL_BAR_INTERVAL_S))  # kernels' bars in the log
    available = discover(profile)
    unknown = [n for n in notebooks if n not in available]
    if unknown:
        raise config.ConfigError(
            f"no notebook {', '.join(map(repr, unknown))} under profile {profile!r}; "
            f"available: {', '.join(available) or 'none'}"
        )
    resolved = [config.resolve(n, profile, overrides) for n in (notebooks or available)]
    outcomes: list[Outcome] = []
    with (
        tqdm(total=len(resolved), desc=f"notebooks ({profile})", unit="nb", mininterval=0, disable=None) as bar,
        progress.Reporter(prefix=jobs > 1, enabled=log_output, bar=bar).watching(),
        ThreadPoolExecutor(jobs) as pool,
    ):
        futures = [
            pool.submit(run_one, p, force=force, cell_timeout_s=cell_timeout_s, log_output=log_output)
            for p in resolved
        ]
        for future in futures:
            outcome = future.result()
            outcomes.append(outcome)
            bar.update()
    if paths.FIGURES_DIR.joinpath(profile).is_dir():
        plotting.write_index(profile)  # once more after concurrent notebooks
    return outcomes
