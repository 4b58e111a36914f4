"""One contract, every benchmark, every entry point (in the spirit of torchmetrics' MetricTester).

On each folder's bundled example, these give the same headline numbers, to the last float:
the pure read path (`files.score_files`, no evaluate), `evaluate` `compute`, `add_batch` in chunks,
two processes (evaluate's `num_process=2`), the Trainer helper, `benchscore <bench> --json`, and the
Space's scoring function (every number it shows, with all its digits).

A benchmark plugs in with a `Case`: how to read its example into module inputs, how to call each
entry point, and which numbers are its headline. Adding a fifth benchmark means adding a Case.
"""

import json
import uuid
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

from benchscore import cli
from benchscore.core.trainer import flatten_for_logging
from benchscore.mctaco import files as mctaco_files
from benchscore.mctaco import loader as mctaco_loader
from benchscore.mctaco import trainer as mctaco_trainer
from benchscore.tempbench_trp import files as tempbench_files
from benchscore.tempbench_trp import loader as tempbench_loader
from benchscore.tempbench_trp import trainer as tempbench_trainer
from benchscore.tsver import files as tsver_files
from benchscore.tsver import loader as tsver_loader
from benchscore.tsver import scoring as tsver_scoring
from benchscore.tsver import trainer as tsver_trainer
from benchscore.webnlg_rdf import files as webnlg_files
from benchscore.webnlg_rdf import loader as webnlg_loader
from benchscore.webnlg_rdf import trainer as webnlg_trainer
from conftest import METRICS
from conftest import load_metric
from test_distributed import EVALUATE_WORKER
from test_distributed import run_pair

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # the examples exercise warned quirks


class EvalPred:
    """What the helpers read of transformers' EvalPrediction."""

    def __init__(self, predictions, label_ids):
        self.predictions, self.label_ids = predictions, label_ids


def row_numbers(n):
    return np.arange(n).reshape(n, 1)


@dataclass
class Case:
    folder: str
    files: tuple  # the bundled example's files, in the CLI's order
    cli_args: Callable  # paths -> argv after the command name (JSON output)
    pure: Callable  # paths -> result dict, without evaluate
    inputs: Callable  # paths -> the evaluate module's compute() inputs
    trainer: Callable  # paths -> (compute_metrics, eval_pred)
    headline: tuple  # flattened keys that every entry point must agree on
    space_cells: dict  # headline key -> ({column: value} picking one row of the Space's table, column)
    config_name: str = None

    def paths(self):
        return [str(METRICS / self.folder / "examples" / name) for name in self.files]


# ---------------------------------------------------------------- MC-TACO

def mctaco_inputs(gold, predictions):
    rows = mctaco_files.read_references(gold)
    return {"predictions": ["yes" if yes else "no" for yes in mctaco_files.read_predictions(predictions)],
            "references": [row["label"] for row in rows], "sentence": [row["sentence"] for row in rows],
            "question": [row["question"] for row in rows], "category": [row["category"] for row in rows]}


def mctaco_trainer_run(gold, predictions):
    rows = mctaco_loader.load_split(gold)
    yes = np.array(mctaco_files.read_predictions(predictions))
    logits = np.stack([~yes, yes], axis=1).astype(np.float32)  # argmax = the predicted label
    return mctaco_trainer.compute_metrics_for(rows), EvalPred(logits, np.array(rows["label"]))


# ---------------------------------------------------------------- TempBench

def tempbench_evidence(questions, evidence):
    runs = {line["id"]: line["evidence"] for line in map(json.loads, open(evidence, encoding="utf-8"))}
    return [runs[question["id"]] for question in tempbench_files.read_references(questions)]


def tempbench_inputs(questions, evidence):
    return {"predictions": tempbench_evidence(questions, evidence),
            **tempbench_loader.metric_inputs(tempbench_files.read_references(questions))}


def tempbench_trainer_run(questions, evidence):
    per_row = tempbench_evidence(questions, evidence)
    dataset = tempbench_loader.load_tempbench(questions)
    decode = lambda predictions, indices: [per_row[i] for i in indices]  # noqa: E731
    return tempbench_trainer.compute_metrics_for(dataset, decode), EvalPred(row_numbers(len(per_row)), None)


# ---------------------------------------------------------------- WebNLG

def webnlg_inputs(references, candidates):
    entries = webnlg_loader.load_dataset(references, candidates)
    return {"predictions": list(entries["predictions"]), "references": list(entries["references"])}


