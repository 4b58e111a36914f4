"""Where a harness task finds the official benchmark files: one small function, `official_file`.

Order: an explicit `data_dir` (a task's `--metadata '{"data_dir": ...}'`), then the environment
variable (`BENCHSCORE_MCTACO_DIR`, `BENCHSCORE_WEBNLG_DIR`), then benchscore's official-file store
(`benchscore data fetch mctaco webnlg`; `official:<split>`). A data folder is laid out as the official
releases: MC-TACO `dev_3783.tsv`, `test_9442.tsv`; WebNLG `references/en_all.xml`,
`references/en_seen.xml`, `references/en_unseen_entities.xml`, `references/en_unseen_categories.xml`,
`references/ru_all.xml` (the 2020 text-to-RDF test files with references, renamed without spaces).
Never a loading-script Hub repository.
"""

import os

from benchscore import data

ENVIRONMENT = {"mctaco": "BENCHSCORE_MCTACO_DIR", "webnlg": "BENCHSCORE_WEBNLG_DIR"}
FILES = {
    "mctaco": {"validation": "dev_3783.tsv", "test": "test_9442.tsv"},
    "webnlg": {
        "en": "references/en_all.xml",
        "en_seen": "references/en_seen.xml",
        "en_unseen_entities": "references/en_unseen_entities.xml",
        "en_unseen_categories": "references/en_unseen_categories.xml",
        "ru": "references/ru_all.xml",
    },
}


def official_file(benchmark, split, data_dir=None):
    """The path of `benchmark`'s official file for `split` (see the module docstring for the order)."""
    if split not in FILES.get(benchmark, {}):
        raise ValueError(f"no official file {benchmark!r}/{split!r}; expected one of "
                         + ", ".join(f"{b}/{s}" for b in FILES for s in FILES[b]))
    data_dir = data_dir or os.environ.get(ENVIRONMENT[benchmark])
    if not data_dir:
        # The data store: fetched on first use, or an error naming `benchscore data fetch` when offline.
        return str(data.resolve(benchmark, f"official:{split}"))
    path = os.path.join(data_dir, FILES[benchmark][split])
    if not os.path.isfile(path):
        raise ValueError(f"{path}: no such file; expected the official {benchmark} {split} file there")
    return path
