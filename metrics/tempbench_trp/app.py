"""The TempBench TRP Space: TRP, CCR and coverage of a retrieval run (the reference scorer's numbers).

Files are read as `benchscore tempbench` reads them; see `benchscore.core.space`. Serve it with `python app.py`.
"""

import pathlib
import re

import gradio as gr
import pandas as pd

import benchscore
from benchscore.core import space
from benchscore.core.checks import as_int, is_int
from benchscore.tempbench_trp import files, scoring

HERE = pathlib.Path(__file__).resolve().parent
INPUTS = (space.FileInput("Questions JSONL", (".jsonl", ".json"), "questions-file", "questions.jsonl"),
          space.FileInput("Evidence JSONL", (".jsonl", ".json"), "evidence-file", "evidence.jsonl"))
RESULT_HEADERS = ["slice", "questions", "TRP", "TRP_micro", "CCR", "coverage"]
TABLE_HEADERS = ["question", "t_query", "role", "s", "r", "o", "t_start", "t_end"]
ROLES = {"gold": "S_star", "retrieved": "evidence"}  # where a row's triple goes in its question
TABLE_EXAMPLE = [["q1", "1994", "gold", "Ada", "member of sports team", "Rovers", "1994", "1994"],
                 ["q1", "1994", "retrieved", "Ada", "member of sports team", "Rovers", "1994", "1994"],
                 ["q1", "1994", "retrieved", "Ada", "member of sports team", "United", "1996", "1996"],
                 ["q1", "1994", "retrieved", "Ada", "member of sports team", "Rovers", "1991", "1991"],
                 ["q2", "1995", "gold", "Rovers", "head coach", "Bea", "1995", "1999"],
                 ["q2", "1995", "retrieved", "Rovers", "head coach", "Bea", "1990", "1994"]]

TOP_K_MAX = 1_000_000  # a sane bound for the top-k box (no question has this many triples)
YEAR_RANGE = (-9999, 9999)  # table years: plain decimal integers in this range
_ASCII_INT = re.compile(r"-?[0-9]+")


def _whole_number(value, max_chars=20):
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if is_int(value):
        return as_int(value)
    text = value.strip() if isinstance(value, str) else ""
    return int(text) if _ASCII_INT.fullmatch(text) and len(text) <= max_chars else None


def _top_k(value):
    """The top-k box: 0 or empty means no cut (the reference's behaviour); else a whole number up to TOP_K_MAX."""
    number = 0 if value is None or value == "" else _whole_number(value)
    if number is None or not 0 <= number <= TOP_K_MAX:
        raise gr.Error(f"top-k is {value!r:.80}; expected a whole number of triples from 0 to {TOP_K_MAX:,} "
                       "(0 for no cut)")
    return number or None


def _options(space_name="label", split="", top_k=0, dedup=False):
    if split is not None and not isinstance(split, str):
        raise gr.Error(f"split is {split!r:.80}; expected a split name such as 'test', or empty for all questions")
    if not isinstance(dedup, bool):
        raise gr.Error(f"dedup is {dedup!r:.80}; expected a checkbox value (true or false)")
    return {"space": space_name, "split": (split or "").strip() or None, "top_k": _top_k(top_k), "dedup": dedup}


def _year(value, number, name, finite=False):
    if not finite and value in ("inf", "-inf"):
        return float(value)
    year = _whole_number(value, max_chars=6)
    if year is not None and YEAR_RANGE[0] <= year <= YEAR_RANGE[1]:
        return float(year)
    bounds = "" if finite else ", or inf, -inf"
    raise gr.Error(f"table row {number}: {name} is {value!r:.80}; expected a year in plain digits such as 1994 "
                   f"(a whole number from {YEAR_RANGE[0]} to {YEAR_RANGE[1]}{bounds})")


def _table_questions(rows):
    """The question records, each with its retrieved triples under "evidence", in first-appearance order."""
    questions = {}
    for number, row in enumerate(rows, start=1):
        cells = dict(zip(TABLE_HEADERS, row))
        if cells["role"] not in ROLES:
            raise gr.Error(f"table row {number}: role is {cells['role']!r:.80}; expected 'gold' or 'retrieved'")
        t_query = _year(cells["t_query"], number, "t_query", finite=True)
        question = questions.setdefault(cells["question"], {"id": cells["question"], "t_query": t_query,
                                                            "S_star": [], "evidence": []})
        if question["t_query"] != t_query:
            raise gr.Error(f"table row {number}: t_query {cells['t_query']} differs from {question['t_query']:g} "
                           f"given earlier for question {cells['question']!r:.80}; a question has one t_query")
        triple = {name: cells[name] for name in ("s", "r", "o")}
        triple.update(t_start=_year(cells["t_start"], number, "t_start"), t_end=_year(cells["t_end"], number, "t_end"))
        question[ROLES[cells["role"]]].append(triple)
    return list(questions.values())


