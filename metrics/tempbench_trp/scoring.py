"""TempBench TRP and CCR: per-question statistics, then an aggregate over them.

As the reference scorer `tempbench_eval.py` (the card: "Description", "Limitations and bias"):
    hits  = retrieved triples whose (s, r, o) is in S* and whose own t_start <= t_query <= t_end
    TRP   = hits / n_retrieved (None when nothing was retrieved); TRP_macro its mean where defined
    CCR   = 1 if every distinct gold (s, r, o) is among the hits, else 0; corpus CCR its mean
    TRP_micro = sum(hits) / sum(n_retrieved);  coverage = share of questions that retrieved anything
Where the reference would silently score zero or crash without saying where, we raise a clear error.
"""

import dataclasses
import hashlib
import itertools
import math
import operator
import typing
from collections.abc import Iterable, Sequence
from typing import Any

import benchscore
from benchscore.core.checks import is_int
from benchscore.core.readers import check_item_stats, in_example, shown
from benchscore.core.records import Note, Signature
from benchscore.tempbench_trp import kernel

VERSION = "1.0.0"

SPACES = {"label": ("s", "r", "o"), "id": ("s_id", "r_id", "o_id")}
SLICES = ("complexity", "operator")
_OTHER_SPACE = {"label": "id", "id": "label"}
_CHUNK = 4096


@dataclasses.dataclass(frozen=True, slots=True)
class ItemStats:
    """What one question contributes: the reference's per-question row, field for field."""

    id: object
    complexity: object
    operator: object
    n_ret: int
    hits: int
    n_gold: int
    trp: object  # hits / n_ret, None when nothing was retrieved
    ccr: int


FIELDS = tuple(field.name for field in dataclasses.fields(ItemStats))
_row_of = operator.attrgetter(*FIELDS)  # an ItemStats as the tuple of its fields (`kernel.question_row`'s shape)
_N_RET, _HITS = operator.itemgetter(FIELDS.index("n_ret")), operator.itemgetter(FIELDS.index("hits"))


class Question(typing.NamedTuple):
    """A checked question: its slice fields, t_query, and its distinct gold (s, r, o) in both spaces."""

    id: object
    complexity: object
    operator: object
    t_query: float
    gold: frozenset  # in the chosen space
    other_gold: frozenset  # in the other space (to catch evidence written in it)
    space: str
    where: str


# Checks: everything a caller can get wrong, with messages naming the question, field and fix
def check_options(space="label", top_k=None, dedup=False):
    """Refuses an unknown `space`, a `top_k` that is not a positive int or None, a `dedup` that is not a bool."""
    if not isinstance(space, str) or space not in SPACES:
        raise ValueError(f"space must be 'label' or 'id', found {space!r:.80}")
    if top_k is not None and (not is_int(top_k) or top_k < 1):
        raise ValueError(f"top_k must be a positive int or None, found {top_k!r:.80}")
    if not isinstance(dedup, bool):
        raise TypeError(f"dedup must be True or False, found {dedup!r:.80}")


def year(value, what, finite=False):
    """A year as a float: a number or numeric string, never NaN (`'inf'` an open bound unless `finite`)."""
    try:
        if value is None or isinstance(value, bool):
            raise TypeError
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{what} must be a year as a number (e.g. 1994.0{'' if finite else ', or inf'}), "
                         f"found {value!r:.60}") from None
    if number != number or finite and not math.isfinite(number):
        raise ValueError(f"{what} must be a {'finite ' if finite else ''}year (e.g. 1994.0), found {value!r:.60}")
    return number


