"""Hostile and broken inputs for TSVer (issue 12), through the public entry points only: the CLI,
the evaluate module, the loaders, the Space handlers, and the HTTP judge against misbehaving
servers on 127.0.0.1."""

import base64
import json
import logging
import pathlib
import socket
import threading
import time

import pytest

from conftest import load_metric
from fake_judge_server import FakeJudgeServer, counts_for, fenced
from hostile import (assert_cli_error, assert_cli_ok, assert_same_or_refused, deep_json, example_texts,  # noqa: F401
                     guard, jsonl, library_error, load_app, loader_error, records, replace_line, run_cli,
                     run_subprocess, space_error, write)

pytestmark = pytest.mark.usefixtures("guard")

GOLD, PREDS, EV2R = example_texts("tsver", "gold.jsonl", "predictions.jsonl", "ev2r.jsonl")
G, P = records(GOLD), records(PREDS)
SECRET = "sk-hostile-DO-NOT-LEAK-0123456789abcdef"
KEY_ENV = "BENCHSCORE_HOSTILE_JUDGE_KEY"


def files(tmp_path, gold=GOLD, preds=PREDS, ev2r=None):
    paths = [write(tmp_path / "gold.jsonl", gold), write(tmp_path / "preds.jsonl", preds)]
    if ev2r is not None:
        paths.append(write(tmp_path / "ev2r.jsonl", ev2r))
    return paths


def cli(gold, preds, *extra):
    return run_cli(["tsver", "--gold", gold, "--predictions", preds, "--json", *extra])


def perfect_predictions(gold=G):
    return [{"Claim": g["Claim"], "Verdict": g["Verdict"], "Explanation": "x", "PredictedTimeRanges": g["TimeSeries"]}
            for g in gold]


@pytest.fixture
def baseline(tmp_path):
    return assert_cli_ok(cli(*files(tmp_path / "")))


# -- deep nesting and huge numbers in every JSONL input -------------------------------------------

@pytest.mark.parametrize("which", ["gold", "preds", "ev2r"])
def test_deeply_nested_json_line(tmp_path, which):
    texts = {"gold": GOLD, "preds": PREDS, "ev2r": EV2R}
    texts[which] = replace_line(texts[which], 2, deep_json())
    gold, preds, ev2r = files(tmp_path, texts["gold"], texts["preds"], texts["ev2r"])
    path = {"gold": gold, "preds": preds, "ev2r": ev2r}[which]
    assert_cli_error(cli(gold, preds, "--ev2r", ev2r), "tsver", path, 2)


def test_deeply_nested_value_inside_a_record(tmp_path):
    record = json.dumps(P[0])[:-1] + ', "Extra": ' + deep_json() + "}"
    gold, preds = files(tmp_path, preds=replace_line(PREDS, 1, record))
    assert_cli_error(cli(gold, preds), "tsver", preds, 1)


@pytest.mark.parametrize("year", ["1" + "0" * 400, "-" + "9" * 30])
def test_huge_integer_year_in_gold(tmp_path, year):
    raw = json.dumps(G[0]).replace('"from": 2000', f'"from": {year}', 1)
    gold, preds = files(tmp_path, gold=replace_line(GOLD, 1, raw))
    result = run_subprocess(["-m", "benchscore", "tsver", "--gold", gold, "--predictions", preds, "--json"])
    assert_cli_error(result, "tsver", gold, 1)


def test_huge_integer_year_in_predictions(tmp_path):
    raw = json.dumps(P[0]).replace('"to": 2006', '"to": 1' + "0" * 400, 1)
    gold, preds = files(tmp_path, preds=replace_line(PREDS, 1, raw))
    result = run_subprocess(["-m", "benchscore", "tsver", "--gold", gold, "--predictions", preds, "--json"])
    assert_cli_error(result, "tsver", preds, 1)


@pytest.mark.parametrize("value", ["NaN", "Infinity", "true", "2000.7", '"2000"'])
def test_non_integer_year_in_predictions(tmp_path, value):
    raw = json.dumps(P[0]).replace('"from": 2002', f'"from": {value}', 1)
    gold, preds = files(tmp_path, preds=replace_line(PREDS, 1, raw))
    assert_cli_error(cli(gold, preds), "tsver", preds, 1)


@pytest.mark.parametrize("value", ["NaN", "1e400", "true"])
def test_non_integer_counts_in_recorded_ev2r(tmp_path, value):
    raw = EV2R.splitlines()[2].replace('"support predicted evidence": 0', f'"support predicted evidence": {value}')
    gold, preds, ev2r = files(tmp_path, ev2r=replace_line(EV2R, 3, raw))
    assert_cli_error(cli(gold, preds, "--ev2r", ev2r), "tsver", ev2r, 3)


# -- encodings, line ends, empty and blank ---------------------------------------------------------

