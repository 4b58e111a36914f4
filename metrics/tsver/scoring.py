"""TSVer scoring, framework-free: per-claim statistics, then `aggregate` over them.

Follows the official scorer (`baseline/compute_metrics.py` of marekstrong/TSVer at 7dd35f2) as the
spec describes it, quirks included; every departure is a named option that enters `signature`.

    stats = [claim_stats(g["Verdict"], g["TimeSeries"], p) for g, p in zip(gold, aligned)]
    result = aggregate(stats)            # official numbers; aggregate(stats, strict=True) etc.

`stats` are plain dicts, so slices, merged shards and bootstrap samples never re-score.
"""

import json
import math
import warnings

VERSION = "1.0.0"

# Official label order (rows and columns of the confusion matrix, macro-F1 over all four).
LABELS = ("Supported", "Cherry-Picking/Conflicting Evidence", "Refuted", "Not Enough Evidence")
SHORT_LABELS = ("S", "C", "R", "N")

# The counts of one Ev²R judge record (the official key names).
EV2R_KEYS = (
    "facts count predicted evidence",
    "support predicted evidence",
    "facts count reference evidence",
    "support reference evidence",
)
EV2R_AGGREGATIONS = ("tsver", "paper")

# Verdict outcome of one claim.
OK, ERROR, UNMATCHED, MISSING = "ok", "error", "unmatched", "missing"


class TSVerWarning(UserWarning):
    """Input the official scorer accepts silently but that probably is a mistake."""


def _words(text):
    return set(text.lower().replace("/", " ").replace("-", " ").split())


def match_verdict(verdict):
    """The official label matcher: a free-text verdict -> one of LABELS, or None.

    Exact (case-insensitive) first, then substring either way, then any shared word; the first
    label in LABELS order wins at each step. So "refuted." and " SUPPORTED " match, "not
    supported" and "" become Supported (substring / shared word), "refutes", "TRUE", "NEI" match
    nothing.
    """
    p = verdict.strip().lower()
    for label in LABELS:
        if label.lower() == p:
            return label
    for label in LABELS:
        if p in label.lower() or label.lower() in p:
            return label
    words = _words(p)
    for label in LABELS:
        if words & _words(label):
            return label
    return None


def verdict_outcome(predicted_verdict):
    """(status, matched label) of a predicted verdict; None means the claim has no prediction line."""
    if predicted_verdict is None:
        return MISSING, None
    if predicted_verdict.lower() == "error":  # official: lower-cased but not stripped
        return ERROR, None
    label = match_verdict(predicted_verdict)
    return (OK, label) if label is not None else (UNMATCHED, None)


def _years(ranges):
    """years(ranges) = the union of range(from, to + 1), as sorted disjoint [first, last] spans.

    Spans rather than a set of ints: the same counts, without materialising every year of an
    absurd range such as {"from": -10**12, "to": 10**12}. A range with from > to adds nothing.
    """
    spans = []
    for first, last in sorted((r["from"], r["to"]) for r in ranges if r["from"] <= r["to"]):
        if spans and first <= spans[-1][1] + 1:  # overlapping or adjacent years merge
            spans[-1][1] = max(spans[-1][1], last)
        else:
            spans.append([first, last])
    return spans


def _count(spans):
    return sum(last - first + 1 for first, last in spans)


def _common(a, b):
    """|A ∩ B| for two sorted disjoint span lists."""
    i = j = common = 0
    while i < len(a) and j < len(b):
        common += max(0, min(a[i][1], b[j][1]) - max(a[i][0], b[j][0]) + 1)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return common


def coverage(gold_series, predicted_series):
    """Per-claim TSCS terms: series precision/recall/F1 and mean IoU of years over matched series.

    `gold_series`, `predicted_series`: series id -> list of {"from", "to"} (inclusive years).
    TSCS = F1 * mean IoU; 0 when either side is empty or None (the official short cut).
    """
    zero = {"tscs": 0, "iou": 0, "precision": 0, "recall": 0, "f1": 0, "series": {}, "empty": True}
    if not gold_series or not predicted_series:
        return zero
    matched = [s for s in predicted_series if s in gold_series]
    precision = len(matched) / len(predicted_series)
    recall = len(matched) / len(gold_series)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0
    series = {}
    for s in matched:
        gold, pred = _years(gold_series[s]), _years(predicted_series[s])
        intersection = _common(gold, pred)
        union = _count(gold) + _count(pred) - intersection
        series[s] = {"iou": intersection / union if union else 0, "intersection": intersection, "union": union}
    iou = sum(v["iou"] for v in series.values()) / len(series) if series else 0
    return {"tscs": f1 * iou, "iou": iou, "precision": precision, "recall": recall, "f1": f1,
            "series": series, "empty": False}


