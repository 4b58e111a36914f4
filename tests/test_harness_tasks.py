"""benchscore.harness without any harness installed: answer parsing, whole-question grouping, the
corpus aggregations against the pure scorers, the official-file lookup, `benchscore lm-eval-path`,
and the BERT example of the README (lm-eval's mc_taco metrics against the official ones)."""

import os
import subprocess
import sys

import pytest

from benchscore.harness import lm_eval_path
from benchscore.harness import official_files
from benchscore.harness import tasks
from benchscore.mctaco.files import read_references as read_tsv
from benchscore.mctaco.files import score_files as mctaco_score_files
from benchscore.mctaco.scoring import question_key
from benchscore.mctaco.scoring import score as mctaco_score
from benchscore.webnlg_rdf.cli import score_files
from benchscore.webnlg_rdf.files import read_predictions as read_candidates
from benchscore.webnlg_rdf.files import read_references
from conftest import shared_path


# ------------------------------------------------------------------------------- WebNLG parsing
def test_parse_triples_is_tolerant_as_documented():
    generation = (
        "\n  Alan_Bean | occupation | Test_pilot  \n"
        "- Alan_Bean|birthPlace|Wheeler,_Texas\n"
        "2) Alan_Bean | nationality | United_States\n"
        "(3) A | b | c\n"
        "\n"
        "Alan_Bean | occupation\n"          # two parts
        "a | b | c | d\n"                   # four parts
        "a |  | c\n"                        # an empty part
        "just words\n"
    )
    triples, unparseable = tasks.parse_triples(generation)
    assert triples == ["Alan_Bean | occupation | Test_pilot", "Alan_Bean | birthPlace | Wheeler,_Texas",
                       "Alan_Bean | nationality | United_States", "A | b | c"]
    assert unparseable == 4
    assert tasks.parse_triples("") == ([], 0)


def test_unscorable_triples_are_left_out_and_counted():
    # the official word alignment crashes on reference "a a a" against candidate "a x a"
    references = ["S | p | a a a"]
    kept, dropped = tasks.scorable_triples(references, ["S | p | a x a", "S | p | a"])
    assert (kept, dropped) == (["S | p | a"], 1)
    item = tasks.webnlg_item({"row": 0, "references": references}, "S | p | a x a\nS | p | a\nnonsense")
    assert item["candidates"] == ["S | p | a"] and item["unparseable_lines"] == 1 and item["unscorable_triples"] == 1


def test_webnlg_aggregations_equal_the_cli_on_a_recorded_submission(tmp_path):
    """The harness aggregations, fed one recorded submission's triples in any order, give exactly
    `benchscore webnlg`'s numbers on the files."""
    reference = shared_path("data", "webnlg", "subsets", "first100", "ref_en.xml")
    candidate = shared_path("data", "webnlg", "subsets", "first100", "cand_en_bt5.xml")
    refs, cands = read_references(reference), read_candidates(candidate)
    items = [{"row": i, "references": r["triples"], "candidates": c["triples"], "unparseable_lines": 0,
              "unscorable_triples": 0} for i, (r, c) in enumerate(zip(refs, cands))]
    items.reverse()  # a harness may gather documents out of order
    expected = score_files(str(reference), str(candidate))
    assert tasks.webnlg_strict_f1(items) == expected["Total_scores"]["Strict"]["F1"]
    assert tasks.webnlg_exact_f1(items) == expected["Total_scores"]["Exact"]["F1"]
    assert tasks.webnlg_partial_f1(items) == expected["Total_scores"]["Partial"]["F1"]
    assert tasks.webnlg_ent_type_f1(items) == expected["Total_scores"]["Ent_type"]["F1"]
    assert tasks.webnlg_triple_f1(items) == expected["Exact_match"]["F1"]
    assert 0.005 < tasks.webnlg_strict_f1_stderr(items) < 0.1 and 0.005 < tasks.webnlg_partial_f1_stderr(items) < 0.1


def test_webnlg_documents_are_the_entries_with_their_one_lexicalisation():
    folder = shared_path("data", "webnlg")
    data = tasks.webnlg_dataset("en_unseen_entities", str(folder))["test"]
    refs = read_references(folder / "references" / "en_unseen_entities.xml")
    assert len(data) == len(refs) == 457
    assert data[5]["text"] == refs[5]["lexicalisations"][0] and data[5]["references"] == refs[5]["triples"]
    assert tasks.webnlg_dataset("ru", str(folder))["test"].num_rows == 1206


