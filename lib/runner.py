"""Batch execution of the notebooks with papermill (the command line is :mod:`lib.__main__`).

A notebook runs under a profile when ``params/<profile>/<notebook>.yaml`` exists. It is skipped
when its script, its resolved parameters and the ``lib`` sources it runs (:mod:`lib.sources`) hash
as in the completion stamp ``build/<profile>/<notebook>.done.json`` and every result the stamp
lists is still complete. The stamp is written last and atomically, so an interrupted batch simply
reruns what is missing; inside a notebook, :class:`lib.results.Run` reuses every result that is
already complete and current, so the rerun resumes rather than restarts. A result is current for
``Run`` when its parameters and ``lib`` sources match, which says nothing of the notebook's own cells: so
the runner records which script wrote a folder's results (``build/<profile>/<notebook>.script.json``) and
discards them before a run of a changed script (the simulations shared through ``cache/tables`` stay).
``force`` reruns and recomputes every result; with ``reuse`` it reruns but keeps the current ones.

One run of a notebook at a time: :func:`run_one` holds ``build/<profile>/<notebook>.lock`` (an OS lock, ``flock``)
while it runs, so a second run of the same notebook, from another terminal or batch, waits for the first, saying
once which process it waits for, then skips the notebook if the first left it done. The OS releases the lock when
its process ends, so a crashed or killed run never leaves one behind. (A notebook opened in Jupyter takes no lock.)
A notebook with no logged result is skipped, in one line, when ``recompute`` is off (``figures``: nothing to
draw from).

With ``jobs`` above one, a notebook starts only once the notebooks it reads have ended, so none holds a lane while it
waits, and of those ready the one expected to take longest starts first (:func:`next_ready`: its last recorded lane
time, else the published run's), so the long notebooks overlap and short ones fill the lanes at the end. A notebook's
lane time is what it would take in one piece (:func:`lane_seconds`): the attempt that finished plus every earlier,
interrupted attempt up to the last result the finishing one kept, so a run spread over several sittings is timed as
one. As each notebook ends, one line (:func:`batch_line`) gives the lane time left and the earliest end.

Parameters that differ from the profile's YAML (``--set``) make a variant: its results, figures,
executed notebook and stamp are named ``<notebook>@<overrides>`` and never touch the canonical ones.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import platform
import sys
import tempfile
import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from lib import (
    config,
    notebook_names,
    parallel,
    parameters,
    paths,
    plotting,
    progress,
    published,
    results,
    sources,
    strict_json,
)
from lib.models import layer_resolver, precision, registry

#: A cell's time limit, a guard against a hung kernel, not a budget. Two hours: K04's training cell takes about
#: 50 min alone on two cores under `default` and passed an hour beside another job (it timed out at 3,600 s).
DEFAULT_CELL_TIMEOUT_S = 7200
#: Profiles whose batch runs one notebook per core by default, each kernel on one thread. `smoke`'s notebooks are
#: mostly one thread of imports, kernel start-up and Python on tiny models (the batch: 149 s at two jobs, 264 s at
#: one, 2 cores). `default`'s models are small (widths 64-640, a few hundred rows a step): their products gain
#: little from a second thread, so two notebooks side by side finish sooner than one after the other on two
#: threads (on 2 cores K04 took 36.5 min in a lane against 57.5 alone, K08 28.6 against 40-44; docs/TIMINGS.md).
#: `paper` and `extended` run the papers' models, one notebook at a time on every core.
LANE_PROFILES: tuple[str, ...] = ("smoke", "default")
_log = logging.getLogger(__name__)


def default_jobs(profile: str) -> int:
    """Notebooks run at once when ``--jobs`` is not given: one per usable core for :data:`LANE_PROFILES`, else 1."""
    return len(os.sched_getaffinity(0)) if paths.check_profile(profile) in LANE_PROFILES else 1


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
    """What a completed run must match to be skipped: script, parameters, the lib sources the script runs."""
    script = paths.notebook_script(params.notebook)
    digest = hashlib.sha256()
    digest.update(script.read_bytes())
    digest.update(config.params_hash(params).encode())
    digest.update(sources.digest(sources.of_file(script)).encode())
    return digest.hexdigest()


def _script_record(profile: str, notebook: str, variant: str = "") -> Path:
    """Where the runner records the SHA-256 of the notebook script that wrote a run's logged results."""
    return paths.build_dir(profile) / f"{paths.run_name(notebook, variant)}.script.json"


