"""``python -m lib``: the command line.

``run`` / ``figures`` / ``list`` / ``claims`` drive the notebooks through :mod:`lib.runner`; ``report``
writes the static site of what they left behind (:mod:`lib.report`); ``publish`` copies a reference run into
``published/`` (:mod:`lib.publish`) and ``readme`` regenerates the README's results block from it
(:mod:`lib.readme`). Each paper adds its own commands
through its plugin record (:mod:`lib.papers`): paper 000's ``power`` calculator, paper 001's ``deltab`` audit.
Where this checkout has logged nothing yet (a fresh clone), ``list``, ``claims``, ``report`` and ``figures`` say
where the published reference run is and how to open it (:func:`lib.published.pointer`).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import logging
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from lib import (
    claim_changes,
    claim_plan,
    config,
    papers,
    paths,
    progress,
    publish,
    published,
    readme,
    report,
    results,
    runner,
    scoreboard,
)


def _parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    """The command line for ``argv``: the papers' commands join the core's unless ``argv`` names a core command.

    A paper's command module imports its models and statistics (about 2 s of CPU, scipy.stats and scikit-learn
    among them), and a core command such as ``run`` parses without them: each notebook run, listing or publication
    starts that much sooner. Help, a paper's command or a mistyped one (whose message lists every choice) still
    builds every command.
    """
    parser = argparse.ArgumentParser(prog="python -m lib",
                                     description="The companion's command line: notebooks, figures, claims, audits.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="execute notebooks headlessly with papermill")
    figures = commands.add_parser("figures", help="redraw figures and tables from logged results")
    verbose_help = {
        run: "echo what cells print and display too (tables, claims; by default a line per cell, warnings and "
             "progress, the rest only in the executed notebook)",
        figures: "echo each cell, its warnings and what it prints and displays (by default a line as each notebook "
                 "ends: a redraw computes nothing, the rest is in the executed notebook)"}
    for sub in (run, figures):
        sub.add_argument("notebooks", nargs="*", help="names without .py or short ids, E08 or e08 for E08_leakage "
                                                      "(default: all under the profile)")
        sub.add_argument("--profile", default="default", choices=paths.PROFILES)
        sub.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                         help="override one parameter (repeatable)")
        sub.add_argument("--jobs", type=int, default=None,
                         help="notebooks executed at once (default: one per core under smoke and default, else 1)")
        sub.add_argument("--timeout", type=int, default=runner.DEFAULT_CELL_TIMEOUT_S, help="seconds per cell")
        echo = sub.add_mutually_exclusive_group()
        echo.add_argument("--quiet", action="store_true", help="no line while notebooks run, only the closing table")
        echo.add_argument("--verbose", action="store_true", help=verbose_help[sub])
    run.add_argument("--force", action="store_true",
                     help="rerun even when up to date and recompute every logged result")
    run.add_argument("--reuse", action="store_true",
                     help="with --force: rerun the notebook but reuse the logged results that are current")
    listing = commands.add_parser("list", help="notebooks, profiles and the status of each")
    listing.add_argument("--published", nargs="?", const="published", default=None, metavar="FOLDER",
                         help="instead: each notebook of the publication in FOLDER (default published/), current "
                              "or stale and what changed")
    release = commands.add_parser("publish", help="copy a finished reference run into published/ (notebooks, "
                                                   "claims, manifests, scoreboard, report)")
    release.add_argument("--profile", default="default", choices=paths.PROFILES)
    release.add_argument("--to", default="published", metavar="FOLDER", help="the target folder (default published/)")
    release.add_argument("--paper", action="append", default=None, metavar="ID",
                         help="publish only this paper's notebooks (repeatable; default: every notebook); the "
                              "README then names the notebooks the run left out")
    release.add_argument("--add", action="store_true",
                         help="keep the notebooks the publication already holds (each must still be current) and "
                              "add or replace these beside them: a reference run made in pieces on other checkouts")
    release.add_argument("--drop-stale", action="store_true",
                         help="with --add: leave out the kept notebooks whose published run is stale instead of "
                              "refusing (each named; a later --add puts them back once rerun)")
    release.add_argument("notebooks", nargs="*", help="publish only these notebooks (names without .py or "
                                                      "short ids, E08; default: every notebook, or those of --paper)")
    commands.add_parser("readme", help="rewrite the README's results block from published/")
    claims = commands.add_parser("claims", help="the claims scoreboard per paper; writes figures/<profile>/CLAIMS.md")
    claims.add_argument("--profile", default="default", choices=paths.PROFILES)
    claims.add_argument("--plan", action="store_true",
                        help="for every claim not decisive at this scale, the scale that would decide it and its cost "
                             "in lane-minutes; writes figures/<profile>/CLAIMS_PLAN.md")
    claims.add_argument("--changes", action="store_true",
                        help="print the claims whose verdict differs between published/ and this profile's results "
                             "(the section docs/CLAIM_CHANGES.md gets at a republication)")
    claims.add_argument("--changelog", type=Path, default=None, metavar="FILE",
                        help="with --changes: also add each change as a row of its claim's table in FILE "
                             "(docs/CLAIM_CHANGES.md), dated today with the run's commit; before publishing")
    site = commands.add_parser("report", help="a static HTML site of the logged results, figures and notebooks")
    site.add_argument("--profile", default="default", choices=paths.PROFILES)
    if not argv or argv[0] not in commands.choices:
        for module in papers.commands().values():
            importlib.import_module(module).add_parser(commands)
    return parser


#: The errno values of a write the environment refused (permissions, a read-only or full disk, a file in the way).
_WRITE_ERRNOS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.ENOTDIR,
                           errno.EEXIST})


def _list_cell(profile: str, name: str, problems: list[str]) -> str:
    """One cell of ``list``: ``-`` without a YAML, ``invalid`` (its problem kept for stderr) or the run's status."""
    if not paths.params_file(profile, name).is_file():
        return "-"
    try:
        config.read_params_file(profile, name)
    except config.ConfigError as error:
        problems.append(str(error))
        return "invalid"
    return runner.status(profile, name)


