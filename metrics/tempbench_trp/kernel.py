"""TempBench's per-question loop for plainly typed inputs: `scoring.stats` of `scoring.check_question` and
`scoring.check_evidence`, in one pass, with no error path of its own.

Where every value has exactly the type the benchmark writes (dicts, lists, `str`, `float`, `int`),
`question_row` returns the question's `ItemStats` fields as a tuple; on anything else (a subclass, a
numeric string, a missing key, a NaN, evidence in the other space) it returns None and the caller
takes the checked path, which gives the same number or the clear error. So this file decides no
number and words no message: it only skips work, and `tests/test_speedups.py` compares it with the
checked path on random and hostile inputs.

It is plain typed Python, compiled by mypyc when the package is built with a C compiler (setup.py;
the checked path's per-item Python overhead is what kept the scorer near the reference's speed).
Every annotation is one mypyc can check cheaply; inputs arrive as `Any` and are narrowed by `type(...) is`.
"""

import math
from collections.abc import Set as AbstractSet
from typing import Any, Final

from benchscore.core import json_kernel

SPACES: Final = {"label": ("s", "r", "o"), "id": ("s_id", "r_id", "o_id")}
OTHER: Final = {"label": "id", "id": "label"}
_EXACT_INT: Final = 2**53  # ints up to this size convert to float exactly, as float() would
_UNSURE: Final = float("nan")
_LONG_AS_FLOAT: Final = 2.0**63

Triple = tuple  # (s, r, o): a boxed tuple, so that set lookups and adds do not box it again each time


def _time(value: Any) -> float:
    """`value` as a float where it is a float or a plain int float() converts exactly; NaN where unsure (also
    for a finite float of magnitude 2**63 or more: what orjson makes of an integer past 64 bits, which
    the stdlib reads as an int, `json_kernel.value_within_depth`)."""
    if type(value) is float:
        return value if -_LONG_AS_FLOAT < value < _LONG_AS_FLOAT or math.isinf(value) else _UNSURE
    if type(value) is int and -_EXACT_INT <= value <= _EXACT_INT:
        return float(value)
    return _UNSURE


def _is_list(value: Any) -> bool:
    return type(value) is list or type(value) is tuple


def _strings(s: Any, r: Any, o: Any) -> bool:
    return type(s) is str and type(r) is str and type(o) is str


def _absent(s: Any, r: Any, o: Any) -> bool:
    return s is None and r is None and o is None  # identity: no user __eq__ runs


def _gold(gold: Any, keys: tuple[str, str, str], required: bool) -> set[Triple] | None:
    """The distinct gold (s, r, o) in `keys`' space of a list or tuple `gold`; None where a triple is not plainly
    one (or absent, if `required`)."""
    triples: set[Triple] = set()
    s_key, r_key, o_key = keys
    for triple in gold:
        if type(triple) is not dict:
            return None
        s, r, o = triple.get(s_key), triple.get(r_key), triple.get(o_key)
        if not _strings(s, r, o):
            if required or not _absent(s, r, o):
                return None  # not plainly strings; or, if `required`, absent (the checked path says which)
        elif required and not (s and r and o):
            return None  # an empty string
        else:
            triples.add((s, r, o))
    return triples


def _item(item: Any, s_key: str, r_key: str, o_key: str, triple_type: Any) -> tuple[Any, Any, Any, float, float]:
    """A retrieved item as (s, r, o, t_start, t_end) where it is plainly a dict, a `triple_type` (the lockstep's
    `line_types.Triple`, or None) or a 5-tuple of strings and numbers; a NaN start where it is not (or lacks a
    key: a missing key reads as None, which nothing lets through). A tuple of five unboxed values: no triple
    is built for an item that needs none."""
    if type(item) is dict:
        s, r, o = item.get(s_key), item.get(r_key), item.get(o_key)
        start, end = _time(item.get("t_start")), _time(item.get("t_end"))
    elif type(item) is triple_type:
        s, r, o = getattr(item, s_key), getattr(item, r_key), getattr(item, o_key)
        start, end = _time(item.t_start), _time(item.t_end)
    elif _is_list(item) and len(item) == 5:
        s, r, o, start, end = item[0], item[1], item[2], _time(item[3]), _time(item[4])
    else:
        return None, None, None, _UNSURE, _UNSURE
    return (s, r, o, start, end) if _strings(s, r, o) and end == end else (None, None, None, _UNSURE, _UNSURE)


