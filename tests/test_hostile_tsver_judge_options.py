"""Hostile input for the TSVer judge options (`--judge-budget`, `--judge-price`, `--judge-samples`,
`--judge-concurrency`, `--judge-max-retries`, `--judge-temperature`, `--judge-timeout`, `--write-ev2r`,
`--dry-run`), through `benchscore.cli.main` against the fake judge on 127.0.0.1, on the small example
files. The contract (the card's "Limits and bad input"): exit 2 and one stderr line (argparse: its
usage lines and one `error:` line naming the option), nothing partly written, no request sent where the
input is refused up front, and the API key in no output, log or file."""

import json
import logging
import pathlib
import re
import shutil

import pytest
from conftest import METRICS, shared_path
from fake_judge_server import FakeJudgeServer, claim_of, counts_for, usage_for
from hostile import (assert_cli_error, assert_cli_ok, example_texts, guard, jsonl, records, run_cli,  # noqa: F401
                     run_subprocess, write)

from benchscore import data

pytestmark = pytest.mark.usefixtures("guard", "tsver_store")  # the official judge protocol reads the store

EXAMPLES = METRICS / "tsver" / "examples"
GOLD_TEXT, PREDS_TEXT, EV2R_TEXT = example_texts("tsver", "gold.jsonl", "predictions.jsonl", "ev2r.jsonl")
GOLD, PREDS = records(GOLD_TEXT), records(PREDS_TEXT)
JUDGED = (0, 2, 3, 5, 6)  # the gold claims the examples send to the judge (a prediction with an explanation)
SECRET = "sk-judge-options-DO-NOT-LEAK-9f8e7d6c5b4a"
KEY_ENV = "BENCHSCORE_JUDGE_OPTIONS_KEY"


@pytest.fixture(autouse=True)
def key(monkeypatch, caplog):
    monkeypatch.setenv(KEY_ENV, SECRET)
    caplog.set_level(logging.DEBUG)  # every log line (ours, httpx's) is checked for the key


@pytest.fixture
def server():
    with FakeJudgeServer() as fake:
        yield fake


@pytest.fixture
def inputs(tmp_path):
    """Copies of the example gold and predictions in tmp_path/in (an output aimed at them harms no example)."""
    folder = tmp_path / "in"
    folder.mkdir()
    return write(folder / "gold.jsonl", GOLD_TEXT), write(folder / "preds.jsonl", PREDS_TEXT)


def judge_cli(server, tmp_path, *extra, gold=None, preds=None, url=True):
    """`benchscore tsver --json` on the examples (or `gold`/`preds`), judged by `server` (url=False: no
    --judge-url, no judge options of ours), with the key in KEY_ENV and a cache under tmp_path."""
    argv = ["tsver", "--gold", gold or EXAMPLES / "gold.jsonl", "--predictions", preds or EXAMPLES / "predictions.jsonl",
            "--json"]
    if url:
        argv += ["--judge-url", server.base_url, "--judge-model", "fake-judge", "--judge-api-key-env", KEY_ENV,
                 "--judge-cache", tmp_path / "cache"]
    return run_cli(argv + list(extra))


def snapshot(folder):
    """{relative path: bytes} of every file under `folder` (and the folders, as None)."""
    folder = pathlib.Path(folder)
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


def assert_no_secret(tmp_path, caplog, *results):
    """The key in no stdout, stderr, exception, log record or file under tmp_path."""
    texts = {"log": caplog.text}
    for n, result in enumerate(results):
        texts.update({f"stdout {n}": result.out, f"stderr {n}": result.err, f"exception {n}": repr(result.exc)})
    for path in pathlib.Path(tmp_path).rglob("*"):
        if path.is_file():
            texts[str(path)] = path.read_text(encoding="utf-8", errors="replace")
    leaked = [name for name, text in texts.items() if SECRET in text or SECRET[8:24] in text]
    assert not leaked, f"the API key appears in {leaked}"


def assert_option_error(result, option, *expected):
    """argparse's refusal: exit 2, only usage lines and ONE `error:` line naming `option` and what it expected."""
    what = result.describe()
    assert result.exc is None and "Traceback" not in result.err, what
    assert result.code == 2, what
    lines = [line for line in result.err.splitlines() if line.strip()]
    errors = [line for line in lines if "error:" in line]
    assert len(errors) == 1, what
    assert all(line.startswith(("usage: ", " ")) for line in lines if line is not errors[0]), what
    assert errors[0].startswith(f"benchscore tsver: error: argument {option}: "), what
    for text in expected:
        assert text in errors[0], f"{text!r} not in the error line: {errors[0]!r}"