def ev2r_counts(record, where="Ev2R record"):
    """The four int counts of a judge record; a missing key counts 0 (as the official sum does)."""
    if not isinstance(record, dict):
        raise TypeError(f"{where}: expected a dict with the keys {list(EV2R_KEYS)}, found {type(record).__name__}")
    counts = {}
    for key in EV2R_KEYS:
        value = record.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{where}: {key!r} must be a non-negative int, found {value!r}")
        counts[key] = value
    return counts


def claim_stats(gold_verdict, gold_series, prediction, ev2r=None, ev2r_failure=None):
    """Everything `aggregate` needs about one gold claim.

    gold_verdict: one of LABELS. gold_series: series id -> ranges.
    prediction: None (no prediction line) or {"verdict": str, "ranges": series id -> ranges | None}.
    ev2r: the judge's four counts for this claim (None when not judged); ev2r_failure: why the
    judge failed (str), counted and reported by `aggregate`.
    """
    if gold_verdict not in LABELS:
        raise ValueError(f"gold Verdict must be one of {list(LABELS)}, found {gold_verdict!r}")
    verdict = None if prediction is None else prediction["verdict"]
    status, label = verdict_outcome(verdict)
    terms = coverage(gold_series, None if prediction is None else prediction["ranges"])
    return {
        "status": status,
        "verdict": verdict,
        "gold": gold_verdict,
        "label": label,
        "correct": status == OK and label == gold_verdict,
        **terms,
        "ev2r": None if ev2r is None else ev2r_counts(ev2r),
        "ev2r_failure": ev2r_failure,
    }


def _mean(values):
    # fsum: exact, so the result does not depend on claim order or on how shards were merged.
    return math.fsum(values) / len(values) if values else None


def _macro_f1(pairs):
    """sklearn-style macro F1 over all four LABELS, zero division -> 0.

    A predicted label of None (error line; in strict mode also missing/unmatched) is a miss for
    the gold label and a false positive for none.
    """
    scores = []
    for label in LABELS:
        tp = sum(1 for g, p in pairs if g == label and p == label)
        fp = sum(1 for g, p in pairs if g != label and p == label)
        fn = sum(1 for g, p in pairs if g == label and p != label)
        scores.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return _mean(scores) if pairs else None


def _round4(x):
    return round(x, 4)


def ev2r_aggregate(records, aggregation="tsver"):
    """Ev²R precision, recall and F1 from the judged claims' counts.

    "tsver" (official TSVer): micro sums; P = sp/cp, R = sp/cr (sic: the predicted side's support
    over the reference count), F1 from the unrounded P and R, then P, R, F1 each rounded to 4
    decimals. "paper" (Ev²R paper, FEVER-8): per-claim P = sp/cp, R = sr/cr, F1 of those, each
    averaged over the judged claims, unrounded.
    """
    if aggregation not in EV2R_AGGREGATIONS:
        raise ValueError(f"ev2r_aggregation must be one of {list(EV2R_AGGREGATIONS)}, found {aggregation!r}")
    cp_key, sp_key, cr_key, sr_key = EV2R_KEYS
    ratio = lambda a, b: a / b if b else 0.0  # noqa: E731
    f1 = lambda p, r: 2 * p * r / (p + r) if p + r else 0.0  # noqa: E731
    if aggregation == "tsver":
        sp = sum(c[sp_key] for c in records)
        p, r = ratio(sp, sum(c[cp_key] for c in records)), ratio(sp, sum(c[cr_key] for c in records))
        return {"precision": _round4(p), "recall": _round4(r), "f1": _round4(f1(p, r))}
    if not records:
        return {"precision": None, "recall": None, "f1": None}
    ps = [ratio(c[sp_key], c[cp_key]) for c in records]
    rs = [ratio(c[sr_key], c[cr_key]) for c in records]
    return {"precision": _mean(ps), "recall": _mean(rs), "f1": _mean([f1(p, r) for p, r in zip(ps, rs)])}


