"""The official benchmark files, pinned, checksummed and cached: `benchscore data ...` and `official:<split>`.

    benchscore data fetch <benchmark>          # its official files, each checked before it is stored
    benchscore <benchmark> --gold official:test ...

Each benchmark folder declares its official data in its `benchmark.toml` (`benchscore.BENCHMARKS`):
where it is hosted, its files and their pins, licence, citation, split names and file sets. This
package knows the hosts, not the benchmarks: a GitHub repository's raw files at a pinned commit
(`github`: each file checked against its recorded sha256 before it is moved into the store and again
before it is used), or a Hub dataset (`hub`: fetched with `huggingface_hub` at a revision the user can
pin, default the newest, each file checked against the Hub's own checksum, the resolved commit
recorded in the store). `store` is the layout, locks and verified writes they share.

Environment:
    BENCHSCORE_DATA          the store (default: $XDG_CACHE_HOME/benchscore/data, ~/.cache/benchscore/data)
    BENCHSCORE_DATA_MIRROR   replaces https://raw.githubusercontent.com; same layout,
                             <owner>/<repo>/<commit>/<path in the repository>
    BENCHSCORE_OFFLINE=1     never download (HF_HUB_OFFLINE=1 too, for files fetched on first use)
    BENCHSCORE_<NAME>_REVISION   the revision of a Hub-hosted benchmark to fetch (default: main)

Store layout: <store>/<benchmark>/<owner>/<repo>/<commit>/<path in the repository>, with
<store>/<benchmark>/SOURCE.md (source, licence, citation, files and sha256) beside them; a Hub
dataset also has <store>/<benchmark>/revision.json (the revision asked for, the commit it resolved
to and the sha256 of every file). Lock files live in <store>/.locks.

Only `fetch` (and `resolve` of a missing `official:` file, unless offline) touches the network.
"""

import os
import pathlib
import re
import sys

import benchscore
from benchscore.core.registry import FileSet, Source

from . import github, hub, store
from .store import ChecksumError, DataError, OfflineError, offline, root, sha256_of

__all__ = ["BENCHMARKS", "PREFIX", "ChecksumError", "DataError", "OfflineError", "benchmark", "fetch",
           "fetch_command", "file_set", "hosted_on", "fill_from", "licence", "offline", "path", "present", "resolve",
           "resolve_split", "revision_of", "root", "set_complete", "sha256_of", "signature_fields", "splits",
           "status"]

PREFIX = "official:"
# Each benchmark's official data is declared in its folder (`<folder>/benchmark.toml`): name -> Source.
BENCHMARKS = {name: b.data for name, b in benchscore.BENCHMARKS.items()}
ALIASES = {b.folder: b.name for b in benchscore.BENCHMARKS.values() if b.folder != b.name}  # folder names
_HOSTS = {"github": github, "hub": hub}


def _host(bench: Source):
    return _HOSTS[bench.host]


def hosted_on(host: str) -> str:
    """The names of the benchmarks hosted on `host` (e.g. "hub"), for a message."""
    return ", ".join(name for name, bench in BENCHMARKS.items() if bench.host == host)


def benchmark(name: str) -> Source:
    """The official data (`Source`) of a benchmark, by its name or its folder's."""
    key = ALIASES.get(name, name)
    if key not in BENCHMARKS:
        raise DataError(f"unknown benchmark {name!r}; expected one of {', '.join(BENCHMARKS)}")
    return BENCHMARKS[key]


def file_set(name: str, set_name: str) -> FileSet | None:
    """The file set `set_name` of a benchmark, None if it has no such set."""
    return benchmark(name).file_sets.get(set_name)


def _sets_named(set_name: str) -> str:
    """The names of the benchmarks that have a file set `set_name`, for a message."""
    return ", ".join(name for name, bench in BENCHMARKS.items() if set_name in bench.file_sets)


def splits(name: str) -> list[str]:
    """The names accepted after `official:` for a benchmark (its files, split aliases included)."""
    bench = benchmark(name)
    return list(bench.files) + list(bench.aliases) + list(bench.field_splits)


def fetch_command(name: str, split: str | None = None) -> str:
    """The command that fetches `split` of `name` (what an offline error tells the user to run)."""
    bench = benchmark(name)
    return store.fetch_command(bench.name, bench.file_sets[split].option if split in bench.file_sets else "")


def _file_name(bench: Source, split: str) -> str:
    if split in bench.files:
        return split
    if split in bench.aliases:
        return bench.aliases[split]
    if split in bench.field_splits:
        return bench.field_splits[split][0]
    raise DataError(f"{bench.name} has no official file {split!r}; expected one of {', '.join(splits(bench.name))}")


# ------------------------------------------------------------------ fetch, locate, check


