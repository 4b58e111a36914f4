"""`benchscore tsver`: the official scorer's table, with validated input.

    benchscore tsver --gold tsver_test.jsonl --predictions preds.jsonl                 # official table
    benchscore tsver --gold tsver_test.jsonl --predictions preds.jsonl --ev2r ev2r.jsonl
    benchscore tsver --gold ... --predictions ... --judge-url http://host/v1 --judge-model m --judge-cache .cache
    benchscore tsver --gold ... --predictions ... --strict --json
"""

import json
import os
import sys
import warnings

from . import judges
from .scoring import EV2R_AGGREGATIONS
from .scoring import LABELS
from .scoring import SHORT_LABELS
from .scoring import aggregate
from .scoring import ev2r_items
from .scoring import ev2r_per_claim
from .scoring import official_report
from .scoring import read_gold
from .scoring import read_predictions
from .scoring import score_claims
from .scoring import signature
from .scoring import with_file_ev2r

RULE = "=" * 80
METRIC_WIDTH = 27  # the official table's first column (sized for its "Justifications METEOR Score" row)


def add_arguments(parser):
    parser.add_argument("--gold", required=True, help="tsver_test.jsonl or tsver_dev.jsonl")
    parser.add_argument("--predictions", required=True, help="prediction JSONL in the official format")
    judge = parser.add_mutually_exclusive_group()
    judge.add_argument("--ev2r", metavar="JSONL", help='recorded Ev2R judge outputs ({"Claim", "ev2r_response"} JSONL)')
    judge.add_argument("--judge-url", help="base URL of an OpenAI-compatible API (…/v1) to run the Ev2R judge")
    parser.add_argument("--judge-model", help="model name for --judge-url")
    parser.add_argument("--judge-api-key-env", default="OPENAI_API_KEY",
                        help="environment variable holding the API key (default OPENAI_API_KEY; never printed)")
    parser.add_argument("--judge-cache", metavar="DIR",
                        help=f"cache judge replies here (default {judges.DEFAULT_CACHE_DIR}): a rerun makes no request")
    parser.add_argument("--no-judge-cache", action="store_true", help="do not read or write the judge cache")
    parser.add_argument("--ev2r-aggregation", choices=EV2R_AGGREGATIONS, default="tsver",
                        help="tsver: official micro sums (default); paper: Ev2R paper / FEVER-8 per-claim mean")
    parser.add_argument("--strict", action="store_true",
                        help="missing/unmatched verdicts count wrong, missing predictions score 0 in TSCS")
    parser.add_argument("--json", action="store_true", help="print the result as JSON (fractions, not x100)")
    parser.add_argument("--per-claim", metavar="JSON",
                        help="also write per-claim values and full-precision aggregates here, in the layout of "
                             "the official run's JSON (expected/perclaim_*.json)")


def _judge(args):
    if args.ev2r:
        return args.ev2r  # a path: evaluate_files also needs the file itself (see with_file_ev2r)
    if args.judge_url:
        if not args.judge_model:
            raise ValueError("--judge-url needs --judge-model")
        cache = None if args.no_judge_cache else (args.judge_cache or judges.DEFAULT_CACHE_DIR)
        return judges.OpenAIJudge(args.judge_url, args.judge_model, api_key_env=args.judge_api_key_env,
                                  cache_dir=cache, progress=sys.stderr.isatty())
    if args.judge_model or args.judge_cache or args.no_judge_cache:
        raise ValueError("--judge-model, --judge-cache and --no-judge-cache need --judge-url")
    return None