def _script_sha256(notebook: str) -> str:
    return hashlib.sha256(paths.notebook_script(notebook).read_bytes()).hexdigest()


def _written_by_another_script(params: parameters.NotebookParams) -> bool:
    """The run's folder holds results, and the script that wrote them is not today's (or is not recorded)."""
    name, profile, variant = params.notebook, params.profile, config.variant(params)
    if not any(paths.results_dir(profile, name, variant).glob("*.manifest.json")):
        return False
    try:
        recorded = json.loads(_script_record(profile, name, variant).read_text()).get("script_sha256")
    except (OSError, ValueError, AttributeError):
        recorded = None
    return recorded != _script_sha256(name)


def _stamp(profile: str, notebook: str, variant: str = "") -> dict[str, Any] | None:
    try:
        return strict_json.loads(paths.run_stamp(profile, notebook, variant).read_text())
    except (OSError, ValueError):  # absent, unreadable, or not JSON: not a completed run
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


def _foreign_results(params: parameters.NotebookParams) -> list[str]:
    """Results of the canonical folder whose manifest carries another parameter hash (or cannot be read)."""
    expected, foreign = config.params_hash(params), []
    for manifest in sorted(paths.results_dir(params.profile, params.notebook).glob("*.manifest.json")):
        try:
            if json.loads(manifest.read_text()).get("params_hash") != expected:
                foreign.append(paths.relative_to_root(manifest))
        except (OSError, ValueError):
            foreign.append(paths.relative_to_root(manifest))
    return foreign


def status(profile: str, notebook: str, variant: str = "") -> str:
    """``done`` (stamp matches and results complete), ``corrupt`` (not done, and a logged result no longer matches
    its manifest: :func:`lib.results.corrupt_results`), ``stale`` (run before, not current) or ``missing``.

    A canonical folder holding a result computed with other parameters is stale whatever its stamp says;
    a variant is judged by the parameters its stamp records.
    """
    found = _status(profile, notebook, variant)
    return "corrupt" if found != "done" and results.corrupt_results(profile, notebook, variant) else found


def _status(profile: str, notebook: str, variant: str) -> str:
    """:func:`status` without the corruption check."""
    stamp = _stamp(profile, notebook, variant)
    if stamp is None:
        return "missing"
    try:
        params = config.validate(notebook, stamp["params"]) if variant else config.resolve(notebook, profile)
        current = config.variant(params) == variant and _is_done(params, stamp)
    except (config.ConfigError, KeyError, TypeError):  # the YAML or schema changed since: not current
        return "stale"
    return "done" if current else "stale"


def _is_done(params: parameters.NotebookParams, stamp: dict[str, Any] | None) -> bool:
    """The stamp is current, no notebook it reads (``params.reads``) reran or went stale since, and, for the
    canonical run, no result in its folder came from other parameters."""
    if not _stamp_is_current(stamp, fingerprint(params)) or _stale_producers(params, stamp):
        return False
    return bool(config.variant(params)) or not _foreign_results(params)


def _stale_producers(params: parameters.NotebookParams, stamp: dict[str, Any] | None) -> list[str]:
    """The notebooks ``params`` reads that went stale or corrupt, or finished after the run stamped ``stamp``."""
    finished = (stamp or {}).get("finished", "")
    found = []
    for producer in params.reads:
        made = _stamp(params.profile, producer)
        if status(params.profile, producer) in ("stale", "corrupt") or (made and made.get("finished", "") > finished):
            found.append(producer)
    return found


