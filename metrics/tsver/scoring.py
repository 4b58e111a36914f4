"""TSVer scoring, framework-free: check the inputs, per-claim statistics, then `aggregate` over them.

Follows the official scorer (`baseline/compute_metrics.py` of marekstrong/TSVer at 7dd35f2), quirks
included (the card lists them); every departure is a named option that enters `signature`.
`gold`: official records; `predictions`: one per gold claim, None (no prediction line) or
{"verdict", "explanation", "ranges"} (ranges as series id -> [{"from", "to"}]). No file IO here.
"""

import dataclasses
import functools
import itertools
import math
import operator
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import benchscore
from benchscore.core.checks import is_int
from benchscore.core.readers import InputTypeError, at_example, check_item_stats, in_example, shown
from benchscore.core.records import Note, Signature
from benchscore.tsver import kernel

VERSION = "1.0.0"

# Official label order (rows and columns of the confusion matrix, macro-F1 over all four).
LABELS = ("Supported", "Cherry-Picking/Conflicting Evidence", "Refuted", "Not Enough Evidence")
SHORT_LABELS = ("S", "C", "R", "N")

# The counts of one Ev²R judge record (the official key names): cp, sp, cr, sr.
EV2R_KEYS = ("facts count predicted evidence", "support predicted evidence", "facts count reference evidence",
             "support reference evidence")
EV2R_AGGREGATIONS = ("tsver", "paper")

MAX_COUNT = 10 ** 9  # one Ev²R count: far above any real judge's, and sums of them stay exact floats
INT32 = (-(2 ** 31), 2 ** 31 - 1)  # years: what the evaluate module's int32 column holds, in every path
RATE_LIMITED = "rate limited"  # starts the failure message of a claim the judge's server kept rate-limiting

OK, ERROR, UNMATCHED, MISSING = "ok", "error", "unmatched", "missing"
SHOWN = 10  # claim indices named in one warning
TSCS_TERMS = ("tscs", "iou", "precision", "recall", "f1")
PREDICTION_KEYS = ("verdict", "explanation", "time_series")  # an evaluate example's keys
REFERENCE_KEYS = ("claim", "verdict", "justifications", "time_series")


class TSVerWarning(UserWarning):
    """Input the official scorer accepts silently but that probably is a mistake (its message is a `Note`)."""


def warn(note, stacklevel=3):
    """Issues `note` (a `Note`) as a TSVerWarning, from the caller's caller by default."""
    warnings.warn(note, TSVerWarning, stacklevel=stacklevel)


def caught_notes(caught):
    """The `Note`s of the TSVerWarnings in `caught` (`warnings.catch_warnings(record=True)`'s list), in order."""
    return [w.message.args[0] for w in caught if issubclass(w.category, TSVerWarning)]


@dataclasses.dataclass(frozen=True)
class ItemStats:
    """What one gold claim contributes: its verdict outcome, its TSCS terms and its Ev²R counts."""

    status: str  # OK, ERROR, UNMATCHED or MISSING
    verdict: str | None  # the predicted verdict as written (None: no prediction line)
    gold: str  # the gold label
    label: str | None  # the matched label
    correct: bool
    tscs: float
    iou: float
    precision: float
    recall: float
    f1: float
    series: dict  # series id -> {"iou", "intersection", "union"} over the matched series
    empty: bool  # the official short cut: either side has no series
    ev2r: dict | None = None  # the judge's four counts (None: not judged)
    ev2r_failure: str | None = None  # why the judge failed on this claim
    ev2r_defaulted: tuple = ()  # count keys the judge's record lacks, read as 0 (as the official sum does)
    inverted_ranges: bool = False  # a predicted range with from > to (it covers no year, as officially)


def _words(text):
    return set(text.lower().replace("/", " ").replace("-", " ").split())


def match_verdict(verdict):
    """The official label matcher: a free-text verdict -> one of LABELS, or None (see the card)."""
    p = verdict.strip().lower()
    steps = (lambda label: label == p,  # exact (case-insensitive)
             lambda label: p in label or label in p,  # a substring either way
             lambda label: _words(p) & _words(label))  # a shared word
    return next((label for step in steps for label in LABELS if step(label.lower())), None)


