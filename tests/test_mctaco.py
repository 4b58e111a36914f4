"""MC-TACO: parity with the official evaluator, the evaluate module, the loader and the CLI."""

import json
import random

import pytest

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


def test_malformed_tsv_line(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_text(EXAMPLE_TSV.read_text().replace("\tyes\tFrequency", " yes\tFrequency", 1))
    with pytest.raises(ValueError, match=r"bad.tsv:5: found 4 tab-separated fields; expected 5"):
        files.read_references(path)


def test_bad_gold_label_and_category(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_text("s\tq\ta\tmaybe\tFrequency\n")
    with pytest.raises(ValueError, match=r"bad.tsv:1: label is 'maybe'; expected"):
        files.read_references(path)
    path.write_text("s\tq\ta\tyes\tDuration\n")
    with pytest.raises(ValueError, match=r"bad.tsv:1: category is 'Duration'; expected"):
        files.read_references(path)


def test_empty_file_and_wrong_encoding(tmp_path):
    empty = tmp_path / "empty.tsv"
    empty.write_text("")
    with pytest.raises(ValueError, match=r"empty.tsv:1: the file is empty"):
        files.read_references(empty)
    latin1 = tmp_path / "latin1.tsv"
    latin1.write_bytes("s\tq\ta\tyes\tFrequency\nCaf\xe9\tq\ta\tno\tFrequency\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"latin1.tsv:2: byte 0xe9 at column 4 is not UTF-8"):
        files.read_references(latin1)


# --- the evaluate module ---------------------------------------------------------------------


def _example_columns():
    rows = files.read_references(EXAMPLE_TSV)
    return {
        "predictions": files.read_predictions(EXAMPLE_PREDICTIONS),
        "references": [r["label"] for r in rows],
        "sentence": [r["sentence"] for r in rows],
        "question": [r["question"] for r in rows],
        "category": [r["category"] for r in rows],
    }


def test_module_equals_pure_function_and_batches_equal_one_compute(mctaco):
    columns = _example_columns()
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
    assert "short.txt:3: the file ends after 2 labels; expected one label per line of" in capsys.readouterr().err
    wrong = tmp_path / "wrong.txt"
    wrong.write_text(EXAMPLE_PREDICTIONS.read_text().replace("no", "nope", 1))
    assert cli.main(["mctaco", "--gold", str(EXAMPLE_TSV), "--predictions", str(wrong)]) == 2
    assert "wrong.txt:2: the label is 'nope'" in capsys.readouterr().err
