"""The TempBench evaluate module, loaded by absolute path: same numbers as the pure scorer and the reference."""

import json

import pytest

from benchscore.core.readers import read_jsonl
from benchscore.tempbench_trp import files
from benchscore.tempbench_trp import scoring
from conftest import METRICS, load_metric, shared_path

FIXTURES = ("data", "tempbench", "fixtures")
EXAMPLES = METRICS / "tempbench_trp" / "examples"


def _inputs(questions):
    return {
        "references": [q["S_star"] for q in questions],
        "t_query": [q["t_query"] for q in questions],
        "complexity": [q.get("complexity") for q in questions],
        "operator_type": [q.get("operator_type") for q in questions],
        "id": [q.get("id") for q in questions],
    }


def _records(path):
    return [record for _, record in read_jsonl(path)]


def _examples():
    questions = _records(EXAMPLES / "questions.jsonl")
    evidence = [r["evidence"] for r in _records(EXAMPLES / "evidence.jsonl")]
    return questions, evidence


@pytest.fixture(scope="module")
def metric():
    return load_metric("tempbench_trp")


def test_compute_equals_pure_scorer_on_examples(metric):
    questions, evidence = _examples()
    result = metric.compute(predictions=evidence, **_inputs(questions))
    assert result == scoring.score(questions, evidence)
    assert result["signature"] == "tempbench_trp|version:1.0.0|benchscore:0.1.0|space:label|top_k:none|dedup:no|subset:all"


def test_add_batch_one_question_at_a_time_equals_compute(metric):
    questions, evidence = _examples()
    whole = metric.compute(predictions=evidence, **_inputs(questions))
    for q, ev in zip(questions, evidence):
        metric.add_batch(predictions=[ev], **_inputs([q]))
    assert metric.compute() == whole
    for q, ev in zip(questions, evidence):
        metric.add(prediction=ev, reference=q["S_star"], t_query=q["t_query"], complexity=q["complexity"],
                   operator_type=q["operator_type"], id=q["id"])
    assert metric.compute() == whole


@pytest.mark.parity
@pytest.mark.parametrize("space", ["label", "id"])
@pytest.mark.parametrize("form", ["", "tuple_"])
def test_fixture_parity_through_evaluate(space, form):
    metric = load_metric("tempbench_trp", space)
    expected = json.load(open(shared_path(*FIXTURES, f"expected_mixed_{form}{space}.json"), encoding="utf-8"))
    evidence = files.read_predictions(shared_path(*FIXTURES, expected["evidence_file"]))
    for questions_file, groups in expected["results"].items():
        (group,) = [g for g in groups if space in g["keys"]]
        questions = _records(shared_path(*FIXTURES, questions_file))
        for start in range(0, len(questions), 100):
            batch = questions[start:start + 100]
            metric.add_batch(predictions=[evidence[q["id"]] for q in batch], **_inputs(batch))
        result = metric.compute()
        assert result.pop("signature").startswith(f"tempbench_trp|version:1.0.0|benchscore:0.1.0|space:{space}|")
        warnings = result.pop("warnings", [])
        assert json.loads(json.dumps(result)) == group["aggregate"]
        assert all(w.startswith("TRP is reported as 0.0, not undefined, where no question retrieved") for w in warnings)


def test_options_reach_the_scorer_and_the_signature(metric):
    questions, evidence = _examples()
    result = metric.compute(predictions=evidence, top_k=1, dedup=True, functional_ids=["ex-1", "ex-2"],
                            **_inputs(questions))
    pure = scoring.score(questions, evidence, top_k=1, dedup=True, functional_ids=["ex-1", "ex-2"])
    assert result == pure and result["n_questions"] == 2
    assert "|top_k:1|dedup:yes|subset:functional-2-" in result["signature"]


def test_evidence_as_generators_is_read_once(metric):
    questions, evidence = _examples()
    result = metric.compute(predictions=[iter(ev) for ev in evidence], **_inputs(questions))
    assert result == scoring.score(questions, evidence)


def test_optional_slice_fields_may_be_left_out(metric):
    questions, evidence = _examples()
    result = metric.compute(predictions=evidence, references=[q["S_star"] for q in questions],
                            t_query=[q["t_query"] for q in questions])
    assert result["by_complexity"] == {None: {"n": 4, "TRP": 2 / 3, "CCR": 0.5}}


def test_unknown_config_is_rejected():
    with pytest.raises(ValueError, match="config_name must be 'label' .* or 'id', found 'auto'"):
        load_metric("tempbench_trp", "auto")


def test_errors_name_the_example_across_batches(metric):
    questions, evidence = _examples()
    metric.add_batch(predictions=evidence[:2], **_inputs(questions[:2]))
    bad = [[dict(evidence[2][0], t_start="1990-01-01")]]
    with pytest.raises(ValueError, match=r"^example 2: question 'ex-3': evidence\[0\]\.t_start must be a year"):
        metric.add_batch(predictions=bad, **_inputs(questions[2:3]))
    metric.compute()  # clears what was added
    with pytest.raises(ValueError, match=r"^example 0: .*matches a gold triple in id space"):
        metric.compute(predictions=[[("Q1", "P54", "Q10", 1994, 1994)]], **_inputs(questions[:1]))
    with pytest.raises(TypeError, match=r"^example 0: question 'ex-1': evidence\[0\]\.o must be a string, found int"):
        metric.compute(predictions=[[("Ada", "member of sports team", 10, 1994, 1994)]], **_inputs(questions[:1]))
    with pytest.raises(ValueError, match="id has 1 values for 2 predictions"):
        metric.compute(predictions=evidence[:2], **dict(_inputs(questions[:2]), id=["ex-1"]))


def test_every_example_is_checked_once_before_arrow(metric):
    questions, evidence = _examples()
    with pytest.raises(TypeError, match=r"^example 3: complexity must be a string or None, found int"):
        metric.compute(predictions=evidence, **dict(_inputs(questions), complexity=["1hop", None, "2hop", 3]))
    with pytest.raises(ValueError, match=r"^example 1: question 'ex-2': t_query must be a finite year"):
        metric.compute(predictions=evidence[:2], **dict(_inputs(questions[:2]), t_query=[1994, float("nan")]))
    with pytest.raises(ValueError, match="needs t_query"):
        metric.add_batch(predictions=evidence[:1], references=[questions[0]["S_star"]])
    metric.add_batch(predictions=evidence[:2], **_inputs(questions[:2]))
    with pytest.raises(ValueError, match=r"^example 2: question 'ex-3': evidence\[0\]\.t_start must be a year"):
        metric.add_batch(predictions=[[dict(evidence[2][0], t_start=True)]], **_inputs(questions[2:3]))
    assert metric.compute()["n_questions"] == 2  # what was added before the error is kept


def test_warnings_of_the_reference_convention(metric):
    questions, _ = _examples()
    result = metric.compute(predictions=[[] for _ in questions], **_inputs(questions))
    assert (result["TRP_macro"], result["coverage"]) == (0.0, 0.0)
    assert result["warnings"] == [
        "TRP is reported as 0.0, not undefined, where no question retrieved anything (the reference scorer's "
        "convention): all questions, by_complexity['1hop'], by_complexity['2hop'], by_complexity['3+hop'], "
        "by_operator['after'] ..."]


def test_functional_ids_need_an_id_for_every_question(metric):
    questions, evidence = _examples()
    with pytest.raises(ValueError, match=r"^example 1: the question has no id, so it cannot be matched"):
        metric.compute(predictions=evidence[:2], functional_ids=["ex-1"], **dict(_inputs(questions[:2]), id=["ex-1", None]))
