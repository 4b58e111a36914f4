"""The TempBench TRP Space: TRP, CCR and coverage of a retrieval run (the reference scorer's numbers).

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


_module = _load_folder("tempbench_trp_space")
scoring = _module("scoring")

RESULT_HEADERS = ["slice", "questions", "TRP", "TRP_micro", "CCR", "coverage"]
TABLE_HEADERS = ["question", "t_query", "role", "s", "r", "o", "t_start", "t_end"]
ROLES = ("gold", "retrieved")
TABLE_EXAMPLE = [
    ["q1", "1994", "gold", "Ada", "member of sports team", "Rovers", "1994", "1994"],
    ["q1", "1994", "retrieved", "Ada", "member of sports team", "Rovers", "1994", "1994"],
    ["q1", "1994", "retrieved", "Ada", "member of sports team", "United", "1996", "1996"],
    ["q1", "1994", "retrieved", "Ada", "member of sports team", "Rovers", "1991", "1991"],
    ["q2", "1995", "gold", "Rovers", "head coach", "Bea", "1995", "1999"],
    ["q2", "1995", "retrieved", "Rovers", "head coach", "Bea", "1990", "1994"],
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


def _options(space, split, top_k, dedup):
    top_k = int(top_k) if top_k else None  # 0 or empty: no cut (the reference's behaviour)
    return {"space": space, "split": (split or "").strip() or None, "top_k": top_k, "dedup": bool(dedup)}


def score_files(questions_path, evidence_path, space="label", split="", top_k=0, dedup=False):
    """Uploaded files: the questions JSONL and the run's evidence JSONL."""
    if not questions_path or not evidence_path:
        raise gr.Error('Upload both files: the questions JSONL and the evidence JSONL ({"id", "evidence"} lines).')
    names = {questions_path: pathlib.Path(questions_path).name, evidence_path: pathlib.Path(evidence_path).name}
    return _score_paths(questions_path, evidence_path, names, _options(space, split, top_k, dedup))


def score_text(questions_text, evidence_text, space="label", split="", top_k=0, dedup=False):
    """Pasted file contents, read by the same streaming reader as uploads."""
    if not (questions_text or "").strip() or not (evidence_text or "").strip():
        raise gr.Error("Paste both: the questions JSONL and the evidence JSONL.")
    if len(questions_text) > MAX_TEXT_CHARS or len(evidence_text) > MAX_TEXT_CHARS:
        raise gr.Error(f"Pasted text is limited to {MAX_TEXT_CHARS:,} characters; upload the files instead.")
    with tempfile.TemporaryDirectory() as folder:
        questions_path = pathlib.Path(folder, "questions.jsonl")
        evidence_path = pathlib.Path(folder, "evidence.jsonl")
        questions_path.write_text(questions_text, encoding="utf-8")
        evidence_path.write_text(evidence_text, encoding="utf-8")
        names = {questions_path: "pasted questions", evidence_path: "pasted evidence"}
        return _score_paths(questions_path, evidence_path, names, _options(space, split, top_k, dedup))


def _score_paths(questions_path, evidence_path, names, options):
    try:
        return show(scoring.score_jsonl(str(questions_path), str(evidence_path), **options))
    except (ValueError, TypeError, OSError) as err:  # TypeError: a wrongly typed value in a file
        raise _user_error(err, names) from None


def _year(value, number, name):
    try:
        return float(value)
    except ValueError:
        raise gr.Error(f"table row {number}: {name} is {value!r}; expected a year such as 1994 (or inf)") from None


def score_table(table, space="label", split="", top_k=0, dedup=False):
    """The editable table: one triple per row, gold or retrieved, grouped by question id (label space)."""
    rows = [["" if value is None else str(value).strip() for value in row] for row in table.values.tolist()]
    if not rows:
        raise gr.Error("The table is empty; add the gold and retrieved triples, one per row.")
    questions, evidences = {}, {}  # question id -> record / retrieved triples, in first-appearance order
    for number, row in enumerate(rows, start=1):
        cells = dict(zip(TABLE_HEADERS, row))
        for name, value in cells.items():
            if not value:
                raise gr.Error(f"table row {number}: {name} is empty; expected a value in every row")
        if cells["role"] not in ROLES:
            raise gr.Error(f"table row {number}: role is {cells['role']!r}; expected 'gold' or 'retrieved'")
        t_query = _year(cells["t_query"], number, "t_query")
        question = questions.setdefault(cells["question"], {"id": cells["question"], "t_query": t_query, "S_star": []})
        if question["t_query"] != t_query:
            raise gr.Error(
                f"table row {number}: t_query {cells['t_query']} differs from {question['t_query']:g} given earlier "
                f"for question {cells['question']!r}; a question has one t_query"
            )
        triple = {name: cells[name] for name in ("s", "r", "o")}
        triple.update(t_start=_year(cells["t_start"], number, "t_start"), t_end=_year(cells["t_end"], number, "t_end"))
        if cells["role"] == "gold":
            question["S_star"].append(triple)
        else:
            evidences.setdefault(cells["question"], []).append(triple)
    options = _options(space, split, top_k, dedup)
    if options["split"]:
        raise gr.Error("The table has no split column; leave 'split' empty to score it.")
    del options["split"]
    try:
        # by=(): the table has no complexity or operator, so no slices.
        result = scoring.score(list(questions.values()), [evidences.get(q, []) for q in questions], by=(), **options)
    except (ValueError, TypeError) as err:
        raise gr.Error(str(err)) from None
    return show(result)