def _repeated(seen: set[tuple[Triple, float, float]], triple: Triple, start: float, end: float) -> bool:
    """Whether this exact item was met before (what `dedup` drops); it is met now."""
    if (triple, start, end) in seen:
        return True
    seen.add((triple, start, end))
    return False


def _row(question_id: Any, complexity: Any, operator: Any, n_ret: int, hits: int, n_gold: int, n_covered: int
         ) -> tuple:
    """The `ItemStats` fields: TRP None without retrieval; CCR 1 when every distinct gold triple was hit."""
    return (question_id, complexity, operator, n_ret, hits, n_gold, hits / n_ret if n_ret else None,
            1 if n_gold and n_covered == n_gold else 0)


def question_row(question: Any, evidence: Any, space: str, top_k: int, dedup: bool) -> tuple | None:
    """`evidence_row` of a question and its evidence (one call: the caller is a loop over questions)."""
    checked = checked_gold(question, space)
    return None if checked is None else evidence_row(question, checked, evidence, space, top_k, dedup)


def rows_of(pairs: Any, space: str, top_k: int, dedup: bool, limit: int) -> tuple[list, Any]:
    """(the `question_row`s of the next (question, evidence) pairs, up to `limit` of them; the first pair
    it is not sure of, None if none): a loop over questions with no Python frame per question."""
    rows: list[tuple] = []
    for pair in pairs:
        question, evidence = pair
        row = question_row(question, evidence, space, top_k, dedup)
        if row is None:
            return rows, pair
        rows.append(row)
        if len(rows) == limit:
            break
    return rows, None


Checked = tuple[float, set[Triple], set[Triple], set[Any]]  # what checked_gold returns


def checked_gold(question: Any, space: str) -> Checked | None:
    """(t_query, distinct gold (s, r, o) in `space`, those in the other space, the objects of both) of a
    plainly typed question, or None. An item whose object is none of these is neither gold nor in the other
    space: its triple need not be built nor looked up."""
    if type(question) is not dict:
        return None
    return _checked(question.get("t_query"), question.get("S_star"), space)


def _checked(t_query_value: Any, gold_list: Any, space: str) -> Checked | None:
    t_query = _time(t_query_value)
    if t_query - t_query != 0.0 or not _is_list(gold_list):
        return None  # NaN, infinite or not plainly a number; S_star not a list
    gold = _gold(gold_list, SPACES[space], True)
    other = _gold(gold_list, SPACES[OTHER[space]], False)
    if gold is None or other is None:
        return None
    objects: set[Any] = set()
    for triple in gold | other:
        objects.add(triple[2])
    return t_query, gold, other, objects


def evidence_row(question: dict, checked: Checked, evidence: Any, space: str, top_k: int, dedup: bool) -> tuple | None:
    """(id, complexity, operator, n_ret, hits, n_gold, trp, ccr) of a question (`checked`: its `checked_gold`)
    and its plainly typed evidence, or None. `space`, `dedup` are checked options; `top_k` 0 keeps every item."""
    counts = _retrieved(checked, evidence, space, top_k, dedup, None)
    if counts is None:
        return None
    n_ret, hits, n_covered = counts
    return _row(question.get("id"), question.get("complexity"), question.get("operator_type"), n_ret, hits,
                len(checked[1]), n_covered)


