"""End to end, offline: lm-evaluation-harness's own CLI runs benchscore's tasks on a tiny causal LM
built in a temporary folder, and the numbers it reports equal `benchscore mctaco` / `benchscore
webnlg` on the predictions rebuilt from lm-eval's logged samples, to the last float.

Skips without lm-eval (`pip install ".[lm-eval]"`), without the trainer extra (torch,
transformers) and without ../shared's official files."""

import glob
import importlib.metadata
import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("lm_eval", reason="lm-eval is not installed (pip install '.[lm-eval]')")
pytest.importorskip("transformers", reason="the tiny model needs the trainer extra (torch, transformers)")
pytest.importorskip("torch", reason="the tiny model needs the trainer extra (torch, transformers)")

try:  # lm-eval's own standard error of a mean
    from lm_eval.api.metrics.stderr import mean_stderr  # 0.5
except ImportError:
    from lm_eval.api.metrics import mean_stderr  # 0.4

from benchscore.mctaco.files import read_references as read_tsv  # noqa: E402
from benchscore.mctaco.scoring import item_stats  # noqa: E402
from benchscore.mctaco.scoring import question_key  # noqa: E402
from benchscore.harness import tasks  # noqa: E402
from benchscore.webnlg_rdf.files import read_references  # noqa: E402
from conftest import shared_path  # noqa: E402
from harness_common import assert_webnlg_f1s_equal  # noqa: E402
from harness_common import benchscore_cli  # noqa: E402
from harness_common import offline_env  # noqa: E402
from harness_common import rebuild_triples  # noqa: E402
from harness_common import tiny_model  # noqa: E402
from harness_common import write_candidates  # noqa: E402
from harness_common import write_references  # noqa: E402

LM_EVAL_0_4 = importlib.metadata.version("lm-eval").startswith("0.4.")
LIMIT = 4  # documents: MC-TACO's first 4 questions (13, 5, 2 and 6 candidates), WebNLG's first 4 entries



def _unwrapped(response):
    """A logged response: lm-eval 0.5 logs one more list level (one item per repeat) than 0.4."""
    while isinstance(response, list) and len(response) == 1:
        response = response[0]
    return response


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
    # --limit 4 is 4 whole questions: their 26 candidate rows, two requests each.
    assert [s["doc_id"] for s in logged] == list(range(LIMIT))
    assert [len(s["filtered_resps"]) for s in logged] == [2 * n for n in (13, 5, 2, 6)]
    # The predictions, rebuilt from the logged loglikelihoods of " no" and " yes" (lm-eval's argmax).
    predictions = []
    for sample in logged:
        loglikelihoods = [float(_unwrapped(response)[0]) for response in sample["filtered_resps"]]
        predictions += ["yes" if yes > no else "no" for no, yes in zip(loglikelihoods[0::2], loglikelihoods[1::2])]
    n_rows = len(predictions)
    assert n_rows == 26
    gold = tmp / "gold_first_questions.tsv"
    gold.write_text("".join("\t".join(row.values()) + "\n" for row in rows[:n_rows]), encoding="utf-8")
    pred = tmp / "predictions.txt"
    pred.write_text("".join(p + "\n" for p in predictions), encoding="utf-8")
    benchscore_cli("mctaco", "--gold", str(gold), "--predictions", str(pred), "-o", str(tmp / "mctaco.json"))
    official = json.loads((tmp / "mctaco.json").read_text())
    assert result["em,none"] == official["em"]
    assert result["f1,none"] == official["f1"] > 0
    # The standard errors are lm-eval's own for a mean, of the per-question values.
    keys = [question_key(r["sentence"], r["question"]) for r in rows[:n_rows]]
    stats = item_stats(predictions, [r["label"] for r in rows[:n_rows]], keys)
    assert result["em_stderr,none"] == mean_stderr([float(q.exact_match) for q in stats])
    assert result["f1_stderr,none"] == mean_stderr([q.f1 for q in stats])
    candidate_acc = [q.n_correct / q.n_candidates for q in stats]
    assert result["candidate_acc,none"] == sum(candidate_acc) / LIMIT
    assert result["candidate_acc_stderr,none"] == mean_stderr(candidate_acc)


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
        generations.append(_unwrapped(generation))
    candidates, unparseable, unscorable = rebuild_triples(generations, references)
    write_references(tmp / "ref.xml", references)
    write_candidates(tmp / "cand.xml", candidates)
    benchscore_cli("webnlg", str(tmp / "ref.xml"), str(tmp / "cand.xml"), str(tmp / "webnlg.json"), "--no-progress")
    official = json.loads((tmp / "webnlg.json").read_text())
    assert_webnlg_f1s_equal(result, official, ",none")
    assert result["partial_f1,none"] > 0  # not a trivial all-zero equality
    # lm-eval 0.4 gives no standard error for a custom aggregation; 0.5 bootstraps it over the entries.
    for name in tasks.WEBNLG_METRICS:
        stderr = result[f"{name}_stderr,none"]
        assert stderr == "N/A" if LM_EVAL_0_4 else 0 <= stderr < 1, (name, stderr)
    assert (result["unparseable_lines_per_entry,none"], result["unscorable_triples_per_entry,none"]) == (
        unparseable / LIMIT, unscorable / LIMIT)


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
    for key in ("output_type", "validation_split", "test_split", "doc_to_choice", "doc_to_decontamination_query"):
        assert ours[key] == theirs[key], key
    # Their prompt of a row is ours of its question, then of its candidate.
    assert (tasks.MCTACO_QUESTION_PROMPT + tasks.MCTACO_ANSWER_PROMPT).replace("{", "{{").replace("}", "}}") == (
        theirs["doc_to_text"])
    assert tasks.MCTACO_CHOICES == theirs["doc_to_choice"] and theirs["doc_to_target"] == "label"


