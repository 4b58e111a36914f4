"""The `benchscore` command: one sub-command per benchmark.

The commands come from the registry (`benchscore.BENCHMARKS`). Each benchmark owns its command in
`<folder>/cli.py`: ``add_arguments(parser)`` and ``run(args) -> int``, and for `benchscore compare
<bench>`, ``add_compare_arguments(parser)`` and ``run_compare(args)``, and ``systems(args)`` for
`benchscore table <bench>` (`core.table` reports them); this file only dispatches. A
`ValueError`, `TypeError` or `OSError` from a command is printed as one line and the exit status is 2.
"""

import argparse
import importlib
import sys

from benchscore import BENCHMARKS
from benchscore.core import compare, export, table

# sub-command -> (folder, one-line help), from the registry
COMMANDS = {b.name: (b.folder, f"{b.title}: {b.scores}") for b in BENCHMARKS.values()}
# commands that are not a benchmark: name -> (module with add_arguments and run, one-line help)
TOOLS = {
    "data": ("benchscore.data_cli", "the official benchmark files: fetch (pinned, sha256-checked), list, path, import"),
    "lm-eval-path": ("benchscore.harness.cli", "print the folder of benchscore's tasks for lm_eval --include_path"),
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
    compare_help = "bootstrap intervals of one system, or paired significance of two on the same gold"
    compare = sub.add_parser("compare", help=compare_help, description=compare_help)
    benches = compare.add_subparsers(dest="bench", metavar="BENCH", required=True)
    for name, (folder, _) in COMMANDS.items():
        bench_parser = benches.add_parser(name, help=f"{name}: {compare_help}", description=f"{name}: {compare_help}")
        if command == "compare" and name == bench:
            module = importlib.import_module(f"benchscore.{folder}.cli")
            module.add_compare_arguments(bench_parser)
            bench_parser.set_defaults(run=module.run_compare)
    table_help = "several systems against one gold file as a paper table: intervals, p-values against a baseline"
    tables = sub.add_parser("table", help=table_help, description=table_help)
    benches = tables.add_subparsers(dest="bench", metavar="BENCH", required=True)
    for name, (folder, _) in COMMANDS.items():
        bench_parser = benches.add_parser(name, help=f"{name}: {table_help}", description=f"{name}: {table_help}")
        if command == "table" and name == bench:
            module = importlib.import_module(f"benchscore.{folder}.cli")
            module.add_compare_arguments(bench_parser)
            table.add_table_options(bench_parser)
            benchmark = BENCHMARKS[name]
            bench_parser.set_defaults(run=lambda args, module=module, benchmark=benchmark:
                                      table.report(args, benchmark, module.systems(args)))
    export_help = "a saved result as the Hub's .eval_results YAML, an Every Eval Ever record, a draft eval.yaml"
    exports = sub.add_parser("export", help=export_help, description=export_help)
    benches = exports.add_subparsers(dest="bench", metavar="BENCH", required=True)
    for name in COMMANDS:
        bench_parser = benches.add_parser(name, help=f"{name}: {export_help}", description=f"{name}: {export_help}")
        if command == "export" and name == bench:
            export.add_arguments(bench_parser)
            bench_parser.set_defaults(run=lambda args, benchmark=BENCHMARKS[name]: export.run(args, benchmark))
    return parser


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(*argv[:2]).parse_args(argv)
    try:
        if args.command == "compare":
            compare.check_arguments(args)
        elif args.command == "table":
            table.check_arguments(args)
        elif args.command == "export":
            export.check_arguments(args)
        return args.run(args)
    except OSError as err:  # "FILE: No such file or directory", not Python's "[Errno 2] ..." repr
        where = f"{err.filename}: " if err.filename else ""
        print(f"benchscore {args.command}: error: {where}{err.strerror or err}", file=sys.stderr)
        return 2
    except (ValueError, TypeError) as err:  # one line, not a traceback
        message = str(err).replace("\n", " ")
        print(f"benchscore {args.command}: error: {message}", file=sys.stderr)
        return 2
