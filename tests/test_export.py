"""`benchscore export <bench>` (issue 22): a saved result as the Hub's `.eval_results` YAML (read back
with huggingface_hub's own parser), an Every Eval Ever record (validated against EEE's schemas in
../shared), a draft eval.yaml, and a push to a model repository on a loopback fake Hub."""

import json
import os
import subprocess
import sys

import pytest
import yaml

import benchscore
from benchscore import cli
from conftest import METRICS, REPO, shared_path
from fake_hub_upload import FakeUploadHub

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def mctaco_table(tmp_path_factory):
    path = tmp_path_factory.mktemp("table") / "table.json"
    systems = [shared_path("data", "mctaco", "baseline_outputs", f"{n}.output.txt") for n in ("bert.norm", "roberta")]
    argv = ["table", "mctaco", "--gold", "official:test", "--n-resamples", "200", "--format", "json", "-o", str(path)]
    for system, name in zip(systems, ("BERT", "RoBERTa")):
        argv += ["--predictions", str(system), "--name", name]
    assert cli.main(argv) == 0
    return path


def single_run(capsys, tmp_path, bench):
    """`benchscore <bench> --json` on the bundled example, saved."""
    folder = METRICS / benchscore.benchmark(bench).folder / "examples"
    argv = {"mctaco": ["--gold", folder / "example.tsv", "--predictions", folder / "example_predictions.txt", "--json"],
            "tempbench": ["--questions", folder / "questions.jsonl", "--evidence", folder / "evidence.jsonl", "--json"],
            "webnlg": [folder / "refs.xml", folder / "cands.xml", "--json", "--no-progress"],
            "tsver": ["--gold", folder / "gold.jsonl", "--predictions", folder / "predictions.jsonl", "--ev2r",
                      folder / "ev2r.jsonl", "--json"]}[bench]
    code, out, err = run(capsys, bench, *map(str, argv))
    assert code == 0, err
    path = tmp_path / f"{bench}.json"
    path.write_text(out, encoding="utf-8")
    return path, json.loads(out)


def test_eval_results_yaml_parses_with_huggingface_hub(mctaco_table, capsys, tmp_path):
    from huggingface_hub import parse_eval_result_entries

    code, out, err = run(capsys, "export", "mctaco", str(mctaco_table), "--system", "RoBERTa", "--eval-results",
                         str(tmp_path / "model"), "--date", "2026-12-02", "--source", "https://example.org/logs",
                         "--source-name", "logs")
    assert code == 0, err
    path = tmp_path / "model" / ".eval_results" / "mctaco.yaml"
    assert out.strip() == str(path)
    text = path.read_text(encoding="utf-8")
    assert "date: '2026-12-02'" in text  # quoted: a bare date would be read back as a date, not the ISO string
    entries = parse_eval_result_entries(yaml.safe_load(text))
    table = json.loads(mctaco_table.read_text())
    row = next(r for r in table["rows"] if r["system"] == "RoBERTa")
    assert [(e.dataset_id, e.task_id) for e in entries] == [("CogComp/mc_taco", "mc_taco_em"),
                                                             ("CogComp/mc_taco", "mc_taco_f1")]
    assert [e.value for e in entries] == [row["metrics"]["em"]["value"], row["metrics"]["f1"]["value"]]
    assert {e.notes for e in entries} == {table["signature"]} and {e.source_url for e in entries} == {
        "https://example.org/logs"} and {e.date for e in entries} == {"2026-12-02"}


def test_a_tempbench_result_carries_its_dataset_revision(capsys, tmp_path):
    path, result = single_run(capsys, tmp_path, "tempbench")
    result["signature"] += "|data:Guen/tempbench@0123456789ab"  # as scored from the store's Hub copy
    path.write_text(json.dumps(result), encoding="utf-8")
    code, _, err = run(capsys, "export", "tempbench", str(path), "--eval-results", str(tmp_path), "--date",
                       "2026-12-02T10:00:00Z")
    assert code == 0, err
    from huggingface_hub import parse_eval_result_entries

    entries = parse_eval_result_entries(yaml.safe_load((tmp_path / ".eval_results" / "tempbench.yaml").read_text()))
    assert {e.dataset_revision for e in entries} == {"0123456789ab"} and len(entries) == 4
    assert [e.value for e in entries] == [result[k] for k in ("TRP_macro", "TRP_micro", "CCR", "coverage")]


