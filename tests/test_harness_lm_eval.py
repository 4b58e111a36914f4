"""End to end, offline: lm-evaluation-harness's own CLI runs benchscore's tasks on a tiny causal LM
built in a temporary folder, and the numbers it reports equal `benchscore mctaco` / `benchscore
webnlg` on the predictions rebuilt from lm-eval's logged samples, to the last float.

Skips without lm-eval (`pip install ".[lm-eval]"`), without the trainer extra (torch,
transformers) and without ../shared's official files."""

import glob
import json
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("lm_eval", reason="lm-eval is not installed (pip install '.[lm-eval]')")
pytest.importorskip("transformers", reason="the tiny model needs the trainer extra (torch, transformers)")
pytest.importorskip("torch", reason="the tiny model needs the trainer extra (torch, transformers)")

from benchscore.mctaco.files import read_references as read_tsv  # noqa: E402
from benchscore.core.resampling import bootstrap_samples  # noqa: E402
from benchscore.mctaco.scoring import question_key  # noqa: E402
from benchscore.mctaco.scoring import item_stats  # noqa: E402
from benchscore.mctaco.significance import item_values  # noqa: E402
from benchscore.mctaco.significance import statistic  # noqa: E402
from benchscore.harness import tasks  # noqa: E402
from benchscore.webnlg_rdf.files import read_references  # noqa: E402
from benchscore.webnlg_rdf.scoring import item_stats as webnlg_item_stats  # noqa: E402
from benchscore.webnlg_rdf.significance import item_values as webnlg_item_values  # noqa: E402
from benchscore.webnlg_rdf.significance import statistic as webnlg_statistic  # noqa: E402
from conftest import shared_path  # noqa: E402
from harness_common import assert_webnlg_f1s_equal  # noqa: E402
from harness_common import benchscore_cli  # noqa: E402
from harness_common import offline_env  # noqa: E402
from harness_common import rebuild_triples  # noqa: E402
from harness_common import tiny_model  # noqa: E402
from harness_common import write_candidates  # noqa: E402
from harness_common import write_references  # noqa: E402

LIMIT = 24  # MC-TACO test: questions of 13, 5, 2 rows are whole, the 4th (6 rows) is cut after 4



