"""The OpenAI-compatible Ev²R judge end to end against a fake server on 127.0.0.1 (never the internet)."""

import json
import logging
import socket
import threading
import time

import pytest

from benchscore.tsver import ev2r, http_judge
from benchscore.tsver.ev2r import JudgeError
from benchscore.tsver.scoring import EV2R_KEYS
from fake_judge_server import FakeJudgeServer, counts_for, fenced

SECRET = "sk-test-DO-NOT-LEAK-0123456789"
# These tests are of the transport and of our own prompt's protocol (the official one, the default,
# is tested end to end in test_tsver_official_protocol.py): our prompt, temperature 0, seed 0, four attempts.
# Some build a judge of the default protocol, whose official prompt template comes from the store.
pytestmark = pytest.mark.usefixtures("tsver_store")
OUR_PROTOCOL = dict(prompt="benchscore", temperature=0, seed=0, reasoning="none", max_retries=3)


@pytest.fixture
def server():
    with FakeJudgeServer() as fake:
        yield fake


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("BENCHSCORE_TEST_JUDGE_KEY", SECRET)
    # urllib honours *_proxy variables: the fake server must be reached directly wherever CI runs.
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.setenv(name, "127.0.0.1,localhost")


def make_judge(server, tmp_path=None, **options):
    settings = dict(api_key_env="BENCHSCORE_TEST_JUDGE_KEY", cache_dir=tmp_path and tmp_path / "cache",
                    timeout=5.0, backoff=0.0, progress=False) | OUR_PROTOCOL
    return http_judge.OpenAIJudge(server.base_url, "fake-model", **(settings | options))


def counts_only(response):
    return {key: response[key] for key in EV2R_KEYS}


def test_one_request_per_claim_with_our_prompt_temperature_seed_and_key(server):
    response = make_judge(server)("Claim one.", "Ref A\nRef B", "Pred text.")
    assert counts_only(response) == counts_for("Claim one.")
    [request] = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == f"Bearer {SECRET}"
    body = request["body"]
    assert body["model"] == "fake-model" and body["temperature"] == 0.0 and body["seed"] == 0
    prompt = ev2r.build_prompt("Claim one.", "Ref A\nRef B", "Pred text.")
    assert body["messages"] == [{"role": "user", "content": prompt}]


def test_temperature_seed_and_key_are_left_out_when_none(server, monkeypatch):
    make_judge(server, api_key_env=None, temperature=None, seed=None)("c", "r", "p")
    body = server.requests[0]["body"]
    assert "temperature" not in body and "seed" not in body
    assert "Authorization" not in server.requests[0]["headers"]


@pytest.mark.parametrize("reply", [
    fenced(dict(zip(EV2R_KEYS, (4, 3, 2, 1)))),
    json.dumps(dict(zip(EV2R_KEYS, (4, 3, 2, 1)))),
    "Counts:\n" + json.dumps(dict(zip(EV2R_KEYS, (4, 3, 2, 1))), indent=2) + "\nThat is all.",
])
def test_fenced_and_bare_json_replies(server, reply):
    server.script["c"] = [{"content": reply}]
    assert counts_only(make_judge(server)("c", "r", "p")) == dict(zip(EV2R_KEYS, (4, 3, 2, 1)))
    assert len(server.requests) == 1


@pytest.mark.parametrize("failures", [
    [{"content": "I am unable to count facts today."}],
    [{"content": "```json\n{\"facts count predicted evidence\": 2\n```"}],
    [{"content": fenced({"facts count predicted evidence": "two"})}],
    [{"raw": "<html>Bad gateway</html>"}],
    [{"raw": json.dumps({"choices": []})}],
    [{"status": 429, "body": "rate limited"}, {"status": 500}, {"status": 503}],
    [{"status": 429, "headers": {"Retry-After": "0"}}],
])
def test_malformed_replies_and_http_errors_are_retried_then_succeed(server, failures):
    server.script["c"] = list(failures)
    judge = make_judge(server, max_retries=3)
    assert counts_only(judge("c", "r", "p")) == counts_for("c")
    assert len(server.requests) == judge.requests_made == len(failures) + 1


def test_timeout_is_retried(server):
    server.script["slow"] = [{"sleep": 3.0}]
    judge = make_judge(server, timeout=0.3, max_retries=1)
    assert counts_only(judge("slow", "r", "p")) == counts_for("slow")
    assert len(server.requests) == 2


