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

from benchscore.harness import tasks  # noqa: E402
from benchscore.mctaco.files import read_references as read_tsv  # noqa: E402
from benchscore.webnlg_rdf.files import read_references  # noqa: E402
from conftest import REPO  # noqa: E402
from conftest import shared_path  # noqa: E402
from harness_common import benchscore_cli  # noqa: E402
from harness_common import offline_env  # noqa: E402
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
        details[task] = sorted(rows, key=lambda row: row["doc"]["specific"]["row"])
    return results, details, entries, tmp


def test_lighteval_mc_taco_official_equals_benchscore_mctaco(run):
    results, details, _, tmp = run
    result = results["mc_taco_official|0"]
    rows = details["mc_taco_official|0"]
    assert [row["doc"]["specific"]["row"] for row in rows] == list(range(QUESTION_ROWS))
    # The prediction, rebuilt from the saved loglikelihoods of " no" and " yes".
    predictions = []
    for row in rows:
        loglikelihood_no, loglikelihood_yes = row["model_response"]["logprobs"][:2]
        predictions.append("yes" if loglikelihood_yes > loglikelihood_no else "no")
    (tmp / "predictions.txt").write_text("".join(p + "\n" for p in predictions), encoding="utf-8")
    benchscore_cli("mctaco", "--gold", str(tmp / "mctaco" / "test_9442.tsv"), "--predictions",
                   str(tmp / "predictions.txt"), "-o", str(tmp / "mctaco.json"))
    official = json.loads((tmp / "mctaco.json").read_text())
    assert (result["em"], result["f1"]) == (official["em"], official["f1"])
    assert (result["n_questions"], result["partial_questions"]) == (3, 0)
    gold = [r["label"] for r in read_tsv(tmp / "mctaco" / "test_9442.tsv")]
    assert result["acc"] == sum(p == g for p, g in zip(predictions, gold)) / QUESTION_ROWS
    assert isinstance(result["em_stderr"], float) and isinstance(result["f1_stderr"], float)


def test_lighteval_webnlg_text2rdf_equals_benchscore_webnlg(run):
    results, details, entries, tmp = run
    result = results["webnlg_text2rdf|3"]
    rows = details["webnlg_text2rdf|3"]
    assert [row["doc"]["specific"]["row"] for row in rows] == list(range(ENTRIES))
    candidates = []
    unparseable = unscorable = 0
    for row, entry in zip(rows, entries):
        triples, bad_lines = tasks.parse_triples(row["model_response"]["text"][0])
        kept, dropped = tasks.scorable_triples(entry["triples"], triples)
        candidates.append(kept)
        unparseable += bad_lines
        unscorable += dropped
    assert sum(map(len, candidates)) > 0, "the fitted tiny model should write some triples"
    write_candidates(tmp / "cand.xml", candidates)
    benchscore_cli("webnlg", str(tmp / "webnlg" / "references" / "en_all.xml"), str(tmp / "cand.xml"),
                   str(tmp / "webnlg.json"), "--no-progress")
    official = json.loads((tmp / "webnlg.json").read_text())
    assert result["strict_f1"] == official["Total_scores"]["Strict"]["F1"]
    assert result["exact_f1"] == official["Total_scores"]["Exact"]["F1"]
    assert result["partial_f1"] == official["Total_scores"]["Partial"]["F1"]
    assert result["ent_type_f1"] == official["Total_scores"]["Ent_type"]["F1"]
    assert result["triple_f1"] == official["Exact_match"]["F1"]
    assert (result["unparseable_lines"], result["unscorable_triples"]) == (unparseable, unscorable)
