"""The official-data store (`benchscore.data`, `benchscore data ...`, `official:<split>`).

Everything runs against loopback servers started here: a GitHub-raw-style mirror built from
../shared/data at test time (hard links, in the `<owner>/<repo>/<commit>/<path>` layout) and a fake
Hub for TempBench. TempBench's real files are not in ../shared, so the fake Hub serves
TempBench-*shaped* synthetic files (the public fixtures' questions, a made-up card and addendum).
"""

import errno
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys

import pytest

from benchscore import data
from benchscore.cli import main
from conftest import shared_path
from data_mirror_server import FakeHub
from data_mirror_server import MirrorServer

MCTACO = data.BENCHMARKS["mctaco"]
WEBNLG = data.BENCHMARKS["webnlg"]
TSVER = data.BENCHMARKS["tsver"]


def store_state(path, bench, file_name):
    """'present', 'missing' or 'corrupt': the store's copy of a pinned file against its pin."""
    entry = bench.files[file_name]
    return data.store.state(path, entry.sha256, entry.size)


def mirror_path(bench, repo_path):
    """The URL path (decoded) of a pinned file on the mirror."""
    return f"{bench.owner}/{bench.repo}/{bench.commit}/{repo_path}"


@pytest.fixture(scope="module")
def shared_data():
    return shared_path("data")


@pytest.fixture(scope="module")
def mirror(shared_data, tmp_path_factory):
    """A loopback mirror of the official layout, made of hard links into ../shared/data (never written)."""
    root = tmp_path_factory.mktemp("mirror")
    for bench in (b for b in data.BENCHMARKS.values() if b.host == "github"):
        entries = list(bench.files.values())
        for file_set in bench.file_sets.values():
            entries += file_set.files
        for entry in entries:
            target = root / mirror_path(bench, entry.path)
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(shared_data / bench.name / entry.shared, target)
            except OSError:
                shutil.copyfile(shared_data / bench.name / entry.shared, target)
    server = MirrorServer(root).start()
    yield server
    server.stop()


@pytest.fixture
def store(tmp_path, monkeypatch, mirror):
    """An empty store in tmp_path, fetching from the loopback mirror; HF_HUB_OFFLINE=1 as in every test."""
    mirror.faults.clear()
    mirror.gets.clear()
    monkeypatch.setenv("BENCHSCORE_DATA", str(tmp_path / "store"))
    monkeypatch.setenv("BENCHSCORE_DATA_MIRROR", mirror.url)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("BENCHSCORE_OFFLINE", raising=False)
    return tmp_path / "store"


def stored_files(store):
    """Every file in the store but the lock files."""
    if not store.exists():
        return []
    return sorted(str(p.relative_to(store)) for p in store.rglob("*") if p.is_file() and ".locks" not in p.parts)


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err, command="data"):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"benchscore {command}: error: "), err
    assert "Traceback" not in err
    return lines[0]


# ------------------------------------------------------------------ done-when: fetch, then score


@pytest.mark.parity
def test_fetch_mctaco_then_official_test_gives_the_papers_numbers(store, mirror, shared_data, capsys):
    code, out, _ = run_cli(capsys, "data", "fetch", "mctaco")
    assert code == 0
    bert = str(shared_data / "mctaco/baseline_outputs/bert.norm.output.txt")
    code, official, _ = run_cli(capsys, "mctaco", "--gold", "official:test", "--predictions", bert)
    assert code == 0
    code, plain, _ = run_cli(capsys, "mctaco", "--gold", str(shared_data / "mctaco/test_9442.tsv"), "--predictions", bert)
    assert official == plain == "Strict Acc.: 0.4271771771771772\nAvg F1: 0.6993028476901907\n"  # 42.72 / 69.93
    expected = json.loads((shared_data / "mctaco/expected_official.json").read_text())["runs"][3]
    assert expected["predictions"].endswith("bert.norm.output.txt") and expected["em"] == 0.4271771771771772
    assert len(mirror.gets) == 3  # dev, test, readme: fetched once, then read from the store


