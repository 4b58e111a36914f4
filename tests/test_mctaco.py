"""MC-TACO: parity with the official evaluator, the evaluate module, the loader and the CLI."""

import json
import random

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from benchscore import cli
from benchscore.mctaco import files
from benchscore.mctaco import loader
from benchscore.mctaco import scoring
from conftest import METRICS
from conftest import load_metric
from conftest import shared_path

EXAMPLE_TSV = METRICS / "mctaco" / "examples" / "example.tsv"
EXAMPLE_PREDICTIONS = METRICS / "mctaco" / "examples" / "example_predictions.txt"


def official_runs():
    path = shared_path("data", "mctaco", "expected_official.json")
    return json.loads(path.read_text())["runs"]


def _run_id(run):
    return run["predictions"].rsplit("/", 1)[-1]


@pytest.fixture(scope="module")
def mctaco():
    return load_metric("mctaco")


# --- parity: the ten recorded official runs, exact floats -------------------------------------


@pytest.mark.parity
def test_all_ten_official_runs_reproduce_exactly():
    runs = official_runs()
    assert len(runs) == 10
    folder = shared_path("data", "mctaco")
    for run in runs:
        result = files.score_files(folder / run["gold"], folder / run["predictions"])
        assert (result["em"], result["f1"]) == (run["em"], run["f1"]), _run_id(run)


@pytest.mark.parity
def test_official_runs_through_evaluate_module_with_loader_rows(mctaco):
    """The user path: our loader's Dataset columns straight into evaluate, batch by batch."""
    folder = shared_path("data", "mctaco")
    dataset = loader.load_mctaco(test=folder / "test_9442.tsv")["test"]
    for run in official_runs():
        if run["gold"] != "test_9442.tsv" or "bert" not in run["predictions"]:
            continue
        predictions = files.read_predictions(folder / run["predictions"])
        for start in range(0, len(dataset), 2000):
            rows = dataset[start : start + 2000]
            mctaco.add_batch(
                predictions=predictions[start : start + 2000],
                references=rows["label"],
                question_id=rows["question_id"],
                category=rows["category"],
            )
        result = mctaco.compute()
        assert (result["em"], result["f1"]) == (run["em"], run["f1"])
        assert result["signature"] == "mctaco|version:1.0.0|benchscore:0.1.0|key:question_id|labels:normalized"
        assert sum(c["n_questions"] for c in result["extension_per_category"].values()) == 1332


@pytest.mark.parity
def test_paper_bert_numbers():
    """The paper's BERT + unit normalization row: 42.7 EM / 69.9 F1, thanks to the empty/empty = 1 rule."""
    folder = shared_path("data", "mctaco")
    result = files.score_files(folder / "test_9442.tsv", folder / "baseline_outputs" / "bert.norm.output.txt")
    assert (round(100 * result["em"], 1), round(100 * result["f1"], 1)) == (42.7, 69.9)


# --- the official rules on small cases -----------------------------------------------------------


def test_empty_gold_and_empty_prediction_scores_one():
    stats = scoring.item_stats(["no", "no"], ["no", "no"], ["q", "q"])
    assert stats[0].f1 == 1.0 and stats[0].exact_match


def test_empty_gold_with_predicted_yes_scores_zero():
    (question,) = scoring.item_stats(["yes", "no"], ["no", "no"], ["q", "q"])
    assert question.f1 == 0.0  # P = 0, R = 1 (nothing to find) -> 2*0*1/1 = 0


def test_questions_group_by_first_appearance_not_runs():
    stats = scoring.item_stats(["yes", "no", "no"], ["yes", "yes", "no"], ["a", "b", "a"])
    assert [q.key for q in stats] == ["a", "b"]
    assert (stats[0].n_candidates, stats[0].exact_match) == (2, True)


def test_f1_uses_official_operation_order():
    """2*P*R/(P+R) and 2*tp/(np+ng) differ in the last bit on some counts; we must use the former."""
    found = 0
    for tp in range(1, 30):
        for n_pred in range(tp, 30):
            for n_gold in range(tp, 30):
                q = scoring.ItemStats("k", None, 1, 1, tp, n_pred, n_gold)
                p, r = tp / n_pred, tp / n_gold
                assert q.f1 == 2 * p * r / (p + r)
                found += q.f1 != 2 * tp / (n_pred + n_gold)
    assert found > 0  # the distinction is real on this grid


