"""`benchscore tempbench` and `benchscore compare tempbench`, streamed through `files.py` (card: README.md)."""

import argparse
import json

from benchscore import data
from benchscore.core import plots
from benchscore.core.compare import Systems, add_compare_options, report_systems, warn
from benchscore.core.readers import at_line
from benchscore.tempbench_trp import files, scoring


def _common_arguments(parser, *aliases):
    parser.add_argument("--questions", *aliases, dest="questions", required=True,
                        help="benchmark_labelled.jsonl (labels) or benchmark.jsonl (ids)")
    parser.add_argument("--space", choices=("label", "id"), default="label",
                        help="match triples on labels (default) or on Wikidata ids")
    parser.add_argument("--split", help="score only questions with this split (e.g. test)")
    extension = parser.add_argument_group("extensions beyond the reference scorer (named in the signature)")
    extension.add_argument("--top-k", type=int, help="keep the first K retrieved triples per question")
    extension.add_argument("--dedup", action="store_true", help="drop exact repeats of a retrieved triple")
    return extension


def add_arguments(parser: argparse.ArgumentParser) -> None:
    extension = _common_arguments(parser)
    parser.add_argument("--evidence", required=True, help='the run: one {"id", "evidence": [triples]} line per question')
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    plots.add_plot_option(parser)
    extension.add_argument("--functional", metavar="FILE",
                           help="score only the question ids in this functional_negatives.jsonl-style file")
    extension.add_argument("--functional-flag", metavar="FIELD",
                           help="with --functional: keep only lines whose FIELD is true (e.g. S_dist)")


def run(args: argparse.Namespace) -> int:
    if args.functional_flag and not args.functional:
        raise ValueError("--functional-flag needs --functional FILE")
    plots.check_path(args.plot, args.questions, args.evidence)
    functional_ids = files.read_functional_ids(args.functional, args.functional_flag) if args.functional else None
    result = files.score_files(args.questions, args.evidence, space=args.space, split=args.split, top_k=args.top_k,
                               dedup=args.dedup, functional_ids=functional_ids)
    if functional_ids is not None and not result["n_questions"]:  # an error, not n/a numbers
        split, n = f" of split {args.split!r}" if args.split else "", len(set(functional_ids))
        raise at_line(args.functional, 1, f"none of its {n} id{'s' * (n != 1)} is a question{split} in "
                                          f"{args.questions}; expected ids of those questions")
    warn("tempbench", result.get("warnings", ()))
    plots.plot_run(args, result, "tempbench")
    print(json.dumps(result, indent=2) if args.json else format_table(result))
    return 0


def format_table(result):
    """The headline numbers, then one line per slice cell."""
    head = {"questions": result["n_questions"], **{k: result[k] for k in ("coverage", "TRP_macro", "TRP_micro", "CCR")}}
    lines = [result["signature"], "", "  ".join(f"{name} {_number(value)}" for name, value in head.items()),
             "", f"{'slice':<24}{'n':>7}{'TRP':>9}{'CCR':>9}"]
    for key, cells in result.items():
        if key.startswith("by_"):
            lines.append(key[3:])
            lines += [f"  {str(value):<22}{cell['n']:>7}{cell['TRP']:>9.4f}{cell['CCR']:>9.4f}"
                      for value, cell in cells.items()]
    if result.get("n_evidence_unused"):
        lines += ["", f"evidence lines not scored (id not among the selected questions): {result['n_evidence_unused']}"]
    return "\n".join(lines)


def _number(value):
    if value is None:
        return "n/a"
    return str(value) if isinstance(value, int) else f"{value:.4f}"


def add_compare_arguments(parser: argparse.ArgumentParser) -> None:
    _common_arguments(parser, "--gold")
    add_compare_options(parser, 'a run: one {"id", "evidence": [triples]} line per question', "--evidence")


def systems(args: argparse.Namespace) -> Systems:
    """Every run scored against the questions once (`compare` and `table` report them)."""
    from benchscore.tempbench_trp import significance  # with numpy: only the commands that resample load them

    # Resolved once for every system; the signature names a store's Hub revision, as in `run`.
    questions, split = data.resolve_split("tempbench", args.questions, args.split)
    stats = [files.file_stats(questions, path, args.space, split, args.top_k, args.dedup) for path in args.predictions]
    signature = scoring.signature(args.space, args.top_k, args.dedup).plus(data.signature_fields(questions))
    return Systems(stats, significance.confidence_intervals, significance.paired_test, signature,
                   [questions, *args.predictions])


def run_compare(args: argparse.Namespace) -> int:
    return report_systems(args, systems(args))
