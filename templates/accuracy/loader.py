"""The template's files -> `datasets.Dataset`s: the gold items with the label as a `ClassLabel`
(ids for a classifier), read through `files` (same checks, same errors)."""

import os

import datasets

from . import files


def load_dataset(path: str | os.PathLike, labels: list[str] | None = None, split: str = "test") -> datasets.Dataset:
    """The gold items of a JSONL file (or `official:<split>`) as a Dataset: "id" (string) and "label"
    (a ClassLabel of `labels`, default the gold labels sorted)."""
    items = files.read_references(path)
    names = sorted({item["label"] for item in items}) if labels is None else list(labels)
    unknown = next((item for item in items if item["label"] not in names), None)
    if unknown is not None:
        raise ValueError(f"{path}: item {unknown['id']!r} has label {unknown['label']!r}, which is not among the "
                         f"labels {names}")
    features = datasets.Features({"id": datasets.Value("string"), "label": datasets.ClassLabel(names=names)})
    return datasets.Dataset.from_dict({"id": [item["id"] for item in items],
                                       "label": [item["label"] for item in items]}, features=features, split=split)
