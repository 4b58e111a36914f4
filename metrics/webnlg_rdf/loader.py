"""WebNLG XML -> a `datasets.Dataset` with explicit `Features`, read through `files.py` (the same
parsing, pairing and `FILE:LINE:` errors as the CLI and the Space); usage: the card's "Files and loader"."""

import os

import datasets

from benchscore.webnlg_rdf import files


def dataset_features(with_predictions=True):
    """The explicit `datasets.Features` of `load_dataset`'s rows. (`datasets` is imported here, not at
    module level: it takes seconds to import, and the CLI's XML reading does not need it.)"""
    import datasets

    features = {
        "eid": datasets.Value("string"),
        "category": datasets.Value("string"),
        "size": datasets.Value("int32"),
        "references": datasets.List(datasets.Value("string")),
        "predictions": datasets.List(datasets.Value("string")),
        "lexicalisations": datasets.List(datasets.Value("string")),
    }
    if not with_predictions:
        del features["predictions"]
    return datasets.Features(features)


def load_dataset(references_path: str | os.PathLike, candidates_path: str | os.PathLike | None = None) -> datasets.Dataset:
    """One row per reference entry: eid, category, size, references, lexicalisations, and predictions
    (the candidate triples of the entry at the same position) when `candidates_path` is given."""
    from datasets import Dataset

    if candidates_path is None:
        rows = [{**row, "references": row["triples"]} for row in files.read_references(references_path)]
    else:
        rows = [{**reference, "references": reference["triples"], "predictions": candidate["triples"]}
                for reference, candidate in zip(*files.read_pair(references_path, candidates_path))]
    features = dataset_features(with_predictions=candidates_path is not None)
    return Dataset.from_dict({name: [row[name] for row in rows] for name in features}, features=features)
