"""TempBench loader: question files -> datasets.Dataset with explicit features, unknown fields kept."""

import json

import datasets
import pytest

from benchscore.core.readers import read_jsonl
from benchscore.tempbench_trp import files
from benchscore.tempbench_trp import loader
from benchscore.tempbench_trp import scoring
from conftest import METRICS, load_metric, shared_path


def _records(path):
    return [record for _, record in read_jsonl(path)]

FIXTURES = ("data", "tempbench", "fixtures")
EXAMPLES = METRICS / "tempbench_trp" / "examples"


@pytest.mark.parametrize("name", ["questions_point.jsonl", "questions_interval.jsonl"])
def test_fixture_files_load_with_every_field(name):
    path = shared_path(*FIXTURES, name)
    ds = loader.load_tempbench(path)
    raw = [json.loads(line) for line in open(path, encoding="utf-8")]
    n, n_test = len(raw), sum(r["split"] == "test" for r in raw)
    assert ds.num_rows == n > n_test > 0 and ds.features == loader.FEATURES
    assert ds["id"] == [r["id"] for r in raw]
    assert ds["t_query"] == [r["t_query"] for r in raw]
    for field in ("S_star", "S_dist", "S_stale"):
        assert ds[field] == [r[field] for r in raw]  # both spaces and float times, nothing lost
    assert set(ds["extra"]) == {"{}"}
    test = loader.load_tempbench(path, split="test")
    assert test.num_rows == n_test and set(test["split"]) == {"test"}


def test_unknown_fields_go_to_extra_and_id_only_records_load(tmp_path):
    path = tmp_path / "benchmark.jsonl"
    record = {"id": "w1", "question": "?", "t_query": 1994, "complexity": "1hop", "operator_type": "before",
              "split": "test", "source": {"file": "x"}, "S_star": [{"s_id": "Q1", "r_id": "P1", "o_id": "Q2",
                                                                    "t_start": 1994, "t_end": "inf", "rank": 3}]}
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    (row,) = loader.load_tempbench(path)
    assert json.loads(row["extra"]) == {"source": {"file": "x"}, "S_star[0].rank": 3}
    assert row["S_star"] == [{"s": None, "r": None, "o": None, "s_id": "Q1", "r_id": "P1", "o_id": "Q2",
                              "t_start": 1994.0, "t_end": float("inf")}]
    assert row["S_dist"] is None and row["S_stale"] is None  # absent, not empty


def test_hand_written_example_keeps_its_extra_field():
    ds = loader.load_tempbench(EXAMPLES / "questions.jsonl")
    assert [json.loads(e) for e in ds["extra"]] == [{}, {}, {"source": "hand-written"}, {}]


@pytest.mark.parametrize("change, message", [
    ({"S_star": None}, r"q.jsonl:1: question 'w1': missing S_star"),
    ({"t_query": "1994-06-01"}, r"t_query must be a year as a number .*found '1994-06-01'"),
    ({"S_star": [{"s": "A", "r_id": "P1", "t_start": 1994}]}, r"S_star\[0\] has neither s, r, o nor s_id, r_id, o_id"),
    ({"S_dist": [{"s": "A", "r": "r", "o": "B", "t_start": "May 1994"}]}, r"S_dist\[0\]\.t_start must be a year"),
    ({"complexity": 2}, r"complexity must be a string, found 2"),
    ({"S_stale": {"s": "A"}}, r"S_stale must be a list of triples"),
])
def test_malformed_records_name_line_id_and_field(tmp_path, change, message):
    record = {"id": "w1", "t_query": 1994.0, "S_star": [{"s": "A", "r": "r", "o": "B", "t_start": 1, "t_end": 2}]}
    record.update(change)
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        loader.load_tempbench(path)


def test_split_filter_that_matches_nothing_says_what_is_there():
    with pytest.raises(ValueError, match=r"questions.jsonl:1: no question has split 'dev' \(splits found: test, train\)"):
        loader.load_tempbench(EXAMPLES / "questions.jsonl", split="dev")


def test_loaded_rows_go_straight_into_the_metric():
    ds = loader.load_tempbench(EXAMPLES / "questions.jsonl")
    assert isinstance(ds, datasets.Dataset)
    evidence = [r["evidence"] for r in _records(EXAMPLES / "evidence.jsonl")]
    result = load_metric("tempbench_trp").compute(predictions=evidence, **loader.metric_inputs(ds))
    questions = _records(EXAMPLES / "questions.jsonl")
    assert result == scoring.score(questions, evidence)


def test_loaded_fixture_rows_score_like_the_raw_records():
    path = shared_path(*FIXTURES, "questions_interval.jsonl")
    ds = loader.load_tempbench(path)
    evidence = files.read_predictions(shared_path(*FIXTURES, "evidence_partial_id.jsonl"))
    runs = [evidence[i] for i in ds["id"]]
    raw = _records(path)
    assert scoring.score(ds, runs, space="id") == scoring.score(raw, runs, space="id")
