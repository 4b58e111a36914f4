"""The `benchscore` command: one sub-command per benchmark.

Each metric folder owns its command in `<folder>/cli.py`, which defines
``add_arguments(parser)`` and ``run(args) -> int``; this file only dispatches. A `ValueError` or
`OSError` from a command is printed as one line and the exit status is 2.

`benchscore compare <bench>` (bootstrap intervals of one system, paired tests of two) is owned the
same way by `<folder>/significance.py`: ``add_compare_arguments(parser)`` and ``run_compare(args)``.
"""

import argparse
import importlib
import sys

# sub-command -> (folder, one-line help)
COMMANDS = {
    "mctaco": ("mctaco", "MC-TACO question-level EM and F1 (official evaluator)"),
    "tempbench": ("tempbench_trp", "TempBench TRP, CCR and coverage (reference scorer)"),
    "webnlg": ("webnlg_rdf", "WebNLG+ 2020 text-to-RDF (official evaluation script)"),
    "tsver": ("tsver", "TSVer verdict accuracy, TSCS and Ev2R (official scorer)"),
}


def build_parser(command=None, bench=None):
    """The parser; only the named command's module is imported (a heavy or broken one stays out of the way)."""
    parser = argparse.ArgumentParser(prog="benchscore", description="Official benchmark scores, fast.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (folder, help_text) in COMMANDS.items():
        command_parser = sub.add_parser(name, help=help_text, description=help_text)
        if name == command:
            module = importlib.import_module(f"benchscore.{folder}.cli")
            module.add_arguments(command_parser)
            command_parser.set_defaults(run=module.run)
    compare_help = "bootstrap intervals of one system, or paired significance of two on the same gold"
    compare = sub.add_parser("compare", help=compare_help, description=compare_help)
    benches = compare.add_subparsers(dest="bench", metavar="BENCH", required=True)
    for name, (folder, _) in COMMANDS.items():
        bench_parser = benches.add_parser(name, help=f"{name}: {compare_help}", description=f"{name}: {compare_help}")
        if command == "compare" and name == bench:
            module = importlib.import_module(f"benchscore.{folder}.significance")
            module.add_compare_arguments(bench_parser)
            bench_parser.set_defaults(run=module.run_compare)
    # `benchscore data ...`: the official files (benchscore.data); not a metric folder.
    data_help = "the official benchmark files: fetch (pinned, sha256-checked), list, path, import"
    data_parser = sub.add_parser("data", help=data_help, description=data_help)
    if command == "data":
        from benchscore import data_cli

        data_cli.add_arguments(data_parser)
        data_parser.set_defaults(run=data_cli.run)
    return parser


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(*argv[:2]).parse_args(argv)
    try:
        return args.run(args)
    except (ValueError, OSError) as err:
        # Input problems are reported as one clear line, not a traceback.
        print(f"benchscore {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
