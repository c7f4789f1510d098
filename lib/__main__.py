"""``python -m lib``: the command line, the one place that knows every paper.

``run`` / ``figures`` / ``list`` / ``claims`` drive the notebooks through :mod:`lib.runner`; ``report``
writes the static site of what they left behind (:mod:`lib.report`);
``deltab`` is paper 001's audit (:mod:`lib.bias_shift.cli`), ``power`` paper 000's power calculator
(:mod:`lib.bias_probes.cli`).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from lib import config, paths, progress, report, results, runner
from lib.bias_probes import cli as bias_probes_cli
from lib.bias_shift import cli as bias_shift_cli


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m lib",
                                     description="The companion's command line: notebooks, figures, claims, audits.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="execute notebooks headlessly with papermill")
    figures = commands.add_parser("figures", help="redraw figures and tables from logged results")
    for sub in (run, figures):
        sub.add_argument("notebooks", nargs="*", help="names without .py (default: all under the profile)")
        sub.add_argument("--profile", default="default", choices=paths.PROFILES)
        sub.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                         help="override one parameter (repeatable)")
        sub.add_argument("--jobs", type=int, default=None,
                         help="notebooks executed at once (default: one per core under smoke, else 1)")
        sub.add_argument("--timeout", type=int, default=runner.DEFAULT_CELL_TIMEOUT_S, help="seconds per cell")
        sub.add_argument("--quiet", action="store_true", help="do not echo cell output")
    run.add_argument("--force", action="store_true",
                     help="rerun even when up to date and recompute every logged result")
    run.add_argument("--reuse", action="store_true",
                     help="with --force: rerun the notebook but reuse the logged results that are current")
    commands.add_parser("list", help="notebooks, profiles and the status of each")
    claims = commands.add_parser("claims", help="every notebook's paper-vs-measured claims in one table")
    claims.add_argument("--profile", default="default", choices=paths.PROFILES)
    site = commands.add_parser("report", help="a static HTML site of the logged results, figures and notebooks")
    site.add_argument("--profile", default="default", choices=paths.PROFILES)
    bias_shift_cli.add_parser(commands)
    bias_probes_cli.add_parser(commands)
    return parser


def _print_list() -> None:
    names = sorted({p.stem for p in paths.NOTEBOOKS_DIR.glob("*.py")})
    width = max([len(n) for n in names] + [8])
    print(f"{'notebook':<{width}}  " + "  ".join(f"{p:<8}" for p in paths.PROFILES))
    for name in names:
        cells = [
            runner.status(p, name) if paths.params_file(p, name).is_file() else "-" for p in paths.PROFILES
        ]
        print(f"{name:<{width}}  " + "  ".join(f"{c:<8}" for c in cells))
    found = [(p, n, v) for p in paths.PROFILES for n, v in runner.variants(p)]
    if found:
        print("\nvariants (parameters differ from params/<profile>/; results/<profile>/<notebook>@<overrides>/):")
        for profile, name, variant in found:
            print(f"  {profile:<8}  {paths.run_name(name, variant)}  {runner.status(profile, name, variant)}")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m lib``; returns the process exit status."""
    args = _parser().parse_args(argv)
    if args.command == "list":
        _print_list()
        return 0
    if args.command == "deltab":
        return bias_shift_cli.run(args)
    if args.command == "power":
        return bias_probes_cli.run(args)
    if args.command == "report":
        index = report.build(args.profile)
        print(f"wrote {paths.relative_to_root(index)} (open it in a browser)")
        return 0
    if args.command == "claims":
        table = results.gather_claims(args.profile)
        print(table.to_markdown(index=False, floatfmt=".4g") if len(table) else f"no claims under {args.profile}")
        if len(table):
            print(results.claims_summary(table))
        return 0
    if args.jobs is None:
        args.jobs = runner.default_jobs(args.profile)
    if args.jobs < 1:
        print(f"error: --jobs {args.jobs} is out of range; allowed: >= 1", file=sys.stderr)
        return 2
    try:
        overrides = dict(config.parse_override(item) for item in args.overrides)
        force, reuse = getattr(args, "force", False), getattr(args, "reuse", False)
        if reuse and not force:
            print("error: --reuse only applies with --force", file=sys.stderr)
            return 2
        if args.command == "figures":
            overrides, force, reuse = {**overrides, "recompute": False}, True, True
        if not args.quiet:
            logging.basicConfig(level=logging.INFO, format="%(message)s")
        outcomes = runner.run_batch(
            args.notebooks, args.profile, overrides, force=force, reuse=reuse, jobs=args.jobs,
            cell_timeout_s=args.timeout, log_output=not args.quiet,
        )
    except config.ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(progress.batch_table(outcomes, args.profile))
    failed = [o for o in outcomes if o.status == "failed"]
    for outcome in failed:
        print(f"FAILED {outcome.message}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
