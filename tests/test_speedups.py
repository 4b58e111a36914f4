"""The speed-ups change no value and no message: each is checked against the path it shortcuts.

- JSON: orjson (the `fast` extra) against the stdlib's `json`, on the texts where they differ and on
  random JSON values: the same value (and types) or the same error, through `readers.parse_json`.
- evaluate: `PreparedFeatures.encode_batch` (columns passed through where encoding is the identity)
  against datasets' own `Features.encode_batch`, on exact, mixed and nested columns.
- TempBench: `kernel` (plainly typed questions and evidence, no error path) against the checked path
  (`check_question`, `check_evidence`, `stats`), on random inputs with one odd value among plain ones
  and on benchmark-shaped runs: the same row, value and type, or (through `checked_row`) the same error.
  The command's lockstep, reading lines by msgspec's typed lines first (`line_types`) and by orjson
  alone, against the checked path; a line msgspec takes against the stdlib's reading of its text.
- Readers: blocks of lines (`_iter_raw_blocks`, numbered, unnumbered or split) against one `readline` per
  line, under random block sizes and line limits: the same lines, records and numbers, and the same first
  error after them.
- MC-TACO: `kernel` (plain TSV lines and labels) against the checked path (`read_references`,
  `read_predictions`, `item_stats`) on random and one-odd-field files: the same statistics, or None
  and then, through `file_stats`, the same statistics, warnings or error.
- TSVer: `kernel` (a plain gold or prediction line parsed and checked in one pass) against the checked path
  (`parse_json`, `check_gold`, `_prediction`) on random lines and files with odd values and odd JSON text: the
  same record, aligned predictions and warnings, or the same error; `coverage`'s series against sets of years; the
  command's sums (`summarize`, `kernel.claim_rows`) against `score`'s ItemStats: the same result, or `score`'s;
  the command's reads (`_summed_files`: in step, streamed; msgspec's typed lines first and orjson alone) against
  reading both files whole; a pair of lines msgspec takes against the stdlib's reading and the dict path's row.
- WebNLG: the cost's alignment cells counted per distinct triple against the pair-by-pair sum; `checked_entries`
  against `check_cost` and `check_entry`; the kernel's column sums.
"""

import contextlib
import fractions
import itertools
import json
import math
import re
import warnings

import datasets
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from benchscore.core import json_kernel, readers
from benchscore.core.metric import PreparedFeatures

orjson = pytest.importorskip("orjson", reason="orjson is not installed (the fast extra; CI installs it)")

EDGES = ['{"a": 1, "a": 2}', '"\\ud800"', '["\\udc00x"]', '"\\ud83d\\ude00"', "1e400", "-1e400", "-0", "-0.0",
         "123456789012345678901234567890", "-9223372036854775809", "18446744073709551616", "9223372036854775807",
         "[1.5e-400]", '{"a": NaN}', "Infinity", "-Infinity", '"\\u0000"', ' {"a":1} ', '{"a":1}x', "1.0", "1E2",
         '"\t"', "0.1", "4.9e-324", "1" * 19, "1" * 25 + ".5", '{"id": "Q1234567890123456789012"}', "[]", "{}",
         "[" * 70 + "]" * 70, "[" * 2000 + "]" * 2000, "", "nul", "true", '"\\x"', "01", "[1,]", '{"a" 1}']


def both(text):
    """parse_json's outcome with orjson and with the stdlib alone: (type and repr of the value) or the message."""
    outcomes = []
    for fast in (orjson, None):
        previous, readers.orjson = readers.orjson, fast
        try:
            value = readers.parse_json(text, "f.jsonl:1")
            outcomes.append(("value", _typed(value)))
        except readers.InputError as err:
            outcomes.append(("error", str(err)))
        finally:
            readers.orjson = previous
    return outcomes


def _typed(value):
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    return type(value).__name__, repr(value)


_json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=3),
                            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner,
                                                                                         max_size=3), max_leaves=12)


@settings(max_examples=1000, deadline=None)
@given(_json_values, st.integers(0, 6))
def test_nests_within_is_the_readers_depth(value, levels):
    """`json_kernel.nests_within` (the kernels' depth check, scalars skipped without a call) says what the readers'
    `_depth` says: lists and objects nest at most `levels` deep."""
    assert json_kernel.nests_within(value, levels) == (readers._depth(value) <= levels)


@pytest.mark.parametrize("text", EDGES)
def test_orjson_reads_as_the_stdlib_reads(text):
    fast, plain = both(text)
    assert fast == plain


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_orjson_reads_random_json_as_the_stdlib(value):
    text = json.dumps(value, ensure_ascii=False)
    fast, plain = both(text)
    assert fast == plain


FEATURES = datasets.Features({"flag": datasets.Value("bool"), "text": datasets.Value("string"),
                              "count": datasets.Value("int64"), "share": datasets.Value("float64"),
                              "label": datasets.ClassLabel(names=["no", "yes"]),
                              "spans": datasets.List({"from": datasets.Value("int32"), "to": datasets.Value("int32")})})


class Text(str):
    pass


@pytest.mark.parametrize("batch", [
    {"flag": [True, False], "text": ["a", ""], "count": [1, -2], "share": [0.5, 1.0], "label": [0, 1],
     "spans": [[{"from": 1, "to": 2}], []]},
    {"flag": [1, 0], "text": [Text("a"), 3], "count": [True, 2], "share": [1, 0.5], "label": ["yes", "no"],
     "spans": [[{"from": 1.0, "to": 2}], [{"from": 3, "to": 4, "extra": 5}]]},
    {"flag": [None, True], "text": [None, "b"], "count": [None, 1], "share": [float("nan"), None], "label": [None, 1],
     "spans": [None, [{"from": 1, "to": 2}]]},
])
def test_prepared_features_encode_as_datasets_encodes(batch):
    ours, theirs = PreparedFeatures(FEATURES).encode_batch(batch), FEATURES.encode_batch(batch)
    assert _typed_nan(ours) == _typed_nan(theirs)