def error_line(result):
    return next((line for line in result.err.splitlines() if line.strip()), "")


def records_of(path):
    return [json.loads(line) for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines()]


# -- option values refused by the parser or before any file is read ---------------------------------------

@pytest.mark.parametrize(("argv", "option", "expected"), [
    (["--judge-budget", "-5"], "--judge-budget", ["'-5'", "expected a budget >= 0"]),
    (["--judge-budget", "abc"], "--judge-budget", ["'abc'", "expected a number of tokens"]),
    (["--judge-budget", "nan"], "--judge-budget", ["'nan'", "expected a number of tokens"]),
    (["--judge-budget", "inf"], "--judge-budget", ["'inf'", "expected a number of tokens"]),
    (["--judge-budget", "$inf"], "--judge-budget", ["'$inf'", "expected a budget >= 0"]),
    (["--judge-budget", "$nan"], "--judge-budget", ["'$nan'", "expected a budget >= 0"]),
    (["--judge-budget", "$-1"], "--judge-budget", ["'$-1'", "expected a budget >= 0"]),
    (["--judge-budget", ""], "--judge-budget", ["''", "expected a number of tokens"]),
    (["--judge-price", "1"], "--judge-price", ["'1'", "expected two prices >= 0"]),
    (["--judge-price", "a,b"], "--judge-price", ["'a,b'", "expected two prices >= 0"]),
    (["--judge-price", "1,2,3"], "--judge-price", ["'1,2,3'", "expected two prices >= 0"]),
    (["--judge-price", "nan,1"], "--judge-price", ["'nan,1'", "expected two prices >= 0"]),
    (["--judge-price=-1,2"], "--judge-price", ["'-1,2'", "expected two prices >= 0"]),
    # written with a space, "-1,2" looks like an option to argparse (it is not a plain negative number):
    # its own message, which still names the option
    (["--judge-price", "-1,2"], "--judge-price", ["expected one argument"]),
    (["--judge-samples", "0"], "--judge-samples", ["'0'", "expected a whole number >= 1"]),
    (["--judge-samples", "two"], "--judge-samples", ["'two'", "expected a whole number >= 1"]),
    (["--judge-concurrency", "0"], "--judge-concurrency", ["'0'", "expected a whole number >= 1"]),
    (["--judge-concurrency", "-3"], "--judge-concurrency", ["'-3'", "expected a whole number >= 1"]),
    (["--judge-max-retries", "-1"], "--judge-max-retries", ["'-1'", "expected a whole number >= 0"]),
    (["--judge-max-retries", "1.5"], "--judge-max-retries", ["'1.5'", "expected a whole number >= 0"]),
    (["--judge-temperature", "warm"], "--judge-temperature", ["'warm'", "expected a temperature from 0 to 2"]),
    (["--judge-temperature", "5"], "--judge-temperature", ["'5'", "expected a temperature from 0 to 2"]),
    (["--judge-temperature", "-0.5"], "--judge-temperature", ["'-0.5'", "expected a temperature from 0 to 2"]),
    (["--judge-temperature", "nan"], "--judge-temperature", ["'nan'", "expected a temperature from 0 to 2"]),
    (["--judge-timeout", "soon"], "--judge-timeout", ["'soon'", "expected a number of seconds > 0"]),
    (["--judge-timeout", "0"], "--judge-timeout", ["'0'", "expected a number of seconds > 0"]),
    (["--judge-timeout", "-1"], "--judge-timeout", ["'-1'", "expected a number of seconds > 0"]),
    (["--judge-timeout", "inf"], "--judge-timeout", ["'inf'", "expected a number of seconds > 0"]),
    (["--judge-timeout", "nan"], "--judge-timeout", ["'nan'", "expected a number of seconds > 0"]),
])
def test_bad_option_value_is_refused_by_the_parser(server, tmp_path, caplog, argv, option, expected):
    before = snapshot(tmp_path)
    result = judge_cli(server, tmp_path, *argv, "--write-ev2r", tmp_path / "records.jsonl",
                       "--per-claim", tmp_path / "report.json")
    assert_option_error(result, option, *expected)
    assert result.out == ""
    assert snapshot(tmp_path) == before, "a refused run wrote something"
    assert server.requests == []
    assert_no_secret(tmp_path, caplog, result)


