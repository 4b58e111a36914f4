"""How sure a TSVer number is: bootstrap intervals and paired tests over claims.

Each claim is one row of `item_values`; every headline number is a function of the column sums of a
sample, with its official denominators (`statistic`; a sample whose denominator is 0 leaves the
number undefined). The estimates are always `scoring.aggregate`'s parity numbers; only intervals
and p-values come from resampling (`benchscore.core.resampling`).
"""

import functools
import statistics
from collections import Counter
from collections.abc import Sequence

import numpy as np

from benchscore.core import resampling
from benchscore.core.resampling import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED
from benchscore.tsver import scoring
from benchscore.tsver.scoring import EV2R_KEYS, LABELS, aggregate, check_aggregation, counted_in, ev2r_aggregate

HEADLINE = ("tscs", "verdict_macro_f1", "verdict_accuracy")  # the official table's order
EV2R_HEADLINE = ("ev2r_f1",)  # when an Ev2R judge ran

# Columns of `item_values`: counted, correct, in_tscs, tscs; then tp, fp, fn per label; then Ev2R.
COUNTED, CORRECT, IN_TSCS, TSCS = range(4)
CONFUSION = 4  # tp, fp, fn of LABELS[k] are columns CONFUSION + 3k, + 3k + 1, + 3k + 2
EV2R = CONFUSION + 3 * len(LABELS)  # judged, then "tsver": sp, cp, cr; "paper": F1_claim
N_COLUMNS = EV2R + 4


def _ev2r_columns(counts, ev2r_aggregation):
    if counts is None:
        return [0.0, 0.0, 0.0, 0.0]
    cp, sp, cr, _ = (counts[key] for key in EV2R_KEYS)
    if ev2r_aggregation == "tsver":
        return [1.0, sp, cp, cr]
    return [1.0, ev2r_aggregate([counts], "paper")["f1"], 0.0, 0.0]  # this claim's F1


def _label_columns(s, counted):
    """tp, fp, fn per label; a counted claim without a matched label is a miss for its gold label."""
    columns = []
    for label in LABELS:
        gold, predicted = counted and s.gold == label, counted and s.label == label
        columns += [gold and predicted, predicted and not gold, gold and not predicted]
    return columns


def _row(s, strict, ev2r_aggregation):
    counted, in_tscs = counted_in(s, strict)
    return ([counted, counted and s.correct, in_tscs, s.tscs if in_tscs else 0.0] + _label_columns(s, counted)
            + _ev2r_columns(s.ev2r, ev2r_aggregation))


def item_values(stats: Sequence[scoring.ItemStats], strict: bool = False,
                ev2r_aggregation: str = "tsver") -> np.ndarray:
    """One row per claim of `ItemStats` (see the column constants)."""
    check_aggregation(ev2r_aggregation)
    return resampling.as_values([_row(s, strict, ev2r_aggregation) for s in stats], N_COLUMNS)


def _ev2r_f1(sums, ev2r_aggregation):
    judged, first, cp, cr = (sums[:, EV2R + j] for j in range(4))
    if ev2r_aggregation != "tsver":
        return first / judged
    precision = np.where(cp > 0, first / cp, 0.0)
    recall = np.where(cr > 0, first / cr, 0.0)
    f1 = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
    return np.round(f1, 4)  # official: rounded to 4 places


def statistic(sums: np.ndarray, ev2r_aggregation: str = "tsver", with_ev2r: bool = False) -> dict:
    """The headline numbers from column sums of `item_values` (one row of sums per sample): accuracy =
    correct / counted; macro-F1 = the mean over LABELS of 2tp / (2tp + fp + fn) (0 when tp = 0); TSCS
    = sum / in_tscs; Ev2R F1 = "tsver": F1 of sp/cp and sp/cr rounded to 4 places, "paper": mean F1."""
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
        numbers["ev2r_f1"] = _ev2r_f1(sums, ev2r_aggregation)
    return numbers


def _headline(stats):
    judged = any(s.ev2r is not None or s.ev2r_failure is not None for s in stats)
    return HEADLINE + EV2R_HEADLINE if judged else HEADLINE