def check_question(question, space="label"):
    """A `Question` from a benchmark record (`t_query`, `S_star`, optional id/complexity/operator_type)."""
    if not isinstance(question, dict):
        raise TypeError(f"a question must be a dict (a benchmark record), found {type(question).__name__}")
    where = "question (no id)" if question.get("id") is None else f"question {question.get('id')!r:.80}"
    t_query = year(question.get("t_query"), f"{where}: t_query", finite=True)
    gold = question.get("S_star")
    if not isinstance(gold, (list, tuple)):
        raise TypeError(f"{where}: S_star must be a list of gold triples, found {type(gold).__name__}")
    chosen = _gold_triples(gold, space, where, required=True)
    other = _gold_triples(gold, _OTHER_SPACE[space], where, required=False)
    return Question(question.get("id"), question.get("complexity"), question.get("operator_type"), t_query,
                    chosen, other, space, where)


def _gold_triples(gold, space, where, required):
    keys = SPACES[space]
    return frozenset(filter(None, (_gold_triple(triple, i, keys, space, where, required) for i, triple in enumerate(gold))))


def _gold_triple(triple, i, keys, space, where, required):
    """S_star[i]'s (s, r, o) in `space`; None where it has none there and need not (`required`)."""
    if not isinstance(triple, dict):
        raise TypeError(f"{where}: S_star[{i}] must be a dict, found {type(triple).__name__}")
    values = (triple.get(keys[0]), triple.get(keys[1]), triple.get(keys[2]))
    if all(isinstance(value, str) for value in values):
        if required and "" in values:  # a broken record, never a triple of the benchmark
            empty = keys[values.index("")]
            raise ValueError(f"{where}: S_star[{i}] {empty} is an empty string; expected the {empty} of the gold "
                             f"triple in space {space!r}")
        return values
    if any(value is not None and not isinstance(value, str) for value in values):
        raise TypeError(f"{where}: S_star[{i}] {', '.join(keys)} must be strings, found {values!r:.80}")
    if required:  # the keys that hold a value: a checked record or an Arrow row has every field, None where absent
        found = sorted(str(key) for key, value in triple.items() if value is not None)
        raise ValueError(f"{where}: S_star[{i}] needs {', '.join(keys)} for space {space!r}, found {found!s:.200}")
    return None


def _check_list(evidence, where):
    if isinstance(evidence, (str, bytes, dict)) or not hasattr(evidence, "__iter__"):
        raise TypeError(f"{where}: evidence must be a list of triples, found {type(evidence).__name__}")
    return evidence


def check_evidence(evidence, space, where):
    """The retrieved items as checked `((s, r, o), t_start, t_end)`, read lazily (a cut stops reading): the
    per-item loop of every path, in one piece (a helper call per item costs ~10% of the scoring time)."""
    s_key, r_key, o_key = SPACES[space]
    for j, item in enumerate(_check_list(evidence, where)):
        try:
            if isinstance(item, dict):
                s, r, o, start, end = item[s_key], item[r_key], item[o_key], item["t_start"], item["t_end"]
            elif isinstance(item, (list, tuple)):
                s, r, o, start, end = item  # ValueError unless 5 fields
            else:
                raise TypeError
            t_start, t_end = float(start), float(end)
            span = abs(t_start) + abs(t_end)  # NaN exactly when a time is NaN (infinite bounds are fine)
            if not (isinstance(s, str) and isinstance(r, str) and isinstance(o, str)) or \
                    bool in (start.__class__, end.__class__) or span != span:
                raise TypeError
            yield (s, r, o), t_start, t_end
        except (KeyError, TypeError, ValueError, OverflowError):
            raise _evidence_error(item, j, space, where) from None


def _evidence_error(item, j, space, where):
    """The clear error for an evidence item the fast loop could not read."""
    keys = SPACES[space]
    if isinstance(item, (list, tuple)):
        if len(item) != 5:
            return ValueError(f"{where}: evidence[{j}] must be (s, r, o, t_start, t_end), found {len(item)} fields")
        item = dict(zip(keys + ("t_start", "t_end"), item))
    if not isinstance(item, dict):
        return TypeError(f"{where}: evidence[{j}] must be a dict or a 5-tuple, found {type(item).__name__}")
    if any(k not in item for k in keys):
        return _lacks(item, space, where, j)
    for name in keys:
        if not isinstance(item[name], str):
            return TypeError(f"{where}: evidence[{j}].{name} must be a string, found {type(item[name]).__name__}")
    for name in ("t_start", "t_end"):
        year(item.get(name), f"{where}: evidence[{j}].{name}")  # raises the year error
    return ValueError(f"{where}: evidence[{j}] could not be read: {item!r:.80}")  # pragma: no cover