def eee_validators():
    import jsonschema

    folder = shared_path("external", "every-eval-ever-schemas")
    return {name: jsonschema.Draft7Validator(json.loads((folder / f"{name}.schema.json").read_text()))
            for name in ("eval", "instance_level_eval")}


@pytest.mark.parametrize("bench", ["mctaco", "tempbench", "webnlg", "tsver"])
def test_eee_records_validate_against_the_schemas(bench, capsys, tmp_path):
    path, result = single_run(capsys, tmp_path, bench)
    code, out, err = run(capsys, "export", bench, str(path), "--eee", str(tmp_path / "eee"), "--model", "org/model")
    assert code == 0, err
    record = json.loads(pathlib_of(out.strip()).read_text())
    errors = sorted(eee_validators()["eval"].iter_errors(record), key=str)
    assert errors == []
    assert record["model_info"]["id"] == "org/model" and record["eval_library"]["name"] == "benchscore"
    ids = [r["metric_config"]["metric_id"] for r in record["evaluation_results"]]
    assert ids and all(i.startswith(f"{bench}.") for i in ids)
    if bench == "tsver":  # the bundled example has recorded Ev2R: its judge's settings go into llm_scoring
        ev2r = next(r for r in record["evaluation_results"] if r["metric_config"]["metric_id"] == "tsver.ev2r_f1")
        assert ev2r["metric_config"]["llm_scoring"]["judges"][0]["model_info"]["name"].startswith("recorded")


def pathlib_of(text):
    import pathlib

    return pathlib.Path(text)


def test_a_table_record_has_the_interval_resamples_seed_and_item_count(mctaco_table, capsys, tmp_path):
    code, out, err = run(capsys, "export", "mctaco", str(mctaco_table), "--system", "BERT", "--eee", str(tmp_path))
    assert code == 0, err
    record = json.loads(pathlib_of(out.strip()).read_text())
    assert list(eee_validators()["eval"].iter_errors(record)) == []
    table = json.loads(mctaco_table.read_text())
    cell = table["rows"][0]["metrics"]["em"]
    em = record["evaluation_results"][0]["score_details"]
    assert em["score"] == cell["value"]
    assert em["uncertainty"]["confidence_interval"] == {"lower": cell["low"], "upper": cell["high"],
                                                       "method": "percentile bootstrap over items",
                                                       "confidence_level": 0.95}
    assert (em["uncertainty"]["num_bootstrap_samples"], em["uncertainty"]["num_samples"]) == (200, 1332)
    assert em["details"]["bootstrap_seed"] == "12345"


def test_a_draft_eval_yaml_names_the_registry_tasks(capsys, tmp_path):
    path, _ = single_run(capsys, tmp_path, "webnlg")
    assert run(capsys, "export", "webnlg", str(path), "--eval-yaml", str(tmp_path / "ds"))[0] == 0
    draft = yaml.safe_load((tmp_path / "ds" / "eval.yaml").read_text())
    assert [task["id"] for task in draft["tasks"]] == list(benchscore.benchmark("webnlg").table.task_ids.values())


@pytest.fixture
def hub():
    server = FakeUploadHub(["me/model"]).start()
    yield server
    server.stop()


def push(hub, *argv):
    env = {**os.environ, "HF_ENDPOINT": hub.url, "HF_TOKEN": "hf_SECRETtoken0123456789", "HF_HUB_OFFLINE": "0"}
    return subprocess.run([sys.executable, "-m", "benchscore", "export", *argv], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)


def test_push_uploads_the_eval_results_file_to_the_fake_hub(mctaco_table, hub, tmp_path):
    done = push(hub, "mctaco", str(mctaco_table), "--system", "BERT", "--push", "me/model", "--create-pr",
                "--eval-results", str(tmp_path), "--date", "2026-12-02")
    assert done.returncode == 0, done.stderr
    (commit,) = hub.commits
    assert commit["repo"] == "me/model" and commit["create_pr"] and commit["authorization"].startswith("Bearer ")
    assert commit["files"] == {".eval_results/mctaco.yaml": (tmp_path / ".eval_results" / "mctaco.yaml").read_bytes()}
    assert done.stdout.splitlines()[-1] == f"{hub.url}/me/model/discussions/1"
    assert "SECRET" not in done.stdout + done.stderr


