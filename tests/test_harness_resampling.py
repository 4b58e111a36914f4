"""The rule lm-eval 0.5 applies to every aggregation other than `mean`, applied to ours: called on
documents drawn with replacement (as its `bootstrap_stderr` draws them: `random.Random(seed).choices`),
on a resample made of one document repeated, and from a process pool (so pickled by name). Each
aggregation must neither raise nor leave its range there, and still give our scorer's number exactly
on the plain set of documents.

The per-document values are what the tasks' own `process_results` give on real documents: the
official MC-TACO BERT predictions and the bt5 WebNLG+ 2020 submission, turned into model outputs.
The aggregations are taken as lm-eval resolves them from our task YAMLs (`task.aggregation()`),
so a YAML that names the wrong function fails here too."""

import math
import multiprocessing
import pickle
import random

import pytest
from conftest import shared_path

from benchscore.harness import lm_eval_path, tasks
from benchscore.mctaco.files import score_files as mctaco_score_files
from benchscore.webnlg_rdf.files import score_files as webnlg_score_files
from benchscore.webnlg_rdf.files import read_predictions, read_references

N_RESAMPLES = 20
SEED = 1234


def _lm_eval_task(name):
    # Skipped in the test, not at import: a parity test that skips fails under BENCHSCORE_REQUIRE_SHARED=1.
    lm_eval_tasks = pytest.importorskip("lm_eval.tasks", reason="lm-eval is not installed (pip install '.[lm-eval]')")
    manager = lm_eval_tasks.TaskManager(include_path=lm_eval_path())
    (task,) = manager.load([name])["tasks"].values()
    return task


@pytest.fixture(scope="module")
def mctaco():
    """(lm-eval's aggregations of mc_taco_official, per-metric document values, expected numbers)."""
    folder = shared_path("data", "mctaco")
    predictions = (folder / "baseline_outputs" / "bert.norm.output.txt").read_text(encoding="utf-8").split()
    task = _lm_eval_task("mc_taco_official")
    results = [task.process_results(doc, _requests(predictions, doc)) for doc in task.test_docs()]
    expected = mctaco_score_files(folder / "test_9442.tsv", folder / "baseline_outputs" / "bert.norm.output.txt")
    return task.aggregation(), results, {"em": expected["em"], "f1": expected["f1"]}


def _requests(predictions, doc):
    """lm-eval's results for a question document: (loglikelihood, is_greedy) of " no" then " yes", per candidate."""
    results = []
    for row in doc["rows"]:
        yes = predictions[row] == "yes"
        results += [(-1.0 if yes else -0.5, False), (-0.5 if yes else -1.0, False)]
    return results


@pytest.fixture(scope="module")
def webnlg():
    """(lm-eval's aggregations of webnlg_text2rdf, per-document values, expected numbers)."""
    reference = shared_path("data", "webnlg", "references", "en_all.xml")
    candidate = shared_path("data", "webnlg", "submissions", "en", "bt5", "all.xml")
    task = _lm_eval_task("webnlg_text2rdf")
    docs = list(task.test_docs())
    candidates = read_predictions(candidate)
    assert [doc["references"] for doc in docs] == [entry["triples"] for entry in read_references(reference)]
    # The submission's triples as a model would write them, every 7th entry with a line that is no triple.
    generations = ["\n".join(entry["triples"]) + ("\n(no triple here)" if i % 7 == 0 else "")
                   for i, entry in enumerate(candidates)]
    results = [task.process_results(doc, [generation]) for doc, generation in zip(docs, generations)]
    official = webnlg_score_files(str(reference), str(candidate))
    expected = {name: official["Total_scores"][scheme]["F1"] for name, scheme in tasks.WEBNLG_F1_SCHEMES.items()}
    expected["triple_f1"] = official["Exact_match"]["F1"]
    expected["unparseable_lines_per_entry"] = len(range(0, len(docs), 7)) / len(docs)
    expected["unscorable_triples_per_entry"] = 0.0
    return task.aggregation(), results, expected


def _resamples(values):
    """lm-eval's draws (seeded), then one document repeated as often as there are documents."""
    draws = [random.Random(SEED + i).choices(values, k=len(values)) for i in range(N_RESAMPLES)]
    return draws + [[values[0]] * len(values), [values[-1]] * len(values)]


def _call(job):
    """A pool worker, as lm-eval 0.5's: the aggregation arrives pickled (by name)."""
    aggregation, values = job
    return aggregation(values)


def _check(aggregations, results, expected, name):
    aggregation = aggregations[name]
    assert pickle.loads(pickle.dumps(aggregation)) is aggregation, name  # importable by name
    values = [result[name] for result in results]
    if name in expected:  # the plain set: exactly our scorer's number
        assert aggregation(values) == expected[name], name
    with multiprocessing.get_context("fork").Pool(2) as pool:
        numbers = pool.map(_call, [(aggregation, resample) for resample in _resamples(values)])
    low, high = (0.0, math.inf) if name.endswith("_per_entry") else (0.0, 1.0)
    for number in numbers:
        assert isinstance(number, float) and low <= number <= high, (name, number)
    if len({repr(value) for value in values}) > 1:  # documents differ, so do the draws' numbers
        assert len(set(numbers[:N_RESAMPLES])) > 1, name


NAMES = {"mctaco": list(tasks.MCTACO_METRICS), "webnlg": [*tasks.WEBNLG_METRICS, *tasks.WEBNLG_PER_ENTRY]}


@pytest.mark.parity
@pytest.mark.parametrize("task, name", [(task, name) for task, names in NAMES.items() for name in names])
def test_every_aggregation_survives_resampling(request, task, name):
    """`task` names the fixture of mc_taco_official or webnlg_text2rdf."""
    aggregations, results, expected = request.getfixturevalue(task)
    assert set(aggregations) == set(NAMES[task])
    _check(aggregations, results, expected, name)


def test_no_metric_of_ours_is_named_like_an_lm_eval_stderr():
    """lm-eval 0.5 reads a metric named `<x>_stderr` as the standard error of `<x>`."""
    for name in ("mc_taco_official", "webnlg_text2rdf"):
        assert not [metric for metric in _lm_eval_task(name).aggregation() if metric.endswith("_stderr")], name


def test_mctaco_aggregations_are_lm_evals_mean():
    """So that lm-eval's own closed-form standard error applies, on 0.4 and 0.5 alike."""
    aggregations = _lm_eval_task("mc_taco_official").aggregation()
    from lm_eval.api.registry import get_aggregation

    assert set(aggregations.values()) == {get_aggregation("mean")}