def run_order(resolved: Sequence[parameters.NotebookParams]) -> list[parameters.NotebookParams]:
    """``resolved`` with each notebook after the ones it reads (``params.reads``) among them, else as given."""
    by_name = {p.notebook: p for p in resolved}
    ordered: list[parameters.NotebookParams] = []

    def place(params: parameters.NotebookParams, chain: tuple[str, ...]) -> None:
        if params in ordered:
            return
        if params.notebook in chain:
            raise config.ConfigError(f"notebooks read each other's results in a cycle: {' → '.join(chain)}")
        for producer in params.reads:
            if producer in by_name:
                place(by_name[producer], (*chain, params.notebook))
        ordered.append(params)

    for params in resolved:
        place(params, ())
    return ordered


def earlier_attempts(manifests: Iterable[Mapping[str, Any]]) -> list[float]:
    """The seconds each earlier attempt of a notebook ran up to the last of its results that the finishing attempt
    kept, oldest first, from the manifests of the results a completion stamp lists.

    A result's manifest records when its notebook's kernel started and the seconds from then to the result
    (:class:`lib.results.Run`), so the results group by attempt and the latest group is the attempt that finished.
    An interrupted attempt's time after its last kept result is left out: the finishing attempt redid that work (a
    cache the lost part filled, such as extracted features, makes this a slight undercount)."""
    reached: dict[datetime, float] = {}
    for manifest in manifests:
        started, seconds = manifest.get("started"), manifest.get("wall_time_s")
        if isinstance(started, str) and isinstance(seconds, int | float):
            moment = datetime.fromisoformat(started)
            reached[moment] = max(reached.get(moment, 0.0), float(seconds))
    return [reached[moment] for moment in sorted(reached)[:-1]]


def lane_seconds(stamp: Mapping[str, Any]) -> float | None:
    """A completed notebook's time in its lane as if it had run in one piece: the finishing attempt's ``seconds``
    plus :func:`earlier_attempts` over the results its stamp lists; None when the stamp records no time."""
    seconds = stamp.get("seconds")
    if not isinstance(seconds, int | float):
        return None
    try:
        manifests = [results.read_manifest(paths.from_root(r)) for r in stamp.get("results", [])]
    except (OSError, ValueError, results.IncompleteResultError):  # a result gone since: its attempt is unknown
        manifests = []
    return float(seconds) + sum(earlier_attempts(manifests))


def expected_seconds(params: parameters.NotebookParams) -> float | None:
    """How long ``params``'s run is expected to take: the lane time its last completion stamp records
    (:func:`lane_seconds`), else the ``published/`` run's lane time for it when that run has the same profile (the
    canonical run only), else None.

    A time counts only when it was measured with these parameters (the same ``params_hash``): a notebook whose
    scale changed since (more seeds, more replicates) is unknown, and the scheduler takes unknown as longest,
    rather than trusting a time its old scale set."""
    variant = config.variant(params)
    wanted = config.params_hash(params)
    stamp = _stamp(params.profile, params.notebook, variant)
    if stamp is not None and stamp.get("params_hash") == wanted and (own := lane_seconds(stamp)) is not None:
        return own
    if variant:
        return None
    folder = published.default_folder()
    found = published.record(folder)
    if found is None or found.get("profile") != params.profile:
        return None
    try:
        entry = published.manifest(folder, params.notebook)
    except (OSError, ValueError):
        return None
    return published_lane_seconds(entry) if entry.get("params_hash") == wanted else None


def logged_lane_seconds(profile: str, notebook: str) -> float | None:
    """The lane time of the notebook's last completed run under ``profile`` (:func:`lane_seconds` of its completion
    stamp, counting the attempts whose results it reused); None without a readable stamp."""
    stamp = _stamp(profile, notebook)
    return lane_seconds(stamp) if stamp is not None else None


def published_lane_seconds(entry: Mapping[str, Any]) -> float | None:
    """A published notebook manifest's lane time (:func:`lane_seconds`, recorded by :mod:`lib.publish`); one
    published before lane times were recorded ran in one piece: its wall time."""
    seconds = entry.get("lane_time_s", entry.get("wall_time_s"))
    return float(seconds) if isinstance(seconds, int | float) else None