def _typed_nan(value):
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    if isinstance(value, dict):
        return {key: _typed_nan(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed_nan(item) for item in value]
    return type(value).__name__, repr(value)


def test_prepared_features_refuse_what_datasets_refuses():
    with pytest.raises(ValueError, match="Column mismatch"):
        PreparedFeatures(FEATURES).encode_batch({"flag": [True]})


def _tsver_examples():
    """Accepted TSVer examples (checked by the module's `_prepare`), the plain and the unusual: tuples for
    lists, numpy ints for years, str and int subclasses, None where allowed."""
    import numpy as np

    class Label(str):
        pass

    rows = [{"series": "rainfall", "ranges": [{"from": 2000, "to": 2004}]}]
    references = [{"claim": "c1", "verdict": "Supported", "justifications": ["j"], "time_series": rows},
                  {"claim": Label("c2"), "verdict": Label("Refuted"), "justifications": [],
                   "time_series": ({"series": "gdp", "ranges": [{"from": np.int64(1990), "to": np.int32(1999)}]},)},
                  {"claim": "c3", "verdict": "Not Enough Evidence", "justifications": ["a", Label("b")],
                   "time_series": []}]
    predictions = [{"verdict": "supported.", "explanation": None, "time_series": rows},
                   {"verdict": None, "explanation": None, "time_series": None},
                   {"verdict": Label("refuted"), "explanation": Label("e"),
                    "time_series": [{"series": Label("x"), "ranges": [{"from": np.int16(3), "to": 4}]}]}]
    return predictions, references


def test_tsver_stores_in_arrow_what_datasets_encoding_stores():
    """TSVer's features skip encoding (its `_prepare` checks every example's keys and types): Arrow must
    store exactly what it stores after datasets' encoding, for every kind of value `_prepare` accepts."""
    import pyarrow as pa

    from benchscore.tsver import scoring

    module = pytest.importorskip("benchscore").load("tsver")
    predictions, references = _tsver_examples()
    for index, (p, r) in enumerate(zip(predictions, references)):
        scoring.check_example(p, r, index)  # every example is one the module accepts
    features = module._info().features
    assert type(features).encode_batch is not PreparedFeatures.encode_batch  # (StoredAsPrepared: no encoding)
    batch = {"predictions": predictions, "references": references}
    encoded = datasets.Features(features).encode_batch(batch)
    for key in batch:
        arrow_type = features.arrow_schema.field(key).type
        assert pa.array(batch[key], type=arrow_type).equals(pa.array(encoded[key], type=arrow_type)), key
    # and through the module end to end: the numbers of the pure path on the same claims
    gold, aligned = zip(*map(scoring.from_example, predictions, references))
    got = module.compute(predictions=predictions, references=references)
    pure = scoring.score(list(gold), list(aligned))
    assert {k: got[k] for k in ("tscs", "verdict_accuracy", "n_claims")} == {
        k: pure[k] for k in ("tscs", "verdict_accuracy", "n_claims")}


# TempBench: kernel.checked_gold/evidence_row (plainly typed inputs) against the checked path
class Label(str):
    """A str subclass: accepted by the checked path, never by the kernel's exact-type tests."""


# Plain lists (so that rows are scored, with hits), each with at most one item of a kind the kernel must
# leave alone, at a random place.
def _mostly(plain, odd):
    """`plain`, and one time in eight `odd`."""
    return st.tuples(st.integers(0, 7), plain, odd).map(lambda drawn: drawn[2] if drawn[0] == 0 else drawn[1])


_plain_names = st.sampled_from(["A", "B"])
_plain_times = st.one_of(st.integers(1993, 1995), st.sampled_from([1993.0, 1994.0, 1995.0]), st.floats(1993, 1995))
_names = _mostly(_plain_names, st.sampled_from(["", Label("A"), None, 1]))
_times = _mostly(_plain_times, st.sampled_from([True, None, "1994", math.nan, math.inf, -math.inf, 2**53, 2**53 + 1,
                                                10**400, -0.0]))
_keys = st.sampled_from(["s", "r", "o", "s_id", "r_id", "o_id", "t_start", "t_end"])


def _dict_triple(names, times):
    return st.fixed_dictionaries({key: names for key in ("s", "r", "o", "s_id", "r_id", "o_id")} |
                                 {"t_start": times, "t_end": times})


def _with_one(plain, odd, max_size=6):
    """Lists of `plain` items, with one `odd` item (or none) put in at a random place."""
    def put(drawn):
        items, item, at = drawn
        return items if item is None else items[:at] + [item] + items[at:]
    return st.tuples(st.lists(plain, max_size=max_size), _mostly(st.none(), odd), st.integers(0, max_size)).map(put)


_plain = st.one_of(_dict_triple(_plain_names, _plain_times), st.tuples(*[_plain_names] * 3, *[_plain_times] * 2))
_odd = st.one_of(_dict_triple(_names, _times), st.dictionaries(_keys, st.one_of(_names, _times)),
                 st.tuples(_names, _names, _names, _times, _times), st.lists(_names, max_size=6), st.just("A"),
                 st.none(), _dict_triple(_plain_names, _plain_times).map(lambda d: {k: d[k] for k in list(d)[3:]}))
_gold = _with_one(_dict_triple(_plain_names, _plain_times), _odd, max_size=3)
_question = st.fixed_dictionaries({"id": st.one_of(st.just("q"), st.none()), "t_query": _times,
                                   "S_star": st.one_of(_gold, _gold, _gold.map(tuple), st.just("x"))},
                                  optional={"complexity": st.just("1hop"), "operator_type": st.just("before")})
_evidence = st.one_of(_with_one(_plain, _odd), _with_one(_plain, _odd).map(tuple), st.just({}))


def _checked_path(question, evidence, space, top_k, dedup):
    from benchscore.tempbench_trp import scoring

    try:
        checked = scoring.check_question(question, space)
        return "row", scoring._row_of(scoring.stats(checked, scoring.check_evidence(evidence, space, checked.where),
                                                   top_k, dedup))
    except (ValueError, TypeError) as err:
        return "error", f"{type(err).__name__}: {err}"


def _codes_of_checked_items(question, evidence, space):
    """`kernel.item_codes` of every item as the checked path reads it (None where one is refused or is in the
    other space: the module refuses those examples)."""
    from benchscore.tempbench_trp import kernel, scoring

    checked = scoring.check_question(question, space)
    try:
        items = list(scoring.check_evidence(evidence, space, checked.where))
    except (ValueError, TypeError):
        return None
    if any(triple in checked.other_gold and triple not in checked.gold for triple, _, _ in items):
        return None
    triples = [value for triple, _, _ in items for value in triple]
    return kernel.item_codes(checked.t_query, checked.gold, triples, [t for _, *times in items for t in times])


def _typed_row(outcome):
    kind, value = outcome
    return (kind, [(type(v), repr(v)) for v in value]) if kind == "row" else outcome


def _cells_one_by_one(cells, keys, rows):
    """`kernel.add_to_cells` as the plain loops it stands for: each row's additions as Python makes them."""
    ccr_sums = {}
    for key, row in zip(keys, rows):
        cell = cells.setdefault(key, [0, 0, 0, 0])
        cell[0] += 1
        if row[3] > 0:
            cell[1] += 1
            cell[2] = cell[2] + row[6]
        ccr_sums[key] = ccr_sums.get(key, 0) + row[7]
    for key, ccr_sum in ccr_sums.items():
        cells[key][3] += ccr_sum


_trp = st.floats(0, 1) | st.sampled_from([0.1, 1 / 3, 2 / 3])
_cell_row = st.tuples(st.sampled_from(["1hop", "2hop", None, 7]), st.integers(0, 3), _trp, st.integers(0, 1)).map(
    lambda r: ("id", r[0], "op", r[1], 0, 1, r[2] if r[1] else None, r[3]))
_odd_cell_row = st.tuples(st.sampled_from(["1hop", None]), st.sampled_from([0, 2, True, 2.0]),
                          st.sampled_from([1, 0.5, True, fractions.Fraction(1, 3), 2**60]),
                          st.sampled_from([0, 1, True, 1.0])).map(
    lambda r: ("id", r[0], "op", r[1], 0, 1, r[2] if r[1] else None, r[3]))


@settings(max_examples=800, deadline=None)
@given(st.lists(st.lists(_cell_row, max_size=12) | st.lists(_cell_row | _odd_cell_row, max_size=6), max_size=5),
       st.sampled_from([0, 0.25, 2**60, fractions.Fraction(1, 7)]))
def test_tempbench_cells_add_as_the_plain_loops(chunks, start):
    """`add_to_cells` (unboxed sums where every row is the kernel's kind) gives the plain loops' cells, value and
    type, chunk after chunk: floats added in row order on from the cell's sum, whatever it holds; a caller's own
    numbers (an int or Fraction TRP, a bool, a float CCR) as Python adds them."""
    from benchscore.tempbench_trp import kernel

    ours, plain = {"1hop": [1, 1, start, 0]}, {"1hop": [1, 1, start, 0]}
    for rows in chunks:
        kernel.add_to_cells(ours, [row[1] for row in rows], rows)
        _cells_one_by_one(plain, [row[1] for row in rows], rows)
        assert _typed(ours) == _typed(plain)
        assert list(ours) == list(plain)


@settings(max_examples=1500, deadline=None)
@given(_question, _evidence, st.sampled_from(["label", "id"]), st.sampled_from([None, 1, 2]), st.booleans())
def test_tempbench_kernel_agrees_with_the_checked_path(question, evidence, space, top_k, dedup):
    """Where the kernel returns a row, the checked path returns the same (values and types); wherever the
    kernel is unsure, `checked_row` gives the checked path's row or error, word for word."""
    from benchscore.tempbench_trp import kernel, scoring

    expected = _checked_path(question, evidence, space, top_k, dedup)
    gold = kernel.checked_gold(question, space)
    row = None if gold is None else kernel.evidence_row(question, gold, evidence, space, top_k or 0, dedup)
    if row is not None:
        assert _typed_row(("row", row)) == _typed_row(expected)
    # The evaluate module's stored codes, from the kernel or (any checked evidence) from the checked items:
    codes = None if gold is None else kernel.evidence_codes(gold, evidence, space)
    if codes is None and expected[0] == "row":
        codes = _codes_of_checked_items(question, evidence, space)
    if codes is not None:
        n_gold = len(scoring.check_question(question, space).gold)
        coded = kernel.coded_row(question.get("id"), question.get("complexity"), question.get("operator_type"),
                                 n_gold, *codes, top_k or 0, dedup)
        assert _typed_row(("row", coded)) == _typed_row(expected)
    try:
        got = "row", scoring.checked_row(question, evidence, space, top_k, dedup)
    except (ValueError, TypeError) as err:
        got = "error", f"{type(err).__name__}: {err}"
    assert _typed_row(got) == _typed_row(expected)


def test_tempbench_kernel_takes_the_benchmark_shaped_questions():
    """The kernel is not a no-op: plainly typed questions of both spaces, tuples among the items, are its own."""
    from benchscore.tempbench_trp import kernel

    gold = [{"s": "A", "r": "rel", "o": "B", "s_id": "Q1", "r_id": "P1", "o_id": "Q2"}]
    question = {"id": "q", "t_query": 1994, "S_star": gold}
    evidence = [{"s": "A", "r": "rel", "o": "B", "t_start": 1994.0, "t_end": 1994}, ("A", "rel", "C", 1990, 2000.0)]
    checked = kernel.checked_gold(question, "label")
    assert checked == (1994.0, {("A", "rel", "B")}, {("Q1", "P1", "Q2")}, {"B", "Q2"})  # and the objects of both
    assert kernel.evidence_row(question, checked, evidence, "label", 0, False) == \
        ("q", None, None, 2, 1, 1, 0.5, 1)
    id_evidence = [{"s_id": "Q1", "r_id": "P1", "o_id": "Q2", "t_start": 1994.0, "t_end": 1994.0}]
    assert kernel.evidence_row(question, kernel.checked_gold(question, "id"), id_evidence, "id", 0, False)[6] == 1.0
    assert kernel.evidence_row(question, checked, id_evidence, "label", 0, False) is None  # the other space


@pytest.mark.parametrize("top_k, dedup", [(None, False), (3, False), (None, True), (2, True)])
def test_tempbench_kernel_scores_benchmark_shaped_runs_as_the_checked_path(top_k, dedup):
    """Benchmark-shaped questions (bench_tempbench's generator: gold, stale copies, distractors, many hits):
    every one is the kernel's, and its row equals the checked path's, value and type."""
    import importlib.util

    from conftest import REPO

    from benchscore.tempbench_trp import kernel

    spec = importlib.util.spec_from_file_location("bench_tempbench", REPO / "scripts" / "bench_tempbench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rows = []
    for question, evidence in bench.make_pool(2000, seed=7):
        row = kernel.evidence_row(question, kernel.checked_gold(question, "label"), evidence, "label", top_k or 0, dedup)
        assert _typed_row(("row", row)) == _typed_row(_checked_path(question, evidence, "label", top_k, dedup))
        rows.append(row)
    assert sum(row[4] for row in rows) > 500 and 0 < sum(row[7] for row in rows) < len(rows)  # hits, some CCR


def test_the_kernels_are_compiled_where_the_build_had_a_compiler():
    """CI sets BENCHSCORE_REQUIRE_COMPILED=1 (its machine has gcc): a build that fell back to Python (a mypyc
    type error in a kernel, a missing compiler) fails here rather than passing slower."""
    import ast
    import importlib
    import os
    import pathlib

    setup = ast.parse((pathlib.Path(__file__).parents[1] / "setup.py").read_text(encoding="utf-8"))
    listed = next(ast.literal_eval(node.value) for node in setup.body
                  if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "KERNELS")
    assert "metrics/tsver/kernel.py" in listed  # the list is read, not a copy of it
    kernels = [importlib.import_module("benchscore." + path.removeprefix("metrics/").removesuffix(".py").replace("/", "."))
               for path in listed]
    python = [kernel.__file__ for kernel in kernels if kernel.__file__.endswith(".py")]
    if os.environ.get("BENCHSCORE_REQUIRE_COMPILED") != "1":
        pytest.skip(f"{len(kernels) - len(python)} of {len(kernels)} kernels are compiled here "
                    "(BENCHSCORE_REQUIRE_COMPILED unset)")
    assert not python, f"{python}: the kernels were installed as Python (see setup.py)"


_line_strings = st.one_of(st.none(), _names)
_line_triple = st.one_of(_dict_triple(_names, _mostly(st.one_of(_plain_times, st.none()), _times)),
                         st.dictionaries(_keys, st.one_of(_names, _times)), st.just("x"))
_line_triples = st.one_of(st.none(), _with_one(_dict_triple(_plain_names, _plain_times), _line_triple, 3),
                          st.tuples(_line_triple), st.just({}))
_line = st.fixed_dictionaries({"id": _mostly(st.just("q"), st.one_of(st.none(), st.just(1), st.just(Label("q")))),
                               "t_query": _times, "S_star": _line_triples},
                              optional={"question": _line_strings, "complexity": _line_strings, "split": _line_strings,
                                        "operator_type": _line_strings, "S_dist": _line_triples,
                                        "S_stale": _line_triples, "extra": _times})


@settings(max_examples=1000, deadline=None)
@given(_line, _evidence, st.sampled_from(["label", "id"]))
@example(raw={"id": "q", "t_query": 1993, "S_star": [{"s": "", "r": "", "o": "", "s_id": ""}]}, evidence={},
         space="id")  # found by CI: the record's message listed the fields it holds as None
def test_tempbench_plain_lines_score_as_their_records(raw, evidence, space):
    """A question line `kernel.plain_question` takes is one `files.question_record` takes, and scored as parsed
    it gives its record's row, value and type (or its error, word for word)."""
    from benchscore.tempbench_trp import files, kernel

    if not kernel.plain_question(raw):
        return
    record = files.question_record(raw, "q.jsonl:1")  # raises if the kernel took a line it should not
    assert _typed_row(_checked_path(raw, evidence, space, None, False)) == \
        _typed_row(_checked_path(record, evidence, space, None, False))


def test_tempbench_plain_lines_are_the_benchmark_lines():
    """The benchmark's question files are plain: the command line builds no record to score them."""
    from conftest import shared_path

    from benchscore.core.readers import iter_jsonl
    from benchscore.tempbench_trp import kernel

    lines = [raw for name in ("questions_point.jsonl", "questions_interval.jsonl")
             for _, raw in iter_jsonl(shared_path("data", "tempbench", "fixtures", name), "a question")]
    assert len(lines) == 410 and all(map(kernel.plain_question, lines))


_line_bytes = st.one_of(
    st.sampled_from([b"", b"\n", b"  \r\n", b"\xc2\xa0\n", b"{}\r\n", b'{"a": 1}', b"[1, 2]\n", b'"x"\n', b"1e400\n",
                     b"NaN\n", b'{"a": NaN}\n', b'"\\ud800"\n', b'"\\ud83d\\ude00"\n', b'"\xed\xa0\x80"\n',
                     b'{"a": "\xff"}\n', b"{} \x0c\n", b"{}\x00\n", b"1" * 19 + b"\n", b'{"n": 12345678901234567890}\n',
                     b"[" * 70 + b"]" * 70 + b"\n", b'{"a": [{"b": {}}]}\n', b"\xef\xbb\xbf{}\n", b'{"a" 1}\n']),
    st.builds(lambda value: json.dumps(value).encode() + b"\n", json_values))


@settings(max_examples=300, deadline=None)
@given(st.lists(_line_bytes, min_size=1, max_size=6), st.booleans())
def test_jsonl_lines_read_from_bytes_as_from_their_text(tmp_path_factory, lines, objects_only):
    """iter_jsonl reads each line's bytes with orjson where it can: the records, their line
    numbers and types, or the error, are those of the exact path (decoded text, the stdlib's json)."""
    path = tmp_path_factory.mktemp("jsonl") / "f.jsonl"
    path.write_bytes(b"".join(line if line.endswith(b"\n") else line + b"\n" for line in lines))
    outcomes = []
    for fast in (orjson, None):
        previous, readers.orjson = readers.orjson, fast
        try:
            outcomes.append(("records", [(n, _typed(v)) for n, v in readers.iter_jsonl(path, "x", objects_only)]))
        except readers.InputError as err:
            outcomes.append(("error", str(err)))
        finally:
            readers.orjson = previous
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("where", ["s", "s_id", "t_start", "item", "t_query", "complexity", "id", "S_dist"])
def test_tempbench_kernel_never_compares_a_users_value(where):
    """A value whose == is not a bool (a numpy array) anywhere in a question or its evidence: the kernel only
    tests types and identity on it, so it answers None (or a row) and the checked path gives its own outcome."""
    import numpy as np

    from benchscore.tempbench_trp import kernel, scoring

    odd = np.array([1, 2])
    gold = {"s": "A", "r": "rel", "o": "B", "s_id": "Q1", "r_id": "P1", "o_id": "Q2"}
    item = {"s": "A", "r": "rel", "o": "B", "t_start": 1994.0, "t_end": 1994.0}
    question = {"id": "q", "t_query": 1994.0, "S_star": [gold], "complexity": "1hop", "S_dist": []}
    if where in gold:
        gold[where] = odd
    elif where in item:
        item[where] = odd
    elif where == "item":
        item = odd
    else:
        question[where] = [odd] if where == "S_dist" else odd
    evidence = [item]
    assert kernel.plain_question(question) in (True, False)
    expected = _checked_path(question, evidence, "label", None, False)
    try:
        got = "row", scoring.checked_row(question, evidence, "label", None, False)
    except (ValueError, TypeError) as err:
        got = "error", f"{type(err).__name__}: {err}"
    assert got[0] == expected[0] and (got == expected if got[0] == "error" else True)


def _lines_one_at_a_time(path):
    """The readers' lines as they were read before blocks, one `readline` each: the oracle of the block reader."""
    with open(path, "rb") as f:
        number = 0
        while raw := f.readline(readers.MAX_LINE_BYTES + 1):
            number += 1
            if len(raw) > readers.MAX_LINE_BYTES:
                raise readers.at_line(path, number, f"the line is longer than {readers.MAX_LINE_BYTES >> 20} MiB; "
                                                    "expected one record per line")
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            yield number, raw


def _plain_json(raw):
    """The rule iter_jsonl keeps for one line, as it was written per line before blocks: orjson's value
    of the bytes unless they may nest deeper than `MAX_DEPTH` or hold an integer past 64 bits."""
    if readers.orjson is None or raw.count(b"[") + raw.count(b"{") > readers.MAX_DEPTH:
        return readers._UNSURE
    return readers._orjson_value(raw)


def _jsonl_one_at_a_time(path):
    for number, raw in _lines_one_at_a_time(path):
        record = _plain_json(raw)
        if record is readers._UNSURE:
            line = readers.decode(raw, path, number).rstrip("\n").removesuffix("\r")
            if not line.strip():
                continue
            record = readers.parse_json(line, f"{path}:{number}")
        yield number, record


def _given_until_error(lines):
    given = []
    try:
        for item in lines:
            given.append(item)
    except readers.InputError as err:
        return given, str(err)
    return given, None


_file_pieces = st.lists(st.sampled_from([b"a", b"{}", b"[1]", b'"x"', b" ", b"\r", b"\n", b"\n", b"\r\n", b"\xff",
                                         b"\xc3\xa9", b"\xc3", b"\xef\xbb\xbf", b"\t", b"1" * 10, b"[[", b"{", b"]",
                                         b"[[[1]]]", b'{"a": {"b": {}}}', b"[[[1]]]\n", b"7" * 19 + b"\n",
                                         b"{}\n" * 4]),
                        max_size=40)


@settings(max_examples=600, deadline=None)
@given(_file_pieces, st.sampled_from([1, 2, 3, 7, 64, 1 << 20]), st.sampled_from([4, 9, 30, 64 << 20]),
       st.sampled_from([2, 64]))
def test_block_reader_gives_the_lines_and_errors_of_one_line_at_a_time(tmp_path_factory, pieces, block, limit, depth):
    """The readers read a block at a time (`_iter_raw_blocks`, numbered or not, and iter_jsonl's guards on a
    translated copy of each block); under any block size, line limit and nesting limit, every line (its number, its text,
    its JSON record) and the first error, after the same lines, are those of reading one line at a time."""
    path = tmp_path_factory.mktemp("blocks") / "f.txt"
    path.write_bytes(b"".join(pieces))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(readers, "BLOCK_BYTES", block)
        patch.setattr(readers, "MAX_LINE_BYTES", limit)
        patch.setattr(readers, "MAX_DEPTH", depth)  # 2: the bracket guard routes lines to the exact path

        def text_lines():
            for number, raw in _lines_one_at_a_time(path):
                yield number, readers.decode(raw, path, number).rstrip("\n").removesuffix("\r")

        assert _given_until_error(readers.iter_lines(path)) == _given_until_error(text_lines())
        blocks = _given_until_error((n, line) for first, lines in readers.iter_line_blocks(path)
                                    for n, line in enumerate(lines, first))
        assert blocks == _given_until_error(text_lines())
        assert _given_until_error(readers.iter_jsonl(path, objects_only=False)) == \
            _given_until_error(_jsonl_one_at_a_time(path))
        unnumbered = _given_until_error(raw for _, block in readers._iter_raw_blocks(path, numbered=False)
                                        for raw in block.split(b"\n"))  # the blocks the TempBench lockstep reads
        expected, error = _given_until_error(raw.removesuffix(b"\n") for _, raw in _lines_one_at_a_time(path))
        assert unnumbered[0] == expected and (unnumbered[1] is None) == (error is None)
        split = _given_until_error((n, raw) for first, lines in readers._iter_raw_blocks(path, split=True)
                                   for n, raw in enumerate(lines, first))  # numbered by the split (TSVer's reads)
        assert split == _given_until_error((n, raw.removesuffix(b"\n")) for n, raw in _lines_one_at_a_time(path))


# MC-TACO: kernel.add_labels/add_rows (plain lines) against the checked path (read_references, read_predictions,
# item_stats). Sentences and questions that make one official key from different fields ("s t" + "q" and
# "s" + "t q"), rows of a question that do not follow each other, odd labels, categories and tabs.
_mctaco_row = st.tuples(st.sampled_from(["s", "s t", "s\u00e9"]), st.sampled_from(["q", "t q", "", "q yes"]),
                        st.sampled_from(["a", "", "b c", "yes", "no"]),
                        _mostly(st.sampled_from(["yes", "no"]),
                                st.sampled_from(["Yes", " yes", "yes ", "no ", "nox", "maybe", ""])),
                        _mostly(st.sampled_from(["Frequency", "Stationarity"]),
                                st.sampled_from(["Event Duration", "Other", "", "Frequency\r", "xFrequency"])),
                        _mostly(st.just(""), st.sampled_from(["\t", "\tx", "\r"])))
_mctaco_label = _mostly(st.sampled_from(["yes", "no"]), st.sampled_from(["YES", " no", "x", "", "yes\r", "\ufeffno"]))


def _outcome(read):
    try:
        return "stats", read()
    except readers.InputError as err:
        return "error", str(err)


def _kernel_stats(gold, predictions):
    """The kernel's statistics of two files, or None where it hands them to the checked path."""
    from benchscore.mctaco import files, kernel, scoring

    counted = files._plain_counts(gold, predictions)
    return None if counted is None else kernel.question_stats(*counted, scoring.ItemStats)


def _checked_result(gold, predictions):
    """`score_files` on the checked path alone: `scoring.result` of the checked statistics, with the warnings."""
    from benchscore.mctaco import files, scoring

    warned: list = []
    result = scoring.result(files._item_stats(*files._aligned(gold, predictions, warned)), files.KEY_SOURCE)
    return {**result, "warnings": warned} if warned else result


@settings(max_examples=800, deadline=None)
@given(st.lists(_mctaco_row, max_size=12), st.lists(_mctaco_label, min_size=13, max_size=13),
       _mostly(st.just(0), st.sampled_from([-1, 1])), st.booleans(), st.booleans())
def test_mctaco_kernel_counts_files_as_the_checked_path(tmp_path_factory, rows, labels, extra, grouped, crlf):
    """The same per-question statistics (keys, categories, counts, order) as the checked path, or None;
    through `file_stats`, the same statistics and warnings, or the same error. Mostly one label per row."""
    from benchscore.mctaco import files

    labels = labels[:max(len(rows) + extra, 0)]
    folder = tmp_path_factory.mktemp("mctaco")
    end = "\r\n" if crlf else "\n"
    if grouped:  # rows of a question next to each other, as in the official files
        rows = sorted(rows, key=lambda row: row[:2])
    gold, predictions = folder / "gold.tsv", folder / "predictions.txt"
    gold.write_text("".join("\t".join(row[:5]) + row[5] + end for row in rows), encoding="utf-8")
    predictions.write_text("".join(label + end for label in labels), encoding="utf-8")

    checked = _outcome(lambda: files._item_stats(*files._aligned(gold, predictions)))
    fast = _kernel_stats(gold, predictions)
    assert fast is None or ("stats", fast) == checked
    warned: list[list] = [[], []]
    assert _outcome(lambda: files.file_stats(gold, predictions, warned[0])) == checked
    _outcome(lambda: files._aligned(gold, predictions, warned[1]))
    assert warned[0] == warned[1]
    assert _outcome(lambda: files.score_files(gold, predictions)) == _outcome(lambda: _checked_result(gold, predictions))


_MCTACO_ODD = {0: ["s\tx", ""], 1: ["q\tx", "t"], 2: ["yes", "a\tb"], 3: ["Yes", " yes", "yes ", "no ", "nox", "", "yes\t"],
               4: ["Other", "", "Frequency\r", "xFrequency", "Frequency\tx", "Stationarity", "Frequency "]}


@pytest.mark.parametrize("field, value", [(field, value) for field, values in _MCTACO_ODD.items() for value in values])
@pytest.mark.parametrize("label", ["yes", "no", "YES", "x"])
def test_mctaco_kernel_with_one_odd_field(tmp_path, field, value, label):
    """A plain file with one odd field in its second row (of a question with three), and one label of
    the second row's: the same statistics as the checked path, or None, and `file_stats` as the checked path."""
    from benchscore.mctaco import files

    rows = [["s", "q", "a", "yes", "Frequency"], ["s", "q", "b", "no", "Frequency"], ["s", "q", "c", "no", "Frequency"],
            ["s", "q yes", "a", "no", "Stationarity"]]
    rows[1][field] = value
    gold, predictions = tmp_path / "gold.tsv", tmp_path / "predictions.txt"
    gold.write_text("".join("\t".join(row) + "\n" for row in rows), encoding="utf-8")
    predictions.write_text(f"yes\n{label}\nno\nyes\n", encoding="utf-8")
    checked = _outcome(lambda: files._item_stats(*files._aligned(gold, predictions)))
    fast = _kernel_stats(gold, predictions)
    assert fast is None or ("stats", fast) == checked
    assert _outcome(lambda: files.file_stats(gold, predictions)) == checked
    assert _outcome(lambda: files.score_files(gold, predictions)) == _outcome(lambda: _checked_result(gold, predictions))


@pytest.mark.parametrize("gold_text", ["s\tq\ta\tmaybe\tFrequency\n", "\udcff", None])
def test_mctaco_files_a_missing_file_gets_the_checked_paths_error(tmp_path, gold_text):
    """The kernel reads the labels first, the checked path the gold file: with the predictions missing,
    the error is still the gold file's, if it has one (a bad label, a byte that is not UTF-8, missing too)."""
    from benchscore.mctaco import files

    gold, predictions = tmp_path / "gold.tsv", tmp_path / "missing.txt"
    if gold_text is not None:
        gold.write_bytes(gold_text.encode("utf-8", "surrogateescape"))

    def outcome(read):
        try:
            return "stats", read()
        except (readers.InputError, OSError) as err:
            return type(err).__name__, str(err)

    checked = outcome(lambda: files._item_stats(*files._aligned(gold, predictions)))
    assert outcome(lambda: files.file_stats(gold, predictions)) == checked
    assert str(gold if gold_text is None else gold.name) in checked[1]


def test_mctaco_kernel_takes_the_official_files():
    """Every line of the official test set and of BERT's output is plain: the kernel counts them all."""
    from conftest import shared_path

    from benchscore.mctaco import files

    gold = shared_path("data", "mctaco", "test_9442.tsv")
    predictions = shared_path("data", "mctaco", "baseline_outputs", "bert.norm.output.txt")
    fast = _kernel_stats(gold, predictions)
    assert fast is not None and fast == files._item_stats(*files._aligned(gold, predictions))
    assert files.score_files(gold, predictions) == _checked_result(gold, predictions)


@pytest.mark.parametrize("last", [b"[[[1]]]", b"12345678901234567890", b'{"a": [1, {"b": 123456789012345678901}]}'])
def test_jsonl_guards_find_the_line_after_many_lines(tmp_path, monkeypatch, last):
    """iter_jsonl's guards read each line's own bytes in its block's translated copy, however many lines
    come before it: a deep line or a long integer after 300 short lines goes to the exact path."""
    monkeypatch.setattr(readers, "MAX_DEPTH", 2)
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"1\n" * 300 + last + b"\n")
    assert _given_until_error((n, _typed(v)) for n, v in readers.iter_jsonl(path, objects_only=False)) == \
        _given_until_error((n, _typed(v)) for n, v in _jsonl_one_at_a_time(path))


# TempBench's command: kernel.Lockstep (both files in lockstep, no frame per line) against the checked path
READERS = ["msgspec", "orjson"]  # a command's lines: msgspec's typed lines first (line_types), or orjson alone


@contextlib.contextmanager
def _lines_read_by(reader):
    """TempBench's lockstep and TSVer's in-step read taking lines as `reader` says (msgspec must be installed:
    the fast and test extras bring it)."""
    from benchscore.tempbench_trp import line_types as tempbench_types
    from benchscore.tsver import line_types as tsver_types

    saved = [(module, module.decoders) for module in (tempbench_types, tsver_types)]
    for module, _ in saved:
        if reader == "orjson":
            module.decoders = lambda max_depth: None
        else:
            assert module.msgspec is not None, "msgspec is not installed (the fast and test extras bring it)"
    try:
        yield
    finally:
        for module, decoders in saved:
            module.decoders = decoders


_run_ids = st.sampled_from(["q0", "q1", "q2", "q3"])
_run_record = st.fixed_dictionaries({"id": _run_ids, "evidence": _evidence},
                                    optional={"retriever": st.sampled_from(["bm25", 1, [[{}]]])})
_odd_run_line = st.sampled_from([b"", b"\r", b"  ", b"\x0c", b"[]", b'{"id": "q9"}', b'{"evidence": []}',
                                 b'{"id": 7, "evidence": []}', b'{"id": "q0", "evidence": [' + b"[" * 70 + b"]" * 70 + b"]}",
                                 b'{"id": "q9", "evidence": [], "x": 123456789012345678901}', b'{"id": "q9", "evidence": [] ',
                                 b'{"id": "q9", "evidence": [{"s": "A", "r": "A", "o": "A", "t_start": 1e400, "t_end": 1}]}',
                                 b'{"id": "q9", "evidence": [], "x": "\\ud800"}', b"\xef\xbb\xbf" + b'{"id": "q9", "evidence": []}'])
_odd_question_line = st.sampled_from([b"", b" ", b"[]", b'{"id": "q9", "t_query": 1994, "S_star": [' + b"[" * 70 + b"]" * 70 + b"]}",
                                      b'{"id": "q9", "t_query": 12345678901234567890123, "S_star": []}',
                                      b'{"id": "q9", "t_query": 1994, "S_star": [], "x": "\\ud800"}', b"\xff"])


def _jsonl_bytes(value):
    return value if isinstance(value, bytes) else json.dumps(value).encode()


def _checked_score_files(questions, evidence, **options):
    """`score_files` on the checked path alone (`iter_file_rows`, as it was before the kernel's lockstep)."""
    from benchscore.tempbench_trp import files, scoring

    counts: dict = {}
    rows = files.iter_file_rows(questions, evidence, options.get("space", "label"), options.get("split"),
                                options.get("top_k"), options.get("dedup", False), options.get("functional_ids"), counts)
    result = scoring._summarize_rows(rows, **{k: v for k, v in options.items() if k != "split"})
    return {**result, "n_evidence_unused": counts["n_evidence_unused"]}


def _checked_file_stats(questions, evidence, **options):
    """`file_stats` on the checked path alone."""
    from benchscore.tempbench_trp import files, scoring

    return [scoring.ItemStats(*row) for row in files.iter_file_rows(
        questions, evidence, options.get("space", "label"), options.get("split"), options.get("top_k"),
        options.get("dedup", False), options.get("functional_ids"), {})]


def _without_signature(result):
    return {key: value for key, value in result.items() if key != "signature"}


def _result_or_error(read):
    """("result", what `read()` returns) or ("error", its type and message): the checked path's own errors are
    ValueErrors and TypeErrors that name the file and line, not all of them `readers.InputError`."""
    try:
        return "result", read()
    except (ValueError, TypeError) as err:
        return "error", type(err).__name__, str(err)


_plain_gold_triple = st.fixed_dictionaries(  # ids unlike labels, so that the spaces rarely meet
    {**{key: _plain_names for key in ("s", "r", "o")}, **{key: st.sampled_from(["P", "Q"]) for key in ("s_id", "r_id", "o_id")},
     "t_start": _plain_times, "t_end": _plain_times})
_plain_line = st.fixed_dictionaries(
    {"t_query": _plain_times, "S_star": st.lists(_plain_gold_triple, min_size=1, max_size=3)},
    optional={"question": st.just("?"), "complexity": st.sampled_from(["1hop", "2hop"]), "operator_type": st.just("before"),
              "split": st.sampled_from(["test", "train"]), "S_dist": st.just([]), "note": st.just([1, {"a": None}])})


@st.composite
def _tempbench_files(draw):
    """(question lines, run lines): mostly one run line per question, in any order, with at most one odd line
    (or one repeated or missing id) in either file, and odd values among the plain ones."""
    questions = draw(st.lists(_mostly(_plain_line, _line), max_size=5))
    ids = [draw(_mostly(st.just(f"q{i}"), _run_ids)) for i in range(len(questions))]
    question_lines = [_jsonl_bytes(dict(line, id=qid)) for qid, line in zip(ids, questions)]
    extra = draw(_mostly(st.just([]), st.lists(_run_record, min_size=1, max_size=1)))
    run = [{"id": qid, "evidence": draw(_mostly(st.lists(_plain, max_size=4), _evidence)),
            **draw(st.sampled_from([{}, {"retriever": "bm25"}]))}
           for qid in dict.fromkeys(ids)]
    run = [_jsonl_bytes(line) for line in draw(st.permutations(run + extra))]
    for lines, odd in ((question_lines, _odd_question_line), (run, _odd_run_line)):
        line = draw(_mostly(st.none(), odd))
        if line is not None:
            lines.insert(draw(st.integers(0, len(lines))), line)
    if run and draw(_mostly(st.just(False), st.just(True))):
        del run[draw(st.integers(0, len(run) - 1))]
    return question_lines, run


@pytest.mark.parametrize("reader", READERS)
@settings(max_examples=400, deadline=None)
@given(_tempbench_files(), st.sampled_from([{}, {}, {"top_k": 2}, {"dedup": True}, {"space": "id"}, {"split": "test"},
                                            {"functional_ids": ["q1", "q2"]}]), st.booleans())
def test_tempbench_command_scores_files_as_the_checked_path(tmp_path_factory, reader, lines, options, crlf):
    """`score_files` and `file_stats` (the kernel's lockstep, or where it is unsure, the checked path again from
    the start) give the checked path's result, `ItemStats` and count of unused lines, or its error word for
    word: on random question lines (odd values among plain ones), run files with repeated, missing, extra,
    blank, deep, long-integer and broken lines, any order, CRLF, and each option that changes a number."""
    from benchscore.tempbench_trp import files

    folder = tmp_path_factory.mktemp("tempbench")
    end = b"\r\n" if crlf else b"\n"
    q_path, e_path = folder / "questions.jsonl", folder / "run.jsonl"
    for path, file_lines in zip((q_path, e_path), lines):
        path.write_bytes(b"".join(line + end for line in file_lines))

    checked = _result_or_error(lambda: _without_signature(_checked_score_files(q_path, e_path, **options)))
    with _lines_read_by(reader):
        assert _result_or_error(lambda: _without_signature(files.score_files(q_path, e_path, **options))) == checked
        assert _result_or_error(lambda: files.file_stats(q_path, e_path, **options)) == \
            _result_or_error(lambda: _checked_file_stats(q_path, e_path, **options))


def _benchmark_shaped_files(folder, n, shuffled=False, extra=()):
    import random

    questions, run = [], []
    for i in range(n):
        gold = [{"s": f"S{i}", "r": "rel", "o": f"O{i}", "s_id": f"Q{i}", "r_id": "P1", "o_id": f"Q{i}o",
                 "t_start": 1990.0, "t_end": 2000.0}]
        questions.append({"id": f"b{i}", "question": "?", "t_query": 1995.0, "S_star": gold, "complexity": "1hop",
                          "operator_type": "before", "split": "test" if i % 2 else "train", "S_dist": [], "S_stale": []})
        run.append({"id": f"b{i}", "retriever": "bm25", "evidence": [
            {"s": f"S{i}", "r": "rel", "o": f"O{i}", "t_start": 1990 + i % 7, "t_end": 1996.0},
            {"s": f"S{i}", "r": "other", "o": f"O{i}", "t_start": 1990.0, "t_end": 1999.0}, (f"S{i}", "rel", "X", 1, 2)]})
    if shuffled:
        random.Random(0).shuffle(run)
    q_path, e_path = folder / "questions.jsonl", folder / "run.jsonl"
    q_path.write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    e_path.write_text("".join(json.dumps(r) + "\n" for r in [*run, *extra]), encoding="utf-8")
    return q_path, e_path


@pytest.mark.parametrize("options", [{}, {"top_k": 1}, {"dedup": True}, {"split": "test"}, {"functional_ids": ["b3"]}])
@pytest.mark.parametrize("shuffled", [False, True])
@pytest.mark.parametrize("reader", READERS)
def test_tempbench_lockstep_takes_benchmark_shaped_files(tmp_path, options, shuffled, reader):
    """The lockstep is not a no-op: benchmark-shaped files (1,000 questions over several blocks, the run in
    order or shuffled, with a field the scorer does not read, unused lines) are its own, and score as the
    checked path scores them."""
    from benchscore.tempbench_trp import files

    extra = [{"id": "unused", "evidence": []}]
    q_path, e_path = _benchmark_shaped_files(tmp_path, 1000, shuffled, extra)
    counts: dict = {}
    with _lines_read_by(reader):
        rows = list(files._lockstep_rows(q_path, e_path, options.get("space", "label"), options.get("split"),
                                         options.get("top_k"), options.get("dedup", False),
                                         options.get("functional_ids"), counts))  # raises files._Unsure to hand on
        assert rows and counts["n_evidence_unused"] == \
            _checked_score_files(q_path, e_path, **options)["n_evidence_unused"]
        assert _without_signature(files.score_files(q_path, e_path, **options)) == \
            _without_signature(_checked_score_files(q_path, e_path, **options))


@pytest.mark.parametrize("odd", ["run", "questions"])
def test_tempbench_lockstep_stops_trying_types_a_file_does_not_fit(tmp_path, odd):
    """Files whose every line has a field outside `line_types` (1,000 lines: msgspec refuses each, and after
    100 refusals is no longer tried) go through the lockstep by orjson, with the checked path's result."""
    from benchscore.core import readers
    from benchscore.tempbench_trp import files, kernel, line_types

    q_path, e_path = _benchmark_shaped_files(tmp_path, 1000)
    path = e_path if odd == "run" else q_path
    path.write_text("".join(json.dumps(dict(json.loads(line), score=0.5)) + "\n"
                            for line in path.read_text(encoding="utf-8").splitlines()), encoding="utf-8")
    lockstep = kernel.Lockstep(readers._iter_raw_blocks(e_path, numbered=False), "label", 0, False, None, None,
                               readers.MAX_DEPTH, line_types.decoders(readers.MAX_DEPTH))
    rows = [row for _, block in readers._iter_raw_blocks(q_path, numbered=False) for row in lockstep.rows(block)]
    assert len(rows) == 1000 and lockstep.unused() == 0 and lockstep.typed.tries == 0
    assert _without_signature(files.score_files(q_path, e_path)) == \
        _without_signature(_checked_score_files(q_path, e_path))


class _Counting:
    """A msgspec decoder that counts the lines it decoded (what it refuses raises as msgspec's own does)."""

    def __init__(self, decoder):
        self.decoder, self.decoded = decoder, 0

    def decode(self, raw):
        value = self.decoder.decode(raw)
        self.decoded += 1
        return value


def test_tempbench_lockstep_reads_benchmark_lines_typed(tmp_path):
    """The typed path is the one taken, not only a correct one: on benchmark-shaped files (the run shuffled, one
    unused line) msgspec decodes every question and run line, refuses none, and the rows are the checked path's."""
    from benchscore.core import readers
    from benchscore.tempbench_trp import kernel, line_types, scoring

    q_path, e_path = _benchmark_shaped_files(tmp_path, 1000, shuffled=True, extra=[{"id": "unused", "evidence": []}])
    decoders = line_types.decoders(readers.MAX_DEPTH)
    counting = decoders._replace(question=_Counting(decoders.question), run_line=_Counting(decoders.run_line))
    lockstep = kernel.Lockstep(readers._iter_raw_blocks(e_path, numbered=False), "label", 0, False, None, None,
                               readers.MAX_DEPTH, counting)
    rows = [row for _, block in readers._iter_raw_blocks(q_path, numbered=False) for row in lockstep.rows(block)]
    assert lockstep.unused() == 1 and lockstep.typed.tries == 100
    assert (counting.question.decoded, counting.run_line.decoded) == (1000, 1001)
    assert [scoring.ItemStats(*row) for row in rows] == _checked_file_stats(q_path, e_path)


@pytest.mark.parametrize("name", ["questions_point.jsonl", "questions_interval.jsonl"])
@pytest.mark.parametrize("run", ["evidence_oracle_label.jsonl", "evidence_mixed_tuple_id.jsonl",
                                 "evidence_partial_id.jsonl", "evidence_empty_on_hard_tuple_label.jsonl"])
@pytest.mark.parametrize("reader", READERS)
def test_tempbench_lockstep_takes_the_benchmark_files(name, run, reader):
    """The benchmark's own question and run files go through the lockstep whole, with the checked path's result."""
    from conftest import shared_path

    from benchscore.tempbench_trp import files

    q_path, e_path = (shared_path("data", "tempbench", "fixtures", f) for f in (name, run))
    space = "id" if "_id" in run else "label"
    counts: dict = {}
    with _lines_read_by(reader):
        assert list(files._lockstep_rows(q_path, e_path, space, None, None, False, None, counts))
        assert _without_signature(files.score_files(q_path, e_path, space=space)) == \
            _without_signature(_checked_score_files(q_path, e_path, space=space))


def _small_files(folder, run_ids=("b0", "b1", "b2"), question=None, record=None, item=None, unused=None):
    """Three benchmark-shaped questions and a run with lines for `run_ids` (in that order); `question`, `record`
    and `item` are merged into the second question, its run line and that line's first item; `unused` is
    one more run line."""
    questions = [{"id": f"b{i}", "t_query": 1995.0, "S_star": [{"s": f"S{i}", "r": "rel", "o": f"O{i}", "s_id": "Q",
                                                              "r_id": "P", "o_id": f"Q{i}"}], "split": "test"}
                 for i in range(3)]
    questions[1].update(question or {})
    run = []
    for qid in run_ids:
        i = int(qid[1:])
        evidence = [{"s": f"S{i}", "r": "rel", "o": f"O{i}", "t_start": 1990.0, "t_end": 2000.0},
                    {"s": "X", "r": "rel", "o": "Y", "t_start": 1990.0, "t_end": 2000.0}]
        line = {"id": qid, "evidence": evidence}
        if i == 1:
            evidence[0].update(item or {})
            line.update(record or {})
        run.append(line)
    if unused is not None:
        run.append(unused)
    q_path, e_path = folder / "questions.jsonl", folder / "run.jsonl"
    q_path.write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    e_path.write_text("".join(json.dumps(r) + "\n" for r in run), encoding="utf-8")
    return q_path, e_path


_DEEP = [[[[[[["deep"]]]]]]]  # 7 levels: past a limit of 5


@pytest.mark.parametrize("case", [
    {"question": {"note": _DEEP}}, {"record": {"retriever": _DEEP}}, {"item": {"x": _DEEP}},
    {"unused": {"id": "u", "evidence": _DEEP}}, {"unused": {"id": "u", "evidence": [], "x": _DEEP}},
    {"item": {"x": _DEEP}, "options": {"top_k": 1}}, {"record": {"evidence": [{}, {"x": _DEEP}]}, "options": {"top_k": 1}},
    {"record": {"evidence": [{"s": "S1", "r": "rel", "o": "O1", "t_start": 1990, "t_end": 2000},
                             {"s": _DEEP, "r": "rel", "o": "O1", "t_start": 1990, "t_end": 2000}]}, "options": {"top_k": 1}},
    {"record": {"retriever": [[[["fine"]]]]}}, {"item": {"x": [[["fine"]]]}}, {"question": {"note": [[[["fine"]]]]}},
    {"run_ids": ("b1", "b1", "b0", "b2")}, {"run_ids": ("b0", "b1", "b2", "b1")}, {"run_ids": ("b2", "b0", "b1", "b0")},
    {"run_ids": ("b0", "b2")}, {"run_ids": ("b2", "b1", "b0")}, {"options": {"split": "train"}},
    {"question": {"t_query": 2**70}}, {"item": {"t_start": 2**70}}, {"item": {"t_end": -(2**70)}},
    {"question": {"t_query": 1.5e19}}, {"item": {"t_start": 2.0**63, "t_end": 2.0**64}},
    {"question": {"S_star": [{"s": "S1", "r": "rel", "o": "O1", "s_id": "Q"}]}},
    {"question": {"S_star": [{"s": "S1", "r": "rel", "o": ""}]}}, {"question": {"S_dist": [{"s": 1}]}},
    {"question": {"S_stale": "x"}}, {"question": {"split": 7}}, {"question": {"S_dist": [{"s": "S", "r": "r"}]}},
    {"question": {"S_dist": [{"s": "S", "r": "r", "o": "o", "t_start": 2**70}]}}, {"question": {"t_query": 1e400}},
    {"item": {"t_start": 1e400}}, {"item": {"s": None}}, {"record": {"evidence": [["S1", "rel", "O1", 1990]]}},
    {"question": {"S_star": [{"s": "S1", "r": "rel", "o": "O1", "s_id": None, "r_id": "P", "o_id": "Q"}]}}])
@pytest.mark.parametrize("reader", READERS)
def test_tempbench_lockstep_hands_on_what_it_cannot_read(tmp_path, monkeypatch, case, reader):
    """Lines nested past the readers' limit where the scorer reads nothing (a field, an item's extra key, an
    unused line, items past the cut), repeated ids (ahead of a question, after it was scored), missing lines,
    long integers and odd gold: `score_files` and `file_stats` give the checked path's result or error."""
    from benchscore.tempbench_trp import files

    monkeypatch.setattr(readers, "MAX_DEPTH", 5)
    case = dict(case)
    options = case.pop("options", {})
    q_path, e_path = _small_files(tmp_path, **case)
    checked = _result_or_error(lambda: _without_signature(_checked_score_files(q_path, e_path, **options)))
    with _lines_read_by(reader):
        assert _result_or_error(lambda: _without_signature(files.score_files(q_path, e_path, **options))) == checked
        assert _result_or_error(lambda: files.file_stats(q_path, e_path, **options)) == \
            _result_or_error(lambda: _checked_file_stats(q_path, e_path, **options))


_partial_gold = st.lists(st.dictionaries(st.sampled_from(["s", "r", "o", "s_id", "r_id", "o_id"]), _plain_names, min_size=2),
                         min_size=1, max_size=2)  # some of either space's names: partial triples
_partial_line = st.fixed_dictionaries({"id": st.just("q"), "t_query": st.just(1994), "S_star": _partial_gold})


@settings(max_examples=1500, deadline=None)
@given(st.one_of(_line, _plain_line.map(lambda line: dict(line, id="q")), _question, _partial_line),
       st.sampled_from(["label", "id"]))
def test_tempbench_plain_gold_is_plain_question_then_checked_gold(raw, space):
    """The lockstep's one pass over a question (`plain_gold`) is `checked_gold` of the lines `plain_question`
    takes, and None for the others."""
    from benchscore.tempbench_trp import kernel

    assert kernel.plain_gold(raw, space) == (kernel.checked_gold(raw, space) if kernel.plain_question(raw) else None)


# TSVer: kernel.plain_gold/plain_prediction (a plain line parsed and checked in one pass) against the checked
# path (readers.parse_json, then scoring.check_gold or files._prediction), and coverage's series against sets
# of years. Odd values go in as JSON text too: what orjson reads unlike the stdlib, or refuses.
_RAW_VALUES = ["123456789012345678901234567890", "-9223372036854775809", "18446744073709551616", "9223372036854775807",
               "1e400", "NaN", '"\\ud800"', '"\\ud83d\\ude00"', "[" * 70 + "]" * 70, "[[[[1]]]]", '{"a": {"b": [1]}}',
               "1.5", "true", "null", '"x"', "-0", "9.3e18", "-9.3e18", "1e19", '{"a": {"b": {"c": {"d": {"e": 1}}}}}',
               '[{"a": [{"b": [1]}]}]']


class _Raw(str):
    """A JSON text put into a line as it is (`_tsver_line`), not as a string."""


_years = _mostly(st.integers(1990, 1995), st.sampled_from([2**31 - 1, -(2**31), 2**31, -(2**31) - 1, True, 1994.0,
                                                           None, "1994", _Raw("18446744073709551616"), _Raw("1e400")]))
_range = _mostly(st.fixed_dictionaries({"from": _years, "to": _years}),
                 st.sampled_from([{"from": 1}, {"from": 1, "to": 2, "x": 0}, [1, 2], None, {"to": 1, "from": 3}]))
_series = st.dictionaries(st.sampled_from(["a", "b", "c"]), _mostly(st.lists(_range, max_size=3),
                                                                    st.sampled_from([None, {}, "1994"])), max_size=3)
_extra_values = st.one_of(st.text(max_size=3), st.integers(-3, 3), st.sampled_from([None, [], {}, [1, {"a": None}]]),
                          st.sampled_from([_Raw(v) for v in _RAW_VALUES]))
_extras = st.dictionaries(st.sampled_from(["Claimant", "Date", "URL", "x"]), _extra_values, max_size=2)
_tsver_claims = st.sampled_from(["c0", "c1", "c2"])


def _maybe(key, plain, odd):
    """`key`: `plain`, sometimes `odd`, sometimes missing (`_MISSING`)."""
    return st.tuples(st.just(key), _mostly(plain, st.one_of(odd, st.just(_MISSING))))


_MISSING = object()
_gold_record = st.tuples(
    _maybe("Claim", _tsver_claims, st.sampled_from([1, None, ["c0"], _Raw('"\\ud800"')])),
    _maybe("Verdict", st.sampled_from(["Supported", "Refuted", "Not Enough Evidence",
                                       "Cherry-Picking/Conflicting Evidence"]), st.sampled_from(["supported", 1, None])),
    _maybe("TimeSeries", _series, st.sampled_from([None, [], "x", {"a": [{"from": 1, "to": 2}], "b": 3}])),
    _maybe("Justifications", st.lists(st.text(max_size=3), max_size=2), st.sampled_from([None, "x", [1], ["a", None]])),
    _extras)
_prediction_record = st.tuples(
    _maybe("Claim", _tsver_claims, st.sampled_from([1, None])),
    _maybe("Verdict", st.sampled_from(["Refuted", "error", "ERROR", " refuted", "maybe", ""]), st.sampled_from([None, 1])),
    _maybe("PredictedTimeRanges", st.one_of(st.none(), _series), st.sampled_from([[], "x", 0])),
    _maybe("Explanation", st.one_of(st.none(), st.text(max_size=3)), st.sampled_from([1, ["x"]])),
    st.sampled_from([{}, {}, {}, {"ErrorMessage": "timeout"}, {"ErrorMessage": None}]), _extras)


def _tsver_line(fields):
    """The JSON text of (key, value) pairs and dicts of others, `_Raw` values written as they are."""
    pairs = [pair for field in fields for pair in (field.items() if isinstance(field, dict) else [field])]
    raws: list[str] = []

    def encoded(value):
        if isinstance(value, _Raw):
            raws.append(value)
            return f"@raw{len(raws) - 1}@"
        if isinstance(value, dict):
            return {key: encoded(item) for key, item in value.items()}
        return [encoded(item) for item in value] if isinstance(value, list) else value

    record = {key: encoded(value) for key, value in pairs if value is not _MISSING}
    text = json.dumps(record, ensure_ascii=False)
    for i, raw in enumerate(raws):
        text = text.replace(f'"@raw{i}@"', raw)
    return text


def _checked_line(text, check):
    """The checked path's outcome for one line: ("record", typed value) or ("error", message)."""
    try:
        return "record", _typed(check(readers.parse_json(text, "f.jsonl:1"), "f.jsonl:1"))
    except (TypeError, ValueError) as err:
        return "error", str(err)


@settings(max_examples=1500, deadline=None)
@given(st.one_of(_gold_record.map(lambda fields: ("gold", fields)),
                 _prediction_record.map(lambda fields: ("prediction", fields))), st.sampled_from([64, 5, 4, 3, 1]))
def test_tsver_kernel_reads_a_line_as_the_checked_path(drawn, max_depth):
    """Where the kernel returns a record, the checked path returns the same (values and types) and no error;
    it is unsure of everything else. Mostly plain values, with odd ones as values and as JSON text."""
    from benchscore.tsver import files, kernel, scoring

    kind, fields = drawn
    text = _tsver_line(fields)
    plain, check = {"gold": (kernel.plain_gold, scoring.check_gold),
                    "prediction": (kernel.plain_prediction, files._prediction)}[kind]
    fast = plain(text.encode("utf-8", "surrogatepass"), max_depth)
    previous, readers.MAX_DEPTH = readers.MAX_DEPTH, max_depth
    try:
        checked = _checked_line(text, check)
    finally:
        readers.MAX_DEPTH = previous
    if fast is not json_kernel.UNSURE:
        assert ("record", _typed(fast)) == checked
        # what the in-step read's `ClaimRows.add_plain` takes without checking again
        plain_gold = {"Verdict": "Refuted", "TimeSeries": {}}
        assert kernel._plain_claim(fast, None) if kind == "gold" else kernel._plain_claim(plain_gold, fast[1])
        if kind == "prediction":  # the in-step read takes the from > to flag the walk over the ranges found
            claim, prediction, inverted = kernel._plain_prediction(text.encode("utf-8", "surrogatepass"), max_depth)
            assert (claim, prediction) == fast and inverted == kernel.has_inverted(prediction["ranges"])


@pytest.mark.parametrize("raw", _RAW_VALUES)
@pytest.mark.parametrize("max_depth", [64, 6, 5, 4])
def test_tsver_kernel_with_one_odd_value_in_a_plain_line(raw, max_depth):
    """A plain gold and a plain prediction line with one more field, written as JSON text: a long integer (a
    float to orjson, an int to the stdlib), a deep value, a lone surrogate, NaN, 1e400. The kernel returns
    the checked path's record or is unsure."""
    gold = (("Claim", "c0"), ("Verdict", "Refuted"), ("TimeSeries", {"a": [{"from": 1990, "to": 1991}]}),
            ("Justifications", ["j"]), {"Claimant": _Raw(raw)})
    prediction = (("Claim", "c0"), ("Verdict", "Refuted"), ("PredictedTimeRanges", None), ("Explanation", "e"),
                  {"Date": [_Raw(raw)]})
    for kind, fields in (("gold", gold), ("prediction", prediction)):
        test_tsver_kernel_reads_a_line_as_the_checked_path.hypothesis.inner_test((kind, fields), max_depth)


def test_tsver_kernel_constants_are_scorings():
    from benchscore.tsver import kernel, scoring

    assert kernel.LABELS == set(scoring.LABELS) and kernel.YEARS == scoring.INT32


def test_tsver_kernel_takes_the_official_files():
    """Every line of the official gold files and of the recorded predictions is plain: the kernel reads them all,
    so the speed-up is not a no-op on real files."""
    from conftest import shared_path

    from benchscore.tsver import kernel

    paths = {"gold": [shared_path("data", "tsver", name) for name in ("tsver_test.jsonl", "tsver_dev.jsonl")],
             "prediction": [shared_path("data", "tsver", "predictions", name) for name in
                            ("pred_test_gold.jsonl", "pred_test_wrong_verdict.jsonl", "pred_dev_gold.jsonl",
                             "pred_dev_perturbed_seed12345.jsonl")]}
    for kind, plain in (("gold", kernel.plain_gold), ("prediction", kernel.plain_prediction)):
        for path in paths[kind]:
            lines = [line for line in path.read_bytes().splitlines() if line.strip()]
            assert lines and all(plain(line, readers.MAX_DEPTH) is not json_kernel.UNSURE for line in lines), path


def _tsver_file_outcome(read):
    try:
        return "result", _typed(read())
    except (TypeError, ValueError) as err:
        return "error", type(err).__name__, str(err)


_odd_tsver_line = st.sampled_from(["", "  ", "\r", "[1]", "{bad", "\udcff", '{"Claim": "c0"} x', "\ufeff{}", "[" * 70 + "]" * 70])


@settings(max_examples=400, deadline=None)
@given(st.lists(_mostly(_gold_record.map(_tsver_line), _odd_tsver_line), max_size=5),
       st.lists(_mostly(_prediction_record.map(_tsver_line), _odd_tsver_line), max_size=5), st.booleans())
def test_tsver_files_read_as_the_checked_path(tmp_path_factory, gold_lines, prediction_lines, crlf):
    """`read_references` and `read_predictions` give the records, the aligned predictions and the warnings of
    the checked path alone (every line parsed by `read_jsonl`, then checked), or its error, word for word."""
    from benchscore.tsver import files, kernel, scoring

    folder = tmp_path_factory.mktemp("tsver")
    end = "\r\n" if crlf else "\n"
    gold, predictions = folder / "gold.jsonl", folder / "predictions.jsonl"
    gold.write_bytes("".join(line + end for line in gold_lines).encode("utf-8", "surrogateescape"))
    predictions.write_bytes("".join(line + end for line in prediction_lines).encode("utf-8", "surrogateescape"))
    claims = ["c0", "c1", "c0"]

    def read():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", scoring.TSVerWarning)
            return files.read_references(gold), files.read_predictions(predictions, claims), scoring.caught_notes(caught)

    assert _tsver_file_outcome(lambda: files.read_references(gold)) == _tsver_file_outcome(
        lambda: [scoring.check_gold(record, f"{gold}:{number}") for number, record in
                 readers.read_jsonl(gold, "a gold claim", empty="gold claim")])
    fast = _tsver_file_outcome(read)
    with pytest.MonkeyPatch.context() as patch:  # the checked path alone: the kernel is unsure of every line
        patch.setattr(kernel, "plain_gold", lambda raw, max_depth: json_kernel.UNSURE)
        patch.setattr(kernel, "plain_prediction", lambda raw, max_depth: json_kernel.UNSURE)
        assert _tsver_file_outcome(read) == fast


def _paired_fields(gold, predictions):
    """The prediction records with each gold record's Claim in turn (as the official baseline writes a file)."""
    return [(("Claim", g[0][1]), *p[1:]) for g, p in zip(gold, predictions)]


_TSVER_PATHS = []  # which read `_summed_files` took, for the test after the property
_plain_series = st.dictionaries(st.sampled_from("abc"), st.lists(st.fixed_dictionaries(
    {"from": st.integers(1990, 1995), "to": st.integers(1990, 1995)}), max_size=2), max_size=3)
_plain_gold = st.tuples(st.tuples(st.just("Claim"), st.sampled_from(["c0", "c1", "c2", "c3"])),
                        st.tuples(st.just("Verdict"), st.sampled_from(["Supported", "Refuted"])),
                        st.tuples(st.just("TimeSeries"), _plain_series), st.just(("Justifications", ["j"])))
_plain_prediction = st.tuples(st.tuples(st.just("Claim"), st.sampled_from(["c0", "c1", "c2", "c3", "c4"])),
                              st.tuples(st.just("Verdict"), st.sampled_from(["Refuted", "supported", "error", "?"])),
                              st.tuples(st.just("PredictedTimeRanges"), st.none() | _plain_series),
                              st.just(("Explanation", None)))


@pytest.mark.parametrize("reader", READERS)
@settings(max_examples=500, deadline=None)
@given(st.lists(_mostly(_plain_gold | _gold_record, st.sampled_from(["odd"])), max_size=5),
       st.lists(_mostly(_plain_prediction | _prediction_record, st.sampled_from(["odd"])), max_size=6),
       st.sampled_from(["paired", "any"]), st.sampled_from([[], ["{bad"], [""], ["\udcff"], ["[1]"]]), st.booleans(),
       st.booleans())
def test_tsver_command_reads_the_files_as_the_two_file_path(tmp_path_factory, reader, gold, predictions, order,
                                                            odd_line, strict, crlf):
    """`score_files` without a judge or report (the command: `_summed_files`, its files read in step or the
    gold streamed) gives what reading both files whole gives (`read_references`, `read_predictions`, `score`):
    the result, the warnings in order, or the error, word for word. Files in the gold's order and in any order,
    with claims missing, repeated or unknown, odd records and odd lines."""
    from benchscore.tsver import files

    if order == "paired":
        predictions = _paired_fields([g for g in gold if g != "odd"], [p for p in predictions if p != "odd"])
    folder = tmp_path_factory.mktemp("tsver")
    end = "\r\n" if crlf else "\n"
    paths = {}
    for name, records in (("gold", gold), ("predictions", predictions)):
        lines = [line if record == "odd" else _tsver_line(record) for record, line in
                 zip(records, itertools.cycle(odd_line or ["{bad"]))]
        paths[name] = folder / f"{name}.jsonl"
        paths[name].write_bytes("".join(line + end for line in lines).encode("utf-8", "surrogateescape"))

    def scored():
        return files.score_files(paths["gold"], paths["predictions"], strict=strict)

    took = []

    def noted(name, read):
        def reading(*args):
            found = read(*args)
            took.append((name, found is not None))
            return found
        return reading

    with pytest.MonkeyPatch.context() as patch, _lines_read_by(reader):
        for name in ("_paired_rows", "_streamed_rows"):
            patch.setattr(files, name, noted(name, getattr(files, name)))
        fast = _tsver_file_outcome(scored)
    with pytest.MonkeyPatch.context() as patch:  # the two-file path alone
        patch.setattr(files, "_summed_files", lambda *args: None)
        assert _tsver_file_outcome(scored) == fast
    _TSVER_PATHS.append(tuple(took))


@pytest.mark.parametrize("predictions", ["missing", "folder", "bad", "good"])
@pytest.mark.parametrize("gold", ["missing", "folder", "bad", "empty", "good"])
def test_tsver_command_reads_a_missing_or_odd_file_as_the_two_file_path(tmp_path, gold, predictions):
    """A prediction file that cannot be opened, with a bad gold file: the gold's error first, as reading both
    files whole gives it (the command reads the predictions first where it can); any pair: the same outcome."""
    from benchscore.tsver import files

    lines = {"bad": "{bad\n", "empty": "", "good": '{"Claim": "c", "Verdict": "Refuted", "TimeSeries": {}, '
             '"Justifications": [], "PredictedTimeRanges": null, "Explanation": null}\n'}
    paths = {}
    for name, kind in (("gold", gold), ("predictions", predictions)):
        paths[name] = tmp_path / f"{name}.jsonl"
        if kind == "folder":
            paths[name].mkdir()
        elif kind != "missing":
            paths[name].write_text(lines[kind], encoding="utf-8")

    def outcome():
        try:
            return "result", _typed(files.score_files(paths["gold"], paths["predictions"]))
        except (OSError, TypeError, ValueError) as err:
            return "error", type(err).__name__, str(err)

    fast = outcome()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(files, "_summed_files", lambda *args: None)
        assert outcome() == fast
    assert (fast[0] == "result") == (gold == predictions == "good")


def test_tsver_command_reads_took_each_path():
    """The property above is not a no-op: its files were read in step, streamed, and left to the two-file path."""
    if not _TSVER_PATHS:
        test_tsver_command_reads_the_files_as_the_two_file_path()
    seen = set(_TSVER_PATHS)
    assert (("_paired_rows", True),) in seen
    assert (("_paired_rows", False), ("_streamed_rows", True)) in seen
    assert (("_paired_rows", False), ("_streamed_rows", False)) in seen


@settings(max_examples=1000, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "b"]), st.lists(st.tuples(st.integers(-3, 6), st.integers(-3, 6)), max_size=4),
                       max_size=2),
       st.dictionaries(st.sampled_from(["a", "b", "c"]), st.lists(st.tuples(st.integers(-3, 6), st.integers(-3, 6)),
                                                                  max_size=4), max_size=3))
