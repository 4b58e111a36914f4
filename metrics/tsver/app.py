"""The TSVer Space: verdict accuracy and macro-F1, TSCS and (recorded) Ev2R, the official scorer's numbers.

Scores with the folder's pure functions (no `evaluate` round trip). Runs the same on a Space, where
this folder is pushed alone, and from the repository: the folder is loaded as a package from its own
path, so its modules' relative imports work in both places. The Space runs no LLM judge: Ev2R comes
from a recorded judge file (the official `{"Claim", "ev2r_response"}` JSONL), or is left out.

    python app.py                      # serves on http://127.0.0.1:7860
"""

import importlib
import importlib.util
import json
import pathlib
import re
import sys
import tempfile
import warnings

import gradio as gr
import pandas as pd

HERE = pathlib.Path(__file__).resolve().parent
MAX_FILE_SIZE = "5mb"  # uploads (gradio refuses larger files) and pasted text alike
MAX_TEXT_CHARS = 5_000_000


def _load_folder(package_name):
    """This folder as the package `package_name`; returns a function importing its modules."""
    if package_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            package_name, HERE / "__init__.py", submodule_search_locations=[str(HERE)]
        )
        package = importlib.util.module_from_spec(spec)
        sys.modules[package_name] = package
        spec.loader.exec_module(package)
    return lambda module: importlib.import_module(f"{package_name}.{module}")


_module = _load_folder("tsver_space")
scoring = _module("scoring")
judges = _module("judges")
cli = _module("cli")

RESULT_HEADERS = ["score", "value", "official table (%)"]
# (result key, name shown): the official table's rows first, then what the JSON adds.
SCORES = [
    ("tscs", "TSCS"),
    ("verdict_macro_f1", "Verdict F1 (macro, 4 labels)"),
    ("verdict_accuracy", "Verdict Accuracy"),
    ("ev2r_f1", "Justifications Ev2R Score"),
    ("ev2r_precision", "Ev2R precision"),
    ("ev2r_recall", "Ev2R recall"),
    ("iou", "time ranges: mean IoU"),
    ("precision", "time ranges: mean precision"),
    ("recall", "time ranges: mean recall"),
    ("f1", "time ranges: mean F1"),
]
COUNTS = [
    ("n_claims", "gold claims"),
    ("n_scored", "verdicts scored"),
    ("n_correct", "verdicts correct"),
    ("n_in_tscs", "claims in TSCS"),
    ("n_unmatched", "verdicts matching no label"),
    ("n_errors", 'error predictions (verdict "error")'),
    ("n_missing", "claims without a prediction line"),
    ("n_ev2r_judged", "Ev2R: claims judged"),
    ("n_ev2r_failed", "Ev2R: judge failures"),
]
TABLE_HEADERS = ["claim", "gold verdict", "predicted verdict", "gold ranges", "predicted ranges"]
TABLE_EXAMPLE = [
    ["Rainfall doubled between 2000 and 2004.", "Supported", "supported.", "rainfall: 2000-2004",
     "rainfall: 2002-2006"],
    ["Emissions fell in 2011.", "Refuted", "Refuted", "emissions: 2010-2011", "emissions: 2010-2011"],
    ["Literacy has never been higher.", "Not Enough Evidence", "not supported", "literacy: 2000-2001, 2001-2003",
     "literacy: 2003-2003"],
]


def card_summary():
    """The opening of the metric card's description (README.md), else the scoring module's first paragraph."""
    card = HERE / "README.md"
    text = card.read_text(encoding="utf-8") if card.exists() else ""
    match = re.search(r"^## (?:Metric d|D)escription\n(.*?)(?=^##)", text, re.S | re.M)
    return match.group(1).strip() if match else scoring.__doc__.split("\n\n")[0]


def _replace_paths(text, names):
    """`text` with temporary paths replaced by what the user knows (a file name, "pasted gold")."""
    for path, name in names.items():
        text = text.replace(str(path), name)
    return text


def _user_error(err, names):
    """A gr.Error with the error's text, temporary paths replaced."""
    return gr.Error(_replace_paths(str(err), names), print_exception=False)


def score_files(gold_path, predictions_path, ev2r_path=None, strict=False, ev2r_aggregation="tsver"):
    """Uploaded official files: gold JSONL, prediction JSONL and, optionally, recorded Ev2R JSONL."""
    if not gold_path or not predictions_path:
        raise gr.Error("Upload at least the gold JSONL and the prediction JSONL (the Ev2R file is optional).")
    names = {path: pathlib.Path(path).name for path in (gold_path, predictions_path, ev2r_path) if path}
    return _score_paths(gold_path, predictions_path, ev2r_path, names, strict, ev2r_aggregation)