def critical_paths(
    pending: Sequence[parameters.NotebookParams], expected: Mapping[str, float | None]
) -> dict[str, float]:
    """Per notebook of ``pending``: its ``expected`` seconds plus the longest expected chain of the pending notebooks
    that read it, directly or through others (unknown counts as infinitely long). ``pending`` holds no cycle
    (:func:`run_order` refuses one)."""
    readers = {p.notebook: [q for q in pending if p.notebook in q.reads] for p in pending}
    lengths: dict[str, float] = {}

    def length(params: parameters.NotebookParams) -> float:
        if params.notebook not in lengths:
            own = expected.get(params.notebook)
            lengths[params.notebook] = (float("inf") if own is None else own) + max(
                (length(reader) for reader in readers[params.notebook]), default=0.0)
        return lengths[params.notebook]

    return {p.notebook: length(p) for p in pending}


def next_ready(
    pending: Sequence[parameters.NotebookParams], batch: set[str], ended: Collection[str],
    expected: Mapping[str, float | None],
) -> parameters.NotebookParams | None:
    """Of ``pending``, the notebook to start next: one whose producers in ``batch`` (the notebooks of this run) have
    all ``ended`` (a producer outside the batch is not waited for), the longest :func:`critical_paths` first (its
    own expected time and that of the longest chain of notebooks waiting for it; unknown counts as longest: a
    notebook never timed may be long), ties in ``pending``'s order; None when none is ready.

    Longest chain first is the classic priority of list scheduling on parallel machines (Hu's levels): a short
    notebook that a long one reads starts early, so the long one is not left to run alone at the end. Where no
    notebook reads another it is Graham's longest-first (LPT): the long notebooks overlap and the short ones fill
    the lanes at the end."""
    ready = [p for p in pending if all(r not in batch or r in ended for r in p.reads)]
    if not ready:
        return None
    chains = critical_paths(pending, expected)
    return max(ready, key=lambda p: chains[p.notebook])


def variants(profile: str) -> list[tuple[str, str]]:
    """``(notebook, variant)`` of every variant with results or a stamp under ``profile``, sorted."""
    names = {p.name for p in paths.RESULTS_DIR.joinpath(paths.check_profile(profile)).glob("*@*") if p.is_dir()}
    names |= {p.name.removesuffix(".done.json") for p in paths.build_dir(profile).glob("*@*.done.json")}
    return sorted(paths.split_run_name(name) for name in names)


#: The folder under which the paper profile's YAMLs name what you supply yourself (fine-tuned checkpoints, benchmark
#: CSVs). The repository ships no such folder, so a value under it that does not exist is a placeholder to replace.
PLACEHOLDER_FOLDER = "checkpoints"


