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

from collections.abc import Set as AbstractSet
from typing import Any, Final

SPACES: Final = {"label": ("s", "r", "o"), "id": ("s_id", "r_id", "o_id")}
OTHER: Final = {"label": "id", "id": "label"}
_EXACT_INT: Final = 2**53  # ints up to this size convert to float exactly, as float() would
_UNSURE: Final = float("nan")

Triple = tuple  # (s, r, o): a boxed tuple, so that set lookups and adds do not box it again each time


def _time(value: Any) -> float:
    """`value` as a float where it is a float or a plain int float() converts exactly; NaN where unsure."""
    if type(value) is float:
        return value
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


def _item(item: Any, s_key: str, r_key: str, o_key: str) -> tuple[Triple, float, float]:
    """A retrieved item as ((s, r, o), t_start, t_end) where it is plainly a dict or a 5-tuple of strings and
    numbers; a NaN start where it is not (or lacks a key: a missing key reads as None, which nothing lets through)."""
    if type(item) is dict:
        s, r, o = item.get(s_key), item.get(r_key), item.get(o_key)
        start, end = _time(item.get("t_start")), _time(item.get("t_end"))
    elif _is_list(item) and len(item) == 5:
        s, r, o, start, end = item[0], item[1], item[2], _time(item[3]), _time(item[4])
    else:
        return (), _UNSURE, _UNSURE
    return ((s, r, o), start, end) if _strings(s, r, o) and end == end else ((), _UNSURE, _UNSURE)


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


def checked_gold(question: Any, space: str) -> tuple[float, set[Triple], set[Triple]] | None:
    """(t_query, distinct gold (s, r, o) in `space`, those in the other space) of a plainly typed question, or None."""
    if type(question) is not dict:
        return None
    t_query = _time(question.get("t_query"))
    gold_list = question.get("S_star")
    if t_query - t_query != 0.0 or not _is_list(gold_list):
        return None  # NaN, infinite or not plainly a number; S_star not a list
    gold = _gold(gold_list, SPACES[space], True)
    other = _gold(gold_list, SPACES[OTHER[space]], False)
    return None if gold is None or other is None else (t_query, gold, other)


def evidence_row(question: dict, checked: tuple[float, set[Triple], set[Triple]], evidence: Any, space: str,
                 top_k: int, dedup: bool) -> tuple | None:
    """(id, complexity, operator, n_ret, hits, n_gold, trp, ccr) of a question (`checked`: its `checked_gold`)
    and its plainly typed evidence, or None. `space`, `dedup` are checked options; `top_k` 0 keeps every item."""
    if not _is_list(evidence):
        return None
    t_query, gold, other = checked
    s_key, r_key, o_key = SPACES[space]
    n_ret = hits = 0
    covered: set[Triple] = set()
    seen: set[tuple[Triple, float, float]] = set()
    for item in evidence:
        triple, start, end = _item(item, s_key, r_key, o_key)
        if start != start:
            return None
        if dedup and _repeated(seen, triple, start, end):
            continue
        n_ret += 1
        if triple in gold:
            if start <= t_query <= end:  # the retrieved triple's own interval
                hits += 1
                covered.add(triple)
        elif triple in other:
            return None  # evidence in the other space: the checked path says so
        if n_ret == top_k:
            break
    return _row(question.get("id"), question.get("complexity"), question.get("operator_type"), n_ret, hits, len(gold),
                len(covered))


def evidence_codes(checked: tuple[float, set[Triple], set[Triple]], evidence: Any, space: str
                   ) -> tuple[list[int], list[bool]] | None:
    """What the evaluate module stores of a question's plainly typed evidence (`checked`: its `checked_gold`):
    per item, the index of the gold triple it hits (-1: none) and whether it repeats an earlier item exactly
    (what `dedup` drops); `coded_row` scores them under any `top_k` and `dedup`. None: take the checked path."""
    if not _is_list(evidence):
        return None
    t_query, gold, other = checked
    s_key, r_key, o_key = SPACES[space]
    index = {triple: i for i, triple in enumerate(gold)}
    hits: list[int] = []
    repeats: list[bool] = []
    seen: set[tuple[Triple, float, float]] = set()
    for item in evidence:
        triple, start, end = _item(item, s_key, r_key, o_key)
        if start != start or triple in other and triple not in gold or not _unicode(triple):
            return None  # not plainly typed; in the other space; not Unicode (the checked path says which)
        _code(triple, start, end, t_query, index, seen, hits, repeats)
    for triple in gold:
        if not _unicode(triple):
            return None
    return hits, repeats


def _unicode(triple: Triple) -> bool:
    """Whether UTF-8 can encode every string (a lone surrogate it cannot: Arrow refused those when the module
    stored the strings, and the module still does)."""
    for text in triple:
        if not text.isascii():
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


# The command line's question records (files.question_record) for plainly typed lines
_RECORD_STRINGS: Final = ("id", "question", "complexity", "operator_type", "split")
_TRIPLE_FIELDS: Final = ("S_star", "S_dist", "S_stale")
_TRIPLE_STRINGS: Final = ("s", "r", "o", "s_id", "r_id", "o_id")


def plain_question(raw: Any) -> bool:
    """Whether `files.question_record` would take the parsed line `raw` as it is: every documented field of the
    type the benchmark writes (strings, a finite year, lists of triples), so it needs no record of its own
    to be scored. False also for lines it would take after reading (subclasses, numeric strings)."""
    if type(raw) is not dict or raw.get("id") is None or raw.get("S_star") is None:
        return False
    t_query = _time(raw.get("t_query"))
    return t_query - t_query == 0.0 and all(_text_or_none(raw.get(field)) for field in _RECORD_STRINGS) and \
        all(_plain_triples(raw.get(field)) for field in _TRIPLE_FIELDS)


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
    if None in (triple.get("s"), triple.get("r"), triple.get("o")) and \
            None in (triple.get("s_id"), triple.get("r_id"), triple.get("o_id")):
        return False
    start, end = triple.get("t_start"), triple.get("t_end")
    return (start is None or _time(start) == _time(start)) and (end is None or _time(end) == _time(end))
