"""The Space apps' handlers without a browser: each input mode against the pure functions, the
messages for bad input (a Space built from the wheel alone: tests/test_space_wheel.py).
"""

import contextlib
import json
import os
import re

import pytest

from conftest import shared_path

import browser  # before gradio: it turns gradio's analytics off

pytest.importorskip("gradio", reason="gradio is not installed (pip install gradio; CI installs the spaces extra)")

import gradio as gr  # noqa: E402
import pandas as pd  # noqa: E402

import benchscore  # noqa: E402
from benchscore.core import space  # noqa: E402

from benchscore.mctaco import scoring as mctaco_scoring  # noqa: E402
from benchscore.tsver import scoring as tsver_scoring  # noqa: E402
from benchscore.webnlg_rdf import scoring as webnlg_scoring  # noqa: E402

FOLDERS = tuple(sorted(b.folder for b in benchscore.BENCHMARKS.values()))  # the registry: a new one fails here
EXAMPLES = {  # the files each app's one-click example scores
    "mctaco": ("example.tsv", "example_predictions.txt"),
    "tempbench_trp": ("questions.jsonl", "evidence.jsonl"),
    "webnlg_rdf": ("refs.xml", "cands.xml"),
    "tsver": ("gold.jsonl", "predictions.jsonl"),
}
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # TSVer's example warns on purpose


@pytest.fixture(scope="module")
def apps():
    return {folder: browser.load_app(folder) for folder in FOLDERS}


@contextlib.contextmanager
def shows_error(pattern):
    """The block raises gr.Error (what the page shows) whose message matches `pattern`."""
    with pytest.raises(gr.Error) as err:
        yield
    assert re.search(pattern, err.value.message), err.value.message


def frame(app):
    return pd.DataFrame(app.TABLE_EXAMPLE, columns=app.TABLE_HEADERS)


def example_paths(folder):
    return [str(browser.METRICS / folder / "examples" / name) for name in EXAMPLES[folder]]


def signature(output):
    return next(value for value in output if isinstance(value, str))  # the first text output, in every app


def cells(output):
    """The first output (the results table) as lists of strings, as the browser shows them."""
    return [[str(value) for value in row] for row in output[0].values.tolist()]


@pytest.mark.parametrize("folder", FOLDERS)
def test_pasted_text_scores_like_the_uploaded_files(folder, apps):
    app = apps[folder]
    texts = [open(path, encoding="utf-8").read() for path in example_paths(folder)]
    pasted, uploaded = app.score_text(*texts), app.score_files(*example_paths(folder))
    assert cells(pasted) == cells(uploaded)
    assert signature(pasted) == signature(uploaded)


@pytest.mark.parametrize("folder", FOLDERS)
def test_missing_and_oversized_input_get_a_message(folder, apps, monkeypatch):
    app = apps[folder]
    with shows_error("Upload"):
        app.score_files(None, example_paths(folder)[1])
    with shows_error("Paste"):
        app.score_text("", "x")
    monkeypatch.setattr(space, "MAX_TEXT_CHARS", 10)
    with shows_error("limited to 10 characters; upload the files instead"):
        app.score_text("x" * 11, "y")


@pytest.mark.parametrize("folder", FOLDERS)
def test_errors_in_pasted_text_name_the_paste_not_a_temporary_file(folder, apps):
    app = apps[folder]
    broken = {"mctaco": ("a\tb\n", "yes\n"), "tempbench_trp": ("{not json\n", "{}\n"),
              "webnlg_rdf": ("<benchmark>", "<benchmark/>"), "tsver": ("[1]\n", "{}\n")}[folder]
    with pytest.raises(gr.Error) as err:
        app.score_text(*broken)
    assert err.value.message.startswith("pasted ")
    assert "/tmp" not in err.value.message and "Traceback" not in err.value.message


def test_mctaco_table(apps):
    app = apps["mctaco"]
    rows = app.TABLE_EXAMPLE
    questions, gold, predictions, categories = ([row[i] for row in rows] for i in (0, 2, 3, 4))
    expected = mctaco_scoring.score(predictions, gold, questions, categories)
    table, _, signature, notes, _ = app.score_table(frame(app), display="every digit")
    assert table.values.tolist()[0] == ["all questions", 2, repr(expected["em"]), repr(expected["f1"])]
    assert table["slice"].tolist()[1:] == list(expected["extension_per_category"])
    assert signature == "mctaco|version:1.0.0|benchscore:0.1.0|key:question_id|labels:normalized"
    assert notes == "No warnings."
    no_categories = frame(app).assign(category="")
    assert app.score_table(no_categories)[0]["slice"].tolist() == ["all questions"]
    with shows_error(r"^table row 2: category is empty; give a category in every row or none"):
        app.score_table(frame(app).assign(category=["Frequency", "", "", "", ""]))
    with shows_error(r"^table row 3: prediction is empty"):
        app.score_table(frame(app).assign(prediction=["yes", "no", "", "yes", "no"]))
    with shows_error(r"^table row 2: prediction is 'maybe'; expected 'yes' or 'no'"):
        app.score_table(frame(app).assign(prediction=["yes", "maybe", "no", "yes", "no"]))


