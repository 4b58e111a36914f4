"""TSVer intervals and paired tests: the resampled statistic is `aggregate` on the resample (every
denominator, strict, both Ev2R aggregations), parity estimates, real-data detection, the CLI."""

import dataclasses
import json
import random
import warnings

import numpy as np
import pytest

from benchscore import cli
from benchscore.tsver import files
from benchscore.tsver import scoring
from benchscore.tsver import significance
from benchscore.core.resampling import bounds
from conftest import shared_path

VERDICTS = list(scoring.LABELS) + ["refuted.", "TRUE", "error", "NEI", "not supported"]


def synthetic_claims(n, seed):
    """Hand-made claim stats covering every status (ok, error, unmatched, missing) and Ev2R case."""
    rng = random.Random(seed)
    stats = []
    for _ in range(n):
        gold_series = {s: [{"from": 2000, "to": 2000 + rng.randrange(10)}]
                       for s in rng.sample("abcd", rng.randrange(3))}
        prediction = None
        if rng.random() < 0.85:
            ranges = {s: [{"from": 2000 + rng.randrange(5), "to": 2005 + rng.randrange(5)}]
                      for s in rng.sample("abcde", rng.randrange(4))}
            prediction = {"verdict": rng.choice(VERDICTS), "ranges": ranges or None}
        ev2r, failure = None, None
        roll = rng.random()
        if roll < 0.6:
            ev2r = {key: rng.randrange(4) for key in scoring.EV2R_KEYS}
        elif roll < 0.7:
            failure = "judge timed out"
        stats.append(scoring.claim_item(rng.choice(scoring.LABELS), gold_series, prediction, ev2r, failure))
    return stats


def _as_number(value):
    return np.nan if value is None else value


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("ev2r_aggregation", scoring.EV2R_AGGREGATIONS)
def test_resampled_statistic_is_the_aggregate_of_the_resample(strict, ev2r_aggregation):
    stats = synthetic_claims(60, seed=5)
    values = significance.item_values(stats, strict, ev2r_aggregation)
    statistic = lambda sums: significance.statistic(sums, ev2r_aggregation, True)
    rng = np.random.default_rng(0)
    samples = [rng.integers(0, len(stats), len(stats)) for _ in range(40)]
    samples += [np.arange(len(stats)), np.array([0, 0, 1])]
    for index in samples:
        weights = np.bincount(index, minlength=len(stats)).astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            ours = statistic((weights @ values)[None, :])
        expected = scoring.aggregate([stats[i] for i in index], strict=strict, ev2r_aggregation=ev2r_aggregation)
        for name in significance.HEADLINE + significance.EV2R_HEADLINE:
            assert ours[name][0] == pytest.approx(_as_number(expected[name]), abs=1e-12, nan_ok=True), (name, index)


def test_estimates_are_the_aggregate_exactly_and_intervals_contain_them():
    stats = synthetic_claims(80, seed=9)
    for strict in (False, True):
        result = significance.confidence_intervals(stats, n_resamples=300, strict=strict)
        expected = scoring.aggregate(stats, strict=strict)
        assert list(result) == ["tscs", "verdict_macro_f1", "verdict_accuracy", "ev2r_f1"]
        for name, r in result.items():
            assert r["estimate"] == expected[name]
            assert r["low"] <= r["estimate"] <= r["high"] and r["low"] < r["high"], (name, r)


def test_no_judge_no_ev2r_row():
    stats = [scoring.claim_item("Refuted", {"a": [{"from": 1, "to": 2}]}, {"verdict": "Refuted", "ranges": None})] * 3
    assert list(significance.confidence_intervals(stats, n_resamples=10)) == list(significance.HEADLINE)


def _official(name, split):
    data = shared_path("data", "tsver")
    gold, predictions = data / f"tsver_{split}.jsonl", data / "predictions" / f"pred_{name}.jsonl"
    return files.file_stats(gold, predictions)


@pytest.mark.parametrize("name,split", [("dev_gold", "dev"), ("dev_perturbed_seed12345", "dev"),
                                        ("test_gold", "test"), ("test_wrong_verdict", "test")])
