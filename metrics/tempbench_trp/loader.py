"""TempBench question files (`benchmark_labelled.jsonl` / `benchmark.jsonl` style) -> `datasets.Dataset`.

Every field the benchmark documents gets an explicit feature; triples (`S_star`, `S_dist`,
`S_stale`) carry both spaces, with None where a file has only one (`benchmark.jsonl` has ids only).
Fields this loader does not know are kept, not dropped: they go, JSON-encoded, into the string
column `extra` as one object keyed by field name (`"source"`) or, inside a triple, by its path
(`"S_star[0].qualifier"`); `"{}"` when there are none. `metric_inputs(dataset)` gives the columns
the evaluate module takes, so `metric.compute(predictions=runs, **metric_inputs(dataset))` works.

    >>> from benchscore.tempbench_trp.loader import load_tempbench
    >>> ds = load_tempbench("benchmark/benchmark_labelled.jsonl", split="test")   # doctest: +SKIP
"""

import datasets

from benchscore.tempbench_trp import files

TRIPLE = {key: datasets.Value("string") for key in files.TRIPLE_STRINGS}
TRIPLE.update({key: datasets.Value("float64") for key in files.TRIPLE_TIMES})

FEATURES = datasets.Features(
    {
        "id": datasets.Value("string"),
        "question": datasets.Value("string"),
        "t_query": datasets.Value("float64"),
        "S_star": [TRIPLE],
        "complexity": datasets.Value("string"),
        "operator_type": datasets.Value("string"),
        "split": datasets.Value("string"),
        "S_dist": [TRIPLE],
        "S_stale": [TRIPLE],
        "extra": datasets.Value("string"),
    }
)


def load_tempbench(path, split=None):
    """A `datasets.Dataset` of the questions in `path` (all, or those whose `split` equals `split`)."""
    return datasets.Dataset.from_list(files.read_references(path, split), features=FEATURES)


def metric_inputs(questions):
    """The evaluate module's per-question inputs (all but `predictions`) from a loaded Dataset or records.

    The optional columns (complexity, operator_type, id) are None where the questions lack them.
    """
    columns = ("S_star", "t_query", "complexity", "operator_type", "id")
    if isinstance(questions, datasets.Dataset):
        data = {c: list(questions[c]) if c in questions.column_names else [None] * len(questions) for c in columns}
    else:
        data = {column: [q.get(column) for q in questions] for column in columns}
    data["references"] = data.pop("S_star")
    return data
