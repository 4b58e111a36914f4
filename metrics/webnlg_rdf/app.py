"""The WebNLG+ 2020 text-to-RDF Space: the official evaluation script's numbers in the browser.

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
MAX_FILE_SIZE = "5mb"  # uploads (gradio refuses larger files; the 2020 English references are 2 MB) and pasted text
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


_module = _load_folder("webnlg_rdf_space")
scoring = _module("scoring")
cli = _module("cli")

RATE_HEADERS = ["Precision", "Recall", "F1"]
RESULT_HEADERS = ["scores", "scheme", *RATE_HEADERS, "Correct", "Incorrect", "Partial", "Missed", "Spurious"]
BREAKDOWN_HEADERS = ["slice", *scoring.SCHEMES, "Exact_match"]
BREAKDOWNS = ("category", "size")
TABLE_HEADERS = ["entry", "side", "subject | predicate | object"]
SIDES = ("reference", "candidate")
TABLE_EXAMPLE = [
    ["1", "reference", "Alan_Bean | occupation | Test_pilot"],
    ["1", "reference", "Alan_Bean | birthPlace | Wheeler,_Texas"],
    ["1", "candidate", "Alan_Bean | occupation | Test_pilot_school"],
    ["1", "candidate", "Alan_Bean | birthPlace | Wheeler,_Texas"],
    ["2", "reference", "Aarhus | leader | Jacob_Bundsgaard"],
    ["2", "candidate", "Jacob_Bundsgaard | leaderOf | Aarhus"],
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


def _breakdowns(by):
    return tuple(key for key in BREAKDOWNS if key in (by or ()))  # fixed order, whatever the click order


def score_files(references_path, candidates_path, by=BREAKDOWNS):
    """Uploaded official files: the reference XML and the candidate XML, entries paired by position."""
    if not references_path or not candidates_path:
        raise gr.Error("Upload both files: the reference XML (<mtriple>) and the candidate XML (<gtriple>).")
    names = {references_path: pathlib.Path(references_path).name, candidates_path: pathlib.Path(candidates_path).name}
    return _score_paths(references_path, candidates_path, names, _breakdowns(by))


def score_text(references_text, candidates_text, by=BREAKDOWNS):
    """Pasted XML, read by the same (safe) XML loader as uploads."""
    if not (references_text or "").strip() or not (candidates_text or "").strip():
        raise gr.Error("Paste both: the reference XML and the candidate XML.")
    if len(references_text) > MAX_TEXT_CHARS or len(candidates_text) > MAX_TEXT_CHARS:
        raise gr.Error(f"Pasted text is limited to {MAX_TEXT_CHARS:,} characters; upload the files instead.")
    with tempfile.TemporaryDirectory() as folder:
        references_path = pathlib.Path(folder, "references.xml")
        candidates_path = pathlib.Path(folder, "candidates.xml")
        references_path.write_text(references_text, encoding="utf-8")
        candidates_path.write_text(candidates_text, encoding="utf-8")
        names = {references_path: "pasted references", candidates_path: "pasted candidates"}
        return _score_paths(references_path, candidates_path, names, _breakdowns(by))


def _score_paths(references_path, candidates_path, names, by):
    try:
        result = cli.score_files(str(references_path), str(candidates_path), by=by)
    except (ValueError, TypeError, OSError) as err:
        raise _user_error(err, names) from None
    return show(result, cli.signature(by))


def score_table(table):
    """The editable table: one triple per row, reference or candidate, grouped by entry (no breakdown)."""
    rows = [["" if value is None else str(value).strip() for value in row] for row in table.values.tolist()]
    if not rows:
        raise gr.Error("The table is empty; add the reference and candidate triples, one per row.")
    entries = {}  # entry -> {"reference": [...], "candidate": [...]}, in first-appearance order
    for number, row in enumerate(rows, start=1):
        entry, side, triple = row
        for name, value in zip(TABLE_HEADERS, row):
            if not value:
                raise gr.Error(f"table row {number}: {name} is empty; expected a value in every row")
        if side not in SIDES:
            raise gr.Error(f"table row {number}: side is {side!r}; expected 'reference' or 'candidate'")
        entries.setdefault(entry, {side: [] for side in SIDES})[side].append(triple)
    try:
        stats = [scoring.entry_stats(e["reference"], e["candidate"], entry=name) for name, e in entries.items()]
        result = scoring.aggregate(stats)
    except (ValueError, TypeError) as err:
        raise gr.Error(str(err)) from None
    return show(result, cli.signature(()))


def show(result, signature):
    """Result dict -> (official scores table, breakdown table, bar chart data, signature)."""
    rows = []
    for title, schemes in [("Total_scores", result["Total_scores"]), *result["Scores_per_tag"].items()]:
        for scheme in scoring.SCHEMES:
            cell = schemes[scheme]
            rows.append([title, scheme, *(_number(cell[rate]) for rate in RATE_HEADERS),
                         *(cell[kind] for kind in RESULT_HEADERS[5:])])
    rows.append(["Exact_match", "", *(_number(result["Exact_match"][rate]) for rate in RATE_HEADERS), *[""] * 5])
    breakdown, bars = [], []
    for key in BREAKDOWNS:
        for group, sub in result.get(f"extension_per_{key}", {}).items():
            name = f"{key}: {group}"
            f1 = {scheme: sub["Total_scores"][scheme]["F1"] for scheme in scoring.SCHEMES}
            f1["Exact_match"] = sub["Exact_match"]["F1"]
            breakdown.append([name, *(_number(f1[column]) for column in BREAKDOWN_HEADERS[1:])])
            bars += [{"bar": f"{scheme} · {name}", "scheme": scheme, "F1": value} for scheme, value in f1.items()]
    bars = pd.DataFrame(bars, columns=["bar", "scheme", "F1"])
    return (
        pd.DataFrame(rows, columns=RESULT_HEADERS),
        pd.DataFrame(breakdown, columns=BREAKDOWN_HEADERS),
        gr.BarPlot(value=bars, sort=list(bars["bar"])),
        signature,
    )


def _number(value):
    return repr(value)  # every digit; the official script's int 0 (no pair had a denominator) stays 0


def build_demo():
    examples = HERE / "examples"
    # Outputs are made first (unrendered) so the examples can score into them, then placed below.
    results = gr.Dataframe(
        headers=RESULT_HEADERS, label="Official scores (Evaluation_script_json.py's structure)", interactive=False,
        elem_id="results", render=False,
    )
    breakdown = gr.Dataframe(
        headers=BREAKDOWN_HEADERS, label="Extension: Total_scores F1 per category and per size (reference triples)",
        interactive=False, elem_id="breakdown", render=False,
    )
    chart = gr.BarPlot(
        x="bar", y="F1", color="scheme", y_lim=[0, 1], x_title="slice", x_label_angle=-30,
        label="F1 by category and size", elem_id="chart", render=False,
    )
    signature = gr.Textbox(
        label="Signature (compare only numbers whose signatures match)", elem_id="signature", render=False
    )
    outputs = [results, breakdown, chart, signature]
    with gr.Blocks(title="WebNLG+ 2020 text-to-RDF metric") as demo:
        gr.Markdown("# WebNLG+ 2020 text-to-RDF: the official scores\n\n" + card_summary())
        by = gr.CheckboxGroup(
            list(BREAKDOWNS), value=list(BREAKDOWNS), label="Extension: break the scores down by (files only)"
        )
        with gr.Tabs():
            with gr.Tab("Upload files"):
                gr.Markdown(
                    "The official formats: the reference XML (`<entry>` with `<modifiedtripleset>`/`<mtriple>`) "
                    "and your candidate XML (`<generatedtripleset>`/`<gtriple>`), entries paired by position. "
                    f"Up to {MAX_FILE_SIZE} each; DTDs and entities are refused."
                )
                with gr.Row():
                    references_file = gr.File(label="Reference XML", file_types=[".xml"], elem_id="references-file")
                    candidates_file = gr.File(label="Candidate XML", file_types=[".xml"], elem_id="candidates-file")
                files_button = gr.Button("Score files", variant="primary")
                gr.Examples(
                    examples=[[str(examples / "refs.xml"), str(examples / "cands.xml"), list(BREAKDOWNS)]],
                    inputs=[references_file, candidates_file, by],
                    outputs=outputs,
                    fn=score_files,
                    run_on_click=True,
                    cache_examples=False,
                    label="Example: click to score it",
                    example_labels=["Bundled example: 3 entries, 6 reference triples"],
                    elem_id="examples",
                )
            with gr.Tab("Paste text"):
                with gr.Row():
                    references_text = gr.Textbox(label="Reference XML", lines=8, max_lines=20)
                    candidates_text = gr.Textbox(label="Candidate XML", lines=8, max_lines=20)
                text_button = gr.Button("Score text", variant="primary")
            with gr.Tab("Edit a table"):
                gr.Markdown(
                    "One triple per row, written `subject | predicate | object`; rows with the same entry are one "
                    "entry (no breakdown: use the files for categories)."
                )
                table = gr.Dataframe(
                    value=TABLE_EXAMPLE, headers=TABLE_HEADERS, datatype="str", interactive=True, elem_id="table"
                )
                table_button = gr.Button("Score table", variant="primary")
        gr.Markdown("## Results")
        for output in outputs:
            output.render()
        files_button.click(score_files, [references_file, candidates_file, by], outputs)
        text_button.click(score_text, [references_text, candidates_text, by], outputs)
        table_button.click(score_table, [table], outputs)
    return demo


def launch(**kwargs):
    """Builds and serves the app with the upload limit (tests pass server_name/server_port)."""
    demo = build_demo()
    demo.launch(max_file_size=MAX_FILE_SIZE, **kwargs)
    return demo


if __name__ == "__main__":
    launch()