@pytest.mark.parametrize("which", ["gold", "preds"])
def test_bom_same_numbers_or_refused(tmp_path, baseline, which):
    texts = {"gold": GOLD, "preds": PREDS}
    texts[which] = "\ufeff" + texts[which]
    gold, preds = files(tmp_path, texts["gold"], texts["preds"])
    result = cli(gold, preds)
    assert_same_or_refused(result, baseline, "tsver", gold if which == "gold" else preds)


def test_crlf_same_numbers(tmp_path, baseline):
    gold, preds = files(tmp_path, GOLD.replace("\n", "\r\n"), PREDS.replace("\n", "\r\n"))
    assert assert_cli_ok(cli(gold, preds)).out == baseline.out


def test_blank_lines_skipped_with_same_numbers(tmp_path, baseline):
    gold, preds = files(tmp_path, GOLD.replace("\n", "\n\n", 2), "\n \n" + PREDS)
    assert assert_cli_ok(cli(gold, preds)).out == baseline.out


@pytest.mark.parametrize("text", ["", "\n\n  \n"])
def test_empty_gold_file(tmp_path, text):
    gold, preds = files(tmp_path, gold=text)
    assert_cli_error(cli(gold, preds), "tsver", gold)


def test_empty_predictions_file_refused_or_warned(tmp_path):
    gold, preds = files(tmp_path, preds="")
    result = cli(gold, preds)
    if result.code == 0 and result.exc is None:
        assert "preds.jsonl" in result.err and "warning" in result.err, f"silent: {result.describe()}"
    else:
        assert_cli_error(result, "tsver", preds)


def test_invalid_utf8_in_predictions(tmp_path):
    data = PREDS.encode().replace(b"It rains.", b"It r\xffains.")
    line = data[: data.index(b"\xff")].count(b"\n") + 1
    gold, preds = files(tmp_path, preds=data)
    assert_cli_error(cli(gold, preds), "tsver", preds, line)


def test_invalid_utf8_in_gold(tmp_path):
    data = GOLD.encode().replace(b"Mu has more", b"Mu \xc3\x28has more")
    line = data[: data.index(b"\xc3\x28")].count(b"\n") + 1
    gold, preds = files(tmp_path, gold=data)
    assert_cli_error(cli(gold, preds), "tsver", gold, line)


# -- duplicates and official quirks ----------------------------------------------------------------

def test_duplicate_gold_claim_refused_or_warned(tmp_path):
    gold, preds = files(tmp_path, gold=GOLD + json.dumps(G[0]) + "\n")
    result = cli(gold, preds)
    if result.code == 0 and result.exc is None:
        assert "duplicate" in result.err.lower() or "twice" in result.err.lower(), \
            f"a gold claim given twice is scored twice silently: {result.describe()}"
        assert json.loads(result.out).get("warnings"), "the warning is not in the result dict"
    else:
        assert_cli_error(result, "tsver", gold, len(G) + 1)


def test_empty_verdict_counted_as_supported_warns(tmp_path):
    records = perfect_predictions()
    records[1]["Verdict"] = ""
    gold, preds = files(tmp_path, preds=jsonl(records))
    result = assert_cli_ok(cli(gold, preds))
    assert "warning" in result.err and "preds.jsonl" in result.err, \
        f"the empty verdict (official: counted as Supported) gives no warning: {result.describe()}"
    warnings_ = json.loads(result.out).get("warnings")
    assert isinstance(warnings_, list) and warnings_ and all(isinstance(w, str) for w in warnings_), \
        "no 'warnings' list of strings in the result dict"


def test_empty_verdict_warning_in_table_output(tmp_path):
    records = perfect_predictions()
    records[1]["Verdict"] = ""
    gold, preds = files(tmp_path, preds=jsonl(records))
    result = assert_cli_ok(run_cli(["tsver", "--gold", gold, "--predictions", preds]))
    assert "warning" in (result.out + result.err).lower(), result.describe()


# -- compare -----------------------------------------------------------------------------------

def test_compare_deeply_nested_predictions(tmp_path):
    gold, preds = files(tmp_path, preds=replace_line(PREDS, 2, deep_json()))
    result = run_cli(["compare", "tsver", "--gold", gold, "--predictions", preds, "--n-resamples", "20"])
    assert_cli_error(result, "compare", preds, 2)


def test_compare_huge_year(tmp_path):
    raw = json.dumps(P[0]).replace('"to": 2006', '"to": 1' + "0" * 400, 1)
    gold, preds = files(tmp_path, preds=replace_line(PREDS, 1, raw))
    result = run_subprocess(["-m", "benchscore", "compare", "tsver", "--gold", gold, "--predictions", preds,
                             "--n-resamples", "20"])
    assert_cli_error(result, "compare", preds, 1)


# -- the evaluate module -----------------------------------------------------------------------

def reference(i):
    return {"claim": f"claim {i}", "verdict": "Supported", "justifications": ["j"],
            "time_series": [{"series": "s", "ranges": [{"from": 2000, "to": 2004}]}]}


def prediction(i):
    return {"verdict": "Supported", "explanation": "e",
            "time_series": [{"series": "s", "ranges": [{"from": 2000, "to": 2004}]}]}


