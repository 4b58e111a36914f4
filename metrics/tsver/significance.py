"""How sure a TSVer number is: bootstrap intervals and paired tests over claims.

The unit is the claim. Each claim becomes one row of per-claim statistics (from
`scoring.claim_stats`), and every headline number is a function of column sums over a sample,
with the official denominators, which differ per number:

    verdict_accuracy = sum(correct) / sum(counted)            counted: has a matched or "error" verdict
    verdict_macro_f1 = mean over the 4 labels of 2tp / (2tp + fp + fn), 0 when tp = 0, sums over counted
    tscs             = sum(tscs_claim) / sum(in_tscs)         in_tscs: has a prediction line
    ev2r_f1          = "tsver": F1 of P = sum sp / sum cp, R = sum sp / sum cr, each rounded to 4 places;
                       "paper": sum(F1_claim) / sum(judged)

(with strict=True every claim is counted and in TSCS). A sample whose denominator is 0 leaves
the number undefined in that sample. The point estimates are always `scoring.aggregate`'s parity
numbers; only intervals and p-values come from resampling (`resampling.py`, the same file in every
metric folder).

    stats = score_claims(gold, predictions)
    confidence_intervals(stats)          # {"tscs": {"estimate", "low", "high"}, "verdict_macro_f1": ...}
    paired_test(stats_a, stats_b)        # difference, interval, p-values per number
"""

import numpy as np

from .resampling import DEFAULT_LEVEL
from .resampling import DEFAULT_RESAMPLES
from .resampling import DEFAULT_SEED
from .resampling import add_compare_options
from .resampling import as_values
from .resampling import bounds
from .resampling import check_options
from .resampling import intervals
from .resampling import paired
from .resampling import report_comparison
from .resampling import signature_part
from .scoring import EV2R_AGGREGATIONS
from .scoring import EV2R_KEYS
from .scoring import ERROR
from .scoring import LABELS
from .scoring import MISSING
from .scoring import OK
from .scoring import aggregate

HEADLINE = ("tscs", "verdict_macro_f1", "verdict_accuracy")  # the official table's order
EV2R_HEADLINE = ("ev2r_f1",)  # when an Ev2R judge ran

# Columns of `claim_values`: counted, correct, in_tscs, tscs; then tp, fp, fn per label; then Ev2R.
COUNTED, CORRECT, IN_TSCS, TSCS = range(4)
CONFUSION = 4  # tp, fp, fn of LABELS[k] are columns CONFUSION + 3k, + 3k + 1, + 3k + 2
EV2R = CONFUSION + 3 * len(LABELS)  # judged, then "tsver": sp, cp, cr; "paper": F1_claim
N_COLUMNS = EV2R + 4


def _ratio(a, b):
    return a / b if b else 0.0


def _ev2r_columns(counts, ev2r_aggregation):
    if counts is None:
        return [0.0, 0.0, 0.0, 0.0]
    cp, sp, cr, sr = (counts[key] for key in EV2R_KEYS)
    if ev2r_aggregation == "tsver":
        return [1.0, sp, cp, cr]
    precision, recall = _ratio(sp, cp), _ratio(sr, cr)
    return [1.0, 2 * precision * recall / (precision + recall) if precision + recall else 0.0, 0.0, 0.0]


def claim_values(stats, strict=False, ev2r_aggregation="tsver"):
    """One row per claim of `claim_stats` (see the column constants)."""
    if ev2r_aggregation not in EV2R_AGGREGATIONS:
        raise ValueError(f"ev2r_aggregation must be one of {list(EV2R_AGGREGATIONS)}, found {ev2r_aggregation!r}")
    rows = []
    for s in stats:
        counted = strict or s["status"] in (OK, ERROR)
        in_tscs = strict or s["status"] != MISSING
        row = [counted, counted and s["correct"], in_tscs, s["tscs"] if in_tscs else 0.0]
        for label in LABELS:  # a counted claim without a matched label is a miss for its gold label
            row += [counted and s["gold"] == label and s["label"] == label,
                    counted and s["gold"] != label and s["label"] == label,
                    counted and s["gold"] == label and s["label"] != label]
        rows.append(row + _ev2r_columns(s["ev2r"], ev2r_aggregation))
    return as_values(rows, N_COLUMNS)


