"""The MC-TACO Space: question-level EM and F1 (the official evaluator's numbers) in the browser.

Scores with the folder's pure functions (no `evaluate` round trip). Runs the same on a Space, where
this folder is pushed alone, and from the repository: the folder is loaded as a package from its own
path, so its modules' relative imports work in both places.

    python app.py                      # serves on http://127.0.0.1:7860
"""

import importlib
import importlib.util
import pathlib
import re
import sys
import tempfile

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


_module = _load_folder("mctaco_space")
scoring = _module("scoring")
cli = _module("cli")

RESULT_HEADERS = ["slice", "questions", "EM", "F1"]
TABLE_HEADERS = ["question", "answer", "gold", "prediction", "category"]
TABLE_EXAMPLE = [
    ["How long did it take to boil the pasta?", "about ten minutes", "yes", "yes", "Event Duration"],
    ["How long did it take to boil the pasta?", "three weeks", "no", "no", "Event Duration"],
    ["How long did it take to boil the pasta?", "12 minutes", "yes", "no", "Event Duration"],
    ["How often does the bakery open?", "once a day", "yes", "yes", "Frequency"],
    ["How often does the bakery open?", "every century", "no", "no", "Frequency"],
]


def card_summary():
    """The opening of the metric card's Description (README.md), else the scoring module's first paragraph."""
    card = HERE / "README.md"
    text = card.read_text(encoding="utf-8") if card.exists() else ""
    match = re.search(r"^## Description\n(.*?)(?=^##)", text, re.S | re.M)
    return match.group(1).strip() if match else scoring.__doc__.split("\n\n")[0]


def _user_error(err, names):
    """A gr.Error with the error's text, temporary paths replaced by what the user knows."""
    message = str(err)
    for path, name in names.items():
        message = message.replace(str(path), name)
    return gr.Error(message, print_exception=False)


def score_files(gold_path, predictions_path):
    """Uploaded official files: the gold TSV and one label per line."""
    if not gold_path or not predictions_path:
        raise gr.Error("Upload both files: the MC-TACO TSV and the predictions (one yes/no per line).")
    names = {gold_path: pathlib.Path(gold_path).name, predictions_path: pathlib.Path(predictions_path).name}
    return _score_paths(gold_path, predictions_path, names)


def score_text(gold_text, predictions_text):
    """Pasted file contents, read by the same loader as uploads."""
    if not (gold_text or "").strip() or not (predictions_text or "").strip():
        raise gr.Error("Paste both: the MC-TACO TSV lines and the predictions (one yes/no per line).")
    if len(gold_text) > MAX_TEXT_CHARS or len(predictions_text) > MAX_TEXT_CHARS:
        raise gr.Error(f"Pasted text is limited to {MAX_TEXT_CHARS:,} characters; upload the files instead.")
    with tempfile.TemporaryDirectory() as folder:
        gold_path, predictions_path = pathlib.Path(folder, "gold.tsv"), pathlib.Path(folder, "predictions.txt")
        gold_path.write_text(gold_text, encoding="utf-8")
        predictions_path.write_text(predictions_text, encoding="utf-8")
        names = {gold_path: "pasted TSV", predictions_path: "pasted predictions"}
        return _score_paths(gold_path, predictions_path, names)


def _score_paths(gold_path, predictions_path, names):
    """The CLI's validated file scoring; `names` maps paths to what the user should read in errors."""
    try:
        return show(cli.evaluate_files(str(gold_path), str(predictions_path)))
    except (ValueError, OSError) as err:
        raise _user_error(err, names) from None


def score_table(table):
    """The editable table: one candidate per row; the question text (or any id) groups candidates."""
    rows = [["" if value is None else str(value).strip() for value in row] for row in table.values.tolist()]
    if not rows:
        raise gr.Error("The table is empty; add one row per candidate answer.")
    for number, row in enumerate(rows, start=1):
        for name, value in zip(TABLE_HEADERS[:4], row):
            if not value and name != "answer":
                raise gr.Error(f"table row {number}: {name} is empty; expected a value in every row")
    categories = [row[4] for row in rows]
    if any(categories) and not all(categories):
        raise gr.Error(f"table row {categories.index('') + 1}: category is empty; give a category in every row or none")
    try:
        result = scoring.score(
            [row[3] for row in rows],
            [row[2] for row in rows],
            [row[0] for row in rows],
            categories if all(categories) else None,
        )
    except ValueError as err:
        # The pure functions count rows from 0; the table shows them from 1.
        raise gr.Error(re.sub(r"\brow (\d+)", lambda m: f"table row {int(m.group(1)) + 1}", str(err))) from None
    result["signature"] = scoring.signature("question_id")
    return show(result)


