"""TempBench's bundled example through every entry point: what tests/test_contract.py runs (see
`benchscore.core.contract`), and how to feed each entry point this benchmark's files."""

import json

import numpy as np

from benchscore.core.contract import Case, EvalPrediction
from benchscore.tempbench_trp import files, loader, trainer


def evidence_lists(questions: str, evidence: str) -> list:
    """Each question's evidence list from a run file, in the question file's order."""
    with open(evidence, encoding="utf-8") as f:
        runs = {line["id"]: line["evidence"] for line in map(json.loads, f)}
    return [runs[question["id"]] for question in files.read_references(questions)]


def module_inputs(questions: str, evidence: str) -> dict:
    """The evaluate module's compute() inputs for a question file and a run file."""
    return {"predictions": evidence_lists(questions, evidence),
            **loader.metric_inputs(files.read_references(questions))}


def trainer_run(questions: str, evidence: str) -> tuple:
    """The Trainer helper with a `decode` that returns each row's evidence (the model's output is its row number)."""
    per_row = evidence_lists(questions, evidence)

    def decode(predictions, indices):
        return [per_row[i] for i in indices]

    dataset = loader.load_tempbench(questions)
    return trainer.compute_metrics_for(dataset, decode), EvalPrediction(np.arange(len(per_row)).reshape(-1, 1))


CASE = Case(
    files=("questions.jsonl", "evidence.jsonl"),
    cli_args=lambda questions, evidence: ["--questions", questions, "--evidence", evidence, "--json"],
    pure=files.score_files, inputs=module_inputs, trainer=trainer_run,
    headline=("n_questions", "coverage", "TRP_macro", "TRP_micro", "CCR"),
    space_cells={key: ({"slice": "all questions"}, column) for key, column in (
        ("n_questions", "questions"), ("coverage", "coverage"), ("TRP_macro", "TRP"), ("TRP_micro", "TRP_micro"),
        ("CCR", "CCR"))})