@pytest.mark.parametrize(("argv", "expected"), [
    (["--judge-budget", "$2"], ["--judge-budget in dollars needs --judge-price IN,OUT"]),
    (["--judge-budget", "2.50usd"], ["--judge-budget in dollars needs --judge-price IN,OUT"]),
    (["--judge-price", "0.30,2.50"], ["--judge-price prices a budget in dollars", "--judge-budget as $N"]),
    (["--judge-price", "0.30,2.50", "--judge-budget", "100000"],
     ["--judge-price prices a budget in dollars", "--judge-budget as $N"]),
])
def test_inconsistent_or_out_of_range_judge_setting_is_one_line(server, tmp_path, caplog, argv, expected):
    before = snapshot(tmp_path)
    result = judge_cli(server, tmp_path, *argv, "--write-ev2r", tmp_path / "records.jsonl",
                       "--per-claim", tmp_path / "report.json")
    assert_cli_error(result, "tsver")
    for text in expected:
        assert text in error_line(result), f"{text!r} not in {error_line(result)!r}"
    assert result.out == ""
    assert snapshot(tmp_path) == before, "a refused run wrote something"
    assert server.requests == []
    assert_no_secret(tmp_path, caplog, result)


# -- judge options without a judge to run ------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["--write-ev2r", "records.jsonl"], ["--dry-run"], ["--judge-budget", "100000"], ["--judge-samples", "3"],
    ["--judge-concurrency", "2"], ["--judge-price", "1,2", "--judge-budget", "$1"], ["--no-judge-cache"],
])
def test_judge_option_without_judge_url_is_refused(server, tmp_path, caplog, argv):
    argv = [str(tmp_path / a) if a == "records.jsonl" else a for a in argv]
    before = snapshot(tmp_path)
    result = judge_cli(server, tmp_path, *argv, url=False)
    assert_cli_error(result, "tsver")
    line = error_line(result)
    assert argv[0] in line and "need --judge-url" in line, line
    assert result.out == "" and snapshot(tmp_path) == before and server.requests == []
    assert_no_secret(tmp_path, caplog, result)


@pytest.mark.parametrize("argv", [
    ["--dry-run"], ["--judge-budget", "100000"], ["--judge-samples", "3"], ["--judge-concurrency", "2"],
    ["--write-ev2r", "records.jsonl"],
])
def test_judge_option_with_recorded_ev2r_is_refused(server, tmp_path, caplog, argv):
    """--ev2r FILE reads recorded judge outputs: a judge option there runs nothing, so it is an error, as
    without --judge-url. (BUG: --dry-run crashes with AttributeError, the others are silently ignored.)"""
    argv = [str(tmp_path / a) if a == "records.jsonl" else a for a in argv]
    before = snapshot(tmp_path)
    result = judge_cli(server, tmp_path, "--ev2r", EXAMPLES / "ev2r.jsonl", *argv, url=False)
    assert_cli_error(result, "tsver")
    line = error_line(result)
    assert argv[0] in line and "--judge-url" in line, line
    assert result.out == "" and snapshot(tmp_path) == before and server.requests == []


# -- --write-ev2r files that are not ours to extend ---------------------------------------------------------

def refused_record_file(server, tmp_path, caplog, path, line=None, **paths):
    """The run with `--write-ev2r path` exits 2 with one line naming path (and LINE), sends nothing and
    leaves every file as it was."""
    before = snapshot(tmp_path)
    result = judge_cli(server, tmp_path, "--write-ev2r", path, **paths)
    assert_cli_error(result, "tsver", path, line)
    assert result.out == ""
    assert server.requests == [], "a request was sent before the record file was checked"
    assert snapshot(tmp_path) == before, "a refused run changed or wrote a file"
    assert_no_secret(tmp_path, caplog, result)
    return result


def test_write_ev2r_a_folder(server, tmp_path, caplog):
    folder = tmp_path / "records.jsonl"
    folder.mkdir()
    (folder / "inside.txt").write_text("keep", encoding="utf-8")
    result = refused_record_file(server, tmp_path, caplog, folder)
    assert "a folder" in error_line(result)


def test_write_ev2r_holding_a_claim_not_in_the_gold_file(server, tmp_path, caplog):
    other = {"Claim": "Atlantis exported more fish than any other country.",
             "ev2r_response": counts_for("Atlantis exported more fish than any other country.")}
    path = write(tmp_path / "records.jsonl", EV2R_TEXT + jsonl([other]))
    result = refused_record_file(server, tmp_path, caplog, path, line=4)
    assert "not in the gold file" in error_line(result)


