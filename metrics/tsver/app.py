"""The TSVer Space: verdict accuracy and macro-F1, TSCS and (recorded) Ev2R, the official scorer's numbers.

The Space runs no LLM judge: Ev2R comes from a recorded judge file (the official
`{"Claim", "ev2r_response"}` JSONL), or is left out. Serve it with `python app.py`.
"""

import pathlib

import gradio as gr
import pandas as pd

import benchscore
from benchscore.core import space
from benchscore.tsver import files, scoring
from benchscore.tsver.scoring import percent

HERE = pathlib.Path(__file__).resolve().parent
INPUTS = (space.FileInput("Gold JSONL", (".jsonl", ".json"), "gold-file", "gold.jsonl"),
          space.FileInput("Predictions JSONL", (".jsonl", ".json"), "predictions-file", "predictions.jsonl"),
          space.FileInput("Recorded Ev2R JSONL (optional)", (".jsonl", ".json"), "ev2r-file", "ev2r.jsonl",
                          optional=True))
RESULT_HEADERS = ["score", "value", "official table (%)"]
# (result key, name shown): the official table's rows first, then what the JSON adds.
SCORES = [("tscs", "TSCS"),
          ("verdict_macro_f1", "Verdict F1 (macro, 4 labels)"),
          ("verdict_accuracy", "Verdict Accuracy"),
          ("ev2r_f1", "Justifications Ev2R Score"),
          ("ev2r_precision", "Ev2R precision"),
          ("ev2r_recall", "Ev2R recall"),
          ("iou", "time ranges: mean IoU"),
          ("precision", "time ranges: mean precision"),
          ("recall", "time ranges: mean recall"),
          ("f1", "time ranges: mean F1")]
COUNTS = [("n_claims", "gold claims"),
          ("n_scored", "verdicts scored"),
          ("n_correct", "verdicts correct"),
          ("n_in_tscs", "claims in TSCS"),
          ("n_unmatched", "verdicts matching no label"),
          ("n_errors", 'error predictions (verdict "error")'),
          ("n_missing", "claims without a prediction line"),
          ("n_ev2r_judged", "Ev2R: claims judged"),
          ("n_ev2r_failed", "Ev2R: judge failures")]
TABLE_HEADERS = ["claim", "gold verdict", "predicted verdict", "gold ranges", "predicted ranges"]
TABLE_EXAMPLE = [["Rainfall doubled between 2000 and 2004.", "Supported", "supported.", "rainfall: 2000-2004",
                  "rainfall: 2002-2006"],
                 ["Emissions fell in 2011.", "Refuted", "Refuted", "emissions: 2010-2011", "emissions: 2010-2011"],
                 ["Literacy has never been higher.", "Not Enough Evidence", "not supported",
                  "literacy: 2000-2001, 2001-2003", "literacy: 2003-2003"]]

PAGE = {"title": "TSVer metric",  # the texts of the page
        "heading": "TSVer: verdicts, time ranges (TSCS) and Ev2R",
        "example_label": "Bundled example: 7 claims, every quirk",
        "upload_note": "The official formats: the gold JSONL (`tsver_test.jsonl`), your prediction JSONL (`Claim`, "
                       "`Verdict`, `Explanation`, `PredictedTimeRanges`) and, for Ev2R, a recorded judge file "
                       '(`{"Claim", "ev2r_response"}` lines; this Space runs no LLM).',
        "table_note": "One claim per row. Verdicts: the gold one is a label; the predicted one is free text, mapped "
                      "by the official matcher. Ranges: `series: from-to[, from-to]`, series separated by `;`."}


def _options(strict=False, ev2r_aggregation="tsver"):
    return {"strict": bool(strict), "ev2r_aggregation": ev2r_aggregation}


def _ranges(text, number, column):
    """'series: 2000-2004, 2010-2011; other: 1990-1999' -> {series: [{"from", "to"}, ...]}."""
    series = {}
    for part in filter(str.strip, text.split(";")):
        name, colon, spans = part.rpartition(":")  # the last colon: series ids may contain colons
        try:
            if not colon or not name.strip():
                raise ValueError
            for span in spans.split(","):
                start, end = span.split("-")  # int() ignores the spaces around each year
                series.setdefault(name.strip(), []).append({"from": int(start), "to": int(end)})
        except ValueError:
            raise gr.Error(f"table row {number}: {column} {part.strip()!r} is not 'series: from-to[, from-to]'; "
                           "e.g. 'rainfall: 2000-2004; co2: 2010-2011'", print_exception=False) from None
    return series