def verdict_outcome(predicted_verdict):
    """(status, matched label) of a predicted verdict; None means the claim has no prediction line."""
    if predicted_verdict is None:
        return MISSING, None
    if len(predicted_verdict) <= MEMO_VERDICT_LENGTH:
        return _outcome_of(predicted_verdict)
    return _outcome(predicted_verdict)


def _outcome(predicted_verdict):
    if predicted_verdict.lower() == "error":  # official: lower-cased but not stripped
        return ERROR, None
    label = match_verdict(predicted_verdict)
    return (OK, label) if label is not None else (UNMATCHED, None)


# A run writes few distinct verdicts (the labels, "error", a model's few variants): each short one is
# matched once, not once per claim (the matcher's three passes were a tenth of a command's time).
MEMO_VERDICT_LENGTH = 100
_outcome_of = functools.lru_cache(maxsize=1024)(_outcome)


def coverage(gold_series, predicted_series):
    """Per-claim TSCS terms of two `series id -> [{"from", "to"}]` dicts: series precision/recall/F1 and
    mean IoU of years over matched series. TSCS = F1 * mean IoU; 0 when either side is empty or None."""
    series: dict = {}  # per matched series: iou, intersection, union
    terms = kernel.coverage_terms(gold_series, predicted_series, series)  # the formula, compiled with its spans
    return {**dict(zip(TSCS_TERMS, terms)), "series": series, "empty": not gold_series or not predicted_series}


def _is_year(value):
    return is_int(value) and INT32[0] <= value <= INT32[1]


def ev2r_counts(record, where="Ev2R record"):
    """The four int counts of a judge record; a missing key counts 0 (as the official sum does)."""
    if not isinstance(record, dict):
        raise TypeError(f"{where}: expected a dict with the keys {list(EV2R_KEYS)}, found {type(record).__name__}")
    counts = {key: record.get(key, 0) for key in EV2R_KEYS}
    for key, value in counts.items():
        if not is_int(value) or value < 0:
            raise ValueError(f"{where}: {key!r} must be an int >= 0, found {shown(value, 80)}")
        if value > MAX_COUNT:
            raise ValueError(f"{where}: {key!r} is {shown(value, 80)}; expected a count of atomic facts, "
                             f"at most {MAX_COUNT:,}")
    return counts