def show(result):
    """Result dict -> (table with the per-category breakdown, bar chart data, signature)."""
    slices = {"all questions": result, **result.get("extension_per_category", {})}
    # repr: every digit of the official floats, so numbers can be compared with other runs exactly.
    table = pd.DataFrame(
        [[name, cell["n_questions"], repr(cell["em"]), repr(cell["f1"])] for name, cell in slices.items()],
        columns=RESULT_HEADERS,
    )
    bars = pd.DataFrame(
        [
            {"bar": f"{metric} · {name}", "metric": metric, "score": cell[key]}
            for name, cell in slices.items()
            for metric, key in (("EM", "em"), ("F1", "f1"))
        ]
    )
    return table, gr.BarPlot(value=bars, sort=list(bars["bar"])), result["signature"]


def build_demo():
    examples = HERE / "examples"
    # Outputs are made first (unrendered) so the examples can score into them, then placed below.
    results = gr.Dataframe(
        headers=RESULT_HEADERS, label="Scores (per category: an extension)", interactive=False,
        elem_id="results", render=False,
    )
    chart = gr.BarPlot(
        x="bar", y="score", color="metric", y_lim=[0, 1], x_title="slice", x_label_angle=-30,
        label="By category", elem_id="chart", render=False,
    )
    signature = gr.Textbox(
        label="Signature (compare only numbers whose signatures match)", elem_id="signature", render=False
    )
    outputs = [results, chart, signature]
    with gr.Blocks(title="MC-TACO metric") as demo:
        gr.Markdown("# MC-TACO: question-level EM and F1\n\n" + card_summary())
        with gr.Tabs():
            with gr.Tab("Upload files"):
                gr.Markdown(
                    "The official formats: the MC-TACO TSV (sentence, question, answer, label, category; "
                    "e.g. `dev_3783.tsv`) and your predictions, one `yes`/`no` per line in the same order. "
                    f"Up to {MAX_FILE_SIZE} each."
                )
                with gr.Row():
                    gold_file = gr.File(label="Gold TSV", file_types=[".tsv", ".txt"], elem_id="gold-file")
                    predictions_file = gr.File(label="Predictions", file_types=[".txt"], elem_id="predictions-file")
                files_button = gr.Button("Score files", variant="primary")
                gr.Examples(
                    examples=[[str(examples / "example.tsv"), str(examples / "example_predictions.txt")]],
                    inputs=[gold_file, predictions_file],
                    outputs=outputs,
                    fn=score_files,
                    run_on_click=True,
                    cache_examples=False,
                    label="Example: click to score it",
                    example_labels=["Bundled example: 5 questions, 13 candidates"],
                    elem_id="examples",
                )
            with gr.Tab("Paste text"):
                with gr.Row():
                    gold_text = gr.Textbox(label="Gold TSV lines", lines=8, max_lines=20)
                    predictions_text = gr.Textbox(label="Predictions, one yes/no per line", lines=8, max_lines=20)
                text_button = gr.Button("Score text", variant="primary")
            with gr.Tab("Edit a table"):
                gr.Markdown(
                    "One candidate per row. Rows with the same question are one question; "
                    "category is optional (leave the column empty or fill every row)."
                )
                table = gr.Dataframe(
                    value=TABLE_EXAMPLE, headers=TABLE_HEADERS, datatype="str", interactive=True, elem_id="table"
                )
                table_button = gr.Button("Score table", variant="primary")
        gr.Markdown("## Results")
        for output in outputs:
            output.render()
        files_button.click(score_files, [gold_file, predictions_file], outputs)
        text_button.click(score_text, [gold_text, predictions_text], outputs)
        table_button.click(score_table, [table], outputs)
    return demo


def launch(**kwargs):
    """Builds and serves the app with the upload limit (tests pass server_name/server_port)."""
    demo = build_demo()
    demo.launch(max_file_size=MAX_FILE_SIZE, **kwargs)
    return demo


if __name__ == "__main__":
    launch()