def _values(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else [value]


def is_placeholder(value: Any) -> bool:
    """``value`` is a path under :data:`PLACEHOLDER_FOLDER` that exists neither here nor at the repository root."""
    if not isinstance(value, str) or not value or Path(value).parts[0] != PLACEHOLDER_FOLDER:
        return False
    return not Path(value).exists() and not (paths.REPO_ROOT / value).exists()


def _placeholder_fields(params: parameters.NotebookParams) -> list[str]:
    """The model and CSV parameters holding a placeholder, in schema order."""
    values = config.as_dict(params)
    names = [f.name for f in fields(params) if f.name in parameters.model_fields(params) or f.name.endswith("_csv")]
    return [name for name in names if any(is_placeholder(v) for v in _values(values.get(name)))]


def _wanted(params: parameters.NotebookParams, name: str) -> str:
    """What a placeholder of parameter ``name`` should be replaced with."""
    if name in parameters.model_fields(params):
        return "a local folder with config.json and weights, or a hub id"
    doc = next(f.metadata.get("doc", "") for f in fields(params) if f.name == name)
    return f"the path of your CSV file ({doc.removeprefix('paper profile: ')})" if doc else "the path of your CSV file"


def check_placeholders(params: parameters.NotebookParams) -> None:
    """No model or CSV parameter still holds a profile's placeholder (a path under :data:`PLACEHOLDER_FOLDER`).

    Raises :class:`lib.config.ConfigError` in one line: the parameter, the placeholder, what to put there, where.
    """
    found = _placeholder_fields(params)
    if not found:
        return
    name, values = found[0], _values(config.as_dict(params)[found[0]])
    first = next(v for v in values if is_placeholder(v))
    others = sum(is_placeholder(v) for v in values) - 1
    where = paths.relative_to_root(paths.params_file(params.profile, params.notebook))
    example = f"{name}=[...]" if isinstance(config.as_dict(params)[name], list | tuple) else f"{name}=..."
    raise config.ConfigError(
        f"{params.notebook}: parameter {name!r} = {first!r}{f' (and {others} more)' if others else ''} is a "
        f"placeholder (no such path); put there {_wanted(params, name)}, in {where} or with --set {example}"
        + (f"; placeholders too: {', '.join(map(repr, found[1:]))}" if found[1:] else "")
    )


def check_models(params: parameters.NotebookParams) -> None:
    """No placeholder is left (:func:`check_placeholders`), every model the parameters name exists and has their
    ``layer``, and the notebook's own checks against its models hold (``params.check_against_models``, a k*
    notebook's ``layers`` against each model's blocks), all read from ``config.json`` only.

    Raises :class:`lib.config.ConfigError` naming the parameter before any compute (an unknown hub id
    offline fails at once with :class:`lib.models.registry.ModelUnavailableError`'s message).
    """
    check_placeholders(params)
    values = config.as_dict(params)
    for field, layered in parameters.model_fields(params).items():
        names = values.get(field) or []
        for name in names if isinstance(names, list) else [names]:
            layer = values.get("layer") if layered else None
            try:
                layer_resolver.check_model(name, layer)
            except (ValueError, registry.ModelUnavailableError) as error:
                raise config.ConfigError(f"{params.notebook}: parameter {field!r} = {name!r}: {error}") from None
    try:
        params.check_against_models()
    except (ValueError, registry.ModelUnavailableError) as error:
        raise config.ConfigError(f"{params.notebook}: {error}") from None


def _one_line(text: str) -> str:
    """The first non-empty line of ``text``, marked when more followed (a batch reports each failure in one line)."""
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    return (lines[0] + (" (…)" if len(lines) > 1 else "")) if lines else ""


def _failure_message(notebook: str, error: Exception) -> str:
    from papermill.exceptions import PapermillExecutionError

    if isinstance(error, PapermillExecutionError):
        first_line = next((line for line in error.source.splitlines() if line.strip()), "")
        return (
            f"{notebook}: cell {error.exec_count} (index {error.cell_index}, `{first_line.strip()}`) "
            f"raised {error.ename}: {_one_line(error.evalue)}"
        )
    return f"{notebook}: {type(error).__name__}: {_one_line(str(error))}"


def output_folders(params: parameters.NotebookParams) -> list[Path]:
    """The folders a run writes: its results (unless ``recompute`` is off: then it only reads them), its figures,
    and build/ (the executed notebook and the stamp)."""
    variant = config.variant(params)
    written = [paths.figures_dir(params.profile, params.notebook, variant), paths.build_dir(params.profile)]
    results_folder = paths.results_dir(params.profile, params.notebook, variant)
    return ([results_folder] if params.recompute else []) + written


def unwritable(folder: Path) -> str | None:
    """Why ``folder`` cannot be created and written into, or None; probed with a temporary folder removed at once."""
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return f"{paths.display(existing)} is a file, not a folder"
    try:
        os.rmdir(tempfile.mkdtemp(dir=existing, prefix=".write-check-"))
    except OSError as error:
        where = "" if existing == folder else f"{paths.display(existing)}/: "
        return f"{where}[Errno {error.errno}] {error.strerror}"
    return None


def _unwritable_outcome(params: parameters.NotebookParams, label: str) -> Outcome | None:
    """A failed outcome naming the first output folder that cannot be written, before anything is touched."""
    for folder in output_folders(params):
        problem = unwritable(folder)
        if problem:
            return Outcome(label, "failed", 0.0, f"{label}: cannot write {paths.display(folder)}/: {problem}; "
                                                 "nothing was run or removed: make it a writable folder (or free "
                                                 "space) and rerun")
    return None


def _write_failure(label: str, error: OSError, stage: str) -> str:
    """One line for a write or removal that failed at ``stage``, naming the file."""
    where = f": {paths.display(error.filename)}" if error.filename else ""
    return f"{label}: {stage} ([Errno {error.errno}] {error.strerror}{where}); make the folder writable (or free " \
        "space) and rerun"


def execute(params: parameters.NotebookParams, *, cell_timeout_s: int, log_output: bool) -> None:
    """Convert the percent script with jupytext and execute it with papermill into build/."""
    import jupytext
    import papermill

    notebook = jupytext.read(paths.notebook_script(params.notebook))
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    output = paths.executed_notebook(params.profile, params.notebook, config.variant(params))
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


def lock_file(profile: str, label: str) -> Path:
    """``build/<profile>/<run>.lock``: held by the one run of that notebook (or variant) in progress."""
    return paths.build_dir(profile) / f"{label}.lock"


def _hold_lock(profile: str, label: str) -> IO[str]:
    """The run's :func:`lock_file`, open and locked (``flock``) until closed, with this process's id in it; while
    another process holds it, say once which one, then wait for it."""
    path = lock_file(profile, label)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "a+")  # the caller closes it, which releases the lock
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            _log.warning("%s: another run of this notebook is in progress (pid %s, %s); waiting for it to finish",
                         label, holder, paths.display(path))
            fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
    except BaseException:
        handle.close()
        raise
    return handle