def test_connection_refused_is_retried_then_a_judge_failure():
    with socket.socket() as probe:  # a free port, closed again: nobody listens on it
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    judge = http_judge.OpenAIJudge(f"http://127.0.0.1:{port}/v1", "m", api_key_env=None, cache_dir=None,
                               max_retries=1, backoff=0.0, timeout=2.0)
    with pytest.raises(JudgeError, match=r"failed after 2 attempts: .*Connection refused"):
        judge("c", "r", "p")


def test_exhausted_retries_are_a_counted_failure_and_backoff_grows(server, monkeypatch):
    sleeps = []
    monkeypatch.setattr(http_judge.time, "sleep", sleeps.append)
    server.script["doomed"] = [{"status": 500, "body": "server exploded"}] * 4
    judge = make_judge(server, max_retries=3, backoff=0.5)
    outcomes = ev2r.run_judge(judge, [("ok 1", "r", "p"), ("doomed", "r", "p"), ("ok 2", "r", "p")],
                                concurrency=1)
    assert [o.ok for o in outcomes] == [True, False, True]
    assert outcomes[1].error.startswith("Ev2R judge failed after 4 attempts: HTTP 500 from ")
    assert "server exploded" in outcomes[1].error
    assert sleeps == [0.5, 1.0, 2.0]
    assert sum(1 for r in server.requests if "# CLAIM:\ndoomed\n" in r["body"]["messages"][0]["content"]) == 4


def test_retry_after_is_honoured_up_to_the_request_deadline(server, monkeypatch):
    sleeps = []
    monkeypatch.setattr(http_judge.time, "sleep", sleeps.append)
    server.script["c"] = [{"status": 429, "headers": {"Retry-After": "7"}},
                          {"status": 429, "headers": {"Retry-After": "9"}}]
    make_judge(server, max_retries=2, backoff=0.1, timeout=9.0)("c", "r", "p")
    assert sleeps == [7.0, 9.0]


def test_retry_after_beyond_the_request_deadline_fails_the_claim_at_once(server, monkeypatch):
    sleeps = []
    monkeypatch.setattr(http_judge.time, "sleep", sleeps.append)
    server.script["c"] = [{"status": 429, "headers": {"Retry-After": "900"}}]
    with pytest.raises(JudgeError, match=r"^rate limited: the server asks to wait 900 s \(Retry-After\), longer "
                                         r"than the 5 s request deadline"):
        make_judge(server, max_retries=2, backoff=0.1)("c", "r", "p")
    assert sleeps == [] and len(server.requests) == 1


def test_client_errors_fail_at_once(server):
    server.script["c"] = [{"status": 404, "body": "model fake-model not found"}]
    with pytest.raises(JudgeError, match=r"^Ev2R judge request refused: HTTP 404 from .*model fake-model not found"):
        make_judge(server, max_retries=3)("c", "r", "p")
    assert len(server.requests) == 1


def test_cache_makes_a_rerun_free_and_identical(server, tmp_path):
    items = [(f"claim {i}", f"ref {i}\nref b", f"pred {i}") for i in range(6)]
    server.script["claim 3"] = [{"status": 500}] * 2  # a failure: not cached, tried again next run
    first = ev2r.run_judge(make_judge(server, tmp_path, max_retries=1), items, concurrency=3)
    assert [o.ok for o in first] == [True, True, True, False, True, True]
    assert len(server.requests) == 7

    second = ev2r.run_judge(make_judge(server, tmp_path, max_retries=1), items, concurrency=3)
    assert len(server.requests) == 8  # only the failed claim again
    assert [o.counts for o in second if o.claim != "claim 3"] == [o.counts for o in first if o.ok]
    assert second[3].counts == counts_for("claim 3")

    rerun = make_judge(server, tmp_path)
    third = ev2r.run_judge(rerun, items)
    assert len(server.requests) == 8 and rerun.requests_made == 0
    assert third == second
    # The inputs, model, temperature and seed are all part of the key.
    for changed in (dict(model="other-model"), dict(seed=1), dict(temperature=0.7)):
        other = http_judge.OpenAIJudge(server.base_url, **(dict(model="fake-model", api_key_env="BENCHSCORE_TEST_JUDGE_KEY",
                                   cache_dir=tmp_path / "cache", backoff=0.0) | OUR_PROTOCOL | changed))
        other(*items[0])
        assert other.requests_made == 1
    make_judge(server, tmp_path)(items[0][0], items[0][1] + " ", items[0][2])
    assert len(server.requests) == 12
    assert make_judge(server, tmp_path, temperature=0.0)(*items[0]) == first[0].response  # 0.0 is 0
    assert len(server.requests) == 12


