"""The WebNLG+ 2020 text-to-RDF Space: the official evaluation script's numbers in the browser.

Files are read as `benchscore webnlg` reads them (safe XML, cost limits); see `benchscore.core.space`.
Serve it with `python app.py`.
"""

import pathlib

import gradio as gr
import pandas as pd

import benchscore
from benchscore.core import space
from benchscore.webnlg_rdf import files, scoring

HERE = pathlib.Path(__file__).resolve().parent
INPUTS = (
    space.FileInput("Reference XML", (".xml",), "references-file", "references.xml"),
    space.FileInput("Candidate XML", (".xml",), "candidates-file", "candidates.xml"),
)
RESULT_HEADERS = ["scores", "scheme", *scoring.RATES, *scoring.KINDS]
BREAKDOWN_HEADERS = ["slice", *scoring.SCHEMES, "Exact_match"]
BREAKDOWNS = ("category", "size")
TIME_LIMIT = 10  # seconds of scoring per upload or paste (files are bounded by `scoring.MAX_COST` first)
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


def _options(by=BREAKDOWNS):
    # fixed order, whatever the click order; the time limit is a backstop (files are bounded by cost first)
    return {"by": tuple(key for key in BREAKDOWNS if key in (by or ())), "time_limit": TIME_LIMIT}


def _table_entries(rows):
    """(labels, references, candidates) of the table's entries, in first-appearance order."""
    entries = {}
    for number, (entry, side, triple) in enumerate(rows, start=1):
        if side not in SIDES:
            raise gr.Error(f"table row {number}: side is {side!r}; expected 'reference' or 'candidate'")
        entries.setdefault(entry, ([], []))[SIDES.index(side)].append(triple)
    return [f"table entry {name!r}" for name in entries], *zip(*entries.values())


def score_table(table, by=(), display="rounded"):
    """The editable table: one triple per row, reference or candidate, grouped by entry (the breakdown
    options, passed to every tab, apply to files only: the table has no categories)."""
    labels, references, candidates = _table_entries(space.table_rows(table, TABLE_HEADERS, required=TABLE_HEADERS))
    space.table_scored(scoring.check_cost, labels, references, candidates)
    return present(space.table_scored(scoring.score, labels, references, candidates), {}, display)


def _official_rows(result, display):
    rows = []
    for title, schemes in [("Total_scores", result["Total_scores"]), *result["Scores_per_tag"].items()]:
        rows += [[title, scheme, *(space.number(cell[rate], display) for rate in scoring.RATES),
                  *(cell[kind] for kind in scoring.KINDS)] for scheme, cell in schemes.items()]
    exact = result["Exact_match"]
    return rows + [["Exact_match", "", *(space.number(exact[rate], display) for rate in scoring.RATES), *[""] * 5]]


def _breakdown_rows(result, display):
    rows, bars = [], []
    for key in BREAKDOWNS:
        for group, sub in result.get(f"extension_per_{key}", {}).items():
            name = f"{key}: {group}"
            f1 = {scheme: sub["Total_scores"][scheme]["F1"] for scheme in scoring.SCHEMES}
            f1["Exact_match"] = sub["Exact_match"]["F1"]
            rows.append([name, *(space.number(f1[column], display) for column in BREAKDOWN_HEADERS[1:])])
            bars += [{"bar": f"{scheme} · {name}", "scheme": scheme, "F1": value} for scheme, value in f1.items()]
    return rows, bars


def show(result, names, display="rounded"):
    """Result dict -> (official scores table, breakdown table, bar chart data, signature, notes)."""
    breakdown, bars = _breakdown_rows(result, display)
    return (pd.DataFrame(_official_rows(result, display), columns=RESULT_HEADERS),
            pd.DataFrame(breakdown, columns=BREAKDOWN_HEADERS), space.bars(bars, ("bar", "scheme", "F1")),
            result["signature"], space.notes(result, names))


# Uploaded or pasted official files (the reference XML, the candidate XML), read as the CLI reads them.
present = space.Presenter(benchscore.benchmark("webnlg"), show)
score_files, score_text = space.file_scorers(INPUTS, files.score_files, present, _options)


def _options_widgets():
    return [gr.CheckboxGroup(list(BREAKDOWNS), value=list(BREAKDOWNS),
                             label="Extension: break the scores down by (files only)")]


def build_demo():
    outputs = [
        space.results_table(RESULT_HEADERS, "Official scores (Evaluation_script_json.py's structure)"),
        space.results_table(BREAKDOWN_HEADERS, "Extension: Total_scores F1 per category and per size (reference "
                            "triples)", elem_id="breakdown"),
        space.bar_chart("F1 by category and size", y="F1", color="scheme"),
        space.signature_box(),
        space.notes_box("Notes (official quirks that change a number)"),
    ]
    return space.build_demo(
        folder=HERE,
        title="WebNLG+ 2020 text-to-RDF metric",
        heading="WebNLG+ 2020 text-to-RDF: the official scores",
        inputs=INPUTS,
        outputs=outputs,
        present=present,
        score_files=score_files,
        score_text=score_text,
        example=["refs.xml", "cands.xml"],
        example_label="Bundled example: 3 entries, 6 reference triples",
        upload_note="The official formats: the reference XML (`<entry>` with `<modifiedtripleset>`/`<mtriple>`) and "
                    "your candidate XML (`<generatedtripleset>`/`<gtriple>`), entries paired by position. DTDs and "
                    "entities are refused.",
        table_value=TABLE_EXAMPLE,
        table_headers=TABLE_HEADERS,
        table_note="One triple per row, written `subject | predicate | object`; rows with the same entry are one "
                   "entry (no breakdown: use the files for categories).",
        score_table=score_table,
        options=_options_widgets,
    )


if __name__ == "__main__":
    space.launch(build_demo)
