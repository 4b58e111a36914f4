"""TSVer loader on our own example files (no ../shared needed)."""

import pytest

from benchscore.tsver import files
from benchscore.tsver import loader
from benchscore.tsver import scoring
from conftest import METRICS
from conftest import load_metric

EXAMPLES = METRICS / "tsver" / "examples"


def test_gold_dataset_has_the_declared_features_and_round_trips():
    ds = loader.gold_dataset(EXAMPLES / "gold.jsonl")
    assert ds.features == loader.FEATURES and ds.num_rows == 7
    gold = files.read_references(EXAMPLES / "gold.jsonl")
    for row, record in zip(ds, gold):
        assert row["claim"] == record["Claim"] and row["verdict"] == record["Verdict"]
        assert scoring.ranges_from_rows(row["time_series"]) == record["TimeSeries"]  # incl. "co₂", commas, parens


def test_predictions_dataset_is_aligned_and_feeds_the_metric():
    with pytest.warns(scoring.TSVerWarning):
        predictions = loader.predictions_dataset(EXAMPLES / "predictions.jsonl", EXAMPLES / "gold.jsonl")
    assert predictions.num_rows == 7
    assert predictions[4] == {"verdict": None, "explanation": None, "time_series": None}  # no line for claim 4
    assert predictions[3]["verdict"] == "conflicting"  # the later duplicate
    references = loader.gold_dataset(EXAMPLES / "gold.jsonl").select_columns(
        ["claim", "verdict", "justifications", "time_series"])
    with pytest.warns(UserWarning, match="match no label"):
        result = load_metric("tsver").compute(predictions=list(predictions), references=list(references))
    assert (result["n_scored"], result["n_in_tscs"], result["verdict_accuracy"]) == (4, 6, 0.5)


def test_missing_gold_split_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        loader.load_tsver(tmp_path, splits=("dev",))
    with pytest.raises(ValueError, match="no time series 'gdp'"):
        loader.load_time_series(tmp_path, "gdp")
