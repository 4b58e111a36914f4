"""What every benchmark's Space (`metrics/<folder>/app.py`) shares: limits, errors, pasted text, layout.

A Space scores through the same file readers as the CLI, so an upload, a paste and
`benchscore <bench>` give the same numbers and the same located errors.
"""

import contextlib
import math
import pathlib
import re
import tempfile
from dataclasses import dataclass

import gradio as gr
import pandas as pd

MAX_FILE_SIZE = "5mb"  # uploads (gradio refuses larger files) and pasted text alike
MAX_TEXT_CHARS = 5_000_000


@dataclass(frozen=True)
class FileInput:
    """One input file of a benchmark: its label, accepted endings, element id and the name used for pastes."""

    label: str
    file_types: tuple
    elem_id: str
    paste_name: str
    optional: bool = False


def card_summary(folder, fallback):
    """The opening of the metric card's Description (`folder`/README.md), else `fallback`."""
    card = pathlib.Path(folder) / "README.md"
    text = card.read_text(encoding="utf-8") if card.exists() else ""
    match = re.search(r"^## Description\n(.*?)(?=^##)", text, re.S | re.M)
    return match.group(1).strip() if match else fallback


def named(message, names):
    """`message` with temporary paths replaced by what the user knows ({path: name})."""
    for path, name in sorted(names.items(), key=lambda item: -len(str(item[0]))):
        message = message.replace(str(path), name)
    return message


def scored(score, names, *args, **kwargs):
    """`score(*args, **kwargs)`; an input error becomes a `gr.Error` in the user's names."""
    try:
        return score(*args, **kwargs)
    except (ValueError, TypeError, OSError) as err:
        raise gr.Error(named(str(err), names), print_exception=False) from None


def table_scored(score, labels, *args, **kwargs):
    """`score(*args, **kwargs)` on a table's items; an error located in example N (`readers.InputError` or
    `InputTypeError`, counted from 0) names the item as `labels[N]` does."""
    try:
        return score(*args, **kwargs)
    except (ValueError, TypeError) as err:
        index = getattr(err, "example", None)  # a field of the error, never read back out of its text
        located = isinstance(index, int) and 0 <= index < len(labels)
        raise gr.Error(f"{labels[index]}: {err.detail}" if located else str(err), print_exception=False) from None


def file_scorers(inputs, score, show, options=None):
    """An app's `score_files(*paths, *options)` and `score_text(*texts, *options)`.

    Both read through `score(*paths, **options(*extra))`, the CLI's read path; `show(result, names)`
    makes the outputs. A missing optional file is None.
    """
    def split(args):
        given = [value or None for value in args[:len(inputs)]]
        return given + [None] * (len(inputs) - len(given)), args[len(inputs):]

    def settings(extra, kwargs):
        return options(*extra, **kwargs) if options else {}

    def score_files(*args, **kwargs):
        paths, extra = split(args)
        names = uploaded(inputs, paths)
        return show(scored(score, names, *paths, **settings(extra, kwargs)), names)

    def score_text(*args, **kwargs):
        texts, extra = split(args)
        chosen = settings(extra, kwargs)
        with pasted(inputs, texts) as (paths, names):
            return show(scored(score, names, *paths, **chosen), names)

    return score_files, score_text


def _require(inputs, given, verb):
    missing = [spec.label for spec, value in zip(inputs, given) if not value and not spec.optional]
    if missing:
        raise gr.Error(f"{verb} {' and '.join(missing)}.")


def uploaded(inputs, paths):
    """The upload paths, checked: every required file given; returns {path: file name} for messages."""
    _require(inputs, paths, "Upload")
    return {path: pathlib.Path(path).name for path in paths if path}


def _write_pasted(spec, text, path):
    try:
        pathlib.Path(path).write_bytes(text.encode("utf-8"))
    except UnicodeEncodeError as err:  # a lone surrogate: the browser can send one, UTF-8 cannot hold it
        line = text.count("\n", 0, err.start) + 1
        raise gr.Error(f"pasted {spec.label}:{line}: a character that is not valid Unicode "
                       f"({text[err.start]!r}); expected plain UTF-8 text") from None


@contextlib.contextmanager
def pasted(inputs, texts):
    """Pasted texts as temporary files (None where an optional one is empty) and {path: name} for messages."""
    _require(inputs, [(text or "").strip() for text in texts], "Paste")
    if any(len(text or "") > MAX_TEXT_CHARS for text in texts):
        raise gr.Error(f"Pasted text is limited to {MAX_TEXT_CHARS:,} characters; upload the files instead.")
    with tempfile.TemporaryDirectory() as folder:
        paths, names = [], {}
        for spec, text in zip(inputs, texts):
            path = str(pathlib.Path(folder, spec.paste_name)) if (text or "").strip() else None
            if path:
                _write_pasted(spec, text, path)
                names[path] = f"pasted {spec.label}"
            paths.append(path)
        yield paths, names