def examples(n=5):
    return [prediction(i) for i in range(n)], [reference(i) for i in range(n)]


def assert_compute_refused(module, index, preds, refs):
    """`module.compute` refuses `preds`/`refs` with our error naming example `index`."""
    with library_error(index):
        module.compute(predictions=preds, references=refs)


@pytest.fixture(scope="module")
def module():
    return load_metric("tsver")


@pytest.mark.parametrize("index", [0, 3])
def test_module_missing_reference_key(module, index):
    preds, refs = examples()
    del refs[index]["justifications"]
    assert_compute_refused(module, index, preds, refs)


@pytest.mark.parametrize("index", [0, 3])
def test_module_extra_prediction_key(module, index):
    preds, refs = examples()
    preds[index]["confidence"] = 0.9
    assert_compute_refused(module, index, preds, refs)


@pytest.mark.parametrize("index", [0, 3])
def test_module_missing_explanation_key(module, index):
    preds, refs = examples()
    del preds[index]["explanation"]
    assert_compute_refused(module, index, preds, refs)


def test_module_fractional_year_in_later_example_refused(module):
    preds, refs = examples()
    preds[3]["time_series"][0]["ranges"][0]["to"] = 2000.7
    with library_error(3):
        module.compute(predictions=preds, references=refs)


def test_module_huge_year_in_later_example(module):
    preds, refs = examples()
    refs[2]["time_series"][0]["ranges"][0]["to"] = 10 ** 12
    with library_error(2):
        module.compute(predictions=preds, references=refs)


def test_module_non_string_verdict_in_later_example(module):
    preds, refs = examples()
    preds[2]["verdict"] = 1
    with library_error(2):
        module.compute(predictions=preds, references=refs)


def test_module_unknown_gold_verdict_in_later_example(module):
    preds, refs = examples()
    refs[4]["verdict"] = "Mostly True"
    with library_error(4):
        module.compute(predictions=preds, references=refs)


def test_module_duplicate_claim_refused_or_warned(module):
    preds, refs = examples()
    refs[3]["claim"] = refs[1]["claim"]
    try:
        result = module.compute(predictions=preds, references=refs)
    except ValueError as err:
        assert "example 3" in str(err) or "example 1" in str(err), str(err)
        return
    assert any("claim 1" in w or "duplicate" in w.lower() for w in result.get("warnings", [])), \
        "a claim given twice is scored twice with no warning in the result"


def test_module_empty_verdict_warns_in_result(module):
    preds, refs = examples()
    preds[1]["verdict"] = ""
    result = module.compute(predictions=preds, references=refs)
    warnings_ = result.get("warnings")
    assert isinstance(warnings_, list) and warnings_ and all(isinstance(w, str) for w in warnings_), \
        f"no 'warnings' list in the result for an empty verdict counted as Supported: keys {sorted(result)}"


def test_module_all_judge_calls_failing_is_not_available_with_reason(module):
    preds, refs = examples(3)
    result = module.compute(predictions=preds, references=refs, ev2r_judge=lambda c, r, p: {"garbage": 1})
    assert result.get("ev2r_f1") is None, f"Ev2R reported as {result.get('ev2r_f1')!r} though every judge call failed"
    assert any("ev2r" in w.lower() or "judge" in w.lower() for w in result.get("warnings", [])), \
        "no warning giving the reason Ev2R is not available"


# -- the loaders: gold files and time-series CSVs ---------------------------------------------------

def test_loader_deeply_nested_gold(tmp_path):
    from benchscore.tsver.loader import gold_dataset

    path = write(tmp_path / "tsver_test.jsonl", replace_line(GOLD, 3, deep_json()))
    with loader_error(path, 3):
        gold_dataset(path)


def test_loader_huge_year_in_gold(tmp_path):
    from benchscore.tsver.loader import gold_dataset

    path = write(tmp_path / "tsver_test.jsonl", replace_line(GOLD, 2, json.dumps(G[1]).replace('"to": 2011', f'"to": {10 ** 12}', 1)))
    with loader_error(path, 2):
        gold_dataset(path)


@pytest.fixture
def data_dir(tmp_path):
    folder = tmp_path / "data"
    (folder / "time_series" / "csv").mkdir(parents=True)
    write(folder / "time_series" / "csv" / "rainfall.csv", "Date,ATL,LEM\n2000,400,\n2001,410.5,12\n")
    write(folder / "x.csv", "Date,ATL\n2000,1\n")  # outside the csv folder: must never be read
    write(tmp_path / "x.csv", "Date,ATL\n2000,1\n")
    return folder


@pytest.mark.parametrize("series", ["../../x", "../../../x", "/etc/passwd", "sub/../../../../x", "..\\..\\x"])
def test_series_id_path_traversal_refused(data_dir, series):
    from benchscore.tsver.loader import load_time_series

    with library_error():
        load_time_series(str(data_dir), series)