def _retrieved(checked: Checked, evidence: Any, space: str, top_k: int, dedup: bool, triple_type: Any
               ) -> tuple[int, int, int] | None:
    """(items kept, hits, distinct gold triples covered) of plainly typed evidence (`_item`), or None."""
    if not _is_list(evidence):
        return None
    t_query, gold, other, objects = checked
    s_key, r_key, o_key = SPACES[space]
    n_ret = hits = 0
    covered: set[Triple] = set()
    seen: set[tuple[Triple, float, float]] = set()
    for item in evidence:
        s, r, o, start, end = _item(item, s_key, r_key, o_key, triple_type)
        if start != start:
            return None
        if dedup and _repeated(seen, (s, r, o), start, end):
            continue
        n_ret += 1
        if o in objects:
            hit = _hit((s, r, o), start, end, t_query, gold, other, covered)
            if hit < 0:
                return None  # evidence in the other space: the checked path says so
            hits += hit
        if n_ret == top_k:
            break
    return n_ret, hits, len(covered)


def _hit(triple: Triple, start: float, end: float, t_query: float, gold: set[Triple], other: set[Triple],
         covered: set[Triple]) -> int:
    """1 where a retrieved triple is gold and its own interval holds t_query (then `covered`), -1 where it is in
    the other space only, else 0."""
    if triple in gold:
        if start <= t_query <= end:
            covered.add(triple)
            return 1
        return 0
    return -1 if triple in other else 0


def evidence_codes(checked: Checked, evidence: Any, space: str) -> tuple[list[int], list[bool]] | None:
    """What the evaluate module stores of a question's plainly typed evidence (`checked`: its `checked_gold`):
    per item, the index of the gold triple it hits (-1: none) and whether it repeats an earlier item exactly
    (what `dedup` drops); `coded_row` scores them under any `top_k` and `dedup`. None: take the checked path.
    As in `evidence_row`, a triple is built and looked up only for an item whose object is a gold or
    other-space object (no other can be either)."""
    if not _is_list(evidence):
        return None
    t_query, gold, other, objects = checked
    s_key, r_key, o_key = SPACES[space]
    index = {triple: i for i, triple in enumerate(gold)}
    hits: list[int] = []
    repeats: list[bool] = []
    seen: set[tuple[str, str, str, float, float]] = set()
    for item in evidence:
        s, r, o, start, end = _item(item, s_key, r_key, o_key, None)
        if start != start or not _unicode_triple(s, r, o):
            return None  # not plainly typed; not Unicode (the checked path says which)
        hit = _gold_index((s, r, o), start, end, t_query, index, other) if o in objects else -1
        if hit == _OTHER_SPACE:
            return None  # in the other space (the checked path says so)
        hits.append(hit)
        distinct = len(seen)
        seen.add((s, r, o, start, end))  # one hash of the item (a tuple's is not kept): a repeat adds nothing
        repeats.append(len(seen) == distinct)
    for triple in gold:
        if not _unicode_triple(triple[0], triple[1], triple[2]):
            return None
    return hits, repeats


def _unicode_triple(s: str, r: str, o: str) -> bool:
    return _unicode(s) and _unicode(r) and _unicode(o)


_OTHER_SPACE: Final = -2


def _gold_index(triple: Triple, start: float, end: float, t_query: float, index: dict, other: set[Triple]) -> int:
    """The index of the gold triple an item hits (its own interval holds t_query), -1 for none, `_OTHER_SPACE`
    where the triple is in the other space only."""
    if triple not in index:
        return _OTHER_SPACE if triple in other else -1
    return index[triple] if start <= t_query <= end else -1