def _table_claims(rows):
    """The table's rows as checked gold records and aligned predictions (a later row for a claim wins)."""
    gold, by_claim = [], {}
    for number, row in enumerate(rows, start=1):
        cells = dict(zip(TABLE_HEADERS, row))
        record = {"Claim": cells["claim"], "Verdict": cells["gold verdict"], "Justifications": [],
                  "TimeSeries": _ranges(cells["gold ranges"], number, "gold ranges")}
        gold.append(space.scored(scoring.check_gold, {}, record, f"table row {number}"))
        # The predicted verdict is free text, mapped by the official matcher (an empty one is kept as "").
        ranges = _ranges(cells["predicted ranges"], number, "predicted ranges")
        space.scored(scoring.check_series, {}, ranges, f"table row {number}: predicted ranges")
        by_claim[cells["claim"]] = {"verdict": cells["predicted verdict"], "explanation": None, "ranges": ranges}
    return gold, [by_claim[g["Claim"]] for g in gold]


def score_table(table, strict=False, ev2r_aggregation="tsver", display="rounded"):
    """The editable table: one claim per row, scored as the files would be."""
    rows = space.table_rows(table, TABLE_HEADERS, required=("claim", "gold verdict", "gold ranges"))
    gold, predictions = _table_claims(rows)
    return present(space.scored(files.score, {}, gold, predictions, None, **_options(strict, ev2r_aggregation)), {},
                   display)


def show(result, names, display="rounded"):
    """Result dict -> (scores table, confusion matrix, bar chart data, signature, notes); the last column is
    the official table's print (x100, 2 decimals) whatever the display."""
    rows = [[name, space.number(result[key], display), percent(result[key])] for key, name in SCORES if key in result]
    rows += [[name, str(result[key]), ""] for key, name in COUNTS if key in result]
    matrix = result["confusion_matrix"]
    confusion = pd.DataFrame([[label, *map(str, row)] for label, row in zip(scoring.LABELS, matrix)],
                             columns=["gold \\ predicted", *scoring.LABELS])
    bars = pd.DataFrame([{"gold": gold, "predicted": predicted, "claims": count}
                         for gold, row in zip(scoring.LABELS, matrix) for predicted, count in zip(scoring.LABELS, row)])
    return (pd.DataFrame(rows, columns=RESULT_HEADERS), confusion, gr.BarPlot(value=bars, sort=list(scoring.LABELS)),
            result["signature"], space.notes(result, names))


present = space.Presenter(benchscore.benchmark("tsver"), show)
score_files, score_text = space.file_scorers(INPUTS, files.score_files, present, _options)


def _options_widgets():
    with gr.Accordion("Options (named in the signature)", open=False), gr.Row():
        strict = gr.Checkbox(
            label="Strict: missing or unmatched verdicts count wrong, missing predictions score 0 in TSCS")
        ev2r_aggregation = gr.Radio(list(scoring.EV2R_AGGREGATIONS), value="tsver",
                                    label="Ev2R aggregation: tsver (official micro sums) or paper (per-claim mean)")
    return [strict, ev2r_aggregation]


def build_demo():
    outputs = [space.results_table(RESULT_HEADERS, "Scores (fractions; the official table prints them x100)"),
               space.results_table(None, "Confusion matrix (verdicts scored)", elem_id="confusion"),
               space.bar_chart("Predicted verdicts per gold verdict", x="gold", y="claims", color="predicted",
                               y_lim=None, x_title="gold verdict", x_label_angle=-15),
               space.signature_box(),
               space.notes_box("Notes from the scorer (what the official scorer does silently)", lines=3)]
    return space.build_demo(**PAGE, folder=HERE, inputs=INPUTS, outputs=outputs, present=present,
                            options=_options_widgets,
                            example=["gold.jsonl", "predictions.jsonl", "ev2r.jsonl"], score_files=score_files,
                            score_text=score_text, score_table=score_table, table_value=TABLE_EXAMPLE,
                            table_headers=TABLE_HEADERS)


if __name__ == "__main__":
    space.launch(build_demo)
