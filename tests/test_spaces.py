"""The metric Spaces (metrics/*/app.py) served on 127.0.0.1 and driven in headless Chromium.

Per app, one server: click the bundled example and compare every number shown with the pure
scoring functions, upload a malformed file and read the message, save a screenshot under
test-artifacts/. Skips with the reason where gradio, selenium or Debian's chromium is absent.
"""

import json
import urllib.request
import warnings

import pytest

import browser

from benchscore.mctaco import files as mctaco_files
from benchscore.mctaco import scoring as mctaco_scoring
from benchscore.tempbench_trp import files as tempbench_files
from benchscore.tempbench_trp import scoring as tempbench_scoring
from benchscore.tsver import files as tsver_files
from benchscore.webnlg_rdf import files as webnlg_files
from benchscore.webnlg_rdf import scoring as webnlg_scoring

# gradio's queue uses pandas options that pandas 3 deprecates: its warnings, not ours.
pytestmark = pytest.mark.filterwarnings("ignore::Warning:gradio.queueing")

MCTACO_EXAMPLES = browser.METRICS / "mctaco" / "examples"


def rounded(value):
    return f"{value:.4f}"  # what the results tables show by default (the downloads keep every digit)


@pytest.fixture(scope="module")
def driver():
    browser.require_spaces_stack()
    with browser.chromium() as chromium:
        yield chromium


def wait_for_chart(page):
    page.wait_for(lambda: page.find_all("#chart canvas, #chart svg.marks"), "the bar chart")


def open_example(driver, url, summary, n_rows):
    """A new page of the Space at `url`: its card's `summary` shown, the bundled example clicked, and
    (page, headers, rows) of the results table once it has `n_rows` rows."""
    page = browser.Page(driver, url)
    assert summary in page.find("body").text  # the card's summary
    page.click_text("Bundled example", "#examples button")
    headers, shown = page.wait_for_table("results", n_rows)
    return page, headers, shown


def chart_and_screenshot(page, name):
    wait_for_chart(page)
    page.screenshot(f"space-{name}.png")


def upload_error(driver, url, uploads, expected, tmp_path):
    """A new page of the Space at `url`, the files `uploads` ({element id: path}) scored: its error names
    `expected` with no traceback and no server path. Returns the page."""
    page = browser.Page(driver, url)
    for element_id, path in uploads.items():
        page.upload(element_id, path)
    page.click_text("Score files")
    message = page.error_text()
    assert expected in message
    assert "Traceback" not in message and str(tmp_path) not in message
    return page


def check_downloads(page, url, bench, headline):
    """The downloads list the result and the four table files; the served result JSON has every digit."""
    def links():
        found = {a.get_attribute("download"): a.get_attribute("href") for a in page.find_all("#downloads a[download]")}
        return found if len(found) == 5 else None

    found = page.wait_for(links, "five download links")
    names = [f"{bench}_result.json", *(f"{bench}_table.{end}" for end in ("md", "tex", "csv", "json"))]
    assert sorted(found) == sorted(names)
    assert found[names[0]].startswith(url.rstrip("/"))  # served by the Space itself
    with urllib.request.urlopen(found[names[0]], timeout=30) as response:
        result = json.loads(response.read().decode("utf-8"))
    assert {key: result[key] for key in headline} == headline


def test_mctaco_space(driver, tmp_path):
    stats = mctaco_files.file_stats(MCTACO_EXAMPLES / "example.tsv", MCTACO_EXAMPLES / "example_predictions.txt")
    slices = {"all questions": mctaco_scoring.aggregate(stats), **mctaco_scoring.per_category(stats)}
    expected = [[name, str(cell["n_questions"]), rounded(cell["em"]), rounded(cell["f1"])] for name, cell in slices.items()]
    every_digit = [[name, str(cell["n_questions"]), repr(cell["em"]), repr(cell["f1"])] for name, cell in slices.items()]
    malformed = tmp_path / "malformed.tsv"
    malformed.write_text("He ran.\tHow long?\tan hour\tyes\tEvent Duration\nHe ran.\tHow long?\ta year\n")

    with browser.serve(browser.load_app("mctaco")) as url:
        page, headers, shown = open_example(driver, url, "official metrics are per", len(expected))
        assert headers == ["slice", "questions", "EM", "F1"]
        assert shown == expected
        assert page.value("signature") == mctaco_scoring.signature("sentence+question")
        chart_and_screenshot(page, "mctaco")
        check_downloads(page, url, "mctaco", {"em": slices["all questions"]["em"], "f1": slices["all questions"]["f1"]})
        page.click_text("every digit", "#display label")  # the same result again, every digit shown
        page.wait_for(lambda: page.table("results")[1] == every_digit, "every digit in the results table")

        page = upload_error(driver, url, {"gold-file": malformed,
                                          "predictions-file": MCTACO_EXAMPLES / "example_predictions.txt"},
                            "malformed.tsv:2: found 3 tab-separated fields; expected 5", tmp_path)
        page.screenshot("space-mctaco-error.png")

        page = browser.Page(driver, url)
        too_big = tmp_path / "big.tsv"
        too_big.write_bytes(b"x" * (5 * 2**20 + 1))
        page.find("#gold-file input[type=file]").send_keys(str(too_big))
        assert 'exceed the maximum allowed size of 5.0 Mb: "big.tsv"' in page.error_text()