def test_estimates_are_the_official_numbers(name, split):
    expected = json.loads(shared_path("data", "tsver", "expected", f"perclaim_{name}.json").read_text("utf-8"))
    official = expected["aggregate_full_precision"]
    result = significance.confidence_intervals(_official(name, split), n_resamples=50)
    # 1e-12: the official mean iterates a set, so its last digit is not reproducible (spec).
    assert result["tscs"]["estimate"] == pytest.approx(official["trange_Average TSCS"], abs=1e-12)
    assert result["verdict_accuracy"]["estimate"] == official["verdict_accuracy"]
    assert result["verdict_macro_f1"]["estimate"] == official["verdict_macro_f1_4labels"]


def test_wrong_verdicts_are_detected_and_equal_ranges_are_not():
    gold, wrong = _official("test_gold", "test"), _official("test_wrong_verdict", "test")
    result = significance.paired_test(wrong, gold)
    for name in ("verdict_accuracy", "verdict_macro_f1"):
        assert result[name]["difference"] == 1.0
        assert result[name]["p_bootstrap"] < 0.01 and result[name]["p_randomization"] < 0.01
    tscs = result["tscs"]  # both restate the gold ranges
    assert (tscs["difference"], tscs["low"], tscs["high"]) == (0, 0, 0)
    assert tscs["p_bootstrap"] == tscs["p_randomization"] == 1


def test_perturbed_ranges_are_detected_on_24_dev_claims():
    result = significance.paired_test(_official("dev_perturbed_seed12345", "dev"), _official("dev_gold", "dev"))
    tscs = result["tscs"]
    assert 0 < tscs["low"] < tscs["difference"] < tscs["high"]
    assert tscs["p_bootstrap"] < 0.01 and tscs["p_randomization"] < 0.01


def test_self_comparison_and_seeds():
    stats = synthetic_claims(50, seed=2)
    other = synthetic_claims(50, seed=2)  # same claims, same gold
    for r in significance.paired_test(stats, other, n_resamples=200).values():
        assert (r["difference"], r["low"], r["high"], r["p_bootstrap"], r["p_randomization"]) == (0, 0, 0, 1, 1)
    b = synthetic_claims(50, seed=3)
    b = [dataclasses.replace(s, gold=a.gold) for s, a in zip(b, stats)]
    assert significance.paired_test(stats, b, 200, 4) == significance.paired_test(stats, b, 200, 4)
    assert significance.paired_test(stats, b, 200, 4) != significance.paired_test(stats, b, 200, 5)


def test_different_gold_is_refused():
    stats = synthetic_claims(10, seed=1)
    flipped = [dataclasses.replace(s, gold="Refuted" if s.gold != "Refuted" else "Supported") for s in stats]
    with pytest.raises(ValueError, match="claim 0: gold verdict .* expected the same gold claims in the same order"):
        significance.paired_test(stats, flipped)
    with pytest.raises(ValueError, match="system A has 10 claims and system B 9"):
        significance.paired_test(stats, stats[1:])


def test_cli_compare_with_recorded_ev2r(capsys):
    data = shared_path("data", "tsver")
    ev2r = str(data / "predictions" / "ev2r_synthetic_perfect_test.jsonl")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", scoring.TSVerWarning)
        status = cli.main(["compare", "tsver", "--gold", str(data / "tsver_test.jsonl"),
                           "--predictions", str(data / "predictions" / "pred_test_wrong_verdict.jsonl"),
                           "--predictions", str(data / "predictions" / "pred_test_gold.jsonl"),
                           "--ev2r", ev2r, "--ev2r", ev2r, "--n-resamples", "200"])
    out = capsys.readouterr().out
    assert status == 0
    assert "verdict_accuracy  0.0000  1.0000  +1.0000  [1.0000, 1.0000]  0.0050" in out
    assert "ev2r_f1           1.0000  1.0000  +0.0000  [0.0000, 0.0000]  1.0000" in out
    assert "|judge:recorded(n=280," in out and out.rstrip().endswith("|bootstrap:200|seed:12345|confidence:0.95")


