"""Hostile and broken inputs for TempBench (issue 12), through the public entry points only."""

import json

import pytest

from conftest import METRICS, load_metric
from hostile import (assert_bom_same_or_refused, assert_bom_same_rows_or_refused, assert_cli_error,  # noqa: F401
                     assert_cli_ok, assert_same_or_refused, deep_json, guard, jsonl, library_error,
                     load_app, loader_error, replace_line, run_cli, space_error, write)

pytestmark = pytest.mark.usefixtures("guard")

EXAMPLES = METRICS / "tempbench_trp" / "examples"
QUESTIONS = (EXAMPLES / "questions.jsonl").read_text(encoding="utf-8")
EVIDENCE = (EXAMPLES / "evidence.jsonl").read_text(encoding="utf-8")
Q_RECORDS = [json.loads(line) for line in QUESTIONS.splitlines() if line.strip()]
E_RECORDS = [json.loads(line) for line in EVIDENCE.splitlines() if line.strip()]


def files(tmp_path, questions=QUESTIONS, evidence=EVIDENCE):
    return write(tmp_path / "questions.jsonl", questions), write(tmp_path / "evidence.jsonl", evidence)


def cli(questions, evidence, *extra):
    return run_cli(["tempbench", "--questions", questions, "--evidence", evidence, "--json", *extra])


def edited(records, index, **changes):
    records = json.loads(json.dumps(records))
    records[index].update(changes)
    return records


def raw_jsonl_with(records, number, raw_line):
    """JSONL of `records` with line `number` (1-based) replaced by the raw text `raw_line`."""
    return replace_line(jsonl(records), number, raw_line)


@pytest.fixture
def baseline(tmp_path):
    return assert_cli_ok(cli(*files(tmp_path / "")))


# -- deep nesting, huge and non-finite numbers ---------------------------------------------------

@pytest.mark.parametrize("which", ["questions", "evidence"])
def test_deeply_nested_json_line(tmp_path, which):
    text = {"questions": QUESTIONS, "evidence": EVIDENCE}[which]
    paths = files(tmp_path, **{which: replace_line(text, 2, deep_json())})
    path = paths[0] if which == "questions" else paths[1]
    assert_cli_error(cli(*paths), "tempbench", path, 2)


@pytest.mark.parametrize("which", ["questions", "evidence"])
def test_deeply_nested_json_inside_a_record(tmp_path, which):
    if which == "questions":
        text = raw_jsonl_with(Q_RECORDS, 3, json.dumps(Q_RECORDS[2])[:-1] + ', "x": ' + deep_json() + "}")
        paths = files(tmp_path, questions=text)
    else:
        text = raw_jsonl_with(E_RECORDS, 3, json.dumps(E_RECORDS[2])[:-1] + ', "x": ' + deep_json() + "}")
        paths = files(tmp_path, evidence=text)
    assert_cli_error(cli(*paths), "tempbench", paths[0 if which == "questions" else 1], 3)


def test_huge_integer_year_as_t_query(tmp_path):
    raw = json.dumps(Q_RECORDS[1]).replace('"t_query": 1995.0', '"t_query": 1' + "0" * 400)
    paths = files(tmp_path, questions=raw_jsonl_with(Q_RECORDS, 2, raw))
    assert_cli_error(cli(*paths), "tempbench", paths[0], 2)


def test_huge_integer_year_in_evidence(tmp_path):
    raw = json.dumps(E_RECORDS[0]).replace('"t_start": 1996.0', '"t_start": 9' * 1 + "9" * 400, 1)
    paths = files(tmp_path, evidence=raw_jsonl_with(E_RECORDS, 1, raw))
    assert_cli_error(cli(*paths), "tempbench", paths[1], 1)


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "true"])
def test_non_finite_or_boolean_t_query(tmp_path, value):
    raw = json.dumps(Q_RECORDS[0]).replace('"t_query": 1994.0', f'"t_query": {value}')
    paths = files(tmp_path, questions=raw_jsonl_with(Q_RECORDS, 1, raw))
    assert_cli_error(cli(*paths), "tempbench", paths[0], 1)


