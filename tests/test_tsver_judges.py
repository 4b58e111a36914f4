"""Ev²R judges without a network: recorded records, Python callables, the reply parser, run_judge."""

import json
import threading

import pytest

from conftest import shared_path
from benchscore.tsver import ev2r
from benchscore.tsver.ev2r import JudgeError
from benchscore.tsver.scoring import EV2R_KEYS

# Hand-written records (not copies of ../shared data).
RECORD_A = dict(zip(EV2R_KEYS, (3, 2, 4, 1)))
RECORD_B = dict(zip(EV2R_KEYS, (5, 5, 2, 2)))


def write_lines(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def official_line(claim, response):
    return json.dumps({"Claim": claim, "ev2r_response": response}, ensure_ascii=False)


# -- recorded judge outputs -------------------------------------------------------------------


def test_recorded_judge_on_the_shared_synthetic_perfect_records():
    records_path = shared_path("data", "tsver", "predictions", "ev2r_synthetic_perfect_test.jsonl")
    gold_path = shared_path("data", "tsver", "tsver_test.jsonl")
    gold = [json.loads(line) for line in gold_path.read_text(encoding="utf-8").splitlines()]
    records = ev2r.read_recorded(records_path)
    assert len(records) == 280 and set(records) == {claim["Claim"] for claim in gold}

    items = [(claim["Claim"], "\n".join(claim["Justifications"]), "an explanation") for claim in gold]
    outcomes = ev2r.run_judge(ev2r.as_judge(records_path), items)
    assert [outcome.claim for outcome in outcomes] == [claim["Claim"] for claim in gold]
    assert all(outcome.ok for outcome in outcomes)
    # Synthetic perfect: every side has as many supported facts as facts.
    for outcome in outcomes:
        counts = outcome.counts
        assert counts["support predicted evidence"] == counts["facts count predicted evidence"] > 0
        assert counts["support reference evidence"] == counts["facts count reference evidence"] > 0
        assert counts == {key: records[outcome.claim][key] for key in EV2R_KEYS}


def test_read_recorded_keeps_raw_records_and_the_judge_counts_missing_keys_as_zero(tmp_path):
    partial = {"facts count predicted evidence": 2, "support predicted evidence": 1,
               "facts in predicted evidence": "1. x"}
    path = write_lines(tmp_path / "ev2r.jsonl", [official_line("A", RECORD_A), "", official_line("B ₂", partial)])
    records = ev2r.read_recorded(path)
    assert records == {"A": RECORD_A, "B ₂": partial}  # raw, missing keys still missing
    judge = ev2r.as_judge(path)
    assert judge("B ₂", "ref", "pred") == partial  # the record as the judge wrote it, for --write-ev2r
    assert ev2r.record_counts(judge("B ₂", "ref", "pred")) == {
        "facts count predicted evidence": 2, "support predicted evidence": 1,
        "facts count reference evidence": 0, "support reference evidence": 0}
    assert ev2r.RecordedJudge({"A": RECORD_A})("A", "", "") == RECORD_A


def test_recorded_duplicates_later_wins_with_a_warning_naming_both_lines(tmp_path):
    path = write_lines(tmp_path / "ev2r.jsonl", [official_line("A", RECORD_A), official_line("C", RECORD_A),
                                                 official_line("A", RECORD_B)])
    with pytest.warns(UserWarning, match=r"ev2r.jsonl:3: records claim 'A' again \(first on line 1\)"):
        records = ev2r.read_recorded(path)
    assert records["A"] == RECORD_B
    # The every-record view keeps both, as the official aggregation sums them.
    assert [(n, claim) for n, claim, _ in ev2r.iter_recorded(path)] == [(1, "A"), (2, "C"), (3, "A")]


@pytest.mark.parametrize("bad_line, message", [
    ('{"Claim": "A", "ev2r_response": {', r"ev2r.jsonl:2: not valid JSON"),
    ('["A"]', r"ev2r.jsonl:2: found a JSON list; expected an Ev2R record"),
    ('{"ev2r_response": {}}', r"ev2r.jsonl:2: missing key 'Claim'"),
    ('{"Claim": "A"}', r"ev2r.jsonl:2: missing key 'ev2r_response'"),
    ('{"Claim": 7, "ev2r_response": {}}', r"ev2r.jsonl:2: 'Claim' is int; expected a string"),
    ('{"Claim": "A", "ev2r_response": "4 facts"}', r"ev2r.jsonl:2: 'ev2r_response' is str; expected a JSON object"),
    ('{"Claim": "A", "ev2r_response": {"support predicted evidence": "3"}}',
     r"ev2r.jsonl:2: ev2r_response: 'support predicted evidence' must be an int >= 0, found '3'"),
    ('{"Claim": "A", "ev2r_response": {"facts count reference evidence": -1}}',
     r"ev2r.jsonl:2: ev2r_response: 'facts count reference evidence' must be an int >= 0, found -1"),
    ('{"Claim": "A", "ev2r_response": {"facts count reference evidence": 2.0}}', r"found 2.0"),
])
def test_read_recorded_names_the_line_of_bad_input(tmp_path, bad_line, message):
    path = write_lines(tmp_path / "ev2r.jsonl", [official_line("Z", RECORD_A), bad_line])
    with pytest.raises(ValueError, match=message):
        ev2r.read_recorded(path)


def test_recorded_signature_tells_record_sets_apart():
    same = ev2r.RecordedJudge({"A": RECORD_A, "B": RECORD_B}).signature
    assert same == ev2r.RecordedJudge({"B": dict(RECORD_B), "A": RECORD_A}).signature
    assert same.startswith("recorded(n=2,sha256=") and "|" not in same
    assert same != ev2r.RecordedJudge({"A": RECORD_A, "B": RECORD_A}).signature


def test_recorded_judge_fails_for_an_absent_claim():
    with pytest.raises(JudgeError, match="no recorded Ev2R record for the claim 'unknown'"):
        ev2r.RecordedJudge({"A": RECORD_A})("unknown", "ref", "pred")


# -- callables --------------------------------------------------------------------------------


def test_callable_judge_passes_arguments_through_and_keeps_free_text():
    seen = []

    def judge(claim, reference, prediction):
        seen.append((claim, reference, prediction))
        return RECORD_A | {"fact check predicted evidence": "ok"}

    assert ev2r.CallableJudge(judge)("c", "r1\nr2", "p") == RECORD_A | {"fact check predicted evidence": "ok"}
    assert seen == [("c", "r1\nr2", "p")]


@pytest.mark.parametrize("result, message", [
    ([3, 2, 4, 1], r"expected a dict .* found list"),
    ({k: v for k, v in RECORD_A.items() if k != "support reference evidence"},
     r"missing key 'support reference evidence'"),
    (RECORD_A | {"support predicted evidence": -2}, r"'support predicted evidence' must be an int >= 0, found -2"),
    (RECORD_A | {"support predicted evidence": True}, r"found True"),
    (RECORD_A | {"facts count predicted evidence": "3"}, r"found '3'"),
    (RECORD_A | {"facts count predicted evidence": 3.0}, r"found 3.0"),
])
def test_callable_judge_rejects_a_bad_result_clearly(result, message):
    def my_judge(claim, reference, prediction):
        return result

    with pytest.raises(JudgeError, match=r"^judge my_judge returned a bad result: .*" + message):
        ev2r.CallableJudge(my_judge)("c", "r", "p")


def test_as_judge_picks_the_judge_kind(tmp_path):
    path = write_lines(tmp_path / "ev2r.jsonl", [official_line("A", RECORD_A)])
    assert isinstance(ev2r.as_judge(path), ev2r.RecordedJudge)
    assert isinstance(ev2r.as_judge(str(path)), ev2r.RecordedJudge)
    assert isinstance(ev2r.as_judge({"A": RECORD_A}), ev2r.RecordedJudge)
    assert isinstance(ev2r.as_judge({"A": RECORD_A}), ev2r.RecordedJudge)
    assert isinstance(ev2r.as_judge(lambda c, r, p: RECORD_A), ev2r.CallableJudge)
    recorded = ev2r.as_judge(path)
    assert ev2r.as_judge(recorded) is recorded
    with pytest.raises(TypeError, match="judge: expected a path, a mapping claim -> record or a callable, found int"):
        ev2r.as_judge(3)


# -- run_judge --------------------------------------------------------------------------------


def test_run_judge_keeps_order_and_reports_failures_as_outcomes():
    def judge(claim, reference, prediction):
        if claim.startswith("fail"):
            raise JudgeError(f"cannot judge {claim}")
        if claim.startswith("bad"):
            return {"facts count predicted evidence": 1}
        return dict(zip(EV2R_KEYS, (len(claim), 0, 1, 1)))

    claims = ["a", "fail-1", "bbb", "bad", "cccc", "fail-2"]
    for concurrency in (1, 3):
        outcomes = ev2r.run_judge(ev2r.as_judge(judge), [(c, "r", "p") for c in claims], concurrency=concurrency,
                                    progress=False)
        assert [o.claim for o in outcomes] == claims
        assert [o.ok for o in outcomes] == [True, False, True, False, True, False]
        assert outcomes[0].counts["facts count predicted evidence"] == 1
        assert outcomes[4].counts["facts count predicted evidence"] == 4
        assert outcomes[1].error == "cannot judge fail-1" and outcomes[1].counts is None
        assert "missing key 'support predicted evidence'" in outcomes[3].error


def test_run_judge_runs_concurrently_and_lets_bugs_propagate():
    in_flight, peak, lock = [0], [0], threading.Lock()
    barrier = threading.Barrier(3, timeout=10)

    def judge(claim, reference, prediction):
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        barrier.wait()  # passes only if three calls run at once
        with lock:
            in_flight[0] -= 1
        return RECORD_A

    outcomes = ev2r.run_judge(judge, [(str(i), "r", "p") for i in range(6)], concurrency=3, progress=False)
    assert all(o.ok for o in outcomes) and peak[0] == 3

    def buggy(claim, reference, prediction):
        raise KeyError("a bug, not a judge failure")

    with pytest.raises(KeyError):
        ev2r.run_judge(buggy, [("a", "r", "p")] * 4, concurrency=2, progress=False)


def test_run_judge_progress_bar_on_stderr_only_when_asked(capsys):
    items = [("a", "r", "p"), ("b", "r", "p")]
    ev2r.run_judge(ev2r.RecordedJudge({"a": RECORD_A, "b": RECORD_B}), items, progress=True)
    captured = capsys.readouterr()
    assert "Ev2R judge" in captured.err and "2/2" in captured.err and captured.out == ""
    ev2r.run_judge(ev2r.RecordedJudge({"a": RECORD_A, "b": RECORD_B}), items)  # a recorded judge: no bar
    assert capsys.readouterr().err == ""


# -- prompt and reply parser ------------------------------------------------------------------


def test_prompt_has_the_one_shot_design_and_its_example_is_a_valid_answer():
    prompt = ev2r.build_prompt("My claim.", "Ref line 1\nRef line 2", "My prediction.")
    for step in range(1, 6):
        assert f"Step {step}." in prompt
    assert prompt.endswith("# CLAIM:\nMy claim.\n\n# REFERENCE EVIDENCE:\nRef line 1\nRef line 2\n\n"
                           "# PREDICTED EVIDENCE:\nMy prediction.\n\n# ANSWER:\n")
    example = prompt[prompt.index("## Example"):prompt.index("## Your task")]
    response = ev2r.parse_reply(example)
    assert [response[key] for key in EV2R_KEYS] == [6, 5, 6, 4]
    assert set(response) == set(EV2R_KEYS) | set(ev2r.TEXT_KEYS)
    # The example's fact lists and checks agree with its counts.
    for side in ("predicted", "reference"):
        facts = response[f"facts in {side} evidence"].split("\n")
        checks = response[f"fact check {side} evidence"].split("\n")
        assert len(facts) == len(checks) == response[f"facts count {side} evidence"]
        supported = [check for check in checks if check.split(". ", 1)[1].startswith("supported")]
        assert len(supported) == response[f"support {side} evidence"]


@pytest.mark.parametrize("reply", [
    "```json\n" + json.dumps(RECORD_A) + "\n```",
    "Sure.\n```JSON\n" + json.dumps(RECORD_A, indent=2) + "\n```\nDone.",
    "```\n" + json.dumps(RECORD_A) + "\n```",
    json.dumps(RECORD_A),
    "  \n" + json.dumps(RECORD_A, indent=1) + "\n",
    "The answer is " + json.dumps(RECORD_A) + " as requested.",
    "```python\nx = 1\n```\n```json\n" + json.dumps(RECORD_A) + "\n```",
])
def test_parse_reply_accepts_fenced_and_bare_json(reply):
    assert {key: ev2r.parse_reply(reply)[key] for key in EV2R_KEYS} == RECORD_A


@pytest.mark.parametrize("reply, message", [
    ("I cannot help with that.", r"judge reply holds no JSON object \(24 characters, not shown\)"),
    ("```json\n{\"facts count predicted evidence\": 3,\n```", r"holds no JSON object"),
    ("```json\n[1, 2, 3, 4]\n```", r"holds no JSON object"),
    ("```json\n" + json.dumps(RECORD_A | {"support predicted evidence": "two"}) + "\n```",
     r"judge reply: 'support predicted evidence' must be an int >= 0, found 'two'"),
    ("{" + "x" * 500, r"501 characters, not shown\); expected the four counts in a ```json block$"),
])
def test_parse_reply_rejects_malformed_replies(reply, message):
    with pytest.raises(JudgeError, match=message):
        ev2r.parse_reply(reply)


def test_any_other_exception_of_a_judge_propagates_and_a_path_needs_files():
    def buggy(claim, reference, prediction):
        raise KeyError("a bug, not a judge failure")

    with pytest.raises(KeyError):
        ev2r.run_judge(ev2r.as_judge(buggy), [("a", "r", "p")])
    with pytest.raises(TypeError, match="ev2r.as_judge"):
        ev2r.RecordedJudge("ev2r.jsonl")


def test_the_space_and_the_module_never_load_the_http_client():
    """The Space uploads recorded judge files and runs no judge: what it and the evaluate module read
    (files, ev2r, the app) must not pull in the HTTP client (gradio brings httpx of its own)."""
    import subprocess
    import sys

    code = ("import sys; import benchscore.tsver.app, benchscore.tsver.files, benchscore.tsver.ev2r; "
            "loaded = [m for m in ('benchscore.tsver.http_judge',) if m in sys.modules]; "
            "print(loaded); sys.exit(1 if loaded else 0)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
