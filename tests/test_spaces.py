"""The metric Spaces (metrics/*/app.py) served on 127.0.0.1 and driven in headless Chromium.

Per app, one server: click the bundled example and compare every number shown with the pure
scoring functions, upload a malformed file and read the message, save a screenshot under
test-artifacts/. Skips with the reason where gradio, selenium or Debian's chromium is absent.
"""

import pytest

import browser

from benchscore.mctaco import loader as mctaco_loader
from benchscore.mctaco import scoring as mctaco_scoring

MCTACO_EXAMPLES = browser.METRICS / "mctaco" / "examples"


@pytest.fixture(scope="module")
def driver():
    browser.require_spaces_stack()
    with browser.chromium() as chromium:
        yield chromium


def wait_for_chart(page):
    page.wait_for(lambda: page.find_all("#chart canvas, #chart svg.marks"), "the bar chart")


def test_mctaco_space(driver, tmp_path):
    rows = mctaco_loader.read_tsv(MCTACO_EXAMPLES / "example.tsv")
    stats = mctaco_scoring.question_stats(
        mctaco_loader.read_predictions(MCTACO_EXAMPLES / "example_predictions.txt"),
        [row["label"] for row in rows],
        [mctaco_scoring.question_key(row["sentence"], row["question"]) for row in rows],
        [row["category"] for row in rows],
    )
    slices = {"all questions": mctaco_scoring.aggregate(stats), **mctaco_scoring.per_category(stats)}
    expected = [[name, str(cell["n_questions"]), repr(cell["em"]), repr(cell["f1"])] for name, cell in slices.items()]
    malformed = tmp_path / "malformed.tsv"
    malformed.write_text("He ran.\tHow long?\tan hour\tyes\tEvent Duration\nHe ran.\tHow long?\ta year\n")

    with browser.serve(browser.load_app("mctaco")) as url:
        page = browser.Page(driver, url)
        assert "official metrics are per" in page.find("body").text  # the card's summary
        page.click_text("example.tsv", "#examples td")
        headers, shown = page.wait_for_table("results", len(expected))
        assert headers == ["slice", "questions", "EM", "F1"]
        assert shown == expected
        assert page.value("signature") == mctaco_scoring.signature("sentence+question")
        wait_for_chart(page)
        page.screenshot("space-mctaco.png")

        page = browser.Page(driver, url)
        page.upload("gold-file", malformed)
        page.upload("predictions-file", MCTACO_EXAMPLES / "example_predictions.txt")
        page.click_text("Score files")
        message = page.error_text()
        assert "malformed.tsv: line 2 has 3 tab-separated fields; expected 5" in message
        assert "Traceback" not in message and str(tmp_path) not in message
        page.screenshot("space-mctaco-error.png")
