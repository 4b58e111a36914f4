"""TSVer's lines, examples and spans for plainly typed inputs: `files`' checks of a gold or prediction
line, `scoring.check_example`'s of an evaluate example, and `scoring.coverage`'s year spans, with no
error path of their own.

Where a line is a JSON object whose every value has exactly the type the official files write
(`str`, `int` years within int32, dicts and lists, nothing nested deeper than the readers allow and no
integer orjson reads differently from the stdlib), `plain_gold` and `plain_prediction` return what the
checked path returns for it; on anything else they return `UNSURE` and the caller reads that line on
the checked path (`readers.parse_json`, then `scoring.check_gold` or `files._prediction`), which gives
the same record or the located message; `plain_example` and `plain_rows` say yes only to what the
checks would pass. So this file words no message; `tests/test_speedups.py` compares it with the
checked path on random and hostile lines and examples.

It is plain typed Python, compiled by mypyc when the package is built with a C compiler (setup.py):
the checked path's per-value Python calls cost several times the parse of the files.
"""

from collections.abc import Iterator
from typing import Any, Final

from benchscore.core import json_kernel

# scoring's constants (its LABELS, INT32), copied because scoring imports this module; a test keeps them equal
LABELS: Final = frozenset(("Supported", "Cherry-Picking/Conflicting Evidence", "Refuted", "Not Enough Evidence"))
GOLD_KEYS: Final = frozenset(("Claim", "Verdict", "TimeSeries", "Justifications"))
PREDICTION_KEYS: Final = frozenset(("Claim", "Verdict", "PredictedTimeRanges", "Explanation"))
YEARS: Final = (-(2 ** 31), 2 ** 31 - 1)
SERIES_DEPTH: Final = 3  # a series dict, its lists of ranges, each range's dict
_LONG_AS_FLOAT: Final = 2.0 ** 63  # what orjson makes of an integer past 64 bits (the stdlib: an int)


def plain_gold(raw: bytes, max_depth: int) -> Any:
    """The record of a gold line where `scoring.check_gold` would pass it unchanged, else `UNSURE`."""
    record = json_kernel.loads(raw)
    if type(record) is not dict or max_depth <= SERIES_DEPTH:
        return json_kernel.UNSURE
    claim, verdict = record.get("Claim"), record.get("Verdict")
    if type(claim) is not str or type(verdict) is not str or verdict not in LABELS:
        return json_kernel.UNSURE
    if not plain_series(record.get("TimeSeries")) or not _strings(record.get("Justifications")):
        return json_kernel.UNSURE
    return record if _others_plain(record, GOLD_KEYS, max_depth - 1) else json_kernel.UNSURE


def plain_prediction(raw: bytes, max_depth: int) -> Any:
    """(claim, {"verdict", "explanation", "ranges"}) of a prediction line where `files._prediction` gives it,
    else `UNSURE`.
    The four keys must be there (an error line may lack two on the checked path: that is left to it)."""
    found = _plain_prediction(raw, max_depth)
    return found if found is json_kernel.UNSURE else (found[0], found[1])


def _plain_prediction(raw: bytes, max_depth: int) -> Any:
    """`plain_prediction`'s pair and whether a predicted range has from > to (`has_inverted`, found by the walk
    that checks the ranges), or `UNSURE`."""
    record = json_kernel.loads(raw)
    if type(record) is not dict or max_depth <= SERIES_DEPTH:
        return json_kernel.UNSURE
    verdict, explanation = record.get("Verdict"), record.get("Explanation", 0)
    ranges = record.get("PredictedTimeRanges", 0)
    if type(record.get("Claim")) is not str or type(verdict) is not str:
        return json_kernel.UNSURE
    state = _IN_ORDER if ranges is None else _series_state(ranges)
    if not _text_or_none(explanation) or state == _NOT_PLAIN:
        return json_kernel.UNSURE
    if not _others_plain(record, PREDICTION_KEYS, max_depth - 1):
        return json_kernel.UNSURE
    return record["Claim"], {"verdict": verdict, "explanation": explanation, "ranges": ranges}, state == _INVERTED


def plain_series(value: Any) -> bool:
    """Whether `value` is a dict of series id -> list of {"from": int, "to": int} years within int32, no
    range with another key (`scoring.check_series`, where a range may hold other keys: left to it)."""
    return _series_state(value) != _NOT_PLAIN


# What `_series_state` finds of a series dict
_NOT_PLAIN: Final = 0
_IN_ORDER: Final = 1  # plain, every range from <= to
_INVERTED: Final = 2  # plain, a range with from > to