def score_table(table, space_name="label", split="", top_k=0, dedup=False, display="rounded"):
    """The editable table: one triple per row, gold or retrieved, grouped by question id (label space)."""
    questions = _table_questions(space.table_rows(table, TABLE_HEADERS, required=TABLE_HEADERS))
    options = _options(space_name, split, top_k, dedup)
    if options.pop("split"):
        raise gr.Error("The table has no split column; leave 'split' empty to score it.")
    # by=(): the table has no complexity or operator, so no slices.
    result = space.scored(scoring.score, {}, questions, [q["evidence"] for q in questions], by=(), **options)
    return present(result, {}, display)


def show(result, names, display="rounded"):
    """Result dict -> (table with the per-slice cells, bar chart data, signature, notes)."""
    table = [["all questions", result["n_questions"],
              *(space.number(result[key], display) for key in ("TRP_macro", "TRP_micro", "CCR", "coverage"))]]
    bars = []
    for field in (key[3:] for key in result if key.startswith("by_")):
        for value, cell in result[f"by_{field}"].items():
            name = f"{field}: {'(not given)' if value is None else value}"
            table.append([name, cell["n"], space.number(cell["TRP"], display), "", space.number(cell["CCR"], display),
                          ""])
            bars += [{"bar": f"{metric} · {name}", "metric": metric, "score": cell[metric]}
                     for metric in ("TRP", "CCR")]
    if result.get("n_evidence_unused"):  # said, not silently dropped
        table.append(["evidence lines not scored (id not among the questions)", result["n_evidence_unused"],
                      "", "", "", ""])
    table = pd.DataFrame(table, columns=RESULT_HEADERS)
    return table, space.bars(bars), result["signature"], space.notes(result, names)


present = space.Presenter(benchscore.benchmark("tempbench"), show)
score_files, score_text = space.file_scorers(INPUTS, files.score_files, present, _options)


def _options_widgets():
    with gr.Accordion("Options", open=False), gr.Row():
        return [gr.Radio(["label", "id"], value="label", label="Match triples on labels or Wikidata ids"),
                gr.Textbox(label="Score only this split (e.g. test); empty: all questions"),
                gr.Number(value=0, precision=0, minimum=0, label="Extension: keep the first k triples (0: all)"),
                gr.Checkbox(label="Extension: drop exact repeats of a retrieved triple")]


PAGE = {  # the texts of the page (build_demo adds the handlers and the outputs)
    "title": "TempBench TRP metric",
    "heading": "TempBench: TRP, CCR and coverage",
    "example_label": "Bundled example: 4 questions and a run",
    "upload_note": "The benchmark's questions file (`benchmark_labelled.jsonl` or `benchmark.jsonl`) and your run: "
                   'one `{"id": ..., "evidence": [{"s", "r", "o", "t_start", "t_end"}, ...]}` line per question, '
                   "triples in rank order.",
    "table_note": "One triple per row: `gold` rows are the question's S*, `retrieved` rows the run's evidence in "
                  "rank order. Rows with the same question id are one question (label space; no slices: "
                  "use the files for the per-complexity and per-operator cells).",
}


def build_demo():
    outputs = [space.results_table(RESULT_HEADERS, "Scores (TRP is TRP_macro for all questions)"),
               space.bar_chart("By complexity and operator"), space.signature_box(),
               space.notes_box("Notes (the reference scorer's conventions that changed a number)")]
    return space.build_demo(**PAGE, folder=HERE, inputs=INPUTS, outputs=outputs, present=present, score_files=score_files,
                            score_text=score_text, example=["questions.jsonl", "evidence.jsonl"],
                            table_value=TABLE_EXAMPLE, table_headers=TABLE_HEADERS, score_table=score_table,
                            options=_options_widgets)


if __name__ == "__main__":
    space.launch(build_demo)