def make_statistic(ev2r_aggregation="tsver", with_ev2r=False):
    """The headline numbers from column sums of `claim_values` (one row of sums per sample)."""

    def statistic(sums):
        counted = sums[:, COUNTED]
        label_f1 = []
        for k in range(len(LABELS)):
            tp, fp, fn = (sums[:, CONFUSION + 3 * k + j] for j in range(3))
            label_f1.append(np.where(tp > 0, 2 * tp / (2 * tp + fp + fn), 0.0))
        numbers = {
            "tscs": sums[:, TSCS] / sums[:, IN_TSCS],
            "verdict_macro_f1": np.where(counted > 0, np.mean(label_f1, axis=0), np.nan),
            "verdict_accuracy": sums[:, CORRECT] / counted,
        }
        if with_ev2r:
            judged, first, cp, cr = (sums[:, EV2R + j] for j in range(4))
            if ev2r_aggregation == "tsver":
                precision = np.where(cp > 0, first / cp, 0.0)
                recall = np.where(cr > 0, first / cr, 0.0)
                f1 = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
                numbers["ev2r_f1"] = np.round(f1, 4)  # official: rounded to 4 places
            else:
                numbers["ev2r_f1"] = first / judged
        return numbers

    return statistic


def _headline(stats):
    judged = any(s["ev2r"] is not None or s["ev2r_failure"] is not None for s in stats)
    return HEADLINE + EV2R_HEADLINE if judged else HEADLINE


def _estimates(stats, names, strict, ev2r_aggregation):
    result = aggregate(stats, strict=strict, ev2r_aggregation=ev2r_aggregation)
    return {name: result[name] for name in names}


def confidence_intervals(stats, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL,
                         strict=False, ev2r_aggregation="tsver"):
    """Percentile bootstrap over claims: {name: {"estimate", "low", "high"}} per headline number.

    `estimate` is exactly `aggregate(stats, strict, ev2r_aggregation)`'s number. For a slice, pass
    that slice's stats: its claims are resampled within it.
    """
    check_options(n_resamples, seed, level)
    names = _headline(stats)
    statistic = make_statistic(ev2r_aggregation, "ev2r_f1" in names)
    return intervals(claim_values(stats, strict, ev2r_aggregation), statistic,
                     _estimates(stats, names, strict, ev2r_aggregation), n_resamples, seed, level)


def check_same_claims(stats_a, stats_b):
    """Both systems must be scored on the same gold claims, in the same order."""
    if len(stats_a) != len(stats_b):
        raise ValueError(f"system A has {len(stats_a)} claims and system B {len(stats_b)}; "
                         "a paired test needs both scored on the same gold file")
    for index, (a, b) in enumerate(zip(stats_a, stats_b)):
        if a["gold"] != b["gold"]:
            raise ValueError(f"claim {index}: gold verdict {a['gold']!r} for system A but {b['gold']!r} for B; "
                             "expected the same gold claims in the same order")


def paired_test(stats_a, stats_b, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL,
                strict=False, ev2r_aggregation="tsver"):
    """Paired bootstrap and approximate randomization of B against A over the same claims.

    Returns {name: {"a", "b", "difference", "low", "high", "p_bootstrap", "p_randomization"}};
    difference = b - a, (low, high) its interval at `level`, p-values two-sided. Ev2R is compared
    only when both systems were judged.
    """
    check_options(n_resamples, seed, level)
    check_same_claims(stats_a, stats_b)
    names = tuple(name for name in _headline(stats_a) if name in _headline(stats_b))
    statistic = make_statistic(ev2r_aggregation, "ev2r_f1" in names)
    return paired(claim_values(stats_a, strict, ev2r_aggregation), claim_values(stats_b, strict, ev2r_aggregation),
                  statistic, _estimates(stats_a, names, strict, ev2r_aggregation),
                  _estimates(stats_b, names, strict, ev2r_aggregation), n_resamples, seed, level)