@pytest.mark.parametrize("value", ["NaN", "true"])
def test_nan_or_boolean_evidence_year(tmp_path, value):
    raw = json.dumps(E_RECORDS[1]).replace('"t_start": 1995.0', f'"t_start": {value}', 1)
    paths = files(tmp_path, evidence=raw_jsonl_with(E_RECORDS, 2, raw))
    assert_cli_error(cli(*paths), "tempbench", paths[1], 2)


@pytest.mark.parametrize("value", ["NaN", "true"])
def test_nan_or_boolean_gold_year(tmp_path, value):
    raw = json.dumps(Q_RECORDS[1]).replace('"t_start": 1995.0', f'"t_start": {value}', 1)
    paths = files(tmp_path, questions=raw_jsonl_with(Q_RECORDS, 2, raw))
    assert_cli_error(cli(*paths), "tempbench", paths[0], 2)


# -- encodings, line ends, empty and blank -------------------------------------------------------

@pytest.mark.parametrize("which", ["questions", "evidence"])
def test_bom_same_numbers_or_refused(tmp_path, baseline, which):
    assert_bom_same_or_refused(tmp_path, baseline, files, cli, "tempbench",
                               {"questions": QUESTIONS, "evidence": EVIDENCE}, which)


def test_crlf_same_numbers(tmp_path, baseline):
    paths = files(tmp_path, questions=QUESTIONS.replace("\n", "\r\n"), evidence=EVIDENCE.replace("\n", "\r\n"))
    assert assert_cli_ok(cli(*paths)).out == baseline.out


def test_blank_lines_are_skipped_with_same_numbers(tmp_path, baseline):
    paths = files(tmp_path, questions=QUESTIONS.replace("\n", "\n\n", 1), evidence="\n   \n" + EVIDENCE)
    assert assert_cli_ok(cli(*paths)).out == baseline.out


def test_empty_questions_file(tmp_path):
    paths = files(tmp_path, questions="")
    assert_cli_error(cli(*paths), "tempbench", paths[0])


def test_blank_only_questions_file(tmp_path):
    paths = files(tmp_path, questions="\n\n  \n")
    assert_cli_error(cli(*paths), "tempbench", paths[0])


def test_empty_evidence_file_refused_or_warned(tmp_path):
    paths = files(tmp_path, evidence="")
    result = cli(*paths)
    if result.code == 0 and result.exc is None:
        assert "evidence.jsonl" in result.out + result.err and "warning" in (result.out + result.err).lower(), \
            f"an empty run file scored silently: {result.describe()}"
    else:
        assert_cli_error(result, "tempbench", paths[1])


def test_invalid_utf8_in_questions(tmp_path):
    data = QUESTIONS.encode().replace(b"Who coached", b"Who \xff\xfecoached")
    paths = files(tmp_path, questions=data)
    assert_cli_error(cli(*paths), "tempbench", paths[0], 2)


def test_invalid_utf8_in_evidence(tmp_path):
    data = EVIDENCE.encode().replace(b"Bea", b"B\xc3(a", 1)
    line = data[: data.index(b"\xc3(")].count(b"\n") + 1
    paths = files(tmp_path, evidence=data)
    assert_cli_error(cli(*paths), "tempbench", paths[1], line)


def test_truncated_json_line(tmp_path):
    paths = files(tmp_path, evidence=replace_line(EVIDENCE, 2, EVIDENCE.splitlines()[1][:40]))
    assert_cli_error(cli(*paths), "tempbench", paths[1], 2)


# -- duplicates and types ------------------------------------------------------------------------

def test_duplicate_evidence_id_refused_or_warned(tmp_path):
    paths = files(tmp_path, evidence=EVIDENCE + json.dumps(E_RECORDS[0]) + "\n")
    result = cli(*paths)
    if result.code == 0 and result.exc is None:
        assert "ex-1" in result.err + result.out and "duplicate" in (result.err + result.out).lower(), \
            f"duplicate id scored silently: {result.describe()}"
    else:
        assert_cli_error(result, "tempbench", paths[1], len(E_RECORDS) + 1)