def aggregate(stats, strict=False, ev2r_aggregation="tsver"):
    """Corpus numbers from per-claim `claim_stats`, as fractions (the official table prints x100).

    Official denominators (strict=False): accuracy and macro-F1 over claims with a prediction line
    whose verdict matched a label or is "error" (always wrong); TSCS and the mean IoU/P/R/F1 over
    claims with a prediction line (any verdict). strict=True: every gold claim counts in both, a
    missing or unmatched verdict is wrong and a missing prediction scores 0.
    """
    counted_statuses = {OK, ERROR, UNMATCHED, MISSING} if strict else {OK, ERROR}
    counted = [s for s in stats if s["status"] in counted_statuses]
    in_tscs = stats if strict else [s for s in stats if s["status"] != MISSING]
    confusion = [[0] * len(LABELS) for _ in LABELS]
    for s in stats:
        if s["status"] == OK:
            confusion[LABELS.index(s["gold"])][LABELS.index(s["label"])] += 1
    result = {
        "verdict_accuracy": _mean([1.0 if s["correct"] else 0.0 for s in counted]),
        "verdict_macro_f1": _macro_f1([(s["gold"], s["label"]) for s in counted]),
        "tscs": _mean([s["tscs"] for s in in_tscs]),
        "iou": _mean([s["iou"] for s in in_tscs]),
        "precision": _mean([s["precision"] for s in in_tscs]),
        "recall": _mean([s["recall"] for s in in_tscs]),
        "f1": _mean([s["f1"] for s in in_tscs]),
        "n_claims": len(stats),
        "n_scored": len(counted),
        "n_in_tscs": len(in_tscs),
        "n_correct": sum(1 for s in counted if s["correct"]),
        "n_unmatched": sum(1 for s in stats if s["status"] == UNMATCHED),
        "n_errors": sum(1 for s in stats if s["status"] == ERROR),
        "n_missing": sum(1 for s in stats if s["status"] == MISSING),
        "confusion_matrix": confusion,
    }
    judged = [s["ev2r"] for s in stats if s["ev2r"] is not None]
    failed = sum(1 for s in stats if s["ev2r_failure"] is not None)
    if judged or failed:
        ev2r = ev2r_aggregate(judged, ev2r_aggregation)
        result.update({f"ev2r_{k}": v for k, v in ev2r.items()})
        result.update({"n_ev2r_judged": len(judged), "n_ev2r_failed": failed})
    return result


def with_file_ev2r(result, file_records):
    """The official Ev²R over a *recorded judge file*: it sums every record in the file.

    That includes records the claim-aligned path never reads: a claim recorded twice (both count),
    and claims not in the gold file or without a prediction line. Where the file holds such extra
    records (more records than judged claims), the official "tsver" numbers are recomputed from all
    `file_records` (the raw ev2r_response dicts) with a warning, so a file gives the official
    number; the per-claim statistics (slices, resampling) keep the claim-aligned records.
    """
    if result.get("n_ev2r_judged") is None or len(file_records) <= result["n_ev2r_judged"]:
        return result
    warnings.warn(
        f"the Ev2R file holds {len(file_records)} records for {result['n_ev2r_judged']} judged claims "
        "(duplicates, or claims without a prediction line or not in the gold file); as the official "
        "scorer, Ev2R sums all of them",
        TSVerWarning,
        stacklevel=2,
    )
    official = ev2r_aggregate([ev2r_counts(r) for r in file_records], "tsver")
    return {**result, **{f"ev2r_{k}": v for k, v in official.items()}, "n_ev2r_records": len(file_records)}


def signature(strict=False, ev2r_aggregation="tsver", judge="none"):
    """`tsver|version:...|strict:...|ev2r:...|judge:...`: what makes two numbers comparable."""
    return (f"tsver|version:{VERSION}|strict:{'yes' if strict else 'no'}"
            f"|ev2r:{ev2r_aggregation}|judge:{judge}")


def ranges_from_rows(rows, where="time_series"):
    """The official dict form (series id -> ranges) from the `datasets` form
    [{"series": id, "ranges": [{"from", "to"}]}]; None stays None. A repeated series id is an error."""
    if rows is None:
        return None
    series = {}
    for row in rows:
        if row["series"] in series:
            raise ValueError(f"{where}: series {row['series']!r} appears twice; list each series once "
                             f"with all its ranges")
        series[row["series"]] = [{"from": r["from"], "to": r["to"]} for r in row["ranges"]]
    return series


def series_rows(series):
    """The `datasets` form of an official series dict (inverse of `ranges_from_rows`)."""
    if series is None:
        return None
    return [{"series": s, "ranges": [{"from": r["from"], "to": r["to"]} for r in ranges]}
            for s, ranges in series.items()]


