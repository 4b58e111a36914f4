"""Hostile and broken inputs for MC-TACO (issue 12), through the public entry points only."""

import pathlib

import pytest

from conftest import METRICS, load_metric
from hostile import (assert_bom_same_rows_or_refused, assert_cli_error, assert_cli_ok,  # noqa: F401
                     assert_same_or_refused, guard, library_error, load_app, loader_error, run_cli,
                     space_error, write)

pytestmark = pytest.mark.usefixtures("guard")

EXAMPLES = METRICS / "mctaco" / "examples"
GOLD = (EXAMPLES / "example.tsv").read_text(encoding="utf-8")
PREDS = (EXAMPLES / "example_predictions.txt").read_text(encoding="utf-8")
GOLD_LINES = GOLD.splitlines()
PRED_LINES = PREDS.splitlines()


def files(tmp_path, gold=GOLD, preds=PREDS):
    return write(tmp_path / "gold.tsv", gold), write(tmp_path / "preds.txt", preds)


def cli(gold, preds, *extra):
    return run_cli(["mctaco", "--gold", gold, "--predictions", preds, "--json", *extra])


@pytest.fixture
def baseline(tmp_path):
    gold, preds = files(tmp_path / "")
    return assert_cli_ok(cli(gold, preds))


def with_line(lines, number, text):
    """`lines` with line `number` (1-based) replaced by `text`, joined with LF."""
    lines = list(lines)
    lines[number - 1] = text
    return "\n".join(lines) + "\n"


def assert_line_refused(tmp_path, which, number, text):
    """The CLI refuses the gold file (`which` "gold") or the predictions ("preds") with line `number`
    (1-based) replaced by `text`, naming that file and line."""
    gold, preds = files(tmp_path, **{which: with_line(GOLD_LINES if which == "gold" else PRED_LINES, number, text)})
    assert_cli_error(cli(gold, preds), "mctaco", gold if which == "gold" else preds, number)


# -- encodings and line ends -------------------------------------------------------------------

def test_bom_on_gold_tsv_same_numbers_or_refused(tmp_path, baseline):
    gold, preds = files(tmp_path, gold="\ufeff" + GOLD)
    assert_same_or_refused(cli(gold, preds), baseline, "mctaco", gold)


def test_bom_on_predictions_same_numbers_or_refused(tmp_path, baseline):
    gold, preds = files(tmp_path, preds="\ufeff" + PREDS)
    assert_same_or_refused(cli(gold, preds), baseline, "mctaco", preds)


def test_crlf_gold_and_predictions_same_numbers(tmp_path, baseline):
    gold, preds = files(tmp_path, gold=GOLD.replace("\n", "\r\n"), preds=PREDS.replace("\n", "\r\n"))
    assert_cli_ok(cli(gold, preds))
    assert cli(gold, preds).out == baseline.out


def test_invalid_utf8_in_gold_names_file_and_line(tmp_path):
    data = "\n".join(GOLD_LINES[:3]).encode() + b"\n" + GOLD_LINES[3].encode().replace(b"seconds", b"sec\xff\xfeonds") \
        + b"\n" + "\n".join(GOLD_LINES[4:]).encode() + b"\n"
    gold, preds = files(tmp_path, gold=data)
    assert_cli_error(cli(gold, preds), "mctaco", gold, 4)


def test_invalid_utf8_in_predictions_names_file_and_line(tmp_path):
    data = PREDS.encode().replace(b"no\nno", b"no\nn\xc3\x28", 1)
    line = data[: data.index(b"\xc3")].count(b"\n") + 1
    gold, preds = files(tmp_path, preds=data)
    assert_cli_error(cli(gold, preds), "mctaco", preds, line)


# -- empty, blank and malformed lines ------------------------------------------------------------

def test_empty_gold_file(tmp_path):
    gold, preds = files(tmp_path, gold="")
    assert_cli_error(cli(gold, preds), "mctaco", gold)


def test_empty_predictions_file(tmp_path):
    gold, preds = files(tmp_path, preds="")
    assert_cli_error(cli(gold, preds), "mctaco", preds)


