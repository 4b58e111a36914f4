"""The GitHub host: a repository's raw files at a pinned commit, each checked against its recorded
sha256 before it is moved into the store and again before it is used; a file set (many files named
by a manifest in the benchmark's folder) on request."""

import hashlib
import json
import os
import pathlib
import sys
import urllib.parse
from collections.abc import Iterator

from benchscore.core.registry import File, FileSet, Source

from . import store
from .store import ChecksumError, DataError

GITHUB_RAW = "https://raw.githubusercontent.com"


def mirror() -> str:
    """The base URL GitHub raw files are fetched from ($BENCHSCORE_DATA_MIRROR or GitHub's)."""
    base = os.environ.get("BENCHSCORE_DATA_MIRROR") or GITHUB_RAW
    if urllib.parse.urlsplit(base).scheme not in ("http", "https"):
        raise DataError(f"BENCHSCORE_DATA_MIRROR must be an http:// or https:// URL, found {base!r}")
    return base.rstrip("/")


def directory(bench: Source) -> pathlib.Path:
    return store.repo_dir(bench, _commit(bench))


def _commit(bench: Source) -> str:
    if bench.commit is None:  # the registry refuses a GitHub source without one
        raise DataError(f"{bench.name}: a GitHub source pins no commit")
    return bench.commit


def path(bench: Source, file_name: str) -> pathlib.Path:
    return directory(bench) / bench.files[file_name].path


def expected(bench: Source, file_name: str) -> tuple[str, int]:
    """(sha256, size) the store's copy of `file_name` must have."""
    entry = bench.files[file_name]
    return entry.sha256, entry.size


def _url(bench, repo_path):
    return f"{mirror()}/{bench.owner}/{bench.repo}/{bench.commit}/{urllib.parse.quote(repo_path)}"


def _url_plain(bench, repo_path):
    return f"{GITHUB_RAW}/{bench.owner}/{bench.repo}/{bench.commit}/{repo_path}"


def fetch_file(bench: Source, entry: File, force: bool = False, progress: bool = True) -> pathlib.Path:
    """One pinned file into the store (locked, verified, atomic). Returns its path."""
    target = directory(bench) / entry.path
    what = f"{bench.name} {entry.path}"
    with store.lock(target):
        if not force and store.state(target, entry.sha256, entry.size) == "present":
            return target
        from . import http  # the network's modules (http.client, ssl, email) load only to fetch: ~8 MiB

        url = _url(bench, entry.path)
        with http.progress_bar(entry.size, os.path.basename(entry.path)[:40], progress) as bar:
            store.write_verified(target, entry.sha256, entry.size, http.chunks(url, what, bar), what)
    return target


def fetch(bench: Source, names: list[str], sets: list[FileSet], force: bool,
          progress: bool) -> Iterator[tuple[str, str]]:
    """The pinned files `names` (and the file sets `sets`, with the files they need) into the store:
    (name, path) as each one is stored."""
    for file_set in sets:
        names = names + [n for n in file_set.needs if n not in names]
    for n in names:
        yield n, str(fetch_file(bench, bench.files[n], force, progress))
    for file_set in sets:
        yield file_set.name, str(_fetch_set(bench, file_set, force, progress))


def _fetch_set(bench, file_set, force, progress):
    from concurrent.futures import ThreadPoolExecutor

    from tqdm import tqdm

    if file_set.listed_in:
        _check_listing(path(bench, file_set.listed_in), file_set)
    entries = file_set.files
    with tqdm(total=len(entries), desc=f"{bench.name} {file_set.words}", unit="file", file=sys.stderr,
              disable=None if progress else True) as bar, ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(fetch_file, bench, entry, force, False) for entry in entries]
        try:
            for future in futures:
                future.result()
                bar.update(1)
        except BaseException:
            for future in futures:
                future.cancel()  # the files not started yet; the ones in flight finish or clean up
            raise
    if _concatenated_sha256(directory(bench), entries) != file_set.concatenated_sha256:
        raise ChecksumError(f"{bench.name} {file_set.words}: the sha256 of the {len(entries)} files concatenated "
                            "does not match the one recorded at the source")
    return directory(bench) / file_set.folder