def _nothing_logged(*profiles: str) -> bool:
    """No notebook has logged a result under any of ``profiles`` in this checkout (a fresh clone)."""
    return not any(any(paths.RESULTS_DIR.joinpath(p).glob("*/*.manifest.json")) for p in profiles)


def _print_pointer(lead: str) -> None:
    """``lead``, then where the published reference run is and how to open it (when ``published/`` holds one)."""
    found = published.pointer()
    if found is not None:
        print(f"{lead}; {found}")


def _print_list() -> int:
    """Print every notebook's status per profile, each corrupt result, then the variants; a bad YAML is one
    ``error:`` line (exit 2). Where nothing has run yet, say where the published run is."""
    names = sorted({p.stem for p in paths.NOTEBOOKS_DIR.glob("*.py")})
    width = max([len(n) for n in names] + [8])
    problems: list[str] = []
    corrupt: list[str] = []
    print(f"{'notebook':<{width}}  " + "  ".join(f"{p:<8}" for p in paths.PROFILES))
    for name in names:
        cells = [_list_cell(p, name, problems) for p in paths.PROFILES]
        print(f"{name:<{width}}  " + "  ".join(f"{c:<8}" for c in cells))
        corrupt += [line for p, c in zip(paths.PROFILES, cells, strict=True) if c == "corrupt"
                    for line in results.corrupt_results(p, name)]
    for line in corrupt:
        print(f"corrupt: {line}; the next run computes it again")
    found = [(p, n, v) for p in paths.PROFILES for n, v in runner.variants(p)]
    if found:
        print("\nvariants (parameters differ from params/<profile>/; results/<profile>/<notebook>@<overrides>/):")
        for profile, name, variant in found:
            print(f"  {profile:<8}  {paths.run_name(name, variant)}  {runner.status(profile, name, variant)}")
    if _nothing_logged(*paths.PROFILES):
        _print_pointer("\nnothing has run in this checkout yet")
    _print_errors("\n".join(problems))
    return 2 if problems else 0


def _print_published(folder: str) -> int:
    """Each notebook of the publication in ``folder``: ``current`` or ``stale: what changed``."""
    record = published.record(Path(folder))
    if record is None:
        raise config.ConfigError(f"{folder} holds no publication ({published.RECORD}); run make publish first")
    lines = published.statuses(Path(folder))
    width = max([len(n) for n in lines] + [8])
    commits = record.get("commit")
    commits = ", ".join(str(c)[:12] for c in (commits if isinstance(commits, list) else [commits]))
    print(f"publication {folder}: profile {record.get('profile')}, commit {commits}")
    lanes: dict[str, float | None] = {}
    for notebook, line in lines.items():
        try:
            entry = published.manifest(Path(folder), notebook)
        except (OSError, ValueError):
            entry = {}
        lanes[notebook] = runner.published_lane_seconds(entry)
        attempts = len(entry.get("earlier_attempts_s", [])) + 1
        lane = "lane time unknown" if lanes[notebook] is None else f"{lanes[notebook] / 60:.1f} lane-min" + (
            f" over {attempts} attempts" if attempts > 1 else "")
        print(f"{notebook:<{width}}  {lane}  {line}")
    timed = [v for v in lanes.values() if v is not None]
    print(f"lane time {sum(timed) / 60:.1f} min over {len(timed)} of {len(lanes)} notebooks, "
          f"{sum(timed) / 120:.1f} min in two lanes")
    return 0