def add_confidence(result, stats, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL,
                   strict=False, ev2r_aggregation="tsver"):
    """Adds intervals to a result dict of `stats` (as `compute` returns it) and names them in its signature.

    Extension key: "extension_confidence_intervals" {name: {"low", "high"}} per headline number.
    Where the result's Ev2R sums a whole recorded file (`scoring.with_file_ev2r`: more records than
    judged claims), the claims cannot carry that number, so Ev2R gets no interval.
    """
    options = (n_resamples, seed, level)
    results = confidence_intervals(stats, *options, strict=strict, ev2r_aggregation=ev2r_aggregation)
    if "n_ev2r_records" in result:
        results.pop("ev2r_f1", None)
    result["extension_confidence_intervals"] = bounds(results)
    result["signature"] += "|" + signature_part(*options)
    return result


# ------------------------------------------------------------------ `benchscore compare tsver`


def add_compare_arguments(parser):
    parser.add_argument("--gold", required=True, help="tsver_test.jsonl or tsver_dev.jsonl")
    add_compare_options(parser, "prediction JSONL in the official format")
    parser.add_argument("--ev2r", action="append", metavar="JSONL",
                        help="recorded Ev2R judge outputs, one per --predictions, in the same order")
    parser.add_argument("--ev2r-aggregation", choices=EV2R_AGGREGATIONS, default="tsver",
                        help="tsver: official micro sums (default); paper: per-claim mean")
    parser.add_argument("--strict", action="store_true",
                        help="missing/unmatched verdicts count wrong, missing predictions score 0 in TSCS")


def read_stats(gold_path, predictions_path, ev2r_path=None):
    """(per-claim stats, judge signature) of a prediction file (and recorded Ev2R outputs) against gold.

    Where the Ev2R file holds more records than judged claims, the official Ev2R sums them all
    (`scoring.with_file_ev2r`), a number the claims cannot carry: Ev2R is then left out (warning).
    """
    # Imported here: the evaluate module ships this file without them (it never reads files).
    import warnings

    from .judges import RecordedJudge
    from .judges import iter_recorded
    from .judges import run_judge
    from .scoring import TSVerWarning
    from .scoring import ev2r_items
    from .scoring import ev2r_per_claim
    from .scoring import read_gold
    from .scoring import read_predictions
    from .scoring import score_claims

    gold = read_gold(gold_path)
    predictions = read_predictions(predictions_path, [g["Claim"] for g in gold])
    if ev2r_path is None:
        return score_claims(gold, predictions), "none"
    judge = RecordedJudge(ev2r_path)
    items = ev2r_items(gold, predictions)
    outcomes = run_judge(judge, [item for _, item in items])
    ev2r = ev2r_per_claim(len(gold), [i for i, _ in items], outcomes)
    stats = score_claims(gold, predictions, ev2r)
    n_judged = sum(1 for s in stats if s["ev2r"] is not None)
    n_records = sum(1 for _ in iter_recorded(ev2r_path))
    if n_records > n_judged:
        warnings.warn(f"{ev2r_path} holds {n_records} records for {n_judged} judged claims; the official Ev2R "
                      "sums them all, which no resample of the claims can reproduce, so Ev2R is not compared",
                      TSVerWarning, stacklevel=2)
        return [dict(s, ev2r=None, ev2r_failure=None) for s in stats], "none"
    return stats, judge.signature


def run_compare(args):
    from .scoring import signature
    from benchscore import data  # `official:<split>` -> the store's verified file (benchscore.data)
    args.gold = data.resolve("tsver", args.gold)

    ev2r = args.ev2r or [None] * len(args.predictions)
    if len(ev2r) != len(args.predictions):
        raise ValueError(f"--ev2r was given {len(ev2r)} times and --predictions {len(args.predictions)} times; "
                         "give one recorded judge file per prediction file, in the same order")
    scored = [read_stats(args.gold, path, ev2r_path) for path, ev2r_path in zip(args.predictions, ev2r)]
    judge = "+".join(dict.fromkeys(name for _, name in scored))  # one judge name, or each system's
    options = {"strict": args.strict, "ev2r_aggregation": args.ev2r_aggregation}
    return report_comparison(
        args, [stats for stats, _ in scored],
        lambda stats, *resampling: confidence_intervals(stats, *resampling, **options),
        lambda stats_a, stats_b, *resampling: paired_test(stats_a, stats_b, *resampling, **options),
        signature(args.strict, args.ev2r_aggregation, judge),
    )
