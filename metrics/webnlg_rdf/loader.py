"""WebNLG XML -> plain rows or a `datasets.Dataset` (work in progress).

API (stable): `read_references(path)`, `read_candidates(path)`, `load_dataset(references_path, candidates_path=None)`.
"""


def read_references(path):
    """Per entry in file order: {"eid", "category", "size", "triples", "lexicalisations"}."""
    raise NotImplementedError


def read_candidates(path):
    """Per entry in file order: {"eid" (or None), "triples"}."""
    raise NotImplementedError


def load_dataset(references_path, candidates_path=None):
    """One row per entry: eid, category, size, references, predictions (if candidates), lexicalisations."""
    raise NotImplementedError