def test_duplicate_question_id_refused_or_warned(tmp_path):
    paths = files(tmp_path, questions=QUESTIONS + json.dumps(Q_RECORDS[0]) + "\n")
    result = cli(*paths)
    if result.code == 0 and result.exc is None:
        assert "duplicate" in (result.err + result.out).lower(), f"duplicate id scored silently: {result.describe()}"
    else:
        assert_cli_error(result, "tempbench", paths[0], len(Q_RECORDS) + 1)


@pytest.mark.parametrize("value", [5, None, ["Ada"], {"x": 1}])
def test_non_string_triple_field_in_evidence(tmp_path, value):
    records = json.loads(json.dumps(E_RECORDS))
    records[1]["evidence"][0]["o"] = value
    paths = files(tmp_path, evidence=jsonl(records))
    assert_cli_error(cli(*paths), "tempbench", paths[1], 2)


def test_evidence_not_a_list(tmp_path):
    paths = files(tmp_path, evidence=jsonl(edited(E_RECORDS, 2, evidence="Ada | team | Rovers")))
    assert_cli_error(cli(*paths), "tempbench", paths[1], 3)


def test_top_level_array_line(tmp_path):
    paths = files(tmp_path, evidence=replace_line(EVIDENCE, 1, "[1, 2, 3]"))
    assert_cli_error(cli(*paths), "tempbench", paths[1], 1)


# -- compare -----------------------------------------------------------------------------------

def test_compare_deeply_nested_evidence(tmp_path):
    paths = files(tmp_path, evidence=replace_line(EVIDENCE, 2, deep_json()))
    result = run_cli(["compare", "tempbench", "--questions", paths[0], "--predictions", paths[1],
                      "--n-resamples", "50"])
    assert_cli_error(result, "compare", paths[1], 2)


def test_compare_huge_year(tmp_path):
    raw = json.dumps(Q_RECORDS[1]).replace('"t_query": 1995.0', '"t_query": 1' + "0" * 400)
    paths = files(tmp_path, questions=raw_jsonl_with(Q_RECORDS, 2, raw))
    result = run_cli(["compare", "tempbench", "--questions", paths[0], "--predictions", paths[1],
                      "--n-resamples", "50"])
    assert_cli_error(result, "compare", paths[0], 2)


# -- the evaluate module -----------------------------------------------------------------------

GOLD = [{"s": "Ada", "r": "team", "o": "Rovers"}]
RIGHT = {"s": "Ada", "r": "team", "o": "Rovers", "t_start": 1994.0, "t_end": 1994.0}


@pytest.fixture(scope="module")
def module():
    return load_metric("tempbench_trp")


def test_module_huge_integer_t_query(module):
    with library_error(1):
        module.compute(predictions=[[RIGHT], [RIGHT]], references=[GOLD, GOLD], t_query=[1994, 10 ** 400])


def test_module_huge_integer_evidence_year(module):
    with library_error(2):
        module.compute(predictions=[[RIGHT], [RIGHT], [dict(RIGHT, t_end=10 ** 400)]], references=[GOLD] * 3,
                       t_query=[1994] * 3)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), True])
def test_module_non_finite_or_boolean_t_query_in_later_example(module, value):
    with library_error(2):
        module.compute(predictions=[[RIGHT]] * 3, references=[GOLD] * 3, t_query=[1994, 1994, value])


def test_module_missing_key_in_first_example(module):
    with library_error(0):
        module.compute(predictions=[[{"s": "Ada", "r": "team", "t_start": 1994, "t_end": 1994}], [RIGHT]],
                       references=[GOLD, GOLD], t_query=[1994, 1994])


def test_module_missing_key_in_later_example(module):
    with library_error(2):
        module.compute(predictions=[[RIGHT], [RIGHT], [{"s": "Ada", "r": "team", "t_start": 1994, "t_end": 1994}]],
                       references=[GOLD] * 3, t_query=[1994] * 3)


def test_module_non_string_triple_field_in_later_example(module):
    with library_error(1):
        module.compute(predictions=[[RIGHT], [dict(RIGHT, o=5)]], references=[GOLD, GOLD], t_query=[1994, 1994])