def check_flag(value, name):
    """A yes/no option must be a real bool: "no" or 1 would silently mean True."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, found {shown(value, 80)}")


def _check_ranges(series, ranges, where):
    if not isinstance(ranges, list):
        raise ValueError(f"{where}: series {series!r}: found {type(ranges).__name__}; "
                         "expected a list of {from, to} ranges")
    for i, r in enumerate(ranges):
        if not (isinstance(r, dict) and _is_year(r.get("from")) and _is_year(r.get("to"))):
            raise ValueError(f"{where}: series {series!r} range {i}: found {shown(r, 200)}; expected "
                             f'{{"from": int, "to": int}} (years within ±{INT32[1]:,})')


def check_series(value, where, allow_none=True):
    """`value` as series id -> list of {"from": int, "to": int}; a clear error naming `where` otherwise."""
    if value is None and allow_none:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"{where}: found {type(value).__name__}; expected an object mapping series id -> list "
                         f"of {{from, to}} ranges{' or null' if allow_none else ''}")
    for series, ranges in value.items():
        _check_ranges(series, ranges, where)
    return value


def check_gold(record, where):
    """One official gold record: Claim (str), Verdict (a label), TimeSeries, Justifications (list of str)."""
    for key in ("Claim", "Verdict", "TimeSeries", "Justifications"):
        if key not in record:
            raise ValueError(f"{where}: gold claim has no {key!r} key; expected Claim, Verdict, TimeSeries, "
                             "Justifications")
    if not isinstance(record["Claim"], str):
        raise ValueError(f"{where}: 'Claim' is {type(record['Claim']).__name__}; expected a string")
    if record["Verdict"] not in LABELS:
        raise ValueError(f"{where}: 'Verdict' must be one of {list(LABELS)}, found {shown(record['Verdict'], 80)}")
    check_series(record["TimeSeries"], f"{where}: 'TimeSeries'", allow_none=False)
    justifications = record["Justifications"]
    if not isinstance(justifications, list) or not all(isinstance(j, str) for j in justifications):
        raise ValueError(f"{where}: 'Justifications' must be a list of strings")
    return record


def ranges_from_rows(rows, where="time_series"):
    """The official dict form (series id -> ranges) of the `datasets` form [{"series": id, "ranges": [...]}]."""
    if rows is None:
        return None
    series = {}
    for row in rows:
        if row["series"] in series:
            raise ValueError(f"{where}: series {row['series']!r} appears twice; list each series once "
                             "with all its ranges")
        series[row["series"]] = row["ranges"]  # read, never changed
    return series


def series_rows(series):
    """The `datasets` form of an official series dict (inverse of `ranges_from_rows`)."""
    if series is None:
        return None
    return [{"series": s, "ranges": [{"from": r["from"], "to": r["to"]} for r in ranges]}
            for s, ranges in series.items()]


def _check_keys(value, keys, index, side):
    if not isinstance(value, dict):
        raise at_example(index, f"{side} is {type(value).__name__}; expected a dict with the keys {list(keys)}",
                         InputTypeError)
    if set(value) != set(keys):
        missing, extra = sorted(set(keys) - set(value)), sorted(map(str, set(value) - set(keys)))
        found = " and ".join(f"{what} keys {names}" for what, names in (("missing", missing), ("unknown", extra))
                             if names)
        raise at_example(index, f"{side} has {found}; expected exactly {list(keys)}")


def _check_text(value, index, what, optional=True):
    if not (isinstance(value, str) or optional and value is None):
        raise at_example(index, f"{what} is {shown(value, 80)}; expected a string{' or None' if optional else ''}")


def _check_row(row, index, what):
    if not isinstance(row, dict) or set(row) != {"series", "ranges"} or not isinstance(row["series"], str):
        raise at_example(index, f"{what} holds {shown(row, 80)}; expected {{\"series\": str, \"ranges\": [...]}}")
    if isinstance(row["ranges"], list) and any(isinstance(r, dict) and set(r) != {"from", "to"} for r in row["ranges"]):
        raise at_example(index, f"{what}: series {row['series']!r} has a range with other keys than from, to")


def check_rows(rows, index, what):
    """The `datasets` form of series ([{"series": str, "ranges": [{"from": int, "to": int}]}]) of one example."""
    if kernel.plain_rows(rows):  # nothing to refuse: the checks below would pass it
        return
    if not isinstance(rows, (list, tuple)):
        raise at_example(index, f"{what} is {type(rows).__name__}; expected a list of {{series, ranges}}")
    for row in rows:
        _check_row(row, index, what)
    try:
        check_series(ranges_from_rows(rows, what), what, allow_none=False)
    except ValueError as err:
        raise at_example(index, str(err)) from None


def check_example(prediction, reference, index):
    """One evaluate example (`datasets` form), checked before Arrow sees it; errors name `example index`."""
    if kernel.plain_example(prediction, reference):  # nothing to refuse: the checks below would pass it
        return
    _check_keys(prediction, PREDICTION_KEYS, index, "prediction")
    _check_keys(reference, REFERENCE_KEYS, index, "reference")
    _check_text(prediction["verdict"], index, "predictions['verdict']")
    _check_text(prediction["explanation"], index, "predictions['explanation']")
    if prediction["time_series"] is not None:
        check_rows(prediction["time_series"], index, "predictions['time_series']")
    _check_text(reference["claim"], index, "references['claim']", optional=False)
    if reference["verdict"] not in LABELS:
        raise at_example(index, f"references['verdict'] is {shown(reference['verdict'], 80)}; expected one of "
                                f"{list(LABELS)}")
    justifications = reference["justifications"]
    if not isinstance(justifications, list) or not all(isinstance(j, str) for j in justifications):
        raise at_example(index, "references['justifications'] must be a list of strings")
    check_rows(reference["time_series"], index, "references['time_series']")


def from_example(prediction, reference):
    """(official gold record, aligned prediction or None) of one checked evaluate example."""
    gold = {"Claim": reference["claim"], "Verdict": reference["verdict"], "Justifications": reference["justifications"],
            "TimeSeries": ranges_from_rows(reference["time_series"])}
    if prediction["verdict"] is None:
        return gold, None
    return gold, {"verdict": prediction["verdict"], "explanation": prediction["explanation"],
                  "ranges": ranges_from_rows(prediction["time_series"])}


def claim_item(gold_verdict, gold_series, prediction, ev2r=None, ev2r_failure=None):
    """The ItemStats of one checked gold claim: `prediction` None (no line) or {"verdict", "ranges"};
    `ev2r` the judge's counts (None: not judged), `ev2r_failure` why the judge failed on it."""
    verdict = None if prediction is None else prediction["verdict"]
    status, label = verdict_outcome(verdict)
    ranges = None if prediction is None else prediction["ranges"]
    inverted = kernel.has_inverted(ranges)
    return ItemStats(status=status, verdict=verdict, gold=gold_verdict, label=label,
                     correct=status == OK and label == gold_verdict, **coverage(gold_series, ranges),
                     ev2r=None if ev2r is None else ev2r_counts(ev2r), ev2r_failure=ev2r_failure,
                     ev2r_defaulted=defaulted_keys(ev2r), inverted_ranges=inverted)