def _publish(args: argparse.Namespace) -> int:
    """``publish``: refuse smoke, publish the profile's notebooks (of ``--paper`` only, when given), print the size,
    refresh the README."""
    if args.profile == "smoke":
        raise config.ConfigError(publish.SMOKE_REFUSAL)
    target = Path(args.to).resolve()
    notebooks = publish.notebooks_of(args.profile, args.paper, args.notebooks)
    total = publish.publish(args.profile, target, notebooks=notebooks, add=args.add, drop_stale=args.drop_stale)
    print(f"published profile {args.profile} to {paths.display(target)}/: {publish.megabytes(total)} "
          f"(budget {publish.megabytes(publish.BUDGET_BYTES)})")
    if target == published.default_folder().resolve() and readme.update(readme.readme_file(), target):
        print(f"rewrote the results block of {paths.display(readme.readme_file())}")
    return 0


def _print_errors(message: str) -> None:
    """Each line of ``message`` as one ``error:`` line on stderr."""
    for line in message.splitlines():
        print(f"error: {line}", file=sys.stderr)


def _run_notebooks(args: argparse.Namespace) -> int:
    """``run`` and ``figures``: validate everything, run the batch, print its table and each failure in one line."""
    if args.jobs is None:
        args.jobs = runner.default_jobs(args.profile)
    if args.jobs < 1:
        raise config.ConfigError(f"--jobs {args.jobs} is out of range; allowed: >= 1")
    overrides = dict(config.parse_override(item) for item in args.overrides)
    force, reuse = getattr(args, "force", False), getattr(args, "reuse", False)
    if reuse and not force:
        raise config.ConfigError("--reuse only applies with --force")
    if args.command == "figures":
        overrides, force, reuse = {**overrides, "recompute": False}, True, True
    if not args.quiet:
        logging.basicConfig(level=logging.INFO, format="%(message)s")
    outcomes = runner.run_batch(
        args.notebooks, args.profile, overrides, force=force, reuse=reuse, jobs=args.jobs,
        cell_timeout_s=args.timeout, log_output=not args.quiet, verbose=args.verbose,
        cells=args.command == "run" or args.verbose,
    )
    print(progress.batch_table(outcomes, args.profile))
    if args.command == "figures" and _nothing_logged(args.profile):
        _print_pointer(f"\nno results under results/{args.profile}/ to draw from")
    failed = [o for o in outcomes if o.status == "failed"]
    for outcome in failed:
        print(f"FAILED {outcome.message}", file=sys.stderr)
    return 1 if failed else 0


def _dispatch(args: argparse.Namespace) -> int:
    """Run the chosen command; returns its exit status."""
    if args.command == "list":
        return _print_published(args.published) if args.published is not None else _print_list()
    if args.command == "publish":
        return _publish(args)
    if args.command == "readme":
        written = readme.update(readme.readme_file(), published.default_folder())
        print(f"{'rewrote' if written else 'no results markers in'} {paths.display(readme.readme_file())}")
        return 0
    if args.command in papers.commands():
        return importlib.import_module(papers.commands()[args.command]).run(args)
    if args.command == "report":
        index = report.build(args.profile)
        print(f"wrote {paths.relative_to_root(index)} (open it in a browser)")
        if _nothing_logged(args.profile):
            _print_pointer(f"it is empty: nothing has run under profile {args.profile} in this checkout")
        return 0
    if args.command == "claims" and args.plan:
        print(claim_plan.text(args.profile))
        return 0
    if args.command == "claims" and args.changes:
        new = results.gather_claims(args.profile)
        if new.empty:  # a fresh clone: every published claim would read as gone
            print(f"nothing has run under profile {args.profile} in this checkout: no verdicts to compare with "
                  "published/")
            return 0
        folder = published.default_folder()
        ran = sorted(set(new.notebook))  # a run made in pieces: a notebook it has not run yet is not gone
        old = pd.concat([publish.published_claims(folder, n) for n in ran], ignore_index=True)
        found = claim_changes.changes(old, new)
        print(claim_changes.markdown(found, "published/", f"results/{args.profile}/"))
        if args.changelog is not None:
            commits = sorted({str(results.read_manifest(paths.results_dir(args.profile, n) / "claims.json")
                                  .get("git", {}).get("commit"))[:7] for n in ran})
            stamp = f"{datetime.now(UTC):%Y-%m-%d} · " + ", ".join(f"`{c}`" for c in commits)
            text = claim_changes.changelog(args.changelog.read_text(), found, stamp)
            results.atomic_write_text(args.changelog, text)
        return 0
    if args.command == "claims":
        print(scoreboard.text(args.profile))
        if _nothing_logged(args.profile):
            _print_pointer(f"nothing has run under profile {args.profile} in this checkout")
        return 0
    return _run_notebooks(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m lib``; returns the process exit status.

    Bad input (:class:`lib.config.ConfigError`) is one ``error:`` line per problem, exit 2; an environment fault
    outside a notebook (an :class:`OSError`: a read-only or full disk) one ``error:`` line, exit 1.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser(argv).parse_args(argv)
    try:
        return _dispatch(args)
    except config.ConfigError as error:
        _print_errors(str(error))
        return 2
    except OSError as error:
        hint = "; make the folder writable (or free space) and rerun" if error.errno in _WRITE_ERRNOS else ""
        print(f"error: {error}{hint}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
