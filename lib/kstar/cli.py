"""``python -m lib kstar``: k* of a model on your own labelled texts (paper 002, App. A.1.6, Algorithm 2).

Reads the task file (:mod:`lib.kstar.tasks.task_files`), checks it, the model and the blocks ``--layers`` names
before any compute, extracts the pooled residual streams of the probed blocks (mean and last, one forward pass; an
instruction-tuned model reads each text as a single user turn plus the generation prompt, A.1.2), and runs
:func:`lib.kstar.protocol.algorithm.measure_kstar`: per class decision and for the task, k*, the seed range, the
ceiling, the readability flag (ceiling ≤ 0.90, A.1.6) and the precision check (1.96·s.e. below C − τ, A.1.8).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from lib.kstar import layer_specs, measure
from lib.kstar.protocol import algorithm, counts, rules
from lib.kstar.tasks import task_files
from lib.kstar.tasks.tasks import MIN_POSITIVES
from lib.models import layer_resolver, registry

SWEEP_POOLINGS = ("mean", "last")  #: the sweep reads both residual representations (A.1.6; SAE codes are not built)
MAX_TOKENS = 512  #: input truncation (the paper reads 768; BERT-style encoders stop at 512)


def add_parser(commands) -> None:
    """Register the ``kstar`` subcommand on the CLI's subparsers."""
    parser = commands.add_parser("kstar", help="k*, seed range, ceiling and flags of a model on your own texts "
                                               "(paper 002, Algorithm 2)")
    parser.add_argument("--model", required=True, help="registry name, hub id or local checkpoint folder")
    parser.add_argument("--task", required=True,
                        help="CSV, JSONL or Parquet file with columns text,label[,split,group]")
    parser.add_argument("--layers", default="grid:6",
                        help='"grid:N" (N blocks evenly over depth; default grid:6), a list "3,6,9" or "table6"')
    parser.add_argument("--pooling", default="mean", choices=SWEEP_POOLINGS,
                        help="representation of the five-seed window (default mean, the paper's)")
    parser.add_argument("--cap", type=int, default=None, help="at most N texts per split, stratified (default: all)")
    parser.add_argument("--positive", default=None, help="the positive label of a two-label file")
    parser.add_argument("--seed", type=int, default=0, help="seed of the hold-out split and the cap (default 0)")
    parser.add_argument("--max-tokens", type=int, default=MAX_TOKENS, help=f"input truncation (default {MAX_TOKENS})")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes for the probe searches (default 1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")


def _shown(value: float) -> str:
    return "NaN" if isinstance(value, float) and math.isnan(value) else counts.display_count(value)


def _json_count(value: Any) -> Any:
    """A count for JSON, which has no infinity: ∞ is the string "inf", NaN is null."""
    if isinstance(value, float) and math.isinf(value):
        return "inf"
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _flags(flagged: bool, precise: bool, unreadable: bool = False) -> str:
    if unreadable:
        return "unreadable (C ≤ 0.5)"
    words = [f"low ceiling (≤ {rules.READABLE_ABOVE:.2f})" if flagged else "readable",
             "precise" if precise else "imprecise (1.96·s.e. ≥ C − τ)"]
    return ", ".join(words)


def _prepare(args: argparse.Namespace):
    """Everything checked before any compute: the file, its decisions, the model, the blocks."""
    if args.max_tokens < 1 or args.jobs == 0 or args.jobs < -1:
        raise ValueError(f"--max-tokens {args.max_tokens} / --jobs {args.jobs}; allowed: >= 1 / -1 or >= 1")
    pool = task_files.load_task(args.task, seed=args.seed, cap=args.cap, positive=args.positive)
    measurable, skipped = task_files.check_pool(pool, MIN_POSITIVES)
    layer_specs.parse(args.layers)
    layer_resolver.check_model(args.model)
    layer_specs.check(args.model, args.layers)
    measure.prepare_models([args.model])
    blocks = layer_specs.resolve(args.model, args.layers)
    return pool, measurable, skipped, blocks


def run(args: argparse.Namespace) -> int:
    """Check every input, measure, print the report (or ``--json``); exit 2 with one ``error:`` line on bad input."""
    try:
        pool, measurable, skipped, blocks = _prepare(args)
    except (ValueError, registry.ModelUnavailableError) as error:
        print(f"error: {' '.join(str(error).split())}", file=sys.stderr)
        return 2
    poolings = tuple(dict.fromkeys((args.pooling, *SWEEP_POOLINGS)))
    states = measure.representations(args.model, pool, blocks, poolings, max_tokens=args.max_tokens)
    n_train = len(pool.texts_train)
    features = {(int(b), p): (array[i, :n_train], array[i, n_train:])
                for p, array in states.items() for i, b in enumerate(blocks)}
    result = algorithm.measure_kstar(features, {d.name: d.y_train.astype(int) for d in measurable},
                                     {d.name: d.y_test.astype(int) for d in measurable}, pooling=args.pooling,
                                     n_jobs=args.jobs, model=args.model, task=pool.name)
    summary = {"model": args.model, "input_format": measure.format_words(args.model), "task": pool.name,
               "source": pool.source, "n_train": n_train,
               "n_test": len(pool.texts_test), **result.as_dict(),
               "skipped": [{"decision": d.name, "reason": d.skipped} for d in skipped]}
    if args.json:
        summary["kstar"] = _json_count(summary["kstar"])
        summary["seed_range"] = [_json_count(v) for v in summary["seed_range"]]
        summary["decisions"] = [{k: _json_count(v) for k, v in row.items()} for row in summary["decisions"]]
        print(json.dumps(summary, ensure_ascii=False, allow_nan=False))
        return 0
    _print_report(summary, result)
    return 0


def _print_report(summary: dict, result: algorithm.KStar) -> None:
    print(f"{summary['model']} · {summary['task']} ({summary['n_train']} train / {summary['n_test']} test texts) · "
          f"blocks {', '.join(map(str, result.blocks))} · {result.pooling} pooling · {summary['input_format']}")
    print(f"  window {', '.join(map(str, result.window))} (sweep's best block {result.best_block}), "
          f"seeds {', '.join(map(str, rules.SEEDS))}")
    low, high = result.seed_range
    print(f"  k* = {_shown(result.kstar)}   seed range [{_shown(low)}, {_shown(high)}]   "
          f"ceiling {result.ceiling:.4f}   {_flags(result.flagged, result.precise)}")
    rows = result.decisions
    width = max([len(str(d)) for d in rows.decision] + [8])
    print(f"  {'decision':<{width}}  {'k*':>5}  {'seed range':>12}  {'ceiling':>7}  {'τ':>6}  flags")
    for row in rows.itertuples():
        seeds = f"[{_shown(row.seed_min)}, {_shown(row.seed_max)}]" if not row.unreadable else "-"
        kstar = _shown(row.kstar) if not row.unreadable else "-"
        print(f"  {row.decision:<{width}}  {kstar:>5}  {seeds:>12}  {row.ceiling:7.4f}  {row.tau:6.4f}  "
              f"{_flags(row.flagged, row.precise, row.unreadable)}")
    for item in summary["skipped"]:
        print(f"  skipped {item['decision']}: {item['reason']}")
