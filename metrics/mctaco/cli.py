"""`benchscore mctaco` (the official evaluator's command) and `benchscore compare mctaco` (usage: the card)."""

import argparse
import json

from benchscore import data
from benchscore.core import compare, plots
from benchscore.core.readers import check_output
from benchscore.mctaco import files, scoring

GOLD_HELP = "the MC-TACO TSV (dev_3783.tsv or test_9442.tsv)"
PREDICTIONS_HELP = "one yes/no label per line, aligned with --gold"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    compare.add_file_arguments(parser, GOLD_HELP, PREDICTIONS_HELP, "print a JSON object with the per-category breakdown")
    plots.add_plot_option(parser)
    parser.add_argument("-o", "--output", help='also write {"em": ..., "f1": ...} to this file, like the official tool')


def run(args: argparse.Namespace) -> int:
    check_output(args.output, args.gold, args.predictions)
    plots.check_path(args.plot, args.gold, args.predictions, output=args.output)
    result = files.score_files(args.gold, args.predictions)
    plots.plot_run(args, result, "mctaco")
    compare.warn("mctaco", result.get("warnings", ()))
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"Strict Acc.: {result['em']}")
        print(f"Avg F1: {result['f1']}")
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            json.dump({"em": result["em"], "f1": result["f1"]}, f)
    return 0


def add_compare_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gold", required=True, help=GOLD_HELP)
    compare.add_compare_options(parser, PREDICTIONS_HELP)


def systems(args: argparse.Namespace) -> compare.Systems:
    """Every --predictions file scored against --gold once (`compare` and `table` report them)."""
    from benchscore.mctaco import significance  # with numpy: only the commands that resample load them

    gold = data.resolve("mctaco", args.gold)
    warnings: list = []
    stats = [files.file_stats(gold, path, warnings) for path in args.predictions]
    compare.warn(args.command, warnings)
    return compare.Systems(stats, significance.confidence_intervals, significance.paired_test,
                           scoring.signature(files.KEY_SOURCE), [gold, *args.predictions])


def run_compare(args: argparse.Namespace) -> int:
    return compare.report_systems(args, systems(args))