def webnlg_trainer_run(references, candidates):
    entries = webnlg_loader.load_dataset(references, candidates)
    decoded = list(entries["predictions"])
    decode = lambda predictions, indices: [decoded[i] for i in indices]  # noqa: E731
    return (webnlg_trainer.compute_metrics_for(entries.remove_columns("predictions"), decode),
            EvalPred(row_numbers(len(decoded)), None))


WEBNLG_HEADLINE = tuple(f"Total_scores/{scheme}/{rate}" for scheme in ("Ent_type", "Partial", "Strict", "Exact")
                        for rate in ("Precision", "Recall", "F1")) + ("Exact_match/F1",)
WEBNLG_CELLS = {key: ({"scores": "Total_scores", "scheme": key.split("/")[1]}, key.split("/")[2])
                for key in WEBNLG_HEADLINE[:-1]} | {"Exact_match/F1": ({"scores": "Exact_match"}, "F1")}


# ---------------------------------------------------------------- TSVer

def tsver_inputs(gold, predictions, _ev2r=None):
    references = [{name: row[name] for name in ("claim", "verdict", "justifications", "time_series")}
                  for row in tsver_loader.gold_dataset(gold)]
    return {"predictions": list(tsver_loader.predictions_dataset(predictions, gold)), "references": references}


def tsver_trainer_run(gold, predictions, _ev2r=None):
    """A classifier can only name one of the four labels: its logits give each claim the label the
    official matcher reads in the prediction file, Refuted where it reads none ("error", no line).
    The helper is therefore held to `compute` on those same labels (see test_trainer_helper)."""
    inputs = tsver_inputs(gold, predictions)
    labels = [tsver_scoring.match_verdict(p["verdict"]) if p["verdict"] else None for p in inputs["predictions"]]
    logits = np.eye(len(tsver_scoring.LABELS))[[tsver_scoring.LABELS.index(label or "Refuted") for label in labels]]
    rows = tsver_loader.gold_dataset(gold)
    series = [p["time_series"] for p in inputs["predictions"]]
    return (tsver_trainer.compute_metrics_for(rows, predicted_time_series=series),
            EvalPred(logits, np.array([tsver_scoring.LABELS.index(v) for v in rows["verdict"]])))


CASES = {
    "mctaco": Case(
        "mctaco", ("example.tsv", "example_predictions.txt"),
        cli_args=lambda gold, pred: ["mctaco", "--gold", gold, "--predictions", pred, "--json"],
        pure=mctaco_files.score_files, inputs=mctaco_inputs, trainer=mctaco_trainer_run,
        headline=("em", "f1", "n_questions"),
        space_cells={key: ({"slice": "all questions"}, column)
                     for key, column in (("em", "EM"), ("f1", "F1"), ("n_questions", "questions"))}),
    "tempbench": Case(
        "tempbench_trp", ("questions.jsonl", "evidence.jsonl"),
        cli_args=lambda q, e: ["tempbench", "--questions", q, "--evidence", e, "--json"],
        pure=tempbench_files.score_files, inputs=tempbench_inputs, trainer=tempbench_trainer_run,
        headline=("n_questions", "coverage", "TRP_macro", "TRP_micro", "CCR"),
        space_cells={key: ({"slice": "all questions"}, column) for key, column in (
            ("n_questions", "questions"), ("coverage", "coverage"), ("TRP_macro", "TRP"), ("TRP_micro", "TRP_micro"),
            ("CCR", "CCR"))}),
    "webnlg": Case(
        "webnlg_rdf", ("refs.xml", "cands.xml"),
        cli_args=lambda r, c: ["webnlg", r, c, "--json", "--no-progress"],
        pure=lambda r, c: webnlg_files.score_files(r, c), inputs=webnlg_inputs, trainer=webnlg_trainer_run,
        headline=WEBNLG_HEADLINE, space_cells=WEBNLG_CELLS),
    "tsver": Case(
        "tsver", ("gold.jsonl", "predictions.jsonl"),
        cli_args=lambda g, p: ["tsver", "--gold", g, "--predictions", p, "--json"],
        pure=lambda g, p: tsver_files.score_files(g, p), inputs=tsver_inputs, trainer=tsver_trainer_run,
        headline=("verdict_accuracy", "verdict_macro_f1", "tscs", "iou", "n_claims", "n_correct"),
        space_cells={key: ({"score": row}, "value") for key, row in (
            ("verdict_accuracy", "Verdict Accuracy"), ("verdict_macro_f1", "Verdict F1 (macro, 4 labels)"),
            ("tscs", "TSCS"), ("iou", "time ranges: mean IoU"), ("n_claims", "gold claims"),
            ("n_correct", "verdicts correct"))}),
}