def score_text(gold_text, predictions_text, ev2r_text="", strict=False, ev2r_aggregation="tsver"):
    """Pasted file contents, read by the same readers as uploads."""
    if not (gold_text or "").strip() or not (predictions_text or "").strip():
        raise gr.Error("Paste at least the gold JSONL and the prediction JSONL (the Ev2R lines are optional).")
    texts = {"gold": gold_text, "predictions": predictions_text, "ev2r": ev2r_text or ""}
    if any(len(text) > MAX_TEXT_CHARS for text in texts.values()):
        raise gr.Error(f"Pasted text is limited to {MAX_TEXT_CHARS:,} characters; upload the files instead.")
    with tempfile.TemporaryDirectory() as folder:
        paths = {}
        for name, text in texts.items():
            if text.strip():
                paths[name] = pathlib.Path(folder, f"{name}.jsonl")
                paths[name].write_text(text, encoding="utf-8")
        names = {path: f"pasted {name}" for name, path in paths.items()}
        return _score_paths(paths["gold"], paths["predictions"], paths.get("ev2r"), names, strict, ev2r_aggregation)


def _score_paths(gold_path, predictions_path, ev2r_path, names, strict, ev2r_aggregation):
    """The CLI's validated scoring; warnings (e.g. verdicts matching no label) become notes."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            judge = judges.as_judge(str(ev2r_path)) if ev2r_path else None
            result = cli.evaluate_files(str(gold_path), str(predictions_path), judge, bool(strict), ev2r_aggregation)
    except (ValueError, TypeError, OSError) as err:
        raise _user_error(err, names) from None
    notes = "\n".join(_replace_paths(str(w.message), names) for w in caught) or "No warnings."
    return show(result, notes)


def _ranges(text, number, column):
    """'series: 2000-2004, 2010-2011; other: 1990-1999' -> {series: [{"from", "to"}, ...]}."""
    series = {}
    for part in filter(str.strip, text.split(";")):
        name, colon, spans = part.rpartition(":")  # the last colon: series ids may contain colons
        name = name.strip()
        try:
            if not colon or not name:
                raise ValueError
            ranges = []
            for span in spans.split(","):
                start, end = span.strip().split("-")
                ranges.append({"from": int(start), "to": int(end)})
        except ValueError:
            raise gr.Error(
                f"table row {number}: {column} {part.strip()!r} is not 'series: from-to[, from-to]'; "
                "e.g. 'rainfall: 2000-2004; co2: 2010-2011'"
            ) from None
        series.setdefault(name, []).extend(ranges)
    return series


def score_table(table, strict=False, ev2r_aggregation="tsver"):
    """The editable table: one claim per row, written out in the official formats and scored like files."""
    rows = [["" if value is None else str(value).strip() for value in row] for row in table.values.tolist()]
    if not rows:
        raise gr.Error("The table is empty; add one claim per row.")
    gold, predictions = [], []
    for number, row in enumerate(rows, start=1):
        cells = dict(zip(TABLE_HEADERS, row))
        for name in ("claim", "gold verdict", "gold ranges"):
            if not cells[name]:
                raise gr.Error(f"table row {number}: {name} is empty; expected a value in every row")
        gold.append({"Claim": cells["claim"], "Verdict": cells["gold verdict"], "Justifications": [],
                     "TimeSeries": _ranges(cells["gold ranges"], number, "gold ranges")})
        # The predicted verdict is free text, mapped by the official matcher (an empty one is kept as "").
        predictions.append({"Claim": cells["claim"], "Verdict": cells["predicted verdict"], "Explanation": None,
                            "PredictedTimeRanges": _ranges(cells["predicted ranges"], number, "predicted ranges")})
    with tempfile.TemporaryDirectory() as folder:
        paths = {"table (gold)": pathlib.Path(folder, "gold.jsonl"),
                 "table (predictions)": pathlib.Path(folder, "predictions.jsonl")}
        for path, records in zip(paths.values(), (gold, predictions)):
            path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
        names = {path: name for name, path in paths.items()}
        return _score_paths(paths["table (gold)"], paths["table (predictions)"], None, names, strict, ev2r_aggregation)


def show(result, notes):
    """Result dict -> (scores table, confusion matrix, bar chart data, signature, notes)."""
    rows = [[name, _number(result[key]), _percent(result[key])] for key, name in SCORES if key in result]
    rows += [[name, str(result[key]), ""] for key, name in COUNTS if key in result]
    matrix = result["confusion_matrix"]
    confusion = pd.DataFrame(
        [[label, *map(str, row)] for label, row in zip(scoring.LABELS, matrix)],
        columns=["gold \\ predicted", *scoring.LABELS],
    )
    bars = pd.DataFrame(
        [{"gold": label, "predicted": predicted, "claims": count}
         for label, row in zip(scoring.LABELS, matrix) for predicted, count in zip(scoring.LABELS, row)],
        columns=["gold", "predicted", "claims"],
    )
    return (
        pd.DataFrame(rows, columns=RESULT_HEADERS),
        confusion,
        gr.BarPlot(value=bars, sort=list(scoring.LABELS)),
        result["signature"],
        notes,
    )


def _number(value):
    return "n/a" if value is None else repr(value)  # every digit of the official floats


def _percent(value):
    return "n/a" if value is None else f"{100 * value:.2f}"  # as the official table prints it


def build_demo():
    examples = HERE / "examples"
    # Outputs are made first (unrendered) so the examples can score into them, then placed below.
    results = gr.Dataframe(
        headers=RESULT_HEADERS, label="Scores (fractions; the official table prints them x100)", interactive=False,
        elem_id="results", render=False,
    )
    confusion = gr.Dataframe(label="Confusion matrix (verdicts scored)", interactive=False, elem_id="confusion",
                             render=False)
    chart = gr.BarPlot(
        x="gold", y="claims", color="predicted", x_title="gold verdict", x_label_angle=-15,
        label="Predicted verdicts per gold verdict", elem_id="chart", render=False,
    )
    signature = gr.Textbox(
        label="Signature (compare only numbers whose signatures match)", elem_id="signature", render=False
    )
    notes = gr.Textbox(label="Notes from the scorer (what the official scorer does silently)", lines=3,
                       elem_id="notes", render=False)
    outputs = [results, confusion, chart, signature, notes]
    with gr.Blocks(title="TSVer metric") as demo:
        gr.Markdown("# TSVer: verdicts, time ranges (TSCS) and Ev2R\n\n" + card_summary())
        with gr.Accordion("Options (named in the signature)", open=False):
            with gr.Row():
                strict = gr.Checkbox(
                    label="Strict: missing or unmatched verdicts count wrong, missing predictions score 0 in TSCS"
                )
                ev2r_aggregation = gr.Radio(
                    list(scoring.EV2R_AGGREGATIONS), value="tsver",
                    label="Ev2R aggregation: tsver (official micro sums) or paper (per-claim mean)",
                )
        options = [strict, ev2r_aggregation]
        with gr.Tabs():
            with gr.Tab("Upload files"):
                gr.Markdown(
                    "The official formats: the gold JSONL (`tsver_test.jsonl`), your prediction JSONL "
                    "(`Claim`, `Verdict`, `Explanation`, `PredictedTimeRanges`) and, for Ev2R, a recorded judge "
                    f'file (`{{"Claim", "ev2r_response"}}` lines; this Space runs no LLM). Up to {MAX_FILE_SIZE} each.'
                )
                with gr.Row():
                    gold_file = gr.File(label="Gold JSONL", file_types=[".jsonl", ".json"], elem_id="gold-file")
                    predictions_file = gr.File(label="Predictions JSONL", file_types=[".jsonl", ".json"],
                                               elem_id="predictions-file")
                    ev2r_file = gr.File(label="Recorded Ev2R JSONL (optional)", file_types=[".jsonl", ".json"],
                                        elem_id="ev2r-file")
                files_button = gr.Button("Score files", variant="primary")
                gr.Examples(
                    # With the default options, so a click always gives the official numbers.
                    examples=[[str(examples / "gold.jsonl"), str(examples / "predictions.jsonl"),
                               str(examples / "ev2r.jsonl"), False, "tsver"]],
                    inputs=[gold_file, predictions_file, ev2r_file, *options],
                    outputs=outputs,
                    fn=score_files,
                    run_on_click=True,
                    cache_examples=False,
                    label="Example: click to score it",
                    example_labels=["Bundled example: 7 claims, every quirk"],
                    elem_id="examples",
                )
            with gr.Tab("Paste text"):
                with gr.Row():
                    gold_text = gr.Textbox(label="Gold JSONL", lines=8, max_lines=20)
                    predictions_text = gr.Textbox(label="Predictions JSONL", lines=8, max_lines=20)
                    ev2r_text = gr.Textbox(label="Recorded Ev2R JSONL (optional)", lines=8, max_lines=20)
                text_button = gr.Button("Score text", variant="primary")
            with gr.Tab("Edit a table"):
                gr.Markdown(
                    "One claim per row. Verdicts: the gold one is a label; the predicted one is free text, mapped "
                    "by the official matcher. Ranges: `series: from-to[, from-to]`, series separated by `;`."
                )
                table = gr.Dataframe(
                    value=TABLE_EXAMPLE, headers=TABLE_HEADERS, datatype="str", interactive=True, elem_id="table"
                )
                table_button = gr.Button("Score table", variant="primary")
        gr.Markdown("## Results")
        for output in outputs:
            output.render()
        files_button.click(score_files, [gold_file, predictions_file, ev2r_file, *options], outputs)
        text_button.click(score_text, [gold_text, predictions_text, ev2r_text, *options], outputs)
        table_button.click(score_table, [table, *options], outputs)
    return demo


def launch(**kwargs):
    """Builds and serves the app with the upload limit (tests pass server_name/server_port)."""
    demo = build_demo()
    demo.launch(max_file_size=MAX_FILE_SIZE, **kwargs)
    return demo


if __name__ == "__main__":
    launch()