def _check_listing(listing_path, file_set):
    """The names a pinned file lists must be the manifest's (the list comes from a pinned file)."""
    with open(listing_path, encoding="utf-8") as f:
        names = sorted(entry[file_set.listed_key] for entry in json.load(f))
    listed = sorted(entry.path.rsplit("/", 1)[1] for entry in file_set.files)
    if names != listed:
        raise ChecksumError(f"{listing_path} lists other {file_set.words} than the pinned manifest "
                            f"{os.path.basename(file_set.manifest)}")


def _concatenated_sha256(folder, entries):
    digest = hashlib.sha256()
    for entry in sorted(entries, key=lambda e: e.path.encode("utf-8")):
        with open(folder / entry.path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()


def set_folder(bench: Source, file_set: FileSet) -> pathlib.Path:
    return directory(bench) / file_set.folder


def set_complete(bench: Source, file_set: FileSet) -> bool:
    folder = directory(bench)
    return all(store.state(folder / e.path, e.sha256, e.size) == "present" for e in file_set.files)


def status(bench: Source) -> list[dict]:
    """One row per pinned file, and one per file set with counts per state."""
    rows = []
    for file_name, entry in bench.files.items():
        target = directory(bench) / entry.path
        rows.append({"benchmark": bench.name, "file": file_name, "state": store.state(target, entry.sha256, entry.size),
                     "size": entry.size, "path": str(target), "source": _url_plain(bench, entry.path)})
    rows += [_set_status(bench, file_set) for file_set in bench.file_sets.values()]
    return rows


def _set_status(bench, file_set):
    states = [store.state(directory(bench) / e.path, e.sha256, e.size) for e in file_set.files]
    counts = {s: states.count(s) for s in ("present", "missing", "corrupt")}
    state = ("present" if counts["present"] == len(states) else
             "corrupt" if counts["corrupt"] else "missing" if not counts["present"] else "partial")
    return {"benchmark": bench.name, "file": file_set.name, "state": state,
            "size": sum(e.size for e in file_set.files), "path": str(set_folder(bench, file_set)),
            "source": _url_plain(bench, file_set.folder) + "/" + file_set.pattern, "counts": counts,
            "optional": True}


def source_rows(bench: Source) -> tuple[list[str], list[tuple]]:
    """SOURCE.md's header lines and (name, path, bytes, sha256) rows."""
    rows = [(n, f"`{e.path}`", e.size, e.sha256) for n, e in bench.files.items()]
    for s in bench.file_sets.values():
        rows.append((f"{s.name} (with {s.option})", f"`{s.folder}/{s.pattern}` ({len(s.files)} files)",
                     sum(e.size for e in s.files), f"concatenated: {s.concatenated_sha256}"))
    return [], rows


def fill(bench: Source, directory_: pathlib.Path, sets: list[FileSet]) -> list[str]:
    """The file names of `bench` stored from a local copy (each once, in order); absent ones are skipped.

    A file is looked for as ../shared/data lays it out (<benchmark>/<shared name>) and as a mirror does
    (<owner>/<repo>/<commit>/<path in the repository>)."""
    entries = list(bench.files.items())
    for file_set in sets:
        entries += [(file_set.name, e) for e in file_set.files]
    stored = []
    for file_name, entry in entries:
        candidates = [directory_ / bench.name / entry.shared,
                      directory_ / bench.owner / bench.repo / _commit(bench) / entry.path]
        source = next((c for c in candidates if c.is_file()), None)
        if source is None:
            continue
        store.copy_verified(source, directory(bench) / entry.path, entry.sha256, entry.size, f"{bench.name} {source}")
        if file_name not in stored:
            stored.append(file_name)
    return stored
