"""TSVer parity with the official scorer's recorded outputs (../shared/data/tsver/expected)."""

import json
import warnings

import pytest

from benchscore.cli import main
from benchscore.tsver import files
from benchscore.tsver import loader
from benchscore.tsver import scoring
from conftest import load_metric
from conftest import shared_path

RUNS = [  # (expected name, gold split)
    ("dev_gold", "dev"),
    ("dev_perturbed_seed12345", "dev"),
    ("test_gold", "test"),
    ("test_wrong_verdict", "test"),
]
# expected aggregate_full_precision key -> our result key
AGGREGATES = {
    "n_gold": "n_claims",
    "n_in_accuracy": "n_scored",
    "n_in_tscs": "n_in_tscs",
    "verdict_accuracy": "verdict_accuracy",
    "verdict_macro_f1_4labels": "verdict_macro_f1",
    "trange_Average TSCS": "tscs",
    "trange_Average IoU": "iou",
    "trange_Average Precision": "precision",
    "trange_Average Recall": "recall",
    "trange_Average F1 Score": "f1",
}
OUR_EXTRA_LINES = ("   • Verdicts scored:", "   • Signature:", "   • Ev2R:")


def _official_lines(name):
    """The official printout without what we do not reproduce: the METEOR row (not in the spec),
    sklearn's warning (stderr mixed in) and the recorder's rc line."""
    text = shared_path("data", "tsver", "expected", f"official_cli_{name}.txt").read_text(encoding="utf-8")
    skip = ("| Justifications METEOR Score", "rc=")
    return [l for l in text.splitlines() if not l.startswith(skip) and "sklearn" not in l and "_warn_prf" not in l]


def _score_files(name, split):
    gold = files.read_references(shared_path("data", "tsver", f"tsver_{split}.jsonl"))
    predictions = files.read_predictions(shared_path("data", "tsver", "predictions", f"pred_{name}.jsonl"),
                                           [g["Claim"] for g in gold])
    return gold, predictions, scoring.item_stats(gold, predictions)


@pytest.mark.parametrize("name,split", RUNS)
@pytest.mark.parity
def test_aggregates_and_per_claim_values_match_official(name, split):
    expected = json.loads(shared_path("data", "tsver", "expected", f"perclaim_{name}.json").read_text("utf-8"))
    _, _, stats = _score_files(name, split)
    result = scoring.aggregate(stats)
    for theirs, ours in AGGREGATES.items():
        assert result[ours] == pytest.approx(expected["aggregate_full_precision"][theirs], abs=1e-12), theirs
    assert len(stats) == len(expected["per_claim"])
    for s, e in zip(stats, expected["per_claim"]):
        assert (s.label, s.correct) == (e["matched_label"], e["correct"]), e["gold_index"]
        assert s.status == scoring.OK and e["in_accuracy"] and e["in_tscs"]
        t = e["tscs"]
        assert s.tscs == pytest.approx(t["TSCS"], abs=1e-12)
        if "note" in t:  # the official short cut for an empty side
            assert s.empty and (s.iou, s.precision, s.recall, s.f1) == (0, 0, 0, 0)
            continue
        for theirs, ours in [("Average IoU", "iou"), ("Precision", "precision"), ("Recall", "recall"),
                             ("F1 Score", "f1")]:
            assert getattr(s, ours) == pytest.approx(t[theirs], abs=1e-12), (e["gold_index"], theirs)
        assert s.series == {k: {"iou": pytest.approx(v["IoU"], abs=1e-12), "intersection": v["Intersection (years)"],
                                   "union": v["Union (years)"]} for k, v in t["IoU per dataset"].items()}


