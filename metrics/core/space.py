"""What every benchmark's Space (`metrics/<folder>/app.py`) shares: limits, errors, pasted text, layout.

A Space scores through the same file readers as the CLI, so an upload, a paste and
`benchscore <bench>` give the same numbers and the same located errors.
"""

import contextlib
import json
import math
import os
import pathlib
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass

import gradio as gr
import pandas as pd

from benchscore.core import table
from benchscore.core.registry import Benchmark
from benchscore.data.store import sha256_of

MAX_FILE_SIZE = "5mb"  # uploads (gradio refuses larger files) and pasted text alike
MAX_TEXT_CHARS = 5_000_000
# How the results tables show numbers. The downloads always keep every digit.
DISPLAYS = ("rounded", "every digit")
ROUNDED_DIGITS = 4
# The downloads, in `benchscore table`'s formats: (format, file ending)
TABLE_FILES = (("markdown", "md"), ("latex", "tex"), ("csv", "csv"), ("json", "json"))
KEEP_DOWNLOADS_S = 3600  # a scoring's files are removed after this (gradio serves its own copies meanwhile)
_DOWNLOADS = pathlib.Path(tempfile.gettempdir()) / f"benchscore-downloads-{os.getpid()}"


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


@dataclass(frozen=True)
class Presenter:
    """An app's outputs for a result: `show(result, names, display)`'s components (tables, chart,
    signature, notes), then the download files (`downloads`)."""

    bench: Benchmark
    show: Callable

    def __call__(self, result: dict, names: dict, display: str = "rounded", paths=()) -> tuple:
        check_display(display)
        return (*self.show(result, names, display), downloads(self.bench, result, names, paths))


def check_display(display):
    if display not in DISPLAYS:
        raise gr.Error(f"numbers shown is {display!r:.80}; expected one of {', '.join(DISPLAYS)}")


def file_scorers(inputs, score, present, options=None):
    """An app's `score_files(*paths, *options, display=)` and `score_text(*texts, *options, display=)`.

    Both read through `score(*paths, **options(*extra))`, the CLI's read path; `present` (a
    `Presenter`) makes the outputs. A missing optional file is None.
    """
    def split(args):
        given = [value or None for value in args[:len(inputs)]]
        return given + [None] * (len(inputs) - len(given)), args[len(inputs):]

    def settings(extra, kwargs):
        return options(*extra, **kwargs) if options else {}

    def score_files(*args, display="rounded", **kwargs):
        paths, extra = split(args)
        names = uploaded(inputs, paths)
        return present(scored(score, names, *paths, **settings(extra, kwargs)), names, display, paths)

    def score_text(*args, display="rounded", **kwargs):
        texts, extra = split(args)
        chosen = settings(extra, kwargs)
        with pasted(inputs, texts) as (paths, names):  # the downloads are made while the files exist
            return present(scored(score, names, *paths, **chosen), names, display, paths)

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


def number(value, display="rounded"):
    """A score as the results tables show it: rounded to ROUNDED_DIGITS decimals for reading, or every
    digit (repr: how the official scorers print them, and what compares exactly with other runs); "n/a"
    for None."""
    if value is None:
        return "n/a"
    return repr(value) if display == "every digit" else f"{value:.{ROUNDED_DIGITS}f}"