def test_tsver_series_iou_counts_the_sets_of_years(gold, predicted):
    """`scoring.coverage`'s per-series record (`kernel.coverage_terms`: spans, never a year materialised) gives
    the counts of the sets of years the ranges cover, and the IoU as the official scorer computes it (an int 0
    where both cover none); `has_inverted` finds a range with from > to (from == to is one year)."""
    from benchscore.tsver import kernel, scoring

    def as_ranges(series):
        return {s: [{"from": a, "to": b} for a, b in pairs] for s, pairs in series.items()}

    def years(pairs):
        return {year for a, b in pairs for year in range(a, b + 1)}

    matched = [s for s in predicted if s in gold]
    expected = {}
    for s in matched:
        intersection, union = len(years(gold[s]) & years(predicted[s])), len(years(gold[s]) | years(predicted[s]))
        expected[s] = {"iou": intersection / union if union else 0, "intersection": intersection, "union": union}
    assert _typed(scoring.coverage(as_ranges(gold), as_ranges(predicted))["series"]) == _typed(expected)
    assert kernel.has_inverted(as_ranges(predicted)) == any(a > b for pairs in predicted.values() for a, b in pairs)
    assert not any(map(kernel.has_inverted, (None, {}, [])))  # no ranges: as `(ranges or {}).values()` read them