def _series_state(value: Any) -> int:
    if type(value) is not dict:
        return _NOT_PLAIN
    state = _IN_ORDER
    for ranges in value.values():
        found = _ranges_state(ranges)
        if found == _NOT_PLAIN:
            return _NOT_PLAIN
        state = max(state, found)
    return state


def plain_example(prediction: Any, reference: Any) -> bool:
    """Whether an evaluate example is plainly one `scoring.check_example` passes: exactly the keys, text
    where text goes (None where allowed), a label as the gold verdict, series as `plain_rows`."""
    return _plain_predicted(prediction) and _plain_reference(reference)


def _plain_predicted(prediction: Any) -> bool:
    if type(prediction) is not dict or len(prediction) != 3:
        return False
    rows = prediction.get("time_series", 0)
    return _text_or_none(prediction.get("verdict", 0)) and _text_or_none(prediction.get("explanation", 0)) and \
        (rows is None or plain_rows(rows))


def _plain_reference(reference: Any) -> bool:
    if type(reference) is not dict or len(reference) != 4 or type(reference.get("claim")) is not str:
        return False
    verdict = reference.get("verdict")
    return type(verdict) is str and verdict in LABELS and _strings(reference.get("justifications")) and \
        plain_rows(reference.get("time_series"))


def plain_rows(rows: Any) -> bool:
    """Whether `rows` is plainly the `datasets` form of series that `scoring.check_rows` passes: a list of
    {"series": str, "ranges": [{"from": int, "to": int}]} with years within int32 and no series twice."""
    if type(rows) is not list:
        return False
    seen: set[str] = set()
    for row in rows:
        if type(row) is not dict or len(row) != 2:
            return False
        series = row.get("series")
        if type(series) is not str or series in seen or not _plain_ranges(row.get("ranges")):
            return False
        seen.add(series)
    return True


def _plain_ranges(ranges: Any) -> bool:
    return _ranges_state(ranges) != _NOT_PLAIN


def _ranges_state(ranges: Any) -> int:
    if type(ranges) is not list:
        return _NOT_PLAIN
    state = _IN_ORDER
    for r in ranges:
        if type(r) is not dict or len(r) != 2:
            return _NOT_PLAIN
        start: Any = r.get("from")
        end: Any = r.get("to")
        if not _year(start) or not _year(end):
            return _NOT_PLAIN
        first: int = start
        last: int = end
        if first > last:
            state = _INVERTED
    return state


def _text_or_none(value: Any) -> bool:
    return value is None or type(value) is str


def _year(value: Any) -> bool:
    return type(value) is int and YEARS[0] <= value <= YEARS[1]


def _strings(value: Any) -> bool:
    if type(value) is not list:
        return False
    for item in value:
        if type(item) is not str:
            return False
    return True


def _others_plain(record: dict, known: frozenset, levels: int) -> bool:
    """Whether the record's values other than the `known` keys' nest at most `levels` deep and hold no
    float of magnitude 2**63 or more (what orjson makes of an integer past 64 bits, the stdlib an int)."""
    for key, value in record.items():
        if key not in known and not _plain_value(value, levels):
            return False
    return True


def _plain_value(value: Any, levels: int) -> bool:
    if type(value) is str or value is None:
        return True
    if type(value) is float:
        return -_LONG_AS_FLOAT < value < _LONG_AS_FLOAT
    if type(value) is dict:
        return levels > 0 and _all_plain(list(value.values()), levels - 1)
    if type(value) is list:
        return levels > 0 and _all_plain(value, levels - 1)
    return True  # an int or a bool


def _all_plain(values: list, levels: int) -> bool:
    for item in values:
        if not _plain_value(item, levels):
            return False
    return True


# The span arithmetic of `scoring.coverage`: the counts of sets of years, without materialising a year.

def year_counts(gold_ranges: Any, predicted_ranges: Any) -> tuple[int, int]:
    """(|A ∩ B|, |A ∪ B|) of the years two lists of ranges cover."""
    if len(gold_ranges) == 1 and len(predicted_ranges) == 1:  # most series: one range a side, no list built
        g, p = gold_ranges[0], predicted_ranges[0]
        g_from, g_to, p_from, p_to = _int(g["from"]), _int(g["to"]), _int(p["from"]), _int(p["to"])
        g_count, p_count = max(g_to - g_from + 1, 0), max(p_to - p_from + 1, 0)  # from > to covers no year
        common = min(g_to, p_to) - max(g_from, p_from) + 1 if g_count and p_count else 0
        intersection = max(common, 0)
        return intersection, g_count + p_count - intersection
    gold, predicted = year_spans(gold_ranges), year_spans(predicted_ranges)
    intersection = common_count(gold, predicted)
    return intersection, span_count(gold) + span_count(predicted) - intersection