def test_push_to_a_missing_repository_is_one_line_without_the_token(mctaco_table, hub):
    done = push(hub, "mctaco", str(mctaco_table), "--system", "BERT", "--push", "me/nothing")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "--push me/nothing: no such model repository" in done.stderr and "SECRET" not in done.stderr
    assert hub.commits == []


@pytest.mark.parametrize("edit, extra, words", [
    (lambda r: r, ["--system", "nobody"], "the table has no system 'nobody'; expected one of BERT, RoBERTa"),
    (lambda r: r, [], "the table has 2 systems (BERT, RoBERTa); expected --system NAME"),
    (lambda r: {**r, "signature": r["signature"].replace("benchscore:0.1.0", "benchscore:9.9.9")}, ["--system", "BERT"],
     "the result was made by benchscore 9.9.9 (scorer version 1.0.0); expected 0.1.0 (1.0.0)"),
    (lambda r: {**r, "signature": "webnlg_rdf|version:1.0.0|benchscore:0.1.0"}, ["--system", "BERT"],
     "the result is of 'webnlg_rdf'; expected a mctaco result"),
    (lambda r: [r], [], "; expected a JSON object (a benchscore result)"),
    (lambda r: {**r, "rows": [{**r["rows"][0], "metrics": {"em": {"value": "high"}}}]}, [],
     "em's value is 'high'; expected a finite number (a score)"),
    (lambda r: {**r, "rows": [{"system": "BERT"}]}, [], "row 0 is {'system': 'BERT'}; expected {\"system\": name"),
    (lambda r: {**r, "rows": ["BERT"]}, [], "row 0 is 'BERT'; expected"),
    (lambda r: {**r, "rows": []}, [], "the table has no rows"),
    (lambda r: {key: value for key, value in r.items() if key != "signature"}, [],
     "the signature is None; expected a benchscore result's signature"),
])
def test_a_result_that_is_not_this_benchmarks_is_refused_and_nothing_is_written(edit, extra, words, mctaco_table,
                                                                                  capsys, tmp_path):
    broken = tmp_path / "result.json"
    broken.write_text(json.dumps(edit(json.loads(mctaco_table.read_text()))), encoding="utf-8")
    code, _, err = run(capsys, "export", "mctaco", str(broken), *extra, "--eval-results", str(tmp_path / "out"))
    assert code == 2 and err.count("\n") == 1 and f"{broken}:1: " in err and words in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("argv, words", [
    ([], "nothing to export; expected --eval-results DIR"),
    (["--eee", "x", "--create-pr"], "--create-pr opens a pull request on --push's repository"),
    (["--eee", "x", "--date", "yesterday"], "--date 'yesterday': expected an ISO 8601 date"),
    (["--eee", "/dev/null/x"], "/dev/null is a file; expected a folder to write into"),
    (["--eee", "x", "--date", "2024-W01-1"], "--date '2024-W01-1': expected an ISO 8601 date"),
    (["--eee", "x", "--source-name", "logs"], "--source-name names --source's link; expected --source URL too"),
])
def test_bad_export_options_get_one_line(argv, words, mctaco_table, capsys):
    code, _, err = run(capsys, "export", "mctaco", str(mctaco_table), *argv)
    assert code == 2 and err.count("\n") == 1 and words in err


def test_a_benchmark_without_a_hub_dataset_says_so(capsys, tmp_path):
    path, _ = single_run(capsys, tmp_path, "tsver")
    code, _, err = run(capsys, "export", "tsver", str(path), "--eval-results", str(tmp_path / "o"))
    assert code == 2 and "tsver has no Hub dataset to attach evaluation results to" in err
    assert not (tmp_path / "o").exists()


def example_files(bench):
    folder = METRICS / benchscore.benchmark(bench).folder / "examples"
    return {"mctaco": ("example.tsv", "example_predictions.txt"), "tempbench": ("questions.jsonl", "evidence.jsonl"),
            "webnlg": ("refs.xml", "cands.xml"), "tsver": ("gold.jsonl", "predictions.jsonl")}[bench], folder


