"""MC-TACO raw files -> plain rows or a `datasets.DatasetDict`.

`datasets` >= 4 no longer runs the Hub's loading script (`CogComp/mc_taco`), so this builds the
same features from the official TSVs (row i = line i), plus `question_id`, the question key that
groups candidates the way the official evaluator does (one id per distinct sentence + question,
numbered in first-appearance order).

    >>> from benchscore.mctaco.loader import load_mctaco
    >>> ds = load_mctaco(validation="dev_3783.tsv", test="test_9442.tsv")   # doctest: +SKIP
"""

import datasets

from .scoring import CATEGORIES
from .scoring import LABELS

FIELDS = ("sentence", "question", "answer", "label", "category")

FEATURES = datasets.Features(
    {
        "sentence": datasets.Value("string"),
        "question": datasets.Value("string"),
        "answer": datasets.Value("string"),
        "label": datasets.ClassLabel(names=list(LABELS)),
        "category": datasets.ClassLabel(names=list(CATEGORIES)),
        "question_id": datasets.Value("string"),
    }
)


def read_lines(path, what):
    """The lines of a UTF-8 text file (one trailing newline allowed), with clear errors."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise ValueError(f"{path}: line {line} is not valid UTF-8 (byte {err.start}); {what} must be UTF-8") from None
    if not text.strip():
        raise ValueError(f"{path}: the file is empty; expected {what}")
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def read_tsv(path):
    """Rows of an official MC-TACO TSV as dicts with string fields, validated line by line."""
    rows = []
    for number, line in enumerate(read_lines(path, "MC-TACO TSV lines"), start=1):
        fields = line.rstrip("\r").split("\t")
        if len(fields) != len(FIELDS):
            raise ValueError(
                f"{path}: line {number} has {len(fields)} tab-separated fields; expected {len(FIELDS)}: "
                + " \\t ".join(FIELDS)
            )
        row = dict(zip(FIELDS, fields))
        if row["label"] not in LABELS:
            raise ValueError(f"{path}: line {number}: label is {row['label']!r}; expected 'yes' or 'no'")
        if row["category"] not in CATEGORIES:
            raise ValueError(f"{path}: line {number}: category is {row['category']!r}; expected one of {CATEGORIES}")
        rows.append(row)
    return rows


def read_predictions(path):
    """One label per line (the official prediction file format), white space stripped."""
    return [line.strip() for line in read_lines(path, "one 'yes'/'no' label per line")]


def _columns(rows, split):
    question_ids = {}
    columns = {name: [] for name in FEATURES}
    for row in rows:
        key = row["sentence"] + " " + row["question"]
        question_ids.setdefault(key, f"{split}-{len(question_ids):04d}")
        for name in FIELDS:
            columns[name].append(row[name])
        columns["question_id"].append(question_ids[key])
    columns["label"] = [LABELS.index(label) for label in columns["label"]]
    columns["category"] = [CATEGORIES.index(category) for category in columns["category"]]
    return columns


def load_split(path, split="validation"):
    """One TSV as a `datasets.Dataset` with the Hub dataset's features plus `question_id`."""
    from benchscore import data  # `official:<split>` -> the store's verified file (benchscore.data)
    path = data.resolve("mctaco", path)
    return datasets.Dataset.from_dict(_columns(read_tsv(path), split), features=FEATURES, split=split)


def load_mctaco(validation=None, test=None):
    """The official TSVs as a `datasets.DatasetDict` (`validation` = dev_3783.tsv, `test` = test_9442.tsv).

    With no paths, both official splits from the store (`official:dev`, `official:test`; see benchscore.data)."""
    if validation is None and test is None:
        validation, test = "official:dev", "official:test"
    paths = {"validation": validation, "test": test}
    if not any(paths.values()):
        raise ValueError("give the path of dev_3783.tsv (validation=...) and/or test_9442.tsv (test=...)")
    return datasets.DatasetDict({split: load_split(path, split) for split, path in paths.items() if path})
