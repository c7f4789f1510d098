"""``python -m lib power``: the auditor's power calculator on a model's own features (paper 000, Sec. VII)."""

from __future__ import annotations

import argparse
import json
import math
import sys

from lib.bias_probes import power, prompts
from lib.models import extraction, layer_resolver, registry


def add_parser(commands) -> None:
    """Register the ``power`` subcommand on the CLI's subparsers."""
    parser = commands.add_parser("power", help="α*(n), the sample budget and an audit's verdict (paper 000, Sec. VII)")
    parser.add_argument("--model", required=True, help="registry name, hub id or local checkpoint folder")
    parser.add_argument("--dimension", required=True, help=f"bias dimension: {', '.join(prompts.DIMENSIONS)}")
    parser.add_argument("--layer", type=layer_resolver.parse_layer, default="mid",
                        help='"mid" (default, ⌊L/2⌋), "last" or an index')
    parser.add_argument("--pooling", default="mean", choices=extraction.POOLINGS)
    parser.add_argument("--n", type=int, default=300, help="test texts of the audit, balanced classes (default 300)")
    parser.add_argument("--alpha", type=float, default=0.3, help="purity: share of bias-marked texts (default 0.3)")
    parser.add_argument("--auc", type=float, default=None, help="a finished audit's AUC at --n: adds the verdict")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")


def _number(value: float) -> str:
    return "∞" if math.isinf(value) else f"{value:.4g}"


def run(args: argparse.Namespace) -> int:
    """Check every input, measure ŝ, print the report (or ``--json``); exit 2 on bad input."""
    try:
        power.check_audit_inputs(args.n, args.alpha, args.auc)
        prompts.check_dimension(args.dimension)
        layer_resolver.resolve_layer(args.model, args.layer)  # the model exists and has the layer, before any compute
        s_hat = power.measure_separation(args.model, args.dimension, args.layer, args.pooling)
    except (ValueError, registry.ModelUnavailableError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    report = power.power_report(s_hat, args.n, args.alpha, args.auc)
    if args.json:
        print(json.dumps({"model": args.model, "dimension": args.dimension, "layer": args.layer,
                          "pooling": args.pooling, **report.as_dict()}, ensure_ascii=False))
        return 0
    print(f"{args.model} · {args.dimension} · layer {args.layer} · {args.pooling} pooling")
    print(f"  ŝ (cross-fitted, standardised, counterfactual pairs) = {report.s_hat:.3f}")
    print(f"  predicted AUC at α = {args.alpha:g} (Eq. 8)           = {report.predicted_auc:.4f}")
    print(f"  α*(n = {args.n}) at the 1.4·σ₀ test (exact)        = {_number(report.alpha_star)}"
          f"   (Eq. 11, linearised: {_number(report.alpha_star_eq11)})")
    print(f"  test texts needed for α = {args.alpha:g}                  = {_number(report.n_required)}"
          f"   (Eq. 11: {_number(report.n_required_eq11)})")
    print(f"  an AUC above {report.detection_auc:.4f} is a detection at n = {args.n}")
    if report.verdict is not None:
        print(f"  audit AUC {report.auc:.4f}: z = {report.z:.2f} against 1.4·σ₀ → {report.verdict}")
    print("  caveats:\n" + "\n".join(f"    - {c}" for c in report.caveats))
    return 0