def coded_batch(evidences: list, golds: list, t_queries: list, space: str) -> tuple[list, list, list] | None:
    """What the evaluate module stores of a batch (predictions {"hits", "repeats"}, the number of distinct gold
    triples, t_query as a float) where the kernel takes every example (`checked_gold`, `evidence_codes`); None
    at the first it does not: the module's checked loop then words the error, or takes what it takes."""
    predictions: list = []
    references: list[int] = []
    times: list[float] = []
    for i in range(len(evidences)):
        checked = _checked(t_queries[i], golds[i], space)
        codes = None if checked is None else evidence_codes(checked, evidences[i], space)
        if checked is None or codes is None:
            return None
        predictions.append({"hits": codes[0], "repeats": codes[1]})
        references.append(len(checked[1]))
        times.append(checked[0])
    return predictions, references, times


def _unicode(text: str) -> bool:
    """Whether UTF-8 can encode `text` (a lone surrogate it cannot: Arrow refused those when the module stored
    the strings, and the module still does)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def item_codes(t_query: float, gold: AbstractSet[Triple], triples: list, times: list) -> tuple[list[int], list[bool]]:
    """`evidence_codes` of items the checked path checked, given flat (any str subclass kept as it is)."""
    index = {triple: i for i, triple in enumerate(gold)}
    hits: list[int] = []
    repeats: list[bool] = []
    seen: set[tuple[Triple, float, float]] = set()
    for i in range(len(times) // 2):
        _code((triples[3 * i], triples[3 * i + 1], triples[3 * i + 2]), times[2 * i], times[2 * i + 1], t_query,
              index, seen, hits, repeats)
    return hits, repeats


def _code(triple: Triple, start: float, end: float, t_query: float, index: dict, seen: set, hits: list[int],
          repeats: list[bool]) -> None:
    hits.append(index.get(triple, -1) if start <= t_query <= end else -1)
    repeats.append(_repeated(seen, triple, start, end))


def coded_row(question_id: Any, complexity: Any, operator: Any, n_gold: int, hits: list, repeats: list, top_k: int,
              dedup: bool) -> tuple:
    """The row of a question from `item_codes` and its number of distinct gold triples: `scoring.stats`' counts."""
    n_ret = n_hits = 0
    covered: set[int] = set()
    for i in range(len(hits)):
        if dedup and repeats[i]:
            continue
        n_ret += 1
        if hits[i] >= 0:
            n_hits += 1
            covered.add(hits[i])
        if n_ret == top_k:
            break
    return _row(question_id, complexity, operator, n_ret, n_hits, n_gold, len(covered))


def add_to_cells(cells: dict, keys: Any, rows: list[tuple]) -> None:
    """Adds rows of `ItemStats` fields to the cells of their keys (`keys[i]` is row i's), a cell being
    [questions, questions that retrieved, sum of TRP, sum of CCR]: the TRPs added one by one in row order,
    the CCRs summed per cell from 0, then added (as `sum` would), so the floats are those of the plain loops."""
    if _plain_rows(rows):
        _add_plain_rows(cells, keys, rows)
        return
    ccr_sums: dict = {}
    for key, row in zip(keys, rows):
        cell: list | None = cells.get(key)
        if cell is None:
            cell = cells[key] = [0, 0, 0, 0]
        cell[0] += 1
        if row[3] > 0:  # TRP is undefined without retrieval
            cell[1] += 1
            cell[2] = cell[2] + row[6]
        ccr_sums[key] = ccr_sums.get(key, 0) + row[7]
    for key, ccr_sum in ccr_sums.items():
        cells[key][3] += ccr_sum


def _plain_rows(rows: list[tuple]) -> bool:
    """Whether every row holds what the kernel's rows hold: an int n_ret and CCR, a float TRP where n_ret > 0."""
    for row in rows:
        if type(row[3]) is not int or type(row[7]) is not int or row[3] > 0 and type(row[6]) is not float:
            return False
    return True


class _Sums:
    """One cell's additions within an `add_to_cells` call, unboxed: no int or float object per row."""

    def __init__(self, cell: list) -> None:
        self.cell = cell
        self.questions = 0
        self.scored = 0
        self.trp = 0.0
        # The TRP sum goes on from the cell's own: a float, or an int (0 when none was added yet), which `+` with a
        # float reads as float() does. Anything else in the cell is added to as Python adds, row by row.
        start = cell[2]
        self.exact = type(start) is float or type(start) is int and -_EXACT_INT <= start <= _EXACT_INT
        if self.exact:
            self.trp = float(start)
        self.ccr = 0