@pytest.mark.parametrize("content, line", [
    ("", 1),
    ("\n", 1),
    ("Date,ATL\n2000,1\nabc,2\n", 3),
    ("Date,ATL\n2000,1\n2001,x\n", 3),
    ("Date,ATL\n2000,1,5\n", 2),
    ("Date,ATL,LEM\n2000,1\n", 2),
    ("Date,ATL\n2000,1\n\n2002,3\n", 3),
    ("Date,ATL\n2000,1\n99999999999999999999,2\n", 3),
    ("Date,ATL\n2000,nan\n", 2),
])
def test_malformed_time_series_csv(data_dir, content, line):
    from benchscore.tsver.loader import load_time_series

    path = write(data_dir / "time_series" / "csv" / "bad.csv", content)
    with loader_error(path, line):
        load_time_series(str(data_dir), "bad")


def test_time_series_csv_invalid_utf8(data_dir):
    from benchscore.tsver.loader import load_time_series

    path = write(data_dir / "time_series" / "csv" / "bad.csv", b"Date,ATL\n2000,1\n2001,\xff\n")
    with loader_error(path, 3):
        load_time_series(str(data_dir), "bad")


def test_time_series_csv_bom_same_or_refused(data_dir):
    from benchscore.tsver.loader import load_time_series

    plain = load_time_series(str(data_dir), "rainfall").to_list()
    write(data_dir / "time_series" / "csv" / "bom.csv", "\ufeffDate,ATL,LEM\n2000,400,\n2001,410.5,12\n")
    try:
        rows = load_time_series(str(data_dir), "bom").to_list()
    except ValueError as err:
        assert "bom.csv" in str(err)
        return
    assert rows == plain


def test_time_series_csv_duplicate_column(data_dir):
    from benchscore.tsver.loader import load_time_series

    path = write(data_dir / "time_series" / "csv" / "dup.csv", "Date,ATL,ATL\n2000,1,2\n")
    with loader_error(path, 1):
        load_time_series(str(data_dir), "dup")


# -- the HTTP judge: misbehaving servers ------------------------------------------------------------

@pytest.fixture(autouse=True)
def direct_localhost(monkeypatch):
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.setenv(name, "127.0.0.1,localhost")


@pytest.fixture
def server():
    with FakeJudgeServer() as fake:
        yield fake


def judged_claims():
    """Claims the CLI sends to the judge for the example files (a prediction with an explanation)."""
    by_claim = {}
    for p in P:
        by_claim[p["Claim"]] = p
    gold_claims = {g["Claim"] for g in G}
    return [c for c, p in by_claim.items() if c in gold_claims and p.get("Explanation")]


def judge_cli(server_url, tmp_path, *extra, key_env=KEY_ENV):
    gold, preds = files(tmp_path)
    return run_cli(["tsver", "--gold", gold, "--predictions", preds, "--judge-url", server_url,
                    "--judge-model", "fake-model", "--judge-api-key-env", key_env,
                    "--judge-cache", str(tmp_path / "cache"), "--per-claim", str(tmp_path / "per_claim.json"),
                    *extra])


class Written(dict):
    """Every text the run left behind (stdout, stderr, log, exception, files under tmp_path), by source."""

    def __contains__(self, secret):
        return any(secret in text for text in self.values())

    def where(self, secret):
        return [name for name, text in self.items() if secret in text]


def everything_written(tmp_path, result, caplog):
    written = Written(stdout=result.out, stderr=result.err, log=caplog.text,
                      exception=repr(result.exc) if result.exc else "")
    for path in pathlib.Path(tmp_path).rglob("*"):
        if path.is_file():
            written[str(path.relative_to(tmp_path))] = path.read_text(encoding="utf-8", errors="replace")
    return written


def assert_meaningful(result):
    assert result.exc is None and "Traceback" not in result.err, f"crashed: {result.describe()}"
    assert result.code in (0, 2), result.describe()
    if result.code == 2:
        assert len(result.err.strip().splitlines()) == 1, result.describe()