def test_cache_needs_no_key_and_survives_a_damaged_entry(server, tmp_path, monkeypatch):
    judge = make_judge(server, tmp_path)
    expected = judge("c", "r", "p")
    [entry] = (tmp_path / "cache").rglob("*.json")
    stored = json.loads(entry.read_text(encoding="utf-8"))
    assert stored["request"] == make_judge(server).request_body("c", "r", "p") and stored["sample"] == 0
    assert stored["response"] == expected and stored["request"]["model"] == "fake-model"

    monkeypatch.delenv("BENCHSCORE_TEST_JUDGE_KEY")
    assert make_judge(server, tmp_path)("c", "r", "p") == expected  # served from the cache, no key needed
    with pytest.raises(ValueError, match="variable BENCHSCORE_TEST_JUDGE_KEY holding the API key is not set"):
        make_judge(server, tmp_path)("new claim", "r", "p")
    assert len(server.requests) == 1

    monkeypatch.setenv("BENCHSCORE_TEST_JUDGE_KEY", SECRET)
    entry.write_text('{"response": {"facts count', encoding="utf-8")
    assert make_judge(server, tmp_path)("c", "r", "p") == expected
    assert len(server.requests) == 2


def test_the_key_never_appears_in_errors_logs_reprs_or_the_cache(server, tmp_path, caplog, capsys):
    caplog.set_level(logging.DEBUG)
    # Real APIs echo (part of) a rejected key in the error body; this one echoes all of it.
    server.script["refused"] = [{"status": 401, "body": f"Incorrect API key provided: {SECRET}"}]
    server.script["flaky"] = [{"status": 503, "body": f"overloaded (key {SECRET})"}] * 2
    judge = make_judge(server, tmp_path, max_retries=1, progress=True)
    outcomes = ev2r.run_judge(judge, [("ok", "r", "p"), ("refused", "r", "p"), ("flaky", "r", "p")], concurrency=2)
    assert [o.ok for o in outcomes] == [True, False, False]
    assert "Incorrect API key provided: <hidden>" in outcomes[1].error
    assert "overloaded (key <hidden>)" in outcomes[2].error
    assert "overloaded (key <hidden>)" in caplog.text  # the retry was logged, redacted

    server.script["refused again"] = [{"status": 401, "body": SECRET}]
    with pytest.raises(JudgeError) as raised:
        judge("refused again", "r", "p")
    # Even a traceback that shows every local variable of the judge's frames.
    texts = [str(raised.value), repr(raised.value), str(raised.getrepr(showlocals=True, chain=True))]
    captured = capsys.readouterr()
    texts += [o.error for o in outcomes if o.error]
    texts += [caplog.text, repr(judge), str(vars(judge)), captured.out, captured.err]
    texts += [path.read_text(encoding="utf-8") for path in (tmp_path / "cache").rglob("*") if path.is_file()]
    assert len(texts) > 8
    assert not [text for text in texts if SECRET in text]
    assert all(request["headers"]["Authorization"] == f"Bearer {SECRET}" for request in server.requests)


def test_concurrency_limit_is_respected(tmp_path):
    with FakeJudgeServer(hold=0.15) as server:
        judge = make_judge(server, concurrency=3)
        items = [(f"claim {i}", "r", "p") for i in range(9)]
        outcomes = ev2r.run_judge(judge, items)  # the judge's own concurrency
        assert [o.counts for o in outcomes] == [counts_for(c) for c, _, _ in items]
        assert server.max_in_flight == 3

    # However many threads call it, the judge itself keeps to its limit.
    with FakeJudgeServer(hold=0.1) as server:
        judge = make_judge(server, concurrency=2)
        threads = [threading.Thread(target=judge, args=(f"t{i}", "r", "p")) for i in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(server.requests) == 6 and server.max_in_flight == 2


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="concurrency must be an int >= 1, found 0"):
        http_judge.OpenAIJudge("http://127.0.0.1:9/v1", "m", concurrency=0)
    with pytest.raises(ValueError, match="max_retries must be an int >= 0, found -1"):
        http_judge.OpenAIJudge("http://127.0.0.1:9/v1", "m", max_retries=-1)


