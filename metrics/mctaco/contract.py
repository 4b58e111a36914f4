"""MC-TACO's bundled example through every entry point: what tests/test_contract.py runs (see
`benchscore.core.contract`), and how to feed each entry point this benchmark's files."""

import numpy as np

from benchscore.core.contract import Case, EvalPrediction
from benchscore.mctaco import files, loader, trainer


def module_inputs(gold: str, predictions: str) -> dict:
    """The evaluate module's compute() inputs for a gold TSV and a prediction file."""
    rows = files.read_references(gold)
    return {"predictions": ["yes" if yes else "no" for yes in files.read_predictions(predictions)],
            "references": [row["label"] for row in rows], "sentence": [row["sentence"] for row in rows],
            "question": [row["question"] for row in rows], "category": [row["category"] for row in rows]}


def trainer_run(gold: str, predictions: str) -> tuple:
    """The Trainer helper on the loader's rows, and logits whose argmax is each predicted label."""
    rows = loader.load_split(gold)
    yes = np.array(files.read_predictions(predictions))
    logits = np.stack([~yes, yes], axis=1).astype(np.float32)
    return trainer.compute_metrics_for(rows), EvalPrediction(logits, np.array(rows["label"]))


CASE = Case(
    files=("example.tsv", "example_predictions.txt"),
    cli_args=lambda gold, predictions: ["--gold", gold, "--predictions", predictions, "--json"],
    pure=files.score_files, inputs=module_inputs, trainer=trainer_run,
    headline=("em", "f1", "n_questions"),
    space_cells={key: ({"slice": "all questions"}, column)
                 for key, column in (("em", "EM"), ("f1", "F1"), ("n_questions", "questions"))})