def _lacks(item, space, where, j):
    missing, other = [k for k in SPACES[space] if k not in item], _OTHER_SPACE[space]
    hint = f" (it is in {other} space: score with space={other!r})" if all(k in item for k in SPACES[other]) else ""
    return ValueError(f"{where}: evidence[{j}] lacks {', '.join(missing)} for space {space!r}{hint}; "
                      f"it has {sorted(map(str, item))!s:.200}")


# Step 1: the formula on checked values
def stats(question, items, top_k=None, dedup=False):
    """`ItemStats` of a checked `Question` and its checked items `((s, r, o), t_start, t_end)`; extensions:
    `dedup` drops exact repeats, then `top_k` keeps the first k (the reference does neither)."""
    gold, t_query = question.gold, question.t_query
    n_ret = hits = 0
    covered = set()
    for j, (triple, start, end) in (_first_copies(items) if dedup else enumerate(items)):
        n_ret += 1
        if triple in gold:
            # Only the retrieved triple's own interval is compared; gold times are never read.
            if start <= t_query <= end:
                hits += 1
                covered.add(triple)
        elif triple in question.other_gold:
            raise wrong_space(question, j, triple)
        if n_ret == top_k:
            break  # items past the cut are neither scored nor checked
    return ItemStats(question.id, question.complexity, question.operator, n_ret, hits, len(gold),
                     hits / n_ret if n_ret else None, 1 if gold and len(covered) == len(gold) else 0)


def _first_copies(items):
    seen = set()
    for j, item in enumerate(items):
        if item not in seen:
            seen.add(item)
            yield j, item


def wrong_space(question, j, triple):
    """The error for evidence that matches gold only in the other space (the reference: a silent zero)."""
    other = _OTHER_SPACE[question.space]
    return ValueError(f"{question.where}: evidence[{j}] {triple!r:.200} matches a gold triple in {other} space, "
                      f"but space={question.space!r}; score this run with space={other!r}")


def item_stats(questions: Sequence, evidences: Sequence, space: str = "label", top_k: int | None = None,
               dedup: bool = False) -> list:
    """One `ItemStats` per question; `evidences[i]` is what was retrieved for `questions[i]`, in rank order."""
    check_options(space, top_k, dedup)
    return [ItemStats(*row) for row in _iter_rows(questions, evidences, space, top_k, dedup)]


def checked_row(question, evidence, space, top_k, dedup):
    """A question's `ItemStats` fields as a tuple: `kernel`'s where it is sure, else the checked path's (the
    same numbers, or the clear error). The options are checked ones."""
    row = kernel.question_row(question, evidence, space, int(top_k or 0), dedup)
    return row if row is not None else _checked_row(question, evidence, space, top_k, dedup)


def evidence_row(question, gold, evidence, space, top_k, dedup):
    """`checked_row`, given the question's `kernel.checked_gold` (None: not sure of the question)."""
    row = None if gold is None else kernel.evidence_row(question, gold, evidence, space, int(top_k or 0), dedup)
    return row if row is not None else _checked_row(question, evidence, space, top_k, dedup)


def _checked_row(question, evidence, space, top_k, dedup):
    checked = check_question(question, space)
    return _row_of(stats(checked, check_evidence(evidence, space, checked.where), top_k, dedup))


