"""TSVer's bundled example through every entry point: what tests/test_contract.py runs (see
`benchscore.core.contract`), and how to feed each entry point this benchmark's files."""

import numpy as np

from benchscore.core.contract import Case, EvalPrediction
from benchscore.tsver import files, loader, scoring, trainer


def module_inputs(gold: str, predictions: str) -> dict:
    """The evaluate module's compute() inputs for a gold file and a prediction file."""
    references = [{name: row[name] for name in ("claim", "verdict", "justifications", "time_series")}
                  for row in loader.gold_dataset(gold)]
    return {"predictions": list(loader.predictions_dataset(predictions, gold)), "references": references}


def trainer_run(gold: str, predictions: str) -> tuple:
    """A classifier can only name one of the four labels: its logits give each claim the label the
    official matcher reads in the prediction file, Refuted where it reads none ("error", no line);
    `classified_inputs` says what compute gets for those same labels."""
    inputs = module_inputs(gold, predictions)
    labels = [scoring.match_verdict(p["verdict"]) if p["verdict"] else None for p in inputs["predictions"]]
    logits = np.eye(len(scoring.LABELS))[[scoring.LABELS.index(label or "Refuted") for label in labels]]
    rows = loader.gold_dataset(gold)
    series = [p["time_series"] for p in inputs["predictions"]]
    return (trainer.compute_metrics_for(rows, predicted_time_series=series),
            EvalPrediction(logits, np.array([scoring.LABELS.index(v) for v in rows["verdict"]])))


def classified_inputs(inputs: dict, eval_pred: EvalPrediction) -> dict:
    """The compute inputs with each verdict replaced by the label the logits give (the argmax)."""
    predictions = [dict(p, verdict=scoring.LABELS[int(np.argmax(logits))])
                   for p, logits in zip(inputs["predictions"], eval_pred.predictions)]
    return {**inputs, "predictions": predictions}


CASE = Case(
    files=("gold.jsonl", "predictions.jsonl"),
    cli_args=lambda gold, predictions: ["--gold", gold, "--predictions", predictions, "--json"],
    pure=lambda gold, predictions: files.score_files(gold, predictions), inputs=module_inputs, trainer=trainer_run,
    headline=("verdict_accuracy", "verdict_macro_f1", "tscs", "iou", "n_claims", "n_correct"),
    space_cells={key: ({"score": row}, "value") for key, row in (
        ("verdict_accuracy", "Verdict Accuracy"), ("verdict_macro_f1", "Verdict F1 (macro, 4 labels)"),
        ("tscs", "TSCS"), ("iou", "time ranges: mean IoU"), ("n_claims", "gold claims"),
        ("n_correct", "verdicts correct"))},
    trainer_inputs=classified_inputs)