def _nothing_to_draw(params: parameters.NotebookParams, label: str) -> Outcome | None:
    """With ``recompute`` off (``figures``): a skipped outcome, in one line, when the run logged no result yet."""
    folder = paths.results_dir(params.profile, params.notebook, config.variant(params))
    if params.recompute or any(folder.glob("*.manifest.json")):
        return None
    command = f"python -m lib run {params.notebook} --profile {params.profile}"
    return Outcome(label, "skipped", 0.0, f"no results to draw from; run it first: {command}"
                                          f"{' with the same --set' if config.variant(params) else ''}")


def run_one(
    params: parameters.NotebookParams, *, force: bool, cell_timeout_s: int, log_output: bool, reuse: bool = False
) -> Outcome:
    """Run one validated notebook unless it is already done, holding its lock (:func:`lock_file`: a second run of it
    waits); never raises on notebook failure.

    ``force``: run even when up to date, recomputing every result (``reuse`` too: keep the current ones).
    """
    name, profile, variant = params.notebook, params.profile, config.variant(params)
    label = paths.run_name(name, variant)
    if not force and _is_done(params, _stamp(profile, name, variant)):
        return Outcome(label, "skipped", 0.0, "up to date")
    refused = _nothing_to_draw(params, label) or _unwritable_outcome(params, label)
    if refused is not None:
        return refused
    try:
        lock = _hold_lock(profile, label)
    except OSError as error:
        return Outcome(label, "failed", 0.0, _write_failure(label, error, "cannot take the notebook's lock"))
    with lock:
        if not force and _is_done(params, _stamp(profile, name, variant)):
            return Outcome(label, "skipped", 0.0, "up to date (run by another process meanwhile)")
        for line in results.corrupt_results(profile, name, variant):
            _log.warning("%s: %s; not reused", label, line)
        return _run_locked(params, label, force=force, reuse=reuse, cell_timeout_s=cell_timeout_s,
                           log_output=log_output)


def _run_locked(
    params: parameters.NotebookParams, label: str, *, force: bool, reuse: bool, cell_timeout_s: int, log_output: bool
) -> Outcome:
    """:func:`run_one`'s work once it holds the lock: clear the previous run, execute, then stamp."""
    name, profile, variant = params.notebook, params.profile, config.variant(params)
    target = fingerprint(params)
    try:
        paths.run_stamp(profile, name, variant).unlink(missing_ok=True)
        if (force or _written_by_another_script(params)) and not reuse:
            results.discard_results(profile, name, variant)
        if not reuse:  # kept results may come from another script: leave the record as it was
            results.atomic_write_text(_script_record(profile, name, variant),
                                      results.to_json({"script_sha256": _script_sha256(name)}))
    except OSError as error:
        return Outcome(label, "failed", 0.0, _write_failure(label, error, "cannot clear the previous run"))
    start, started_at = time.perf_counter(), time.time()
    try:
        execute(params, cell_timeout_s=cell_timeout_s, log_output=log_output)
    except Exception as error:  # a failing notebook must not stop the batch
        return Outcome(label, "failed", time.perf_counter() - start, _failure_message(label, error))
    seconds = time.perf_counter() - start
    try:
        _finish(params, target, seconds, started_at)
    except OSError as error:
        return Outcome(label, "failed", seconds, _write_failure(label, error, "ran, but is not marked done"))
    return Outcome(label, "ran", seconds)


