"""TempBench question files (`benchmark_labelled.jsonl` / `benchmark.jsonl` style) -> `datasets.Dataset`.

Explicit features for every documented field; unknown fields are kept in the JSON text column `extra`.
"""

import os
from collections.abc import Sequence

import datasets

from benchscore.tempbench_trp import files

TRIPLE = {key: datasets.Value("string") for key in files.TRIPLE_STRINGS}
TRIPLE.update({key: datasets.Value("float64") for key in files.TRIPLE_TIMES})

FEATURES = datasets.Features({
    "id": datasets.Value("string"), "question": datasets.Value("string"), "t_query": datasets.Value("float64"),
    "S_star": [TRIPLE], "complexity": datasets.Value("string"), "operator_type": datasets.Value("string"),
    "split": datasets.Value("string"), "S_dist": [TRIPLE], "S_stale": [TRIPLE], "extra": datasets.Value("string"),
})


def load_tempbench(path: str | os.PathLike, split: str | None = None) -> datasets.Dataset:
    """A `datasets.Dataset` of the questions in `path` (all, or those whose `split` equals `split`)."""
    return datasets.Dataset.from_list(files.read_references(path, split), features=FEATURES)


def metric_inputs(questions: Sequence) -> dict:
    """The evaluate module's inputs but `predictions` from a Dataset or records (None for absent optional columns)."""
    columns = ("S_star", "t_query", "complexity", "operator_type", "id")
    rows = questions.to_list() if isinstance(questions, datasets.Dataset) else questions
    data = {column: [q.get(column) for q in rows] for column in columns}
    data["references"] = data.pop("S_star")
    return data