# ------------------------------------------------------------------------------- MC-TACO grouping
def _items(rows, predictions):
    counts = {}
    for row in rows:
        key = question_key(row["sentence"], row["question"])
        counts[key] = counts.get(key, 0) + 1
    return [{"row": i, "question_key": question_key(r["sentence"], r["question"]),
             "n_candidates": counts[question_key(r["sentence"], r["question"])],
             "prediction": p, "label": r["label"]} for i, (r, p) in enumerate(zip(rows, predictions))]


def test_mctaco_aggregations_equal_the_official_numbers_on_bert():
    folder = shared_path("data", "mctaco")
    rows = read_tsv(folder / "test_9442.tsv")
    predictions = (folder / "baseline_outputs" / "bert.norm.output.txt").read_text(encoding="utf-8").split()
    items = _items(rows, predictions)[::-1]  # order must not matter
    expected = mctaco_score_files(folder / "test_9442.tsv", folder / "baseline_outputs" / "bert.norm.output.txt")
    assert (tasks.mctaco_em(items), tasks.mctaco_f1(items)) == (expected["em"], expected["f1"]) == (
        0.4271771771771772, 0.6993028476901907)
    assert tasks.mctaco_n_questions(items) == 1332 and tasks.mctaco_partial_questions(items) == 0
    assert 0.01 < tasks.mctaco_em_stderr(items) < 0.02 and 0.005 < tasks.mctaco_f1_stderr(items) < 0.015


def test_bert_table_lm_eval_metrics_against_official():
    """The README's table: lm-eval's mc_taco metrics (per-candidate accuracy, F1 pooled over all
    candidate pairs, sklearn's binary F1) on the official BERT predictions, and the official ones."""
    folder = shared_path("data", "mctaco")
    rows = read_tsv(folder / "test_9442.tsv")
    predictions = (folder / "baseline_outputs" / "bert.norm.output.txt").read_text(encoding="utf-8").split()
    gold = [row["label"] == "yes" for row in rows]
    pred = [p == "yes" for p in predictions]
    tp = sum(g and p for g, p in zip(gold, pred))
    acc = sum(g == p for g, p in zip(gold, pred)) / len(gold)
    pooled_f1 = 2 * tp / (sum(gold) + sum(pred))
    official = mctaco_score(predictions, [r["label"] for r in rows], [question_key(r["sentence"], r["question"]) for r in rows])
    assert [round(100 * x, 2) for x in (acc, pooled_f1, official["em"], official["f1"])] == [81.15, 72.30, 42.72, 69.93]


def test_mctaco_questions_cut_by_limit_are_left_out():
    all_rows = read_tsv(shared_path("data", "mctaco", "test_9442.tsv"))
    predictions = ["yes" if i % 3 else "no" for i in range(len(all_rows))]
    items = _items(all_rows, predictions)[:24]  # the first 24 documents: questions of 13, 5, 2 and 6 (cut) rows
    whole = all_rows[:20]
    expected = mctaco_score(predictions[:20], [r["label"] for r in whole], [question_key(r["sentence"], r["question"]) for r in whole])
    assert tasks.mctaco_em(items) == expected["em"] and tasks.mctaco_f1(items) == expected["f1"]
    assert tasks.mctaco_n_questions(items) == 3 and tasks.mctaco_partial_questions(items) == 1
    with pytest.raises(ValueError, match="no whole MC-TACO question"):
        tasks.mctaco_em(items[:5])
    with pytest.raises(ValueError, match="evaluated twice"):
        tasks.mctaco_em(items + items[:1])


MCTACO_DOC = {"row": 7, "question_key": "k", "n_candidates": 1, "label": 1}


@pytest.mark.parametrize("no, yes, choice", [(float("nan"), -1.0, "no"), (-1.0, float("nan"), "yes"),
                                             (float("nan"), float("nan"), "no")])
def test_mctaco_item_refuses_nan_loglikelihoods(no, yes, choice):
    """lm-eval's argmax would read a NaN as "no" (or LightEval's as anything): a silent answer."""
    with pytest.raises(ValueError, match=rf"^example 7 \(mc_taco_official document\): the log-likelihood of "
                                         rf"'{choice}' is nan; expected a number, not NaN"):
        tasks.mctaco_item(MCTACO_DOC, no, yes)


