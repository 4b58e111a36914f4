"""MC-TACO raw files -> a `datasets.Dataset`/`DatasetDict` with the Hub dataset's features.

`datasets` >= 4 no longer runs the Hub's loading script (`CogComp/mc_taco`), so this builds its features
from the official TSVs, plus `question_id`: one id per question, as the official evaluator groups them.
"""

import os

import datasets

from benchscore.mctaco import files, scoring

FEATURES = datasets.Features({**{name: datasets.Value("string") for name in ("sentence", "question", "answer")},
                              "label": datasets.ClassLabel(names=list(scoring.LABELS)),
                              "category": datasets.ClassLabel(names=list(scoring.CATEGORIES)),
                              "question_id": datasets.Value("string")})


def load_split(path: str | os.PathLike, split: str | None = "validation") -> datasets.Dataset:
    """One TSV as a `datasets.Dataset` with the Hub dataset's features plus `question_id`."""
    rows = files.read_references(path)
    question_ids: dict[str, str] = {}
    for row in rows:
        key = scoring.question_key(row["sentence"], row["question"])
        row["question_id"] = question_ids.setdefault(key, f"{split}-{len(question_ids):04d}")
    # The label and category strings become ids through the ClassLabel features.
    columns = {name: [row[name] for row in rows] for name in FEATURES}
    return datasets.Dataset.from_dict(columns, features=FEATURES, split=split)


def load_mctaco(validation: str | os.PathLike | None = None,
                test: str | os.PathLike | None = None) -> datasets.DatasetDict:
    """The TSVs as a `datasets.DatasetDict` (`validation` = dev_3783.tsv, `test` = test_9442.tsv); with no
    path, both official splits from the data store (`official:dev`, `official:test`; see `benchscore data`)."""
    if validation is None and test is None:
        validation, test = "official:dev", "official:test"
    paths = {"validation": validation, "test": test}
    return datasets.DatasetDict({split: load_split(path, split) for split, path in paths.items() if path})
