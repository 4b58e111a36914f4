"""`benchscore tsver` (the official scorer's table, with validated input) and `benchscore compare tsver`."""

import argparse
import functools
import json
import sys
import warnings

from benchscore import data
from benchscore.core.compare import Systems, add_compare_options, report_systems, warn
from benchscore.tsver import ev2r, files, http_judge
from benchscore.tsver.scoring import EV2R_AGGREGATIONS, LABELS, SHORT_LABELS, percent, signature

RULE = "=" * 80
METRIC_WIDTH = 27  # the official table's first column (sized for its "Justifications METEOR Score" row)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gold", required=True, help="tsver_test.jsonl or tsver_dev.jsonl")
    parser.add_argument("--predictions", required=True, help="prediction JSONL in the official format")
    judge = parser.add_mutually_exclusive_group()
    judge.add_argument("--ev2r", metavar="JSONL", help='recorded Ev2R judge outputs ({"Claim", "ev2r_response"} JSONL)')
    judge.add_argument("--judge-url", nargs="?", const=ev2r.OPENROUTER_URL, metavar="URL",
                       help="run the Ev2R judge on an OpenAI-compatible API (…/v1); alone: OpenRouter's, as the "
                            f"official pipeline ({ev2r.OPENROUTER_URL})")
    add_judge_arguments(parser)
    parser.add_argument("--ev2r-aggregation", choices=EV2R_AGGREGATIONS, default="tsver",
                        help="tsver: official micro sums (default); paper: Ev2R paper / FEVER-8 per-claim mean")
    parser.add_argument("--strict", action="store_true",
                        help="missing/unmatched verdicts count wrong, missing predictions score 0 in TSCS")
    parser.add_argument("--json", action="store_true", help="print the result as JSON (fractions, not x100)")
    parser.add_argument("--per-claim", metavar="JSON",
                        help="also write per-claim values and full-precision aggregates here, in the layout of "
                             "the official run's JSON (expected/perclaim_*.json)")


def _budget(text):
    """`--judge-budget`: a number of tokens, or dollars written `$2.50` / `2.50usd`."""
    value = text.strip().lower()
    dollars = value.startswith("$") or value.endswith("usd")
    number = value.strip("$").removesuffix("usd").strip()
    try:
        limit = float(number) if dollars else int(number.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a budget; expected a number of tokens (200000) or of "
                                         "dollars ($2.50 or 2.50usd)") from None
    if not 0 <= limit < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: expected a budget >= 0")
    return limit, dollars


def _price(text):
    try:
        prices = tuple(float(part) for part in text.split(","))
    except ValueError:
        prices = ()
    if len(prices) != 2 or not all(0 <= p < float("inf") for p in prices):
        raise argparse.ArgumentTypeError(f"{text!r}: expected two prices >= 0, dollars per million prompt and "
                                         "completion tokens, e.g. 0.30,2.50")
    return prices


def _checked(kind, accept, expected):
    """An argparse type: `kind(text)` when `accept` takes it, else the one line saying what was expected."""
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not accept(value):  # NaN fails every comparison, so it is refused too
            raise argparse.ArgumentTypeError(f"{text!r}: expected {expected}")
        return value
    return parse


_temperature = _checked(float, lambda v: 0 <= v <= 2, "a temperature from 0 to 2")
_seconds = _checked(float, lambda v: 0 < v < float("inf"), "a number of seconds > 0")
_positive_int = _checked(int, lambda v: v >= 1, "a whole number >= 1")
_count = _checked(int, lambda v: v >= 0, "a whole number >= 0")


JUDGE_OPTIONS = ("judge_model", "judge_api_key_env", "judge_cache", "no_judge_cache", "judge_timeout",
                 "judge_prompt", "judge_temperature", "judge_seed", "judge_reasoning", "judge_structured",
                 "judge_concurrency", "judge_max_retries", "judge_samples", "judge_budget", "judge_price",
                 "write_ev2r", "dry_run")