@pytest.mark.usefixtures("tsver_store")  # the default judge protocol reads the store
def test_judge_reply_deeply_nested_does_not_abort_the_run(server, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    claim = judged_claims()[0]
    server.script[claim] = [{"content": "```json\n" + deep_json() + "\n```"}] * 4
    result = judge_cli(server.base_url, tmp_path, "--json")
    assert_meaningful(result)
    assert result.code == 0, f"one malformed reply aborted the whole run: {result.describe()}"
    out = json.loads(result.out)
    assert out["n_ev2r_failed"] == 1, out


@pytest.mark.usefixtures("tsver_store")  # the default judge protocol reads the store
def test_judge_raw_body_deeply_nested_does_not_abort_the_run(server, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    claim = judged_claims()[0]
    server.script[claim] = [{"raw": deep_json()}] * 4
    result = judge_cli(server.base_url, tmp_path, "--json")
    assert_meaningful(result)
    assert result.code == 0, f"one malformed reply aborted the whole run: {result.describe()}"
    assert json.loads(result.out)["n_ev2r_failed"] == 1


@pytest.mark.parametrize("suffix", ["\r", "\n", " ", "\r\n"])
def test_key_with_trailing_cr_or_space_never_printed(server, tmp_path, monkeypatch, caplog, suffix):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv(KEY_ENV, SECRET + suffix)
    result = judge_cli(server.base_url, tmp_path, "--json")
    assert_meaningful(result)
    written = everything_written(tmp_path, result, caplog)
    assert SECRET not in written, f"the API key appears in {written.where(SECRET)}: {result.describe()}"


@pytest.mark.parametrize("echo", ["success", "malformed", "http_400", "http_500", "header"])
def test_key_echoed_by_server_never_written(server, tmp_path, monkeypatch, caplog, echo):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv(KEY_ENV, SECRET)
    for claim in judged_claims():
        action = {
            "success": {"content": fenced(counts_for(claim)) + f"\nYou sent the key {SECRET}."},
            "malformed": {"content": f"I cannot count. Your key {SECRET} is wrong? {{not json"},
            "http_400": {"status": 400, "body": f"invalid key {SECRET}"},
            "http_500": {"status": 500, "body": f"upstream rejected Bearer {SECRET}"},
            "header": {"content": fenced(counts_for(claim)), "headers": {"X-Echo": SECRET}},
        }[echo]
        server.script[claim] = [action] * 4
    result = judge_cli(server.base_url, tmp_path, "--json")
    assert_meaningful(result)
    written = everything_written(tmp_path, result, caplog)
    assert SECRET not in written, f"the API key echoed by the server ({echo}) appears in {written.where(SECRET)}"


def test_key_split_across_reply_never_written(server, tmp_path, monkeypatch, caplog):
    """The echoed key JSON-escaped (e.g. inside a JSON string with a slash) is still the key."""
    caplog.set_level(logging.DEBUG)
    key = "sk-hostile/with\"quote-0123456789"
    monkeypatch.setenv(KEY_ENV, key)
    for claim in judged_claims():
        server.script[claim] = [{"content": fenced(dict(counts_for(claim), note=key))}] * 4
    result = judge_cli(server.base_url, tmp_path, "--json")
    assert_meaningful(result)
    written = everything_written(tmp_path, result, caplog)
    escaped = json.dumps(key)[1:-1]
    assert key not in written and escaped not in written, \
        f"the key (or its JSON escape) was written to {written.where(key) + written.where(escaped)}"


def test_all_judge_calls_refused_reports_ev2r_not_available(server, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    for claim in judged_claims():
        server.script[claim] = [{"status": 401, "body": "invalid api key"}] * 4
    result = judge_cli(server.base_url, tmp_path, "--json")
    assert_meaningful(result)
    if result.code == 0:
        out = json.loads(result.out)
        assert out.get("ev2r_f1") is None, f"Ev2R reported as {out.get('ev2r_f1')!r} though every judge call failed"
        assert any("401" in w or "judge" in w.lower() for w in out.get("warnings", [])), \
            "no warning in the result giving the reason Ev2R is not available"


def test_all_judge_calls_refused_table_says_not_available(server, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    for claim in judged_claims():
        server.script[claim] = [{"status": 401, "body": "invalid api key"}] * 4
    result = judge_cli(server.base_url, tmp_path)
    assert_meaningful(result)
    if result.code == 0:
        row = next(line for line in result.out.splitlines() if "Ev2R Score" in line)
        assert "0.00" not in row, f"Ev2R printed as a silent 0.00: {row!r}"
        assert "401" in result.out + result.err, "the reason (HTTP 401) is not shown"


def test_connection_refused_reports_ev2r_not_available(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = judge_cli(f"http://127.0.0.1:{port}/v1", tmp_path, "--json")
    assert_meaningful(result)
    if result.code == 0:
        out = json.loads(result.out)
        assert out.get("ev2r_f1") is None, f"Ev2R reported as {out.get('ev2r_f1')!r} with no server listening"
        assert out.get("warnings"), "no warning giving the reason Ev2R is not available"


class TrickleServer:
    """Accepts a connection, then sends a valid-looking HTTP answer one byte per `interval` seconds."""

    def __init__(self, interval=0.5, headers_first=True):
        self.interval, self.headers_first = interval, headers_first
        self._stop = threading.Event()
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(8)
        self._sock.settimeout(0.2)
        self._threads = []

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}/v1"

    def __enter__(self):
        thread = threading.Thread(target=self._serve, daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def __exit__(self, *exc):
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=2)
        self._sock.close()

    def _serve(self):
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                continue
            thread = threading.Thread(target=self._answer, args=(conn,), daemon=True)
            thread.start()
            self._threads.append(thread)

    def _answer(self, conn):
        body = json.dumps({"choices": [{"message": {"content": fenced(counts_for("c"))}}]}).encode()
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
        with conn:
            conn.settimeout(0.2)
            try:
                conn.recv(65536)
                if self.headers_first:
                    conn.sendall(head)
                    payload = body
                else:
                    payload = head + body
                for i in range(len(payload)):
                    if self._stop.wait(self.interval):
                        return
                    conn.sendall(payload[i:i + 1])
            except OSError:
                return


@pytest.mark.usefixtures("tsver_store")  # the default judge protocol reads the store
@pytest.mark.parametrize("headers_first", [True, False], ids=["trickled-body", "trickled-headers"])
def test_trickling_server_hits_a_total_per_request_deadline(monkeypatch, headers_first):
    from benchscore.tsver import ev2r, http_judge

    monkeypatch.setenv(KEY_ENV, SECRET)
    with TrickleServer(interval=0.5, headers_first=headers_first) as trickle:
        judge = http_judge.OpenAIJudge(trickle.base_url, "fake-model", api_key_env=KEY_ENV, cache_dir=None,
                                   timeout=2.0, max_retries=1, backoff=0.0, progress=False)
        start = time.monotonic()
        try:
            judge("c", "r", "p")
        except Exception as err:  # noqa: BLE001 - a judge failure is the expected outcome
            assert ev2r.is_judge_failure(err), f"{type(err).__name__}: {err}"
            assert SECRET not in str(err)
        # The guard fails the test when the deadline does not hold (each read gets a byte in time).
        assert time.monotonic() - start < 15, "no total per-request deadline"


def test_trickling_server_through_the_cli_is_bounded(tmp_path):
    """The CLI's per-request deadline (--judge-timeout; its default, 60 s, leaves a real LLM time to
    answer) must end the run within the guard (run in a subprocess, killed at the guard: a hung
    worker thread cannot block the suite)."""
    gold, preds = files(tmp_path)
    with TrickleServer(interval=1.0) as trickle:
        result = run_subprocess(["-m", "benchscore", "tsver", "--gold", gold, "--predictions", preds, "--json",
                                 "--judge-timeout", "2",
                                 "--judge-url", trickle.base_url, "--judge-model", "fake-model",
                                 "--judge-api-key-env", KEY_ENV, "--no-judge-cache"],
                                env={KEY_ENV: SECRET, "no_proxy": "127.0.0.1,localhost", "NO_PROXY": "127.0.0.1,localhost"})
    assert result.exc is None, f"no total deadline: {result.describe()}"
    assert_meaningful(result)
    assert SECRET not in result.out + result.err


# -- the Space ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def app():
    return load_app("tsver")


def test_space_lone_surrogate_in_pasted_text(app):
    with space_error():
        app.score_text(GOLD, PREDS.replace("It rains.", "It r\ud800ains."))


def test_space_table_with_too_few_columns(app):
    import pandas as pd

    table = pd.DataFrame([["Rainfall doubled.", "Supported", "supported"]],
                         columns=["claim", "gold verdict", "predicted verdict"])
    with space_error():
        app.score_table(table)


def test_space_deeply_nested_pasted_gold(app):
    with space_error():
        app.score_text(replace_line(GOLD, 2, deep_json(20_000)), PREDS)


def test_space_huge_year_in_table(app):
    import pandas as pd

    rows = [list(row) for row in app.TABLE_EXAMPLE]
    rows[0][4] = "rainfall: 2000-" + "9" * 400
    with space_error():
        app.score_table(pd.DataFrame(rows, columns=app.TABLE_HEADERS))


def test_space_empty_verdict_warns_in_notes(app):
    import pandas as pd

    rows = [list(row) for row in app.TABLE_EXAMPLE]
    rows[1][2] = ""
    output = app.score_table(pd.DataFrame(rows, columns=app.TABLE_HEADERS))
    notes = output[-2]  # (..., notes, downloads)
    assert isinstance(notes, str) and notes != "No warnings.", \
        f"an empty verdict (official: counted as Supported) gives no note: {notes!r}"


# -- second audit round: counts, echoed keys, rate limits, options, messages ------------------------

HUGE = 10 ** 400


def huge_record(value=HUGE):
    return dict(counts_for("x"), **{"support predicted evidence": value})


@pytest.mark.parametrize("value", [HUGE, 10 ** 9 + 1])
def test_module_huge_judge_counts_are_a_judge_failure_not_an_overflow(module, value):
    preds, refs = examples(3)
    result = module.compute(predictions=preds, references=refs, ev2r_judge=lambda c, r, p: huge_record(value))
    assert result["ev2r_f1"] is None and result["n_ev2r_failed"] == 3, result
    assert any("at most 1,000,000,000" in w for w in result["warnings"]), result["warnings"]


def test_largest_allowed_judge_count_is_scored(module):
    preds, refs = examples(3)
    result = module.compute(predictions=preds, references=refs, ev2r_judge=lambda c, r, p: huge_record(10 ** 9))
    assert result["n_ev2r_judged"] == 3 and result["ev2r_precision"] is not None


def test_huge_count_in_recorded_ev2r_file_is_located(tmp_path):
    record = json.loads(EV2R.splitlines()[1])
    record["ev2r_response"]["facts count reference evidence"] = HUGE
    gold, preds, ev2r = files(tmp_path, ev2r=replace_line(EV2R, 2, json.dumps(record)))
    assert_cli_error(cli(gold, preds, "--ev2r", ev2r), "tsver", ev2r, 2)


def test_pure_item_with_huge_counts_refused():
    from benchscore.tsver import scoring

    with pytest.raises(ValueError, match="at most 1,000,000,000"):
        scoring.claim_item("Supported", {}, None, ev2r=huge_record())


@pytest.mark.usefixtures("tsver_store")  # the default judge protocol reads the store
def test_http_judge_huge_counts_counted_as_failures(server, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    for claim in judged_claims():
        server.script[claim] = [{"content": fenced(huge_record())}] * 4
    result = judge_cli(server.base_url, tmp_path, "--json")
    assert_meaningful(result)
    out = json.loads(result.out)
    assert out["ev2r_f1"] is None and out["n_ev2r_failed"] == len(judged_claims()), out


@pytest.mark.usefixtures("tsver_store")  # the default judge protocol reads the store
def test_cache_entry_with_huge_counts_is_asked_again(server, tmp_path, monkeypatch):
    from benchscore.tsver import ev2r, http_judge

    monkeypatch.setenv(KEY_ENV, SECRET)
    judge = http_judge.OpenAIJudge(server.base_url, "m", api_key_env=KEY_ENV, cache_dir=tmp_path, progress=False)
    path = judge._cache_path(judge.cache_key("c", "r", "p"))
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"response": huge_record()}), encoding="utf-8")
    assert ev2r.validate_counts(judge("c", "r", "p")) == counts_for("c")
    assert len(server.requests) == 1


def escaped(text):
    """`text` as a JSON string body with every "s" written \\u0073 (JSON-equal, textually different)."""
    return text.replace("s", "\\u0073")


def echo_actions(claim):
    counts = counts_for(claim)
    body = json.dumps(counts)[:-1]
    return {
        "escaped_free_text": {"content": "```json\n" + body + f', "facts in predicted evidence": "{escaped(SECRET)}"}}\n```'},
        "escaped_count": {"content": "```json\n" + json.dumps(dict(counts, **{"support predicted evidence": 0}))[:-1]
                                     + f', "facts count predicted evidence": "{escaped(SECRET)}"}}\n```'},
        "escaped_key_as_key": {"content": "```json\n" + body + f', "{escaped(SECRET)}": 1}}\n```'},
        "free_text": {"content": f"I will not answer, {SECRET}"},
        "base64": {"content": "garbage " + base64.b64encode(SECRET.encode()).decode()},
        "base64_401": {"status": 401, "body": "bad key " + base64.b64encode(SECRET.encode()).decode()},
        "hex": {"content": "garbage " + SECRET.encode().hex()},
        "not_chat": {"raw": json.dumps({"echo": SECRET.encode().hex()})},
    }


@pytest.mark.parametrize("echo", ["escaped_free_text", "escaped_count", "escaped_key_as_key", "free_text", "base64",
                                  "base64_401", "hex", "not_chat"])
def test_key_echoed_escaped_or_encoded_never_written(server, tmp_path, monkeypatch, caplog, echo):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv(KEY_ENV, SECRET)
    for claim in judged_claims():
        server.script[claim] = [echo_actions(claim)[echo]] * 4
    result = judge_cli(server.base_url, tmp_path, "--json")
    assert_meaningful(result)
    written = everything_written(tmp_path, result, caplog)
    for form in (SECRET, escaped(SECRET), base64.b64encode(SECRET.encode()).decode(), SECRET.encode().hex()):
        assert form not in written, f"the key ({echo}) appears as {form!r} in {written.where(form)}"


@pytest.mark.usefixtures("tsver_store")  # the default judge protocol reads the store
def test_non_json_reply_text_is_never_shown(server, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    for claim in judged_claims():
        server.script[claim] = [{"content": "an unrelated reply ZZTOP"}] * 4
    result = judge_cli(server.base_url, tmp_path, "--json")
    assert_meaningful(result)
    assert "ZZTOP" not in result.out + result.err
    assert "not shown" in result.out


@pytest.mark.usefixtures("tsver_store")  # the default judge protocol reads the store
def test_huge_retry_after_gives_up_fast_as_rate_limited(server, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    for claim in judged_claims():
        server.script[claim] = [{"status": 429, "headers": {"Retry-After": "99999"}}] * 10
    result = judge_cli(server.base_url, tmp_path, "--json", "--judge-timeout", "3")
    assert_meaningful(result)
    out = json.loads(result.out)
    assert out["ev2r_f1"] is None
    assert any(w.startswith("Ev2R not available: rate limited") for w in out["warnings"]), out["warnings"]
    assert len(server.requests) <= len(judged_claims()), "a Retry-After beyond the deadline was retried"


@pytest.mark.usefixtures("tsver_store")  # the default judge protocol reads the store
def test_persistent_rate_limit_stops_the_run_after_a_few_claims(server, monkeypatch):
    from benchscore.tsver import ev2r, http_judge, scoring

    sleeps = []
    monkeypatch.setattr(http_judge.time, "sleep", sleeps.append)
    claims = [f"claim {i}" for i in range(8)]
    for claim in claims:
        server.script[claim] = [{"status": 429, "headers": {"Retry-After": "1"}}] * 10
    judge = http_judge.OpenAIJudge(server.base_url, "m", api_key_env=None, cache_dir=None, timeout=3.0, max_retries=3,
                               progress=False)
    outcomes = ev2r.run_judge(judge, [(c, "r", "p") for c in claims], concurrency=1)
    limited = http_judge.RATE_LIMITED_CLAIMS
    assert len(server.requests) == limited * 4 and max(sleeps) <= 3.0
    assert all(o.error.startswith("rate limited: ") for o in outcomes)
    assert all("not asked" in o.error for o in outcomes[limited:])
    stats = scoring.item_stats([G[0]] * len(claims), [None] * len(claims), [o.error for o in outcomes])
    assert scoring.aggregate(stats)["warnings"][-1].startswith("Ev2R not available: rate limited; ")


def test_support_above_facts_is_reproduced_and_warned(module):
    preds, refs = examples(2)
    record = {"facts count predicted evidence": 2, "support predicted evidence": 5,
              "facts count reference evidence": 4, "support reference evidence": 1}
    result = module.compute(predictions=preds, references=refs, ev2r_judge=lambda c, r, p: record)
    assert (result["ev2r_precision"], result["ev2r_recall"]) == (2.5, 1.25)  # official: sp/cp, sp/cr
    assert any("support count above their facts count (claims 0, 1)" in w for w in result["warnings"])


def test_support_above_facts_in_recorded_file_warned(tmp_path):
    record = json.loads(EV2R.splitlines()[0])
    record["ev2r_response"]["support predicted evidence"] = 99
    gold, preds, ev2r = files(tmp_path, ev2r=replace_line(EV2R, 1, json.dumps(record)))
    result = cli(gold, preds, "--ev2r", ev2r)
    out = json.loads(assert_cli_ok(result).out)
    assert any("support count above" in w for w in out["warnings"]), out["warnings"]
    assert "support count above" in result.err


@pytest.mark.parametrize("option", [{"strict": "no"}, {"strict": 1}, {"return_per_claim": "yes"}])
def test_module_bool_options_must_be_bools(module, option):
    preds, refs = examples(2)
    with pytest.raises(TypeError, match=f"{next(iter(option))} must be True or False"):
        module.compute(predictions=preds, references=refs, **option)


def test_pure_aggregate_strict_must_be_a_bool():
    from benchscore.tsver import scoring

    with pytest.raises(TypeError, match="strict must be True or False, found 'no'"):
        scoring.aggregate([], strict="no")


def test_partial_judge_failure_warns_over_how_many_claims(module):
    preds, refs = examples(5)

    def judge(claim, reference, prediction):
        from benchscore.tsver.ev2r import JudgeError

        if claim == "claim 2":
            raise JudgeError("the server said no")
        return counts_for(claim)

    result = module.compute(predictions=preds, references=refs, ev2r_judge=judge)
    assert result["n_ev2r_failed"] == 1 and result["ev2r_f1"] is not None
    assert ("Ev2R over 4 of 5 claims: 1 left out for want of a usable judge record, as the official pipeline and "
            "scorer leave them out (claims 2; first failure: the server said no)") in result["warnings"]


def test_prediction_without_claim_key_says_what_is_expected(tmp_path):
    bad = json.loads(PREDS.splitlines()[0])
    del bad["Claim"]
    gold, preds = files(tmp_path, preds=replace_line(PREDS, 1, json.dumps(bad)))
    result = cli(gold, preds)
    assert_cli_error(result, "tsver", preds, 1)
    assert "has no 'Claim' key; expected " in result.err


@pytest.mark.usefixtures("tsver_store")  # the default judge protocol reads the store
def test_non_utf8_cache_entry_gives_a_located_message(server, tmp_path, monkeypatch, caplog):
    from benchscore.tsver import ev2r, http_judge

    judge = http_judge.OpenAIJudge(server.base_url, "m", api_key_env=None, cache_dir=tmp_path, progress=False)
    path = judge._cache_path(judge.cache_key("c", "r", "p"))
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"response":\n "\xff\xfe"}')
    with caplog.at_level(logging.WARNING):
        assert ev2r.validate_counts(judge("c", "r", "p")) == counts_for("c")
    assert f"{path}:2: byte 0xff at column 3 is not UTF-8" in caplog.text, caplog.text


@pytest.mark.parametrize("which", ["gold", "preds", "ev2r"])
def test_per_claim_report_over_an_input_is_refused_before_writing(tmp_path, which):
    gold, preds, ev2r = files(tmp_path, ev2r=EV2R)
    target = {"gold": gold, "preds": preds, "ev2r": ev2r}[which]
    before = pathlib.Path(target).read_bytes()
    result = cli(gold, preds, "--ev2r", ev2r, "--per-claim", target)
    assert_cli_error(result, "tsver", target, 1)
    assert "would overwrite the input file" in result.err
    assert pathlib.Path(target).read_bytes() == before