def _iter_rows(questions, evidences, space, top_k, dedup, keep=None):
    missing = object()  # inputs of different lengths are refused, not cut to the shorter
    pairs, index = itertools.zip_longest(questions, evidences, fillvalue=missing), 0
    while True:
        # The kernel scores the questions it is sure of, up to a chunk, and hands back the first it is not.
        rows, odd = kernel.rows_of(pairs, space, int(top_k or 0), dedup, _CHUNK) if keep is None else \
            ([], next(pairs, None))
        yield from rows
        index += len(rows)
        if odd is not None:
            yield from _kept_row(*odd, index, missing, space, top_k, dedup, keep)
            index += 1
        elif keep is not None or len(rows) < _CHUNK:
            return


def _kept_row(question, evidence, index, missing, space, top_k, dedup, keep):
    """`checked_row` of the example at `index`, unless `keep` leaves it out; its error named by its index."""
    if question is missing or evidence is missing:
        longer = "questions" if evidence is missing else "evidence lists"
        raise ValueError(f"questions and evidence lists differ in length: more {longer} after {index}")
    try:
        if keep is None or keep(question):
            yield checked_row(question, evidence, space, top_k, dedup)
    except (ValueError, TypeError) as err:
        raise in_example(err, index) from None


# Step 2: corpus numbers from statistics alone
class Aggregator:
    """Running sums over `ItemStats` in question order: floats add left to right across calls (the
    reference's `sum()` order up to Python 3.11), so chunks give `aggregate(all_stats)`'s floats bit for bit."""

    def __init__(self, by=SLICES):
        if isinstance(by, str) or not hasattr(by, "__iter__"):
            raise TypeError(f"by is {shown(by)}; expected a tuple of ItemStats fields, e.g. {SLICES} or ()")
        self.slices = {}
        for field in by:
            if field not in FIELDS:
                raise ValueError(f"by names {shown(field)}; expected ItemStats fields, e.g. {SLICES} (any of {FIELDS})")
            self.slices[field] = {}
        self.n_ret = self.hits = 0
        self.total = [0, 0, 0, 0]  # a cell: questions, questions that retrieved, sum of TRP, sum of CCR

    def add(self, item):
        return self.add_rows([item])

    def add_rows(self, items):
        try:
            items = items if isinstance(items, list) else list(items)
        except TypeError:
            raise TypeError(f"stats is {type(items).__name__} {shown(items)}; expected a list of ItemStats (from "
                            "item_stats)") from None
        items = check_item_stats(items, ItemStats, "a tempbench_trp ItemStats")  # nothing added on error
        return self._add_rows(list(map(_row_of, items)))

    def _add_rows(self, rows):
        """Adds rows of `ItemStats` fields (`_row_of`, `kernel.question_row`), in order."""
        if not rows:
            return self
        self.n_ret += sum(map(_N_RET, rows))
        self.hits += sum(map(_HITS, rows))
        kernel.add_to_cells({None: self.total}, itertools.repeat(None), rows)
        for field, cells in self.slices.items():
            kernel.add_to_cells(cells, map(operator.itemgetter(FIELDS.index(field)), rows), rows)
        return self

    def result(self):
        n, n_scored, trp_sum, ccr_sum = self.total
        # No questions: every key, the rates None (undefined, not a zero); the reference gives only n_questions.
        out = {"n_questions": n, "coverage": None, "TRP_macro": None, "TRP_micro": None, "CCR": None}
        if n:  # Reference quirk kept: TRP 0.0, not undefined, when no question retrieved anything.
            out.update(coverage=n_scored / n, TRP_macro=trp_sum / n_scored if n_scored else 0.0,
                       TRP_micro=self.hits / self.n_ret if self.n_ret else 0.0, CCR=ccr_sum / n)
        for field, cells in self.slices.items():
            ordered = sorted(cells.items(), key=lambda kv: str(kv[0]))
            out["by_" + field] = {key: {"n": count, "TRP": trps / scored if scored else 0.0, "CCR": ccrs / count}
                                  for key, (count, scored, trps, ccrs) in ordered}
        return out

    def warnings(self):
        """The reference's conventions that changed a number of this result, said in words."""
        if not self.total[0]:
            return [Note("nothing_scored", "no question was scored: every rate is undefined (None)")]
        empty = [f"by_{field}[{key!r}]" for field, cells in self.slices.items()
                 for key, cell in sorted(cells.items(), key=lambda kv: str(kv[0])) if not cell[1]]
        if not self.total[1]:
            empty.insert(0, "all questions")
        return [Note("trp_zero_when_empty", f"TRP is reported as 0.0, not undefined, where no question retrieved "
                     f"anything (the reference scorer's convention): {', '.join(empty[:5])}"
                     f"{' ...' if len(empty) > 5 else ''}")] if empty else []