def test_aggregate_is_plain_left_to_right_sum():
    rng = random.Random(7)
    stats = []
    for i in range(500):
        tp = rng.randint(0, 4)
        stats.append(scoring.ItemStats(str(i), None, 9, 0, tp, tp + rng.randint(0, 4), tp + rng.randint(0, 4)))
    total = 0.0
    for q in stats:
        total += q.f1
    assert scoring.aggregate(stats)["f1"] == total / 500
    assert len({q.f1 for q in stats}) > 5


def test_labels_any_case_ints_and_booleans_are_equivalent():
    base = scoring.score(["yes", "no", "yes"], ["yes", "yes", "no"], ["q", "q", "r"])
    assert scoring.score([" YES", "No", "Yes"], [1, True, 0], ["q", "q", "r"]) == base


def test_per_category_in_official_category_order():
    result = scoring.score(["yes", "no"], ["yes", "no"], ["a", "b"], ["Stationarity", "Event Duration"])
    assert list(result["extension_per_category"]) == ["Event Duration", "Stationarity"]


# --- bad input: a clear error naming the row or line ---------------------------------------------


@pytest.mark.parametrize("bad", ["maybe", "", 2, 0.5, None, "y"])
def test_unknown_label_names_the_row(bad):
    with pytest.raises(ValueError, match=r"example 1: prediction is .*expected 'yes' or 'no'"):
        scoring.item_stats(["yes", bad], ["yes", "no"], ["q", "q"])


def test_length_mismatch_is_an_error():
    with pytest.raises(ValueError, match="3 references but 2 predictions"):
        scoring.item_stats(["yes", "no"], ["yes", "no", "no"], ["q", "q", "q"])


def test_conflicting_categories_within_a_question():
    with pytest.raises(ValueError, match="example 1: category 'Frequency' differs"):
        scoring.item_stats(["no", "no"], ["no", "no"], ["q", "q"], ["Stationarity", "Frequency"])


def test_no_rows_is_an_error():
    with pytest.raises(ValueError, match="no questions"):
        scoring.score([], [], [])


@pytest.mark.parametrize("data, message", [
    (EXAMPLE_TSV.read_bytes().replace(b"\tyes\tFrequency", b" yes\tFrequency", 1),
     "bad.tsv:5: found 4 tab-separated fields; expected 5"),
    (b"s\tq\ta\tmaybe\tFrequency\n", "bad.tsv:1: label is 'maybe'; expected"),
    (b"s\tq\ta\tyes\tDuration\n", "bad.tsv:1: category is 'Duration'; expected"),
    (b"", "bad.tsv:1: the file is empty"),
    ("s\tq\ta\tyes\tFrequency\nCaf\xe9\tq\ta\tno\tFrequency\n".encode("latin-1"),
     "bad.tsv:2: byte 0xe9 at column 4 is not UTF-8"),
])
def test_a_bad_gold_file_is_named_with_its_line(tmp_path, data, message):
    path = tmp_path / "bad.tsv"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=message):
        files.read_references(path)


# --- the evaluate module ---------------------------------------------------------------------


def example_columns():
    """The bundled example as the module's inputs (also used by test_significance.py)."""
    rows = files.read_references(EXAMPLE_TSV)
    columns = {name: [row[name] for row in rows] for name in ("sentence", "question", "category")}
    return {"predictions": files.read_predictions(EXAMPLE_PREDICTIONS), "references": [r["label"] for r in rows],
            **columns}


def test_module_equals_pure_function_and_batches_equal_one_compute(mctaco):
    columns = example_columns()
    keys = [scoring.question_key(s, q) for s, q in zip(columns["sentence"], columns["question"])]
    expected = scoring.score(columns["predictions"], columns["references"], keys, columns["category"])
    once = mctaco.compute(**columns)
    for start in range(0, len(keys), 3):  # batches that split questions across add_batch calls
        mctaco.add_batch(**{name: values[start : start + 3] for name, values in columns.items()})
    batched = mctaco.compute()
    for name in ("em", "f1", "n_questions", "extension_per_category"):
        assert once[name] == batched[name] == expected[name]
    assert once["signature"] == "mctaco|version:1.0.0|benchscore:0.1.0|key:sentence+question|labels:normalized"