@pytest.fixture(scope="module")
def mc_taco_task():
    from lm_eval.tasks import TaskManager

    from benchscore.harness import lm_eval_path

    (task,) = TaskManager(include_path=lm_eval_path(), metadata={"data_dir": str(shared_path("data", "mctaco"))}).load(
        ["mc_taco_official"])["tasks"].values()
    return task


def test_mc_taco_official_refuses_few_shot(mc_taco_task):
    doc = mc_taco_task.test_docs()[0]
    with pytest.raises(ValueError, match=r"^mc_taco_official is zero-shot, as lm-eval's mc_taco by default; got "
                                         r"--num_fewshot 3, expected 0$"):
        mc_taco_task.fewshot_context(doc, 3)


def test_mc_taco_official_refuses_a_chat_template(mc_taco_task):
    doc = mc_taco_task.test_docs()[0]
    with pytest.raises(ValueError, match=r"^mc_taco_official scores the log-likelihoods of a plain prompt, as "
                                         r"lm-eval's mc_taco; expected no --apply_chat_template$"):
        mc_taco_task.construct_requests(doc, "context", apply_chat_template=True)


def test_mc_taco_official_requests_are_lm_evals_mc_taco_rows(mc_taco_task):
    """Per candidate, lm-eval's own multiple-choice requests of its row: (prompt, " no"), (prompt, " yes")."""
    import inspect

    doc = mc_taco_task.test_docs()[1]
    context = mc_taco_task.fewshot_context(doc, 0)
    base = type(mc_taco_task).__mro__[1].construct_requests
    extra = {"doc_id": 1} if "doc_id" in inspect.signature(base).parameters else {"metadata": ("mc_taco_official", 1, 1)}
    requests = mc_taco_task.construct_requests(doc, context, **extra)
    rows = read_tsv(shared_path("data", "mctaco", "test_9442.tsv"))
    assert [r.arguments for r in requests] == [(tasks.MCTACO_PROMPT.format(**rows[row]), f" {choice}")
                                               for row in doc["rows"] for choice in ("no", "yes")]
    assert [r.idx for r in requests] == list(range(2 * len(doc["rows"])))
