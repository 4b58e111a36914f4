"""`benchscore tempbench`, called through the project's dispatcher."""

import json
import re

import pytest

from benchscore.cli import main
from benchscore.core.readers import read_jsonl
from benchscore.tempbench_trp import scoring
from conftest import METRICS, shared_path

FIXTURES = ("data", "tempbench", "fixtures")
EXAMPLES = METRICS / "tempbench_trp" / "examples"
ARGS = ["tempbench", "--questions", str(EXAMPLES / "questions.jsonl"), "--evidence", str(EXAMPLES / "evidence.jsonl")]


def test_table_with_slices(capsys):
    assert main(ARGS) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "tempbench_trp|version:1.0.0|benchscore:0.1.0|space:label|top_k:none|dedup:no|subset:all"
    assert out[2] == "questions 4  coverage 0.7500  TRP_macro 0.6667  TRP_micro 0.6667  CCR 0.5000"
    assert "  3+hop                       1   1.0000   1.0000" in out
    assert out.index("complexity") < out.index("operator")


def test_json_equals_the_pure_scorer(capsys):
    assert main(ARGS + ["--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    questions = [record for _, record in read_jsonl(EXAMPLES / "questions.jsonl")]
    evidence = [record["evidence"] for _, record in read_jsonl(EXAMPLES / "evidence.jsonl")]
    expected = dict(scoring.score(questions, evidence), n_evidence_unused=0)
    assert result == json.loads(json.dumps(expected))


def test_options_split_and_functional(tmp_path, capsys):
    functional = tmp_path / "functional_negatives.jsonl"
    functional.write_text('{"id": "ex-1", "S_stale": true}\n{"id": "ex-2", "S_stale": false}\n', encoding="utf-8")
    assert main(ARGS + ["--json", "--split", "test", "--top-k", "2", "--dedup", "--functional", str(functional),
                        "--functional-flag", "S_stale"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["n_questions"] == 1 and result["TRP_macro"] == 0.5
    assert "|top_k:2|dedup:yes|subset:functional-1-" in result["signature"]


@pytest.mark.parity
def test_fixture_run_in_id_space_matches_the_reference(capsys):
    expected = json.load(open(shared_path(*FIXTURES, "expected_oracle_plus_noise_tuple_id.json"), encoding="utf-8"))
    (group,) = [g for g in expected["results"]["questions_point.jsonl"] if "id" in g["keys"]]
    assert main(["tempbench", "--questions", str(shared_path(*FIXTURES, "questions_point.jsonl")), "--evidence",
                 str(shared_path(*FIXTURES, "evidence_oracle_plus_noise_tuple_id.jsonl")), "--space", "id",
                 "--split", "test", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    n_lines = len(shared_path(*FIXTURES, "evidence_oracle_plus_noise_tuple_id.jsonl").read_text().splitlines())
    assert result.pop("n_evidence_unused") == n_lines - result["n_questions"]
    result.pop("signature")
    assert result == group["aggregate_test_split"]


@pytest.mark.parametrize("evidence_line, message", [
    ('{"id": "ex-1", "evidence": [["Ada", "member of sports team", "Rovers", "1994-01-01", 1994]]}',
     r"run.jsonl:1: question 'ex-1': evidence\[0\]\.t_start must be a year"),
    ('{"id": "ex-1", "evidence": null}', "evidence must be a list of triples, found NoneType"),
    ('{"id": "ex-1", "evidence": [{"s_id": "Q1", "r_id": "P54", "o_id": "Q10", "t_start": 1994, "t_end": 1994}]}',
     "lacks s, r, o for space 'label'"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, evidence_line, message):
    evidence = tmp_path / "run.jsonl"
    evidence.write_text(evidence_line + "\n", encoding="utf-8")
    questions = tmp_path / "q.jsonl"
    questions.write_text((EXAMPLES / "questions.jsonl").read_text(encoding="utf-8").splitlines()[0] + "\n")
    assert main(["tempbench", "--questions", str(questions), "--evidence", str(evidence)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("benchscore tempbench: error: ") and len(err.strip().splitlines()) == 1
    assert re.search(message, err)


@pytest.mark.parametrize("t_query", ["1993", '"1993"'])  # a plain line, and one read through a record
def test_a_gold_triple_outside_the_space_names_only_the_keys_the_line_holds(tmp_path, capsys, t_query):
    """A record or an Arrow row has every triple field (None where absent): the message lists the keys with a value,
    on every path, as a plain line's own keys (it once listed o_id, r_id, t_end, t_start on the record path)."""
    questions, evidence = tmp_path / "q.jsonl", tmp_path / "run.jsonl"
    questions.write_text('{"id": "q", "t_query": %s, "S_star": [{"s": "a", "r": "b", "o": "c", "s_id": "x"}]}\n'
                         % t_query, encoding="utf-8")
    evidence.write_text('{"id": "q", "evidence": []}\n', encoding="utf-8")
    assert main(["tempbench", "--questions", str(questions), "--evidence", str(evidence), "--space", "id"]) == 2
    assert capsys.readouterr().err == (f"benchscore tempbench: error: {questions}:1: question 'q': S_star[0] needs "
                                       "s_id, r_id, o_id for space 'id', found ['o', 'r', 's', 's_id']\n")


def test_missing_file_exits_2(capsys):
    assert main(["tempbench", "--questions", "/nonexistent/q.jsonl", "--evidence", str(EXAMPLES / "evidence.jsonl")]) == 2
    assert "No such file" in capsys.readouterr().err


def test_the_same_bad_run_file_is_the_same_line_for_score_and_compare(tmp_path, capsys):
    """Issue 11: a blank line, then a record without `evidence`, is line 3 in both commands."""
    run = tmp_path / "run.jsonl"
    run.write_text('{"id": "ex-1", "evidence": []}\n\n{"id": "ex-2"}\n', encoding="utf-8")
    questions = str(EXAMPLES / "questions.jsonl")
    assert main(["tempbench", "--questions", questions, "--evidence", str(run)]) == 2
    scored = capsys.readouterr().err
    assert main(["compare", "tempbench", "--questions", questions, "--evidence", str(run)]) == 2
    compared = capsys.readouterr().err
    expected = f"{run}:3: found the fields ['id']; expected one {{\"id\": ..., \"evidence\": [triples]}} object"
    assert scored == f"benchscore tempbench: error: {expected}\n"
    assert compared == f"benchscore compare: error: {expected}\n"


def test_warnings_go_to_stderr_and_into_the_json(tmp_path, capsys):
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps({"id": f"ex-{i}", "evidence": []}) + "\n" for i in range(1, 5)), encoding="utf-8")
    assert main(["tempbench", "--questions", str(EXAMPLES / "questions.jsonl"), "--evidence", str(run), "--json"]) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert (result["TRP_macro"], result["coverage"]) == (0.0, 0.0)
    assert result["warnings"][0].startswith("TRP is reported as 0.0, not undefined, where no question retrieved")
    assert captured.err == f"benchscore tempbench: warning: {result['warnings'][0]}\n"