def test_signature_names_what_changes_the_numbers(server):
    judge = make_judge(server, seed=7)
    assert judge.signature == (f"openai(model=fake-model,protocol=custom,prompt={ev2r.PROMPT_VERSION},temperature=0.0,"
                               "seed=7,reasoning=none,attempts=4)")
    assert "|" not in judge.signature


def test_the_evaluate_module_scores_ev2r_with_the_http_judge_and_reruns_from_the_cache(server, tmp_path):
    from conftest import load_metric

    claims = ["Fish exports in Atlantis doubled in 2020.", "Atlantis rain fell 5% in 2001!!", "A third claim.",
              "No prediction."]
    references = [{"claim": claim, "verdict": "Refuted", "justifications": [f"Reason {i}.", "Second reason."],
                   "time_series": [{"series": "s", "ranges": [{"from": 2000, "to": 2001}]}]}
                  for i, claim in enumerate(claims)]
    predictions = [{"verdict": "Refuted", "explanation": f"Explanation {i}.", "time_series": []} for i in range(3)]
    predictions.append({"verdict": None, "explanation": None, "time_series": None})  # not judged (official)
    server.script[claims[2]] = [{"status": 500}] * 2  # a failure, counted
    metric = load_metric("tsver")

    def compute():
        judge = make_judge(server, tmp_path, max_retries=1)
        return metric.compute(predictions=predictions, references=references, ev2r_judge=judge)

    result = compute()
    assert len(server.requests) == 1 + 1 + 2
    prompts = [request["body"]["messages"][0]["content"] for request in server.requests]
    assert ev2r.build_prompt(claims[0], "Reason 0.\nSecond reason.", "Explanation 0.") in prompts
    assert (result["n_ev2r_judged"], result["n_ev2r_failed"]) == (2, 1)
    # The official aggregation written out: micro sums, R over the reference count, rounded to 4.
    judged = [counts_for(claim) for claim in claims[:2]]
    sp = sum(c["support predicted evidence"] for c in judged)
    cp = sum(c["facts count predicted evidence"] for c in judged)
    cr = sum(c["facts count reference evidence"] for c in judged)
    assert 0 < sp < cp and sp != cr  # a case where P, R and the official R's quirk all show
    precision, recall = sp / cp, sp / cr
    assert result["ev2r_precision"] == round(precision, 4) and result["ev2r_recall"] == round(recall, 4)
    assert result["ev2r_f1"] == round(2 * precision * recall / (precision + recall), 4)
    assert result["signature"].endswith(f"|judge:openai(model=fake-model,protocol=custom,prompt={ev2r.PROMPT_VERSION},"
                                        "temperature=0.0,seed=0,reasoning=none,attempts=2)")

    server.script[claims[2]] = [{"status": 500}] * 2
    assert compute() == result and len(server.requests) == 4 + 2  # only the failed claim is asked again


# -- hostile servers and keys (issue 12) ------------------------------------------------------------