def test_module_non_string_gold_field_in_later_example(module):
    with library_error(1):
        module.compute(predictions=[[RIGHT], [RIGHT]], references=[GOLD, [{"s": "Ada", "r": "team", "o": 7}]],
                       t_query=[1994, 1994])


def test_module_deeply_nested_prediction(module):
    nested = []
    for _ in range(5000):
        nested = [nested]
    with library_error(0):
        module.compute(predictions=[nested], references=[GOLD], t_query=[1994])


# -- the loader --------------------------------------------------------------------------------

def test_loader_deeply_nested_line(tmp_path):
    from benchscore.tempbench_trp.loader import load_tempbench

    path = write(tmp_path / "q.jsonl", replace_line(QUESTIONS, 2, deep_json()))
    with loader_error(path, 2):
        load_tempbench(path)


def test_loader_huge_integer_year(tmp_path):
    from benchscore.tempbench_trp.loader import load_tempbench

    raw = json.dumps(Q_RECORDS[1]).replace('"t_query": 1995.0', '"t_query": 1' + "0" * 400)
    path = write(tmp_path / "q.jsonl", raw_jsonl_with(Q_RECORDS, 2, raw))
    with loader_error(path, 2):
        load_tempbench(path)


@pytest.mark.parametrize("value", ["NaN", "Infinity"])
def test_loader_non_finite_t_query(tmp_path, value):
    from benchscore.tempbench_trp.loader import load_tempbench

    raw = json.dumps(Q_RECORDS[0]).replace('"t_query": 1994.0', f'"t_query": {value}')
    path = write(tmp_path / "q.jsonl", raw_jsonl_with(Q_RECORDS, 1, raw))
    with loader_error(path, 1):
        load_tempbench(path)


def test_loader_invalid_utf8(tmp_path):
    from benchscore.tempbench_trp.loader import load_tempbench

    path = write(tmp_path / "q.jsonl", QUESTIONS.encode().replace(b"Who coached", b"Who \xffcoached"))
    with loader_error(path, 2):
        load_tempbench(path)


def test_loader_bom_same_rows_or_refused(tmp_path):
    from benchscore.tempbench_trp.loader import load_tempbench

    assert_bom_same_rows_or_refused(load_tempbench, tmp_path, QUESTIONS, ".jsonl")


# -- the Space ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def app():
    return load_app("tempbench_trp")


@pytest.mark.parametrize("top_k", ["abc", 2.5, -1, float("nan")])
def test_space_non_integer_or_negative_top_k(app, top_k):
    with space_error():
        app.score_text(QUESTIONS, EVIDENCE, "label", "", top_k, False)


def test_space_table_with_too_few_columns(app):
    import pandas as pd

    table = pd.DataFrame([["q1", "1994", "gold", "Ada"], ["q1", "1994", "retrieved", "Ada"]],
                         columns=["question", "t_query", "role", "s"])
    with space_error():
        app.score_table(table)


def test_space_lone_surrogate_in_pasted_text(app):
    with space_error():
        app.score_text(QUESTIONS, EVIDENCE.replace("Rovers", "Rov\ud800ers", 1))


def test_space_deeply_nested_pasted_line(app):
    with space_error():
        app.score_text(QUESTIONS, replace_line(EVIDENCE, 2, deep_json(20_000)))


def test_space_huge_year_in_pasted_questions(app):
    raw = json.dumps(Q_RECORDS[1]).replace('"t_query": 1995.0', '"t_query": 1' + "0" * 400)
    with space_error():
        app.score_text(raw_jsonl_with(Q_RECORDS, 2, raw), EVIDENCE)


@pytest.mark.parametrize("year", ["nan", "1e400", "true"])
def test_space_table_non_finite_year(app, year):
    import pandas as pd

    rows = [list(row) for row in app.TABLE_EXAMPLE]
    rows[0][1] = year
    with space_error():
        app.score_table(pd.DataFrame(rows, columns=app.TABLE_HEADERS))


