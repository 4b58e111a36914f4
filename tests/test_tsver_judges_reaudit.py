"""TSVer: the second hostile-input audit (issue 12 re-audit): missing Ev2R counts, rates above 1,
partial or re-cased key echoes, userinfo in the judge URL, the judge cache reader, inverted ranges,
`aggregate` on foreign statistics and the HTTP judge's settings."""

import json
import logging
import os

import pytest

from benchscore.tsver import files as tsver_files
from benchscore.tsver import ev2r, http_judge, scoring
from conftest import load_metric
from fake_judge_server import FakeJudgeServer, counts_for

SECRET = "sk-reaudit-DO-NOT-LEAK-0123456789abcdef"
KEY_ENV = "BENCHSCORE_REAUDIT_JUDGE_KEY"
REF = {"claim": "c", "verdict": "Supported", "justifications": ["j"],
       "time_series": [{"series": "r", "ranges": [{"from": 2000, "to": 2004}]}]}
PRED = {"verdict": "Supported", "explanation": "e", "time_series": [{"series": "r", "ranges": [{"from": 2000, "to": 2004}]}]}
CP, SP, CR, SR = ev2r.EV2R_KEYS

# The judge's default protocol reads the official prompt template from the data store.
pytestmark = pytest.mark.usefixtures("tsver_store")


@pytest.fixture(scope="module")
def module():
    return load_metric("tsver")


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.setenv(name, "127.0.0.1,localhost")
    with FakeJudgeServer() as fake:
        yield fake


def make_judge(base_url, **options):
    settings = dict(api_key_env=KEY_ENV, cache_dir=None, timeout=5.0, backoff=0.0, progress=False, max_retries=0)
    return http_judge.OpenAIJudge(base_url, "fake-model", **(settings | options))


# -- 1. missing counts: read as 0 (official), and said, naming the claims ---------------------------

@pytest.mark.parametrize("record", [{}, {"ev2r_response": "nonsense"}, {CP: 3}])
def test_missing_counts_are_read_as_zero_and_warned(module, record):
    result = module.compute(predictions=[PRED], references=[REF], ev2r_judge={"c": record})
    assert result["n_ev2r_judged"] == 1 and result["n_ev2r_failed"] == 0
    assert result["ev2r_f1"] == 0.0  # the official sum reads a missing count as 0
    assert any("without some of the count keys (claims 0)" in w and "read as 0" in w for w in result["warnings"])


def test_missing_counts_in_a_recorded_file_are_warned(tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"Claim": "c", "Verdict": "Supported", "Justifications": ["j"],
                                "TimeSeries": {"r": [{"from": 2000, "to": 2004}]}}) + "\n")
    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({"Claim": "c", "Verdict": "Supported", "Explanation": "e",
                                 "PredictedTimeRanges": None}) + "\n")
    ev2r = tmp_path / "ev2r.jsonl"
    ev2r.write_text(json.dumps({"Claim": "c", "ev2r_response": {}}) + "\n")
    result = tsver_files.score_files(gold, preds, judge=str(ev2r))
    assert result["n_ev2r_failed"] == 0 and result["ev2r_f1"] == 0.0
    assert any("count keys (claims 0)" in w for w in result["warnings"])


def test_complete_counts_give_no_missing_count_warning(module):
    record = {CP: 2, SP: 1, CR: 2, SR: 1}
    result = module.compute(predictions=[PRED], references=[REF], ev2r_judge={"c": record})
    assert not any("count keys" in w for w in result["warnings"])


# -- 2. any Ev2R rate above 1 is warned ------------------------------------------------------------

def test_a_rate_above_one_from_the_official_recall_quirk_is_warned(module):
    record = {CP: 3, SP: 3, CR: 2, SR: 1}  # support <= facts on each side; R = sp/cr = 1.5 (sic)
    result = module.compute(predictions=[PRED], references=[REF], ev2r_judge=lambda c, r, p: record)
    assert result["ev2r_recall"] == 1.5  # reproduced
    assert any(w.startswith("Ev2R recall 1.5") and "above 1" in w for w in result["warnings"])


# -- 3. the key echoed re-cased or in part ---------------------------------------------------------

@pytest.mark.parametrize("echo", [SECRET.upper(), SECRET.lower(), SECRET[-12:], SECRET[3:11].upper(),
                                  "x" + SECRET[5:20].swapcase() + "y"])
def test_a_recased_or_partial_key_echo_is_hidden(server, caplog, echo):
    caplog.set_level(logging.DEBUG)
    server.script["c"] = [{"status": 401, "body": f"bad key {echo}"}]
    with pytest.raises(ev2r.JudgeError) as raised:
        make_judge(server.base_url)("c", "r", "p")
    message = str(raised.value)
    assert "bad key" in message and "<hidden>" in message
    for text in (message, caplog.text):
        low = text.lower()
        assert not any(SECRET[i:i + 8].lower() in low for i in range(len(SECRET) - 7))