@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One `lm_eval` CLI run of both tasks; returns (results, {task: logged samples}, data folders)."""
    mctaco_dir = shared_path("data", "mctaco")
    webnlg_dir = shared_path("data", "webnlg")
    tmp = tmp_path_factory.mktemp("lm_eval")
    model_dir = tiny_model(tmp_path_factory)
    include = subprocess.run([sys.executable, "-m", "benchscore", "lm-eval-path"], capture_output=True, text=True,
                             check=True).stdout.strip()
    command = [sys.executable, "-m", "lm_eval", "--include_path", include,
               "--tasks", "mc_taco_official,webnlg_text2rdf", "--model", "hf",
               "--model_args", f"pretrained={model_dir},dtype=float32", "--device", "cpu", "--batch_size", "8",
               "--limit", str(LIMIT), "--gen_kwargs", "max_gen_toks=48", "--log_samples", "--output_path", str(tmp / "out")]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp,
                          env=offline_env(BENCHSCORE_MCTACO_DIR=str(mctaco_dir), BENCHSCORE_WEBNLG_DIR=str(webnlg_dir)))
    assert done.returncode == 0, done.stderr[-3000:]
    (results_file,) = glob.glob(str(tmp / "out" / "*" / "results_*.json"))
    samples = {}
    for task in ("mc_taco_official", "webnlg_text2rdf"):
        (path,) = glob.glob(str(tmp / "out" / "*" / f"samples_{task}_*.jsonl"))
        with open(path, encoding="utf-8") as f:
            samples[task] = sorted((json.loads(line) for line in f), key=lambda s: s["doc_id"])
    with open(results_file, encoding="utf-8") as f:
        return json.load(f)["results"], samples, mctaco_dir, webnlg_dir, tmp


def test_mc_taco_official_equals_benchscore_mctaco(run):
    results, samples, mctaco_dir, _, tmp = run
    result = results["mc_taco_official"]
    rows = read_tsv(mctaco_dir / "test_9442.tsv")
    logged = samples["mc_taco_official"]
    assert [s["doc_id"] for s in logged] == list(range(LIMIT))
    # The prediction, rebuilt from the logged loglikelihoods of " no" and " yes" (lm-eval's argmax).
    predictions = []
    for sample in logged:
        (ll_no, _), (ll_yes, _) = sample["filtered_resps"]
        predictions.append("yes" if float(ll_yes) > float(ll_no) else "no")
    # Whole questions: every candidate row among the evaluated documents.
    keys = [question_key(r["sentence"], r["question"]) for r in rows]
    whole = [i for i in range(LIMIT) if all(j < LIMIT for j, key in enumerate(keys) if key == keys[i])]
    assert whole == list(range(20))
    gold = tmp / "gold_whole_questions.tsv"
    gold.write_text("".join("\t".join(rows[i].values()) + "\n" for i in whole), encoding="utf-8")
    pred = tmp / "predictions.txt"
    pred.write_text("".join(predictions[i] + "\n" for i in whole), encoding="utf-8")
    benchscore_cli("mctaco", "--gold", str(gold), "--predictions", str(pred), "-o", str(tmp / "mctaco.json"))
    official = json.loads((tmp / "mctaco.json").read_text())
    assert result["em,none"] == official["em"]
    assert result["f1,none"] == official["f1"]
    assert result["n_questions,none"] == 3 and result["partial_questions,none"] == 1
    # acc is lm-eval's per-candidate accuracy over all evaluated documents, cut question included
    assert result["acc,none"] == sum(p == rows[i]["label"] for i, p in enumerate(predictions)) / LIMIT
    # The standard errors: ours, from the per-question statistics (not lm-eval's "N/A").
    stats = item_stats([predictions[i] for i in whole], [rows[i]["label"] for i in whole], [keys[i] for i in whole])
    draws = bootstrap_samples(item_values(stats), statistic, 1000, 12345)
    assert result["em_stderr,none"] == float(draws["em"].std(ddof=1))
    assert result["f1_stderr,none"] == float(draws["f1"].std(ddof=1))


def test_webnlg_text2rdf_equals_benchscore_webnlg(run):
    results, samples, _, webnlg_dir, tmp = run
    result = results["webnlg_text2rdf"]
    logged = samples["webnlg_text2rdf"]
    references = read_references(webnlg_dir / "references" / "en_all.xml")[:LIMIT]
    assert [s["doc_id"] for s in logged] == list(range(LIMIT))
    # The triples, rebuilt from the logged generations with the task's documented parsing.
    generations = []
    for sample in logged:
        (generation,) = sample["filtered_resps"]
        generations.append(generation)
    candidates, unparseable, unscorable = rebuild_triples(generations, references)
    write_references(tmp / "ref.xml", references)
    write_candidates(tmp / "cand.xml", candidates)
    benchscore_cli("webnlg", str(tmp / "ref.xml"), str(tmp / "cand.xml"), str(tmp / "webnlg.json"), "--no-progress")
    official = json.loads((tmp / "webnlg.json").read_text())
    assert_webnlg_f1s_equal(result, official, ",none")
    assert result["partial_f1,none"] > 0  # not a trivial all-zero equality
    # The standard errors: benchscore's bootstrap over the entries' statistics (not lm-eval's "N/A").
    stats = [webnlg_item_stats(r["triples"], c) for r, c in zip(references, candidates)]
    draws = bootstrap_samples(webnlg_item_values(stats), webnlg_statistic, 1000, 12345)
    for scheme in ("Strict", "Exact", "Partial", "Ent_type"):
        assert result[f"{scheme.lower()}_f1_stderr,none"] == float(np.nanstd(draws[f"{scheme}_F1"], ddof=1))
    assert (result["unparseable_lines,none"], result["unscorable_triples,none"]) == (unparseable, unscorable)


def _yaml(path):
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: f"!{suffix} {node.value}")
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=Loader)


def test_mc_taco_official_has_lm_evals_mc_taco_prompt_choices_and_splits():
    import lm_eval
    from benchscore.harness import lm_eval_path

    theirs = _yaml(os.path.join(os.path.dirname(lm_eval.__file__), "tasks", "mc_taco", "default.yaml"))
    ours = _yaml(os.path.join(lm_eval_path(), "mc_taco_official", "mc_taco_official.yaml"))
    for key in ("output_type", "validation_split", "test_split", "doc_to_text", "doc_to_target", "doc_to_choice",
                "doc_to_decontamination_query"):
        assert ours[key] == theirs[key], key
    assert tasks.MCTACO_PROMPT.replace("{", "{{").replace("}", "}}") == theirs["doc_to_text"]
    assert tasks.MCTACO_CHOICES == theirs["doc_to_choice"]
