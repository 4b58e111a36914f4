"""The template benchmark's Space: accuracy in the browser, read as the CLI reads the files
(`benchscore.core.space`). Serve it with `python app.py`."""

import importlib
import pathlib

import pandas as pd

import benchscore
from benchscore.core import space

HERE = pathlib.Path(__file__).resolve().parent
PACKAGE = "benchscore." + HERE.name  # this folder's package (a Space's folder keeps the benchmark's name)
files = importlib.import_module(PACKAGE + ".files")
scoring = importlib.import_module(PACKAGE + ".scoring")

INPUTS = (space.FileInput("gold JSONL", (".jsonl",), "gold-file", "gold.jsonl"),
          space.FileInput("predictions JSONL", (".jsonl",), "predictions-file", "predictions.jsonl"))
RESULT_HEADERS = ["slice", "items", "correct", "accuracy"]
TABLE_HEADERS = ["id", "gold", "prediction"]
TABLE_EXAMPLE = [["q1", "yes", "yes"], ["q2", "no", "yes"], ["q3", "maybe", "maybe"]]


def show(result, names, display="rounded"):
    """Result dict -> (table, bar chart data, signature, notes)."""
    table = pd.DataFrame([["all items", result["n_items"], result["n_correct"],
                           space.number(result["accuracy"], display)]],
                         columns=RESULT_HEADERS)
    bars = [{"bar": "all items", "metric": "accuracy", "score": result["accuracy"]}]
    return table, space.bars(bars), result["signature"], space.notes(result, names)


present = space.Presenter(benchscore.benchmark(HERE.name), show)
score_files, score_text = space.file_scorers(INPUTS, files.score_files, present)


def score_table(table, display="rounded"):
    """The editable table: one item per row."""
    rows = space.table_rows(table, TABLE_HEADERS, required=TABLE_HEADERS)
    ids, gold, predictions = (list(column) for column in zip(*rows))
    labels = [f"table row {number}" for number in range(1, len(rows) + 1)]
    return present(space.table_scored(scoring.score, labels, predictions, gold, ids), {}, display)


def build_demo():
    outputs = [space.results_table(RESULT_HEADERS, "Scores"), space.bar_chart("Accuracy"), space.signature_box(),
               space.notes_box("Notes")]
    return space.build_demo(
        folder=HERE, title="Accuracy metric", heading="Accuracy (template benchmark)",
        inputs=INPUTS, outputs=outputs, present=present, score_files=score_files, score_text=score_text,
        score_table=score_table,
        example=["gold.jsonl", "predictions.jsonl"], example_label="Bundled example: 5 items",
        upload_note='Two JSONL files, one {"id": ..., "label": ...} per line: the gold items and your predictions.',
        table_value=TABLE_EXAMPLE, table_headers=TABLE_HEADERS, table_note="One item per row.")


if __name__ == "__main__":
    space.launch(build_demo)
