"""``python -m lib deltab``: the Representational Bias Shift of one checkpoint against its reference (paper 001)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lib import paths, results
from lib.bias_shift import audit, sentences
from lib.models import layer_resolver, registry


def add_parser(commands) -> None:
    """Register the ``deltab`` subcommand on the CLI's subparsers."""
    parser = commands.add_parser("deltab", help="ΔB of an audited checkpoint against a reference (paper 001)")
    parser.add_argument("--reference", required=True, help="registry name, hub id or local checkpoint folder")
    parser.add_argument("--audited", required=True, help="registry name, hub id or local checkpoint folder")
    parser.add_argument("--groups", nargs="+", default=None, help="target groups (default: all 24)")
    parser.add_argument("--layer", type=layer_resolver.parse_layer, default="last",
                        help='"last" (default, the paper\'s choice), "mid" or an index')
    parser.add_argument("--pooling", default="mean", choices=("mean", "last", "max"))
    parser.add_argument("--out", default=None, help="JSON file to write (default: results/audits/…)")


def run(args: argparse.Namespace) -> int:
    """``python -m lib deltab``: print ΔB (and the baselines) per group with the group-free control and each
    group's own shift, warn when the control outweighs the median |ΔB|, and write them as JSON."""
    try:
        audit.check_groups(args.groups)
        for model in (args.reference, args.audited):  # both exist (config.json only), before converting either
            layer_resolver.check_model(model, args.layer)
        for model in (args.reference, args.audited):
            layer_resolver.resolve_layer(model, args.layer)  # the layer, once a converted model has its config
        table = audit.audit(args.reference, args.audited, groups=args.groups, layer=args.layer, pooling=args.pooling)
    except (ValueError, registry.ModelUnavailableError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(results.readable(table).to_markdown(index=False))
    control, median = float(table.control_delta_b.iloc[0]), float(table.delta_b.abs().median())
    print(f"control ΔB (group-free subjects: {', '.join(sentences.CONTROL_SUBJECTS)}): {control:.4f}; "
          "group_shift = delta_b − control_delta_b is each group's own shift")
    if abs(control) > median:
        print(f"warning: |control ΔB| = {abs(control):.4f} exceeds the median |ΔB| = {median:.4f}: most of ΔB is "
              "drift shared by group-free sentences, not a shift of the groups", file=sys.stderr)
    out = paths.audit_file(args.reference, args.audited) if args.out is None else Path(args.out)
    results.atomic_write_text(out, results.to_json({
        "reference": args.reference, "audited": args.audited, "layer": args.layer, "pooling": args.pooling,
        "control_subjects": list(sentences.CONTROL_SUBJECTS), "control_delta_b": control,
        "groups": table.to_dict(orient="records"),
    }))
    print(f"written: {out}")
    return 0
