"""`benchscore mctaco` (the official evaluator's command) and `benchscore compare mctaco` (usage: the card)."""

import argparse
import json

from benchscore.core import compare
from benchscore.core.readers import check_output
from benchscore.mctaco import files, scoring, significance

GOLD_HELP = "the MC-TACO TSV (dev_3783.tsv or test_9442.tsv)"
PREDICTIONS_HELP = "one yes/no label per line, aligned with --gold"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    compare.add_file_arguments(parser, GOLD_HELP, PREDICTIONS_HELP, "print a JSON object with the per-category breakdown")
    parser.add_argument("-o", "--output", help='also write {"em": ..., "f1": ...} to this file, like the official tool')


def run(args: argparse.Namespace) -> int:
    check_output(args.output, args.gold, args.predictions)
    result = files.score_files(args.gold, args.predictions)
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


def run_compare(args: argparse.Namespace) -> int:
    warnings: list = []
    stats = [files.file_stats(args.gold, path, warnings) for path in args.predictions]
    compare.warn("compare", warnings)
    return compare.report_comparison(args, stats, significance.confidence_intervals, significance.paired_test,
                                     scoring.signature(files.KEY_SOURCE))