def test_blank_line_inside_gold(tmp_path):
    assert_line_refused(tmp_path, "gold", 3, "")


def test_blank_line_inside_predictions(tmp_path):
    assert_line_refused(tmp_path, "preds", 2, "  ")


def test_too_few_fields_on_gold_line(tmp_path):
    assert_line_refused(tmp_path, "gold", 3, GOLD_LINES[2].rsplit("\t", 1)[0])


def test_bad_gold_label(tmp_path):
    assert_line_refused(tmp_path, "gold", 2, GOLD_LINES[1].replace("\tno\t", "\tmaybe\t"))


def test_bad_prediction_label(tmp_path):
    assert_line_refused(tmp_path, "preds", 2, "perhaps")


def test_nul_and_control_bytes_in_predictions(tmp_path):
    assert_line_refused(tmp_path, "preds", 3, "ye\x00s")


def test_prediction_count_mismatch(tmp_path):
    gold, preds = files(tmp_path, preds="\n".join(PRED_LINES[:-1]) + "\n")
    assert_cli_error(cli(gold, preds), "mctaco")


def test_missing_file(tmp_path):
    gold, _ = files(tmp_path)
    assert_cli_error(cli(gold, str(tmp_path / "nope.txt")), "mctaco", "nope.txt")


def test_huge_single_line_gold(tmp_path):
    gold, preds = files(tmp_path, gold=with_line(GOLD_LINES, 1, "x" * 5_000_000))
    assert_cli_error(cli(gold, preds), "mctaco", gold, 1)


# -- compare -----------------------------------------------------------------------------------

def test_compare_bom_same_numbers_or_refused(tmp_path):
    gold, preds = files(tmp_path)
    plain = assert_cli_ok(run_cli(["compare", "mctaco", "--gold", gold, "--predictions", preds, "--n-resamples", "50",
                                   "--json"]))
    bom = write(tmp_path / "bom.tsv", "\ufeff" + GOLD)
    result = run_cli(["compare", "mctaco", "--gold", bom, "--predictions", preds, "--n-resamples", "50", "--json"])
    assert_same_or_refused(result, plain, "compare", bom)


def test_compare_invalid_utf8_predictions(tmp_path):
    gold, preds = files(tmp_path, preds=PREDS.encode().replace(b"yes", b"y\xffs", 1))
    result = run_cli(["compare", "mctaco", "--gold", gold, "--predictions", preds, "--n-resamples", "50"])
    assert_cli_error(result, "compare", preds, 1)


# -- the evaluate module -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def module():
    return load_metric("mctaco")


def test_module_bad_label_in_later_example_names_it(module):
    with library_error(3):
        module.compute(predictions=["yes", "no", "yes", "maybe"], references=["yes"] * 4, question_id=["q"] * 4)


def test_module_bad_reference_in_first_example_names_it(module):
    with library_error(0):
        module.compute(predictions=["yes", "no"], references=[2, "no"], question_id=["q", "q"])


def test_module_none_prediction_in_later_example(module):
    with library_error(2):
        module.compute(predictions=["yes", "no", None], references=["yes"] * 3, question_id=["q"] * 3)


def test_module_question_id_missing_in_later_example(module):
    with library_error(2):
        module.compute(predictions=["yes"] * 3, references=["yes"] * 3, question_id=["q1", "q1", None])


def test_module_non_string_question_in_later_example(module):
    with library_error(1):
        module.compute(predictions=["yes"] * 2, references=["yes"] * 2, sentence=["s", "s"], question=["q", 5])


def test_module_length_mismatch(module):
    with library_error():
        module.compute(predictions=["yes"] * 3, references=["yes"] * 2, question_id=["q"] * 3)


def test_module_bad_label_in_second_add_batch_names_global_example(module):
    module.add_batch(predictions=["yes", "no"], references=["yes", "no"], question_id=["a", "a"])
    with library_error(3):
        module.add_batch(predictions=["yes", "sometimes"], references=["yes", "no"], question_id=["b", "b"])
        module.compute()


# -- the loader --------------------------------------------------------------------------------