@pytest.mark.parametrize(("number", "bad"), [(2, '{"Claim": "unfinished'), (1, "[1, 2, 3]"),
                                             (3, '{"Claim": "x"}'), (2, '{"Claim": 7, "ev2r_response": {}}')])
def test_write_ev2r_with_a_malformed_line(server, tmp_path, caplog, number, bad):
    lines = EV2R_TEXT.splitlines()
    lines[number - 1] = bad
    path = write(tmp_path / "records.jsonl", "\n".join(lines) + "\n")
    refused_record_file(server, tmp_path, caplog, path, line=number)


def test_write_ev2r_with_a_claim_recorded_twice(server, tmp_path, caplog):
    path = write(tmp_path / "records.jsonl", EV2R_TEXT + EV2R_TEXT.splitlines()[0] + "\n")
    result = refused_record_file(server, tmp_path, caplog, path, line=4)
    assert "recorded twice" in error_line(result)


@pytest.mark.parametrize("which", ["gold", "preds"])
def test_write_ev2r_onto_an_input_file(server, tmp_path, caplog, inputs, which):
    gold, preds = inputs
    target = gold if which == "gold" else preds
    result = refused_record_file(server, tmp_path, caplog, target, line=1, gold=gold, preds=preds)
    assert "the output file is the input file" in error_line(result)


def test_write_ev2r_onto_the_stores_gold_file_behind_official_test(server, tmp_path, caplog, monkeypatch):
    """`--gold official:test` is a path in the store: --write-ev2r there is refused, and the store's file kept."""
    monkeypatch.setenv("BENCHSCORE_DATA", str(store_copy(tmp_path)))
    target = pathlib.Path(data.resolve("tsver", "official:test"))
    before = target.read_bytes()
    predictions = shared_path("data", "tsver", "predictions", "pred_test_gold.jsonl")
    result = judge_cli(server, tmp_path, "--write-ev2r", target, gold="official:test", preds=predictions)
    assert_cli_error(result, "tsver", target)
    assert target.read_bytes() == before and server.requests == []


def test_per_claim_onto_the_stores_gold_file_behind_official_test(server, tmp_path, monkeypatch):
    """BUG: check_output compares the report path with the text "official:test", not the store file it
    names, so `--per-claim <the store's tsver_test.jsonl>` overwrote the official gold file (every later
    run: "does not match its pinned sha256 (corrupt)"). Expected: refused like any input file."""
    monkeypatch.setenv("BENCHSCORE_DATA", str(store_copy(tmp_path)))
    target = pathlib.Path(data.resolve("tsver", "official:test"))
    before = target.read_bytes()
    predictions = shared_path("data", "tsver", "predictions", "pred_test_gold.jsonl")
    result = judge_cli(server, tmp_path, "--per-claim", target, gold="official:test", preds=predictions, url=False)
    assert_cli_error(result, "tsver", target, 1)
    assert "the output file is the input file" in error_line(result)
    assert target.read_bytes() == before, "the store's official gold file was overwritten"


def store_copy(tmp_path):
    """A copy of the store's TSVer files under tmp_path (a bug that writes there harms no real store)."""
    copy = tmp_path / "store"
    shutil.copytree(data.root() / "tsver", copy / "tsver", ignore=shutil.ignore_patterns("csv"))  # no series needed
    return copy


def test_write_ev2r_in_a_missing_folder_is_refused_before_any_request(server, tmp_path, caplog):
    """BUG: the folder is found missing only when the records are written, after every claim was sent
    (and paid for); the error then names a temporary file (`.../missing/tmpXXXX.tmp`), not the path
    given. Expected: refused up front, naming the path, no request."""
    path = tmp_path / "missing" / "records.jsonl"
    before = snapshot(tmp_path)
    result = judge_cli(server, tmp_path, "--write-ev2r", path)
    assert_cli_error(result, "tsver", path.parent)
    assert ".tmp" not in error_line(result), error_line(result)
    assert server.requests == [], f"{len(server.requests)} requests sent before the write failed"
    assert snapshot(tmp_path) == before
    assert_no_secret(tmp_path, caplog, result)