def defaulted_keys(record):
    """The count keys a judge record lacks (the official sum reads them as 0)."""
    return tuple(key for key in EV2R_KEYS if key not in record) if isinstance(record, Mapping) else ()


def item_stats(gold: Sequence, predictions: Sequence, ev2r: Any = None) -> list:
    """One ItemStats per official gold record and its aligned prediction (or None); `ev2r`: None, or
    per claim None / the judge's counts / its failure message (str)."""
    if len(predictions) != len(gold):
        raise ValueError(f"{len(predictions)} predictions for {len(gold)} gold claims; align them first")
    ev2r = [None] * len(gold) if ev2r is None else ev2r
    stats = []
    for i, (g, p, e) in enumerate(zip(gold, predictions, ev2r)):
        failure = e if isinstance(e, str) else None
        if g["Verdict"] not in LABELS:
            raise at_example(i, f"gold Verdict must be one of {list(LABELS)}, found {shown(g['Verdict'], 80)}")
        try:
            stats.append(claim_item(g["Verdict"], g["TimeSeries"], p, None if failure else e, failure))
        except (TypeError, ValueError) as err:
            raise in_example(err, i, label=f"example {i} ({str(g['Claim'])[:60]!r})") from None
    return stats


def _mean(values):
    # fsum: exact, so the result does not depend on claim order or on how shards were merged.
    return math.fsum(values) / len(values) if values else None


def _macro_f1(pairs):
    """sklearn-style macro F1 over all four LABELS, zero division -> 0, of the counted (gold, predicted label)
    pairs as a Counter; a predicted label of None (error line; in strict mode also missing/unmatched) is a
    miss for the gold label only."""
    if not pairs:
        return None
    gold, predicted = Counter(), Counter()
    for (g, p), n in pairs.items():
        gold[g] += n
        predicted[p] += n
    # F1 = 2tp / (2tp + fp + fn) = 2tp / (gold + predicted)
    return _mean([2 * pairs[label, label] / (gold[label] + predicted[label]) if pairs[label, label] else 0.0
                  for label in LABELS])


def _ratio(a, b):
    return a / b if b else 0.0


def _f1(p, r):
    return 2 * p * r / (p + r) if p + r else 0.0


def check_aggregation(ev2r_aggregation):
    if ev2r_aggregation not in EV2R_AGGREGATIONS:
        raise ValueError(f"ev2r_aggregation must be one of {list(EV2R_AGGREGATIONS)}, found {ev2r_aggregation!r}")