def _resampled(stats, names, strict, ev2r_aggregation):
    """(item values, statistic, estimates) of the headline `names` for `core.resampling`."""
    result = aggregate(stats, strict=strict, ev2r_aggregation=ev2r_aggregation)
    numbers = functools.partial(statistic, ev2r_aggregation=ev2r_aggregation, with_ev2r="ev2r_f1" in names)
    return item_values(stats, strict, ev2r_aggregation), numbers, {name: result[name] for name in names}


def confidence_intervals(stats: Sequence[scoring.ItemStats], n_resamples: int = DEFAULT_RESAMPLES,
                         seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL, strict: bool = False,
                         ev2r_aggregation: str = "tsver") -> dict:
    """Percentile bootstrap over claims: {name: {"estimate", "low", "high"}} per headline number, the
    estimate being `aggregate`'s; for a slice, pass that slice's stats."""
    values, statistic, estimates = _resampled(stats, _headline(stats), strict, ev2r_aggregation)
    return resampling.intervals(values, statistic, estimates, n_resamples, seed, level)


def paired_test(stats_a: Sequence[scoring.ItemStats], stats_b: Sequence[scoring.ItemStats],
                n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL,
                strict: bool = False, ev2r_aggregation: str = "tsver") -> dict:
    """Paired bootstrap and approximate randomization of B against A over the same claims: {name: {"a",
    "b", "difference" (b - a), "low", "high", "p_bootstrap", "p_randomization"}}; Ev2R only if both were judged."""
    resampling.check_same_items(stats_a, stats_b, "gold verdict", lambda claim: claim.gold, "claim", "claims", "gold")
    names = tuple(name for name in _headline(stats_a) if name in _headline(stats_b))
    values_a, numbers, estimates_a = _resampled(stats_a, names, strict, ev2r_aggregation)
    values_b, _, estimates_b = _resampled(stats_b, names, strict, ev2r_aggregation)
    return resampling.paired(values_a, values_b, numbers, estimates_a, estimates_b, n_resamples, seed, level)


def add_confidence(result: dict, stats: Sequence[scoring.ItemStats], n_resamples: int = DEFAULT_RESAMPLES,
                   seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL, strict: bool = False,
                   ev2r_aggregation: str = "tsver") -> dict:
    """Adds "extension_confidence_intervals" {name: {"low", "high"}} to a result of `stats` and names them
    in its signature; no Ev2R interval where the Ev2R sums a whole recorded file (`scoring.file_ev2r`)."""
    options = (n_resamples, seed, level)
    results = confidence_intervals(stats, *options, strict=strict, ev2r_aggregation=ev2r_aggregation)
    if "n_ev2r_records" in result:
        results.pop("ev2r_f1", None)
    return resampling.add_intervals(result, results, *options)


def judge_agreement(stats_a, stats_b):
    """How far two judges' Ev²R records of the same claims agree, count by count: over the claims both
    judged, the share with the same count, the mean absolute difference and Pearson's r (None when a
    side is constant). "Is my cheaper judge a valid substitute?" also needs the paired Ev²R test."""
    judged = Counter((a.ev2r is not None, b.ev2r is not None) for a, b in zip(stats_a, stats_b))
    both = [(a.ev2r, b.ev2r) for a, b in zip(stats_a, stats_b) if a.ev2r is not None and b.ev2r is not None]
    return {"n_judged_by_both": len(both), "n_judged_by_a_only": judged[True, False],
            "n_judged_by_b_only": judged[False, True],
            "counts": {key: _agreement([a[key] for a, _ in both], [b[key] for _, b in both]) for key in EV2R_KEYS}}


def _agreement(xs, ys):
    if not xs:
        return {"exact": None, "mean_abs_diff": None, "pearson": None}
    return {"exact": sum(x == y for x, y in zip(xs, ys)) / len(xs),
            "mean_abs_diff": sum(abs(x - y) for x, y in zip(xs, ys)) / len(xs), "pearson": _pearson(xs, ys)}


def _pearson(xs, ys):
    try:
        return statistics.correlation(xs, ys)
    except statistics.StatisticsError:  # fewer than two claims, or a side that is constant
        return None