def aggregate(stats: Sequence[ItemStats], by: Any = SLICES) -> dict:
    """Corpus numbers and slice cells from `ItemStats` alone (a resample: `aggregate([stats[i] for i in sample])`)."""
    return Aggregator(by).add_rows(stats).result()


# Whole runs: options, signature, and both steps in one call
def signature(space: str = "label", top_k: int | None = None, dedup: bool = False,
              functional_ids: Any = None) -> Signature:
    """`tempbench_trp|version:..|benchscore:..|space:..|top_k:..|dedup:..|subset:..`: every option that changes a number."""
    check_options(space, top_k, dedup)
    subset = "all"
    if functional_ids is not None:  # the id list itself changes the numbers: named by size and content
        ids = sorted(map(str, _functional_ids(functional_ids)))
        digest = hashlib.sha256("\n".join(ids).encode("utf-8")).hexdigest()[:8]
        subset = f"functional-{len(ids)}-{digest}"
    return Signature("tempbench_trp", version=VERSION, benchscore=benchscore.__version__, space=space,
                     top_k=top_k if top_k else "none", dedup="yes" if dedup else "no", subset=subset)


def _functional_ids(functional_ids):
    try:
        if isinstance(functional_ids, (str, bytes)):
            raise TypeError
        return frozenset(functional_ids)
    except TypeError:
        raise TypeError(f"functional_ids must be a collection of question ids (strings), found "
                        f"{functional_ids!r:.80}") from None


def subset_filter(functional_ids):
    """None (all questions), or a test `keep(question)` for the functional subset."""
    if functional_ids is None:
        return None
    ids = _functional_ids(functional_ids)

    def keep(question):
        question_id = question.get("id") if isinstance(question, dict) else None
        if question_id is None:
            raise ValueError("the question has no id, so it cannot be matched to the functional subset")
        return question_id in ids

    return keep


def score(questions: Sequence, evidences: Sequence, space: str = "label", top_k: int | None = None, dedup: bool = False,
          functional_ids: Any = None, by: Any = SLICES) -> dict:
    """The fast path (no `evaluate`): the result dict of any iterables, streamed in chunks."""
    rows = _iter_rows(questions, evidences, space, top_k, dedup, subset_filter(functional_ids))
    return _summarize_rows(rows, by, space=space, top_k=top_k, dedup=dedup, functional_ids=functional_ids)


def summarize(stats: Iterable[ItemStats], by: Any = SLICES, **options: Any) -> dict:
    """The result dict of `ItemStats` (what `score` returns for them), aggregated in chunks (flat memory)."""
    return _summarize(stats, by, Aggregator.add_rows, options)


def _summarize_rows(rows: Iterable[tuple], by: Any = SLICES, **options: Any) -> dict:
    """`summarize` of rows of `ItemStats` fields as `checked_row` and the kernel give them (no type check:
    for this benchmark's own modules; `summarize` checks what a caller gives)."""
    return _summarize(rows, by, Aggregator._add_rows, options)


def _summarize(stats, by, add, options):
    sig, totals, items = signature(**options), Aggregator(by), iter(stats)  # options checked before any scoring
    for chunk in iter(lambda: list(itertools.islice(items, _CHUNK)), []):
        add(totals, chunk)
    result, warnings = totals.result(), totals.warnings()
    return dict(result, warnings=warnings, signature=sig) if warnings else dict(result, signature=sig)