def _cell(value):
    """A table cell as stripped text; an empty cell (None, or pandas' NaN) is "" — never the text "nan"."""
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value).strip()


def table_rows(table, headers, required=()):
    """The editable table's rows as stripped strings, one cell per header; the `required` ones not empty."""
    rows = [[_cell(value) for value in row] for row in table.values.tolist()]
    if not rows:
        raise gr.Error("The table is empty; add one row per item.")
    for number, row in enumerate(rows, start=1):
        _check_row(number, row, headers, required)
    return rows


def _check_row(number, row, headers, required):
    # An extra column is refused, not cut off: through the API, it is data the user meant to be scored.
    if len(row) != len(headers):
        raise gr.Error(f"table row {number}: found {len(row)} columns; expected {len(headers)} ({', '.join(headers)})")
    empty = next((name for name, cell in zip(headers, row) if name in required and not cell), None)
    if empty:
        raise gr.Error(f"table row {number}: {empty} is empty; expected a value in every row")


def number(value):
    """Every digit of a float (numbers compare exactly with other runs); "n/a" for None."""
    return "n/a" if value is None else repr(value)


def notes(result, names):
    """The result's warnings, one per line, in the user's names."""
    return "\n".join(named(warning, names) for warning in result.get("warnings", ())) or "No warnings."


def bars(rows, columns=("bar", "metric", "score")):
    """Bar chart data (a list of dicts), the bars in the order given."""
    data = pd.DataFrame(rows, columns=list(columns))
    return gr.BarPlot(value=data, sort=list(data[columns[0]]))


def signature_box():
    return gr.Textbox(label="Signature (compare only numbers whose signatures match)", elem_id="signature",
                      render=False)


def results_table(headers, label, elem_id="results"):
    """An output table of scores (unrendered: `build_demo` places it)."""
    return gr.Dataframe(headers=headers, label=label, interactive=False, elem_id=elem_id, render=False)


def bar_chart(label, **axes):
    """An output bar chart (unrendered); by default of scores in [0, 1], one bar per `bar` value of its data."""
    axes = dict(x="bar", y="score", color="metric", y_lim=[0, 1], x_title="slice", x_label_angle=-30) | axes
    return gr.BarPlot(**axes, label=label, elem_id="chart", render=False)


def notes_box(label, lines=2):
    """An output text box for the scorer's warnings (unrendered)."""
    return gr.Textbox(label=label, lines=lines, elem_id="notes", render=False)


def build_demo(*, folder, title, heading, inputs, outputs, score_files, score_text, example, example_label,
               upload_note, table_value, table_headers, table_note, score_table, options=None):
    """The common layout: options, then Upload / Paste / Table tabs, then the outputs.

    `folder` is the app's: the summary is its card's, the `example` names files in its `examples/`.
    `outputs` are unrendered components (made first so the example can score into them); `options()`
    makes the option widgets inside the page and returns them (they follow the files, texts or table
    as extra arguments of the scoring functions).
    """
    summary = card_summary(folder, f"{heading}.")
    example = [str(pathlib.Path(folder, "examples", name)) for name in example]
    with gr.Blocks(title=title) as demo:
        gr.Markdown(f"# {heading}\n\n{summary}")
        extra = options() if options else []
        with gr.Tabs():
            with gr.Tab("Upload files"):
                gr.Markdown(f"{upload_note} Up to {MAX_FILE_SIZE} each.")
                with gr.Row():
                    files = [gr.File(label=spec.label, file_types=list(spec.file_types), elem_id=spec.elem_id)
                             for spec in inputs]
                files_button = gr.Button("Score files", variant="primary")
                gr.Examples(examples=[list(example) + [getattr(o, "value", None) for o in extra]],
                            inputs=files + extra, outputs=outputs, fn=score_files, run_on_click=True,
                            cache_examples=False, label="Example: click to score it", example_labels=[example_label],
                            elem_id="examples")
            with gr.Tab("Paste text"):
                with gr.Row():
                    texts = [gr.Textbox(label=spec.label, lines=8, max_lines=20) for spec in inputs]
                text_button = gr.Button("Score text", variant="primary")
            with gr.Tab("Edit a table"):
                gr.Markdown(table_note)
                table = gr.Dataframe(value=table_value, headers=table_headers, datatype="str", interactive=True,
                                     elem_id="table")
                table_button = gr.Button("Score table", variant="primary")
        gr.Markdown("## Results")
        for output in outputs:
            output.render()
        files_button.click(score_files, files + extra, outputs)
        text_button.click(score_text, texts + extra, outputs)
        table_button.click(score_table, [table] + extra, outputs)
    return demo


def launch(build, **kwargs):
    """Builds and serves an app with the upload limit (tests pass server_name/server_port)."""
    demo = build()
    demo.launch(max_file_size=MAX_FILE_SIZE, **kwargs)
    return demo
