"""`benchscore tempbench`: TRP, CCR and coverage of a run file, with the slices, streamed from disk.

    benchscore tempbench --questions benchmark_labelled.jsonl --evidence run.jsonl --split test
    benchscore tempbench --questions benchmark.jsonl --evidence run_ids.jsonl --space id --json
    benchscore tempbench ... --top-k 5 --dedup --functional functional_negatives.jsonl   # extensions

The run file has one `{"id": ..., "evidence": [...]}` line per question.
"""

import json

from .scoring import read_functional_ids
from .scoring import score_jsonl


def add_arguments(parser):
    parser.add_argument("--questions", required=True, help="benchmark_labelled.jsonl (labels) or benchmark.jsonl (ids)")
    parser.add_argument("--evidence", required=True, help='the run: one {"id", "evidence": [triples]} line per question')
    parser.add_argument("--space", choices=("label", "id"), default="label",
                        help="match triples on labels (default) or on Wikidata ids")
    parser.add_argument("--split", help="score only questions with this split (e.g. test)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    extension = parser.add_argument_group("extensions beyond the reference scorer (named in the signature)")
    extension.add_argument("--top-k", type=int, help="keep the first K retrieved triples per question")
    extension.add_argument("--dedup", action="store_true", help="drop exact repeats of a retrieved triple")
    extension.add_argument("--functional", metavar="FILE",
                           help="score only the question ids in this functional_negatives.jsonl-style file")
    extension.add_argument("--functional-flag", metavar="FIELD",
                           help="with --functional: keep only lines whose FIELD is true (e.g. S_dist)")


def run(args):
    from benchscore import data  # `official:<split>` -> the store's verified file (benchscore.data)
    args.questions, args.split = data.resolve_split("tempbench", args.questions, args.split)
    args.functional = data.resolve("tempbench", args.functional)
    functional_ids = None
    if args.functional:
        functional_ids = read_functional_ids(args.functional, args.functional_flag)
    elif args.functional_flag:
        raise ValueError("--functional-flag needs --functional FILE")
    try:
        result = score_jsonl(args.questions, args.evidence, space=args.space, split=args.split, top_k=args.top_k,
                             dedup=args.dedup, functional_ids=functional_ids)
    except TypeError as err:  # a wrongly typed value in a file is an input error, reported in one line
        raise ValueError(str(err)) from None
    result["signature"] += data.signature_part(args.questions)  # the Hub revision scored, if from the store
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(format_table(result))
    return 0


def format_table(result):
    """The headline numbers, then one line per slice cell."""
    lines = [result["signature"], ""]
    head = [("questions", result["n_questions"]), ("coverage", result["coverage"]),
            ("TRP_macro", result["TRP_macro"]), ("TRP_micro", result["TRP_micro"]), ("CCR", result["CCR"])]
    lines.append("  ".join(f"{name} {_number(value)}" for name, value in head))
    lines += ["", f"{'slice':<24}{'n':>7}{'TRP':>9}{'CCR':>9}"]
    for key, cells in result.items():
        if not key.startswith("by_"):
            continue
        lines.append(key[3:])
        for value, cell in cells.items():
            lines.append(f"  {str(value):<22}{cell['n']:>7}{cell['TRP']:>9.4f}{cell['CCR']:>9.4f}")
    if result.get("n_evidence_unused"):
        lines += ["", f"evidence lines not scored (id not among the selected questions): {result['n_evidence_unused']}"]
    return "\n".join(lines)


def _number(value):
    if value is None:
        return "n/a"
    return str(value) if isinstance(value, int) else f"{value:.4f}"