def test_write_ev2r_and_per_claim_the_same_path_is_refused(server, tmp_path, caplog):
    """BUG: with a path that does not exist yet, both outputs go to it: exit 0, and the per-claim report
    overwrites the judge records just written (and paid for). Expected: refused before any request."""
    path = tmp_path / "out.jsonl"
    result = judge_cli(server, tmp_path, "--write-ev2r", path, "--per-claim", path)
    assert_cli_error(result, "tsver", path)
    assert server.requests == [] and not path.exists()
    assert_no_secret(tmp_path, caplog, result)


# -- usage the judge reports in another shape, or not at all ------------------------------------------------

BAD_USAGE = {
    "a string": "lots",
    "negative tokens": {"prompt_tokens": -10, "completion_tokens": 5, "total_tokens": -5},
    "no completion_tokens": {"prompt_tokens": 100, "total_tokens": 100},
    "a float": {"prompt_tokens": 1.5, "completion_tokens": 2},
    "a bool": {"prompt_tokens": True, "completion_tokens": 2},
    "none": None,
}


@pytest.mark.parametrize("shape", BAD_USAGE)
def test_usage_of_another_shape_without_a_budget_is_not_counted(server, tmp_path, caplog, shape):
    bad = [GOLD[i]["Claim"] for i in (0, 3)]
    for claim in bad:
        server.script[claim] = [{"usage": BAD_USAGE[shape]}]
    result = assert_cli_ok(judge_cli(server, tmp_path, "--no-judge-cache", "--write-ev2r", tmp_path / "records.jsonl"))
    out = json.loads(result.out)
    assert out["n_ev2r_judged"] == len(JUDGED) and out["n_ev2r_failed"] == 0  # the records are fine
    usage = out["judge_usage"]
    counted = [usage_for(r["body"]) for r in server.requests
               if claim_of(r["body"]["messages"][-1]["content"]) not in bad]
    assert usage["requests"] == len(server.requests) == len(JUDGED)
    assert usage["requests_without_usage"] == len(bad)
    for name in ("prompt_tokens", "completion_tokens", "total_tokens"):
        assert usage[name] == sum(u[name] for u in counted), name
    assert f"{len(bad)} without usage" in result.err
    if BAD_USAGE[shape] is not None:  # a usage we cannot read is also a logged warning
        assert "this request's tokens are not counted" in caplog.text
    assert len(records_of(tmp_path / "records.jsonl")) == len(JUDGED)
    assert_no_secret(tmp_path, caplog, result)


@pytest.mark.parametrize("shape", BAD_USAGE)
def test_usage_of_another_shape_with_a_budget_stops_the_run(server, tmp_path, caplog, shape):
    for claim in (g["Claim"] for g in GOLD):
        server.script[claim] = [{"usage": BAD_USAGE[shape]}] * 3
    records = tmp_path / "records.jsonl"
    result = judge_cli(server, tmp_path, "--judge-budget", "100000", "--write-ev2r", records,
                       "--per-claim", tmp_path / "report.json")
    assert_cli_error(result, "tsver")
    line = error_line(result)
    assert "usage" in line and "budget" in line, line
    assert result.out == ""
    assert not records.exists(), "the record file was written by a run that stopped"
    assert not (tmp_path / "report.json").exists()
    assert_no_secret(tmp_path, caplog, result)


@pytest.mark.parametrize("budget", [False, True])
@pytest.mark.parametrize("usage", [{"prompt_tokens": SECRET, "completion_tokens": 1},
                                   {"prompt_tokens": 1, "completion_tokens": 1,
                                    "prompt_tokens_details": {"cached_tokens": "Bearer " + SECRET}}])
def test_usage_echoing_the_key_is_never_shown(server, tmp_path, caplog, usage, budget):
    """BUG: the message about a usage value of the wrong type shows the value (`shown(value)`) without
    redacting it: a server echoing the key there puts it in the log warning (no budget) or the error
    line (with a budget). Expected: `<hidden>`, as everywhere else."""
    for claim in (g["Claim"] for g in GOLD):
        server.script[claim] = [{"usage": usage}] * 3
    result = judge_cli(server, tmp_path, "--no-judge-cache", *(["--judge-budget", "100000"] if budget else []))
    assert result.exc is None and result.code == (2 if budget else 0), result.describe()
    assert_no_secret(tmp_path, caplog, result)


# -- a budget that lets only some claims through ------------------------------------------------------------

