"""The speed-ups change no value and no message: each is checked against the path it shortcuts.

- JSON: orjson (the `fast` extra) against the stdlib's `json`, on the texts where they differ and on
  random JSON values: the same value (and types) or the same error, through `readers.parse_json`.
- evaluate: `PreparedFeatures.encode_batch` (columns passed through where encoding is the identity)
  against datasets' own `Features.encode_batch`, on exact, mixed and nested columns.
"""

import json
import math

import datasets
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchscore.core import readers
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