@given(st.text(max_size=8) | st.sampled_from(["error", "ERROR ", "Supported", " refuted", "x" * 101, "Error" * 30]))
def test_tsver_memoised_verdict_outcome_is_the_matchers(verdict):
    """`verdict_outcome` matches a short verdict once (memoised); its outcome is the matcher's, short or long."""
    from benchscore.tsver import scoring

    assert scoring.verdict_outcome(verdict) == scoring._outcome(verdict) == scoring.verdict_outcome(verdict)


_example_years = _mostly(st.integers(1990, 1995), st.sampled_from([2**31, -(2**31) - 1, True, 1994.0, None, "1994"]))
_example_range = _mostly(st.fixed_dictionaries({"from": _example_years, "to": _example_years}),
                         st.sampled_from([{"from": 1}, {"from": 1, "to": 2, "x": 0}, [1, 2], None]))
_example_row = _mostly(st.fixed_dictionaries({"series": _mostly(st.sampled_from(["a", "b"]), st.sampled_from([1, None])),
                                              "ranges": _mostly(st.lists(_example_range, max_size=3),
                                                                st.sampled_from([None, (), "x"]))}),
                       st.sampled_from([{"series": "a"}, {"series": "a", "ranges": [], "x": 1}, None, ["a", []]]))
_example_rows = _mostly(st.lists(_example_row, max_size=3), st.sampled_from([None, (), "a", {}]))
_example_text = _mostly(st.one_of(st.none(), st.text(max_size=2)), st.sampled_from([1, ["x"], b"x"]))
_example_prediction = _mostly(st.fixed_dictionaries({"verdict": _example_text, "explanation": _example_text,
                                                     "time_series": st.one_of(st.none(), _example_rows)},
                                                    optional={"extra": st.just(1)}),
                              st.sampled_from([None, {}, {"verdict": None}, []]))