def ev2r_aggregate(records, aggregation="tsver"):
    """Ev²R precision, recall and F1 from the judged claims' counts: "tsver" (official micro sums, R =
    sp/cr sic, rounded to 4 decimals) or "paper" (per-claim means); the card gives both formulas."""
    check_aggregation(aggregation)
    cp, sp, cr, sr = EV2R_KEYS
    if aggregation == "tsver":
        support = sum(c[sp] for c in records)
        p, r = _ratio(support, sum(c[cp] for c in records)), _ratio(support, sum(c[cr] for c in records))
        return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(_f1(p, r), 4)}
    ps, rs = [_ratio(c[sp], c[cp]) for c in records], [_ratio(c[sr], c[cr]) for c in records]
    return {"precision": _mean(ps), "recall": _mean(rs), "f1": _mean([_f1(p, r) for p, r in zip(ps, rs)])}


def _confusion(pairs):
    """Rows gold, columns matched label (LABELS' order) of the matched claims' (gold, label) counts."""
    return [[pairs[gold, label] for label in LABELS] for gold in LABELS]


def listed(items):
    """The first SHOWN items (e.g. claim indices) for a warning, then "..."."""
    return ", ".join(map(str, items[:SHOWN])) + (", ..." if len(items) > SHOWN else "")


def _claim_warnings(stats, kinds):
    """One `Note` per kind of claim found in `stats`: (kind, which claims, "... {n} ... {claims} ..."), naming them;
    `which` takes `stats` and gives a flag per claim."""
    warnings = []
    for kind, which, text in kinds:
        found = list(itertools.compress(itertools.count(), which(stats)))
        if found:
            warnings.append(Note(kind, text.format(n=len(found), claims=listed(found))))
    return warnings


def _over_supported(counts):
    """A support count above a facts count, the official R's sp/cr included (a rate above 1)."""
    cp_key, sp_key, cr_key, sr_key = EV2R_KEYS
    return counts[sp_key] > min(counts[cp_key], counts[cr_key]) or counts[sr_key] > counts[cr_key]


# What the official rules do silently to some claims and changes a number: said once per kind.
# (each kind's flags are read from the claims' rows: `kernel.ClaimRows`)
VERDICT_WARNINGS = (
    ("unmatched_verdicts", lambda rows: map(UNMATCHED.__eq__, rows.status),
     "{n} predicted verdict(s) match no label (claims {claims}); as the official scorer, they are left out of the "
     "verdict scores"),
    ("empty_verdicts", lambda rows: rows.blank_verdict,
     "{n} predicted verdict(s) are empty (claims {claims}); as the official matcher, they count as 'Supported'"),
)
INVERTED_WARNINGS = (("inverted_ranges", lambda rows: rows.inverted,
                      "{n} claim(s) have a predicted range with from > to (claims {claims}); as the official scorer, "
                      "such a range covers no year (it lowers the IoU and TSCS)"),)
# (each kind's flags are read from the ItemStats)
EV2R_WARNINGS = (("ev2r_over_support", lambda stats: (s.ev2r is not None and _over_supported(s.ev2r) for s in stats),
                  "{n} judged claim(s) have a support count above their facts count (claims {claims}); as the "
                  "official scorer, the counts are used as given, so an Ev2R rate can exceed 1"),
                 ("ev2r_missing_keys", lambda stats: (s.ev2r is not None and bool(s.ev2r_defaulted) for s in stats),
                  "{n} judged claim(s) have an Ev2R record without some of the count keys (claims {claims}); as the "
                  "official scorer, a missing count is read as 0; expected the keys " + str(list(EV2R_KEYS))))


def _rate_warnings(ev2r):
    over = [f"{name} {value}" for name, value in ev2r.items() if value is not None and value > 1]
    return [Note("ev2r_rate_above_1", f"Ev2R {', '.join(over)} above 1: as the official scorer, the judge's counts "
                 "are used as given (R = predicted-side support / reference facts count, sic), so a rate can "
                 "exceed 1")] if over else []