def test_module_extra_key_in_later_example_same_numbers_or_refused(module):
    plain = module.compute(predictions=[[RIGHT], [RIGHT]], references=[GOLD, GOLD], t_query=[1994, 1994])
    try:
        result = module.compute(predictions=[[RIGHT], [dict(RIGHT, score=0.9)]], references=[GOLD, GOLD],
                                t_query=[1994, 1994])
    except (ValueError, TypeError) as err:
        assert "example 1" in str(err) or "example #1" in str(err), str(err)
        return
    except Exception as err:  # noqa: BLE001
        pytest.fail(f"raw {type(err).__name__}: {err}")
    assert result["TRP_macro"] == plain["TRP_macro"] and result["CCR"] == plain["CCR"]


def test_module_bad_year_in_a_later_add_batch_names_the_global_example(module):
    module.add_batch(predictions=[[RIGHT], [RIGHT]], references=[GOLD, GOLD], t_query=[1994, 1994])
    with library_error(3):
        module.add_batch(predictions=[[RIGHT], [dict(RIGHT, t_start=float("nan"))]], references=[GOLD, GOLD],
                         t_query=[1994, 1994])
        module.compute()


# -- the pure aggregate (audit finding 3) --------------------------------------------------------

def example_stats():
    from benchscore.tempbench_trp import scoring

    return scoring.item_stats([{"S_star": GOLD, "t_query": 1994, "complexity": "1hop"}], [[RIGHT]])


@pytest.mark.parametrize("by, kind, message", [
    (("nope",), ValueError, r"by names 'nope'; expected ItemStats fields, e\.g\. \('complexity', 'operator'\)"),
    (("complexity", "Complexity"), ValueError, "by names 'Complexity'"),
    ("complexity", TypeError, r"by is 'complexity'; expected a tuple of ItemStats fields"),
    (None, TypeError, "by is None; expected a tuple of ItemStats fields"),
])
def test_aggregate_by_a_field_that_is_not_a_statistic_names_it(by, kind, message):
    from benchscore.tempbench_trp import scoring

    with pytest.raises(kind, match=message):
        scoring.aggregate(example_stats(), by=by)
    with pytest.raises(kind, match=message):
        scoring.summarize(example_stats(), by=by)


@pytest.mark.parametrize("bad", [1, None, "q", {"n_ret": 1}])
def test_aggregate_of_items_that_are_not_item_stats_names_the_item(bad):
    from benchscore.tempbench_trp import scoring

    stats = example_stats() + [bad]
    with pytest.raises(TypeError, match=r"^example 1: the statistics are .*; expected a tempbench_trp ItemStats"):
        scoring.aggregate(stats)
    with pytest.raises(TypeError, match=r"^example 1: the statistics are"):
        scoring.summarize(iter(stats))  # streamed in chunks


def test_aggregate_of_something_not_iterable():
    from benchscore.tempbench_trp import scoring

    with pytest.raises(TypeError, match="stats is int 5; expected a list of ItemStats"):
        scoring.aggregate(5)


def test_aggregate_by_any_statistic_field_still_works():
    from benchscore.tempbench_trp import scoring

    assert list(scoring.aggregate(example_stats(), by=["n_gold"])["by_n_gold"]) == [1]


# -- --functional (audit finding 20) -------------------------------------------------------------

@pytest.mark.parametrize("text", ["", "\n  \n"])
def test_functional_file_that_is_empty_is_refused(tmp_path, text):
    functional = write(tmp_path / "functional.jsonl", text)
    assert_cli_error(cli(*files(tmp_path), "--functional", functional), "tempbench", functional, 1)


def test_functional_flag_that_keeps_no_line_is_refused(tmp_path):
    functional = write(tmp_path / "functional.jsonl", jsonl([{"id": E_RECORDS[0]["id"], "S_dist": False}]))
    result = cli(*files(tmp_path), "--functional", functional, "--functional-flag", "S_dist")
    assert_cli_error(result, "tempbench", functional, 1)
    assert "no line has 'S_dist' true" in result.err