_example_reference = _mostly(
    st.fixed_dictionaries({"claim": _mostly(st.text(max_size=2), st.sampled_from([None, 1])),
                           "verdict": _mostly(st.sampled_from(["Supported", "Refuted"]), st.sampled_from(["x", None])),
                           "justifications": _mostly(st.lists(st.text(max_size=2), max_size=2),
                                                     st.sampled_from([None, "j", [1], ("j",)])),
                           "time_series": _example_rows},
                          optional={"extra": st.just(1)}),
    st.sampled_from([None, {}, {"claim": "c"}]))


@settings(max_examples=1500, deadline=None)
@given(_example_prediction, _example_reference)
def test_tsver_plain_example_is_one_the_checks_pass(prediction, reference):
    """`kernel.plain_example` (and `plain_rows`) say yes only to an example `check_example` (`check_rows`)
    passes: where it says no, the checks run and give their own outcome."""
    from benchscore.tsver import kernel, scoring

    def outcome(check, *args):
        try:
            check(*args)
            return "passed"
        except (TypeError, ValueError) as err:
            return str(err)

    if kernel.plain_example(prediction, reference):
        with pytest.MonkeyPatch.context() as patch:  # the checks themselves, without the kernel's shortcut
            patch.setattr(kernel, "plain_example", lambda prediction, reference: False)
            patch.setattr(kernel, "plain_rows", lambda rows: False)
            assert outcome(scoring.check_example, prediction, reference, 0) == "passed"
    for rows in (reference.get("time_series") if isinstance(reference, dict) else None,
                 prediction.get("time_series") if isinstance(prediction, dict) else None):
        if kernel.plain_rows(rows):
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(kernel, "plain_rows", lambda rows: False)
                assert outcome(scoring.check_rows, rows, 0, "rows") == "passed"


