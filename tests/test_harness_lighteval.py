"""End to end, offline: LightEval runs benchscore's custom tasks (`benchscore.harness.lighteval_tasks`)
on a tiny causal LM built in a temporary folder, and the numbers it reports equal `benchscore
mctaco` / `benchscore webnlg` on the predictions rebuilt from LightEval's saved details.

LightEval runs through `scripts/lighteval_offline.py` (its own command line with only the custom
tasks registered: see that file for the three LightEval 0.13 problems it works around). The data
folders hold whole questions / entries cut from the official files (in a temporary folder),
because LightEval's `--max-samples` shuffles documents before keeping the first N.

Skips without lighteval (`pip install ".[lighteval]"`), the trainer extra or ../shared."""

import glob
import json
import subprocess
import sys

import pytest

pytest.importorskip("lighteval", reason="LightEval is not installed (pip install '.[lighteval]')")
pytest.importorskip("transformers", reason="the tiny model needs the trainer extra (torch, transformers)")
pyarrow_parquet = pytest.importorskip("pyarrow.parquet", reason="pyarrow (a datasets dependency) reads the details")

from benchscore.mctaco.files import read_references as read_tsv  # noqa: E402
from benchscore.webnlg_rdf.files import read_references  # noqa: E402
from conftest import REPO  # noqa: E402
from conftest import shared_path  # noqa: E402
from harness_common import assert_webnlg_f1s_equal  # noqa: E402
from harness_common import benchscore_cli  # noqa: E402
from harness_common import offline_env  # noqa: E402
from harness_common import rebuild_triples  # noqa: E402
from harness_common import tiny_model  # noqa: E402
from harness_common import write_candidates  # noqa: E402
from harness_common import write_references  # noqa: E402

QUESTION_ROWS = 20  # the first 3 whole questions of the MC-TACO test file (13, 5 and 2 candidates)
ENTRIES = 6  # the first WebNLG entries (the tiny model is fitted on the first 4)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    mctaco_dir, webnlg_dir = shared_path("data", "mctaco"), shared_path("data", "webnlg")
    tmp = tmp_path_factory.mktemp("lighteval")
    model_dir = tiny_model(tmp_path_factory)
    # Small official-format data folders: whole questions and whole entries from the official files.
    (tmp / "mctaco").mkdir()
    for name in ("test_9442.tsv", "dev_3783.tsv"):
        lines = (mctaco_dir / name).read_text(encoding="utf-8").splitlines(keepends=True)[:QUESTION_ROWS]
        (tmp / "mctaco" / name).write_text("".join(lines), encoding="utf-8")
    (tmp / "webnlg" / "references").mkdir(parents=True)
    entries = read_references(webnlg_dir / "references" / "en_all.xml")[:ENTRIES]
    write_references(tmp / "webnlg" / "references" / "en_all.xml", entries)
    command = [sys.executable, str(REPO / "scripts" / "lighteval_offline.py"), "accelerate",
               f"model_name={model_dir},dtype=float32,batch_size=8",
               "mc_taco_official|0,webnlg_text2rdf|3", "--custom-tasks", "benchscore.harness.lighteval_tasks",
               "--output-dir", str(tmp / "out"), "--save-details"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp,
                          env=offline_env(BENCHSCORE_MCTACO_DIR=str(tmp / "mctaco"),
                                          BENCHSCORE_WEBNLG_DIR=str(tmp / "webnlg")))
    assert done.returncode == 0, done.stderr[-3000:]
    (results_file,) = glob.glob(str(tmp / "out" / "results" / "**" / "results_*.json"), recursive=True)
    with open(results_file, encoding="utf-8") as f:
        results = json.load(f)["results"]
    details = {}
    for task in ("mc_taco_official|0", "webnlg_text2rdf|3"):
        (path,) = glob.glob(str(tmp / "out" / "details" / "**" / f"details_{task}_*.parquet"), recursive=True)
        rows = pyarrow_parquet.read_table(path).to_pylist()
        details[task] = sorted(rows, key=lambda row: _first_row(row["doc"]["specific"]))
    return results, details, entries, tmp


def _first_row(specific):
    """The file row a document starts at: a WebNLG entry's, a MC-TACO question's first candidate's."""
    return specific["row"] if "row" in specific else specific["rows"][0]


def task_result_and_rows(run, task, first_rows):
    """LightEval's result and saved details of `task`, whose documents start at `first_rows`, in order."""
    results, details, _, _ = run
    rows = details[task]
    assert [_first_row(row["doc"]["specific"]) for row in rows] == first_rows
    return results[task], rows


def test_lighteval_mc_taco_official_equals_benchscore_mctaco(run):
    tmp = run[3]
    result, rows = task_result_and_rows(run, "mc_taco_official|0", [0, 13, 18])  # 3 questions: 13, 5, 2 rows
    # The predictions, rebuilt from the saved loglikelihoods of each candidate's " no" and " yes" choices.
    predictions = []
    for row in rows:
        logprobs = row["model_response"]["logprobs"]
        assert len(logprobs) == 2 * len(row["doc"]["specific"]["answers"])
        predictions += ["yes" if yes > no else "no" for no, yes in zip(logprobs[0::2], logprobs[1::2])]
    assert len(predictions) == QUESTION_ROWS
    (tmp / "predictions.txt").write_text("".join(p + "\n" for p in predictions), encoding="utf-8")
    benchscore_cli("mctaco", "--gold", str(tmp / "mctaco" / "test_9442.tsv"), "--predictions",
                   str(tmp / "predictions.txt"), "-o", str(tmp / "mctaco.json"))
    official = json.loads((tmp / "mctaco.json").read_text())
    assert (result["em"], result["f1"]) == (official["em"], official["f1"])
    gold = [r["label"] for r in read_tsv(tmp / "mctaco" / "test_9442.tsv")]
    shares = [sum(p == g for p, g in zip(predictions[a:b], gold[a:b])) / (b - a) for a, b in ((0, 13), (13, 18), (18, 20))]
    assert result["candidate_acc"] == sum(shares) / 3
    # LightEval's own standard error of a mean, over the 3 questions.
    assert all(isinstance(result[f"{name}_stderr"], float) for name in ("em", "f1", "candidate_acc"))


def test_lighteval_webnlg_text2rdf_equals_benchscore_webnlg(run):
    entries, tmp = run[2:]
    result, rows = task_result_and_rows(run, "webnlg_text2rdf|3", list(range(ENTRIES)))
    candidates, unparseable, unscorable = rebuild_triples([row["model_response"]["text"][0] for row in rows], entries)
    write_candidates(tmp / "cand.xml", candidates)
    benchscore_cli("webnlg", str(tmp / "webnlg" / "references" / "en_all.xml"), str(tmp / "cand.xml"),
                   str(tmp / "webnlg.json"), "--no-progress")
    official = json.loads((tmp / "webnlg.json").read_text())
    assert_webnlg_f1s_equal(result, official)
    assert (result["unparseable_lines_per_entry"], result["unscorable_triples_per_entry"]) == (
        unparseable / ENTRIES, unscorable / ENTRIES)
    assert not any(key.endswith("_stderr") for key in result)  # LightEval: none for a dict-valued corpus metric