def _int(year: Any) -> int:
    """int(year), without the generic conversion's call for what is already a plain int (nearly every year)."""
    if type(year) is int:
        plain: int = year
        return plain
    return int(year)


def year_spans(ranges: Any) -> list[list[int]]:
    """The union of range(from, to + 1) as sorted disjoint [first, last] spans: the counts of a set of
    years, without materialising every year of an absurd range. A range with from > to adds nothing.
    (Years are checked integers, a numpy one too: int() reads each exactly.)"""
    pairs = sorted([(_int(r["from"]), _int(r["to"])) for r in ranges if r["from"] <= r["to"]])
    spans: list[list[int]] = []
    for first, last in pairs:
        if spans and first <= spans[-1][1] + 1:  # overlapping or adjacent years merge
            if last > spans[-1][1]:
                spans[-1][1] = last
        else:
            spans.append([first, last])
    return spans


def span_count(spans: list[list[int]]) -> int:
    """|A| for a sorted disjoint span list."""
    total = 0
    for first, last in spans:
        total += last - first + 1
    return total


def common_count(a: list[list[int]], b: list[list[int]]) -> int:
    """|A ∩ B| for two sorted disjoint span lists."""
    i = j = common = 0
    while i < len(a) and j < len(b):
        overlap = min(a[i][1], b[j][1]) - max(a[i][0], b[j][0]) + 1
        if overlap > 0:
            common += overlap
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return common


def has_inverted(series: Any) -> bool:
    """Whether a checked series dict (or None, or anything empty) holds a range with from > to."""
    if not series:
        return False
    for ranges in series.values():
        for r in ranges or ():
            if r["from"] > r["to"]:
                return True
    return False


# The corpus numbers of checked claims without a per-claim record: what `scoring.summarize` aggregates.

OK: Final = "ok"  # scoring's statuses (a test keeps them equal)
MISSING: Final = "missing"


class ClaimRows:
    """Per claim, in order, the values `scoring`'s aggregation reads: the verdict outcome (status, gold and
    matched label, correct, a matched blank verdict: the official matcher counts it 'Supported'), the TSCS
    terms and a predicted range with from > to."""

    def __init__(self) -> None:
        self.status: list[str] = []
        self.gold: list[str] = []
        self.label: list[Any] = []
        self.correct: list[bool] = []
        self.blank_verdict: list[bool] = []
        self.tscs: list[Any] = []
        self.iou: list[Any] = []
        self.precision: list[Any] = []
        self.recall: list[Any] = []
        self.f1: list[Any] = []
        self.inverted: list[bool] = []
        self._outcomes: dict[str, tuple[str, Any, bool]] = {}

    def add(self, status: str, gold: str, label: Any, correct: bool, verdict: Any,
            terms: tuple[Any, Any, Any, Any, Any], inverted: bool) -> None:
        self._append(status, gold, label, correct, status == OK and not verdict.strip(), terms, inverted)

    def _append(self, status: str, gold: str, label: Any, correct: bool, blank: bool,
                terms: tuple[Any, Any, Any, Any, Any], inverted: bool) -> None:
        self.status.append(status)
        self.gold.append(gold)
        self.label.append(label)
        self.correct.append(correct)
        self.blank_verdict.append(blank)
        self.tscs.append(terms[0])
        self.iou.append(terms[1])
        self.precision.append(terms[2])
        self.recall.append(terms[3])
        self.f1.append(terms[4])
        self.inverted.append(inverted)

    def add_claim(self, record: Any, prediction: Any, outcome: Any) -> bool:
        """Adds the row of a checked gold record and its aligned prediction (None or {"verdict", "ranges", ...}),
        `outcome(verdict)` giving (status, matched label) as `scoring.verdict_outcome`; False, and nothing added,
        where they are not plainly what the checked path passes (a gold verdict that is no label, series not
        `plain_series`): the checked path words the error, or takes what it takes and this does not."""
        if not _plain_claim(record, prediction):
            return False
        self.add_plain(record, prediction, outcome)
        return True

    def add_plain(self, record: Any, prediction: Any, outcome: Any) -> None:
        """`add_claim` of a record and prediction known plain (`plain_gold`'s, `plain_prediction`'s)."""
        self._add_known(record, prediction, outcome, has_inverted(None if prediction is None else prediction["ranges"]))

    def _add_known(self, record: Any, prediction: Any, outcome: Any, inverted: bool) -> None:
        """`add_plain`, whether a predicted range has from > to already known."""
        self._add_values(record["Verdict"], record["TimeSeries"], None if prediction is None else prediction["verdict"],
                         None if prediction is None else prediction["ranges"], outcome, inverted)

    def _add_values(self, gold_verdict: str, gold_series: Any, verdict: Any, ranges: Any, outcome: Any,
                    inverted: bool) -> None:
        """`_add_known` of a claim's values: the gold verdict and series, the predicted verdict (None: no
        prediction) and series."""
        status, label, blank = self._outcome(verdict, outcome)
        self._append(status, gold_verdict, label, status == OK and label == gold_verdict, blank,
                     coverage_terms(gold_series, ranges), inverted)

    def _outcome(self, verdict: Any, outcome: Any) -> tuple[str, Any, bool]:
        """(status, matched label, a matched blank verdict) of a predicted verdict (None: no prediction)."""
        # a run writes few distinct verdicts (the labels, "error", a model's variants): each is matched once
        # here (a memo no larger than the predictions that hold the verdicts), not a Python call per claim
        if verdict is None:
            status, label = outcome(None)
            return status, label, False
        known = self._outcomes.get(verdict)
        if known is None:
            status, label = outcome(verdict)
            known = self._outcomes[verdict] = (status, label, status == OK and not verdict.strip())
        return known


