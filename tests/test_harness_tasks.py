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
from benchscore.webnlg_rdf.files import score_files
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
    values = tasks.webnlg_values({"row": 0, "references": references}, "S | p | a x a\nS | p | a\nnonsense")
    assert values["triple_f1"] == {"references": ["s | p | a a a"], "candidates": ["s | p | a"], "both": []}
    assert values["unparseable_lines_per_entry"] == 1 and values["unscorable_triples_per_entry"] == 1
    assert set(values) == {*tasks.WEBNLG_METRICS, *tasks.WEBNLG_PER_ENTRY}


def test_webnlg_aggregations_equal_the_cli_on_a_recorded_submission(tmp_path):
    """The harness aggregations, fed the per-document values of one recorded submission in any
    order, give exactly `benchscore webnlg`'s numbers on the files."""
    reference = shared_path("data", "webnlg", "subsets", "first100", "ref_en.xml")
    candidate = shared_path("data", "webnlg", "subsets", "first100", "cand_en_bt5.xml")
    refs, cands = read_references(reference), read_candidates(candidate)
    values = [tasks.webnlg_values({"references": r["triples"]}, "\n".join(c["triples"])) for r, c in zip(refs, cands)]
    values.reverse()  # a harness may gather documents out of order
    expected = score_files(str(reference), str(candidate))
    for name, scheme in tasks.WEBNLG_F1_SCHEMES.items():
        assert tasks.WEBNLG_METRICS[name]([v[name] for v in values]) == expected["Total_scores"][scheme]["F1"], name
    assert tasks.webnlg_triple_f1([v["triple_f1"] for v in values]) == expected["Exact_match"]["F1"]


def test_webnlg_documents_are_the_entries_with_their_one_lexicalisation():
    folder = shared_path("data", "webnlg")
    data = tasks.webnlg_dataset("en_unseen_entities", str(folder))["test"]
    refs = read_references(folder / "references" / "en_unseen_entities.xml")
    assert len(data) == len(refs) == 457
    assert data[5]["text"] == refs[5]["lexicalisations"][0] and data[5]["references"] == refs[5]["triples"]
    assert tasks.webnlg_dataset("ru", str(folder))["test"].num_rows == 1206


# ------------------------------------------------------------------------------- MC-TACO questions
def _loglikelihoods(predictions):
    """(loglikelihood(" no"), loglikelihood(" yes")) pairs that a model answering `predictions` gives."""
    return [(-1.0, -0.5) if p == "yes" else (-0.5, -1.0) for p in predictions]


def _question_results(data, predictions):
    """Each question document's values, from row-level predictions (the file's rows in order)."""
    return [tasks.mctaco_question_result(doc, _loglikelihoods([predictions[row] for row in doc["rows"]])) for doc in data]


def _mean(values):
    return sum(values) / len(values)  # lm-eval's `mean`


def test_mctaco_question_means_are_the_official_numbers_on_bert():
    folder = shared_path("data", "mctaco")
    data = tasks.mctaco_dataset(str(folder))["test"]
    predictions = (folder / "baseline_outputs" / "bert.norm.output.txt").read_text(encoding="utf-8").split()
    results = _question_results(data, predictions)
    expected = mctaco_score_files(folder / "test_9442.tsv", folder / "baseline_outputs" / "bert.norm.output.txt")
    assert len(results) == expected["n_questions"] == 1332
    assert (_mean([r["em"] for r in results]), _mean([r["f1"] for r in results])) == (expected["em"], expected["f1"]) == (
        0.4271771771771772, 0.6993028476901907)
    # candidate_acc: the mean over questions of the share of each question's candidates answered right
    assert round(100 * _mean([r["candidate_acc"] for r in results]), 2) == 81.16  # lm-eval pooled: 81.15


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


def test_mctaco_documents_are_whole_questions_in_file_order():
    folder = shared_path("data", "mctaco")
    data = tasks.mctaco_dataset(str(folder))
    assert {name: split.num_rows for name, split in data.items()} == {"validation": 561, "test": 1332}
    rows = read_tsv(folder / "test_9442.tsv")
    test = data["test"]
    assert [row for doc in test for row in doc["rows"]] == list(range(9442))  # every row once, in file order
    doc = test[0]
    assert doc["rows"] == list(range(13)) and doc["labels"] == [int(r["label"] == "yes") for r in rows[:13]]
    assert doc["question_key"] == question_key(rows[0]["sentence"], rows[0]["question"])
    # Each candidate's context is lm-eval's mc_taco prompt of its row.
    contexts = tasks.mctaco_candidate_contexts(doc, tasks.mctaco_question_text(doc))
    assert contexts == [tasks.MCTACO_PROMPT.format(**row) for row in rows[:13]]
    assert contexts[0] == ("Durer's father died in 1502, and his mother died in 1513.\nQuestion: How long was his mother ill?\n"
                           "Answer: she was ill for 30 seconds\nPlausible:")