def test_loader_bom_same_rows_or_refused(tmp_path):
    from benchscore.mctaco.loader import load_mctaco

    assert_bom_same_rows_or_refused(lambda path: load_mctaco(validation=path)["validation"], tmp_path, GOLD, ".tsv")


def test_loader_invalid_utf8_names_file_and_line(tmp_path):
    from benchscore.mctaco.loader import load_mctaco

    path = write(tmp_path / "bad.tsv", GOLD.encode().replace(b"three weeks", b"three \xe9weeks"))
    with loader_error(path, 2):
        load_mctaco(validation=path)


def test_loader_crlf_same_rows(tmp_path):
    from benchscore.mctaco.loader import load_mctaco

    plain = load_mctaco(validation=write(tmp_path / "plain.tsv", GOLD))["validation"]
    crlf = load_mctaco(validation=write(tmp_path / "crlf.tsv", GOLD.replace("\n", "\r\n")))["validation"]
    assert crlf.to_list() == plain.to_list()


# -- the Space ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def app():
    return load_app("mctaco")


def test_space_lone_surrogate_in_pasted_gold(app):
    with space_error():
        app.score_text(GOLD.replace("three weeks", "three \ud800weeks"), PREDS)


def test_space_lone_surrogate_in_pasted_predictions(app):
    with space_error():
        app.score_text(GOLD, PREDS.replace("yes", "y\udcffs", 1))


def test_space_table_with_too_few_columns(app):
    import pandas as pd

    table = pd.DataFrame([["How long?", "ten minutes", "yes"]] * 2, columns=["question", "answer", "gold"])
    with space_error():
        app.score_table(table)


@pytest.mark.parametrize("yes, no", [("1", "0"), ("True", "false"), ("YES", "No")])
def test_space_table_takes_the_labels_its_message_names(app, yes, no):
    """The message names 1/0 and True/False: as cell text they are read (issue 21: "0" was refused with it)."""
    import pandas as pd

    plain = app.score_table(pd.DataFrame(app.TABLE_EXAMPLE, columns=app.TABLE_HEADERS))
    spelled = [[q, a, yes if g == "yes" else no, yes if p == "yes" else no, c] for q, a, g, p, c in app.TABLE_EXAMPLE]
    table = app.score_table(pd.DataFrame(spelled, columns=app.TABLE_HEADERS))
    assert table[0].values.tolist() == plain[0].values.tolist()


def test_space_table_label_that_is_none_of_them(app):
    import gradio as gr
    import pandas as pd

    rows = [list(row) for row in app.TABLE_EXAMPLE]
    rows[1][2] = "2"
    with pytest.raises(gr.Error, match=r"table row 2: reference is '2'; expected 'yes' or 'no' \(any case\), 1 or 0"):
        app.score_table(pd.DataFrame(rows, columns=app.TABLE_HEADERS))


def test_space_invalid_utf8_upload(app, tmp_path):
    gold, preds = files(tmp_path, preds=PREDS.encode().replace(b"yes", b"y\xffs", 1))
    with space_error():
        app.score_files(gold, preds)


def test_space_bom_upload_same_numbers_or_refused(app, tmp_path):
    import gradio as gr

    gold, preds = files(tmp_path)
    plain = app.score_files(gold, preds)
    bom = write(tmp_path / "bom.tsv", "\ufeff" + GOLD)
    try:
        output = app.score_files(bom, preds)
    except gr.Error:
        return
    assert str(output[0]) == str(plain[0])


# -- unclear messages --------------------------------------------------------------------------

@pytest.mark.parametrize("label, same_as", [("1", "yes"), ("True", "yes"), ("0", "no"), ("False", "no")])
def test_prediction_label_listed_as_accepted_is_accepted(tmp_path, label, same_as):
    """A label form the message lists as expected ('1 or 0, True or False') is accepted, or not listed."""
    lines = list(PRED_LINES)
    index = lines.index(same_as)
    plain = assert_cli_ok(cli(*files(tmp_path / "", preds="\n".join(lines) + "\n")))
    lines[index] = label
    gold, preds = files(tmp_path, preds="\n".join(lines) + "\n")
    result = cli(gold, preds)
    if result.code == 0 and result.exc is None:
        assert result.out == plain.out
        return
    assert_cli_error(result, "mctaco", preds, index + 1)
    expected = result.err.split("expected", 1)[-1]
    assert not __import__("re").search(rf"\b{label}\b", expected), \
        f"the message lists {label!r} as expected, yet refuses it: {result.err.strip()}"