def ev2r_items(gold, predictions):
    """(claim index, (claim, reference, prediction)) for each claim an Ev²R judge reads.

    Official: reference = the gold justifications joined with "\\n", prediction = the Explanation;
    claims with no prediction line or a null Explanation are not judged.
    """
    return [(i, (g["Claim"], "\n".join(g["Justifications"] or []), p["explanation"]))
            for i, (g, p) in enumerate(zip(gold, predictions))
            if p is not None and p["explanation"] is not None]


def ev2r_per_claim(n_claims, indices, outcomes):
    """Per claim: None (not judged), the judge's counts, or its failure message (str)."""
    per_claim = [None] * n_claims
    for i, outcome in zip(indices, outcomes):
        per_claim[i] = outcome.counts if outcome.error is None else outcome.error
    return per_claim


def official_report(gold, stats, strict=False):
    """Per-claim values and full-precision aggregates in the layout of the official run's JSON
    (`expected/perclaim_*.json`: `aggregate_full_precision`, `per_claim`), for audits and diffs."""
    result = aggregate(stats, strict=strict)
    per_claim = []
    for i, (g, s) in enumerate(zip(gold, stats)):
        in_accuracy = strict or s["status"] in (OK, ERROR)
        in_tscs = strict or s["status"] != MISSING
        if not in_tscs:
            tscs = None
        elif s["empty"]:
            tscs = {"TSCS": 0, "note": "gold TimeSeries or PredictedTimeRanges empty/None -> 0"}
        else:
            tscs = {"TSCS": s["tscs"], "Average IoU": s["iou"], "Precision": s["precision"], "Recall": s["recall"],
                    "F1 Score": s["f1"], "IoU per dataset": {
                        k: {"IoU": v["iou"], "Intersection (years)": v["intersection"], "Union (years)": v["union"]}
                        for k, v in s["series"].items()}}
        per_claim.append({"gold_index": i, "Claim": g["Claim"], "gold_verdict": s["gold"],
                          "pred_verdict_raw": s["verdict"], "matched_label": s["label"], "status": s["status"],
                          "in_accuracy": in_accuracy, "correct": s["correct"], "in_tscs": in_tscs, "tscs": tscs})
    aggregates = {
        "n_gold": result["n_claims"], "n_in_accuracy": result["n_scored"],
        "verdict_accuracy": result["verdict_accuracy"], "verdict_macro_f1_4labels": result["verdict_macro_f1"],
        "n_in_tscs": result["n_in_tscs"], "trange_Average TSCS": result["tscs"],
        "trange_Average IoU": result["iou"], "trange_Average Precision": result["precision"],
        "trange_Average Recall": result["recall"], "trange_Average F1 Score": result["f1"],
    }
    return {"aggregate_full_precision": aggregates, "per_claim": per_claim}


# ---------------------------------------------------------------- official JSONL files


def _read_jsonl(path, what):
    """(line number, object) for each non-blank line; a line that is not a JSON object is an error."""
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as err:
                raise ValueError(f"{path}:{number}: {what} line is not valid JSON ({err.msg})") from None
            if not isinstance(obj, dict):
                raise ValueError(f"{path}:{number}: expected a JSON object, found {type(obj).__name__}")
            yield number, obj


def check_series(value, where, allow_none=True):
    """`value` as series id -> list of {"from": int, "to": int}; a clear error naming `where` otherwise."""
    if value is None and allow_none:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"{where}: expected an object mapping series id -> list of {{from, to}} "
                         f"ranges{' or null' if allow_none else ''}, found {type(value).__name__}")
    for series, ranges in value.items():
        if not isinstance(ranges, list):
            raise ValueError(f"{where}: series {series!r}: expected a list of {{from, to}} ranges, "
                             f"found {type(ranges).__name__}")
        for i, r in enumerate(ranges):
            ok = isinstance(r, dict) and all(
                isinstance(r.get(k), int) and not isinstance(r.get(k), bool) for k in ("from", "to"))
            if not ok:
                raise ValueError(f"{where}: series {series!r} range {i}: expected "
                                 f'{{"from": int, "to": int}}, found {json.dumps(r)}')
    return value