def headline(case, result):
    flat = flatten_for_logging(result)
    missing = [key for key in case.headline if key not in flat]
    assert not missing, f"{case.folder}: the result has no {missing}"
    return {key: flat[key] for key in case.headline}


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request):
    return CASES[request.param]


@pytest.fixture(scope="module")
def expected(case):
    """The pure read path's headline numbers: what every other entry point must give."""
    return headline(case, case.pure(*case.paths()))


def test_evaluate_compute(case, expected):
    result = load_metric(case.folder, case.config_name).compute(**case.inputs(*case.paths()))
    assert headline(case, result) == expected


def test_evaluate_add_batch_in_chunks(case, expected):
    module = load_metric(case.folder, case.config_name)
    inputs = case.inputs(*case.paths())
    n = len(inputs["predictions"])
    for start in range(0, n, 2):
        module.add_batch(**{name: column[start:start + 2] for name, column in inputs.items()})
    assert headline(case, module.compute()) == expected


def test_two_processes(case, expected, tmp_path):
    spec = {"cache_dir": str(tmp_path / "cache"), "timeout": 60, "jobs": [
        {"name": case.folder, "path": str(METRICS / case.folder), "config_name": case.config_name,
         "inputs": case.inputs(*case.paths()), "compute_kwargs": {}, "batch_size": 2,
         "experiment_id": uuid.uuid4().hex}]}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    rank0, rank1 = run_pair(EVALUATE_WORKER, lambda rank: [str(tmp_path / "spec.json"), str(rank)])
    assert rank1 == {case.folder: None}
    assert headline(case, rank0[case.folder]) == json.loads(json.dumps(expected))


def test_trainer_helper(case, expected):
    compute_metrics, eval_pred = case.trainer(*case.paths())
    logged = compute_metrics(eval_pred)
    if case.folder == "tsver":  # see tsver_trainer_run: checked against compute on the same labels
        inputs = case.inputs(*case.paths())
        for prediction, logits in zip(inputs["predictions"], eval_pred.predictions):
            prediction["verdict"] = tsver_scoring.LABELS[int(np.argmax(logits))]
        expected = headline(case, load_metric("tsver").compute(**inputs))
    assert {key: logged[key] for key in case.headline} == expected
    assert headline(case, compute_metrics.last_result) == expected


def test_cli_json(case, expected, capsys):
    assert cli.main(case.cli_args(*case.paths())) == 0
    assert headline(case, json.loads(capsys.readouterr().out)) == expected


def test_space_shows_every_headline_number(case, expected):
    """Each headline number in its own cell (the row and column the Space labels it with), every digit."""
    pytest.importorskip("gradio", reason="gradio is not installed (CI installs the spaces extra)")
    import browser

    app = browser.load_app(case.folder)
    table = app.score_files(*case.paths())[0]
    assert set(case.space_cells) == set(case.headline)
    for key, value in expected.items():
        match, column = case.space_cells[key]
        rows = table[np.logical_and.reduce([table[name] == wanted for name, wanted in match.items()])]
        assert len(rows) == 1, (key, match, table.to_string())
        cell = str(rows[column].iloc[0])
        assert cell == repr(value) or (isinstance(value, int) and cell == str(value)), (key, value, cell)


def _with_surrogate(value):
    """`value` (an example's feature) with "\\ud800" added to its first string; None if it has none."""
    if isinstance(value, str):
        return value + "\ud800"
    if isinstance(value, dict):
        for key, item in value.items():
            changed = _with_surrogate(item)
            if changed is not None:
                return {**value, key: changed}
    if isinstance(value, list):
        for i, item in enumerate(value):
            changed = _with_surrogate(item)
            if changed is not None:
                return value[:i] + [changed] + value[i + 1:]
    return None


def test_a_lone_surrogate_in_any_text_feature_is_refused_naming_the_example(case):
    # Arrow cannot store one; evaluate would raise a bare UnicodeEncodeError naming nothing.
    inputs = case.inputs(*case.paths())
    module = load_metric(case.folder, case.config_name)
    tried = 0
    for name, column in inputs.items():
        changed = _with_surrogate(column[1])
        if changed is None:
            continue
        tried += 1
        with pytest.raises(ValueError, match=r"^example 1: "):  # a bad label, or "holds a lone surrogate"
            module.compute(**{**inputs, name: [column[0], changed, *column[2:]]})
    assert tried > 0