def listed_claims(stderr):
    """The claim indices of the 'not sent to the judge' warning."""
    found = re.search(r"warning: (\d+) claim\(s\) were not sent to the judge, to stay within the judge budget "
                      r"\(claims ([\d, ]+)\)", stderr)
    assert found, f"no warning naming the claims not sent: {stderr!r}"
    return int(found.group(1)), [int(i) for i in found.group(2).split(", ")]


def full_cost(server, tmp_path, *extra):
    """The tokens of judging every claim (concurrency 1, no cache), as the fake server reports them."""
    result = assert_cli_ok(judge_cli(server, tmp_path, "--no-judge-cache", "--judge-concurrency", "1", *extra))
    server.requests.clear()
    return json.loads(result.out)["judge_usage"]["total_tokens"]


def test_budget_sends_only_some_claims(server, tmp_path, caplog):
    budget = full_cost(server, tmp_path) - 1  # not every claim fits
    records = tmp_path / "records.jsonl"
    result = assert_cli_ok(judge_cli(server, tmp_path, "--no-judge-cache", "--judge-budget", str(budget),
                                     "--write-ev2r", records))
    out = json.loads(result.out)
    assert out["n_ev2r_not_sent"] > 0
    assert out["n_ev2r_judged"] + out["n_ev2r_not_sent"] == len(JUDGED)
    assert out["n_ev2r_failed"] == 0  # not sent is not a judge failure
    assert 0 < out["judge_usage"]["total_tokens"] <= budget
    assert out["judge_usage"]["requests"] == len(server.requests) == out["n_ev2r_judged"]
    n, claims = listed_claims(result.err)
    assert n == out["n_ev2r_not_sent"] == len(claims) and set(claims) <= set(JUDGED)
    sent = {claim_of(r["body"]["messages"][-1]["content"]) for r in server.requests}
    assert not sent & {GOLD[i]["Claim"] for i in claims}, "a claim named as not sent was sent"
    assert [r["Claim"] for r in records_of(records)] == [GOLD[i]["Claim"] for i in JUDGED if i not in claims]
    assert_no_secret(tmp_path, caplog, result)


def test_budget_zero_sends_nothing(server, tmp_path, caplog):
    """BUG (minor): with no claim sent, the result has no Ev2R keys at all and the table loses its Ev2R
    row, as if no judge had been asked (the signature still names it). Expected, as when every claim
    fails ("never a silent 0"): `ev2r_f1` None (the table's n/a) and `n_ev2r_judged` 0."""
    result = assert_cli_ok(judge_cli(server, tmp_path, "--no-judge-cache", "--judge-budget", "0"))
    out = json.loads(result.out)
    assert out["n_ev2r_not_sent"] == len(JUDGED) and server.requests == []
    assert out["judge_usage"]["total_tokens"] == out["judge_usage"]["requests"] == 0
    assert listed_claims(result.err) == (len(JUDGED), list(JUDGED))
    assert out.get("ev2r_f1", "absent") is None and out.get("n_ev2r_judged") == 0, \
        {k: v for k, v in out.items() if "ev2r" in k}


def test_budget_in_dollars_sends_only_some_claims(server, tmp_path, caplog):
    tokens = full_cost(server, tmp_path)
    price = (1.0, 1.0)  # dollars per million tokens: the budget in dollars is tokens / 1e6
    budget = (tokens - 1) / 1e6  # not every claim fits
    result = assert_cli_ok(judge_cli(server, tmp_path, "--no-judge-cache", "--judge-budget", f"${budget!r}",
                                     "--judge-price", "1,1"))
    out = json.loads(result.out)
    usage = out["judge_usage"]
    assert out["n_ev2r_not_sent"] > 0 and usage["requests"] > 0
    assert (usage["prompt_tokens"] * price[0] + usage["completion_tokens"] * price[1]) / 1e6 <= budget


def test_budget_result_does_not_depend_on_concurrency(server, tmp_path, caplog):
    """BUG: before the first answer each request in flight holds a guess from its prompt bytes, so at
    the default concurrency of 8 the claims submitted at once are refused ("not sent") while the first
    request is out, and the claims sent then depend on thread timing: with a budget the Ev2R and
    n_ev2r_not_sent differ from the one-at-a-time run (and from run to run). The card: "the records and
    number never depend on completion order". Expected: the same claims judged at any concurrency."""
    budget = full_cost(server, tmp_path) - 1  # every claim but one fits
    server.hold = 0.05
    runs = {}
    for concurrency in ("1", "8"):
        server.requests.clear()
        result = assert_cli_ok(judge_cli(server, tmp_path, "--no-judge-cache", "--judge-budget", str(budget),
                                         "--judge-concurrency", concurrency))
        out = json.loads(result.out)
        assert out["judge_usage"]["total_tokens"] <= budget
        sent = sorted(claim_of(r["body"]["messages"][-1]["content"]) for r in server.requests)
        runs[concurrency] = (sent, out["n_ev2r_not_sent"], out["ev2r_f1"])
    assert runs["8"] == runs["1"], f"one at a time: {runs['1'][1:]} (not sent, F1); concurrency 8: {runs['8'][1:]}"


