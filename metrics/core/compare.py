"""What the benchmarks' commands share: `benchscore compare <bench>`'s options and report, and warnings."""

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from benchscore.core.records import extended
from benchscore.core.resampling_options import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    check_options,
    signature_fields,
)


@dataclass
class Systems:
    """Systems scored against one gold file: what `compare` and `table` report.

    `stats`: each system's per-item statistics (computed once); `intervals(stats, n_resamples, seed,
    level)` and `paired(stats_a, stats_b, ...)` the benchmark's; `signature` its scorer's; `inputs` the
    resolved paths of every input file (gold first), for the attestation; `extra` (name, value, lines):
    a benchmark's own part of compare's report; `names`: how a system is called by default (a file's stem).
    """

    stats: list
    intervals: Callable
    paired: Callable
    signature: str
    inputs: list = field(default_factory=list)
    extra: tuple | None = None
    labels: list | None = None  # what the report calls each system (default: its --predictions path)


def warn(command, warnings):
    """Prints each warning to stderr as `benchscore <command>: warning: <text>`."""
    for warning in warnings:
        print(f"benchscore {command}: warning: {warning}", file=sys.stderr)


def _number(x, digits):
    return "n/a" if x is None else f"{x:.{digits}f}"


def format_intervals(results, level=DEFAULT_LEVEL, digits=4):
    """A plain-text table of `intervals` results: metric, estimate, interval."""
    rows = [(name, _number(r["estimate"], digits), f"[{_number(r['low'], digits)}, {_number(r['high'], digits)}]")
            for name, r in results.items()]
    return _table(("metric", "estimate", f"{level:.0%} interval"), rows)


def format_paired(results, level=DEFAULT_LEVEL, digits=4):
    """A plain-text table of `paired` results: A, B, B - A, its interval and both p-values."""
    rows = [
        (name, _number(r["a"], digits), _number(r["b"], digits),
         "n/a" if r["difference"] is None else f"{r['difference']:+.{digits}f}",
         f"[{_number(r['low'], digits)}, {_number(r['high'], digits)}]",
         _number(r["p_bootstrap"], digits), _number(r["p_randomization"], digits))
        for name, r in results.items()
    ]
    return _table(("metric", "A", "B", "B - A", f"{level:.0%} interval", "p (bootstrap)", "p (randomization)"), rows)


def _table(header, rows):
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip() for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def add_file_arguments(parser, gold_help, predictions_help, json_help="print the result as JSON"):
    """`--gold`, `--predictions` and `--json`: the options of a benchmark command that scores two files."""
    parser.add_argument("--gold", required=True, help=gold_help)
    parser.add_argument("--predictions", required=True, help=predictions_help)
    parser.add_argument("--json", action="store_true", help=json_help)


def add_compare_options(parser, predictions_help, *aliases):
    """The options every benchmark's compare command shares (the gold options are the benchmark's).

    `aliases`: other names for --predictions, e.g. the benchmark's own name for a system's output.
    """
    parser.add_argument("--predictions", *aliases, dest="predictions", action="append", required=True, metavar="FILE",
                        help=f"{predictions_help}; give it once for intervals, twice (A, then B) to compare")
    parser.add_argument("--n-resamples", type=int, default=DEFAULT_RESAMPLES,
                        help=f"bootstrap resamples and randomization rounds (default {DEFAULT_RESAMPLES})")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"random seed (default {DEFAULT_SEED})")
    parser.add_argument("--confidence", type=float, default=DEFAULT_LEVEL,
                        help=f"confidence level of the intervals (default {DEFAULT_LEVEL})")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def check_arguments(args):
    """The shared options checked before any file is read (a bad option costs nothing and prints one line)."""
    check_options(args.n_resamples, args.seed, args.confidence)
    if len(args.predictions) not in (1, 2):
        raise ValueError(f"--predictions was given {len(args.predictions)} times; expected once (intervals) "
                         "or twice (A, B)")


def report_systems(args, systems: Systems) -> int:
    """`report_comparison` of a benchmark's `Systems` (a `benchscore compare <bench>` command's last step)."""
    if systems.labels:
        args.predictions = systems.labels
    return report_comparison(args, systems.stats, systems.intervals, systems.paired, systems.signature, systems.extra)


def report_comparison(args, stats, confidence_intervals, paired_test, signature, extra=None):
    """Prints the intervals of one system or the paired comparison of two; returns the exit status.

    `stats`: per-item statistics of each --predictions file; `confidence_intervals(stats, ...)`
    and `paired_test(stats_a, stats_b, ...)` are the benchmark's; `signature` its scorer's; `extra`,
    (name, value, text lines): a benchmark's own part of the report, under `name` in the JSON.
    """
    options = (args.n_resamples, args.seed, args.confidence)  # checked by check_arguments and resampling
    signature = extended(signature, signature_fields(*options))
    if len(stats) == 1:
        results = confidence_intervals(stats[0], *options)
        lines = [f"system: {args.predictions[0]}", "", format_intervals(results, args.confidence)]
    else:  # two, as check_arguments made sure
        results = paired_test(stats[0], stats[1], *options)
        lines = [f"A: {args.predictions[0]}", f"B: {args.predictions[1]}", "", format_paired(results, args.confidence)]
    name, value, extra_lines = extra or (None, None, [])
    if args.json:
        print(json.dumps({"predictions": args.predictions, "results": results, **({name: value} if name else {}),
                          "signature": signature}, indent=2))
    else:
        print("\n".join([*lines, *(["", *extra_lines] if extra_lines else []), "", f"signature: {signature}"]))
    return 0