def claim_rows(gold: list, predictions: list, outcome: Any) -> ClaimRows | None:
    """The `ClaimRows` of gold records and their aligned predictions (`ClaimRows.add_claim` of each pair),
    None where a pair is not plainly what the checked path passes."""
    rows = ClaimRows()
    for i in range(len(gold)):
        if not rows.add_claim(gold[i], predictions[i], outcome):
            return None
    return rows


def example_rows(predictions: list, references: list, outcome: Any) -> tuple[ClaimRows, list[str]] | None:
    """(`ClaimRows`, claim texts) of evaluate examples as the module stores them, where each is `plain_example`:
    the rows of `scoring.from_example` of each pair (series rows as the official dict), with no official
    record built per claim. None at the first pair that is not so."""
    rows = ClaimRows()
    claims: list[str] = []
    for i in range(len(predictions)):
        prediction, reference = predictions[i], references[i]
        if not plain_example(prediction, reference):
            return None
        record = {"Verdict": reference["verdict"], "TimeSeries": _series_dict(reference["time_series"])}
        verdict = prediction["verdict"]
        predicted = None if verdict is None else {"verdict": verdict,
                                                  "ranges": _series_dict(prediction["time_series"])}
        if not rows.add_claim(record, predicted, outcome):
            return None
        claims.append(reference["claim"])
    return rows, claims


def _series_dict(rows: Any) -> dict | None:
    """`scoring.ranges_from_rows` of `plain_rows` (no series twice)."""
    if rows is None:
        return None
    series = {}
    for row in rows:
        series[row["series"]] = row["ranges"]
    return series


def paired_rows(gold_blocks: Iterator[Any], prediction_blocks: Iterator[Any], outcome: Any, max_depth: int,
                decoders: Any = None) -> tuple[ClaimRows, list[str]] | None:
    """(`ClaimRows`, gold claim texts) of a gold and a prediction file, given as blocks of lines
    (`readers._iter_raw_blocks(path, numbered=False)`), whose non-blank line i each holds the same claim, no
    claim twice, every line plain (`plain_gold`, `plain_prediction`): the official alignment of such files
    pairs line i with line i, and each pair is scored while both lines are fresh, with no Python frame per
    line. None at the first line that is not so (or a file longer than the other, or none at all).
    With `decoders` (`line_types.decoders`), each pair goes to msgspec first (`_typed_claim`), any pair it
    refuses to orjson as without them; after `json_kernel.DECODE_TRIES` refused lines msgspec is no longer
    tried."""
    gold, predictions = json_kernel.BlockLines(gold_blocks), json_kernel.BlockLines(prediction_blocks)
    rows = ClaimRows()
    claims: list[str] = []
    seen: set[str] = set()
    typed = json_kernel.TypedLines(None if decoders is None else decoders.error)
    while True:
        raw, line = gold.next_line(), predictions.next_line()
        if raw is None or line is None:
            return (rows, claims) if raw is None and line is None and claims else None
        claim = _claim_of(rows, raw, line, _decoded_pair(typed, decoders, raw, line), outcome, seen, max_depth)
        if claim is None:
            return None
        claims.append(claim)