def _add_plain_rows(cells: dict, keys: Any, rows: list[tuple]) -> None:
    """`add_to_cells` of `_plain_rows`: the same additions, in the same order, on unboxed sums."""
    sums: dict[Any, _Sums] = {}
    for key, row in zip(keys, rows):
        found = sums.get(key)
        if found is None:
            cell: list | None = cells.get(key)
            if cell is None:
                cell = cells[key] = [0, 0, 0, 0]
            found = sums[key] = _Sums(cell)
        found.questions += 1
        n_ret: int = row[3]
        if n_ret > 0:
            found.scored += 1
            if found.exact:
                trp: float = row[6]
                found.trp += trp
            else:
                found.cell[2] = found.cell[2] + row[6]
        ccr: int = row[7]
        found.ccr += ccr
    for found in sums.values():
        cell = found.cell
        cell[0] += found.questions
        if found.scored:
            cell[1] += found.scored
            if found.exact:
                cell[2] = found.trp
        cell[3] += found.ccr


# The command line's question records (files.question_record) for plainly typed lines
_RECORD_STRINGS: Final = ("id", "question", "complexity", "operator_type", "split")
_TRIPLE_STRINGS: Final = ("s", "r", "o", "s_id", "r_id", "o_id")


def plain_question(raw: Any) -> bool:
    """Whether `files.question_record` would take the parsed line `raw` as it is: every documented field of the
    type the benchmark writes (strings, a finite year, lists of triples), so it needs no record of its own
    to be scored. False also for lines it would take after reading (subclasses, numeric strings)."""
    if type(raw) is not dict or raw.get("id") is None or raw.get("S_star") is None:
        return False
    t_query = _time(raw.get("t_query"))
    return t_query - t_query == 0.0 and _plain_fields(raw) and _plain_triples(raw.get("S_star"))


def plain_gold(raw: Any, space: str) -> Checked | None:
    """`checked_gold(raw, space)` of a line `plain_question` takes, None for any other: both in one pass over
    the gold triples (each key read once)."""
    if type(raw) is not dict or raw.get("id") is None:
        return None
    t_query = _time(raw.get("t_query"))
    gold_list = raw.get("S_star")
    if t_query - t_query != 0.0 or type(gold_list) is not list or not _plain_fields(raw):
        return None
    label = space == "label"
    gold: set[Triple] = set()
    other: set[Triple] = set()
    objects: set[Any] = set()
    for triple in gold_list:
        if type(triple) is not dict or not _plain_times(triple) or not _add_gold(triple, label, gold, other, objects):
            return None
    return t_query, gold, other, objects


def struct_gold(question: Any, space: str) -> Checked | None:
    """`plain_gold` of a question `line_types.Question` took (every field's type checked there): what
    `plain_question` asks beyond types (a finite year, distractor and stale triples each whole, years
    `_time` reads), and the gold triples added as `plain_gold` adds them."""
    t_query = _time(question.t_query)
    if t_query - t_query != 0.0 or not (_whole_triples(question.S_dist) and _whole_triples(question.S_stale)):
        return None
    label = space == "label"
    gold: set[Triple] = set()
    other: set[Triple] = set()
    objects: set[Any] = set()
    for triple in question.S_star:
        if not (_plain_time_values(triple.t_start, triple.t_end) and _add_gold_names(
                (triple.s, triple.r, triple.o), (triple.s_id, triple.r_id, triple.o_id), label, gold, other, objects)):
            return None
    return t_query, gold, other, objects