def test_tempbench_table(apps):
    app = apps["tempbench_trp"]
    table, _, signature, notes, _ = app.score_table(frame(app), display="every digit")
    # By hand: q1 retrieves 3 triples, 1 valid in 1994 (TRP 1/3, chain complete); q2 retrieves its
    # gold triple with an interval that misses 1995 (TRP 0, CCR 0).
    assert table.values.tolist() == [["all questions", 2, repr((1 / 3 + 0) / 2), repr(1 / 4), "0.5", "1.0"]]
    assert signature == "tempbench_trp|version:1.0.0|benchscore:0.1.0|space:label|top_k:none|dedup:no|subset:all"
    assert notes == "No warnings."
    assert app.score_table(frame(app), top_k=1)[0].values.tolist()[0][2] == "0.5000"  # rounded by default
    with shows_error(r"^table row 2: role is 'found'; expected 'gold' or 'retrieved'"):
        app.score_table(frame(app).assign(role=["gold", "found", "retrieved", "retrieved", "gold", "retrieved"]))
    with shows_error(r"^table row 6: t_query 1996 differs from 1995 given earlier for question 'q2'"):
        app.score_table(frame(app).assign(t_query=["1994"] * 4 + ["1995", "1996"]))
    with shows_error(r"^table row 1: t_start is 'soon'; expected a year"):
        app.score_table(frame(app).assign(t_start=["soon"] + ["1994"] * 5))


def test_webnlg_table(apps):
    app = apps["webnlg_rdf"]
    rows = app.TABLE_EXAMPLE
    entries = {}
    for entry, side, triple in rows:
        entries.setdefault(entry, {"reference": [], "candidate": []})[side].append(triple)
    expected = webnlg_scoring.score([e["reference"] for e in entries.values()],
                                    [e["candidate"] for e in entries.values()])
    table, breakdown, _, signature, _, _ = app.score_table(frame(app), display="every digit")
    assert table.values.tolist()[3][:5] == ["Total_scores", "Exact", *(repr(expected["Total_scores"]["Exact"][r])
                                                                       for r in ("Precision", "Recall", "F1"))]
    assert table.values.tolist()[-1][2:5] == [repr(expected["Exact_match"][r]) for r in ("Precision", "Recall", "F1")]
    assert breakdown.empty and signature.endswith("|breakdown:no")
    with shows_error(r"has 2 ' \| '-separated parts; expected 3"):
        app.score_table(frame(app).assign(**{"subject | predicate | object": ["a | b"] * 6}))


def test_webnlg_breakdown_follows_the_checkboxes(apps):
    app = apps["webnlg_rdf"]
    _, breakdown, _, signature, _, _ = app.score_files(*example_paths("webnlg_rdf"), by=["size"])
    assert breakdown["slice"].tolist() == ["size: 1", "size: 2", "size: 3"]
    assert signature.endswith("|breakdown:yes")
    _, breakdown, _, signature, _, _ = app.score_files(*example_paths("webnlg_rdf"), by=[])
    assert breakdown.empty and signature.endswith("|breakdown:no")


def test_tsver_table(apps):
    app = apps["tsver"]
    gold, predictions = [], []
    for claim, gold_verdict, predicted, gold_ranges, predicted_ranges in app.TABLE_EXAMPLE:
        gold.append({"Claim": claim, "Verdict": gold_verdict, "TimeSeries": app._ranges(gold_ranges, 0, "")})
        predictions.append({"verdict": predicted, "explanation": None, "ranges": app._ranges(predicted_ranges, 0, "")})
    expected = tsver_scoring.aggregate(tsver_scoring.item_stats(gold, predictions))
    table, confusion, _, signature, notes, _ = app.score_table(frame(app), display="every digit")
    rows = {row[0]: row[1] for row in table.values.tolist()}
    assert rows["TSCS"] == repr(expected["tscs"])
    assert rows["Verdict Accuracy"] == repr(expected["verdict_accuracy"])
    assert "Justifications Ev2R Score" not in rows
    assert confusion.iloc[:, 1:].astype(int).values.tolist() == expected["confusion_matrix"]
    assert signature == "tsver|version:1.0.0|benchscore:0.1.0|strict:no|ev2r:tsver|judge:none"
    assert notes == "No warnings."
    assert app.score_table(frame(app), strict=True)[3].startswith("tsver|version:1.0.0|benchscore:0.1.0|strict:yes")
    assert app._ranges("gdp-growth, real (annual %): 2000-2001, 2003-2004", 1, "gold ranges") == {
        "gdp-growth, real (annual %)": [{"from": 2000, "to": 2001}, {"from": 2003, "to": 2004}]}
    with shows_error(r"^table row 1: gold ranges 'rainfall 2000' is not 'series: from-to"):
        app.score_table(frame(app).assign(**{"gold ranges": ["rainfall 2000", "x: 1-2", "x: 1-2"]}))
    with shows_error(r"^table row 2: 'Verdict' must be one of"):
        app.score_table(frame(app).assign(**{"gold verdict": ["Supported", "False", "Refuted"]}))