def _approx(value):
    """Floats compared to 1e-12 (the official mean's last digit depends on set order), all else exact."""
    if isinstance(value, float):
        return pytest.approx(value, abs=1e-12)
    if isinstance(value, dict):
        return {k: _approx(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_approx(v) for v in value]
    return value


@pytest.mark.parametrize("name,split", RUNS)
@pytest.mark.parity
def test_cli_per_claim_report_equals_the_official_json(name, split, tmp_path, capsys):
    data = shared_path("data", "tsver")
    expected = json.loads((data / "expected" / f"perclaim_{name}.json").read_text("utf-8"))
    out = tmp_path / "report.json"
    assert main(["tsver", "--gold", str(data / f"tsver_{split}.jsonl"), "--per-claim", str(out),
                 "--predictions", str(data / "predictions" / f"pred_{name}.jsonl")]) == 0
    ours = json.loads(out.read_text("utf-8"))
    assert ours["per_claim"] == _approx(expected["per_claim"])
    assert ours["aggregate_full_precision"] == _approx(expected["aggregate_full_precision"])


@pytest.mark.parametrize("name,split", RUNS)
@pytest.mark.parity
def test_cli_prints_the_official_table(name, split, capsys):
    data = shared_path("data", "tsver")
    rc = main(["tsver", "--gold", str(data / f"tsver_{split}.jsonl"),
               "--predictions", str(data / "predictions" / f"pred_{name}.jsonl")])
    assert rc == 0
    ours = [l for l in capsys.readouterr().out.splitlines() if not l.startswith(OUR_EXTRA_LINES)]
    assert ours == _official_lines(name)


@pytest.mark.parity
def test_cli_with_recorded_ev2r_prints_the_official_ev2r_score(capsys):
    data = shared_path("data", "tsver")
    rc = main(["tsver", "--gold", str(data / "tsver_test.jsonl"),
               "--predictions", str(data / "predictions" / "pred_test_gold.jsonl"),
               "--ev2r", str(data / "predictions" / "ev2r_synthetic_perfect_test.jsonl")])
    assert rc == 0
    out = capsys.readouterr().out.splitlines()
    assert [l for l in out if not l.startswith(OUR_EXTRA_LINES)] == \
        _official_lines("test_gold_with_ev2r_synthetic_perfect")
    assert "   • Ev2R: 280 claims judged, 0 judge failures; P 100.00, R 100.00" in out


def test_cli_json_has_counts_and_signature(capsys):
    data = shared_path("data", "tsver")
    main(["tsver", "--gold", str(data / "tsver_dev.jsonl"), "--json", "--strict",
          "--predictions", str(data / "predictions" / "pred_dev_perturbed_seed12345.jsonl")])
    result = json.loads(capsys.readouterr().out)
    assert result["signature"] == "tsver|version:1.0.0|benchscore:0.1.0|strict:yes|ev2r:tsver|judge:none"
    assert (result["n_claims"], result["n_scored"], result["n_missing"], result["n_errors"]) == (24, 24, 0, 0)
    assert result["tscs"] == pytest.approx(0.22696493879683532, abs=1e-12)


@pytest.mark.parametrize("name,split", [("dev_perturbed_seed12345", "dev"), ("test_wrong_verdict", "test")])
def test_evaluate_module_equals_pure_scoring(name, split):
    """compute == add_batch == the pure path, on real data through evaluate and datasets."""
    gold, predictions, stats = _score_files(name, split)
    pure = scoring.aggregate(stats)
    references = [loader.reference(g) for g in gold]
    examples = [loader.prediction(p) for p in predictions]
    metric = load_metric("tsver")
    computed = metric.compute(predictions=examples, references=references)
    for start in range(0, len(examples), 50):
        metric.add_batch(predictions=examples[start:start + 50], references=references[start:start + 50])
    batched = metric.compute()
    assert computed == batched
    assert {k: v for k, v in computed.items() if k != "signature"} == pure
    assert computed["signature"] == "tsver|version:1.0.0|benchscore:0.1.0|strict:no|ev2r:tsver|judge:none"


def test_loader_gold_dataset_feeds_the_metric():
    dd = loader.load_tsver(shared_path("data", "tsver"))
    assert (dd["test"].num_rows, dd["dev"].num_rows) == (280, 24)
    assert dd["test"].features == loader.FEATURES
    dev = dd["dev"].select_columns(["claim", "verdict", "justifications", "time_series"])
    predictions = loader.predictions_dataset(shared_path("data", "tsver", "predictions", "pred_dev_gold.jsonl"),
                                             shared_path("data", "tsver", "tsver_dev.jsonl"))
    result = load_metric("tsver").compute(predictions=list(predictions), references=list(dev))
    assert (result["verdict_accuracy"], result["verdict_macro_f1"], result["tscs"]) == (1.0, 0.75, 1.0)


def test_loader_time_series_table():
    table = loader.load_time_series(shared_path("data", "tsver"), "access-to-electricity")
    assert table.column_names[0] == "Date" and "OWID_WRL" in table.column_names
    assert all(isinstance(y, int) for y in table["Date"])
    with pytest.raises(ValueError, match="no time series 'nope'"):
        loader.load_time_series(shared_path("data", "tsver"), "nope")


def test_unicode_series_ids_round_trip_through_the_loader():
    gold = files.read_references(shared_path("data", "tsver", "tsver_test.jsonl"))
    odd = [g for g in gold if any(not s.isascii() or "," in s or "(" in s for s in g["TimeSeries"])]
    assert odd, "the test split has series ids with non-ASCII characters, commas or parentheses"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for g in odd:
            assert scoring.ranges_from_rows(loader.reference(g)["time_series"]) == g["TimeSeries"]
