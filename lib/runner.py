"""Batch execution of the notebooks with papermill, and the ``python -m lib`` command line.

A notebook runs under a profile when ``params/<profile>/<notebook>.yaml`` exists. It is skipped
when its script, its resolved parameters and the ``lib`` sources hash as in the completion stamp
``build/<profile>/<notebook>.done.json`` and every result the stamp lists is still complete.
The stamp is written last and atomically, so an interrupted batch simply reruns what is
missing; inside a notebook, :class:`lib.results.Run` reuses every result that is already
complete, so the rerun resumes rather than restarts.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import sys
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lib import config, paths, plotting, results

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


def lib_sources_hash() -> str:
    """SHA-256 over every ``lib/**/*.py`` (path and bytes)."""
    digest = hashlib.sha256()
    for source in sorted(paths.LIB_DIR.rglob("*.py")):
        digest.update(paths.relative_to_root(source).encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()


def fingerprint(params: config.NotebookParams) -> str:
    """What a completed run must match to be skipped: script, parameters, lib sources."""
    digest = hashlib.sha256()
    digest.update(paths.notebook_script(params.notebook).read_bytes())
    digest.update(config.params_hash(params).encode())
    digest.update(lib_sources_hash().encode())
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


def execute(params: config.NotebookParams, *, cell_timeout_s: int, log_output: bool) -> None:
    """Convert the percent script with jupytext and execute it with papermill into build/."""
    import jupytext
    import papermill

    notebook = jupytext.read(paths.notebook_script(params.notebook))
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    output = paths.executed_notebook(params.profile, params.notebook)
    output.parent.mkdir(parents=True, exist_ok=True)
    papermill.execute_notebook(
        notebook,
        str(output),
        parameters=config.as_dict(params),
        kernel_name="python3",
        cwd=str(paths.REPO_ROOT),
        log_output=log_output,
        progress_bar=False,
        execution_timeout=cell_timeout_s,
    )


def run_one(
    params: config.NotebookParams, *, force: bool, cell_timeout_s: int, log_output: bool
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
    available = discover(profile)
    unknown = [n for n in notebooks if n not in available]
    if unknown:
        raise config.ConfigError(
            f"no notebook {', '.join(map(repr, unknown))} under profile {profile!r}; "
            f"available: {', '.join(available) or 'none'}"
        )
    resolved = [config.resolve(n, profile, overrides) for n in (notebooks or available)]
    outcomes: list[Outcome] = []
    with tqdm(total=len(resolved), desc=f"notebooks ({profile})", unit="nb") as bar, ThreadPoolExecutor(jobs) as pool:
        futures = [
            pool.submit(run_one, p, force=force, cell_timeout_s=cell_timeout_s, log_output=log_output)
            for p in resolved
        ]
        for future in futures:
            outcome = future.result()
            outcomes.append(outcome)
            bar.set_postfix_str(f"{outcome.notebook}: {outcome.status}")
            bar.update()
    if paths.FIGURES_DIR.joinpath(profile).is_dir():
        plotting.write_index(profile)  # once more after concurrent notebooks
    return outcomes


# --------------------------------------------------------------------------- command line


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m lib", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="execute notebooks headlessly with papermill")
    figures = commands.add_parser("figures", help="redraw figures and tables from logged results")
    for sub in (run, figures):
        sub.add_argument("notebooks", nargs="*", help="names without .py (default: all under the profile)")
        sub.add_argument("--profile", default="default", choices=paths.PROFILES)
        sub.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                         help="override one parameter (repeatable)")
        sub.add_argument("--jobs", type=int, default=1, help="notebooks executed at once")
        sub.add_argument("--timeout", type=int, default=DEFAULT_CELL_TIMEOUT_S, help="seconds per cell")
        sub.add_argument("--quiet", action="store_true", help="do not echo cell output")
    run.add_argument("--force", action="store_true", help="rerun even when up to date")
    commands.add_parser("list", help="notebooks, profiles and the status of each")
    claims = commands.add_parser("claims", help="every notebook's paper-vs-measured claims in one table")
    claims.add_argument("--profile", default="default", choices=paths.PROFILES)
    audit = commands.add_parser("deltab", help="ΔB of an audited checkpoint against a reference (paper 001)")
    audit.add_argument("--reference", required=True, help="registry name, hub id or local checkpoint folder")
    audit.add_argument("--audited", required=True, help="registry name, hub id or local checkpoint folder")
    audit.add_argument("--groups", nargs="+", default=None, help="target groups (default: all 24)")
    audit.add_argument("--layer", type=int, default=None, help="hidden-state layer (default: the final one)")
    audit.add_argument("--pooling", default="mean", choices=("mean", "last", "max"))
    audit.add_argument("--out", default=None, help="JSON file to write (default: results/audits/…)")
    return parser


def _print_list() -> None:
    names = sorted({p.stem for p in paths.NOTEBOOKS_DIR.glob("*.py")})
    width = max([len(n) for n in names] + [8])
    print(f"{'notebook':<{width}}  " + "  ".join(f"{p:<8}" for p in paths.PROFILES))
    for name in names:
        cells = [
            status(p, name) if paths.params_file(p, name).is_file() else "-" for p in paths.PROFILES
        ]
        print(f"{name:<{width}}  " + "  ".join(f"{c:<8}" for c in cells))


def _deltab(args: argparse.Namespace) -> int:
    """``python -m lib deltab``: print ΔB (and the baselines) per group and write them as JSON."""
    from lib import deltab_audit, features

    try:
        deltab_audit.check_groups(args.groups)
        for model in (args.reference, args.audited):
            features.model_folder(model)
        table = deltab_audit.audit(args.reference, args.audited, groups=args.groups, layer=args.layer,
                                   pooling=args.pooling)
    except (ValueError, features.ModelUnavailableError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(table.to_markdown(index=False, floatfmt=".4f"))
    out = paths.audit_file(args.reference, args.audited) if args.out is None else Path(args.out)
    results.atomic_write_text(out, results.to_json({
        "reference": args.reference, "audited": args.audited, "layer": args.layer, "pooling": args.pooling,
        "groups": table.to_dict(orient="records"),
    }))
    print(f"written: {out}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m lib``; returns the process exit status."""
    args = _parser().parse_args(argv)
    if args.command == "list":
        _print_list()
        return 0
    if args.command == "deltab":
        return _deltab(args)
    if args.command == "claims":
        table = results.gather_claims(args.profile)
        print(table.to_markdown(index=False, floatfmt=".4g") if len(table) else f"no claims under {args.profile}")
        return 0
    if args.jobs < 1:
        print(f"error: --jobs {args.jobs} is out of range; allowed: >= 1", file=sys.stderr)
        return 2
    try:
        overrides = dict(config.parse_override(item) for item in args.overrides)
        force = getattr(args, "force", False)
        if args.command == "figures":
            overrides, force = {**overrides, "recompute": False}, True
        if not args.quiet:
            logging.basicConfig(level=logging.INFO, format="%(message)s")
        outcomes = run_batch(
            args.notebooks, args.profile, overrides, force=force, jobs=args.jobs,
            cell_timeout_s=args.timeout, log_output=not args.quiet,
        )
    except config.ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for outcome in outcomes:
        print(f"{outcome.status:>8}  {outcome.notebook}  {outcome.seconds:6.1f} s  {outcome.message}")
    failed = [o for o in outcomes if o.status == "failed"]
    for outcome in failed:
        print(f"FAILED {outcome.message}", file=sys.stderr)
    return 1 if failed else 0