def test_short_runs_and_other_text_are_kept():
    secret = http_judge._Secret(SECRET)
    assert secret.redact("sk-reaud and 0123456 stay") == "<hidden> and 0123456 stay"
    assert secret.redact("nothing here") == "nothing here"


# -- 4. user:password@ in the URL is never shown ---------------------------------------------------

def test_userinfo_in_the_url_is_masked_in_repr_and_messages(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "other")
    judge = make_judge(f"http://u:{SECRET}@127.0.0.1:9/v1", timeout=1.0)
    assert SECRET not in repr(judge) and "***@127.0.0.1:9" in repr(judge)
    outcome, = ev2r.run_judge(judge, [("c", "r", "p")])
    assert not outcome.ok and SECRET not in outcome.error
    with pytest.raises(ValueError) as raised:
        make_judge(f"http://u:{SECRET}@[::1/v1")
    assert SECRET not in str(raised.value)


# -- 5. the cache reader reads only small regular files --------------------------------------------

def _entry_path(judge, claim):
    return judge._cache_path(judge.cache_key(claim, "r", "p"))


@pytest.mark.parametrize("kind", ["symlink_zero", "fifo", "too_big", "symlink_file"])
def test_the_cache_reads_only_small_regular_files(server, tmp_path, caplog, kind):
    judge = make_judge(server.base_url, cache_dir=tmp_path / "cache", timeout=3.0)
    path = _entry_path(judge, "c")
    path.parent.mkdir(parents=True)
    if kind == "symlink_zero":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "symlink_file":
        good = tmp_path / "good.json"
        good.write_text(json.dumps({"response": {CP: 9, SP: 9, CR: 9, SR: 9}}))
        path.symlink_to(good)
    else:
        path.write_text(json.dumps({"response": counts_for("c"), "pad": "x" * (http_judge.MAX_CACHE_BYTES + 10)}))
    response = judge("c", "r", "p")  # ignored with a warning: asked again
    assert {key: response[key] for key in ev2r.EV2R_KEYS} == counts_for("c")
    assert len(server.requests) == 1
    assert "ignoring the unreadable cache entry" in caplog.text


# -- 6. predicted ranges with from > to ------------------------------------------------------------

def test_an_inverted_predicted_range_is_reproduced_and_warned(module):
    pred = dict(PRED, time_series=[{"series": "r", "ranges": [{"from": 2004, "to": 2000}]}])
    result = module.compute(predictions=[pred], references=[REF])
    assert result["tscs"] == 0.0  # official: range(2004, 2001) is empty
    assert any("from > to (claims 0)" in w for w in result["warnings"])
    assert not any("from > to" in w for w in module.compute(predictions=[PRED], references=[REF])["warnings"])


# -- 7. aggregate on foreign statistics ------------------------------------------------------------

@pytest.mark.parametrize("stats, index", [([1], 0), ([None], 0)])
def test_aggregate_refuses_what_is_not_item_stats(stats, index):
    with pytest.raises(TypeError, match=f"^example {index}: the statistics are .*expected a tsver ItemStats"):
        scoring.aggregate(stats)


def test_aggregate_names_the_first_foreign_item():
    good = scoring.item_stats([{"Claim": "c", "Verdict": "Supported", "TimeSeries": {}}], [None])
    with pytest.raises(TypeError, match="^example 1: "):
        scoring.aggregate(good + ["x"])


# -- 8. the HTTP judge's settings ------------------------------------------------------------------

@pytest.mark.parametrize("options, error, match", [
    (dict(base_url=None), TypeError, "base_url must be a string"),
    (dict(base_url="http://[::1/v1"), ValueError, "is not a valid URL"),
    (dict(base_url="127.0.0.1:18777/v1"), ValueError, "not an http\\(s\\) URL with a host"),
    (dict(base_url="file:///etc/passwd"), ValueError, "not an http\\(s\\) URL"),
    (dict(timeout=True), ValueError, "timeout must be a number"),
    (dict(timeout=float("nan")), ValueError, "timeout must be a number"),
    (dict(concurrency=True), ValueError, "concurrency must be an int"),
    (dict(max_retries=True), ValueError, "max_retries must be an int"),
    (dict(backoff=-1), ValueError, "backoff must be a finite number"),
    (dict(backoff=float("inf")), ValueError, "backoff must be a finite number"),
    (dict(backoff="1"), ValueError, "backoff must be a finite number"),
    (dict(model=None), TypeError, "model must be a non-empty string"),
    (dict(model=" "), TypeError, "model must be a non-empty string"),
])
def test_bad_judge_settings_are_refused_at_construction(options, error, match):
    settings = dict(base_url="http://127.0.0.1:9/v1", model="m", cache_dir=None) | options
    with pytest.raises(error, match=match):
        http_judge.OpenAIJudge(**settings)


def test_a_cache_dir_that_is_a_file_is_refused(tmp_path):
    file = tmp_path / "file"
    file.write_text("x")
    with pytest.raises(ValueError, match="cache_dir .* exists and is not a directory"):
        http_judge.OpenAIJudge("http://127.0.0.1:9/v1", "m", cache_dir=file)