def test_cli_compare_needs_one_judge_file_per_system(capsys):
    data = shared_path("data", "tsver")
    status = cli.main(["compare", "tsver", "--gold", str(data / "tsver_dev.jsonl"),
                       "--predictions", str(data / "predictions" / "pred_dev_gold.jsonl"),
                       "--predictions", str(data / "predictions" / "pred_dev_gold.jsonl"),
                       "--ev2r", str(data / "predictions" / "ev2r_synthetic_perfect_test.jsonl")])
    assert status == 2
    assert "--ev2r was given 1 times and --predictions 2 times" in capsys.readouterr().err


def test_add_confidence_extends_a_result_and_its_signature():
    stats = synthetic_claims(40, seed=6)
    result = scoring.aggregate(stats, strict=True, ev2r_aggregation="paper")
    result["signature"] = scoring.signature(True, "paper")
    significance.add_confidence(result, stats, 300, 8, 0.9, strict=True, ev2r_aggregation="paper")
    expected = significance.confidence_intervals(stats, 300, 8, 0.9, strict=True, ev2r_aggregation="paper")
    assert result["extension_confidence_intervals"] == bounds(expected)
    assert result["signature"] == scoring.signature(True, "paper") + "|bootstrap:300|seed:8|confidence:0.9"


def _module_inputs():
    references = [{"claim": f"claim {i}", "verdict": verdict, "justifications": ["because"],
                   "time_series": [{"series": "gdp", "ranges": [{"from": 2000, "to": 2005}]}]}
                  for i, verdict in enumerate(["Refuted", "Supported", "Refuted", "Not Enough Evidence"] * 3)]
    predictions = [{"verdict": verdict, "explanation": "so",
                    "time_series": [{"series": "gdp", "ranges": [{"from": 2000 + i % 4, "to": 2005}]}]}
                   for i, verdict in enumerate(["Refuted", "Supported", "Supported", "Not Enough Evidence"] * 3)]
    return predictions, references


def test_evaluate_compute_with_confidence():
    from conftest import load_metric

    tsver = load_metric("tsver")
    predictions, references = _module_inputs()
    plain = tsver.compute(predictions=predictions, references=references, return_per_claim=True)
    result = tsver.compute(predictions=predictions, references=references, confidence=0.9, n_resamples=200, seed=1)
    expected = significance.confidence_intervals(plain["per_claim"], 200, 1, 0.9)
    assert result["extension_confidence_intervals"] == bounds(expected)
    assert result["signature"] == plain["signature"] + "|bootstrap:200|seed:1|confidence:0.9"
    assert result["verdict_accuracy"] == plain["verdict_accuracy"] == expected["verdict_accuracy"]["estimate"]
    with pytest.raises(ValueError, match="n_resamples must be a positive int"):
        tsver.compute(predictions=predictions, references=references, confidence=0.9, n_resamples=0)


def test_a_file_wide_ev2r_gets_no_interval(tmp_path):
    stats = synthetic_claims(20, seed=4)
    result = scoring.aggregate(stats)
    result.update(signature=scoring.signature(), n_ev2r_records=99)  # as scoring.file_ev2r marks it
    significance.add_confidence(result, stats, 100)
    assert list(result["extension_confidence_intervals"]) == list(significance.HEADLINE)


@pytest.mark.filterwarnings("ignore:.*records claim .* again:UserWarning")  # the judge's own note on the duplicate
def test_compare_leaves_out_an_ev2r_file_with_extra_records(tmp_path):
    data = shared_path("data", "tsver")
    records = (data / "predictions" / "ev2r_synthetic_perfect_test.jsonl").read_text("utf-8")
    extra = tmp_path / "ev2r.jsonl"
    extra.write_text(records + records.splitlines()[0] + "\n", encoding="utf-8")  # one claim recorded twice
    with pytest.warns(scoring.TSVerWarning, match="holds 281 records for 280 judged claims"):
        stats, judge = files.scored_claims(data / "tsver_test.jsonl", data / "predictions" / "pred_test_gold.jsonl",
                                               extra)
    assert judge == "none" and "ev2r_f1" not in significance.confidence_intervals(stats, 10)