@pytest.mark.parity
def test_webnlg_official_en_equals_the_plain_reference_file(store, shared_data, capsys, tmp_path):
    assert run_cli(capsys, "data", "fetch", "webnlg")[0] == 0  # names with spaces and parentheses
    candidate = str(shared_data / "webnlg/submissions/en/bt5/all.xml")
    a, b = tmp_path / "official.json", tmp_path / "plain.json"
    code, out_official, _ = run_cli(capsys, "webnlg", "official:en", candidate, str(a), "--no-progress")
    assert code == 0
    run_cli(capsys, "webnlg", str(shared_data / "webnlg/references/en_all.xml"), candidate, str(b), "--no-progress")
    assert a.read_bytes() == b.read_bytes()
    ours, expected = json.loads(a.read_text()), json.loads((shared_data / "webnlg/expected/en_bt5.json").read_text())
    for scheme in ("Ent_type", "Partial", "Strict", "Exact"):
        for key in ("Correct", "Incorrect", "Partial", "Missed", "Spurious"):
            assert ours["Total_scores"][scheme][key] == expected["Total_scores"][scheme][key]
        for key in ("Precision", "Recall", "F1"):
            assert ours["Total_scores"][scheme][key] == pytest.approx(expected["Total_scores"][scheme][key], abs=1e-12)


@pytest.mark.parity
@pytest.mark.parametrize("split, predictions, expected", [
    ("test", "pred_test_wrong_verdict.jsonl", "perclaim_test_wrong_verdict.json"),
    ("dev", "pred_dev_perturbed_seed12345.jsonl", "perclaim_dev_perturbed_seed12345.json"),
])
def test_tsver_official_split_equals_the_plain_gold_file(store, shared_data, capsys, split, predictions, expected):
    assert run_cli(capsys, "data", "fetch", "tsver")[0] == 0
    predictions = str(shared_data / "tsver/predictions" / predictions)
    code, official, _ = run_cli(capsys, "tsver", "--gold", f"official:{split}", "--predictions", predictions, "--json")
    assert code == 0
    plain = run_cli(capsys, "tsver", "--gold", str(shared_data / f"tsver/tsver_{split}.jsonl"), "--predictions",
                    predictions, "--json")[1]
    assert official == plain
    result = json.loads(official)
    reference = json.loads((shared_data / "tsver/expected" / expected).read_text())["aggregate_full_precision"]
    assert result["verdict_accuracy"] == pytest.approx(reference["verdict_accuracy"], abs=1e-12)
    assert result["tscs"] == pytest.approx(reference["trange_Average TSCS"], abs=1e-12)


def test_compare_accepts_official(store, shared_data, capsys):
    assert run_cli(capsys, "data", "fetch", "mctaco", "--file", "test")[0] == 0
    bert = str(shared_data / "mctaco/baseline_outputs/bert.norm.output.txt")
    code, out, _ = run_cli(capsys, "compare", "mctaco", "--gold", "official:test", "--predictions", bert,
                           "--n-resamples", "50")
    assert code == 0
    assert out == run_cli(capsys, "compare", "mctaco", "--gold", str(shared_data / "mctaco/test_9442.tsv"),
                          "--predictions", bert, "--n-resamples", "50")[1]


def test_loaders_read_official_splits(store, shared_data, capsys):
    from benchscore.mctaco.loader import load_mctaco
    from benchscore.tsver.loader import gold_dataset
    from benchscore.tsver.loader import load_tsver
    from benchscore.webnlg_rdf.loader import load_dataset

    assert run_cli(capsys, "data", "fetch", "mctaco", "webnlg", "tsver")[0] == 0
    mctaco = load_mctaco()  # no paths: both official splits
    assert (mctaco["validation"].num_rows, mctaco["test"].num_rows) == (3783, 9442)
    assert gold_dataset("official:dev").num_rows == 24
    assert {k: v.num_rows for k, v in load_tsver("official:").items()} == {"test": 280, "dev": 24}
    assert load_dataset("official:en_seen").num_rows == 606


# ------------------------------------------------------------------ failures leave nothing behind


def test_tampered_file_exits_2_and_leaves_nothing(store, mirror, capsys):
    mirror.faults[mirror_path(MCTACO, "dataset/test_9442.tsv")] = "tamper"
    code, _, err = run_cli(capsys, "data", "fetch", "mctaco", "--file", "test")
    assert code == 2
    assert "sha256" in one_error_line(err) and "not stored" in err
    assert stored_files(store) == []
    # the same through official: on first use (online), with one line and exit 2
    code, _, err = run_cli(capsys, "mctaco", "--gold", "official:test", "--predictions", "x.txt")
    assert code == 2 and "benchscore data fetch mctaco" in one_error_line(err, "mctaco")  # offline: names the command
    assert stored_files(store) == []


