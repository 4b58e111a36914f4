"""TSVer's Ev²R judged as the paper's pipeline judges it: `benchscore tsver --judge-url` beside the
official pipeline's behaviour (`official_ev2r.py`, written from the spec), on one loopback judge that
answers both from the prompt alone. Same request bodies, same records, same Ev²R; the claims the
official rules drop are reported; a rerun sends nothing."""

import collections
import hashlib
import json
import pathlib

import pytest
from conftest import METRICS, shared_path
from fake_judge_server import FakeJudgeServer, counts_for, fenced
from official_ev2r import official_ev2r_score, predict_ev2r

from benchscore import data
from benchscore.cli import main
from benchscore.tsver import ev2r, prompt_template


@pytest.fixture
def store(tsver_store):
    return tsver_store


@pytest.fixture
def gold():
    return str(shared_path("data", "tsver", "tsver_test.jsonl"))


@pytest.fixture
def predictions():
    return str(shared_path("data", "tsver", "predictions", "pred_test_gold.jsonl"))


def reply_for(claim):
    """Deterministic from the claim: most replies as the official pipeline wants them, some it cannot
    read on any attempt (upper-case JSON fence, no fence) and some with a count key missing."""
    kind = int(hashlib.sha256(claim.encode("utf-8")).hexdigest(), 16) % 40
    if kind == 0:
        return "```JSON\n" + json.dumps(counts_for(claim)) + "\n```"
    if kind == 1:
        return json.dumps(counts_for(claim))
    if kind == 2:
        return fenced({k: v for k, v in counts_for(claim).items() if k != "support reference evidence"})
    return None  # the default fenced record


def bodies(server):
    return collections.Counter(json.dumps(r["body"], sort_keys=True) for r in server.requests)


def lines(path):
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def ours(url, gold, predictions, *extra):
    return main(["tsver", "--gold", gold, "--predictions", predictions, "--judge-url", url,
                 "--judge-api-key-env", "none", "--json", *extra])


