"""The bundled example through every entry point: what tests/test_contract.py runs (see
`benchscore.core.contract`), and how to feed each entry point this benchmark's files."""

import numpy as np

from benchscore.core.contract import Case, EvalPrediction

from . import files, loader, trainer


def module_inputs(gold: str, predictions: str) -> dict:
    """The evaluate module's compute() inputs for a gold and a prediction file."""
    items, labels = files.aligned(gold, predictions)
    return {"predictions": labels, "references": [item["label"] for item in items],
            "item_id": [item["id"] for item in items]}


def trainer_run(gold: str, predictions: str) -> tuple:
    """The Trainer helper on the loader's rows, and logits whose argmax is each predicted label (a
    predicted label the classifier does not know is the first label; `classified_inputs` says so)."""
    rows = loader.load_dataset(gold)
    names = rows.features["label"].names
    _, labels = files.aligned(gold, predictions)
    logits = np.eye(len(names), dtype=np.float32)[[names.index(p) if p in names else 0 for p in labels]]
    return trainer.compute_metrics_for(rows), EvalPrediction(logits, np.array(rows["label"]))


def classified_inputs(inputs: dict, eval_pred: EvalPrediction) -> dict:
    """The compute inputs with each prediction the label the logits give (the argmax)."""
    names = sorted(set(inputs["references"]))
    return {**inputs, "predictions": [names[i] for i in np.argmax(eval_pred.predictions, axis=1)]}


CASE = Case(
    files=("gold.jsonl", "predictions.jsonl"),
    cli_args=lambda gold, predictions: ["--gold", gold, "--predictions", predictions, "--json"],
    pure=files.score_files, inputs=module_inputs, trainer=trainer_run,
    headline=("accuracy", "n_correct", "n_items"),
    space_cells={"accuracy": ({"slice": "all items"}, "accuracy"), "n_correct": ({"slice": "all items"}, "correct"),
                 "n_items": ({"slice": "all items"}, "items")},
    trainer_inputs=classified_inputs)