def test_tampered_file_on_first_use_online(store, mirror, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    mirror.faults[mirror_path(MCTACO, "dataset/test_9442.tsv")] = "tamper"
    code, _, err = run_cli(capsys, "mctaco", "--gold", "official:test", "--predictions", "x.txt")
    assert code == 2 and "sha256" in one_error_line(err.split("\n", 1)[1], "mctaco")  # after the "fetching" note
    assert [f for f in stored_files(store) if "test_9442" in f] == []


@pytest.mark.parametrize("fault, words", [
    ("truncate", "cut short"),
    ("short", "truncated"),
    ("html", "HTML page"),
    ("redirect-scheme", "another scheme"),
    ("404", "HTTP 404"),
])
def test_bad_downloads_give_one_clear_line_and_no_partial_file(store, mirror, capsys, fault, words):
    mirror.faults[mirror_path(MCTACO, "dataset/dev_3783.tsv")] = fault
    code, _, err = run_cli(capsys, "data", "fetch", "mctaco", "--file", "dev")
    assert code == 2
    assert words in one_error_line(err)
    assert stored_files(store) == []


def test_same_scheme_redirect_is_followed(store, mirror, capsys):
    mirror.faults[mirror_path(MCTACO, "dataset/readme.txt")] = "redirect"
    assert run_cli(capsys, "data", "fetch", "mctaco", "--file", "readme")[0] == 0
    assert store_state(data.path("mctaco", "readme"), MCTACO, "readme") == "present"


def test_interrupted_download_leaves_no_partial_file(store, mirror, capsys, monkeypatch):
    from benchscore.data import http  # (loaded on the first fetch)

    real = http.chunks

    def interrupted(url, what, bar):
        for i, chunk in enumerate(real(url, what, bar)):
            if i == 3:
                raise KeyboardInterrupt
            yield chunk

    monkeypatch.setattr(http, "chunks", interrupted)
    code, _, err = run_cli(capsys, "data", "fetch", "mctaco", "--file", "test")
    assert code == 130 and "interrupted" in err and "Traceback" not in err
    assert stored_files(store) == []


def test_full_disk_gives_a_clear_error_and_no_partial_file(store, capsys, monkeypatch):
    real_fdopen = os.fdopen

    class FullDisk:
        def __init__(self, f):
            self.f, self.n = f, 0

        def write(self, chunk):
            self.n += len(chunk)
            if self.n > 200_000:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return self.f.write(chunk)

        def __getattr__(self, name):
            return getattr(self.f, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

    monkeypatch.setattr(data.store.os, "fdopen", lambda fd, mode: FullDisk(real_fdopen(fd, mode)))
    code, _, err = run_cli(capsys, "data", "fetch", "mctaco", "--file", "test")
    monkeypatch.undo()
    assert code == 2 and "no space left" in one_error_line(err)
    assert stored_files(store) == []


def test_two_processes_fetching_the_same_file_download_it_once(store, mirror, tmp_path):
    target = mirror_path(MCTACO, "dataset/test_9442.tsv")
    mirror.faults[target] = "slow"
    env = dict(os.environ, BENCHSCORE_DATA=str(store), BENCHSCORE_DATA_MIRROR=mirror.url)
    command = [sys.executable, "-m", "benchscore", "data", "fetch", "mctaco", "--file", "test", "--no-progress"]
    procs = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], results
    assert mirror.gets.count(target) == 1  # the second waited for the lock and found the file intact
    assert store_state(data.path("mctaco", "test"), MCTACO, "test") == "present"
    assert not [f for f in stored_files(store) if f.endswith(".part")]


# ------------------------------------------------------------------ offline, corrupt, list, path, import


@pytest.mark.parametrize("variable", ["BENCHSCORE_OFFLINE", "HF_HUB_OFFLINE"])
def test_offline_names_the_fetch_command_and_touches_no_network(store, mirror, capsys, monkeypatch, variable):
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setenv(variable, "1")
    code, _, err = run_cli(capsys, "tsver", "--gold", "official:test", "--predictions", "p.jsonl")
    assert code == 2
    line = one_error_line(err, "tsver")
    assert variable in line and "`benchscore data fetch tsver`" in line
    assert mirror.gets == [] and stored_files(store) == []


def test_first_use_fetches_when_online(store, mirror, shared_data, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    predictions = str(shared_data / "mctaco/predictions/dev_all_yes.txt")
    code, out, err = run_cli(capsys, "mctaco", "--gold", "official:dev", "--predictions", predictions)
    assert code == 0 and out == "Strict Acc.: 0.13368983957219252\nAvg F1: 0.4878085034566718\n"
    assert "fetching" in err
    assert mirror.gets == [mirror_path(MCTACO, "dataset/dev_3783.tsv")]


def test_explicit_fetch_refused_with_benchscore_offline(store, capsys, monkeypatch):
    monkeypatch.setenv("BENCHSCORE_OFFLINE", "1")
    code, _, err = run_cli(capsys, "data", "fetch", "mctaco")
    assert code == 2 and "BENCHSCORE_OFFLINE=1" in one_error_line(err)


def test_corrupt_store_file_is_reported_refused_and_repaired(store, mirror, capsys):
    assert run_cli(capsys, "data", "fetch", "mctaco", "--file", "dev")[0] == 0
    path = pathlib.Path(data.path("mctaco", "dev"))
    path.write_bytes(path.read_bytes().replace(b"yes", b"no!", 1))
    code, out, _ = run_cli(capsys, "data", "list", "mctaco")
    assert code == 0 and any(line.split()[:2] == ["dev", "corrupt"] for line in out.splitlines())
    code, _, err = run_cli(capsys, "data", "path", "mctaco", "dev")
    assert code == 2 and "corrupt" in one_error_line(err)
    code, _, err = run_cli(capsys, "mctaco", "--gold", "official:dev", "--predictions", "p.txt")
    assert code == 2 and "--force" in one_error_line(err, "mctaco")  # offline: never silently used
    assert run_cli(capsys, "data", "fetch", "mctaco", "--file", "dev")[0] == 0  # repaired
    assert store_state(path, MCTACO, "dev") == "present"


def test_list_and_path_show_sources_licences_and_citations(store, capsys):
    assert run_cli(capsys, "data", "fetch", "tsver")[0] == 0
    code, out, _ = run_cli(capsys, "data", "list")
    assert code == 0
    assert f"store: {store}" in out
    for bench in data.BENCHMARKS.values():
        assert bench.source in out and bench.cite in out
    assert "CC BY-SA 4.0" in out and "CC BY-NC-SA 4.0" in out
    rows = {(r["benchmark"], r["file"]): r for r in json.loads(run_cli(capsys, "data", "list", "--json")[1])["files"]}
    assert rows["tsver", "test"]["state"] == "present" and rows["mctaco", "test"]["state"] == "missing"
    assert rows["tsver", "time_series"]["state"] == "missing"
    code, out, _ = run_cli(capsys, "data", "path", "tsver", "test")
    assert code == 0 and out.strip() == data.path("tsver", "test") and out.strip().endswith("data/tsver_test.jsonl")
    source = (store / "tsver" / "SOURCE.md").read_text("utf-8")
    assert "CC BY-SA 4.0" in source and "strong-vlachos-2025-tsver" in source and TSVER.files["test"].sha256 in source
    assert (pathlib.Path(data.path("tsver", "licence"))).read_text("utf-8").startswith("Attribution-ShareAlike 4.0")


def test_tsver_prompt_template_is_fetched_imported_and_checked(store, mirror, shared_data, capsys, monkeypatch,
                                                               tmp_path):
    """The Ev²R prompt file (read as data by tsver/prompt_template.py) is a default tsver file like the others."""
    entry = TSVER.files["prompt_templates"]
    assert TSVER.default == ("test", "dev", "licence", "prompt_templates")
    shared = (shared_data / "tsver" / entry.shared).read_bytes()
    code, out, _ = run_cli(capsys, "data", "fetch", "tsver")
    assert code == 0 and [line.split(":")[0] for line in out.splitlines()[:-1]] == [
        "tsver test", "tsver dev", "tsver licence", "tsver prompt_templates"]
    stored = pathlib.Path(data.resolve("tsver", "official:prompt_templates"))
    assert stored == pathlib.Path(data.path("tsver", "prompt_templates")) and stored.read_bytes() == shared
    assert str(stored).endswith(f"{TSVER.commit}/baseline/prompt_templates.py")
    assert mirror_path(TSVER, entry.path) in mirror.gets
    # a tampered stored copy (same size) is refused with the ChecksumError line, offline and by `data path`
    stored.write_bytes(shared.replace(b"import", b"imp0rt", 1))
    with pytest.raises(data.ChecksumError) as caught:
        data.resolve("tsver", "official:prompt_templates")
    line = f"{stored} does not match its pinned sha256 (corrupt); run `benchscore data fetch tsver --force`"
    assert str(caught.value) == line
    code, _, err = run_cli(capsys, "data", "path", "tsver", "prompt_templates")
    assert code == 2 and one_error_line(err) == f"benchscore data: error: {line}"
    # `data import` picks it up from ../shared/data/tsver/baseline/
    monkeypatch.setenv("BENCHSCORE_DATA", str(tmp_path / "imported"))
    code, out, _ = run_cli(capsys, "data", "import", str(shared_data), "tsver", "--no-time-series")
    assert code == 0 and "prompt_templates" in out
    assert pathlib.Path(data.resolve("tsver", "official:prompt_templates")).read_bytes() == shared


def test_unknown_names_are_one_line_errors(store, capsys):
    code, _, err = run_cli(capsys, "data", "fetch", "squad")
    assert code == 2 and "unknown benchmark 'squad'" in one_error_line(err)
    code, _, err = run_cli(capsys, "data", "path", "mctaco", "train")
    assert code == 2 and "no official file 'train'" in one_error_line(err)
    code, _, err = run_cli(capsys, "data", "fetch")
    assert code == 2 and "--all" in one_error_line(err)


def test_time_series_with_non_ascii_names(store, mirror, capsys):
    code, _, _ = run_cli(capsys, "data", "fetch", "tsver", "--with-time-series", "--no-progress")
    assert code == 0
    folder = pathlib.Path(data.path("tsver", "time_series"))
    names = sorted(os.listdir(folder))
    assert len(names) == 400 and any("₂" in n for n in names) and any("(" in n for n in names)
    from benchscore.tsver.loader import load_time_series

    assert load_time_series("official:time_series", "access-to-electricity").num_rows > 0
    assert run_cli(capsys, "data", "path", "tsver", "time_series")[1].strip() == str(folder)


def test_import_fills_the_store_from_shared_without_network(store, mirror, shared_data, capsys, monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("network access")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    code, out, _ = run_cli(capsys, "data", "import", str(shared_data))
    assert code == 0 and "mctaco: dev, test, readme" in out
    rows = data.status(["mctaco", "webnlg", "tsver"])
    assert all(r["state"] == "present" for r in rows), [r for r in rows if r["state"] != "present"]
    # and everything after that reads the store only
    bert = str(shared_data / "mctaco/baseline_outputs/bert.norm.output.txt")
    assert run_cli(capsys, "mctaco", "--gold", "official:test", "--predictions", bert)[1].startswith(
        "Strict Acc.: 0.4271771771771772")
    assert data.resolve("mctaco", "plain/path.tsv") == "plain/path.tsv"
    assert mirror.gets == []


def test_import_refuses_a_wrong_copy(store, tmp_path, shared_data, capsys):
    copy = tmp_path / "copy" / "mctaco"
    copy.mkdir(parents=True)
    (copy / "dev_3783.tsv").write_bytes((shared_data / "mctaco/dev_3783.tsv").read_bytes()[:-10])
    code, _, err = run_cli(capsys, "data", "import", str(tmp_path / "copy"))
    assert code == 2 and "truncated" in one_error_line(err)
    assert stored_files(store) == []


def test_plain_paths_never_import_or_touch_the_store(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHSCORE_DATA", str(tmp_path / "store"))
    for value in ("a.tsv", pathlib.Path("b.tsv"), None, "x/official:test"):
        assert data.resolve("mctaco", value) == value
    assert data.resolve_split("tempbench", "q.jsonl", "test") == ("q.jsonl", "test")
    assert not (tmp_path / "store").exists()


# ------------------------------------------------------------------ TempBench from a (fake) Hub


COMMIT_OLD = "1" * 40
COMMIT_NEW = "2" * 40


@pytest.fixture(scope="module")
def hub(shared_data):
    fixtures = shared_data / "tempbench/fixtures"
    questions = (fixtures / "questions_point.jsonl").read_bytes()
    older = b"".join(questions.splitlines(keepends=True)[:100])
    synthetic = {  # TempBench-shaped, not the release (which ../shared does not hold)
        "benchmark/benchmark_labelled.jsonl": questions,
        "benchmark/benchmark.jsonl": questions,
        "benchmark/functional_negatives.jsonl": b'{"id": "tbs-pub-point-1hop-0001", "S_dist": false, "S_stale": true}\n',
        "v1.0.1-addendum.md": b"# synthetic addendum for the tests\n",
        "README.md": b"---\nlicense: cc-by-4.0\n---\n# synthetic dataset card for the tests\n",
    }
    files = {COMMIT_NEW: synthetic, COMMIT_OLD: {**synthetic, "benchmark/benchmark_labelled.jsonl": older}}
    server = FakeHub("Guen/tempbench", files, {"main": COMMIT_NEW, "v1.0.0": COMMIT_OLD}).start()
    yield server
    server.stop()


def fetch_tempbench(store, hub, tmp_path, *extra):
    env = dict(os.environ, BENCHSCORE_DATA=str(store), HF_ENDPOINT=hub.url, HF_HUB_OFFLINE="0",
               HF_HOME=str(tmp_path / "hf-home"), HF_HUB_DISABLE_TELEMETRY="1")
    env.pop("BENCHSCORE_TEMPBENCH_REVISION", None)
    return subprocess.run([sys.executable, "-m", "benchscore", "data", "fetch", "tempbench", "--no-progress", *extra],
                          env=env, capture_output=True, text=True, timeout=120)


def test_tempbench_from_the_hub_records_its_revision_in_store_and_signature(store, hub, shared_data, tmp_path, capsys):
    proc = fetch_tempbench(store, hub, tmp_path)
    assert proc.returncode == 0, proc.stderr
    record = json.loads((store / "tempbench" / "revision.json").read_text())
    assert record["requested"] == "main" and record["commit"] == COMMIT_NEW
    assert set(record["files"]) == {"labelled", "ids", "functional_negatives", "addendum", "card"}
    assert "cc-by-4.0" in (store / "tempbench" / "SOURCE.md").read_text() and COMMIT_NEW in (
        store / "tempbench" / "SOURCE.md").read_text()
    evidence = str(shared_data / "tempbench/fixtures/evidence_oracle_label.jsonl")
    code, official, _ = run_cli(capsys, "tempbench", "--questions", "official:test", "--evidence", evidence, "--json")
    assert code == 0
    plain = run_cli(capsys, "tempbench", "--questions", str(shared_data / "tempbench/fixtures/questions_point.jsonl"),
                    "--split", "test", "--evidence", evidence, "--json")[1]
    official, plain = json.loads(official), json.loads(plain)
    assert official.pop("signature") == plain.pop("signature") + "|data:Guen/tempbench@" + COMMIT_NEW[:12]
    assert official == plain and official["n_questions"] == 201
    assert data.revision_of(data.path("tempbench", "test")) == "Guen/tempbench@" + COMMIT_NEW
    code, _, err = run_cli(capsys, "tempbench", "--questions", "official:test", "--split", "train", "--evidence", evidence)
    assert code == 2 and "split" in one_error_line(err, "tempbench")
    code, out, _ = run_cli(capsys, "data", "list", "tempbench")
    assert "cc-by-4.0 (from the dataset card)" in out and COMMIT_NEW in out

    proc = fetch_tempbench(store, hub, tmp_path, "--revision", "v1.0.0")  # a pinned revision
    assert proc.returncode == 0, proc.stderr
    assert json.loads((store / "tempbench" / "revision.json").read_text())["commit"] == COMMIT_OLD
    code, out, _ = run_cli(capsys, "tempbench", "--questions", "official:labelled", "--evidence", evidence, "--json")
    assert json.loads(out)["signature"].endswith("|data:Guen/tempbench@" + COMMIT_OLD[:12])
    assert json.loads(out)["n_questions"] == 100


def test_tempbench_tampered_on_the_hub_leaves_nothing(store, hub, tmp_path):
    hub.tamper.add("benchmark/benchmark_labelled.jsonl")
    try:
        proc = fetch_tempbench(store, hub, tmp_path)
    finally:
        hub.tamper.clear()
    assert proc.returncode == 2
    assert "checksum" in one_error_line(proc.stderr) and "Traceback" not in proc.stderr
    assert stored_files(store) == []


def test_tempbench_offline_errors_name_the_command(store, capsys, shared_data):
    code, _, err = run_cli(capsys, "data", "fetch", "tempbench")
    assert code == 2 and "HF_HUB_OFFLINE=1" in one_error_line(err)
    code, _, err = run_cli(capsys, "tempbench", "--questions", "official:test", "--evidence", "e.jsonl")
    assert code == 2 and "benchscore data fetch tempbench" in one_error_line(err, "tempbench")


def test_unreachable_mirror_and_bad_mirror_urls(store, capsys, monkeypatch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    monkeypatch.setenv("BENCHSCORE_DATA_MIRROR", f"http://127.0.0.1:{port}")
    code, _, err = run_cli(capsys, "data", "fetch", "mctaco", "--file", "readme")
    assert code == 2 and "cannot reach" in one_error_line(err)
    monkeypatch.setenv("BENCHSCORE_DATA_MIRROR", "file:///etc")
    code, _, err = run_cli(capsys, "data", "fetch", "mctaco", "--file", "readme")
    assert code == 2 and "http:// or https://" in one_error_line(err)
    assert stored_files(store) == []


@pytest.mark.parity
def test_parity_through_a_store_filled_from_shared(shared_data, tmp_path, monkeypatch, capsys):
    """What CI does: a store filled from ../shared, then the official files read through it."""
    from conftest import official_path

    monkeypatch.setenv("BENCHSCORE_DATA", str(tmp_path / "store"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(pytest.skip.Exception):
        official_path("mctaco", "test")
    assert data.fill_from(shared_data, ["mctaco"], skip_sets=("time_series",)) == {"mctaco": ["dev", "test", "readme"]}
    gold = official_path("mctaco", "test")
    assert gold.read_bytes() == (shared_data / "mctaco/test_9442.tsv").read_bytes()
    for run in json.loads((shared_data / "mctaco/expected_official.json").read_text())["runs"]:
        split = "test" if run["gold"] == "test_9442.tsv" else "dev"
        out = run_cli(capsys, "mctaco", "--gold", f"official:{split}", "--predictions",
                      str(shared_data / "mctaco" / run["predictions"]), "--json")[1]
        result = json.loads(out)
        assert (result["em"], result["f1"]) == (run["em"], run["f1"])


def test_training_example_reads_an_official_split(shared_data, tmp_path, monkeypatch):
    pytest.importorskip("transformers")
    pytest.importorskip("torch")
    import importlib.util

    monkeypatch.setenv("BENCHSCORE_DATA", str(tmp_path / "store"))
    data.fill_from(shared_data, ["tsver"], skip_sets=("time_series",))
    spec = importlib.util.spec_from_file_location(
        "train_tsver", pathlib.Path(__file__).resolve().parent.parent / "scripts" / "train_tsver.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    monkeypatch.chdir(tmp_path)
    metrics = script.main(["--data", "official:dev", "--epochs", "1"])
    assert metrics["eval_n_claims"] == 24


def test_import_from_a_mirror_layout(store, mirror, capsys):
    code, out, _ = run_cli(capsys, "data", "import", mirror.root, "webnlg")
    assert code == 0 and out.startswith("webnlg: en, en_seen, en_unseen_entities, en_unseen_categories, ru")
    assert mirror.gets == []


def test_fetch_all_gets_every_github_benchmark_and_says_why_tempbench_is_not(store, capsys):
    code, out, err = run_cli(capsys, "data", "fetch", "--all", "--no-progress")
    assert code == 2 and "HF_HUB_OFFLINE=1" in one_error_line(err)  # the Hub is off here; GitHub files are fine
    rows = data.status(["mctaco", "webnlg", "tsver"])
    assert {r["state"] for r in rows if not r.get("optional") and r["file"] not in ("metadata", "country_codes")} \
        == {"present"}


def test_time_series_failure_leaves_no_partial_file(store, mirror, capsys):
    name = TSVER.file_sets["time_series"].files[7].path
    mirror.faults[mirror_path(TSVER, name)] = "tamper"
    code, _, err = run_cli(capsys, "data", "fetch", "tsver", "--with-time-series", "--no-progress")
    assert code == 2 and "sha256" in one_error_line(err)
    assert not [f for f in stored_files(store) if f.endswith(".part") or f.endswith(name.rsplit("/", 1)[1])]


def test_the_network_modules_load_only_to_fetch():
    """Every command imports the data store (to resolve official: paths); http.client, urllib.request, ssl
    and email are loaded by the first fetch only (~8 MiB a streaming command would otherwise carry)."""
    code = ("import sys, benchscore.data, benchscore.tempbench_trp.files, benchscore.webnlg_rdf.files\n"
            "print(sorted({'http.client', 'urllib.request', 'ssl', 'email'} & set(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