@pytest.mark.parametrize("folder", FOLDERS)
def test_launch_limits_uploads(folder, apps, monkeypatch):
    calls = []
    monkeypatch.setattr(gr.Blocks, "launch", lambda self, **kwargs: calls.append(kwargs))
    apps[folder].space.launch(apps[folder].build_demo, server_name="127.0.0.1")
    assert calls == [{"max_file_size": "5mb", "server_name": "127.0.0.1"}]


# ---------------------------------------------------------------- official files through the Space handlers


@pytest.mark.parity
def test_mctaco_official_runs(apps):
    runs = json.loads(shared_path("data", "mctaco", "expected_official.json").read_text())["runs"]
    for run in runs:
        gold, predictions = (str(shared_path("data", "mctaco", run[name])) for name in ("gold", "predictions"))
        row = apps["mctaco"].score_files(gold, predictions, display="every digit")[0].values.tolist()[0]
        assert row[2:] == [repr(run["em"]), repr(run["f1"])], run["predictions"]


@pytest.mark.parity
def test_tempbench_official_fixture(apps):
    folder = shared_path("data", "tempbench", "fixtures")
    expected = json.loads((folder / "expected_oracle_plus_noise_label.json").read_text())["results"]
    for questions, runs in expected.items():
        want = next(run["aggregate"] for run in runs if "label" in run["keys"])
        shown = cells(apps["tempbench_trp"].score_files(str(folder / questions),
                                                       str(folder / "evidence_oracle_plus_noise_label.jsonl"),
                                                       display="every digit"))
        assert shown[0][1:] == [str(want["n_questions"]), *(repr(want[key]) for key in
                                                           ("TRP_macro", "TRP_micro", "CCR", "coverage"))]
        slices = [[f"{field}: {value}", str(cell["n"]), repr(cell["TRP"]), "", repr(cell["CCR"]), ""]
                  for field in ("complexity", "operator") for value, cell in want[f"by_{field}"].items()]
        # The evidence file covers both questions files: the other file's lines are counted, not scored.
        lines = (folder / "evidence_oracle_plus_noise_label.jsonl").read_text().splitlines()
        n_unused = len(lines) - want["n_questions"]
        assert shown[1:] == slices + [["evidence lines not scored (id not among the questions)", str(n_unused),
                                       "", "", "", ""]]


@pytest.mark.parity
def test_webnlg_official_example(apps):
    folder = shared_path("data", "webnlg")
    want = json.loads((folder / "expected" / "example.json").read_text())
    shown = cells(apps["webnlg_rdf"].score_files(str(folder / "example" / "Refs.xml"),
                                                 str(folder / "example" / "Cands2.xml"), by=[],
                                                 display="every digit"))
    blocks = [("Total_scores", want["Total_scores"]), *want["Scores_per_tag"].items()]
    for row, (title, scheme) in zip(shown, [(t, s) for t, _ in blocks for s in webnlg_scoring.SCHEMES]):
        cell = dict(blocks)[title][scheme]
        assert row[:2] == [title, scheme]
        assert row[5:] == [str(cell[kind]) for kind in ("Correct", "Incorrect", "Partial", "Missed", "Spurious")]
        for shown_rate, rate in zip(row[2:5], ("Precision", "Recall", "F1")):
            assert abs(float(shown_rate) - cell[rate]) <= 1e-12, (title, scheme, rate)  # the spec's tolerance


@pytest.mark.parity
@pytest.mark.parametrize("run", ["test_gold", "test_wrong_verdict"])
def test_tsver_official_table(apps, run):
    folder = shared_path("data", "tsver")
    official = (folder / "expected" / f"official_cli_{run}.txt").read_text(encoding="utf-8")
    percent = dict(re.findall(r"^\| (TSCS|Verdict F1|Verdict Accuracy) +\| +([\d.]+) \|$", official, re.M))
    shown = {row[0]: row[2] for row in cells(apps["tsver"].score_files(
        str(folder / "tsver_test.jsonl"), str(folder / "predictions" / f"pred_{run}.jsonl")))}
    assert percent == {"TSCS": shown["TSCS"], "Verdict F1": shown["Verdict F1 (macro, 4 labels)"],
                       "Verdict Accuracy": shown["Verdict Accuracy"]}