def test_module_add_one_row_at_a_time(mctaco):
    for prediction, reference, qid in [("yes", "yes", "a"), ("no", "yes", "a"), ("no", "no", "b")]:
        mctaco.add(prediction=prediction, reference=reference, question_id=qid)
    result = mctaco.compute()
    assert (result["em"], result["n_questions"]) == (0.5, 2)


def test_module_errors_are_clear(mctaco):
    with pytest.raises(ValueError, match=r"example 1: prediction is 'maybe'"):
        mctaco.compute(predictions=["yes", "maybe"], references=["yes", "no"], question_id=["a", "a"])
    with pytest.raises(ValueError, match="example 0: no question_id, and no sentence and question"):
        mctaco.compute(predictions=["yes"], references=["yes"])
    with pytest.raises(ValueError, match=r"example 0: prediction is 7"):
        mctaco.compute(predictions=[7], references=[1], question_id=["a"])
    with pytest.raises(ValueError, match="example 1: category is missing"):
        mctaco.compute(predictions=[1, 1], references=[1, 1], question_id=["a", "b"], category=["Frequency", None])


def test_loader_features_and_rows():
    import datasets

    dataset = loader.load_mctaco(validation=EXAMPLE_TSV)["validation"]
    assert dataset.features["label"] == datasets.ClassLabel(names=["no", "yes"])
    assert dataset.features["category"].names == [
        "Event Duration", "Event Ordering", "Frequency", "Typical Time", "Stationarity",
    ]  # fmt: skip
    rows = files.read_references(EXAMPLE_TSV)
    assert len(dataset) == len(rows)
    assert dataset[4]["answer"] == rows[4]["answer"] and dataset[4]["label"] == 1
    assert dataset["question_id"][:5] == ["validation-0000"] * 4 + ["validation-0001"]


@pytest.mark.parity
def test_loader_on_real_data_matches_official_question_count():
    folder = shared_path("data", "mctaco")
    data = loader.load_mctaco(validation=folder / "dev_3783.tsv", test=folder / "test_9442.tsv")
    assert {split: len(ds) for split, ds in data.items()} == {"validation": 3783, "test": 9442}
    assert len(set(data["validation"]["question_id"])) == 561  # 560 question texts, 561 questions
    assert len(set(data["validation"]["question"])) == 560
    assert len(set(data["test"]["question_id"])) == 1332


# --- the CLI ---------------------------------------------------------------------------------


def test_cli_prints_the_official_lines(capsys):
    assert cli.main(["mctaco", "--gold", str(EXAMPLE_TSV), "--predictions", str(EXAMPLE_PREDICTIONS)]) == 0
    assert capsys.readouterr().out == "Strict Acc.: 0.6\nAvg F1: 0.8666666666666666\n"


