"""The MC-TACO Space: question-level EM and F1 (the official evaluator's numbers) in the browser.

Files are read as `benchscore mctaco` reads them; see `benchscore.core.space`. Serve it with `python app.py`.
"""

import pathlib

import gradio as gr
import pandas as pd

import benchscore
from benchscore.core import space
from benchscore.mctaco import files, scoring

HERE = pathlib.Path(__file__).resolve().parent
INPUTS = (space.FileInput("MC-TACO TSV", (".tsv", ".txt"), "gold-file", "gold.tsv"),
          space.FileInput("predictions", (".txt",), "predictions-file", "predictions.txt"))
RESULT_HEADERS = ["slice", "questions", "EM", "F1"]
TABLE_HEADERS = ["question", "answer", "gold", "prediction", "category"]
TABLE_EXAMPLE = [["How long did it take to boil the pasta?", "about ten minutes", "yes", "yes", "Event Duration"],
                 ["How long did it take to boil the pasta?", "three weeks", "no", "no", "Event Duration"],
                 ["How long did it take to boil the pasta?", "12 minutes", "yes", "no", "Event Duration"],
                 ["How often does the bakery open?", "once a day", "yes", "yes", "Frequency"],
                 ["How often does the bakery open?", "every century", "no", "no", "Frequency"]]


def show(result, names, display="rounded"):
    """Result dict -> (per-category table, bar chart data, signature, notes)."""
    slices = {"all questions": result, **result.get("extension_per_category", {})}
    table = pd.DataFrame([[name, cell["n_questions"], space.number(cell["em"], display),
                           space.number(cell["f1"], display)]
                          for name, cell in slices.items()], columns=RESULT_HEADERS)
    bars = [{"bar": f"{metric} · {name}", "metric": metric, "score": cell[key]}
            for name, cell in slices.items() for metric, key in (("EM", "em"), ("F1", "f1"))]
    return table, space.bars(bars), result["signature"], space.notes(result, names)


present = space.Presenter(benchscore.benchmark("mctaco"), show)
score_files, score_text = space.file_scorers(INPUTS, files.score_files, present)


# A cell is text: the 1/0 and True/False that `scoring.parse_label` takes as numbers and booleans, read
# from text, so that the table accepts what the error message says it does.
_CELL_LABELS = {"1": 1, "0": 0, "true": True, "false": False}


def _label(cell):
    return _CELL_LABELS.get(cell.lower(), cell)


def score_table(table, display="rounded"):
    """The editable table: one candidate per row; the question text (or any id) groups candidates."""
    rows = space.table_rows(table, TABLE_HEADERS, required=("question", "gold", "prediction"))
    questions, _, gold, predictions, categories = zip(*rows)
    gold, predictions = [_label(cell) for cell in gold], [_label(cell) for cell in predictions]
    if any(categories) and not all(categories):
        raise gr.Error(f"table row {categories.index('') + 1}: category is empty; give a category in every row or none")
    labels = [f"table row {number}" for number in range(1, len(rows) + 1)]
    result = space.table_scored(scoring.score, labels, predictions, gold, questions,
                                categories if all(categories) else None)
    return present(result, {}, display)


def build_demo():
    outputs = [space.results_table(RESULT_HEADERS, "Scores (per category: an extension)"),
               space.bar_chart("By category"), space.signature_box(),
               space.notes_box("Notes (where the official evaluator would differ)")]
    return space.build_demo(
        folder=HERE, title="MC-TACO metric", heading="MC-TACO: question-level EM and F1",
        inputs=INPUTS, outputs=outputs, present=present, score_files=score_files, score_text=score_text,
        score_table=score_table,
        example=["example.tsv", "example_predictions.txt"], example_label="Bundled example: 5 questions, 13 candidates",
        upload_note="The official formats: the MC-TACO TSV (sentence, question, answer, label, category; e.g. "
                    "`dev_3783.tsv`) and your predictions, one `yes`/`no` per line in the same order.",
        table_value=TABLE_EXAMPLE, table_headers=TABLE_HEADERS,
        table_note="One candidate per row. Rows with the same question are one question; category is optional "
                   "(leave the column empty or fill every row).",
    )


if __name__ == "__main__":
    space.launch(build_demo)