def add_judge_arguments(parser):
    group = parser.add_argument_group("Ev2R judge (with --judge-url; the defaults are the official pipeline's)")
    group.add_argument("--judge-model", help=f"model name (default {ev2r.OFFICIAL_MODEL}, the official judge)")
    group.add_argument("--judge-api-key-env", metavar="NAME",
                       help="environment variable holding the API key, never printed (default OPENROUTER_API_KEY "
                            "for OpenRouter, else OPENAI_API_KEY); 'none' for a server that needs no key")
    group.add_argument("--judge-cache", metavar="DIR",
                       help=f"cache judge replies here (default {http_judge.DEFAULT_CACHE_DIR}): a rerun makes no request")
    group.add_argument("--no-judge-cache", action="store_true", help="do not read or write the judge cache")
    group.add_argument("--judge-timeout", type=_seconds, metavar="SECONDS",
                       help="total deadline of one judge request, whatever the server does (default 60)")
    group.add_argument("--judge-prompt", choices=ev2r.PROMPTS,
                       help="tsver: the official TEMPLATE_EV2R and reply reading (default); benchscore: our one-shot "
                            "prompt, read leniently")
    group.add_argument("--judge-temperature", type=_temperature, metavar="T", help="send this temperature (official: none)")
    group.add_argument("--judge-seed", type=int, metavar="N", help="send this seed (official: none)")
    group.add_argument("--judge-reasoning", choices=ev2r.REASONING_EFFORTS,
                       help="the reasoning field's effort (official: medium); none leaves the field out")
    group.add_argument("--judge-structured", action="store_true",
                       help="ask for the record as structured output (response_format json_schema; official: no)")
    group.add_argument("--judge-concurrency", type=_positive_int, metavar="N",
                       help="requests in flight at once (default 8; the official pipeline sends one at a time)")
    group.add_argument("--judge-max-retries", type=_count, metavar="N",
                       help="retries of a claim after its first attempt (default 2: three attempts, as official)")
    group.add_argument("--judge-samples", type=_positive_int, metavar="K",
                       help="judge each claim K times and report Ev2R's spread across them (default 1)")
    group.add_argument("--judge-budget", type=_budget, metavar="LIMIT",
                       help="stop sending before this is spent: tokens (200000) or dollars ($2.50, needs --judge-price)")
    group.add_argument("--judge-price", type=_price, metavar="IN,OUT",
                       help="dollars per million prompt and completion tokens, for a budget in dollars")
    group.add_argument("--write-ev2r", metavar="JSONL",
                       help='write the judge records in the official format ({"Claim", "ev2r_response"}); a rerun '
                            "with the same file sends only the claims not in it")
    group.add_argument("--dry-run", action="store_true",
                       help="say how many claims would be sent and how large the prompts are; send nothing")


def _judge(args):
    if args.judge_url:
        return _http_judge(args)
    given = [name for name in JUDGE_OPTIONS if getattr(args, name) not in (None, False)]
    if given:
        shown = ", ".join("--" + name.replace("_", "-") for name in given)
        raise ValueError(f"{shown}: judge options need --judge-url (the judge to run)"
                         + ("; --ev2r reads recorded judge outputs, it runs no judge" if args.ev2r else ""))
    return args.ev2r  # a path (score_files also needs the file itself, see scoring.file_ev2r), or None


def _judge_budget(args):
    """--judge-budget (tokens, or dollars with --judge-price) as a http_judge.Budget, or None."""
    dollars = args.judge_budget is not None and args.judge_budget[1]
    if args.judge_price is not None and not dollars:
        raise ValueError("--judge-price prices a budget in dollars; give --judge-budget as $N too")
    if args.judge_budget is None:
        return None
    if dollars and args.judge_price is None:
        raise ValueError("--judge-budget in dollars needs --judge-price IN,OUT (dollars per million prompt and "
                         "completion tokens)")
    return http_judge.Budget(args.judge_budget[0], args.judge_price if dollars else None)


def _key_env(args):
    """The API key's variable: as given ('none': no key), else OpenRouter's where the official pipeline's
    provider is the server, else OPENAI_API_KEY."""
    key_env = args.judge_api_key_env or ("OPENROUTER_API_KEY" if "openrouter.ai" in args.judge_url else
                                         "OPENAI_API_KEY")
    return None if key_env.lower() == "none" else key_env