@pytest.mark.parametrize("extra", [[], ["--split", Q_RECORDS[0].get("split") or "test"]])
def test_functional_file_naming_no_known_question_is_refused(tmp_path, extra):
    functional = write(tmp_path / "functional.jsonl", jsonl([{"id": "no-such-question"}, "nor-this-one"]))
    result = cli(*files(tmp_path), "--functional", functional, *extra)
    assert_cli_error(result, "tempbench", functional, 1)
    assert "none of its 2 ids is a question" in result.err and result.out == ""


def test_functional_file_naming_some_questions_scores_them(tmp_path):
    functional = write(tmp_path / "functional.jsonl", jsonl([{"id": Q_RECORDS[0]["id"]}, {"id": "no-such-question"}]))
    result = assert_cli_ok(cli(*files(tmp_path), "--functional", functional))
    assert json.loads(result.out)["n_questions"] == 1


# -- re-audit (issue 12): only plain whole numbers in the Space's boxes and table years ----------

@pytest.mark.parametrize("top_k", [10**30, True, "٣", "1_0", "3.5", 1_000_001, [1], "9" * 400])
def test_space_top_k_only_a_plain_whole_number_in_range(app, top_k):
    with space_error():
        app._top_k(top_k)


@pytest.mark.parametrize("top_k, k", [(" 3 ", 3), (3.0, 3), (3, 3), (0, None), ("", None), (None, None)])
def test_space_top_k_plain_whole_numbers_are_read(app, top_k, k):
    assert app._top_k(top_k) == k


@pytest.mark.parametrize("column, year", [("t_query", "1_994"), ("t_query", "١٩٩٤"), ("t_query", "２０００"),
                                          ("t_query", "1994.5"), ("t_query", "1e3"), ("t_query", "10000"),
                                          ("t_start", "١٩٩٤"), ("t_start", "Infinity"), ("t_end", "+1994"),
                                          ("t_query", "inf")])
def test_space_table_year_only_plain_digits_in_range(app, column, year):
    import gradio as gr
    import pandas as pd

    rows = [list(row) for row in app.TABLE_EXAMPLE]
    rows[1][app.TABLE_HEADERS.index(column)] = year
    with pytest.raises(gr.Error, match=rf"table row 2: {column} is"):
        app.score_table(pd.DataFrame(rows, columns=app.TABLE_HEADERS))


def test_space_table_open_bounds_and_negative_years_still_read(app):
    import pandas as pd

    rows = [list(row) for row in app.TABLE_EXAMPLE]
    rows[1][app.TABLE_HEADERS.index("t_start")] = "-inf"
    rows[1][app.TABLE_HEADERS.index("t_end")] = "inf"
    rows[2][app.TABLE_HEADERS.index("t_start")] = "-44"
    table, *_ = app.score_table(pd.DataFrame(rows, columns=app.TABLE_HEADERS))
    assert table.iloc[0]["questions"] == 2


@pytest.mark.parametrize("options, field", [({"split": 5}, "split"), ({"dedup": "no"}, "dedup"),
                                            ({"top_k": 10**30}, "top-k")])
def test_space_table_options_of_the_wrong_type(app, options, field):
    import gradio as gr
    import pandas as pd

    with pytest.raises(gr.Error, match=rf"{field} is "):
        app.score_table(pd.DataFrame(app.TABLE_EXAMPLE, columns=app.TABLE_HEADERS), **options)


# -- an empty gold triple element (issue 21): refused everywhere, not scored ---------------------

@pytest.mark.parametrize("field", ["s", "r", "o"])
def test_module_empty_gold_element(field):
    module = load_metric("tempbench_trp")  # a fresh one: errors are numbered from what it already holds
    with library_error(1):
        module.compute(predictions=[[RIGHT], [RIGHT]], references=[GOLD, [dict(GOLD[0], **{field: ""})]],
                       t_query=[1994, 1994])


def test_cli_empty_gold_element(tmp_path):
    records = json.loads(json.dumps(Q_RECORDS))
    records[1]["S_star"][0]["s"] = ""
    paths = files(tmp_path, questions=jsonl(records))
    result = cli(*paths)
    assert_cli_error(result, "tempbench", paths[0], 2)
    assert "S_star[0] s is an empty string" in result.err