def read_gold(path):
    """The gold claims of tsver_{test,dev}.jsonl, checked: Claim, Verdict, TimeSeries, Justifications."""
    gold = []
    for number, obj in _read_jsonl(path, "gold"):
        where = f"{path}:{number}"
        for key in ("Claim", "Verdict", "TimeSeries", "Justifications"):
            if key not in obj:
                raise ValueError(f"{where}: gold claim has no {key!r} key")
        if not isinstance(obj["Claim"], str):
            raise ValueError(f"{where}: 'Claim' must be a string, found {obj['Claim']!r}")
        if obj["Verdict"] not in LABELS:
            raise ValueError(f"{where}: 'Verdict' must be one of {list(LABELS)}, found {obj['Verdict']!r}")
        check_series(obj["TimeSeries"], f"{where}: 'TimeSeries'", allow_none=False)
        if not isinstance(obj["Justifications"], list) or not all(isinstance(j, str) for j in obj["Justifications"]):
            raise ValueError(f"{where}: 'Justifications' must be a list of strings")
        gold.append(obj)
    return gold


def read_predictions(path, gold_claims):
    """Prediction lines aligned to `gold_claims` by exact claim text (official alignment).

    Returns one entry per gold claim: None (no prediction line) or {"verdict", "explanation",
    "ranges", "line"}. A later line for the same claim wins (warning naming both lines); lines for
    claims not in the gold file are ignored (one warning naming them).
    Required keys: Claim, Verdict; also PredictedTimeRanges and Explanation except on error lines
    (verdict "error" or an ErrorMessage), where a missing one means null.
    """
    index = {}
    for i, claim in enumerate(gold_claims):
        index.setdefault(claim, []).append(i)
    aligned = [None] * len(gold_claims)
    unknown = []
    for number, obj in _read_jsonl(path, "prediction"):
        where = f"{path}:{number}"
        for key in ("Claim", "Verdict"):
            if key not in obj:
                raise ValueError(f"{where}: prediction has no {key!r} key")
            if not isinstance(obj[key], str):
                raise ValueError(f"{where}: {key!r} must be a string, found {obj[key]!r}")
        error_line = obj["Verdict"].lower() == "error" or "ErrorMessage" in obj
        for key in ("PredictedTimeRanges", "Explanation"):
            if key not in obj and not error_line:
                raise ValueError(f"{where}: prediction has no {key!r} key (null is allowed)")
        explanation = obj.get("Explanation")
        if explanation is not None and not isinstance(explanation, str):
            raise ValueError(f"{where}: 'Explanation' must be a string or null, found {type(explanation).__name__}")
        ranges = check_series(obj.get("PredictedTimeRanges"), f"{where}: 'PredictedTimeRanges'")
        if obj["Claim"] not in index:
            unknown.append(number)
            continue
        for i in index[obj["Claim"]]:
            if aligned[i] is not None:
                warnings.warn(f"{where}: a second prediction for the claim of line {aligned[i]['line']} "
                              f"replaces it (official: later duplicates win)", TSVerWarning, stacklevel=2)
            aligned[i] = {"verdict": obj["Verdict"], "explanation": explanation, "ranges": ranges, "line": number}
    if unknown:
        shown = ", ".join(map(str, unknown[:10])) + (", ..." if len(unknown) > 10 else "")
        warnings.warn(f"{path}: ignored {len(unknown)} prediction line(s) whose Claim is not in the gold "
                      f"file (lines {shown})", TSVerWarning, stacklevel=2)
    return aligned


def score_claims(gold, predictions, ev2r=None):
    """`claim_stats` for each official gold record and its aligned prediction (or None).

    The fast path: `gold` as from `read_gold`, `predictions` as from `read_predictions` (ranges in
    the official dict form). `ev2r`: None, or per claim None / counts / a failure message (str).
    Warns once per verdict that matches no label (the official scorer prints a warning too).
    """
    if len(predictions) != len(gold):
        raise ValueError(f"{len(predictions)} predictions for {len(gold)} gold claims; align them first")
    ev2r = [None] * len(gold) if ev2r is None else ev2r
    stats = []
    for i, (g, p, e) in enumerate(zip(gold, predictions, ev2r)):
        failure = e if isinstance(e, str) else None
        try:
            s = claim_stats(g["Verdict"], g["TimeSeries"], p, ev2r=None if failure else e, ev2r_failure=failure)
        except (TypeError, ValueError) as err:
            raise type(err)(f"claim {i} ({str(g['Claim'])[:60]!r}): {err}") from None
        if s["status"] == UNMATCHED:
            warnings.warn(f"claim {i} ({str(g['Claim'])[:60]!r}): predicted verdict {s['verdict']!r} matches no "
                          f"label; left out of the verdict scores", TSVerWarning, stacklevel=2)
        stats.append(s)
    return stats