def test_budget_is_not_exceeded_by_a_longer_prompt(server, tmp_path, caplog, inputs):
    """BUG: each request is reserved at the cost of the dearest request so far, whatever its own prompt
    size: a claim whose prompt is much longer than any before is sent although it cannot fit, and the
    run spends more than --judge-budget (here by a token). Expected: never above the budget."""
    gold, _ = inputs
    preds = [dict(p) for p in PREDS]
    long_claim = GOLD[JUDGED[1]]["Claim"]
    for p in preds:
        if p["Claim"] == long_claim:
            p["Explanation"] = "The series rose and fell again over the years. " * 600
    preds = write(tmp_path / "in" / "long.jsonl", jsonl(preds))
    result = assert_cli_ok(judge_cli(server, tmp_path, "--no-judge-cache", "--judge-concurrency", "1",
                                     gold=gold, preds=preds))
    cost = {claim_of(r["body"]["messages"][-1]["content"]): usage_for(r["body"])["total_tokens"]
            for r in server.requests}
    server.requests.clear()
    budget = cost[GOLD[JUDGED[0]]["Claim"]] + cost[long_claim] - 1  # the first two claims together do not fit
    result = assert_cli_ok(judge_cli(server, tmp_path, "--no-judge-cache", "--judge-concurrency", "1",
                                     "--judge-budget", str(budget), gold=gold, preds=preds))
    out = json.loads(result.out)
    assert out["n_ev2r_not_sent"] > 0
    assert out["judge_usage"]["total_tokens"] <= budget, \
        f"spent {out['judge_usage']['total_tokens']:,} tokens of a {budget:,}-token budget"


# -- the dry run ---------------------------------------------------------------------------------------------

def test_dry_run_sends_nothing_and_counts(server, tmp_path, caplog):
    records = tmp_path / "records.jsonl"
    result = assert_cli_ok(judge_cli(server, tmp_path, "--dry-run", "--write-ev2r", records,
                                     "--per-claim", tmp_path / "report.json", "--judge-budget", "10"))
    plan = json.loads(result.out)
    assert server.requests == []
    assert (plan["claims"], plan["samples"], plan["in_record_file"], plan["cached"], plan["to_send"]) == \
        (len(JUDGED), 1, 0, 0, len(JUDGED))
    assert 0 < plan["largest_prompt_characters"] <= plan["prompt_characters"]
    assert plan["signature_judge"].startswith("openai(model=fake-judge,")
    assert not records.exists() and not (tmp_path / "report.json").exists()
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.json"))
    # the text form says the same, and that nothing was sent
    text = assert_cli_ok(run_cli(["tsver", "--gold", EXAMPLES / "gold.jsonl", "--predictions",
                                  EXAMPLES / "predictions.jsonl", "--judge-url", server.base_url,
                                  "--judge-api-key-env", KEY_ENV, "--judge-cache", tmp_path / "cache",
                                  "--judge-samples", "2", "--dry-run"]))
    assert f"dry run: {len(JUDGED)} claims would be judged (2 sample(s) each)" in text.out
    assert f"{2 * len(JUDGED)} requests to send" in text.out and "nothing was sent" in text.out
    assert server.requests == []
    assert_no_secret(tmp_path, caplog, result, text)