def _failure_warnings(n_judged, failures):
    """What a judge failure did to Ev²R: the claims left out (as the official pipeline leaves them out)."""
    if not failures:
        return []
    first = failures[0][1][:300]
    claims = listed([i for i, _ in failures])
    if not n_judged:
        why = f"{RATE_LIMITED}; " if any(f.startswith(RATE_LIMITED) for _, f in failures) else ""
        return [Note("ev2r_failures", f"Ev2R not available: {why}the judge failed on all {len(failures)} claim(s) "
                     f"it was asked about (claims {claims}; first failure: {first})")]
    return [Note("ev2r_failures", f"Ev2R over {n_judged} of {n_judged + len(failures)} claims: {len(failures)} left "
                 "out for want of a usable judge record, as the official pipeline and scorer leave them out (claims "
                 f"{claims}; first failure: {first})")]


def _ev2r_part(stats, ev2r_aggregation):
    judged = [s.ev2r for s in stats if s.ev2r is not None]
    failures = [(i, s.ev2r_failure) for i, s in enumerate(stats) if s.ev2r_failure is not None]
    if not judged and not failures:
        return {}, []
    # never a silent 0: with every judge call failed there is nothing to average
    ev2r = ev2r_aggregate(judged, ev2r_aggregation) if judged else dict.fromkeys(("precision", "recall", "f1"))
    result = {**{f"ev2r_{k}": v for k, v in ev2r.items()}, "n_ev2r_judged": len(judged),
              "n_ev2r_failed": len(failures),
              "ev2r_failures": [{"claim_index": i, "reason": reason} for i, reason in failures]}
    warnings = _failure_warnings(len(judged), failures) + _claim_warnings(stats, EV2R_WARNINGS)
    return result, warnings + _rate_warnings(ev2r)


def counted_in(s, strict=False):
    """(in the verdict scores, in TSCS) for one claim: official (a matched or "error" verdict; a prediction
    line), or both when strict."""
    return _counted(s.status, strict)


def _counted(status, strict):
    """`counted_in` of a claim's status."""
    return strict or status in (OK, ERROR), strict or status != MISSING


def aggregate(stats: Sequence[ItemStats], strict: bool = False, ev2r_aggregation: str = "tsver") -> dict:
    """Corpus numbers from per-claim `ItemStats`, as fractions (the official table prints x100), with
    the official denominators (the card's table) or, with `strict`, every claim; `warnings`: what the
    official rules did silently that changes a number."""
    check_aggregation(ev2r_aggregation)
    check_flag(strict, "strict")
    stats = check_item_stats(list(stats), ItemStats, "a tsver ItemStats")
    result = aggregate_rows(rows_of(stats), strict)
    warnings = result.pop("warnings")
    ev2r, ev2r_warnings = _ev2r_part(stats, ev2r_aggregation)
    result.update(ev2r)
    result["warnings"] = warnings + ev2r_warnings
    return result


def rows_of(stats):
    """The `kernel.ClaimRows` of checked ItemStats: what `aggregate_rows` reads of each claim."""
    rows = kernel.ClaimRows()
    for s in stats:
        rows.add(s.status, s.gold, s.label, s.correct, s.verdict, (s.tscs, s.iou, s.precision, s.recall, s.f1),
                 s.inverted_ranges)
    return rows


def aggregate_rows(rows, strict=False):
    """`aggregate`'s numbers and warnings but Ev²R's, from the claims' rows (`kernel.ClaimRows`)."""
    outcomes = Counter(zip(rows.status, rows.gold, rows.label))  # one count per (status, gold, label)
    statuses, counted_pairs, matched_pairs = Counter(), Counter(), Counter()
    rule = {}  # `_counted`'s rule once per status, not once per claim
    for (status, gold, label), n in outcomes.items():
        rule[status] = _counted(status, strict)
        statuses[status] += n
        if rule[status][0]:
            counted_pairs[gold, label] += n
        if status == OK:
            matched_pairs[gold, label] += n
    counted = list(map(operator.itemgetter(0), map(rule.__getitem__, rows.status)))
    in_tscs = list(map(operator.itemgetter(1), map(rule.__getitem__, rows.status)))
    correct = list(itertools.compress(rows.correct, counted))
    result = {
        "verdict_accuracy": _mean(list(map(float, correct))),
        "verdict_macro_f1": _macro_f1(counted_pairs),
        **{name: _mean(list(itertools.compress(getattr(rows, name), in_tscs))) for name in TSCS_TERMS},
        "n_claims": len(rows.status),
        "n_scored": len(correct),
        "n_in_tscs": sum(in_tscs),
        "n_correct": sum(correct),
        "n_unmatched": statuses[UNMATCHED],
        "n_errors": statuses[ERROR],
        "n_missing": statuses[MISSING],
        "confusion_matrix": _confusion(matched_pairs),
        "warnings": _claim_warnings(rows, VERDICT_WARNINGS + INVERTED_WARNINGS),
    }
    return result