def _whole_triples(triples: Any) -> bool:
    """`_plain_triples` of `line_types.Triple`s (or None), whose strings msgspec checked."""
    if triples is not None:
        for triple in triples:
            if not (_whole((triple.s, triple.r, triple.o), (triple.s_id, triple.r_id, triple.o_id))
                    and _plain_time_values(triple.t_start, triple.t_end)):
                return False
    return True


def _plain_fields(raw: dict) -> bool:
    """The question's strings (or None) and its distractor and stale triples, as plain as `plain_question` needs."""
    for field in _RECORD_STRINGS:
        if not _text_or_none(raw.get(field)):
            return False
    return _plain_triples(raw.get("S_dist")) and _plain_triples(raw.get("S_stale"))


def _add_gold(triple: dict, label: bool, gold: set[Triple], other: set[Triple], objects: set[Any]) -> bool:
    return _add_gold_names((triple.get("s"), triple.get("r"), triple.get("o")),
                           (triple.get("s_id"), triple.get("r_id"), triple.get("o_id")), label, gold, other, objects)


def _add_gold_names(labels: Triple, ids: Triple, label: bool, gold: set[Triple], other: set[Triple],
                    objects: set[Any]) -> bool:
    """Adds a gold triple (its `labels` and `ids`) to `gold` (its names in the chosen space: non-empty strings) and
    `other` (the other space's: strings, or all absent), and their objects; False where it is not plainly so."""
    mine, theirs = (labels, ids) if label else (ids, labels)
    if not (_strings(mine[0], mine[1], mine[2]) and mine[0] and mine[1] and mine[2]):
        return False
    gold.add(mine)
    objects.add(mine[2])
    if _strings(theirs[0], theirs[1], theirs[2]):
        other.add(theirs)
        objects.add(theirs[2])
        return True
    return _absent(theirs[0], theirs[1], theirs[2])


def _plain_times(triple: dict) -> bool:
    return _plain_time_values(triple.get("t_start"), triple.get("t_end"))


def _plain_time_values(start: Any, end: Any) -> bool:
    return (start is None or _time(start) == _time(start)) and (end is None or _time(end) == _time(end))


def _plain_triples(triples: Any) -> bool:
    if triples is None:
        return True
    if type(triples) is not list:
        return False
    for triple in triples:
        if not _plain_triple(triple):
            return False
    return True


def _text_or_none(value: Any) -> bool:
    return value is None or type(value) is str


def _plain_triple(triple: Any) -> bool:
    """A gold, distractor or stale triple: strings or absent; s, r, o or s_id, r_id, o_id all given; years or absent."""
    if type(triple) is not dict:
        return False
    for key in _TRIPLE_STRINGS:
        if not _text_or_none(triple.get(key)):
            return False
    return _whole((triple.get("s"), triple.get("r"), triple.get("o")),
                  (triple.get("s_id"), triple.get("r_id"), triple.get("o_id"))) and _plain_times(triple)


def _whole(labels: Triple, ids: Triple) -> bool:
    """Whether a triple names all of s, r, o or all of s_id, r_id, o_id (`files._triple` refuses it otherwise)."""
    return None not in labels or None not in ids


# The command's loop (files.score_files): question and run files read in lockstep, a block of lines at a time
_MISSING: Final = object()
_LEFT_OUT: Final = ()  # a question another split's, or out of the subset