def renamed(value, names):
    """`value` (a result: dicts, lists, strings) with temporary paths replaced by the user's names."""
    if isinstance(value, str):
        return named(value, names)
    if isinstance(value, dict):
        return {key: renamed(item, names) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [renamed(item, names) for item in value]
    return value


def downloads(bench, result, names, paths=()):
    """The files a Space hands over: the full result as `benchscore <bench> --json` prints it (every
    digit; file names as the user knows them), and the run as a one-row table in each format of
    `benchscore table`, attested by the sha256 of each input file and of the result."""
    result = renamed(result, names)
    inputs = {names.get(path, path): sha256_of(path) for path in paths if path}
    run = table.of_run(bench, result, inputs=inputs)
    folder = _fresh_folder()
    files = [(f"{bench.name}_result.json", json.dumps(result, indent=2, ensure_ascii=False))]
    files += [(f"{bench.name}_table.{ending}", table.render(run, bench, fmt)) for fmt, ending in TABLE_FILES]
    for name, text in files:
        (folder / name).write_text(text + "\n", encoding="utf-8")
    return [str(folder / name) for name, _ in files]


def _fresh_folder():
    """A new folder for one scoring's downloads; those of scorings older than KEEP_DOWNLOADS_S are
    removed first, so a Space that serves for months keeps a bounded number of files."""
    _DOWNLOADS.mkdir(mode=0o700, exist_ok=True)
    cutoff = time.time() - KEEP_DOWNLOADS_S
    for old in _DOWNLOADS.iterdir():
        with contextlib.suppress(OSError):
            if old.stat().st_mtime < cutoff:
                shutil.rmtree(old)
    return pathlib.Path(tempfile.mkdtemp(dir=_DOWNLOADS))


def shown_again(present, n_outputs):
    """The display choice's handler: the results again, from the downloaded result, in the other display."""
    def redisplay(files, display):
        result_file = next((path for path in files or () if str(path).endswith("_result.json")), None)
        if result_file is None:  # nothing scored yet
            return (gr.skip(),) * n_outputs
        check_display(display)
        try:  # the page sends back the file it was given; anything else gets a message, not a traceback
            result = json.loads(pathlib.Path(result_file).read_text(encoding="utf-8"))
            return present.show(result, {}, display)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            raise gr.Error("The result to show again could not be read; score the files again.",
                           print_exception=False) from None
    return redisplay


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


def download_files():
    """The output of the files a Space hands over (unrendered)."""
    return gr.File(label="Download: the full result (JSON, every digit) and the table (Markdown, LaTeX, CSV, JSON)",
                   file_count="multiple", interactive=False, elem_id="downloads", render=False)


def _with_display(score):
    """A scoring function called by the page: its last input is the display choice (a keyword of `score`)."""
    def run(*args):
        return score(*args[:-1], display=args[-1])
    return run


def build_demo(*, folder, title, heading, inputs, outputs, present, score_files, score_text, example, example_label,
               upload_note, table_value, table_headers, table_note, score_table, options=None):
    """The common layout: options, then Upload / Paste / Table tabs, then the outputs and the downloads.

    `folder` is the app's: the summary is its card's, the `example` names files in its `examples/`.
    `outputs` are unrendered components (made first so the example can score into them), the ones
    `present.show` fills; `options()` makes the option widgets inside the page and returns them (they
    follow the files, texts or table as extra arguments of the scoring functions, then the display).
    """
    summary = card_summary(folder, f"{heading}.")
    example = [str(pathlib.Path(folder, "examples", name)) for name in example]
    shown, outputs = list(outputs), [*outputs, download_files()]
    score_files, score_text, score_table = map(_with_display, (score_files, score_text, score_table))
    with gr.Blocks(title=title, delete_cache=(KEEP_DOWNLOADS_S, KEEP_DOWNLOADS_S)) as demo:
        gr.Markdown(f"# {heading}\n\n{summary}")
        display = gr.Radio(list(DISPLAYS), value=DISPLAYS[0], elem_id="display",
                           label=f"Numbers shown: rounded to {ROUNDED_DIGITS} decimals, or every digit (as the "
                                 "official scorers print them; the downloads keep every digit)")
        extra = [*(options() if options else []), display]
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
        display.change(shown_again(present, len(shown)), [outputs[-1], display], shown)
    return demo


def launch(build, **kwargs):
    """Builds and serves an app with the upload limit (tests pass server_name/server_port)."""
    demo = build()
    demo.launch(max_file_size=MAX_FILE_SIZE, **kwargs)
    return demo