def _file_notes(over, defaulted):
    notes = ((over, "have a support count above their facts count, used as given (a rate can exceed 1)"),
             (defaulted, "lack some count keys, read as 0"))
    return "".join(f"; {n} of them {what}" for n, what in notes if n)


FILE_EV2R_REPLACES = ("ev2r_failures", "ev2r_rate_above_1", "ev2r_over_support")  # notes of the claim-aligned Ev2R


def file_ev2r(result, file_records):
    """The official Ev²R over a *recorded judge file*, which sums every record in it: where the file
    holds more records than judged claims (a claim recorded twice, claims not in the gold file or
    without a prediction line), the "tsver" numbers are recomputed from all `file_records` (the raw
    ev2r_response dicts), with a warning; the per-claim statistics keep the claim-aligned records."""
    if result.get("n_ev2r_judged") is None or len(file_records) <= result["n_ev2r_judged"]:
        return result
    text = (f"the Ev2R file holds {len(file_records)} records for {result['n_ev2r_judged']} judged claims "
               "(duplicates, or claims without a prediction line or not in the gold file); as the official "
               "scorer, Ev2R sums all of them")
    records = [ev2r_counts(r) for r in file_records]
    # what the claim-aligned records said of the numbers; the file's numbers replace them
    kept = [w for w in result["warnings"] if w.kind not in FILE_EV2R_REPLACES]
    text += _file_notes(sum(map(_over_supported, records)), sum(bool(defaulted_keys(r)) for r in file_records))
    warning = Note("ev2r_file_records", text)
    official = ev2r_aggregate(records, "tsver")
    return {**result, **{f"ev2r_{k}": v for k, v in official.items()}, "n_ev2r_records": len(file_records),
            "warnings": kept + [warning] + _rate_warnings(official)}


def percent(x):
    """A fraction as the official table prints it (x100, two decimals); "n/a" for None."""
    return "n/a" if x is None else f"{100 * x:.2f}"


def signature(strict: bool = False, ev2r_aggregation: str = "tsver", judge: Any = "none") -> Signature:
    """`tsver|version:...|benchscore:...|strict:...|ev2r:...|judge:...`: what makes two numbers comparable."""
    return Signature("tsver", version=VERSION, benchscore=benchscore.__version__, strict="yes" if strict else "no",
                     ev2r=ev2r_aggregation, judge=judge)


def duplicate_claims_warning(claims):
    """A warning when a gold claim text appears more than once (each copy counts, as in the official scorer)."""
    if len(set(claims)) == len(claims):  # the usual case, decided without a Python loop
        return []
    first, repeated = {}, []
    for i, claim in enumerate(claims):
        if claim in first:
            repeated.append(f"claim {i} repeats claim {first[claim]}")
        first.setdefault(claim, i)
    return [Note("duplicate_gold_claims", f"{len(repeated)} duplicate gold claim(s) ({listed(repeated)}); as the "
                 "official scorer, each copy is counted")] if repeated else []


def score(gold: Sequence, predictions: Sequence, ev2r: Any = None, strict: bool = False,
          ev2r_aggregation: str = "tsver", judge: Any = "none", per_claim: bool = False,
          source: str | None = None) -> dict:
    """`aggregate(item_stats(...))` with its signature and warnings (e.g. a gold claim given twice); with
    `per_claim`, also the statistics; `source` (a file name) starts the warnings about predicted verdicts."""
    check_flag(per_claim, "per_claim")
    stats = item_stats(gold, predictions, ev2r)
    result = _signed(aggregate(stats, strict=strict, ev2r_aggregation=ev2r_aggregation),
                     [g["Claim"] for g in gold], strict, ev2r_aggregation, judge, source)
    if per_claim:
        result["per_claim"] = stats
    return result


