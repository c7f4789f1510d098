"""``python -m lib deltab``: the Representational Bias Shift of one checkpoint against its reference (paper 001)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lib import features, paths, results
from lib.bias_shift import audit


def add_parser(commands) -> None:
    """Register the ``deltab`` subcommand on the CLI's subparsers."""
    parser = commands.add_parser("deltab", help="ΔB of an audited checkpoint against a reference (paper 001)")
    parser.add_argument("--reference", required=True, help="registry name, hub id or local checkpoint folder")
    parser.add_argument("--audited", required=True, help="registry name, hub id or local checkpoint folder")
    parser.add_argument("--groups", nargs="+", default=None, help="target groups (default: all 24)")
    parser.add_argument("--layer", type=features.parse_layer, default="last",
                        help='"last" (default, the paper\'s choice), "mid" or an index')
    parser.add_argument("--pooling", default="mean", choices=("mean", "last", "max"))
    parser.add_argument("--out", default=None, help="JSON file to write (default: results/audits/…)")


def run(args: argparse.Namespace) -> int:
    """``python -m lib deltab``: print ΔB (and the baselines) per group and write them as JSON."""
    try:
        audit.check_groups(args.groups)
        for model in (args.reference, args.audited):
            features.resolve_layer(model, args.layer)  # the model exists and has that layer, before any compute
        table = audit.audit(args.reference, args.audited, groups=args.groups, layer=args.layer, pooling=args.pooling)
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