class Lockstep:
    """`files.iter_file_rows` for files whose every line the kernel is sure of, with no Python frame per line:
    `rows` scores a block of question lines, `unused` ends the run. Either returns None where it is not sure
    (a line orjson does not take as the exact path would, a question or evidence not plainly typed, a line
    nested deeper than the readers allow, a missing, repeated or possibly repeated id, no question
    selected): the caller then reads both files again on the checked path, which gives the same numbers or
    the located error. The run file is read only as far as the questions need (`evidence_blocks`:
    `readers._iter_raw_blocks(path, numbered=False)`), ids met ahead held as the checked path holds them, and the
    ids scored kept as its Bloom filter keeps them, so memory stays flat.

    With `decoders` (`line_types.decoders`), each line goes to msgspec first: a line it takes is typed and
    three deep at most, so only what `plain_question` asks beyond types is checked and nothing is walked;
    any other line is read by orjson as without them. After `json_kernel.DECODE_TRIES` refusals (files with a
    field outside the types, say) they are no longer tried, so such files cost what they did before."""

    def __init__(self, evidence_blocks: Any, space: str, top_k: int, dedup: bool, split: Any, keep: Any,
                 max_depth: int, decoders: Any = None) -> None:
        self.evidence, self.max_depth = json_kernel.BlockLines(evidence_blocks), max_depth
        self.space, self.top_k, self.dedup, self.split, self.keep = space, top_k, dedup, split, keep
        # line_types.Decoders' fields, or None each
        self.question_decoder: Any = None if decoders is None else decoders.question
        self.run_decoder: Any = None if decoders is None else decoders.run_line
        self.question_type: Any = None if decoders is None else decoders.question_type
        self.run_line_type: Any = None if decoders is None else decoders.run_line_type
        self.triple_type: Any = None if decoders is None else decoders.triple_type
        self.typed = json_kernel.TypedLines(None if decoders is None else decoders.error)
        self.waiting: dict[str, Any] = {}  # id -> its run line's record, read ahead of its question
        self.used = bytearray(ID_FILTER_BYTES)  # the ids scored (add_id)
        self.splits: set[Any] = set()
        self.n_selected = 0

    def rows(self, block: bytes) -> list[tuple] | None:
        """The `ItemStats` fields of the selected questions of a block of question lines, in order, or None."""
        rows: list[tuple] = []
        start = 0
        while start <= len(block):
            raw, start = json_kernel.next_line(block, start)
            question = self.typed.decode(self.question_decoder, raw)
            if question is json_kernel.NOT_DECODED:
                question = json_kernel.value_within_depth(raw, self.max_depth)
                if question is json_kernel.UNSURE and json_kernel.is_blank(raw):
                    continue
            row = None if question is json_kernel.UNSURE else self._question_row(question)
            if row is None:
                return None
            if row is not _LEFT_OUT:
                rows.append(row)
        return rows

    def _question_row(self, question: Any) -> Any:
        """A parsed question's row (a dict orjson read, or a `line_types.Question`), `_LEFT_OUT` (another
        split, not in the subset), or None."""
        typed = type(question) is self.question_type
        checked = struct_gold(question, self.space) if typed else plain_gold(question, self.space)
        if checked is None:
            return None
        question_id, split, complexity, operator = _question_fields(question, typed)
        self.splits.add(split)
        if self.split is not None and split != self.split:
            return _LEFT_OUT
        self.n_selected += 1
        if self.keep is not None and question_id not in self.keep:
            return _LEFT_OUT
        record = self._pop(question_id)
        return None if record is None else self._scored(record, checked, question_id, complexity, operator)

    def _scored(self, record: Any, checked: Checked, question_id: str, complexity: Any, operator: Any) -> Any:
        """The row of a question and its run line (a dict orjson read, or a `line_types.RunLine`), or None."""
        plain = type(record) is dict
        counts = _retrieved(checked, record["evidence"] if plain else record.evidence, self.space, self.top_k,
                            self.dedup, self.triple_type)
        if counts is None or plain and not self._scored_within_depth(record):
            return None
        n_ret, hits, n_covered = counts
        return _row(question_id, complexity, operator, n_ret, hits, len(checked[1]), n_covered)

    def unused(self) -> int | None:
        """The run file's lines never scored (read to its end), or None (some may repeat a scored id, nest too
        deeply, or no question was selected: the checked path says which). A `line_types.RunLine` nests
        within the limit (`line_types.decoders`)."""
        if not self.n_selected or self._read(None) is not _MISSING:
            return None
        for question_id, record in self.waiting.items():
            if may_hold_id(self.used, question_id) or \
                    type(record) is dict and not json_kernel.nests_within(record, self.max_depth):
                return None
        return len(self.waiting)

    def _scored_within_depth(self, record: dict) -> bool:
        """Whether a run line `evidence_row` scored nests no deeper than the readers allow. Without a cut,
        it read every item's five values (`_item`: strings and numbers): an item with no other key or field
        nests one deep (three in its line), so only the line's other fields are walked. Else all is walked."""
        evidence = record["evidence"]
        if self.top_k != 0 or self.max_depth < 3:
            return json_kernel.nests_within(record, self.max_depth)
        for item in evidence:
            if len(item) != 5:
                return json_kernel.nests_within(record, self.max_depth)
        for value in record.values():
            if value is not evidence and not json_kernel.nests_within(value, self.max_depth - 1):
                return False
        return True

    def _pop(self, question_id: str) -> Any:
        """The run line's record of `question_id` (read on to its line if not held), or None."""
        record = self.waiting.pop(question_id, None)
        if record is None:
            found = self._read(question_id)
            record = None if found is json_kernel.UNSURE or found is _MISSING else found
        if record is not None:
            add_id(self.used, question_id)
        return record

    def _read(self, until: str | None) -> Any:
        """Reads run lines, holding each, up to id `until`'s line (its record, not held) or the end
        (`_MISSING`); `json_kernel.UNSURE` where a line is not one the kernel is sure of."""
        while True:
            record = self._next_record()
            if record is _MISSING or record is json_kernel.UNSURE:
                return record
            question_id = self._run_id(record)
            if type(question_id) is not str or question_id in self.waiting:
                return json_kernel.UNSURE
            if question_id == until:
                return record
            self.waiting[question_id] = record

    def _run_id(self, record: Any) -> Any:
        """A run line's id: a `line_types.RunLine`'s, or that of an object with an evidence field; else None."""
        if type(record) is self.run_line_type:
            return record.id
        return record.get("id") if type(record) is dict and "evidence" in record else None

    def _next_record(self) -> Any:
        """The next non-blank run line's value (a `line_types.RunLine`, or orjson's, its depth not yet checked),
        `json_kernel.UNSURE`, or `_MISSING` at the end of the file."""
        raw = self.evidence.next_line()
        if raw is None:
            return _MISSING
        record = self.typed.decode(self.run_decoder, raw)
        return json_kernel.loads(raw) if record is json_kernel.NOT_DECODED else record