@pytest.mark.parametrize("bench", ["mctaco", "tempbench", "webnlg", "tsver"])
def test_instance_records_validate_and_are_referenced_by_checksum(bench, capsys, tmp_path):
    import hashlib
    import re

    path, result = single_run(capsys, tmp_path, bench)
    (gold, predictions), folder = example_files(bench)
    code, out, err = run(capsys, "export", bench, str(path), "--eee", str(tmp_path / "eee"), "--model", "org/m",
                         "--gold", str(folder / gold), "--predictions", str(folder / predictions))
    assert code == 0, err
    aggregate, samples = map(pathlib_of, out.split())
    record = json.loads(aggregate.read_text())
    validators = eee_validators()
    assert list(validators["eval"].iter_errors(record)) == []
    detail = record["detailed_evaluation_results"]
    assert re.fullmatch(validators["eval"].schema["properties"]["detailed_evaluation_results"]["properties"]
                        ["file_path"]["pattern"], detail["file_path"])
    assert (tmp_path / "eee" / detail["file_path"]) == samples
    assert detail["checksum"] == hashlib.sha256(samples.read_bytes()).hexdigest()
    lines = [json.loads(line) for line in samples.read_text().splitlines()]
    assert len(lines) == detail["total_rows"] > 0
    for line in lines:
        assert list(validators["instance_level_eval"].iter_errors(line)) == [], line["sample_id"]
        assert line["evaluation_id"] == record["evaluation_id"] and line["model_id"] == "org/m"
    if bench == "mctaco":  # the per-question scores average to the run's numbers
        assert sum(line["evaluation"]["score"] for line in lines) / len(lines) == pytest.approx(result["f1"])
        assert sum(line["evaluation"]["is_correct"] for line in lines) / len(lines) == result["em"]


def test_instance_records_of_other_files_than_the_results_are_refused(mctaco_table, capsys, tmp_path):
    (gold, predictions), folder = example_files("mctaco")
    code, _, err = run(capsys, "export", "mctaco", str(mctaco_table), "--system", "BERT", "--eee", str(tmp_path / "e"),
                       "--gold", str(folder / gold), "--predictions", str(folder / predictions))
    assert code == 2 and "give 5 items, but the result was scored on 1332" in err and not (tmp_path / "e").exists()
    code, _, err = run(capsys, "export", "mctaco", str(mctaco_table), "--system", "BERT", "--eval-results",
                       str(tmp_path), "--gold", str(folder / gold))
    assert code == 2 and "--gold and --predictions give --eee its per-item records" in err


# ---------------------------------------------------------------- what a hostile-input sweep found

def edited(mctaco_table, tmp_path, change):
    result = json.loads(mctaco_table.read_text())
    change(result)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(result) if not isinstance(result, str) else result, encoding="utf-8")
    return path


def first_em(result):
    return result["rows"][0]["metrics"]["em"]


@pytest.mark.parametrize("change, words", [
    (lambda r: first_em(r).update(value=5.0, low=0.1, high=0.2), "em's interval [0.1, 0.2] does not hold its value 5.0"),
    (lambda r: first_em(r).update(value=float("nan")), "not valid JSON (NaN is not a JSON number)"),
    (lambda r: first_em(r).update(value=10 ** 400), "em's value is "),
    (lambda r: r["rows"][0].update(metrics={}), "the row's metrics are []; expected mctaco's headline metrics"),
    (lambda r: r["rows"][0]["metrics"].update(bogus={"value": 0.1}), "the row's metrics are ['bogus', 'em', 'f1']"),
    (lambda r: r["rows"].append(dict(r["rows"][0])), "the table has two rows named 'BERT'"),
    (lambda r: r.update(signature=r["signature"] + "|data:x@rrrr"), "the signature's data field is 'x@rrrr'"),
    (lambda r: r.update(signature=r["signature"].replace("version:1.0.0", "version:9.9.9")),
     "(scorer version 9.9.9); expected 0.1.0 (1.0.0)"),
    (lambda r: r.update(benchmark="tsver"), "expected a mctaco result"),
    (lambda r: r["rows"][0].update(n_items=-5), "n_items is -5; expected a positive int"),
    (lambda r: r["rows"][0].update(n_items=True), "n_items is True; expected a positive int"),
    (lambda r: r.update(level=95), "level is 95; expected a confidence level between 0 and 1"),
    (lambda r: r.update(seed={"a": 1}), "seed is {'a': 1}; expected a non-negative int"),
    (lambda r: r["rows"][0]["metrics"].update(em=0.6), "em is 0.6; expected {\"value\", \"low\", \"high\"}"),
    (lambda r: r.update(rows={"x": 1}), "the table's rows are {'x': 1}; expected a list of rows"),
])
def test_edited_results_are_refused_with_one_line(change, words, mctaco_table, capsys, tmp_path):
    path = edited(mctaco_table, tmp_path, change)
    code, _, err = run(capsys, "export", "mctaco", str(path), "--system", "BERT", "--eee", str(tmp_path / "o"))
    assert code == 2 and err.count("\n") == 1 and words in err, err
    assert not (tmp_path / "o").exists()