@pytest.mark.parametrize("folder", FOLDERS)
def test_requirements_pin_the_gradio_we_test_with(folder):
    import benchscore

    lines = (browser.METRICS / folder / "requirements.txt").read_text().splitlines()
    # benchscore brings evaluate, datasets and numpy at the versions its own pyproject pins.
    assert lines == [f"gradio=={gr.__version__}", f"benchscore=={benchscore.__version__}", "pandas"]


def test_tempbench_says_how_many_evidence_lines_it_did_not_score(apps):
    questions, evidence = example_paths("tempbench_trp")
    extra = '{"id": "not-a-question", "evidence": []}\n'
    text = open(evidence, encoding="utf-8").read() + extra
    table, _, signature, _, _ = apps["tempbench_trp"].score_text(open(questions, encoding="utf-8").read(), text)
    assert table.values.tolist()[-1] == ["evidence lines not scored (id not among the questions)", 1, "", "", "", ""]
    assert signature == "tempbench_trp|version:1.0.0|benchscore:0.1.0|space:label|top_k:none|dedup:no|subset:all"


def test_tsver_notes_name_the_claims_left_out_of_ev2r(apps):
    """The claims the official rules leave out of Ev²R (here: no record in the uploaded judge file) are
    named in the Space's notes, with their number and why, as on the command line."""
    gold, predictions = example_paths("tsver")
    output = apps["tsver"].score_files(gold, predictions, str(browser.METRICS / "tsver" / "examples" / "ev2r.jsonl"))
    notes = output[-2]
    assert "Ev2R over 3 of 5 claims: 2 left out for want of a usable judge record" in notes
    assert "(claims 5, 6; first failure: no recorded Ev2R record" in notes


@pytest.mark.parametrize("folder", FOLDERS)
def test_pasted_text_downloads_name_the_paste_not_a_temporary_file(folder, apps):
    """What a paste hands over (the result, the tables) names the pasted inputs as the page does."""
    texts = [open(path, encoding="utf-8").read() for path in example_paths(folder)]
    output = apps[folder].score_text(*texts)
    written = {path.rsplit("/", 1)[1]: open(path, encoding="utf-8").read() for path in output[-1]}
    table = json.loads(next(text for name, text in written.items() if name.endswith("_table.json")))
    assert set(table["attestation"]["inputs"]) == {f"pasted {spec.label}" for spec in apps[folder].INPUTS
                                                   if not spec.optional}
    for name, text in written.items():
        assert "/tmp" not in text and "pasted.jsonl" not in text, name


def test_tsver_download_warnings_name_the_uploaded_files(apps):
    gold, predictions = example_paths("tsver")
    result_file = next(p for p in apps["tsver"].score_files(gold, predictions)[-1] if p.endswith("_result.json"))
    warnings = json.loads(open(result_file, encoding="utf-8").read())["warnings"]
    assert warnings and any("predictions.jsonl" in w for w in warnings)
    assert not any(str(browser.METRICS) in w for w in warnings)


@pytest.mark.parametrize("folder", FOLDERS)
def test_a_display_that_is_not_offered_is_refused(folder, apps):
    with shows_error(r"^numbers shown is 'bold'; expected one of rounded, every digit$"):
        apps[folder].score_files(*example_paths(folder), display="bold")
    with shows_error(r"^numbers shown is 'bold'"):
        apps[folder].score_table(frame(apps[folder]), display="bold")
    downloads = apps[folder].score_files(*example_paths(folder))[-1]
    with shows_error(r"^numbers shown is None"):
        space.shown_again(apps[folder].present, 1)(downloads, None)


def test_showing_again_something_that_is_not_a_result_is_a_message(apps, tmp_path):
    app = apps["mctaco"]
    for text in ("not json", "[1, 2]", '{"em": 0.5}'):
        path = tmp_path / "mctaco_result.json"
        path.write_text(text, encoding="utf-8")
        with shows_error(r"^The result to show again could not be read; score the files again\.$"):
            space.shown_again(app.present, 4)([str(path)], "every digit")


def test_downloads_of_old_scorings_are_removed(apps, monkeypatch):
    first = apps["mctaco"].score_files(*example_paths("mctaco"))[-1]
    folder = first[0].rsplit("/", 1)[0]
    assert all(path.startswith(str(space._DOWNLOADS)) for path in first)
    monkeypatch.setattr(space, "KEEP_DOWNLOADS_S", -1)  # everything is old
    second = apps["mctaco"].score_files(*example_paths("mctaco"))[-1]
    assert not os.path.exists(folder) and all(os.path.exists(path) for path in second)