@pytest.mark.parametrize("side, key, value", [
    ("prediction", "verdict", 1), ("prediction", "explanation", 1), ("prediction", "explanation", ["x"]),
    ("prediction", "time_series", "x"), ("prediction", "extra", None), ("reference", "claim", None),
    ("reference", "verdict", "refuted"), ("reference", "justifications", ["j", 2]), ("reference", "justifications", "j"),
    ("reference", "time_series", None), ("reference", "extra", 1),
    ("reference", "time_series", [{"series": "a", "ranges": []}, {"series": "a", "ranges": []}]),
    ("reference", "time_series", [{"series": "a", "ranges": [{"from": 1, "to": 2 ** 31}]}])])
def test_tsver_plain_example_with_one_odd_value(side, key, value):
    """A plain example with one odd value: the kernel says no, and the checks word the error."""
    from benchscore.tsver import kernel, scoring

    prediction = {"verdict": "Refuted", "explanation": "e", "time_series": None}
    reference = {"claim": "c", "verdict": "Refuted", "justifications": ["j"],
                 "time_series": [{"series": "a", "ranges": [{"from": 1990, "to": 1991}]}]}
    assert kernel.plain_example(prediction, reference)
    scoring.check_example(prediction, reference, 0)
    {"prediction": prediction, "reference": reference}[side][key] = value
    assert not kernel.plain_example(prediction, reference)
    with pytest.raises(ValueError, match="example 0"):
        scoring.check_example(prediction, reference, 0)


# -- TSVer: the command's sums (`scoring.summarize`, `kernel.claim_rows`) against `score`'s ItemStats ----------
TSVER_LABELS = ["Supported", "Cherry-Picking/Conflicting Evidence", "Refuted", "Not Enough Evidence"]
TSVER_VERDICTS = st.sampled_from(TSVER_LABELS + ["supported.", "REFUTED", "conflicting", "not enough info", "error",
                                                 "Error", "", "  ", "banana", "x" * 120]) | st.text(max_size=6)
TSVER_SERIES = st.dictionaries(
    st.sampled_from("abcd"),
    st.lists(st.builds(lambda a, d: {"from": a, "to": max(-2**31, min(a + d, 2**31 - 1))},
                       st.integers(1990, 2010) | st.sampled_from([-2**31, 2**31 - 1]),
                       st.integers(-3, 6)), max_size=3), max_size=4)
TSVER_CLAIMS = st.lists(st.tuples(st.sampled_from(["c1", "c2", "c3", "c4", "c5", "c6"]), st.sampled_from(TSVER_LABELS),
                                  TSVER_SERIES, st.none() | st.tuples(TSVER_VERDICTS, st.none() | TSVER_SERIES)),
                        min_size=1, max_size=25)


def _tsver_claims(drawn):
    gold = [{"Claim": claim, "Verdict": verdict, "TimeSeries": series, "Justifications": []}
            for claim, verdict, series, _ in drawn]
    predictions = [None if p is None else {"verdict": p[0], "explanation": None, "ranges": p[1]} for *_, p in drawn]
    return gold, predictions


def _same_result(got, want):
    """Equal values of the same types, keys in the same order, warnings of the same kinds."""
    assert _typed(got) == _typed(want)
    assert [w.kind for w in got["warnings"]] == [w.kind for w in want["warnings"]]


@settings(max_examples=500, deadline=None)
@given(TSVER_CLAIMS, st.booleans(), st.sampled_from(["tsver", "paper"]), st.none() | st.just("p.jsonl"))
def test_tsver_summarize_is_score_without_item_stats(drawn, strict, aggregation, source):
    """The command's sums give `score`'s result: every number and type (an int 0 where it gives one), the
    confusion matrix, the warnings (kinds, texts, order) and the signature, in the same key order."""
    from benchscore.tsver import files, scoring

    gold, predictions = _tsver_claims(drawn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = scoring.score(gold, predictions, strict=strict, ev2r_aggregation=aggregation, source=source)
        _same_result(scoring.summarize(gold, predictions, strict, aggregation, source), want)
        _same_result(files.score(gold, predictions, None, strict, aggregation, source=source), want)


def test_tsver_summarize_of_records_the_kernel_does_not_take():
    """A numpy year, a range with another key, an unlabelled gold verdict or one prediction too few: the kernel
    says no, and `score` gives the result or the error."""
    import numpy as np

    from benchscore.tsver import kernel, scoring

    gold, predictions = _tsver_claims([("c", "Refuted", {"a": [{"from": 1990, "to": 1995}]},
                                        ("refuted", {"a": [{"from": 1992, "to": 1999}]}))] * 3)
    assert kernel.claim_rows(gold, predictions, scoring.verdict_outcome) is not None
    odd = [("gold", "TimeSeries", {"a": [{"from": np.int64(1990), "to": 1995}]}),
           ("gold", "TimeSeries", {"a": [{"from": 1990, "to": 1995, "note": "x"}]}),
           ("prediction", "ranges", {"a": [{"from": 1992.0, "to": 1999}]}),
           ("prediction", "verdict", None), ("gold", "Verdict", "refuted")]
    for side, key, value in odd:
        g, p = _tsver_claims([("c", "Refuted", {"a": [{"from": 1990, "to": 1995}]},
                               ("refuted", {"a": [{"from": 1992, "to": 1999}]}))] * 3)
        (g if side == "gold" else p)[1][key] = value
        assert kernel.claim_rows(g, p, scoring.verdict_outcome) is None, (side, key)
        try:
            want = scoring.score(g, p)
        except (TypeError, ValueError) as err:
            with pytest.raises(type(err), match="^" + re.escape(str(err)) + "$"):
                scoring.summarize(g, p)
        else:
            _same_result(scoring.summarize(g, p), want)
    with pytest.raises(ValueError, match="2 predictions for 3 gold claims"):
        scoring.summarize(gold, predictions[:2])


@pytest.mark.parametrize("gold, predictions", [("tsver_test.jsonl", "pred_test_gold.jsonl"),
                                               ("tsver_test.jsonl", "pred_test_wrong_verdict.jsonl"),
                                               ("tsver_dev.jsonl", "pred_dev_perturbed_seed12345.jsonl")])
def test_tsver_command_sums_the_official_files_as_score(gold, predictions):
    """On the official files the kernel takes every claim (the sums are not a no-op) and gives `score`'s result."""
    from conftest import shared_path

    from benchscore.tsver import files, kernel, scoring

    data = shared_path("data", "tsver")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        records = files.read_references(data / gold)
        aligned = files.read_predictions(data / "predictions" / predictions, [g["Claim"] for g in records])
        assert kernel.claim_rows(records, aligned, scoring.verdict_outcome) is not None
        # the official predictions are in the gold's order: the command reads both files in step
        assert files._paired_rows(data / gold, data / "predictions" / predictions) is not None
        for strict in (False, True):
            want = scoring.score(records, aligned, strict=strict)
            _same_result(scoring.summarize(records, aligned, strict), want)
            _same_result(files._summed_files(data / gold, data / "predictions" / predictions, strict),
                         {**want, "warnings": [w.reworded(f"{data / 'predictions' / predictions}: {w}") if w.kind in
                                               ("unmatched_verdicts", "empty_verdicts") else w
                                               for w in want["warnings"]]})


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 6) | st.sampled_from([-2**31, 2**31 - 1]), st.integers(-3, 6)), max_size=3),
       st.lists(st.tuples(st.integers(-3, 6) | st.sampled_from([-2**31, 2**31 - 1]), st.integers(-3, 6)), max_size=3))
def test_tsver_year_counts_are_the_spans_counts(gold, predicted):
    """`year_counts` (one range a side counted directly) gives the span lists' intersection and union."""
    from benchscore.tsver import kernel

    def ranges(pairs):
        return [{"from": a, "to": min(a + d, 2**31 - 1)} for a, d in pairs]

    a, b = kernel.year_spans(ranges(gold)), kernel.year_spans(ranges(predicted))
    common = kernel.common_count(a, b)
    assert kernel.year_counts(ranges(gold), ranges(predicted)) == (common, kernel.span_count(a) + kernel.span_count(b) - common)


def test_tsver_kernel_statuses_are_scorings():
    from benchscore.tsver import kernel, scoring

    assert (kernel.OK, kernel.MISSING) == (scoring.OK, scoring.MISSING)


@settings(max_examples=40, deadline=None)
@given(TSVER_CLAIMS)
def test_tsver_compute_sums_as_with_per_claim_statistics(drawn):
    """evaluate's `compute` without per-claim output sums as the command does, from the stored examples
    (`kernel.example_rows`); with `return_per_claim` it keeps ItemStats: the same numbers either way, and
    `score`'s."""
    from conftest import load_metric

    from benchscore.tsver import kernel, loader, scoring

    gold, predictions = _tsver_claims(drawn)
    references = [loader.reference(g) for g in gold]
    examples = [loader.prediction(p) if p is not None else {"verdict": None, "explanation": None, "time_series": None}
                for p in predictions]
    metric = _tsver_metric(load_metric)
    took = []
    with warnings.catch_warnings(), pytest.MonkeyPatch.context() as patch:
        warnings.simplefilter("ignore")
        patch.setattr(kernel, "example_rows", lambda *args, _rows=kernel.example_rows: took.append(_rows(*args))
                      or took[-1])
        summed = metric.compute(predictions=examples, references=references)
        kept = metric.compute(predictions=examples, references=references, return_per_claim=True)
        want = scoring.score(gold, [None if p is None else {**p, "ranges": p["ranges"] or None} for p in predictions])
    assert len(took) == 1 and took[0] is not None  # summed from the examples, once; kept: from official records
    assert len(kept.pop("per_claim")) == len(gold)
    _same_result(summed, kept)
    assert {k: v for k, v in summed.items() if k != "warnings"} == {k: v for k, v in want.items() if k != "warnings"}