# -- the pure functions (audit findings 3, 21) ---------------------------------------------------

@pytest.mark.parametrize("stats", [[1, 2], ["q"], [None]])
def test_aggregate_of_items_that_are_not_item_stats_names_the_item(stats):
    from benchscore.mctaco import scoring

    with pytest.raises(TypeError, match=r"^example 0: the statistics are .*; expected an mctaco ItemStats"):
        scoring.aggregate(stats)


def test_aggregate_names_the_first_item_that_is_not_item_stats():
    from benchscore.mctaco import scoring

    good = scoring.item_stats(["yes"], ["yes"], ["q"])
    with pytest.raises(TypeError, match=r"^example 1: the statistics are dict"):
        scoring.aggregate(good + [{"f1": 1.0}])


@pytest.mark.parametrize("categories, example", [(["Nope"], 0), (["Frequency", "Duration"], 1), (["Frequency", None], 1)])
def test_score_refuses_an_unknown_category_name(categories, example):
    from benchscore.mctaco import scoring

    n = len(categories)
    with pytest.raises(ValueError, match=f"^example {example}: category is .*; expected one of .'Event Duration'"):
        scoring.score(["yes"] * n, ["yes"] * n, [f"q{i}" for i in range(n)], categories=categories)


def test_module_refuses_an_unknown_category_name():
    with library_error(1):
        load_metric("mctaco").compute(predictions=[1, 1], references=[1, 1], question_id=["a", "b"], category=["Frequency", "Nope"])


@pytest.mark.parametrize("key_source", ["zzz", "", None, "question"])
def test_score_refuses_an_unknown_key_source(key_source):
    from benchscore.mctaco import scoring

    with pytest.raises(ValueError, match=r"key_source is .*; expected one of \('question_id', 'sentence\+question'\)"):
        scoring.score(["yes"], ["yes"], ["q"], key_source=key_source)


# -- the Trainer helper (audit findings 13, 16) ---------------------------------------------------

class EvalPred:
    def __init__(self, predictions, label_ids):
        self.predictions, self.label_ids = predictions, label_ids


@pytest.fixture(scope="module")
def trainer_rows():
    import datasets

    return datasets.Dataset.from_dict({"question_id": ["q", "q", "r"], "label": [1, 0, 1]})


def trainer_call(rows, logits, batch=False):
    import numpy as np

    from benchscore.mctaco.trainer import compute_metrics_for

    return compute_metrics_for(rows)(EvalPred(logits, np.array([1, 0, 1])), *([True] if batch else []))


@pytest.mark.parametrize("batch", [False, True])
@pytest.mark.parametrize("value, what", [(float("inf"), "infinite"), (-float("inf"), "infinite"),
                                         (float("nan"), "NaN")])
def test_trainer_refuses_non_finite_logits_naming_the_row(trainer_rows, batch, value, what):
    import numpy as np

    logits = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    logits[2, 0] = value
    with pytest.raises(ValueError, match=f"eval dataset row 2: the logits are {what}; expected finite numbers"):
        trainer_call(trainer_rows, logits, batch)


@pytest.mark.parametrize("logits, dtype, row", [
    ([["a", "b"]] * 3, None, 0),  # strings
    ([[0.0, 1.0], [1.0, None], [0.0, 1.0]], object, 1),  # a missing value
    ([True, False, True], None, 0),  # booleans
])
def test_trainer_refuses_logits_that_are_not_numbers_naming_the_row(trainer_rows, logits, dtype, row):
    import numpy as np

    with pytest.raises(ValueError, match=f"eval dataset row {row}: a logit is .*; expected numbers"):
        trainer_call(trainer_rows, np.array(logits, dtype=dtype))