def fetch(name: str, files: list[str] | None = None, *, sets: tuple[str, ...] = (), revision: str | None = None,
          force: bool = False, progress: bool = True) -> dict[str, str]:
    """Downloads a benchmark's official files (default: its `default` files, no file set) into the store.

    Each file is checked against its pin (a Hub dataset's: the Hub's checksum) and moved into place
    atomically; files already present and intact are not downloaded again (unless `force`). `sets`
    names file sets to fetch too; `revision` pins a Hub dataset's revision. Returns {file name: path}.
    """
    bench = benchmark(name)
    if store.truthy("BENCHSCORE_OFFLINE"):
        raise OfflineError("BENCHSCORE_OFFLINE=1 is set: no download; unset it to fetch")
    names = list(bench.default) if files is None else [_file_name(bench, f) for f in files]
    names = list(dict.fromkeys(names))
    if bench.host == "hub":
        paths = hub.fetch(bench, names, revision, force, progress)
        _write_source(bench)
        return paths
    _check_github_options(bench, revision, sets)
    paths = {}
    try:
        for file_name, stored in github.fetch(bench, names, [bench.file_sets[s] for s in sets], force, progress):
            paths[file_name] = stored
    finally:
        if paths:  # SOURCE.md once any file came
            _write_source(bench)
    return paths


def _check_github_options(bench, revision, sets):
    if revision is not None:
        raise DataError(f"--revision applies to {hosted_on('hub')} only; {bench.name} is pinned to commit {bench.commit}")
    for set_name in sets:
        if set_name not in bench.file_sets:
            option = "--with-" + set_name.replace("_", "-")
            raise DataError(f"{option} applies to {_sets_named(set_name) or 'no benchmark'} only")


def path(name: str, split: str) -> str:
    """Where the store keeps `split` of benchmark `name` (present or not; see `status`)."""
    bench = benchmark(name)
    if split in bench.file_sets:
        return str(github.set_folder(bench, bench.file_sets[split]))
    return str(_host(bench).path(bench, _file_name(bench, split)))


def set_complete(name: str, set_name: str) -> bool:
    """True when every file of the file set is in the store, intact."""
    bench = benchmark(name)
    return github.set_complete(bench, bench.file_sets[set_name])


def present(name: str, split: str) -> str:
    """The verified store path of `split`, or an error saying what is wrong and what to run."""
    bench = benchmark(name)
    file_name = _file_name(bench, split)
    expected = _host(bench).expected(bench, file_name)
    if expected is None:
        raise OfflineError(f"{bench.name} {split} is not in the store ({root()}); run `{fetch_command(name)}`")
    target = path(name, split)
    state = store.state(target, *expected)
    if state == "missing":
        raise OfflineError(f"{bench.name} {split} is not in the store ({target}); run `{fetch_command(name)}`")
    if state == "corrupt":
        raise ChecksumError(f"{target} does not match its pinned sha256 (corrupt); run "
                            f"`{fetch_command(name)} --force`")
    return target


# ------------------------------------------------------------------ official:<split>


def resolve(name: str, value):
    """`value` unchanged unless it starts with 'official:'; then the local path of that official file.

    `official:<split>` names a file of the benchmark (`benchscore data list` shows them); `official:`
    alone is the folder of the store holding the benchmark's files at their repository paths (its
    `data_dir`); `official:<file set>` that folder with the set's files. A missing file is fetched on
    first use (with a progress bar) unless offline (BENCHSCORE_OFFLINE=1 or HF_HUB_OFFLINE=1), where
    the error names the `benchscore data fetch` command. A stored file is checked against its sha256
    before it is returned.
    """
    if not isinstance(value, str) or not value.startswith(PREFIX):
        return value
    split = value[len(PREFIX):]
    bench = benchmark(name)
    if split == "" or split in bench.file_sets or split in _all_set_names():
        return _resolve_folder(bench, split)
    return _resolve_file(bench, split)


def _all_set_names():
    return {s for bench in BENCHMARKS.values() for s in bench.file_sets}


def _resolve_folder(bench, split):
    """`official:` (split '') or `official:<file set>`: the store folder, its files fetched first if missing."""
    for f in bench.default:
        if f not in bench.optional:
            _resolve_file(bench, f)
    if split:
        _resolve_set(bench, split)
    return str(_host(bench).directory(bench) / bench.data_dir)


def _resolve_set(bench, set_name):
    if set_name not in bench.file_sets:
        raise DataError(f"{PREFIX}{set_name} is a {_sets_named(set_name)} folder; {bench.name} has none")
    if not github.set_complete(bench, bench.file_sets[set_name]):
        _fetch_on_first_use(bench, set_name, lambda: fetch(bench.name, [], sets=(set_name,)))