def _finish(params: parameters.NotebookParams, target: str, seconds: float, started_at: float) -> None:
    """After a successful execution: prune the figures it no longer writes, then write the stamp (atomically, last)."""
    name, profile, variant = params.notebook, params.profile, config.variant(params)
    plotting.prune_outputs(profile, paths.run_name(name, variant), since=started_at)
    produced = [paths.relative_to_root(p) for p in results.complete_results(profile, name, variant)]
    results.atomic_write_text(
        paths.run_stamp(profile, name, variant),
        results.to_json({
            "fingerprint": target, "params": config.as_dict(params), "params_hash": config.params_hash(params),
            "variant": variant, "code_hash": sources.digest(sources.of_file(paths.notebook_script(name))),
            "results": produced, "seconds": round(seconds, 3), "finished": datetime.now(UTC).isoformat(),
            **machine(),
        }),
    )


def machine() -> dict[str, Any]:
    """The threads each kernel of a batch gets and the CPU they ran on, for the completion stamp and the published
    manifest: a training loop sums its products in an order that depends on both, so the same code and parameters
    run with another thread count or CPU move training-dependent values beyond float level (docs/TIMINGS.md)."""
    cpu = platform.processor() or platform.machine()
    try:
        names = [line.split(":", 1)[1].strip() for line in precision.CPUINFO.read_text().splitlines()
                 if line.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:  # not Linux: platform's name stands
        pass
    threads = os.environ.get(parallel.THREAD_VARIABLES[0], "")
    return {"threads": int(threads) if threads.isdigit() else None, "cpu": cpu, "cpu_count": os.cpu_count()}


def run_batch(
    notebooks: Sequence[str],
    profile: str,
    overrides: Mapping[str, Any] | None = None,
    *,
    force: bool = False,
    reuse: bool = False,
    jobs: int = 1,
    cell_timeout_s: int = DEFAULT_CELL_TIMEOUT_S,
    log_output: bool = True,
    verbose: bool = False,
    cells: bool = True,
) -> list[Outcome]:
    """Validate every notebook's parameters and models first (ConfigError before any compute), then run. With
    ``log_output`` a line reaches the terminal as each notebook ends (:func:`batch_line`) and, with ``cells``, each
    cell's start and what it writes to stderr; ``verbose`` adds what cells print and display."""
    from tqdm.auto import tqdm

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    # Kernels inherit the environment: each takes its share of the cores (lib.parallel.configure_threads).
    os.environ[parallel.CONCURRENT_JOBS_VARIABLE] = str(jobs)
    os.environ[config.RESOLVED_VARIABLE] = "1"  # the injected parameters are final (config.load)
    for variable in parallel.THREAD_VARIABLES:
        os.environ[variable] = str(parallel.threads_per_process(jobs))
    os.environ.setdefault("TQDM_MININTERVAL", str(progress.KERNEL_BAR_INTERVAL_S))  # kernels' bars in the log
    available = discover(profile)
    notebooks = notebook_names.resolve_all(notebooks, profile, available)  # E08, e08 or E08_leakage
    resolved = validated(notebooks or available, profile, overrides)
    with (
        tqdm(total=len(resolved), desc=f"notebooks ({profile})", unit="nb", mininterval=0, disable=None) as bar,
        progress.Reporter(prefix=jobs > 1, enabled=log_output and cells, verbose=verbose, bar=bar).watching(),
        ThreadPoolExecutor(jobs) as pool,
    ):
        pending = run_order(resolved)  # refuses a cycle before anything runs
        order, batch = [p.notebook for p in pending], {p.notebook for p in pending}
        expected = {p.notebook: expected_seconds(p) for p in pending}
        # what the batch's progress line counts as still to run: a notebook already done is skipped in no time
        to_run = {p.notebook: 0.0 if not force and status(p.profile, p.notebook, config.variant(p)) == "done"
                  else expected[p.notebook] for p in pending}
        running: dict[Future, str] = {}
        began: dict[str, float] = {}
        ended: dict[str, Outcome] = {}
        batch_start = time.perf_counter()
        while pending or running:
            while len(running) < jobs and (ready := next_ready(pending, batch, ended, expected)) is not None:
                pending.remove(ready)
                began[ready.notebook] = time.perf_counter()
                running[pool.submit(run_one, ready, force=force, reuse=reuse, cell_timeout_s=cell_timeout_s,
                                    log_output=log_output)] = ready.notebook
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                outcome = ended[running.pop(future)] = future.result()
                bar.update()
                if log_output and outcome.status != "skipped":
                    clock = time.perf_counter()
                    left = None if reuse else [to_run[p.notebook] for p in pending] + [
                        None if to_run[n] is None else max(to_run[n] - (clock - began[n]), 0.0)
                        for n in running.values()]  # a rerun reusing its results: a run's time says nothing
                    tqdm.write(batch_line(outcome, len(ended), len(order), left, clock - batch_start, jobs,
                                          datetime.now(UTC)), file=sys.stderr)
    outcomes = [ended[name] for name in order]  # as asked, each producer before its readers
    if paths.FIGURES_DIR.joinpath(profile).is_dir():
        try:
            plotting.write_index(profile)  # once more after concurrent notebooks
        except OSError as error:
            _log.warning("warning: %s not rewritten: [Errno %s] %s", paths.display(paths.figures_index(profile)),
                         error.errno, error.strerror)
    return outcomes


def batch_line(ended: Outcome, done: int, total: int, left: Sequence[float | None] | None, elapsed_s: float,
               jobs: int, now: datetime) -> str:
    """One line of a batch's progress when a notebook ends: how many have ended, the lane time the batch has run at
    what rate, and when it should end. ``left`` holds, for each notebook not yet ended, its expected seconds still to
    run (:func:`expected_seconds`, less what a running one has already run; None when never timed at these
    parameters); None when no estimate applies (a redraw), which leaves the end out. The end assumes every lane
    stays busy, so it is the earliest the batch can end by those times."""
    head = f"batch: {done} of {total} ended ({ended.notebook} {ended.status}, {ended.seconds / 60:.1f} min)"
    if done == total:
        return f"{head} in {elapsed_s / 60:.1f} min"
    if left is None:
        return f"{head} · {elapsed_s / 60:.1f} min in"
    known = [s for s in left if s is not None]
    unknown = len(left) - len(known)
    end = now.timestamp() + sum(known) / max(jobs, 1)
    return (f"{head} · {elapsed_s / 60:.1f} min in · about {sum(known) / 60:.0f} lane-min left by recorded times"
            + (f" and {unknown} never timed at these parameters" if unknown else "")
            + f" · ends about {datetime.fromtimestamp(end, UTC):%H:%M} UTC at {jobs} busy lanes"
            + (" or later" if unknown else ""))


#: At most this many problems are listed one per line before a batch refuses to start; the rest are counted.
MAX_LISTED_PROBLEMS = 5


def validated(
    notebooks: Sequence[str], profile: str, overrides: Mapping[str, Any] | None = None
) -> list[parameters.NotebookParams]:
    """Every notebook's resolved parameters with its models checked; otherwise one :class:`lib.config.ConfigError`
    listing each notebook's problem on its own line (every bad file at once, before any compute)."""
    resolved, problems = [], []
    for notebook in notebooks:
        try:
            params = config.resolve(notebook, profile, overrides)
            check_models(params)
        except config.ConfigError as error:
            problems.append(str(error))
            continue
        resolved.append(params)
    if problems:
        listed = problems[:MAX_LISTED_PROBLEMS]
        if len(problems) > len(listed):
            listed.append(f"and {len(problems) - len(listed)} more notebooks with problems")
        raise config.ConfigError("\n".join(listed))
    return resolved