def test_tempbench_space(driver, tmp_path):
    examples = browser.METRICS / "tempbench_trp" / "examples"
    result = tempbench_files.score_files(examples / "questions.jsonl", examples / "evidence.jsonl")
    number = rounded
    expected = [["all questions", str(result["n_questions"]), number(result["TRP_macro"]), number(result["TRP_micro"]),
                 number(result["CCR"]), number(result["coverage"])]]
    for field in tempbench_scoring.SLICES:
        for value, cell in result[f"by_{field}"].items():
            expected.append([f"{field}: {value}", str(cell["n"]), number(cell["TRP"]), "", number(cell["CCR"]), ""])
    malformed = tmp_path / "run.jsonl"
    malformed.write_text('{"id": "ex-1", "evidence": []}\n{"id": "ex-2", "evidence": [\n')

    with browser.serve(browser.load_app("tempbench_trp")) as url:
        page, headers, shown = open_example(driver, url, "Temporal Retrieval Precision", len(expected))
        assert headers == ["slice", "questions", "TRP", "TRP_micro", "CCR", "coverage"]
        assert shown == expected
        assert page.value("signature") == result["signature"]
        chart_and_screenshot(page, "tempbench_trp")

        upload_error(driver, url, {"questions-file": examples / "questions.jsonl", "evidence-file": malformed},
                     "run.jsonl:2: not valid JSON", tmp_path)


def test_webnlg_space(driver, tmp_path):
    examples = browser.METRICS / "webnlg_rdf" / "examples"
    references, _, stats = webnlg_files.scored_entries(examples / "refs.xml", examples / "cands.xml")
    result = webnlg_scoring.aggregate(stats)
    expected = []
    for title, schemes in [("Total_scores", result["Total_scores"]), *result["Scores_per_tag"].items()]:
        for scheme in webnlg_scoring.SCHEMES:
            cell = schemes[scheme]
            expected.append([title, scheme, *(rounded(cell[rate]) for rate in ("Precision", "Recall", "F1")),
                             *(str(cell[kind]) for kind in ("Correct", "Incorrect", "Partial", "Missed", "Spurious"))])
    expected.append(["Exact_match", "", *(rounded(result["Exact_match"][rate]) for rate in ("Precision", "Recall", "F1")),
                     "", "", "", "", ""])
    by_category = webnlg_scoring.breakdown(stats, [r["category"] for r in references])
    expected_breakdown = [
        [f"category: {group}", *(rounded(sub["Total_scores"][scheme]["F1"]) for scheme in webnlg_scoring.SCHEMES),
         rounded(sub["Exact_match"]["F1"])]
        for group, sub in by_category.items()
    ]
    # An entity declaration: the loader refuses it (no entity expansion, no external files).
    malformed = tmp_path / "cands.xml"
    malformed.write_text('<?xml version="1.0"?>\n<!DOCTYPE b [<!ENTITY lol "lol">]>\n<benchmark>&lol;</benchmark>\n')

    with browser.serve(browser.load_app("webnlg_rdf")) as url:
        page, headers, shown = open_example(driver, url, "subject | predicate | object", len(expected))
        assert headers[:5] == ["scores", "scheme", "Precision", "Recall", "F1"]
        assert shown == expected
        headers, shown = page.wait_for_table("breakdown", 2 * len(expected_breakdown))  # per category, per size
        assert shown[: len(expected_breakdown)] == expected_breakdown
        assert page.value("signature").endswith("|breakdown:yes")
        chart_and_screenshot(page, "webnlg_rdf")

        upload_error(driver, url, {"references-file": examples / "refs.xml", "candidates-file": malformed},
                     "cands.xml:2: found an entity declaration", tmp_path)


def test_tsver_space(driver, tmp_path):
    examples = browser.METRICS / "tsver" / "examples"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the example's quirks warn; the app shows them as notes
        result = tsver_files.score_files(examples / "gold.jsonl", examples / "predictions.jsonl",
                                         examples / "ev2r.jsonl")
    shown_scores = {"tscs": "TSCS", "verdict_macro_f1": "Verdict F1 (macro, 4 labels)",
                    "verdict_accuracy": "Verdict Accuracy", "ev2r_f1": "Justifications Ev2R Score"}
    malformed = tmp_path / "preds.jsonl"
    malformed.write_text('{"Claim": "Atlantis\'s rainfall doubled between 2000 and 2004.", "Explanation": null}\n')

    with browser.serve(browser.load_app("tsver")) as url:
        page, headers, shown = open_example(driver, url, "verify a", 19)
        assert headers == ["score", "value", "official table (%)"]
        rows = {row[0]: row[1:] for row in shown}
        for key, name in shown_scores.items():
            assert rows[name] == [rounded(result[key]), f"{100 * result[key]:.2f}"]
        assert rows["gold claims"] == [str(result["n_claims"]), ""]
        assert rows["verdicts matching no label"] == [str(result["n_unmatched"]), ""]
        headers, matrix = page.wait_for_table("confusion", 4)
        assert [[int(n) for n in row[1:]] for row in matrix] == result["confusion_matrix"]
        assert page.value("signature") == result["signature"]
        assert "2 predicted verdict(s) match no label (claims 2, 5)" in page.value("notes")
        chart_and_screenshot(page, "tsver")

        upload_error(driver, url, {"gold-file": examples / "gold.jsonl", "predictions-file": malformed},
                     "preds.jsonl:1: prediction has no 'Verdict' key", tmp_path)