def _claim_of(rows: ClaimRows, raw: bytes, line: bytes, pair: tuple[Any, Any] | None, outcome: Any, seen: set[str],
              max_depth: int) -> str | None:
    """`_typed_claim` of the pair msgspec decoded, else `_paired_claim` of the two lines read by orjson."""
    if pair is not None:
        return _typed_claim(rows, pair[0], pair[1], outcome, seen)
    return _paired_claim(rows, plain_gold(raw, max_depth), _plain_prediction(line, max_depth), outcome, seen)


def _decoded_pair(typed: json_kernel.TypedLines, decoders: Any, raw: bytes, line: bytes) -> tuple[Any, Any] | None:
    """(`line_types.Gold`, `line_types.Prediction`) of a gold and a prediction line (`decoders`, or None), or None
    where msgspec refuses either or is not tried (no tries left: `decoders` is None, or they ran out)."""
    if typed.tries == 0:
        return None
    record = typed.decode(decoders.gold, raw)
    if record is json_kernel.NOT_DECODED:
        return None
    prediction = typed.decode(decoders.prediction, line)
    return None if prediction is json_kernel.NOT_DECODED else (record, prediction)


def _typed_claim(rows: ClaimRows, record: Any, prediction: Any, outcome: Any, seen: set[str]) -> str | None:
    """`_paired_claim` of a pair `_decoded_pair` took, whose types msgspec checked: what types do not say is
    checked here (a gold verdict among the labels, series as `plain_series` has them)."""
    verdict: str = record.Verdict
    ranges = prediction.PredictedTimeRanges
    state = _IN_ORDER if ranges is None else _series_state(ranges)
    if verdict not in LABELS or state == _NOT_PLAIN or not plain_series(record.TimeSeries):
        return None
    claim: str = prediction.Claim
    if claim != record.Claim or claim in seen:
        return None
    rows._add_values(verdict, record.TimeSeries, prediction.Verdict, ranges, outcome, state == _INVERTED)
    seen.add(claim)
    return claim


def _paired_claim(rows: ClaimRows, record: Any, predicted: Any, outcome: Any, seen: set[str]) -> str | None:
    """The claim of a gold record and a prediction line (`plain_gold`, `_plain_prediction`) paired by position,
    its row added; None where either is `UNSURE`, they hold different claims or the claim came before."""
    if record is json_kernel.UNSURE or predicted is json_kernel.UNSURE:
        return None
    claim, prediction, inverted = predicted
    if claim != record["Claim"] or claim in seen:
        return None
    rows._add_known(record, prediction, outcome, inverted)
    seen.add(claim)
    return claim


def _plain_claim(record: Any, prediction: Any) -> bool:
    if type(record) is not dict or type(record.get("Verdict")) is not str or record["Verdict"] not in LABELS:
        return False
    if not plain_series(record.get("TimeSeries")):
        return False
    if prediction is None:
        return True
    if type(prediction) is not dict or type(prediction.get("verdict")) is not str:
        return False
    ranges = prediction.get("ranges", 0)
    return ranges is None or plain_series(ranges)


def coverage_terms(gold_series: Any, predicted_series: Any, series: dict | None = None
                   ) -> tuple[Any, Any, Any, Any, Any]:
    """(tscs, iou, precision, recall, f1) of two series dicts: series precision/recall/F1 and the mean IoU of
    years over matched series (|A ∩ B| / |A ∪ B|, an int 0 where both cover none, as the official scorer writes
    it); TSCS = F1 * mean IoU; all the int 0 when either side is empty or None. `series`, when given, receives
    {series id: {"iou", "intersection", "union"}} of the matched series (`scoring.coverage`'s record)."""
    if not gold_series or not predicted_series:
        return 0, 0, 0, 0, 0
    ious: list[Any] = []
    for s in predicted_series:
        if s in gold_series:
            intersection, union = year_counts(gold_series[s], predicted_series[s])
            iou: Any = 0
            if union:
                iou = intersection / union
            ious.append(iou)
            if series is not None:
                series[s] = {"iou": iou, "intersection": intersection, "union": union}
    matched = len(ious)
    # typed floats: mypyc keeps them unboxed, the same IEEE operations in the same order as Python's
    precision: float = matched / len(predicted_series)
    recall: float = matched / len(gold_series)
    f1: Any = 0
    if precision + recall > 0:
        f1 = 2 * precision * recall / (precision + recall)
    mean_iou: Any = 0
    if matched == 1:  # sum([iou]) / 1, exactly: an iou is never -0.0
        mean_iou = float(ious[0])
    elif matched:
        mean_iou = sum(ious) / matched  # Python's own sum of a list (its float rules per version)
    return f1 * mean_iou, mean_iou, precision, recall, f1