def _resolve_file(bench, split):
    try:
        return present(bench.name, split)
    except ChecksumError:
        if offline():
            raise
    except OfflineError:
        pass
    _fetch_on_first_use(bench, split, lambda: fetch(bench.name, [split]))
    return present(bench.name, split)


def _fetch_on_first_use(bench, split, do_fetch):
    if offline():
        why = "BENCHSCORE_OFFLINE=1" if store.truthy("BENCHSCORE_OFFLINE") else "HF_HUB_OFFLINE=1"
        raise OfflineError(f"{PREFIX}{split} of {bench.name} is not in the store ({root()}) and {why} forbids "
                           f"downloading it; run `{fetch_command(bench.name, split)}` first")
    print(f"benchscore: fetching the official {bench.name} files into {root()}", file=sys.stderr)
    do_fetch()


def resolve_split(name: str, value, split: str | None = None) -> tuple:
    """(path, split) for a question file that carries its own split field (the benchmark's `field_splits`).

    `official:test` may be a file restricted to its split "test"; a plain path, or `official:<file>`,
    keeps `split`. A `split` that contradicts the one in `value` is an error.
    """
    resolved = resolve(name, value)
    if isinstance(value, str) and value.startswith(PREFIX):
        implied = benchmark(name).field_splits.get(value[len(PREFIX):], (None, None))[1]
        if implied is not None:
            if split is not None and split != implied:
                raise DataError(f"{value} is the {implied!r} split, but split {split!r} was asked for")
            split = implied
    return resolved, split


def revision_of(path: str | os.PathLike) -> str | None:
    """'<owner>/<repo>@<commit>' for a file of the store's copy of a Hub dataset, else None."""
    found = (hub.revision_of(bench, path) for bench in BENCHMARKS.values() if bench.host == "hub")
    return next((r for r in found if r is not None), None)


def signature_fields(path: str | os.PathLike) -> dict[str, str]:
    """{"data": "<owner>/<repo>@<commit 12>"} for a result scored from the store's copy of a Hub dataset, else {}."""
    revision = revision_of(path)
    return {} if revision is None else {"data": revision[: revision.index("@") + 13]}


# ------------------------------------------------------------------ status, licence, SOURCE.md, import


def status(names: list[str] | None = None) -> list[dict]:
    """One dict per official file: benchmark, file, state (present/missing/corrupt), size, path, source."""
    rows = []
    for name in names or BENCHMARKS:
        bench = benchmark(name)
        rows += _host(bench).status(bench)
    return rows


def _yaml_licence(path):
    """The `license:` of a file's YAML header (a dataset card's), if any."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(20000)
    except OSError:
        return None
    header = re.match(r"---\s*\n(.*?)\n---", text, re.S)
    found = re.search(r"^licen[sc]e:\s*(\S.*)$", header.group(1), re.M) if header else None
    return found.group(1).strip().strip("'\"") if found else None


def licence(name: str) -> str:
    """The licence of a benchmark's data, as recorded (or read from its fetched `licence_file`)."""
    bench = benchmark(name)
    if bench.licence_file:
        try:
            found = _yaml_licence(path(bench.name, bench.licence_file))
        except DataError:
            found = None
        if found:
            return f"{found} (from the dataset card)"
    return bench.licence


def _write_source(bench):
    header, files = _host(bench).source_rows(bench)
    store.write_source(bench, header, files, licence(bench.name))


def fill_from(directory: str | os.PathLike, names: list[str] | None = None, *,
              skip_sets: tuple[str, ...] = ()) -> dict[str, list[str]]:
    """Fills the store from a local copy of the files (no network), each checked against its sha256.

    `directory` is laid out like ../shared/data (<benchmark>/<file as there>: a File's `shared` name)
    or like a mirror (<owner>/<repo>/<commit>/<path in the repository>). Files that are absent there
    are skipped, as are the file sets named in `skip_sets`; a file that is there with another sha256 is
    an error. A Hub dataset has no pinned checksums and is not filled this way. Returns
    {benchmark: [file names stored]}.
    """
    directory = pathlib.Path(directory)
    if not directory.is_dir():
        raise DataError(f"{directory} is not a folder")
    stored = {}
    for name in names or [n for n, b in BENCHMARKS.items() if b.host == "github"]:
        bench = benchmark(name)
        if bench.host == "hub":
            raise DataError(f"{bench.name} has no pinned checksums to fill the store with; run "
                            f"`{fetch_command(bench.name)}`")
        sets = [s for n, s in bench.file_sets.items() if n not in skip_sets]
        files = github.fill(bench, directory, sets)
        if files:
            stored[bench.name] = files
            _write_source(bench)
    return stored