def test_a_pipe_a_device_and_deep_nesting_are_refused_without_hanging(capsys, tmp_path):
    fifo = tmp_path / "result.json"
    os.mkfifo(fifo)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    for path, words in ((fifo, "not a regular file"), ("/dev/zero", "not a regular file"),
                        (deep, "nested deeper than 64 levels")):
        code, _, err = run(capsys, "export", "mctaco", str(path), "--eee", str(tmp_path / "o"))
        assert code == 2 and err.count("\n") == 1 and words in err, err


def test_an_export_never_overwrites_its_result_or_inputs(capsys, tmp_path):
    path, _ = single_run(capsys, tmp_path, "mctaco")
    target = tmp_path / "d" / "eval.yaml"
    target.parent.mkdir()
    target.write_bytes(path.read_bytes())
    code, _, err = run(capsys, "export", "mctaco", str(target), "--eval-yaml", str(target.parent))
    assert code == 2 and "the output file is the input file" in err
    assert target.read_bytes() == path.read_bytes()


def test_per_item_records_of_other_predictions_with_the_same_count_are_refused(capsys, tmp_path):
    path, _ = single_run(capsys, tmp_path, "mctaco")
    (gold, predictions), folder = example_files("mctaco")
    flipped = tmp_path / "flipped.txt"
    labels = (folder / predictions).read_text().split()
    flipped.write_text("".join(("no" if x == "yes" else "yes") + "\n" for x in labels), encoding="utf-8")
    code, _, err = run(capsys, "export", "mctaco", str(path), "--eee", str(tmp_path / "o"), "--gold",
                       str(folder / gold), "--predictions", str(flipped))
    assert code == 2 and "but the result says" in err and not (tmp_path / "o").exists()


def test_a_model_id_of_dots_stays_inside_the_layout(capsys, tmp_path):
    path, _ = single_run(capsys, tmp_path, "mctaco")
    code, out, err = run(capsys, "export", "mctaco", str(path), "--eee", str(tmp_path / "o"), "--model", "../..")
    assert code == 0, err
    assert pathlib_of(out.strip()).parent == tmp_path / "o" / "data" / "mctaco" / "unknown" / "unknown"


def test_a_push_that_fails_leaves_no_file_written(mctaco_table, capsys, tmp_path):
    code, _, err = run(capsys, "export", "mctaco", str(mctaco_table), "--system", "BERT", "--push", "me/model",
                       "--eee", str(tmp_path / "o"), "--eval-results", str(tmp_path / "r"))
    assert code == 2 and "HF_HUB_OFFLINE=1 is set" in err  # offline in the tests: the push is refused first
    assert not (tmp_path / "o").exists() and not (tmp_path / "r").exists()


def test_an_unreachable_hub_is_one_line(mctaco_table, tmp_path):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "HF_ENDPOINT": f"http://127.0.0.1:{port}", "HF_TOKEN": "hf_SECRETtoken0123456789",
           "HF_HUB_OFFLINE": "0"}
    done = subprocess.run([sys.executable, "-m", "benchscore", "export", "mctaco", str(mctaco_table), "--system",
                           "BERT", "--push", "me/model"], cwd=REPO, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr[-2000:]
    assert "--push me/model: cannot reach the Hub" in done.stderr and "SECRET" not in done.stderr