def evaluate_files(gold_path, predictions_path, judge=None, strict=False, ev2r_aggregation="tsver", per_claim=None):
    """The result dict (with signature) of a prediction file against a gold file, as the CLI prints it;
    `judge` is None, a judge, or the path of recorded judge outputs (their Ev²R sums the whole file,
    as the official scorer); with `per_claim` (a path) also writes `scoring.official_report` there as JSON."""
    gold = read_gold(gold_path)
    predictions = read_predictions(predictions_path, [g["Claim"] for g in gold])
    ev2r, judge_file = None, judge if isinstance(judge, (str, os.PathLike)) else None
    if judge is not None:
        judge = judges.as_judge(judge)
        items = ev2r_items(gold, predictions)
        outcomes = judges.run_judge(judge, [item for _, item in items])
        ev2r = ev2r_per_claim(len(gold), [i for i, _ in items], outcomes)
    stats = score_claims(gold, predictions, ev2r)
    result = aggregate(stats, strict=strict, ev2r_aggregation=ev2r_aggregation)
    if judge_file is not None and ev2r_aggregation == "tsver":
        result = with_file_ev2r(result, [response for _, _, response in judges.iter_recorded(judge_file)])
    judge_name = "none" if judge is None else getattr(judge, "signature", "callable")
    result["signature"] = signature(strict, ev2r_aggregation, judge_name)
    if per_claim:
        report = {"gold": str(gold_path), "predictions": str(predictions_path), "signature": result["signature"],
                  **official_report(gold, stats, strict)}
        with open(per_claim, "w", encoding="utf-8") as f:
            json.dump(report, f, ensure_ascii=False, indent=1)
    return result


def _percent(x):
    return "n/a" if x is None else f"{100 * x:.2f}"


def confusion_lines(matrix):
    """The official layout (a pandas frame's to_string, indented 3): rows gold, columns predicted."""
    widths = [max(len(SHORT_LABELS[j]), *(len(str(row[j])) for row in matrix)) for j in range(len(LABELS))]
    lines = ["   " + " " + "".join("  " + label.rjust(w) for label, w in zip(SHORT_LABELS, widths))]
    for label, row in zip(SHORT_LABELS, matrix):
        lines.append("   " + label + "".join("  " + str(v).rjust(w) for v, w in zip(row, widths)))
    return lines


def table_lines(result):
    """The official report; lines marked (+) in the README are ours (counts, signature)."""
    n_processed = result["n_claims"] - result["n_missing"]
    coverage = 100 * n_processed / result["n_claims"] if result["n_claims"] else 0.0
    rows = [("TSCS", result["tscs"]), ("Verdict F1", result["verdict_macro_f1"]),
            ("Verdict Accuracy", result["verdict_accuracy"])]
    if "ev2r_f1" in result:
        rows.append(("Justifications Ev2R Score", result["ev2r_f1"]))
    lines = [RULE, " " * 25 + "📊 TSVer EVALUATION RESULTS 📊", RULE, "", "📋 Data Summary:",
             f"   • Claims processed: {n_processed} out of {result['n_claims']}",
             f"   • Coverage: {coverage:.1f}%",
             f"   • Verdicts scored: {result['n_scored']} ({result['n_correct']} correct); "
             f"in TSCS: {result['n_in_tscs']}",
             f"   • Signature: {result['signature']}"]
    if "n_ev2r_judged" in result:
        lines.append(f"   • Ev2R: {result['n_ev2r_judged']} claims judged, {result['n_ev2r_failed']} judge failures; "
                     f"P {_percent(result['ev2r_precision'])}, R {_percent(result['ev2r_recall'])}")
    lines += ["", "", "🎯 Performance Metrics:",
              f"| {'Metric'.ljust(METRIC_WIDTH)} |   Score (%) |",
              f"|:{'-' * METRIC_WIDTH}-|------------:|"]
    lines += [f"| {name.ljust(METRIC_WIDTH)} | {_percent(value).rjust(11)} |" for name, value in rows]
    lines += ["", "", "🔍 Confusion Matrix:", *confusion_lines(result["confusion_matrix"]), "", "",
              "⚠️  Error Analysis:"]
    problems = [(result["n_errors"], "error prediction(s) (verdict \"error\": counted wrong)"),
                (result["n_unmatched"], "verdict(s) matching no label (left out of verdict scores)"
                 if "strict:no" in result["signature"] else "verdict(s) matching no label (counted wrong)"),
                (result["n_missing"], "claim(s) without a prediction line")]
    problems = [(n, what) for n, what in problems if n]
    lines += [f"   • {n} {what}" for n, what in problems] or ["   • No errors found! ✅"]
    lines += ["", RULE]
    return lines


def run(args):
    from benchscore import data  # `official:<split>` -> the store's verified file (benchscore.data)
    args.gold = data.resolve("tsver", args.gold)
    judge = _judge(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = evaluate_files(args.gold, args.predictions, judge, args.strict, args.ev2r_aggregation,
                                args.per_claim)
    for w in caught:
        print(f"benchscore tsver: warning: {w.message}", file=sys.stderr)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print("\n".join(table_lines(result)))
    return 0