def _claim_row_fields(rows):
    return [_typed(getattr(rows, name)) for name in ("status", "gold", "label", "correct", "blank_verdict", "tscs",
                                                      "iou", "precision", "recall", "f1", "inverted")]


@settings(max_examples=300, deadline=None)
@given(TSVER_CLAIMS, st.integers(0, 30), st.sampled_from([None, "numpy year", "str subclass", "tuple", "extra key"]))
def test_tsver_example_rows_are_the_rows_of_the_official_records(drawn, where, odd):
    """`compute`'s sums of plain examples (`kernel.example_rows`, no official record built per claim) are the
    rows of `from_example`'s records (`kernel.claim_rows`), value and type; one odd example (what `_prepare`
    accepts but is not plain, or an extra key): None, and `compute` takes `from_example`'s path."""
    import numpy as np

    from benchscore.tsver import kernel, loader, scoring

    gold, predictions = _tsver_claims(drawn)
    references = [loader.reference(g) for g in gold]
    examples = [loader.prediction(p) if p is not None else {"verdict": None, "explanation": None, "time_series": None}
                for p in predictions]
    if odd is not None:
        reference = references[where % len(references)]
        reference["time_series"] = [{"series": "s", "ranges": [{"from": 1990, "to": 1991}]}]
        changed = {"numpy year": lambda r: r["time_series"][0]["ranges"][0].update({"from": np.int64(1990)}),
                   "str subclass": lambda r: r.update({"claim": type("Text", (str,), {})("c")}),
                   "tuple": lambda r: r.update({"time_series": tuple(r["time_series"])}),
                   "extra key": lambda r: r.update({"extra": 1})}
        changed[odd](reference)
    found = kernel.example_rows(examples, references, scoring.verdict_outcome)
    if odd is not None:
        assert found is None
        return
    gold_records, aligned = zip(*map(scoring.from_example, examples, references))
    rows = kernel.claim_rows(list(gold_records), list(aligned), scoring.verdict_outcome)
    assert _claim_row_fields(found[0]) == _claim_row_fields(rows)
    assert found[1] == [g["Claim"] for g in gold]


_TSVER_METRIC = []

_TSVER_METRIC = []


def _tsver_metric(load_metric):
    if not _TSVER_METRIC:
        _TSVER_METRIC.append(load_metric("tsver"))
    return _TSVER_METRIC[0]


# -- WebNLG: the cost's cells counted per distinct triple, the kernel's column sums -----------------------
WEBNLG_TRIPLES = st.lists(st.lists(st.sampled_from(["", "a", "b c", "d e f", '"g"', "h.i"]), min_size=1, max_size=4)
                          .map(" | ".join), min_size=1, max_size=6, unique=True)


@settings(max_examples=500, deadline=None)
@given(WEBNLG_TRIPLES, WEBNLG_TRIPLES)
def test_webnlg_cost_cells_are_the_pair_by_pair_sum(refs, cands):
    """`_cells` sums per element position over each side; pair by pair it is (tokens + 1) x (tokens + 1) per
    position of the longer triple, a missing element counting 1."""
    import itertools

    from benchscore.webnlg_rdf import scoring

    def sizes(triple):
        return [len(scoring._element_tokens(element)[1]) + 1 for element in triple.split(" | ")[:3]]

    want = sum(a * b for ref in refs for cand in cands
               for a, b in itertools.zip_longest(sizes(ref), sizes(cand), fillvalue=1))
    assert scoring._cells(refs, cands) == want


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.integers(0, 2**1080), min_size=5, max_size=5), max_size=6))
def test_webnlg_column_sums(rows):
    from benchscore.webnlg_rdf import kernel

    assert kernel.column_sums([tuple(row) for row in rows], 5) == tuple(map(sum, zip(*rows))) if rows else (0,) * 5


WEBNLG_ENTRY = st.lists(st.lists(st.sampled_from(["", "a", "b c", "a a", '"g"', "h.i"]), min_size=1, max_size=4)
                        .map(" | ".join), max_size=5)
WEBNLG_ENTRY_UP_TO_7 = st.lists(st.lists(st.sampled_from(["", "a", "b c", "a a", "h.i", "j? k!"]), min_size=1,
                                         max_size=4).map(" | ".join), max_size=7)


@settings(max_examples=300, deadline=None)
@given(WEBNLG_ENTRY_UP_TO_7, WEBNLG_ENTRY_UP_TO_7)
def test_webnlg_entry_cost_is_the_cost_model_written_plainly(refs, cands):
    """`tokenizing_cost` and `scoring_cost` (memos per distinct triple, sums per side, the states counted only
    past the official loop's k) are the card's cost model, written here element by element and pair by pair."""
    from benchscore.webnlg_rdf import scoring

    normalised_refs, normalised_cands = [scoring.normalise(t) for t in refs], [scoring.normalise(t) for t in cands]
    elements = {e for triple in normalised_refs + normalised_cands for e in triple.split(" | ")[:3]}
    tokenizing = sum(10 * len(e) + 150 * (e.count(".") + e.count("?") + e.count("!")) for e in elements)
    k = max(len(refs), len(cands))
    padded_refs = normalised_refs + [""] * (k - len(refs))
    distinct_refs, distinct_cands = set(padded_refs), set(normalised_cands + [""] * (k - len(cands)))

    def sizes(triple):
        return [len(scoring._element_tokens(e)[1]) + 1 for e in triple.split(" | ")[:3]]

    cells = sum(a * b for r in distinct_refs for c in distinct_cands
                for a, b in itertools.zip_longest(sizes(r), sizes(c), fillvalue=1))
    states = math.prod(padded_refs.count(t) + 1 for t in distinct_refs)
    search = math.factorial(k) if k <= 5 else min(states, scoring.MAX_SEARCH_STATES)
    want = 600 + 10 * k * k + 250 * len(distinct_refs) * len(distinct_cands) + cells + 2 * k * search
    assert scoring.tokenizing_cost(refs, cands, set()) == tokenizing
    assert scoring.scoring_cost(refs, cands) == want


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(WEBNLG_ENTRY, WEBNLG_ENTRY), min_size=1, max_size=4))
def test_webnlg_checked_entries_are_check_cost_and_check_entry(entries):
    """`checked_entries` (each entry checked and normalised once) gives `tokenizing_cost` + `scoring_cost`'s total
    and `check_entry`'s normalised triples, and `scored_entry` of them is `entry_stats` (or its error)."""
    from benchscore.webnlg_rdf import scoring

    def outcome(score, *args):
        try:
            return score(*args)
        except ValueError as err:
            return str(err)

    references, candidates = [r for r, _ in entries], [c for _, c in entries]
    seen, want = set(), 0
    for refs, cands in entries:
        want += scoring.tokenizing_cost(refs, cands, seen) + scoring.scoring_cost(refs, cands)
    total, checked = scoring.checked_entries(references, candidates)
    assert total == want == scoring.check_cost(references, candidates)
    assert checked == [scoring.check_entry(refs, cands) for refs, cands in entries]
    for (refs, cands), normalised in zip(entries, checked):
        assert outcome(scoring.scored_entry, refs, cands, *normalised) == outcome(scoring.entry_stats, refs, cands)


# -- Found by a mutation sweep of the kernels' new paths: the search's float margin, the cost at its limit, ...
def test_webnlg_search_assignment_prunes_with_its_epsilon():
    """A 4 x 4 matrix where a prefix's float sum plus h(used) rounds below the best float sum found so far,
    yet that prefix leads to the first permutation with the largest float sum: without the EPS margin the
    prune drops the answer (kills `partial + rest + EPS <` -> `partial + rest <`)."""
    import itertools

    from benchscore.webnlg_rdf import scoring

    scores = [[0.35, 0.3, 5 / 6, 0.4], [0.4, 0.05, 5 / 6, 0.05], [0.15, 0.3, 0.15, 0.4], [0.4, 0.3, 1 / 6, 0.3]]
    best_sum, want = None, None
    for perm in itertools.permutations(range(4)):  # the official loop
        total = 0
        for row, column in enumerate(perm):
            total += scores[row][column]
        if want is None or total > best_sum:
            best_sum, want = total, perm
    assert want == (3, 2, 1, 0)
    assert scoring.search_assignment(scores) == want == scoring.official_assignment(scores)


def test_webnlg_cost_limit_reached_by_tokenizing_still_counts_the_scoring():
    """A running total exactly at the limit after tokenizing is not past it: the entry's scoring units are
    still counted (and its limits checked), so it is refused (kills `total <= limit` -> `total < limit`)."""
    from benchscore.webnlg_rdf import scoring

    refs, cands = ["a | b | c"], ["a | b | c"]
    units = scoring.tokenizing_cost(refs, cands, set())
    with pytest.raises(ValueError, match="^example 0: entries 0 to 0 need"):
        scoring.check_cost([refs], [cands], limit=units)
    full = units + scoring.scoring_cost(refs, cands)
    assert scoring.checked_entries([refs], [cands], limit=full) == (full, [(refs, cands)])


def test_webnlg_tokenizing_cost_ignores_parts_beyond_the_third():
    """Only the three scored elements are tokenized: a fourth part costs nothing (kills `_parts(t)[:3]` ->
    `_parts(t)` in `_tokenizing_units`, which `tokenizing_cost` and `checked_entries` share)."""
    from benchscore.webnlg_rdf import scoring

    assert scoring.tokenizing_cost(["a | b | c | ddd eee"], [], set()) == scoring.tokenizing_cost(["a | b | c"], [], set())
    assert scoring.check_cost([["a | b | c | ddd eee"]], [["a | b | c"]]) == scoring.check_cost([["a | b | c"]], [["a | b | c"]])


def test_tsver_coverage_terms_sum_the_ious_in_coverages_order():
    """IoUs 1/9, 1/9, 4/9: their mean differs in floats between this order and the reverse one, so the kernel
    must sum in the predicted series' order as `coverage` does (kills `sum(ious)` -> `sum(reversed(ious))`)."""
    from benchscore.tsver import kernel, scoring

    gold = {s: [{"from": 2000, "to": 2008}] for s in "abc"}
    predicted = {"a": [{"from": 2000, "to": 2000}], "b": [{"from": 2000, "to": 2000}], "c": [{"from": 2000, "to": 2003}]}
    want = scoring.coverage(gold, predicted)
    assert kernel.coverage_terms(gold, predicted) == tuple(want[name] for name in scoring.TSCS_TERMS)
    record = {"Claim": "c", "Verdict": "Refuted", "TimeSeries": gold, "Justifications": []}
    prediction = {"verdict": "Refuted", "explanation": None, "ranges": predicted}
    assert scoring.summarize([record], [prediction])["iou"] == scoring.score([record], [prediction])["iou"]


def test_tsver_files_score_refuses_a_per_claim_that_is_no_bool():
    """`files.score` without a judge checks `per_claim` before it chooses the summed path: 0 is refused as
    `score` refuses it, not read as False (kills the dropped `check_flag` in `files._unjudged`)."""
    from benchscore.tsver import files

    gold = [{"Claim": "c", "Verdict": "Refuted", "TimeSeries": {"a": [{"from": 1990, "to": 1995}]}, "Justifications": []}]
    predictions = [{"verdict": "Refuted", "explanation": None, "ranges": None}]
    for value in (0, None, ""):
        with pytest.raises(TypeError, match="per_claim must be True or False"):
            files.score(gold, predictions, per_claim=value)


def test_tsver_kernel_takes_a_prediction_without_ranges():
    """Speed only (no output changes): a prediction line with null PredictedTimeRanges is plain, so the command
    sums it on the kernel's path (kills `ranges is None or plain_series(ranges)` -> `plain_series(ranges)`)."""
    from benchscore.tsver import kernel, scoring

    gold = [{"Claim": "c", "Verdict": "Refuted", "TimeSeries": {"a": [{"from": 1990, "to": 1995}]}, "Justifications": []}]
    assert kernel.claim_rows(gold, [{"verdict": "Refuted", "explanation": None, "ranges": None}],
                             scoring.verdict_outcome) is not None