def test_dry_run_after_a_run_counts_the_cache_and_the_record_file(server, tmp_path, caplog):
    records = tmp_path / "records.jsonl"
    first = assert_cli_ok(judge_cli(server, tmp_path))  # fills the cache
    n_requests = len(server.requests)
    assert n_requests == len(JUDGED)
    cached = assert_cli_ok(judge_cli(server, tmp_path, "--dry-run"))
    plan = json.loads(cached.out)
    assert (plan["cached"], plan["to_send"], plan["in_record_file"]) == (len(JUDGED), 0, 0)
    assert plan["prompt_characters"] == 0
    # a run with a record file and no cache: the dry run then counts the file's claims as free
    assert_cli_ok(judge_cli(server, tmp_path, "--no-judge-cache", "--write-ev2r", records))
    n_requests = len(server.requests)
    before = records.read_bytes()
    recorded = assert_cli_ok(judge_cli(server, tmp_path, "--no-judge-cache", "--dry-run", "--write-ev2r", records))
    plan = json.loads(recorded.out)
    assert (plan["in_record_file"], plan["cached"], plan["to_send"]) == (len(JUDGED), 0, 0)
    assert len(server.requests) == n_requests and records.read_bytes() == before
    assert_no_secret(tmp_path, caplog, first, cached, recorded)


def test_dry_run_refuses_a_record_file_a_real_run_refuses(server, tmp_path, caplog):
    path = write(tmp_path / "records.jsonl", EV2R_TEXT + EV2R_TEXT.splitlines()[0] + "\n")
    before = snapshot(tmp_path)
    result = judge_cli(server, tmp_path, "--dry-run", "--write-ev2r", path)
    assert_cli_error(result, "tsver", path, 4)
    assert server.requests == [] and snapshot(tmp_path) == before


def test_dry_run_prints_the_input_warnings_as_warning_lines(tmp_path):
    """BUG: the dry run does not collect the readers' TSVerWarnings, so the real CLI prints them in
    Python's format, with the source line (`.../files.py:201: TSVerWarning: ...` then
    `  predictions = read_predictions(...)`). Expected: `benchscore tsver: warning: ...` lines, as a run."""
    result = run_subprocess(["-m", "benchscore", "tsver", "--gold", EXAMPLES / "gold.jsonl", "--predictions",
                             EXAMPLES / "predictions.jsonl", "--judge-url", "http://127.0.0.1:9/v1",
                             "--judge-api-key-env", "none", "--no-judge-cache", "--dry-run"])
    assert result.code == 0, result.describe()
    assert "nothing was sent" in result.out
    assert "TSVerWarning" not in result.err and "read_predictions(" not in result.err, result.err
    assert "benchscore tsver: warning: " in result.err and "more than one prediction line" in result.err


# -- the judge cache folder (issue 21) ---------------------------------------------------------------

def test_a_cache_folder_that_cannot_be_created_is_named_before_any_request(server, tmp_path, caplog):
    (tmp_path / "a-file").write_text("not a folder")
    result = judge_cli(server, tmp_path, "--judge-cache", tmp_path / "a-file" / "cache")
    assert_cli_error(result, "tsver")
    assert re.search(r"the judge cache folder '.*a-file/cache' cannot be created \('.*a-file' is not a folder\); "
                     r"expected a folder that can be written \(or no cache: .*--no-judge-cache\)$", result.err.strip())
    assert server.requests == []
    assert_no_secret(tmp_path, caplog, result)


def test_a_cache_write_that_fails_warns_and_scores_the_same(server, tmp_path, caplog, monkeypatch):
    from benchscore.tsver import http_judge

    plain = assert_cli_ok(judge_cli(server, tmp_path / "plain", "--no-judge-cache"))

    def no_space(path, text):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(http_judge, "write_atomically", no_space)
    result = assert_cli_ok(judge_cli(server, tmp_path))
    assert json.loads(result.out)["ev2r_recall"] == json.loads(plain.out)["ev2r_recall"] is not None
    assert "the judge cache" in caplog.text and "could not be written (No space left on device)" in caplog.text
    assert_no_secret(tmp_path, caplog, result)


def test_judge_url_without_httpx_is_one_line_naming_the_extra(tmp_path):
    """httpx (the judge extra) loads with the judge, not with the command: where it is not installed, a
    command asked to judge stops with one line naming the extra, before any request."""
    import subprocess
    import sys

    gold, predictions = (str(METRICS / "tsver" / "examples" / name) for name in ("gold.jsonl", "predictions.jsonl"))
    script = ("import sys\nsys.modules['httpx'] = None  # `import httpx` raises ImportError\n"
              "from benchscore.cli import main\nsys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", script, "tsver", "--gold", gold, "--predictions", predictions,
                           "--judge-url", "http://127.0.0.1:9/v1", "--judge-cache", str(tmp_path / "cache")],
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert 'needs httpx: pip install "benchscore[judge]"' in done.stderr and "Traceback" not in done.stderr