def trickling_server(what):
    """A raw server on 127.0.0.1 that sends its answer one byte every 0.2 s: the status line and an
    endless header ("headers"), or a whole valid answer whose body trickles ("body")."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)

    def answer(connection):
        with connection:
            try:
                connection.recv(1 << 16)
                body = json.dumps({"choices": [{"message": {"content": fenced(counts_for("c"))}}]}).encode()
                head = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body)
                data = b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 10_000 if what == "headers" else head + body
                connection.sendall(data[:len(head)] if what == "body" else b"")
                for byte in (data[len(head):] if what == "body" else data):
                    connection.send(bytes([byte]))
                    time.sleep(0.2)
            except OSError:  # the client gave up
                pass

    def serve():
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=answer, args=(connection,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    return listener


@pytest.mark.parametrize("what", ["headers", "body"])
def test_a_trickling_server_is_cut_off_at_one_total_deadline_per_request(what):
    listener = trickling_server(what)
    port = listener.getsockname()[1]
    judge = http_judge.OpenAIJudge(f"http://127.0.0.1:{port}/v1", "m", api_key_env=None, cache_dir=None,
                               max_retries=1, backoff=0.0, timeout=1.0, progress=False)
    started = time.monotonic()
    with pytest.raises(JudgeError, match=r"failed after 2 attempts: no complete reply from .* within 1 s"):
        judge("c", "r", "p")
    assert time.monotonic() - started < 10  # two deadlines of 1 s, not the minutes the trickle would take
    listener.close()


def test_a_key_with_a_trailing_cr_is_stripped_and_never_shown_in_either_form(server, tmp_path, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("BENCHSCORE_TEST_JUDGE_KEY", SECRET + "\r")  # read from a CRLF .env file
    server.script["refused"] = [{"status": 401, "body": f"bad key {SECRET}\r (and {SECRET})"}]
    judge = make_judge(server, tmp_path)
    assert counts_only(judge("ok", "r", "p")) == counts_for("ok")
    with pytest.raises(JudgeError) as raised:
        judge("refused", "r", "p")
    assert server.requests[0]["headers"]["Authorization"] == f"Bearer {SECRET}"
    texts = [str(raised.value), caplog.text, repr(judge), str(vars(judge))]
    texts += [path.read_text(encoding="utf-8") for path in (tmp_path / "cache").rglob("*.json")]
    assert "<hidden>" in texts[0] and not [text for text in texts if SECRET in text]


def test_a_key_echoed_in_a_successful_reply_is_redacted_from_the_result_and_the_cache(server, tmp_path):
    record = {**dict(zip(EV2R_KEYS, (2, 1, 2, 1))), "facts in predicted evidence": f"1. your key is {SECRET}"}
    server.script["c"] = [{"content": fenced(record)}]
    response = make_judge(server, tmp_path)("c", "r", "p")
    assert response["facts in predicted evidence"] == "1. your key is <hidden>"
    [entry] = (tmp_path / "cache").rglob("*.json")
    assert SECRET not in entry.read_text(encoding="utf-8")
    assert make_judge(server, tmp_path)("c", "r", "p") == response  # and the cached copy is the redacted one


def test_a_deeply_nested_reply_is_a_failed_attempt_not_a_crash(server):
    deep = "```json\n" + "[" * 100_000 + "]" * 100_000 + "\n```"
    server.script["c"] = [{"content": deep}, {"content": "{" * 50_000}]
    judge = make_judge(server, max_retries=2)
    assert counts_only(judge("c", "r", "p")) == counts_for("c")
    assert len(server.requests) == 3


def test_a_server_that_never_answers_fails_the_remaining_claims_fast(server):
    claims = [f"claim {i}" for i in range(6)]
    for claim in claims:
        server.script[claim] = [{"status": 503, "body": "down"}] * 3
    outcomes = ev2r.run_judge(make_judge(server, max_retries=1), [(c, "r", "p") for c in claims], concurrency=1)
    assert not any(o.ok for o in outcomes)
    assert len(server.requests) == 2  # the first claim's two attempts; the others are not asked
    assert outcomes[5].error.startswith("Ev2R judge not asked: no usable answer so far (HTTP 503 from")


def test_rate_limits_at_the_start_do_not_stop_the_run(server):
    claims = [f"claim {i}" for i in range(5)]
    for claim in claims:
        server.script[claim] = [{"status": 429, "headers": {"Retry-After": "0"}}] * 2
    outcomes = ev2r.run_judge(make_judge(server, max_retries=2), [(c, "r", "p") for c in claims], concurrency=1)
    assert all(o.ok for o in outcomes) and len(server.requests) == 15


def test_a_cache_entry_written_for_another_claim_is_not_used(server, tmp_path, caplog):
    # A copied or edited entry would change a number silently: it is asked again, with a warning naming it.
    judge = make_judge(server, tmp_path)
    expected = judge("claim a", "ref", "pred")
    [entry] = (tmp_path / "cache").rglob("*.json")
    record = json.loads(entry.read_text(encoding="utf-8"))
    record["request"]["messages"][0]["content"] = record["request"]["messages"][0]["content"].replace("claim a",
                                                                                                    "claim b")
    record["response"] = dict(record["response"], **{"support predicted evidence": 0})
    entry.write_text(json.dumps(record), encoding="utf-8")
    again = make_judge(server, tmp_path)
    with caplog.at_level("WARNING"):
        assert again("claim a", "ref", "pred") == expected
    assert again.requests_made == 1
    assert f"ignoring the unreadable cache entry {entry}" in caplog.text and "written for another request" in caplog.text
