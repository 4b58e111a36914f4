"""The `benchscore` command: one sub-command per benchmark.

The commands come from the registry (`benchscore.BENCHMARKS`). Each benchmark owns its command in
`<folder>/cli.py`: ``add_arguments(parser)`` and ``run(args) -> int``, and for `benchscore compare
<bench>`, ``add_compare_arguments(parser)`` and ``run_compare(args)``, and ``systems(args)`` for
`benchscore table <bench>` (`core.table` reports them); this file only dispatches. A
`ValueError`, `TypeError` or `OSError` from a command is printed as one line and the exit status is 2.
"""

import argparse
import contextlib
import gc
import importlib
import sys
from collections.abc import Iterator

from benchscore import BENCHMARKS
from benchscore.core import compare, export, table

# sub-command -> (folder, one-line help), from the registry
COMMANDS = {b.name: (b.folder, f"{b.title}: {b.scores}") for b in BENCHMARKS.values()}
# commands that are not a benchmark: name -> (module with add_arguments and run, one-line help)
TOOLS = {
    "data": ("benchscore.data_cli", "the official benchmark files: fetch (pinned, sha256-checked), list, path, import"),
    "lm-eval-path": ("benchscore.harness.cli", "print the folder of benchscore's tasks for lm_eval --include_path"),
}


def _compare_command(parser, name, module):
    module.add_compare_arguments(parser)
    parser.set_defaults(run=module.run_compare)


def _table_command(parser, name, module):
    module.add_compare_arguments(parser)
    table.add_table_options(parser)
    parser.set_defaults(run=lambda args: table.report(args, BENCHMARKS[name], module.systems(args)))


def _export_command(parser, name, module):
    export.add_arguments(parser)
    parser.set_defaults(run=lambda args: export.run(args, BENCHMARKS[name]))


# commands with one sub-command per benchmark: name -> (one-line help, how the chosen one is built from
# the benchmark's cli module, the check of its options that runs before any file is read)
PER_BENCHMARK = {
    "compare": ("bootstrap intervals of one system, or paired significance of two on the same gold",
                _compare_command, compare.check_arguments),
    "table": ("several systems against one gold file as a paper table: intervals, p-values against a baseline",
              _table_command, table.check_arguments),
    "export": ("a saved result as the Hub's .eval_results YAML, an Every Eval Ever record, a draft eval.yaml",
               _export_command, export.check_arguments),
}


def build_parser(command=None, bench=None):
    """The parser; only the named command's module is imported (a heavy or broken one stays out of the way)."""
    parser = argparse.ArgumentParser(prog="benchscore", description="Official benchmark scores, fast.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    modules = {name: (f"benchscore.{folder}.cli", help_text) for name, (folder, help_text) in COMMANDS.items()}
    for name, (module_name, help_text) in {**modules, **TOOLS}.items():
        command_parser = sub.add_parser(name, help=help_text, description=help_text)
        if name == command:
            module = importlib.import_module(module_name)
            module.add_arguments(command_parser)
            command_parser.set_defaults(run=module.run)
    for tool, (help_text, build, _) in PER_BENCHMARK.items():
        benches = sub.add_parser(tool, help=help_text, description=help_text).add_subparsers(
            dest="bench", metavar="BENCH", required=True)
        for name, (folder, _) in COMMANDS.items():
            bench_parser = benches.add_parser(name, help=f"{name}: {help_text}", description=f"{name}: {help_text}")
            if command == tool and name == bench:
                build(bench_parser, name, importlib.import_module(f"benchscore.{folder}.cli"))
    return parser


@contextlib.contextmanager
def rare_collections() -> Iterator[None]:
    """The cyclic GC's youngest generation collected every 50,000 allocations, not 700, inside the block,
    and the older two after 100 collections of the one below, not 10.

    A command keeps what it parsed (gold files, predictions) to its end: collecting every 700 objects
    rescans them over and over (a third of one command's time, measured) and frees nothing, since parsed
    JSON holds no cycles. One full collection rescans every object the process holds: a command holding
    two JSONL files of 42,000 records each made one, and one of the middle generation, 0.25 s of its
    1.6 s (measured with gc.callbacks); at 100 neither comes in a command of a few million objects. Cycles (a judge client's,
    an exception's) are still collected, just less often. (scripts/bench.py times the parse it compares a
    command with under the same setting.)"""
    thresholds = gc.get_threshold()
    gc.set_threshold(50_000, 100, 100)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(*argv[:2]).parse_args(argv)
    try:
        if args.command in PER_BENCHMARK:
            PER_BENCHMARK[args.command][2](args)
        with rare_collections():
            return args.run(args)
    except OSError as err:  # "FILE: No such file or directory", not Python's "[Errno 2] ..." repr
        where = f"{err.filename}: " if err.filename else ""
        print(f"benchscore {args.command}: error: {where}{err.strerror or err}", file=sys.stderr)
        return 2
    except (ValueError, TypeError) as err:  # one line, not a traceback
        message = str(err).replace("\n", " ")
        print(f"benchscore {args.command}: error: {message}", file=sys.stderr)
        return 2
