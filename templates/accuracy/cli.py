"""`benchscore <this benchmark>` and `benchscore compare <this benchmark>` (usage: the card)."""

import argparse
import json

from benchscore import data
from benchscore.core import compare
from benchscore.core.readers import check_output

from . import files, scoring

GOLD_HELP = 'the gold JSONL file (one {"id", "label"} per line) or official:<split>'
PREDICTIONS_HELP = 'one {"id", "label"} per line, every gold id once'


def add_arguments(parser: argparse.ArgumentParser) -> None:
    compare.add_file_arguments(parser, GOLD_HELP, PREDICTIONS_HELP)


def run(args: argparse.Namespace) -> int:
    check_output(None, args.gold, args.predictions)
    result = files.score_files(args.gold, args.predictions)
    compare.warn(scoring.FOLDER, result.get("warnings", ()))
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"Accuracy: {result['accuracy']} ({result['n_correct']}/{result['n_items']})")
    return 0


def add_compare_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gold", required=True, help=GOLD_HELP)
    compare.add_compare_options(parser, PREDICTIONS_HELP)


def systems(args: argparse.Namespace) -> compare.Systems:
    """Every --predictions file scored against --gold once (`compare` and `table` report them)."""
    from . import significance  # with numpy: only the commands that resample load them

    gold = data.resolve(scoring.FOLDER, args.gold)
    stats = [files.file_stats(gold, path) for path in args.predictions]
    return compare.Systems(stats, significance.confidence_intervals, significance.paired_test, scoring.signature(),
                           [gold, *args.predictions])


def run_compare(args: argparse.Namespace) -> int:
    return compare.report_systems(args, systems(args))