MCTACO_DOC = {"question_key": "k", "answers": ["a", "b"], "labels": [1, 0], "rows": [7, 8]}


def test_mctaco_question_result_is_the_questions_official_em_and_f1():
    assert tasks.mctaco_question_result(MCTACO_DOC, [(-2.0, -1.0), (-1.0, -2.0)]) == {
        "em": 1.0, "f1": 1.0, "candidate_acc": 1.0}
    assert tasks.mctaco_question_result(MCTACO_DOC, [(-2.0, -1.0), (-2.0, -1.0)]) == {
        "em": 0.0, "f1": 2 * 0.5 * 1.0 / 1.5, "candidate_acc": 0.5}


def test_mctaco_question_result_wants_one_pair_per_candidate():
    with pytest.raises(ValueError, match=r"^question 'k' has 2 candidates but 3 pairs of log-likelihoods; "
                                         r"expected one \(no, yes\) pair per candidate$"):
        tasks.mctaco_question_result(MCTACO_DOC, [(-1.0, -2.0)] * 3)


@pytest.mark.parametrize("no, yes, choice", [(float("nan"), -1.0, "no"), (-1.0, float("nan"), "yes"),
                                             (float("nan"), float("nan"), "no")])
def test_mctaco_question_result_refuses_nan_loglikelihoods(no, yes, choice):
    """lm-eval's argmax would read a NaN as "no" (or LightEval's as anything): a silent answer."""
    with pytest.raises(ValueError, match=rf"^example 8 \(mc_taco_official candidate row\): the log-likelihood of "
                                         rf"'{choice}' is nan; expected a number, not NaN"):
        tasks.mctaco_question_result(MCTACO_DOC, [(-1.0, -2.0), (no, yes)])


@pytest.mark.parametrize("value", ["-1.0", None, True])
def test_mctaco_question_result_refuses_loglikelihoods_that_are_not_numbers(value):
    with pytest.raises(TypeError, match=r"^example 7 \(mc_taco_official candidate row\): the log-likelihood of 'yes'"):
        tasks.mctaco_question_result(MCTACO_DOC, [(-1.0, value), (-1.0, -2.0)])


@pytest.mark.parametrize("no, yes, choice", [(10**400, 0, "no"), (-1.0, -(10**400), "yes")])
def test_mctaco_question_result_refuses_integers_too_large_for_a_float(no, yes, choice):
    with pytest.raises(ValueError, match=rf"^example 7 \(mc_taco_official candidate row\): the log-likelihood of "
                                         rf"'{choice}' is .*; expected a log-likelihood within float range"):
        tasks.mctaco_question_result(MCTACO_DOC, [(no, yes), (-1.0, -2.0)])


def test_mctaco_question_result_takes_numpy_floats_and_minus_infinity():
    import numpy as np

    one = {"question_key": "k", "answers": ["a"], "labels": [1], "rows": [0]}
    assert tasks.mctaco_question_result(one, [(float("-inf"), np.float32(-3.0))])["em"] == 1.0
    assert tasks.mctaco_question_result(one, [(np.float64(-1.0), -1)])["em"] == 0.0  # a tie is "no", as lm-eval


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
                                  lambda: tasks.webnlg_values({"row": 0, "references": ["a | b | c"]}, None)])
def test_a_generation_that_is_none_is_a_type_error(call):
    with pytest.raises(TypeError, match=r"^the generation is None; expected a string$"):
        call()


@pytest.mark.parametrize("name", list(tasks.WEBNLG_METRICS))
def test_webnlg_aggregations_name_a_value_that_is_not_webnlg_values(name):
    good = tasks.webnlg_values({"references": ["a | b | c"]}, "a | b | c")[name]
    with pytest.raises(TypeError, match=rf"^{name}: document value 1 is 1 \(int\); expected the (tuple|dict) "
                                        "webnlg_values gives$"):
        tasks.WEBNLG_METRICS[name]([good, 1])
    with pytest.raises(ValueError, match=rf"^{name}: no document to aggregate$"):
        tasks.WEBNLG_METRICS[name]([])