def show(result):
    """Result dict -> (table with the per-slice cells, bar chart data, signature)."""
    table = [["all questions", result["n_questions"], *(_number(result[key]) for key in
                                                          ("TRP_macro", "TRP_micro", "CCR", "coverage"))]]
    bars = []
    for field in (key[3:] for key in result if key.startswith("by_")):
        for value, cell in result[f"by_{field}"].items():
            name = f"{field}: {'(not given)' if value is None else value}"
            table.append([name, cell["n"], _number(cell["TRP"]), "", _number(cell["CCR"]), ""])
            bars += [{"bar": f"{metric} · {name}", "metric": metric, "score": cell[metric]}
                     for metric in ("TRP", "CCR")]
    if result.get("n_evidence_unused"):  # said, not silently dropped
        table.append(["evidence lines not scored (id not among the questions)", result["n_evidence_unused"],
                      "", "", "", ""])
    bars = pd.DataFrame(bars, columns=["bar", "metric", "score"])
    plot = gr.BarPlot(value=bars, sort=list(bars["bar"]))
    return pd.DataFrame(table, columns=RESULT_HEADERS), plot, result["signature"]


def _number(value):
    # repr: every digit of the reference's floats; None (undefined, e.g. no question) as "n/a".
    return "n/a" if value is None else repr(value)


def build_demo():
    examples = HERE / "examples"
    # Outputs are made first (unrendered) so the examples can score into them, then placed below.
    results = gr.Dataframe(
        headers=RESULT_HEADERS, label="Scores (TRP is TRP_macro for all questions)", interactive=False,
        elem_id="results", render=False,
    )
    chart = gr.BarPlot(
        x="bar", y="score", color="metric", y_lim=[0, 1], x_title="slice", x_label_angle=-30,
        label="By complexity and operator", elem_id="chart", render=False,
    )
    signature = gr.Textbox(
        label="Signature (compare only numbers whose signatures match)", elem_id="signature", render=False
    )
    outputs = [results, chart, signature]
    with gr.Blocks(title="TempBench TRP metric") as demo:
        gr.Markdown("# TempBench: TRP, CCR and coverage\n\n" + card_summary())
        with gr.Accordion("Options", open=False):
            with gr.Row():
                space = gr.Radio(["label", "id"], value="label", label="Match triples on labels or Wikidata ids")
                split = gr.Textbox(label="Score only this split (e.g. test); empty: all questions")
                top_k = gr.Number(value=0, precision=0, minimum=0, label="Extension: keep the first k triples (0: all)")
                dedup = gr.Checkbox(label="Extension: drop exact repeats of a retrieved triple")
        options = [space, split, top_k, dedup]
        with gr.Tabs():
            with gr.Tab("Upload files"):
                gr.Markdown(
                    "The benchmark's questions file (`benchmark_labelled.jsonl` or `benchmark.jsonl`) and your run: "
                    'one `{"id": ..., "evidence": [{"s", "r", "o", "t_start", "t_end"}, ...]}` line per question, '
                    f"triples in rank order. Up to {MAX_FILE_SIZE} each."
                )
                with gr.Row():
                    questions_file = gr.File(label="Questions JSONL", file_types=[".jsonl", ".json"],
                                             elem_id="questions-file")
                    evidence_file = gr.File(label="Evidence JSONL", file_types=[".jsonl", ".json"],
                                            elem_id="evidence-file")
                files_button = gr.Button("Score files", variant="primary")
                gr.Examples(
                    # With the default options, so a click always gives the reference's numbers.
                    examples=[[str(examples / "questions.jsonl"), str(examples / "evidence.jsonl"),
                               "label", "", 0, False]],
                    inputs=[questions_file, evidence_file, *options],
                    outputs=outputs,
                    fn=score_files,
                    run_on_click=True,
                    cache_examples=False,
                    label="Example: click to score it",
                    example_labels=["Bundled example: 4 questions and a run"],
                    elem_id="examples",
                )
            with gr.Tab("Paste text"):
                with gr.Row():
                    questions_text = gr.Textbox(label="Questions JSONL", lines=8, max_lines=20)
                    evidence_text = gr.Textbox(label="Evidence JSONL", lines=8, max_lines=20)
                text_button = gr.Button("Score text", variant="primary")
            with gr.Tab("Edit a table"):
                gr.Markdown(
                    "One triple per row: `gold` rows are the question's S*, `retrieved` rows the run's evidence in "
                    "rank order. Rows with the same question id are one question (label space; no slices: "
                    "use the files for the per-complexity and per-operator cells)."
                )
                table = gr.Dataframe(
                    value=TABLE_EXAMPLE, headers=TABLE_HEADERS, datatype="str", interactive=True, elem_id="table"
                )
                table_button = gr.Button("Score table", variant="primary")
        gr.Markdown("## Results")
        for output in outputs:
            output.render()
        files_button.click(score_files, [questions_file, evidence_file, *options], outputs)
        text_button.click(score_text, [questions_text, evidence_text, *options], outputs)
        table_button.click(score_table, [table, *options], outputs)
    return demo


def launch(**kwargs):
    """Builds and serves the app with the upload limit (tests pass server_name/server_port)."""
    demo = build_demo()
    demo.launch(max_file_size=MAX_FILE_SIZE, **kwargs)
    return demo


if __name__ == "__main__":
    launch()