def _http_judge(args):
    cache = None if args.no_judge_cache else (args.judge_cache or http_judge.DEFAULT_CACHE_DIR)
    settings = {name: value for name, value in (
        ("max_retries", args.judge_max_retries), ("concurrency", args.judge_concurrency),
        ("samples", args.judge_samples), ("timeout", args.judge_timeout)) if value is not None}
    protocol = ev2r.Protocol(prompt=args.judge_prompt or "tsver", temperature=args.judge_temperature,
                             seed=args.judge_seed, reasoning=args.judge_reasoning or "medium",
                             structured=args.judge_structured)
    return http_judge.OpenAIJudge(args.judge_url, args.judge_model or ev2r.OFFICIAL_MODEL, api_key_env=_key_env(args),
                                  cache_dir=cache, protocol=protocol, budget=_judge_budget(args),
                                  progress=sys.stderr.isatty(), **settings)


def confusion_lines(matrix):
    """The official layout (a pandas frame's to_string, indented 3): rows gold, columns predicted."""
    widths = [max(len(SHORT_LABELS[j]), *(len(str(row[j])) for row in matrix)) for j in range(len(LABELS))]
    lines = ["   " + " " + "".join("  " + label.rjust(w) for label, w in zip(SHORT_LABELS, widths))]
    return lines + ["   " + label + "".join("  " + str(v).rjust(w) for v, w in zip(row, widths))
                    for label, row in zip(SHORT_LABELS, matrix)]


def table_lines(result, strict=False):
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
    lines += ev2r_lines(result)
    lines += ["", "", "🎯 Performance Metrics:",
              f"| {'Metric'.ljust(METRIC_WIDTH)} |   Score (%) |",
              f"|:{'-' * METRIC_WIDTH}-|------------:|"]
    lines += [f"| {name.ljust(METRIC_WIDTH)} | {percent(value).rjust(11)} |" for name, value in rows]
    lines += ["", "", "🔍 Confusion Matrix:", *confusion_lines(result["confusion_matrix"]), "", "",
              "⚠️  Error Analysis:"]
    problems = [(result["n_errors"], "error prediction(s) (verdict \"error\": counted wrong)"),
                (result["n_unmatched"], "verdict(s) matching no label (left out of verdict scores)"
                 if not strict else "verdict(s) matching no label (counted wrong)"),
                (result["n_missing"], "claim(s) without a prediction line")]
    lines += [f"   • {n} {what}" for n, what in problems if n] or ["   • No errors found! ✅"]
    lines += ["", RULE]
    return lines


def ev2r_lines(result):
    """Our Ev²R summary lines of the table (+): claims judged, not sent, the spread over judge samples."""
    lines = []
    if "n_ev2r_judged" in result:
        lines.append(f"   • Ev2R: {result['n_ev2r_judged']} claims judged, {result['n_ev2r_failed']} judge failures; "
                     f"P {percent(result['ev2r_precision'])}, R {percent(result['ev2r_recall'])}")
    if result.get("n_ev2r_not_sent"):
        lines.append(f"   • Ev2R: {result['n_ev2r_not_sent']} claims not sent (judge budget)")
    if "ev2r_judge_samples" in result:
        spread = result["ev2r_judge_samples"]
        lines.append(f"   • Ev2R over {spread['k']} judge samples: mean {percent(spread['mean'])}, sd "
                     f"{percent(spread['std'])}, range {percent(spread['min'])}-{percent(spread['max'])} "
                     "(the table shows sample 1)")
    return lines


def usage_line(usage):
    """The judge run's accounts in one line (stderr)."""
    tokens = ", ".join(f"{usage[name]:,} {name.removesuffix('_tokens')}" for name in http_judge.USAGE_FIELDS[:4])
    unreported = f", {usage['requests_without_usage']} without usage" if usage["requests_without_usage"] else ""
    return (f"judge: {usage['requests']} requests ({usage['failed_attempts']} failed attempts{unreported}), "
            f"{usage['cached_claims']} claims from the cache and {usage['recorded_claims']} from the record file "
            f"(free), {usage['total_tokens']:,} tokens ({tokens}), "
            f"{usage['wall_seconds']:.1f} s")


def plan_lines(plan):
    return [f"dry run: {plan['claims']} claims would be judged ({plan['samples']} sample(s) each): "
            f"{plan['in_record_file']} already in the record file, {plan['cached']} answered by the cache, "
            f"{plan['to_send']} requests to send",
            f"dry run: prompts to send: {plan['prompt_characters']:,} characters (about "
            f"{plan['prompt_characters'] // 4:,} tokens), the largest {plan['largest_prompt_characters']:,}",
            f"dry run: judge {plan['signature_judge']}; nothing was sent"]