# -- TempBench's evaluate module: a batch coded in one kernel call, optional text columns in one pass ---------
def _bench_tempbench():
    import importlib.util

    from conftest import REPO

    spec = importlib.util.spec_from_file_location("bench_tempbench", REPO / "scripts" / "bench_tempbench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_tempbench_module_codes_a_batch_as_example_by_example():
    """`kernel.coded_batch` stores what the module's example-by-example loop stores (the kernel takes every
    benchmark-shaped example: not a no-op); at an example it does not take it says None, and the loop words
    the error naming that example. (`evidence_codes` in both spaces: the property test above.)"""
    from benchscore.tempbench_trp import kernel, tempbench_trp

    pool = _bench_tempbench().make_pool(400, seed=3)
    batch = {"predictions": [items for _, items in pool], "references": [q["S_star"] for q, _ in pool],
             "t_query": [q["t_query"] for q, _ in pool], "id": [q["id"] for q, _ in pool]}
    coded = kernel.coded_batch(batch["predictions"], batch["references"], batch["t_query"], "label")
    assert coded is not None
    assert dict(zip(("predictions", "references", "t_query"), coded)) == tempbench_trp._checked_batch(batch, 10, "label")
    assert sum(hit >= 0 for codes in coded[0] for hit in codes["hits"]) > 100
    batch["t_query"][7] = "soon"  # not a year: not the kernel's, refused by the checked path
    assert kernel.coded_batch(batch["predictions"], batch["references"], batch["t_query"], "label") is None
    with pytest.raises((ValueError, TypeError), match="^example 17: "):
        tempbench_trp._checked_batch(batch, 10, "label")


class _Text(str):
    pass


@settings(max_examples=500, deadline=None)
@given(st.lists(st.none() | st.text(max_size=3) | st.builds(_Text, st.text(max_size=3)) | st.integers(), max_size=6))
def test_tempbench_module_text_columns_in_one_pass_are_per_value(column):
    """An optional string column of `str` and None is stored in one pass as `_text` stores each value; any
    other column takes `_text` per value, with its error naming the example."""
    from benchscore.tempbench_trp import tempbench_trp

    def outcome(read):
        try:
            return "stored", [(type(v), v) for v in read()]
        except TypeError as err:
            return "error", str(err)

    assert outcome(lambda: tempbench_trp._texts(column, 3, "id")) == \
        outcome(lambda: [tempbench_trp._text(value, 3 + i, "id") for i, value in enumerate(column)])


# TempBench's typed lines (line_types: msgspec decodes a line into the benchmark's types, the kernel skips its
# checks and depth walk) against the stdlib's reading of the same text and the kernel's dict path.
_TYPED_RAW = ["123456789012345678901234567890", "-9223372036854775809", "18446744073709551616", "9.3e18", "1e400",
              "-1e400", "NaN", "Infinity", '"\\ud800"', '"\\ud83d\\ude00"', '"\\u0000"', "true", "null", "1994",
              "1994.0", "-0", "-0.0", '"1994"', "[]", "{}", "[" * 70 + "]" * 70, '[{"s": "A"}]', '[["A", "B", "A", 1994, 1995]]',
              '[["A", "B", "A", 1994]]', '[{"s": "A", "x": 1}]', '"A"', '""']
_typed_keys = st.sampled_from(["id", "t_query", "S_star", "S_dist", "S_stale", "split", "complexity", "question",
                               "evidence", "retriever", "space", "mixed_from", "note", "s", "t_start", "o_id"])


_partial_triple = st.dictionaries(st.sampled_from(["s", "r", "o", "s_id", "r_id", "o_id", "t_start"]),
                                  _plain_names, min_size=2)  # whole in either space, or not; a year as a string


@st.composite
def _typed_line_text(draw, kind):
    """A question or run line's JSON text: a plain one, often with one value (at the top or in a triple or item)
    written as odd raw JSON, or one key written twice (first or last value odd)."""
    if kind == "question":
        record = dict(draw(_plain_line), id="q", S_dist=draw(st.lists(_partial_triple, max_size=2)))
    else:
        record = {"id": "q", "evidence": draw(st.lists(_plain, max_size=3)),
                  **draw(st.sampled_from([{}, {"retriever": "bm25", "space": "label"}]))}
    text = json.dumps(record)
    how = draw(st.sampled_from(["plain", "top", "nested", "twice"]))
    raw, key = draw(st.sampled_from(_TYPED_RAW)), draw(_typed_keys)
    if how == "top":
        text = text[:-1] + f', "{key}": {raw}}}'  # a new key, or a repeated one (the last value counts)
    elif how == "twice":
        text = "{" + f'"{key}": {raw}, ' + text[1:]  # the first of two values
    elif how == "nested" and '{"s": ' in text:
        text = text.replace('{"s": ', '{"' + key + '": ' + raw + ', "s": ', 1)
    return text


def _struct_values(value):
    """A decoded `line_types` value as the stdlib's would look where absent fields read as None."""
    import msgspec

    if isinstance(value, msgspec.Struct):
        return {field: _struct_values(getattr(value, field)) for field in value.__struct_fields__}
    if isinstance(value, (list, tuple)):  # a JSON array: a tuple where the type says so (the kernel reads both)
        return ("array", [_struct_values(item) for item in value])
    return type(value).__name__, value


def _stdlib_values(value, like):
    """`value` (the stdlib's) read as `_struct_values` reads `like`: a struct's fields by `.get`, and no other key."""
    if isinstance(like, dict):
        assert isinstance(value, dict) and set(value) <= set(like), "a key msgspec did not read"
        return {field: _stdlib_values(value.get(field), sub) for field, sub in like.items()}
    if isinstance(like, tuple) and isinstance(like[1], list):
        assert isinstance(value, list) and len(value) == len(like[1])
        return ("array", [_stdlib_values(item, sub) for item, sub in zip(value, like[1])])
    return type(value).__name__, value


def _stdlib(text):
    try:
        return json.loads(text, parse_constant=lambda name: pytest.fail(f"msgspec took {name}"))
    except ValueError:
        return _MISSING


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(["question", "run"]).flatmap(lambda kind: st.tuples(st.just(kind), _typed_line_text(kind))),
       st.sampled_from(["label", "id"]), st.sampled_from([0, 2]), st.booleans())
def test_tempbench_typed_lines_are_the_stdlibs_values(kind_and_text, space, top_k, dedup):
    """A line msgspec takes into `line_types` is one the stdlib reads, with the same values and types (an absent
    field reading as None, as the kernel's `.get` reads it) and no field msgspec skipped; and the kernel scores
    the typed line as it scores the stdlib's dict: `struct_gold` is `plain_gold`, the typed items score as the
    dict items. Lines with long integers, 1e400, NaN, lone surrogates, deep nesting, odd types, new and
    repeated keys, at the top and inside a triple."""
    import msgspec

    from benchscore.core import readers
    from benchscore.tempbench_trp import kernel, line_types

    kind, text = kind_and_text
    decoders = line_types.decoders(readers.MAX_DEPTH)
    try:
        typed = (decoders.question if kind == "question" else decoders.run_line).decode(text.encode())
    except msgspec.DecodeError:
        return
    value = _stdlib(text)
    assert value is not _MISSING, "msgspec took a line the stdlib refuses"
    assert readers._depth(value) <= line_types.DEPTH
    struct = _struct_values(typed)
    assert _stdlib_values(value, struct) == struct
    if kind == "question":
        assert kernel.struct_gold(typed, space) == kernel.plain_gold(value, space)
    else:
        checked = kernel.plain_gold({"id": "q", "t_query": 1994, "S_star": [
            {"s": "A", "r": "B", "o": "A", "s_id": "P", "r_id": "Q", "o_id": "P"}]}, space)
        assert kernel._retrieved(checked, typed.evidence, space, top_k, dedup, decoders.triple_type) == \
            kernel._retrieved(checked, value["evidence"], space, top_k, dedup, None)


@pytest.mark.parametrize("name", ["questions_point.jsonl", "questions_interval.jsonl", "evidence_oracle_label.jsonl",
                                  "evidence_mixed_tuple_id.jsonl", "evidence_partial_id.jsonl",
                                  "evidence_mixed_label.jsonl", "evidence_empty_on_hard_tuple_label.jsonl"])
def test_tempbench_typed_lines_take_the_benchmark_files(name):
    """The benchmark's own question and run files decode into `line_types` line by line, so the command's
    lockstep reads them by msgspec (its speed), not by orjson and walks."""
    from conftest import shared_path

    from benchscore.core import readers
    from benchscore.tempbench_trp import line_types

    decoders = line_types.decoders(readers.MAX_DEPTH)
    assert decoders is not None, "msgspec is not installed (the fast and test extras bring it)"
    decoder = decoders.question if name.startswith("questions") else decoders.run_line
    lines = shared_path("data", "tempbench", "fixtures", name).read_bytes().splitlines()
    assert lines and all(decoder.decode(line) for line in lines if line.strip())


_tsver_typed_pair = st.tuples(_mostly(_plain_gold, _gold_record), _mostly(_plain_prediction, _prediction_record))


@settings(max_examples=1500, deadline=None)
@given(_tsver_typed_pair.map(lambda pair: (_tsver_line(pair[0]), _tsver_line(_paired_fields([pair[0]], [pair[1]])[0]))))
def test_tsver_typed_lines_are_the_stdlibs_values(lines):
    """A gold and a prediction line msgspec takes into `tsver.line_types` are lines the stdlib reads, with the same
    values and types (an absent field reading as None) and no field msgspec skipped; and the in-step read scores
    the typed pair as it scores orjson's dicts (`_typed_claim` against `_paired_claim`: the same claim and row).
    Lines with odd records and odd JSON text (long integers, 1e400, NaN, lone surrogates, deep nesting)."""
    import msgspec

    from benchscore.core import readers
    from benchscore.tsver import kernel, line_types, scoring

    gold_line, prediction_line = (line.encode("utf-8", "surrogatepass") for line in lines)
    decoders = line_types.decoders(readers.MAX_DEPTH)
    try:
        typed = decoders.gold.decode(gold_line), decoders.prediction.decode(prediction_line)
    except msgspec.DecodeError:
        return
    for line, decoded in zip(lines, typed):
        value = _stdlib(line)
        assert value is not _MISSING, "msgspec took a line the stdlib refuses"
        assert readers._depth(value) <= line_types.DEPTH
        struct = _struct_values(decoded)
        assert _stdlib_values(value, struct) == struct
    rows = kernel.ClaimRows(), kernel.ClaimRows()
    claims = (kernel._typed_claim(rows[0], *typed, scoring.verdict_outcome, set()),
              kernel._paired_claim(rows[1], kernel.plain_gold(gold_line, readers.MAX_DEPTH),
                                   kernel._plain_prediction(prediction_line, readers.MAX_DEPTH),
                                   scoring.verdict_outcome, set()))
    assert claims[0] == claims[1]
    assert _claim_row_fields(rows[0]) == _claim_row_fields(rows[1])


@pytest.mark.parametrize("name", ["tsver_test.jsonl", "tsver_dev.jsonl", "predictions/pred_test_gold.jsonl",
                                  "predictions/pred_test_wrong_verdict.jsonl", "predictions/pred_dev_perturbed_seed12345.jsonl"])
def test_tsver_typed_lines_take_the_benchmark_files(name):
    """The official gold files and the baseline's prediction files decode into `tsver.line_types` line by line, so
    the command's in-step read takes them by msgspec (its speed), not by orjson and walks."""
    from conftest import shared_path

    from benchscore.core import readers
    from benchscore.tsver import line_types

    decoders = line_types.decoders(readers.MAX_DEPTH)
    assert decoders is not None, "msgspec is not installed (the fast and test extras bring it)"
    decoder = decoders.prediction if name.startswith("predictions") else decoders.gold
    lines = shared_path("data", "tsver", *name.split("/")).read_bytes().splitlines()
    assert lines and all(decoder.decode(line) for line in lines if line.strip())


def test_tsver_in_step_read_reads_the_official_files_typed():
    """The typed path is the one taken: on the official test set and a baseline prediction file in its order,
    msgspec decodes every pair, refuses none, and the rows and claims are those of the lines read by orjson."""
    from conftest import shared_path

    from benchscore.core import readers
    from benchscore.tsver import kernel, line_types, scoring

    gold, predictions = (shared_path("data", "tsver", *name.split("/"))
                         for name in ("tsver_test.jsonl", "predictions/pred_test_wrong_verdict.jsonl"))
    decoders = line_types.decoders(readers.MAX_DEPTH)
    counting = decoders._replace(gold=_Counting(decoders.gold), prediction=_Counting(decoders.prediction))

    def paired(decoders):
        return kernel.paired_rows(readers._iter_raw_blocks(gold, numbered=False),
                                  readers._iter_raw_blocks(predictions, numbered=False), scoring.verdict_outcome,
                                  readers.MAX_DEPTH, decoders)

    (typed_rows, typed_claims), (rows, claims) = paired(counting), paired(None)
    n_lines = sum(1 for line in gold.read_bytes().splitlines() if line.strip())
    assert counting.gold.decoded == counting.prediction.decoded == n_lines == len(claims) > 100
    assert typed_claims == claims and _claim_row_fields(typed_rows) == _claim_row_fields(rows)


def test_commands_score_the_same_without_msgspec(tmp_path):
    """msgspec is optional (the `fast` extra): in a process where it cannot be imported, neither benchmark's
    `line_types` gives decoders, and TempBench's and TSVer's commands give the results they give with it."""
    import subprocess
    import sys

    from conftest import shared_path

    from benchscore.tempbench_trp import files as tempbench_files
    from benchscore.tsver import files as tsver_files

    q_path, e_path = _benchmark_shaped_files(tmp_path, 300, shuffled=True)
    gold, predictions = (shared_path("data", "tsver", *name.split("/"))
                         for name in ("tsver_test.jsonl", "predictions/pred_test_wrong_verdict.jsonl"))
    script = f"""
import json, sys
sys.modules["msgspec"] = None  # `import msgspec` raises ImportError, as where it is not installed
from benchscore.tempbench_trp import files as tempbench_files, line_types as tempbench_types
from benchscore.tsver import files as tsver_files, line_types as tsver_types
assert tempbench_types.decoders(64) is None and tsver_types.decoders(64) is None
results = [tempbench_files.score_files({str(q_path)!r}, {str(e_path)!r}),
           tsver_files.score_files({str(gold)!r}, {str(predictions)!r})]
print(json.dumps([{{k: v for k, v in r.items() if k != "signature"}} for r in results], sort_keys=True, default=repr))
"""
    found = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    with_msgspec = [tempbench_files.score_files(q_path, e_path), tsver_files.score_files(gold, predictions)]
    assert found.stdout.strip() == json.dumps([_without_signature(r) for r in with_msgspec], sort_keys=True,
                                              default=repr)


HEAVY_MODULES = ("numpy", "httpx", "tqdm", "http.client", "ssl")  # each loads in 10-90 ms


@pytest.mark.parametrize("argv", [
    ["--help"],
    ["mctaco", "--gold", "{m}/mctaco/examples/example.tsv",
     "--predictions", "{m}/mctaco/examples/example_predictions.txt"],
    ["tempbench", "--questions", "{m}/tempbench_trp/examples/questions.jsonl",
     "--evidence", "{m}/tempbench_trp/examples/evidence.jsonl"],
    ["tsver", "--gold", "{m}/tsver/examples/gold.jsonl", "--predictions", "{m}/tsver/examples/predictions.jsonl",
     "--ev2r", "{m}/tsver/examples/ev2r.jsonl"],
    ["webnlg", "{m}/webnlg_rdf/examples/refs.xml", "{m}/webnlg_rdf/examples/cands.xml"],
], ids=["help", "mctaco", "tempbench", "tsver", "webnlg"])
def test_a_scoring_command_loads_no_module_it_does_not_use(argv):
    """A command's start-up is most of its time on a test set: numpy loads with resampling (compare, table,
    --confidence), httpx with the HTTP judge, tqdm with a judge's progress bar, the network with a fetch.
    (WebNLG's Exact_match means are numpy's, summed as numpy sums them: `kernel.pairwise_sum`.)"""
    import subprocess
    import sys

    from benchscore import METRICS_DIR

    script = ("import contextlib, io, sys\nfrom benchscore.cli import main\n"
              "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
              "    try:\n        code = main(sys.argv[1:])\n    except SystemExit as done:\n        code = done.code\n"
              f"print(code, sorted(set({HEAVY_MODULES!r}) & set(sys.modules)))")
    found = subprocess.run([sys.executable, "-c", script, *[a.format(m=METRICS_DIR) for a in argv]],
                           capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "0 []"