def test_cli_json_and_output_file(tmp_path, capsys):
    out = tmp_path / "scores.json"
    argv = ["mctaco", "--gold", str(EXAMPLE_TSV), "--predictions", str(EXAMPLE_PREDICTIONS), "--json", "-o", str(out)]
    assert cli.main(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    assert set(printed["extension_per_category"]) == set(scoring.CATEGORIES)
    assert json.loads(out.read_text()) == {"em": 0.6, "f1": 0.8666666666666666}


def test_cli_reports_bad_lines_without_traceback(tmp_path, capsys):
    short = tmp_path / "short.txt"
    short.write_text("yes\nno\n")
    assert cli.main(["mctaco", "--gold", str(EXAMPLE_TSV), "--predictions", str(short)]) == 2
    assert "short.txt:3: the file ends after 2 labels; expected 13, one per line of" in capsys.readouterr().err
    wrong = tmp_path / "wrong.txt"
    wrong.write_text(EXAMPLE_PREDICTIONS.read_text().replace("no", "nope", 1))
    assert cli.main(["mctaco", "--gold", str(EXAMPLE_TSV), "--predictions", str(wrong)]) == 2
    assert "wrong.txt:2: the label is 'nope'" in capsys.readouterr().err


# --- the read path: every file problem is FILE:LINE, the same in every entry point --------------


def _example_with(tmp_path, gold=None, predictions=None):
    gold_path, predictions_path = tmp_path / "gold.tsv", tmp_path / "preds.txt"
    gold_path.write_bytes(EXAMPLE_TSV.read_bytes() if gold is None else gold)
    predictions_path.write_bytes(EXAMPLE_PREDICTIONS.read_bytes() if predictions is None else predictions)
    return gold_path, predictions_path


def test_bom_and_crlf_give_the_plain_files_numbers(tmp_path):
    plain = files.score_files(EXAMPLE_TSV, EXAMPLE_PREDICTIONS)
    crlf = [data.replace(b"\n", b"\r\n") for data in (EXAMPLE_TSV.read_bytes(), EXAMPLE_PREDICTIONS.read_bytes())]
    for gold, predictions in [(b"\xef\xbb\xbf" + EXAMPLE_TSV.read_bytes(), None),
                              (None, b"\xef\xbb\xbf" + EXAMPLE_PREDICTIONS.read_bytes()), crlf]:
        assert files.score_files(*_example_with(tmp_path, gold, predictions)) == plain
    bom_rows = loader.load_split(_example_with(tmp_path, b"\xef\xbb\xbf" + EXAMPLE_TSV.read_bytes())[0])
    assert bom_rows.to_list() == loader.load_split(EXAMPLE_TSV).to_list()


def test_two_categories_for_one_question_name_both_lines(tmp_path):
    lines = EXAMPLE_TSV.read_text().splitlines(keepends=True)
    lines[2] = lines[2].replace("Event Duration", "Frequency")
    gold, _ = _example_with(tmp_path, "".join(lines).encode())
    with pytest.raises(ValueError, match=r"gold.tsv:3: category is 'Frequency' but line 1 gave 'Event Duration'"):
        files.read_references(gold)


@pytest.mark.parametrize("extra, line, message", [
    (-1, 13, "the file ends after 12 labels; expected 13, one per line of"),
    (1, 14, "found label 14; expected 13, one per line of"),
])
def test_prediction_count_mismatch_names_the_line(tmp_path, extra, line, message):
    labels = EXAMPLE_PREDICTIONS.read_text().splitlines()
    labels = labels[:extra] if extra < 0 else labels + ["yes"] * extra
    gold, predictions = _example_with(tmp_path, predictions=("\n".join(labels) + "\n").encode())
    with pytest.raises(ValueError, match=rf"preds.txt:{line}: {message}"):
        files.file_stats(gold, predictions)


def test_a_long_bad_label_is_cut_in_the_message(tmp_path):
    gold, predictions = _example_with(tmp_path, predictions=b"x" * 100_000 + b"\n")
    with pytest.raises(ValueError, match=r"preds.txt:1: the label is 'x{40}'\.\.\. \(100,000 characters\)"):
        files.file_stats(gold, predictions)


def test_inexact_labels_are_scored_by_meaning_with_a_warning(tmp_path, capsys):
    text = EXAMPLE_PREDICTIONS.read_text()
    gold, predictions = _example_with(tmp_path, predictions=text.replace("yes", " Yes").encode())
    result = files.score_files(gold, predictions)
    plain = files.score_files(EXAMPLE_TSV, EXAMPLE_PREDICTIONS)
    assert (result["em"], result["f1"]) == (plain["em"], plain["f1"]) and "warnings" not in plain
    (warning,) = result["warnings"]
    assert warning.startswith(f"{predictions}: {text.count('yes')} labels not exactly 'yes' or 'no' (the first: line 1,")
    assert cli.main(["mctaco", "--gold", str(gold), "--predictions", str(predictions)]) == 0
    assert capsys.readouterr().err == f"benchscore mctaco: warning: {warning}\n"


# --- the evaluate module: every example checked once, by the same rules as the pure functions ------


def test_module_checks_every_example_of_every_batch(mctaco):
    for bad, message in [(1.0, "example 3: prediction is 1.0"), ("Yes ", None), (None, "example 3: prediction is None")]:
        predictions = ["yes", "no", "yes", bad]
        if message is None:  # a label in another accepted form: the slow path, the same numbers
            expected = scoring.score(predictions, ["yes"] * 4, ["q", "q", "r", "r"])
            assert mctaco.compute(predictions=predictions, references=["yes"] * 4, question_id=["q", "q", "r", "r"]) \
                == expected
            continue
        mctaco.add_batch(predictions=predictions[:2], references=["yes"] * 2, question_id=["q"] * 2)
        with pytest.raises(ValueError, match=message):
            mctaco.add_batch(predictions=predictions[2:], references=["yes"] * 2, question_id=["r"] * 2)
        mctaco.compute(predictions=["yes"], references=["yes"], question_id=["q"])  # a clean state again


def test_module_keys_and_categories_across_examples(mctaco):
    with pytest.raises(ValueError, match="example 2: question_id is missing; give it for every example or for none"):
        mctaco.compute(predictions=[1, 1, 1], references=[1, 1, 1], question_id=["a", "b", ""],
                       sentence=["s"] * 3, question=["q"] * 3)
    with pytest.raises(ValueError, match="example 1: category 'Frequency' differs from 'Stationarity'"):
        mctaco.compute(predictions=[1, 1], references=[1, 1], question_id=["a", "a"], category=[4, "Frequency"])
    with pytest.raises(ValueError, match=r"example 0: sentence is 3 \(int\); expected a string or None"):
        mctaco.compute(predictions=[1], references=[1], sentence=[3], question=["q"])


@pytest.mark.parametrize("column, message", [
    ("predictions", "example 1: prediction is an integer of 16,610 bits; expected 'yes' or 'no'"),
    ("question_id", "example 1: question_id is an integer of 16,610 bits \\(int\\); expected a string or a 64-bit"),
    ("category", "example 1: category is an integer of 16,610 bits; expected a name from"),
])
def test_module_huge_integers_are_named_not_printed(mctaco, column, message):
    columns = {"predictions": [1, 1], "references": [1, 1], "question_id": ["a", "b"], "category": [0, 0]}
    columns[column] = [columns[column][0], 10**5000]  # its repr raises ValueError: more than 4,300 digits
    with pytest.raises(ValueError, match=message):
        mctaco.compute(**columns)


# --- properties ---------------------------------------------------------------------------------

LABEL = st.sampled_from(["yes", "no", "YES", " No", 0, 1, True, False])
ROWS = st.lists(st.tuples(LABEL, LABEL, st.integers(0, 6), st.sampled_from(scoring.CATEGORIES)), min_size=1,
                max_size=40)


def _score(rows):
    categories = {}
    columns = [[p for p, _, _, _ in rows], [r for _, r, _, _ in rows], [f"q{k}" for _, _, k, _ in rows],
               [categories.setdefault(k, c) for _, _, k, c in rows]]  # one category per question
    return scoring.score(*columns)


@settings(max_examples=150, deadline=None)
@given(ROWS, st.randoms(use_true_random=False))
def test_permuting_candidates_changes_no_number(rows, rng):
    shuffled = list(rows)
    rng.shuffle(shuffled)
    a, b = _score(rows), _score(shuffled)
    assert (a["em"], a["n_questions"]) == (b["em"], b["n_questions"])
    assert a["f1"] == pytest.approx(b["f1"], abs=1e-12)  # the F1 sum's order follows the questions' order


@settings(max_examples=150, deadline=None)
@given(ROWS)
def test_perfect_predictions_score_one(rows):
    result = _score([(gold, gold, key, category) for _, gold, key, category in rows])
    assert (result["em"], result["f1"]) == (1.0, 1.0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(LABEL, st.text(max_size=5), st.floats(), st.integers(), st.none()), min_size=1,
                max_size=10))
def test_any_label_is_scored_or_refused_naming_its_example(labels):
    try:
        result = scoring.score(labels, ["yes"] * len(labels), ["q"] * len(labels))
    except ValueError as err:
        bad = next(i for i, label in enumerate(labels) if scoring.parse_label(label) is None)
        assert str(err).startswith(f"example {bad}: prediction is ")
    else:
        assert 0.0 <= result["em"] <= result["f1"] <= 1.0


def test_space_shows_the_warnings_as_notes_in_the_users_names():
    pytest.importorskip("gradio", reason="gradio is not installed (the spaces extra)")
    import browser

    app = browser.load_app("mctaco")
    text = EXAMPLE_PREDICTIONS.read_text()
    pasted = app.score_text(EXAMPLE_TSV.read_text(), text.replace("no", "NO"))
    uploaded = app.score_files(str(EXAMPLE_TSV), str(EXAMPLE_PREDICTIONS))
    assert pasted[0].values.tolist() == uploaded[0].values.tolist()  # the same numbers
    assert pasted[3].startswith(f"pasted predictions: {text.count('no')} labels not exactly 'yes' or 'no'")
    assert uploaded[3] == "No warnings."