def _question_fields(question: Any, typed: bool) -> tuple[Any, Any, Any, Any]:
    """(id, split, complexity, operator) of a question: a `line_types.Question` (`typed`) or orjson's dict."""
    if typed:
        return question.id, question.split, question.complexity, question.operator_type
    return question.get("id"), question.get("split"), question.get("complexity"), question.get("operator_type")


# A Bloom filter of ids in 1 MiB (2**23 bits, 3 hashes), whatever the number of questions (no false negatives):
# the bits of files._IdFilter and of the lockstep's ids scored.
ID_FILTER_BYTES: Final = 1 << 20


def add_id(bits: bytearray, key: Any) -> None:
    key_hash = hash(key)
    _set(bits, key_hash & 0x7FFFFF)
    _set(bits, key_hash >> 23 & 0x7FFFFF)
    _set(bits, key_hash >> 46 & 0x7FFFFF)


def may_hold_id(bits: bytearray, key: Any) -> bool:
    key_hash = hash(key)
    return _has(bits, key_hash & 0x7FFFFF) and _has(bits, key_hash >> 23 & 0x7FFFFF) and \
        _has(bits, key_hash >> 46 & 0x7FFFFF)


def _set(bits: bytearray, bit: int) -> None:
    bits[bit >> 3] |= 1 << (bit & 7)


def _has(bits: bytearray, bit: int) -> bool:
    return bits[bit >> 3] >> (bit & 7) & 1 == 1
