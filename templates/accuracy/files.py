"""The template's files -> checked items and per-item statistics: the one read path (CLI, compare,
loader, Space). Gold and predictions are JSONL, one {"id": ..., "label": ...} object per line."""

import os

from benchscore import data
from benchscore.core.readers import at_line, read_jsonl, shown

from . import scoring

FIELDS = ("id", "label")


def _records(path: str | os.PathLike, what: str) -> list[tuple[int, dict]]:
    """(line, {"id", "label"}) of every line, each field a non-empty string, each id once."""
    records: list[tuple[int, dict]] = []
    first: dict[str, int] = {}
    for number, record in read_jsonl(path, 'a {"id": ..., "label": ...} object', empty=what):
        for field in FIELDS:
            if not isinstance(record.get(field), str) or not record[field]:
                raise at_line(path, number, f"{field} is {shown(record.get(field))}; expected a non-empty string")
        if record["id"] in first:
            raise at_line(path, number, f"id {shown(record['id'])} repeats line {first[record['id']]}; expected "
                                        "each id once")
        first[record["id"]] = number
        records.append((number, {field: record[field] for field in FIELDS}))
    return records


def read_references(path: str | os.PathLike) -> list[dict]:
    """The gold items ({"id", "label"}, in file order) of a JSONL file or `official:<split>`."""
    path = data.resolve(scoring.FOLDER, path)
    return [record for _, record in _records(path, "items")]


def read_predictions(path: str | os.PathLike) -> dict[str, tuple[int, str]]:
    """{id: (line, label)} of a prediction file, in file order."""
    return {record["id"]: (number, record["label"]) for number, record in _records(path, "predictions")}


def aligned(gold_path: str | os.PathLike, predictions_path: str | os.PathLike) -> tuple[list[dict], list[str]]:
    """(gold items, the predicted label of each, in gold order): every gold id predicted, no other id."""
    gold = read_references(gold_path)
    predicted = read_predictions(predictions_path)
    ids = {item["id"] for item in gold}
    extra = next(((line, i) for i, (line, _) in predicted.items() if i not in ids), None)
    if extra is not None:
        raise at_line(predictions_path, extra[0], f"id {shown(extra[1])} is not in {gold_path}; expected the gold ids")
    missing = [item["id"] for item in gold if item["id"] not in predicted]
    if missing:
        raise at_line(predictions_path, len(predicted) + 1, f"the file ends without id {shown(missing[0])} "
                                                             f"({len(missing)} gold id(s) missing); expected one "
                                                             "prediction per gold id")
    return gold, [predicted[item["id"]][1] for item in gold]


def file_stats(gold_path: str | os.PathLike, predictions_path: str | os.PathLike) -> list[scoring.ItemStats]:
    """Per-item statistics of a prediction file against a gold file (both read and checked here)."""
    gold, labels = aligned(gold_path, predictions_path)
    return scoring.item_stats(labels, [item["label"] for item in gold], [item["id"] for item in gold],
                              check_input=False)


def score_files(gold_path: str | os.PathLike, predictions_path: str | os.PathLike) -> dict:
    """The result dict of a prediction file against a gold file."""
    gold, labels = aligned(gold_path, predictions_path)
    references = [item["label"] for item in gold]
    stats = scoring.item_stats(labels, references, [item["id"] for item in gold], check_input=False)
    return scoring.result(stats, scoring.inexact_labels(labels, references))
