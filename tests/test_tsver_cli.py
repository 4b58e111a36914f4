"""`benchscore tsver --judge-url`: the CLI end to end against a fake OpenAI-compatible server on
127.0.0.1 (never the internet), on our own example files."""

import json

import pytest

from benchscore.cli import main
from benchscore.tsver import scoring
from conftest import METRICS
from fake_judge_server import FakeJudgeServer
from fake_judge_server import counts_for

EXAMPLES = METRICS / "tsver" / "examples"


def _run(server, tmp_path, *extra):
    return main(["tsver", "--gold", str(EXAMPLES / "gold.jsonl"), "--predictions", str(EXAMPLES / "predictions.jsonl"),
                 "--judge-url", server.base_url, "--judge-model", "fake-judge", "--judge-api-key-env",
                 "TSVER_TEST_KEY", "--judge-cache", str(tmp_path / "cache"), "--json", *extra])


@pytest.mark.usefixtures("tsver_store")  # the judge's default protocol reads the official template from the store
def test_http_judge_scores_failures_and_caches(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TSVER_TEST_KEY", "sk-test-secret")
    gold = [json.loads(line) for line in (EXAMPLES / "gold.jsonl").read_text("utf-8").splitlines()]
    failing = gold[6]["Claim"]
    with FakeJudgeServer() as server:
        server.script[failing] = [{"status": 400, "body": "bad request"}]  # a client error fails at once
        assert _run(server, tmp_path) == 0
        first = capsys.readouterr()
        result = json.loads(first.out)
        n_requests = len(server.requests)
        assert n_requests == 5  # claims 0, 2, 3, 5, 6: not the null Explanation nor the missing claim
        assert (result["n_ev2r_judged"], result["n_ev2r_failed"]) == (4, 1)
        judged = [counts_for(gold[i]["Claim"]) for i in (0, 2, 3, 5)]
        assert {k: result[f"ev2r_{k}"] for k in ("precision", "recall", "f1")} == scoring.ev2r_aggregate(judged)
        assert result["signature"].startswith("tsver|version:1.0.0|benchscore:0.1.0|strict:no|ev2r:tsver|judge:openai(model=fake-judge")
        assert all(r["headers"].get("Authorization") == "Bearer sk-test-secret" for r in server.requests)
        # a rerun reads the cache: only the failed claim is asked again (failures are not cached),
        # and this time the server answers it
        assert _run(server, tmp_path) == 0
        second = capsys.readouterr()
        assert len(server.requests) == n_requests + 1
        assert (json.loads(second.out)["n_ev2r_judged"], json.loads(second.out)["n_ev2r_failed"]) == (5, 0)
        # everything cached now: no request, the same numbers
        assert _run(server, tmp_path) == 0
        third = capsys.readouterr()
        assert len(server.requests) == n_requests + 1
        usage = [json.loads(out).pop("judge_usage") for out in (second.out, third.out)]
        assert (usage[0]["requests"], usage[1]["requests"], usage[1]["cached_claims"]) == (1, 0, 5)
        assert {k: v for k, v in json.loads(third.out).items() if k != "judge_usage"} == {
            k: v for k, v in json.loads(second.out).items() if k != "judge_usage"}
    assert "sk-test-secret" not in first.out + first.err + second.out + second.err


@pytest.mark.usefixtures("tsver_store")
def test_judge_options_need_a_url(capsys):
    argv = ["tsver", "--gold", str(EXAMPLES / "gold.jsonl"), "--predictions", str(EXAMPLES / "predictions.jsonl")]
    assert main(argv + ["--judge-cache", "x"]) == 2
    assert "need --judge-url" in capsys.readouterr().err
    assert main(argv + ["--judge-timeout", "5"]) == 2
    capsys.readouterr()
    # --judge-url alone takes the official judge model; here it stops at the missing key, before any request
    assert main(argv + ["--judge-url", "http://127.0.0.1:9/v1"]) == 2
    assert "the environment variable OPENAI_API_KEY holding the API key is not set" in capsys.readouterr().err


def test_recorded_ev2r_sums_every_record_of_the_file_as_the_official_scorer(tmp_path):
    """The official Ev²R sums all records of the judge file: a duplicate counts twice, and records of
    claims not in the gold file count too. The claim-aligned path would see one record per claim."""
    from benchscore.tsver.ev2r import iter_recorded
    from benchscore.tsver.files import score_files
    from benchscore.tsver.scoring import ev2r_aggregate
    from benchscore.tsver.scoring import ev2r_counts

    examples = METRICS / "tsver" / "examples"
    lines = (examples / "ev2r.jsonl").read_text(encoding="utf-8").splitlines()
    extra = json.dumps({"Claim": "A claim that is not in the gold file.", "ev2r_response": {
        "facts count predicted evidence": 9, "support predicted evidence": 9, "facts count reference evidence": 1}})
    judge_file = tmp_path / "ev2r.jsonl"
    judge_file.write_text("\n".join(lines + [lines[0], extra]) + "\n", encoding="utf-8")

    aligned = score_files(examples / "gold.jsonl", examples / "predictions.jsonl", examples / "ev2r.jsonl")
    official = score_files(examples / "gold.jsonl", examples / "predictions.jsonl", judge_file)
    assert any("sums all of them" in warning for warning in official["warnings"])
    expected = ev2r_aggregate([ev2r_counts(r) for _, _, r in iter_recorded(judge_file)], "tsver")
    assert (official["ev2r_precision"], official["ev2r_recall"], official["ev2r_f1"]) == (
        expected["precision"], expected["recall"], expected["f1"])
    assert official["ev2r_f1"] != aligned["ev2r_f1"]
    assert official["n_ev2r_records"] == len(lines) + 2
    assert "n_ev2r_records" not in aligned  # a file with one record per judged claim changes nothing