def run(args: argparse.Namespace) -> int:
    """Prints the official table (or JSON); warnings go to stderr."""
    judge = _judge(args)
    if args.dry_run:
        planned = files.plan(args.gold, args.predictions, judge, args.write_ev2r)
        warn("tsver", planned.pop("warnings"))
        print(json.dumps(planned, indent=2) if args.json else "\n".join(plan_lines(planned)))
        return 0
    result = files.score_files(args.gold, args.predictions, judge, args.strict, args.ev2r_aggregation,
                               args.per_claim, args.write_ev2r)
    warn("tsver", result["warnings"])
    if "judge_usage" in result:
        print(f"benchscore tsver: {usage_line(result['judge_usage'])}", file=sys.stderr)
    print(json.dumps(result, indent=2) if args.json else "\n".join(table_lines(result, args.strict)))
    return 0


def add_compare_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gold", required=True, help="tsver_test.jsonl or tsver_dev.jsonl")
    add_compare_options(parser, "prediction JSONL in the official format")
    parser.add_argument("--ev2r", action="append", metavar="JSONL",
                        help="recorded Ev2R judge outputs, one per --predictions, in the same order; or two for "
                             "one --predictions: two judges compared (agreement and the paired Ev2R difference)")
    parser.add_argument("--ev2r-aggregation", choices=EV2R_AGGREGATIONS, default="tsver",
                        help="tsver: official micro sums (default); paper: per-claim mean")
    parser.add_argument("--strict", action="store_true",
                        help="missing/unmatched verdicts count wrong, missing predictions score 0 in TSCS")


def _compared(args):
    """(prediction files, record files, whether two judges of one prediction file are compared)."""
    records = args.ev2r or [None] * len(args.predictions)
    agreement = len(args.predictions) == 1 and len(records) == 2  # two judges' records of the same predictions
    if len(records) != len(args.predictions) and not agreement:
        raise ValueError(f"--ev2r was given {len(records)} times and --predictions {len(args.predictions)} times; "
                         "give one recorded judge file per prediction file, in the same order (or one prediction "
                         "file and two judges' record files, to compare the judges)")
    return (args.predictions * 2 if agreement else args.predictions), records, agreement


def systems(args: argparse.Namespace) -> Systems:
    """Every prediction file (with its recorded judge file) scored against the gold once (`compare` and
    `table` report them); one prediction file and two judges' files: the judges compared."""
    from benchscore.tsver import significance  # with numpy: only the commands that resample load them

    predictions, records, agreement = _compared(args)
    gold = data.resolve("tsver", args.gold)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scored = [files.scored_claims(gold, path, ev2r_path) for path, ev2r_path in zip(predictions, records)]
    warn(f"{args.command} tsver", [w.message for w in caught])
    judge = "+".join(dict.fromkeys(name for _, name in scored))  # one judge name, or each system's
    options = {"strict": args.strict, "ev2r_aggregation": args.ev2r_aggregation}
    extra, labels = None, None
    if agreement:
        labels = [f"{path} judged by {ev2r_path}" for path, ev2r_path in zip(predictions, records)]
        found = significance.judge_agreement(scored[0][0], scored[1][0])
        extra = ("judge_agreement", found, agreement_lines(found))
    return Systems([stats for stats, _ in scored], functools.partial(significance.confidence_intervals, **options),
                   functools.partial(significance.paired_test, **options),
                   signature(args.strict, args.ev2r_aggregation, judge),
                   [gold, *dict.fromkeys(predictions), *(r for r in records if r)], extra, labels)


def run_compare(args: argparse.Namespace) -> int:
    return report_systems(args, systems(args))


def agreement_lines(found):
    def number(x, digits):
        return "n/a" if x is None else f"{x:.{digits}f}"

    lines = [f"judge agreement over the {found['n_judged_by_both']} claims both judged ("
             f"{found['n_judged_by_a_only']} judged by A only, {found['n_judged_by_b_only']} by B only):",
             f"  {'count':<32} {'same':>6} {'mean |A-B|':>11} {'Pearson r':>10}"]
    lines += [f"  {key:<32} {number(row['exact'], 3):>6} {number(row['mean_abs_diff'], 2):>11} "
              f"{number(row['pearson'], 3):>10}" for key, row in found["counts"].items()]
    return lines
