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
# The splits the tasks read; each file's name in a data folder is the data store's (`File.shared`).
SPLITS = {"mctaco": ("validation", "test"),
          "webnlg": ("en", "en_seen", "en_unseen_entities", "en_unseen_categories", "ru")}


def official_file(benchmark, split, data_dir=None):
    """The path of `benchmark`'s official file for `split` (see the module docstring for the order)."""
    if split not in SPLITS.get(benchmark, ()):
        raise ValueError(f"no official file {benchmark!r}/{split!r}; expected one of "
                         + ", ".join(f"{b}/{s}" for b in SPLITS for s in SPLITS[b]))
    data_dir = data_dir or os.environ.get(ENVIRONMENT[benchmark])
    if not data_dir:
        # The data store: fetched on first use, or an error naming `benchscore data fetch` when offline.
        return str(data.resolve(benchmark, f"official:{split}"))
    bench = data.benchmark(benchmark)
    path = os.path.join(data_dir, bench.files[bench.aliases.get(split, split)].shared)
    if not os.path.isfile(path):
        raise ValueError(f"{path}: no such file; expected the official {benchmark} {split} file there")
    return path