def test_trainer_object_array_of_numbers_is_scored_as_floats(trainer_rows):
    import numpy as np

    logits = [[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]
    assert trainer_call(trainer_rows, np.array(logits, dtype=object)) == trainer_call(trainer_rows, np.array(logits))


@pytest.mark.parametrize("wrap", [tuple, lambda parts: [tuple(parts)]])
def test_trainer_refuses_a_tuple_of_model_outputs_saying_to_pass_the_logits(trainer_rows, wrap):
    import numpy as np

    outputs = wrap([np.zeros((3, 2)), np.zeros((3, 4))])  # (logits, hidden states); a list: per-batch outputs
    with pytest.raises(TypeError, match="expected the logits alone: pass Trainer\\(preprocess_logits_for_metrics="):
        trainer_call(trainer_rows, outputs)


# -- the CLI's -o (audit finding 19) -------------------------------------------------------------

@pytest.mark.parametrize("which", ["gold", "preds"])
def test_output_path_equal_to_an_input_is_refused_before_writing(tmp_path, which):
    gold, preds = files(tmp_path)
    target = gold if which == "gold" else preds
    before = pathlib.Path(target).read_bytes()
    assert_cli_error(cli(gold, preds, "-o", target), "mctaco", target, 1)
    assert pathlib.Path(target).read_bytes() == before


def test_output_path_that_links_to_an_input_is_refused(tmp_path):
    gold, preds = files(tmp_path)
    link = tmp_path / "link.tsv"
    link.symlink_to(gold)
    assert_cli_error(cli(gold, preds, "-o", link), "mctaco", link, 1)
    assert pathlib.Path(gold).read_text(encoding="utf-8") == GOLD


def test_output_path_elsewhere_is_written(tmp_path):
    gold, preds = files(tmp_path)
    assert_cli_ok(cli(gold, preds, "-o", tmp_path / "scores.json"))
    assert set(__import__("json").loads((tmp_path / "scores.json").read_text())) == {"em", "f1"}


@pytest.mark.parametrize("ids, message", [
    (["1", 1], r"example 1: question_id is 1 \(an int\) but example 0 gave a string; expected one type"),
    ([1, "q", "1"], r"example 1: question_id is 'q' \(a string\) but example 0 gave an int; expected one type"),
])
def test_module_question_ids_mixing_strings_and_ints_are_refused(ids, message):
    """Stored as text, "1" and 1 would silently be one question."""
    module = load_metric("mctaco")  # a fresh one: no input left pending by another test
    n = len(ids)
    with pytest.raises(ValueError, match=message):
        module.compute(predictions=["yes"] * n, references=["yes"] * n, question_id=ids)


def test_module_question_ids_mixing_types_across_add_batch_are_refused():
    module = load_metric("mctaco")
    module.add_batch(predictions=["yes"], references=["yes"], question_id=[1])
    with library_error(1):
        module.add_batch(predictions=["no"], references=["yes"], question_id=["1"])
        module.compute()
    assert module.compute()["n_questions"] == 1  # the first batch, still stored
    module.add_batch(predictions=["yes"], references=["yes"], question_id=["1"])  # a new input: strings are fine
    assert module.compute()["n_questions"] == 1


@pytest.mark.parametrize("key", [2**64, -(2**64), 10**30])
def test_a_question_id_beyond_64_bits_is_refused_alike_by_the_scorer_and_the_module(key):
    """One rule for question ids (issue 21: the pure scorer took any size, the module 64 bits only)."""
    from benchscore.mctaco import scoring

    with pytest.raises(ValueError, match=r"^example 1: question key is .*; expected a string or a 64-bit integer$"):
        scoring.score(["yes", "no"], ["yes", "no"], [1, key])
    module = load_metric("mctaco")
    with pytest.raises(ValueError, match=r"^example 1: question_id is .*expected a string or a 64-bit integer or None$"):
        module.compute(predictions=[True, False], references=[True, False], question_id=[1, key])
    assert scoring.score(["yes", "no"], ["yes", "no"], [2**64 - 1, -(2**64 - 1)])["n_questions"] == 2