@pytest.mark.parametrize("value", ["-1.0", None, True])
def test_mctaco_item_refuses_loglikelihoods_that_are_not_numbers(value):
    with pytest.raises(TypeError, match=r"^example 7 \(mc_taco_official document\): the log-likelihood of 'yes'"):
        tasks.mctaco_item(MCTACO_DOC, -1.0, value)


def test_mctaco_item_takes_numpy_floats_and_minus_infinity():
    import numpy as np

    assert tasks.mctaco_item(MCTACO_DOC, float("-inf"), np.float32(-3.0))["prediction"] == "yes"
    assert tasks.mctaco_item(MCTACO_DOC, np.float64(-1.0), -1)["prediction"] == "no"  # a tie is "no", as lm-eval


def test_mctaco_documents_are_lm_evals():
    data = tasks.mctaco_dataset(str(shared_path("data", "mctaco")))
    assert {name: split.num_rows for name, split in data.items()} == {"validation": 3783, "test": 9442}
    doc = data["test"][0]
    assert tasks.mctaco_doc_to_text(doc) == (
        "Durer's father died in 1502, and his mother died in 1513.\nQuestion: How long was his mother ill?\n"
        "Answer: she was ill for 30 seconds\nPlausible:")
    assert doc["label"] == 0 and doc["n_candidates"] == 13 and doc["row"] == 0


# ------------------------------------------------------------------------------- files and CLI
def test_official_file_lookup(tmp_path, monkeypatch):
    monkeypatch.delenv("BENCHSCORE_MCTACO_DIR", raising=False)
    monkeypatch.setenv("BENCHSCORE_DATA", str(tmp_path / "empty-store"))
    monkeypatch.setenv("BENCHSCORE_OFFLINE", "1")
    with pytest.raises(ValueError, match="benchscore data fetch mctaco"):  # the store, offline: never a download
        official_files.official_file("mctaco", "test")
    monkeypatch.setenv("BENCHSCORE_MCTACO_DIR", str(tmp_path))
    with pytest.raises(ValueError, match="no such file"):
        official_files.official_file("mctaco", "test")
    (tmp_path / "test_9442.tsv").write_text("x\n")
    assert official_files.official_file("mctaco", "test") == str(tmp_path / "test_9442.tsv")
    with pytest.raises(ValueError, match="no official file"):
        official_files.official_file("mctaco", "train")


def test_lm_eval_path_command():
    out = subprocess.run([sys.executable, "-m", "benchscore", "lm-eval-path"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == lm_eval_path()
    assert sorted(os.listdir(lm_eval_path())) == ["mc_taco_official", "webnlg_text2rdf"]


# ------------------------------------------------------------------------------- re-audit (issue 12)
@pytest.mark.parametrize("call", [lambda: tasks.parse_triples(None),
                                  lambda: tasks.webnlg_item({"row": 0, "references": ["a | b | c"]}, None)])
def test_a_generation_that_is_none_is_a_type_error(call):
    with pytest.raises(TypeError, match=r"^the generation is None; expected a string$"):
        call()


@pytest.mark.parametrize("metric", [tasks.mctaco_em, tasks.mctaco_f1, tasks.mctaco_em_stderr, tasks.mctaco_f1_stderr,
                                    tasks.mctaco_n_questions, tasks.mctaco_partial_questions])
def test_mctaco_aggregations_name_an_item_without_question_key(metric):
    good = tasks.mctaco_item(MCTACO_DOC, -1.0, -0.5)
    bad = {key: value for key, value in good.items() if key != "question_key"}
    with pytest.raises(ValueError, match=r"^item 1 \(keys .*\) has no question_key; expected the dict mctaco_item"):
        metric([good, bad])
    with pytest.raises(TypeError, match=r"^item 0 is 1 \(int\); expected a dict from mctaco_item"):
        metric([1])


@pytest.mark.parametrize("no, yes, choice", [(10**400, 0, "no"), (-1.0, -(10**400), "yes")])
def test_mctaco_item_refuses_integers_too_large_for_a_float(no, yes, choice):
    with pytest.raises(ValueError, match=rf"^example 7 \(mc_taco_official document\): the log-likelihood of "
                                         rf"'{choice}' is .*; expected a log-likelihood within float range"):
        tasks.mctaco_item(MCTACO_DOC, no, yes)
