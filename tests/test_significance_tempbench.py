"""TempBench intervals and paired tests: the resampled statistic is `aggregate` on the resample
(reference quirks included), parity estimates on every fixture, slices, detection, the CLI."""

import glob
import json
import random

import numpy as np
import pytest

from benchscore import cli
from benchscore.core.readers import read_jsonl
from benchscore.tempbench_trp import files
from benchscore.tempbench_trp import scoring
from benchscore.tempbench_trp import significance
from benchscore.core.resampling import bounds
from conftest import METRICS
from conftest import shared_path

FIXTURES = ("data", "tempbench", "fixtures")
EXAMPLES = METRICS / "tempbench_trp" / "examples"


def synthetic_rows(n, seed):
    """Hand-made per-question rows in the scorer's format, some retrieving nothing."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        n_ret = rng.choice([0, 0, 1, 2, 5, 10])
        hits = rng.randrange(n_ret + 1)
        rows.append(scoring.ItemStats(id=f"q{i}", complexity=rng.choice(["1hop", "2hop", "3+hop"]),
                                      operator=rng.choice(["before", "after"]), n_ret=n_ret, hits=hits, n_gold=2,
                                      trp=hits / n_ret if n_ret else None, ccr=int(hits == 2)))
    return rows


def test_resampled_statistic_is_the_aggregate_of_the_resample():
    rows = synthetic_rows(40, seed=1)
    values = significance.item_values(rows)
    nothing = [i for i, r in enumerate(rows) if r.n_ret == 0][:3]  # TRP's 0.0 quirk
    rng = np.random.default_rng(0)
    for index in [rng.integers(0, len(rows), len(rows)) for _ in range(40)] + [np.array(nothing)]:
        weights = np.bincount(index, minlength=len(rows)).astype(float)
        with np.errstate(invalid="ignore"):  # np.where computes the 0/0 branch it then discards
            ours = significance.statistic((weights @ values)[None, :])
        expected = scoring.aggregate([rows[i] for i in index], by=())
        for name in significance.HEADLINE:
            assert ours[name][0] == pytest.approx(expected[name], abs=1e-12), name


def test_slices_are_resampled_within_the_slice():
    rows = synthetic_rows(60, seed=2)
    result = significance.slice_intervals(rows, n_resamples=200)
    cells = scoring.aggregate(rows)
    for field in scoring.SLICES:
        assert list(result["by_" + field]) == list(cells["by_" + field])
        for value, numbers in result["by_" + field].items():
            alone = [r for r in rows if getattr(r, field) == value]
            bounds = significance.confidence_intervals(alone, n_resamples=200)
            assert numbers["TRP"] == bounds["TRP_macro"] | {"estimate": cells["by_" + field][value]["TRP"]}
            assert numbers["CCR"] == bounds["CCR"] | {"estimate": cells["by_" + field][value]["CCR"]}


def _fixture_rows(evidence_name, questions_name="questions_point.jsonl", space="label"):
    return files.file_stats(shared_path(*FIXTURES, questions_name), shared_path(*FIXTURES, evidence_name), space)


def _example_stats():
    return files.file_stats(EXAMPLES / "questions.jsonl", EXAMPLES / "evidence.jsonl")


@pytest.mark.parity
def test_estimates_are_the_reference_numbers_on_every_fixture():
    checked = 0
    for path in sorted(glob.glob(str(shared_path(*FIXTURES) / "expected_*.json"))):
        expected = json.load(open(path, encoding="utf-8"))
        space = expected["natural_key"]
        for questions_name, groups in expected["results"].items():
            (group,) = [g for g in groups if space in g["keys"]]
            rows = _fixture_rows(expected["evidence_file"], questions_name, space)
            result = significance.confidence_intervals(rows, n_resamples=20)
            for name in significance.HEADLINE:
                assert result[name]["estimate"] == group["aggregate"][name], (path, questions_name, name)
                assert result[name]["low"] <= result[name]["estimate"] <= result[name]["high"]
            identity = significance.statistic(significance.item_values(rows).sum(axis=0)[None, :])
            assert identity["TRP_macro"][0] == pytest.approx(group["aggregate"]["TRP_macro"], abs=1e-12)
            checked += 1
    assert checked == 48  # 24 evidence files x 2 question files


def test_a_better_retriever_is_detected():
    partial = _fixture_rows("evidence_partial_label.jsonl")
    noisy = _fixture_rows("evidence_oracle_plus_noise_label.jsonl")
    result = significance.paired_test(partial, noisy)
    for name in ("TRP_macro", "TRP_micro", "CCR"):
        assert result[name]["low"] > 0
        assert result[name]["p_bootstrap"] < 0.01 and result[name]["p_randomization"] < 0.01
    coverage = result["coverage"]  # both retrieve something for every question
    assert (coverage["difference"], coverage["p_bootstrap"], coverage["p_randomization"]) == (0, 1, 1)


def test_self_comparison_and_seeds():
    rows, other = synthetic_rows(50, seed=3), synthetic_rows(50, seed=4)
    for r in significance.paired_test(rows, rows, n_resamples=100).values():
        assert (r["difference"], r["low"], r["high"], r["p_bootstrap"], r["p_randomization"]) == (0, 0, 0, 1, 1)
    assert significance.paired_test(rows, other, 100, 1) == significance.paired_test(rows, other, 100, 1)
    assert significance.paired_test(rows, other, 100, 1) != significance.paired_test(rows, other, 100, 2)


def test_runs_on_different_questions_are_refused():
    rows = synthetic_rows(5, seed=1)
    with pytest.raises(ValueError, match=r"question 0: id and gold triple count \('q0', .* but \('q1', .*same benchmark questions in the same order"):
        significance.paired_test(rows, rows[1:] + rows[:1])
    with pytest.raises(ValueError, match="system A has 5 questions and system B 4"):
        significance.paired_test(rows, rows[:4])


def test_cli_compare_on_the_bundled_example(capsys):
    status = cli.main(["compare", "tempbench", "--questions", str(EXAMPLES / "questions.jsonl"),
                       "--evidence", str(EXAMPLES / "evidence.jsonl"), "--n-resamples", "100", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert status == 0
    assert result["results"] == significance.confidence_intervals(_example_stats(), 100)
    assert result["signature"] == scoring.signature() + "|bootstrap:100|seed:12345|confidence:0.95"


def test_cli_compare_on_fixtures_with_split(capsys):
    status = cli.main(["compare", "tempbench", "--gold", str(shared_path(*FIXTURES, "questions_interval.jsonl")),
                       "--split", "test", "--space", "id",
                       "--predictions", str(shared_path(*FIXTURES, "evidence_stale_id.jsonl")),
                       "--predictions", str(shared_path(*FIXTURES, "evidence_mixed_id.jsonl"))])
    out = capsys.readouterr().out
    assert status == 0 and "TRP_macro" in out and "|space:id|" in out


def test_cli_compare_errors(capsys):
    status = cli.main(["compare", "tempbench", "--questions", str(EXAMPLES / "questions.jsonl"),
                       "--evidence", str(EXAMPLES / "evidence.jsonl"), "--split", "dev"])
    assert status == 2
    assert "no question has split 'dev'" in capsys.readouterr().err


def test_add_confidence_extends_a_result_its_slice_cells_and_its_signature():
    rows = _example_stats()
    result = files.score_files(EXAMPLES / "questions.jsonl", EXAMPLES / "evidence.jsonl")
    significance.add_confidence(result, rows, 200, 3, 0.9)
    expected = significance.confidence_intervals(rows, 200, 3, 0.9)
    assert result["extension_confidence_intervals"] == bounds(expected)
    cells = significance.slice_intervals(rows, scoring.SLICES, 200, 3, 0.9)
    for field in scoring.SLICES:
        for value, cell in result["by_" + field].items():
            assert cell["confidence_intervals"] == bounds(cells["by_" + field][value])
    assert result["signature"] == scoring.signature() + "|bootstrap:200|seed:3|confidence:0.9"


def test_file_stats_are_what_score_files_aggregates_with_the_functional_subset():
    subset = ["ex-1", "ex-3"]
    rows = files.file_stats(EXAMPLES / "questions.jsonl", EXAMPLES / "evidence.jsonl", functional_ids=subset)
    assert [row.id for row in rows] == subset
    expected = files.score_files(EXAMPLES / "questions.jsonl", EXAMPLES / "evidence.jsonl", functional_ids=subset)
    del expected["signature"], expected["n_evidence_unused"]
    assert scoring.aggregate(rows) == expected


def test_evaluate_compute_with_confidence():
    from conftest import load_metric

    tempbench = load_metric("tempbench_trp")
    questions = [record for _, record in read_jsonl(EXAMPLES / "questions.jsonl")]
    evidences = [record["evidence"] for _, record in read_jsonl(EXAMPLES / "evidence.jsonl")]
    inputs = dict(predictions=evidences, references=[q["S_star"] for q in questions],
                  t_query=[q["t_query"] for q in questions], complexity=[q["complexity"] for q in questions],
                  operator_type=[q["operator_type"] for q in questions], id=[q["id"] for q in questions])
    plain = tempbench.compute(**inputs)
    result = tempbench.compute(**inputs, confidence=0.9, n_resamples=200, seed=5)
    expected = dict(scoring.score(questions, evidences))
    significance.add_confidence(expected, scoring.item_stats(questions, evidences), 200, 5, 0.9)
    assert result == expected
    assert result["signature"] == plain["signature"] + "|bootstrap:200|seed:5|confidence:0.9"
    subset = tempbench.compute(**inputs, functional_ids=["ex-1", "ex-2"], confidence=0.9, n_resamples=50)
    assert subset["n_questions"] == 2 and subset["extension_confidence_intervals"]["CCR"]["high"] <= 1
