"""TSVer files -> `datasets`: the gold claims with explicit features, and the time-series tables.

    dd = load_tsver("/path/to/data/tsver")                # DatasetDict {"test": 280, "dev": 24}
    dd["test"][0]["time_series"]                           # [{"series": ..., "ranges": [{"from", "to"}]}]
    table = load_time_series("/path/to/data/tsver", "access-to-electricity")   # Dataset, one row per year

Series ids vary per claim, so `TimeSeries` (series id -> ranges) becomes a list of
{"series", "ranges"} structs; `scoring.ranges_from_rows` turns it back.
"""

import csv
import os

import datasets

from .scoring import read_gold
from .scoring import read_predictions
from .scoring import series_rows

RANGES = datasets.List({"from": datasets.Value("int32"), "to": datasets.Value("int32")})
TIME_SERIES = datasets.List({"series": datasets.Value("string"), "ranges": RANGES})

FEATURES = datasets.Features({
    "claim": datasets.Value("string"),
    "claimant": datasets.Value("string"),
    "date": datasets.Value("string"),  # as released, e.g. "April 01, 2022"
    "publisher": datasets.Value("string"),
    "url": datasets.Value("string"),
    "verdict": datasets.Value("string"),  # the label text, as the metric's references take it
    "justifications": datasets.List(datasets.Value("string")),
    "time_series": TIME_SERIES,
})

PREDICTION_FEATURES = datasets.Features({
    "verdict": datasets.Value("string"),
    "explanation": datasets.Value("string"),
    "time_series": TIME_SERIES,
})


def reference(record):
    """One gold record (official keys) as the metric's `references` example."""
    return {"claim": record["Claim"], "verdict": record["Verdict"], "justifications": record["Justifications"],
            "time_series": series_rows(record["TimeSeries"])}


def prediction(aligned):
    """One aligned prediction (`scoring.read_predictions`; None = no line) as a `predictions` example."""
    if aligned is None:
        return {"verdict": None, "explanation": None, "time_series": None}
    return {"verdict": aligned["verdict"], "explanation": aligned["explanation"],
            "time_series": series_rows(aligned["ranges"])}


def gold_dataset(path):
    """tsver_{test,dev}.jsonl -> Dataset with FEATURES (validated by `scoring.read_gold`)."""
    from benchscore import data  # `official:<split>` -> the store's verified file (benchscore.data)
    path = data.resolve("tsver", path)
    rows = [{"claim": r["Claim"], "claimant": r.get("Claimant"), "date": r.get("Date"), "publisher": r.get("Publisher"),
             "url": r.get("URL"), **reference(r)} for r in read_gold(path)]
    return datasets.Dataset.from_list(rows, features=FEATURES)


def load_tsver(data_dir, splits=("test", "dev")):
    """The gold splits of a TSVer data folder (holding tsver_<split>.jsonl) as a DatasetDict."""
    from benchscore import data  # `official:<split>` -> the store's verified file (benchscore.data)
    data_dir = data.resolve("tsver", data_dir)  # "official:" is the store's data/ folder
    return datasets.DatasetDict({s: gold_dataset(os.path.join(data_dir, f"tsver_{s}.jsonl")) for s in splits})


def predictions_dataset(predictions_path, gold_path):
    """A prediction JSONL aligned to the gold file (official alignment) as a Dataset of `predictions`."""
    from benchscore import data  # `official:<split>` -> the store's verified file (benchscore.data)
    gold_path = data.resolve("tsver", gold_path)
    claims = [r["Claim"] for r in read_gold(gold_path)]
    return datasets.Dataset.from_list([prediction(p) for p in read_predictions(predictions_path, claims)],
                                      features=PREDICTION_FEATURES)


def load_time_series(data_dir, series_id):
    """time_series/csv/<series_id>.csv as a Dataset: "Date" (int year) and one float column per
    country code (None where empty). For systems; the metric does not need the tables."""
    from benchscore import data  # `official:<split>` -> the store's verified file (benchscore.data)
    data_dir = data.resolve("tsver", data_dir)  # "official:time_series": the store's data/ with the CSVs
    path = os.path.join(data_dir, "time_series", "csv", f"{series_id}.csv")
    if not os.path.exists(path):
        raise ValueError(f"no time series {series_id!r}: {path} does not exist")
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        if header[0] != "Date":
            raise ValueError(f"{path}: expected the first column 'Date', found {header[0]!r}")
        rows = [[int(row[0])] + [float(v) if v else None for v in row[1:]] for row in reader]
    features = datasets.Features({"Date": datasets.Value("int32"),
                                  **{code: datasets.Value("float64") for code in header[1:]}})
    return datasets.Dataset.from_dict({name: [row[j] for row in rows] for j, name in enumerate(header)},
                                      features=features)