def summarize(gold: Sequence, predictions: Sequence, strict: bool = False, ev2r_aggregation: str = "tsver",
              source: str | None = None) -> dict:
    """`score` without a judge and without per-claim statistics: the same result, summed from the kernel's
    per-claim rows (`kernel.claim_rows`) instead of one `ItemStats` per claim (what a command over large
    files pays for nothing). `gold`: checked records (`files.read_references`)."""
    rows = kernel.claim_rows(list(gold), list(predictions), verdict_outcome) if len(predictions) == len(gold) else None
    if rows is None:  # not what the kernel takes: the checked path words the error
        return score(gold, predictions, strict=strict, ev2r_aggregation=ev2r_aggregation, source=source)
    return summarize_rows(rows, [g["Claim"] for g in gold], strict, ev2r_aggregation, source)


def summarize_rows(rows: kernel.ClaimRows, claims: Sequence[str], strict: bool = False,
                   ev2r_aggregation: str = "tsver", source: str | None = None) -> dict:
    """`summarize` of the claims' rows, already built (`files` builds them as it reads), and the gold claim texts."""
    check_aggregation(ev2r_aggregation)
    check_flag(strict, "strict")
    return _signed(aggregate_rows(rows, strict), claims, strict, ev2r_aggregation, "none", source)


def _signed(result, claims, strict, ev2r_aggregation, judge, source):
    """`result` with the warning of a gold claim given twice first (`claims`: the gold claim texts), the
    predicted-verdict warnings naming `source`, and the signature."""
    verdicts = {kind for kind, _, _ in VERDICT_WARNINGS} if source else ()
    result["warnings"] = duplicate_claims_warning(claims) + [
        w.reworded(f"{source}: {w}") if w.kind in verdicts else w for w in result["warnings"]]
    result["signature"] = signature(strict, ev2r_aggregation, judge)
    return result


def _tscs_report(s, in_tscs):
    if not in_tscs:
        return None
    if s.empty:
        return {"TSCS": 0, "note": "gold TimeSeries or PredictedTimeRanges empty/None -> 0"}
    return {"TSCS": s.tscs, "Average IoU": s.iou, "Precision": s.precision, "Recall": s.recall,
            "F1 Score": s.f1, "IoU per dataset": {
                k: {"IoU": v["iou"], "Intersection (years)": v["intersection"], "Union (years)": v["union"]}
                for k, v in s.series.items()}}


def official_report(gold, stats, strict=False):
    """Per-claim values and full-precision aggregates in the layout of the official run's JSON
    (`expected/perclaim_*.json`: `aggregate_full_precision`, `per_claim`), for audits and diffs."""
    result = aggregate(stats, strict=strict)
    per_claim = []
    for i, (g, s) in enumerate(zip(gold, stats)):
        in_accuracy, in_tscs = counted_in(s, strict)
        per_claim.append({"gold_index": i, "Claim": g["Claim"], "gold_verdict": s.gold,
                          "pred_verdict_raw": s.verdict, "matched_label": s.label, "status": s.status,
                          "in_accuracy": in_accuracy, "correct": s.correct,
                          "in_tscs": in_tscs, "tscs": _tscs_report(s, in_tscs)})
    aggregates = {
        "n_gold": result["n_claims"], "n_in_accuracy": result["n_scored"],
        "verdict_accuracy": result["verdict_accuracy"], "verdict_macro_f1_4labels": result["verdict_macro_f1"],
        "n_in_tscs": result["n_in_tscs"], "trange_Average TSCS": result["tscs"],
        "trange_Average IoU": result["iou"], "trange_Average Precision": result["precision"],
        "trange_Average Recall": result["recall"], "trange_Average F1 Score": result["f1"],
    }
    return {"aggregate_full_precision": aggregates, "per_claim": per_claim}
