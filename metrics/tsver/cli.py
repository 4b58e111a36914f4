"""`benchscore tsver` (the official scorer's table, with validated input) and `benchscore compare tsver`."""

import functools
import json
import sys
import warnings

from benchscore.core.compare import add_compare_options, report_comparison, warn
from benchscore.tsver import files, judges, significance
from benchscore.tsver.scoring import EV2R_AGGREGATIONS, LABELS, SHORT_LABELS, signature

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
    parser.add_argument("--judge-timeout", type=float, metavar="SECONDS",
                        help="total deadline of one judge request, whatever the server does (default 60)")
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
        return args.ev2r  # a path: score_files also needs the file itself (see scoring.file_ev2r)
    if args.judge_url:
        return _http_judge(args)
    if args.judge_model or args.judge_cache or args.no_judge_cache or args.judge_timeout is not None:
        raise ValueError("--judge-model, --judge-cache, --no-judge-cache and --judge-timeout need --judge-url")
    return None


def _http_judge(args):
    if not args.judge_model:
        raise ValueError("--judge-url needs --judge-model")
    cache = None if args.no_judge_cache else (args.judge_cache or judges.DEFAULT_CACHE_DIR)
    timeout = 60.0 if args.judge_timeout is None else args.judge_timeout
    return judges.OpenAIJudge(args.judge_url, args.judge_model, api_key_env=args.judge_api_key_env, cache_dir=cache,
                              progress=sys.stderr.isatty(), timeout=timeout)


def percent(x):
    """A fraction as the official table prints it (x100, two decimals); "n/a" for None."""
    return "n/a" if x is None else f"{100 * x:.2f}"


def confusion_lines(matrix):
    """The official layout (a pandas frame's to_string, indented 3): rows gold, columns predicted."""
    widths = [max(len(SHORT_LABELS[j]), *(len(str(row[j])) for row in matrix)) for j in range(len(LABELS))]
    lines = ["   " + " " + "".join("  " + label.rjust(w) for label, w in zip(SHORT_LABELS, widths))]
    return lines + ["   " + label + "".join("  " + str(v).rjust(w) for v, w in zip(row, widths))
                    for label, row in zip(SHORT_LABELS, matrix)]


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
                     f"P {percent(result['ev2r_precision'])}, R {percent(result['ev2r_recall'])}")
    lines += ["", "", "🎯 Performance Metrics:",
              f"| {'Metric'.ljust(METRIC_WIDTH)} |   Score (%) |",
              f"|:{'-' * METRIC_WIDTH}-|------------:|"]
    lines += [f"| {name.ljust(METRIC_WIDTH)} | {percent(value).rjust(11)} |" for name, value in rows]
    lines += ["", "", "🔍 Confusion Matrix:", *confusion_lines(result["confusion_matrix"]), "", "",
              "⚠️  Error Analysis:"]
    problems = [(result["n_errors"], "error prediction(s) (verdict \"error\": counted wrong)"),
                (result["n_unmatched"], "verdict(s) matching no label (left out of verdict scores)"
                 if "strict:no" in result["signature"] else "verdict(s) matching no label (counted wrong)"),
                (result["n_missing"], "claim(s) without a prediction line")]
    lines += [f"   • {n} {what}" for n, what in problems if n] or ["   • No errors found! ✅"]
    lines += ["", RULE]
    return lines


def run(args):
    """Prints the official table (or JSON); warnings go to stderr."""
    result = files.score_files(args.gold, args.predictions, _judge(args), args.strict, args.ev2r_aggregation,
                               args.per_claim)
    warn("tsver", result["warnings"])
    print(json.dumps(result, indent=2) if args.json else "\n".join(table_lines(result)))
    return 0


def add_compare_arguments(parser):
    parser.add_argument("--gold", required=True, help="tsver_test.jsonl or tsver_dev.jsonl")
    add_compare_options(parser, "prediction JSONL in the official format")
    parser.add_argument("--ev2r", action="append", metavar="JSONL",
                        help="recorded Ev2R judge outputs, one per --predictions, in the same order")
    parser.add_argument("--ev2r-aggregation", choices=EV2R_AGGREGATIONS, default="tsver",
                        help="tsver: official micro sums (default); paper: per-claim mean")
    parser.add_argument("--strict", action="store_true",
                        help="missing/unmatched verdicts count wrong, missing predictions score 0 in TSCS")


def run_compare(args):
    ev2r = args.ev2r or [None] * len(args.predictions)
    if len(ev2r) != len(args.predictions):
        raise ValueError(f"--ev2r was given {len(ev2r)} times and --predictions {len(args.predictions)} times; "
                         "give one recorded judge file per prediction file, in the same order")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scored = [files.file_stats(args.gold, path, ev2r_path) for path, ev2r_path in zip(args.predictions, ev2r)]
    warn("compare tsver", [w.message for w in caught])
    judge = "+".join(dict.fromkeys(name for _, name in scored))  # one judge name, or each system's
    options = {"strict": args.strict, "ev2r_aggregation": args.ev2r_aggregation}
    return report_comparison(args, [stats for stats, _ in scored],
                             functools.partial(significance.confidence_intervals, **options),
                             functools.partial(significance.paired_test, **options),
                             signature(args.strict, args.ev2r_aggregation, judge))