@pytest.mark.parity
def test_same_bodies_records_and_ev2r_as_the_official_pipeline(store, gold, predictions, tmp_path, capsys):
    template = data.resolve("tsver", "official:prompt_templates")
    with FakeJudgeServer() as official_server, FakeJudgeServer() as our_server:
        official_server.responder = our_server.responder = reply_for
        predict_ev2r(official_server.base_url, template, gold, predictions, tmp_path / "official.jsonl")
        assert ours(our_server.base_url, gold, predictions, "--no-judge-cache", "--write-ev2r",
                    str(tmp_path / "ours.jsonl")) == 0
        out, err = capsys.readouterr()
    result = json.loads(out)
    official, written = lines(tmp_path / "official.jsonl"), lines(tmp_path / "ours.jsonl")
    dropped = [i for i, g in enumerate(lines(pathlib.Path(gold)))
               if g["Claim"] not in {r["Claim"] for r in official}]
    assert 0 < len(dropped) < 280 and len(official) == 280 - len(dropped)
    # the same requests (as JSON), three attempts for each claim the official rules cannot read
    assert bodies(our_server) == bodies(official_server)
    assert len(our_server.requests) == 280 + 2 * len(dropped)
    assert set(our_server.requests[0]["body"]) == {"messages", "model", "reasoning"}
    assert our_server.requests[0]["body"]["reasoning"] == {"effort": "medium", "exclude": True}
    assert our_server.requests[0]["body"]["model"] == "google/gemini-2.5-flash"
    # the same records, in the same (gold) order, every key the judge wrote
    assert written == official
    # the same Ev²R, and the claims the official pipeline drops are reported, with their number
    assert round(result["ev2r_f1"] * 100, 2) == official_ev2r_score(tmp_path / "official.jsonl")
    assert result["n_ev2r_failed"] == len(dropped)
    assert [f["claim_index"] for f in result["ev2r_failures"]] == dropped
    assert f"{len(dropped)} left out for want of a usable judge record, as the official pipeline and scorer" in err
    assert result["signature"].endswith("|judge:openai(model=google/gemini-2.5-flash,protocol=tsver-official)")
    # the written file rescored as a recorded judge, ours and the official file alike: the same number
    for path in (tmp_path / "ours.jsonl", tmp_path / "official.jsonl"):
        assert main(["tsver", "--gold", gold, "--predictions", predictions, "--ev2r", str(path), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["ev2r_f1"] == result["ev2r_f1"]


def test_a_rerun_with_the_same_cache_or_record_file_sends_no_request(store, gold, predictions, tmp_path, capsys):
    cache, records = str(tmp_path / "cache"), str(tmp_path / "ours.jsonl")
    with FakeJudgeServer() as server:
        assert ours(server.base_url, gold, predictions, "--judge-cache", cache, "--write-ev2r", records) == 0
        first = json.loads(capsys.readouterr().out)
        sent = len(server.requests)
        assert sent == 280 and first["judge_usage"]["requests"] == 280
        # the same record file, no cache: every claim is in it, nothing is sent
        assert ours(server.base_url, gold, predictions, "--no-judge-cache", "--write-ev2r", records) == 0
        again = json.loads(capsys.readouterr().out)
        assert len(server.requests) == sent and again["judge_usage"]["requests"] == 0
        assert again["judge_usage"]["recorded_claims"] == 280
        # the same cache, no record file: every claim from the cache (free)
        assert ours(server.base_url, gold, predictions, "--judge-cache", cache) == 0
        cached = json.loads(capsys.readouterr().out)
        assert len(server.requests) == sent and cached["judge_usage"]["cached_claims"] == 280
        # a record file cut short resumes: only the claims missing from it are sent, and it ends whole
        full = (tmp_path / "ours.jsonl").read_text("utf-8")
        (tmp_path / "ours.jsonl").write_text("".join(full.splitlines(keepends=True)[:100]), "utf-8")
        assert ours(server.base_url, gold, predictions, "--no-judge-cache", "--write-ev2r", records) == 0
        resumed = json.loads(capsys.readouterr().out)
        assert len(server.requests) == sent + 180 and (tmp_path / "ours.jsonl").read_text("utf-8") == full
    for result in (again, cached, resumed):
        assert {k: result[k] for k in ("ev2r_precision", "ev2r_recall", "ev2r_f1")} == {
            k: first[k] for k in ("ev2r_precision", "ev2r_recall", "ev2r_f1")}


def test_token_totals_are_summed_from_every_reply(store, tmp_path, capsys):
    from fake_judge_server import usage_for

    gold, predictions = (str(shared_path("data", "tsver", name)) for name in
                         ("tsver_dev.jsonl", "predictions/pred_dev_gold.jsonl"))
    with FakeJudgeServer() as server:
        assert ours(server.base_url, gold, predictions, "--no-judge-cache") == 0
        out, err = capsys.readouterr()
        usage = json.loads(out)["judge_usage"]
        expected = [usage_for(r["body"]) for r in server.requests]
    assert usage["requests"] == len(expected) == 24
    assert usage["prompt_tokens"] == sum(u["prompt_tokens"] for u in expected)
    assert usage["completion_tokens"] == sum(u["completion_tokens"] for u in expected)
    assert usage["total_tokens"] == sum(u["total_tokens"] for u in expected)
    assert usage["reasoning_tokens"] == 24 * 20 and usage["cached_tokens"] == 0
    assert (f"judge: 24 requests (0 failed attempts), 0 claims from the cache and 0 from the record file (free), "
            f"{usage['total_tokens']:,} tokens") in err


def test_a_budget_stops_before_it_is_exceeded(store, gold, predictions, tmp_path, capsys):
    with FakeJudgeServer() as server:
        assert ours(server.base_url, gold, predictions, "--no-judge-cache", "--judge-concurrency", "1") == 0
        total = json.loads(capsys.readouterr().out)["judge_usage"]["total_tokens"]
        budget = total // 3
        assert ours(server.base_url, gold, predictions, "--no-judge-cache", "--judge-budget", str(budget),
                    "--write-ev2r", str(tmp_path / "part.jsonl")) == 0
        out, err = capsys.readouterr()
    result = json.loads(out)
    assert result["judge_usage"]["total_tokens"] <= budget
    assert result["n_ev2r_not_sent"] > 0 and result["n_ev2r_judged"] + result["n_ev2r_not_sent"] == 280
    assert result["n_ev2r_failed"] == 0  # not sent is not a judge failure
    assert "were not sent to the judge, to stay within the judge budget" in err
    assert len(lines(tmp_path / "part.jsonl")) == result["n_ev2r_judged"]


def test_dry_run_sends_nothing_and_counts_what_is_free(store, gold, predictions, tmp_path, capsys):
    cache = str(tmp_path / "cache")
    with FakeJudgeServer() as server:
        assert ours(server.base_url, gold, predictions, "--judge-cache", cache, "--dry-run") == 0
        plan = json.loads(capsys.readouterr().out)
        assert server.requests == []
        assert (plan["claims"], plan["to_send"], plan["cached"], plan["in_record_file"]) == (280, 280, 0, 0)
        template = prompt_template.official_template()
        assert plan["prompt_characters"] > 280 * len(template.split("{claim_text}")[0])
        assert ours(server.base_url, gold, predictions, "--judge-cache", cache, "--dry-run",
                    "--judge-samples", "2") == 0
        assert json.loads(capsys.readouterr().out)["to_send"] == 560
        assert ours(server.base_url, gold, predictions, "--judge-cache", cache) == 0
        capsys.readouterr()
        sent = len(server.requests)
        assert main(["tsver", "--gold", gold, "--predictions", predictions, "--judge-url", server.base_url,
                     "--judge-api-key-env", "none", "--judge-cache", cache, "--dry-run"]) == 0
        text = capsys.readouterr().out
        assert len(server.requests) == sent
    assert "dry run: 280 claims would be judged (1 sample(s) each): 0 already in the record file, 280 answered " \
           "by the cache, 0 requests to send" in text


def test_judge_samples_report_the_spread_and_are_cached_apart(store, tmp_path, capsys):
    gold, predictions = (str(shared_path("data", "tsver", name)) for name in
                         ("tsver_dev.jsonl", "predictions/pred_dev_gold.jsonl"))
    asked = collections.Counter()

    def varying(claim):  # each call for a claim a little different: a judge that is not deterministic
        asked[claim] += 1
        counts = dict(counts_for(claim))
        counts["support predicted evidence"] = (counts["support predicted evidence"] + asked[claim]) % 3
        return fenced(counts)

    cache = str(tmp_path / "cache")
    with FakeJudgeServer() as server:
        server.responder = varying
        assert ours(server.base_url, gold, predictions, "--judge-cache", cache, "--judge-samples", "3") == 0
        result = json.loads(capsys.readouterr().out)
        assert len(server.requests) == 3 * 24
        # the official protocol sends no seed: the three samples are the same body, cached apart
        assert len(bodies(server)) == 24
        assert ours(server.base_url, gold, predictions, "--judge-cache", cache, "--judge-samples", "3") == 0
        assert json.loads(capsys.readouterr().out)["ev2r_judge_samples"] == result["ev2r_judge_samples"]
        assert len(server.requests) == 3 * 24
    spread = result["ev2r_judge_samples"]
    assert spread["k"] == 3 and len(spread["f1"]) == 3 and spread["f1"][0] == result["ev2r_f1"]
    assert spread["std"] > 0 and spread["min"] <= spread["mean"] <= spread["max"]
    assert result["signature"].endswith("judge:openai(model=google/gemini-2.5-flash,protocol=tsver-official,samples=3)")


def test_judge_agreement_of_two_record_files_for_the_same_predictions(store, gold, predictions, tmp_path, capsys):
    with FakeJudgeServer() as server:
        assert ours(server.base_url, gold, predictions, "--no-judge-cache", "--write-ev2r",
                    str(tmp_path / "a.jsonl")) == 0
        server.responder = lambda claim: fenced({**counts_for(claim), "support predicted evidence": 0}) \
            if len(claim) % 4 == 0 else None
        assert ours(server.base_url, gold, predictions, "--no-judge-cache", "--write-ev2r",
                    str(tmp_path / "b.jsonl")) == 0
    capsys.readouterr()
    argv = ["compare", "tsver", "--gold", gold, "--predictions", predictions, "--ev2r", str(tmp_path / "a.jsonl"),
            "--ev2r", str(tmp_path / "b.jsonl"), "--n-resamples", "200"]
    assert main(argv + ["--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    agreement = report["judge_agreement"]
    assert agreement["n_judged_by_both"] == 280
    changed = sum(1 for g in lines(pathlib.Path(gold)) if len(g["Claim"]) % 4 == 0
                  and counts_for(g["Claim"])["support predicted evidence"] != 0)
    assert agreement["counts"]["support predicted evidence"]["exact"] == pytest.approx(1 - changed / 280)
    assert agreement["counts"]["facts count predicted evidence"]["exact"] == 1.0
    assert report["results"]["ev2r_f1"]["difference"] < 0  # B's judge supports fewer facts
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "judge agreement over the 280 claims both judged" in text and "Pearson r" in text


def test_our_prompt_and_request_fields_are_named_in_the_signature_and_sent(store, tmp_path, capsys):
    gold, predictions = (str(shared_path("data", "tsver", name)) for name in
                         ("tsver_dev.jsonl", "predictions/pred_dev_gold.jsonl"))
    with FakeJudgeServer() as server:
        assert ours(server.base_url, gold, predictions, "--no-judge-cache", "--judge-prompt", "benchscore",
                    "--judge-temperature", "0", "--judge-seed", "3", "--judge-reasoning", "none",
                    "--judge-structured", "--judge-max-retries", "4") == 0
        result = json.loads(capsys.readouterr().out)
        body = server.requests[0]["body"]
    assert body["temperature"] == 0.0 and body["seed"] == 3 and "reasoning" not in body
    assert body["response_format"] == ev2r.RECORD_SCHEMA
    assert body["messages"][0]["content"].startswith(ev2r.PROMPT_INSTRUCTIONS)
    assert result["signature"].endswith(
        f"|judge:openai(model=google/gemini-2.5-flash,protocol=custom,prompt={ev2r.PROMPT_VERSION},"
        "temperature=0.0,seed=3,reasoning=none,response_format=json_schema,attempts=5)")


def test_offline_without_the_template_one_line_names_the_fetch_command(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("BENCHSCORE_DATA", str(tmp_path / "empty-store"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    examples = METRICS / "tsver" / "examples"
    with FakeJudgeServer() as server:
        code = main(["tsver", "--gold", str(examples / "gold.jsonl"), "--predictions",
                     str(examples / "predictions.jsonl"), "--judge-url", server.base_url, "--judge-api-key-env",
                     "none", "--no-judge-cache"])
        assert server.requests == []
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "`benchscore data fetch tsver`" in err[0]


def test_the_evaluate_module_with_the_default_judge_gives_the_cli_number(store, capsys):
    """`ev2r_judge=http_judge.OpenAIJudge(url)` in `compute` is the official protocol too: the same
    requests as the CLI, and the same Ev²R and signature."""
    from conftest import load_metric

    from benchscore.tsver import http_judge, loader

    gold, predictions = (str(shared_path("data", "tsver", name)) for name in
                         ("tsver_dev.jsonl", "predictions/pred_dev_gold.jsonl"))
    with FakeJudgeServer() as server:
        server.responder = reply_for
        assert ours(server.base_url, gold, predictions, "--no-judge-cache") == 0
        cli = json.loads(capsys.readouterr().out)
        sent = bodies(server)
        references = loader.gold_dataset(gold).select_columns(["claim", "verdict", "justifications", "time_series"])
        aligned = loader.predictions_dataset(predictions, gold)
        judge = http_judge.OpenAIJudge(server.base_url, api_key_env=None, cache_dir=None, progress=False)
        result = load_metric("tsver").compute(predictions=list(aligned), references=list(references), ev2r_judge=judge)
        assert bodies(server) == sent + sent  # the same bodies again, each once more
    assert {k: result[k] for k in ("ev2r_precision", "ev2r_recall", "ev2r_f1", "n_ev2r_judged", "n_ev2r_failed")} \
        == {k: cli[k] for k in ("ev2r_precision", "ev2r_recall", "ev2r_f1", "n_ev2r_judged", "n_ev2r_failed")}
    assert result["signature"] == cli["signature"]
