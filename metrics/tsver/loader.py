"""TSVer files -> `datasets`: the gold claims with explicit features, and the time-series tables.
Series ids vary per claim, so `TimeSeries` (series id -> ranges) becomes a list of {"series",
"ranges"} structs; `scoring.ranges_from_rows` turns it back."""

import csv
import math
import os
from collections.abc import Sequence
from typing import Any

import datasets

from benchscore import data
from benchscore.core.readers import at_line, iter_lines
from benchscore.tsver.files import read_predictions, read_references
from benchscore.tsver.scoring import series_rows

RANGES = datasets.List({"from": datasets.Value("int32"), "to": datasets.Value("int32")})
TIME_SERIES = datasets.List({"series": datasets.Value("string"), "ranges": RANGES})

# date: as released, e.g. "April 01, 2022"; verdict: the label text, as the metric's references take it.
FEATURES = datasets.Features({
    **{name: datasets.Value("string") for name in ("claim", "claimant", "date", "publisher", "url", "verdict")},
    "justifications": datasets.List(datasets.Value("string")),
    "time_series": TIME_SERIES,
})

PREDICTION_FEATURES = datasets.Features({"verdict": datasets.Value("string"), "explanation": datasets.Value("string"),
                                         "time_series": TIME_SERIES})


def reference(record):
    """One gold record (official keys) as the metric's `references` example."""
    return {"claim": record["Claim"], "verdict": record["Verdict"], "justifications": record["Justifications"],
            "time_series": series_rows(record["TimeSeries"])}


def prediction(aligned):
    """One aligned prediction (`files.read_predictions`; None = no line) as a `predictions` example."""
    if aligned is None:
        return {"verdict": None, "explanation": None, "time_series": None}
    return {"verdict": aligned["verdict"], "explanation": aligned["explanation"],
            "time_series": series_rows(aligned["ranges"])}


def gold_dataset(path: str | os.PathLike) -> datasets.Dataset:
    """tsver_{test,dev}.jsonl -> Dataset with FEATURES (validated by `files.read_references`)."""
    rows = [{"claim": r["Claim"], "claimant": r.get("Claimant"), "date": r.get("Date"), "publisher": r.get("Publisher"),
             "url": r.get("URL"), **reference(r)} for r in read_references(path)]
    return datasets.Dataset.from_list(rows, features=FEATURES)


def load_tsver(data_dir: str | os.PathLike, splits: Sequence[str] = ("test", "dev")) -> datasets.DatasetDict:
    """The gold splits of a TSVer data folder (holding tsver_<split>.jsonl) as a DatasetDict;
    `official:` is the data store's folder."""
    data_dir = data.resolve("tsver", data_dir)
    return datasets.DatasetDict({s: gold_dataset(os.path.join(data_dir, f"tsver_{s}.jsonl")) for s in splits})


def predictions_dataset(predictions_path: str | os.PathLike, gold_path: str | os.PathLike) -> datasets.Dataset:
    """A prediction JSONL aligned to the gold file (official alignment) as a Dataset of `predictions`."""
    claims = [r["Claim"] for r in read_references(gold_path)]
    return datasets.Dataset.from_list([prediction(p) for p in read_predictions(predictions_path, claims)],
                                      features=PREDICTION_FEATURES)


def _series_path(data_dir, series_id):
    """time_series/csv/<series_id>.csv, refusing an id that would leave that folder (e.g. "../../x")."""
    folder = os.path.realpath(os.path.join(data_dir, "time_series", "csv"))
    if not isinstance(series_id, str) or not series_id or any(c in series_id for c in "/\\\0") \
            or series_id in (".", ".."):
        raise ValueError(f"series id {series_id!r} is not a file name; expected the name of a CSV file in {folder} "
                         "without '.csv' (no '/', '\\' or '..')")
    path = os.path.join(folder, f"{series_id}.csv")
    if os.path.dirname(os.path.realpath(path)) != folder:
        raise ValueError(f"series id {series_id!r} leads outside {folder}; expected a CSV file in that folder")
    if not os.path.exists(path):
        raise ValueError(f"no time series {series_id!r}: {path} does not exist")
    return path


def _csv_row(path, number, row, n_columns):
    if len(row) != n_columns:
        found = "an empty line" if not row else f"{len(row)} comma-separated fields"
        raise at_line(path, number, f"found {found}; expected {n_columns} (as the header)")
    year = _year(path, number, row[0])
    try:
        values = [float(v) if v else None for v in row[1:]]
    except ValueError:
        values = [math.nan]
    if not all(v is None or math.isfinite(v) for v in values):
        raise at_line(path, number, "a value is not a finite number; expected numbers or empty cells")
    return [year, *values]


def _year(path, number, text):
    try:
        year = int(text)
    except ValueError:
        year = None
    if year is None or not -2 ** 31 <= year < 2 ** 31:
        raise at_line(path, number, f"Date is {text[:40]!r}; expected an integer year")
    return year


def _header(path, rows):
    header = rows[0][1] if rows else []
    if header[:1] != ["Date"] or len(set(header)) != len(header):
        found = f"the header {','.join(header)[:80]!r}" if header else "no header"
        raise at_line(path, rows[0][0] if rows else 1, f"found {found}; expected 'Date' then one distinct column "
                                                        "per country code")
    return header


def load_time_series(data_dir: str | os.PathLike, series_id: str) -> Any:
    """time_series/csv/<series_id>.csv as a Dataset: "Date" (int year) and one float column per country
    (None where empty), for systems. `data_dir` may be `official:time_series`, the store's folder with
    the CSVs (`benchscore data fetch tsver --with-time-series`)."""
    path = _series_path(data.resolve("tsver", data_dir), series_id)
    reader = csv.reader([text for _, text in iter_lines(path)])  # UTF-8 checked, BOM dropped, line ends removed
    rows = [(reader.line_num, row) for row in reader]
    header = _header(path, rows)
    values = [_csv_row(path, number, row, len(header)) for number, row in rows[1:]]
    features = datasets.Features({"Date": datasets.Value("int32"),
                                  **{code: datasets.Value("float64") for code in header[1:]}})
    return datasets.Dataset.from_dict({name: [row[j] for row in values] for j, name in enumerate(header)},
                                      features=features)
