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

import json

import datasets

TRIPLE_STRINGS = ("s", "r", "o", "s_id", "r_id", "o_id")
TRIPLE_TIMES = ("t_start", "t_end")
TRIPLE_FIELDS = ("S_star", "S_dist", "S_stale")
TRIPLE = {key: datasets.Value("string") for key in TRIPLE_STRINGS}
TRIPLE.update({key: datasets.Value("float64") for key in TRIPLE_TIMES})

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
REQUIRED = ("id", "t_query", "S_star")
STRINGS = ("id", "question", "complexity", "operator_type", "split")


def load_tempbench(path, split=None):
    """A `datasets.Dataset` of the questions in `path` (all, or those whose `split` equals `split`)."""
    from benchscore import data  # `official:<split>` -> the store's verified file (benchscore.data)
    path, split = data.resolve_split("tempbench", path, split)
    records = list(read_questions(path, split))
    return datasets.Dataset.from_list(records, features=FEATURES)


def read_questions(path, split=None):
    """Validated question records with every feature present (None when absent) and `extra`."""
    splits_found = set()
    n_selected = 0
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{path} line {number}"
            try:
                raw = json.loads(line)
            except ValueError as err:
                raise ValueError(f"{where}: not valid JSON ({err})") from None
            record = normalize_question(raw, where)
            splits_found.add(record["split"])
            if split is not None and record["split"] != split:
                continue
            n_selected += 1
            yield record
    if not n_selected:
        if split is None:
            raise ValueError(f"{path}: no questions in the file")
        found = ", ".join(sorted(map(str, splits_found))) or "none"
        raise ValueError(f"{path}: no question has split {split!r} (splits found: {found})")


def normalize_question(raw, where):
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: expected a JSON object (one question), found {type(raw).__name__}")
    qid = raw.get("id")
    where = f"{where} (id {qid!r})" if qid is not None else where
    missing = [field for field in REQUIRED if raw.get(field) is None]
    if missing:
        raise ValueError(f"{where}: missing {', '.join(missing)}; a TempBench question needs {', '.join(REQUIRED)}")
    record = {}
    for field in STRINGS:
        value = raw.get(field)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{where}: {field} must be a string, found {value!r}")
        record[field] = value
    record["t_query"] = _year(raw["t_query"], f"{where}: t_query")
    extra = {key: value for key, value in raw.items() if key not in FEATURES}
    for field in TRIPLE_FIELDS:
        triples = raw.get(field)
        if triples is None:
            record[field] = None
            continue
        if not isinstance(triples, list):
            raise ValueError(f"{where}: {field} must be a list of triples, found {type(triples).__name__}")
        record[field] = [_triple(t, f"{field}[{i}]", where, extra) for i, t in enumerate(triples)]
    record["extra"] = json.dumps(extra, ensure_ascii=False, sort_keys=True)
    return record


def metric_inputs(questions):
    """The evaluate module's per-question inputs (all but `predictions`) from a loaded Dataset or records."""
    columns = ("S_star", "t_query", "complexity", "operator_type", "id")
    if isinstance(questions, datasets.Dataset):
        data = {column: list(questions[column]) for column in columns}
    else:
        data = {column: [q.get(column) for q in questions] for column in columns}
    data["references"] = data.pop("S_star")
    return data


def _triple(raw, path, where, extra):
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: {path} must be an object with s, r, o and/or s_id, r_id, o_id, found {raw!r}")
    triple = {}
    for key in TRIPLE_STRINGS:
        value = raw.get(key)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{where}: {path}.{key} must be a string, found {value!r}")
        triple[key] = value
    if None in (triple["s"], triple["r"], triple["o"]) and None in (triple["s_id"], triple["r_id"], triple["o_id"]):
        raise ValueError(f"{where}: {path} has neither s, r, o nor s_id, r_id, o_id (keys: {sorted(raw)})")
    for key in TRIPLE_TIMES:
        value = raw.get(key)
        triple[key] = None if value is None else _year(value, f"{where}: {path}.{key}")
    for key, value in raw.items():
        if key not in triple:
            extra[f"{path}.{key}"] = value
    return triple


def _year(value, what):
    try:
        if isinstance(value, bool):
            raise TypeError
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a year as a number (e.g. 1994.0), found {value!r}") from None
