"""The store's layout, checksums, locks and verified writes: what every host's files go through.

Layout: <store>/<benchmark>/<owner>/<repo>/<commit>/<path in the repository>, with
<store>/<benchmark>/SOURCE.md beside them; lock files live in <store>/.locks.
"""

import errno
import hashlib
import os
import pathlib
import tempfile
from collections.abc import Iterable, Iterator

from benchscore.core.registry import Source

_UMASK = os.umask(0o022)
os.umask(_UMASK)  # read once (umask cannot be read without setting it): stored files get 0666 & ~umask


class DataError(ValueError):
    """A data-store problem the user can act on (the CLI prints it as one line, exit status 2)."""


class OfflineError(DataError):
    """A file is missing and downloads are disabled."""


class ChecksumError(DataError):
    """A downloaded or stored file does not have its pinned sha256."""


def truthy(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def root() -> pathlib.Path:
    """The store folder: $BENCHSCORE_DATA, else <user cache dir>/benchscore/data."""
    configured = os.environ.get("BENCHSCORE_DATA")
    if configured:
        return pathlib.Path(configured).expanduser().absolute()
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(cache, "benchscore", "data").absolute()


def offline() -> bool:
    """True when no file may be fetched on first use (BENCHSCORE_OFFLINE=1 or HF_HUB_OFFLINE=1)."""
    return truthy("BENCHSCORE_OFFLINE") or truthy("HF_HUB_OFFLINE")


def fetch_command(name: str, option: str = "") -> str:
    """The command that fetches benchmark `name`'s files (with `option`, e.g. a file set's): what an error
    tells the user to run."""
    return f"benchscore data fetch {name}" + (f" {option}" if option else "")


def repo_dir(bench: Source, commit: str) -> pathlib.Path:
    """Where the store keeps `bench`'s repository at `commit` (its files at their repository paths)."""
    return root() / bench.name / bench.owner / bench.repo / commit


# ------------------------------------------------------------------ checksums


def file_chunks(f) -> Iterator[bytes]:
    return iter(lambda: f.read(1 << 20), b"")


def _hexdigest_of(path, digest) -> str:
    with open(path, "rb") as f:
        for chunk in file_chunks(f):
            digest.update(chunk)
    return digest.hexdigest()


def sha256_of(path: str | os.PathLike) -> str:
    return _hexdigest_of(path, hashlib.sha256())


def git_blob_sha1(path: str | os.PathLike) -> str:
    return _hexdigest_of(path, hashlib.sha1(f"blob {os.path.getsize(path)}\0".encode()))


def state(path: str | os.PathLike, sha256: str, size: int) -> str:
    """'present' (size and sha256 as pinned), 'missing' or 'corrupt'."""
    try:
        actual = os.path.getsize(path)
    except OSError:
        return "missing"
    if actual != size or sha256_of(path) != sha256:
        return "corrupt"
    return "present"


# ------------------------------------------------------------------ locks and verified writes


def lock(target: str | os.PathLike):
    """An inter-process lock for one store file (filelock), in <store>/.locks."""
    from filelock import FileLock

    locks = root() / ".locks"
    locks.mkdir(parents=True, exist_ok=True)
    return FileLock(str(locks / (hashlib.sha256(str(target).encode("utf-8")).hexdigest()[:32] + ".lock")))


def _remove_empty_dirs(directory, stop) -> None:
    """Removes `directory` and its parents up to (not including) `stop` while they are empty."""
    directory, stop = pathlib.Path(directory), pathlib.Path(stop)
    while directory != stop and stop in directory.parents:
        try:
            directory.rmdir()
        except OSError:
            return
        directory = directory.parent


def write_verified(target: str | os.PathLike, expected_sha: str | None, expected_size: int | None,
                   chunks: Iterable[bytes], what: str) -> str:
    """Writes `chunks` to a temporary file beside `target`, checks size and sha256, then moves it into place;
    returns the sha256 of what was written.

    On any failure (checksum, size, I/O, interruption) the temporary file is removed and nothing is left.
    """
    target = pathlib.Path(target)
    created = not target.parent.exists()
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name[:40]}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            digest, n = _write_chunks(out, chunks, expected_size, target, what)
        _check_pinned(digest, n, expected_sha, expected_size, what)
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes it private; a store may be shared
        os.replace(tmp, target)
    except BaseException:
        _discard(tmp, target.parent if created else None)
        raise
    return digest.hexdigest()


def _write_chunks(out, chunks, expected_size, target, what):
    """Writes `chunks` to `out` and syncs it; (sha256 digest, bytes). More than `expected_size` is an error."""
    digest, n = hashlib.sha256(), 0
    for chunk in chunks:
        n += len(chunk)
        if expected_size is not None and n > expected_size:
            raise ChecksumError(f"{what}: more than the pinned {expected_size} bytes; not the pinned file")
        digest.update(chunk)
        try:
            out.write(chunk)
        except OSError as err:
            raise _disk_error(err, target) from None
    try:
        out.flush()
        os.fsync(out.fileno())
    except OSError as err:
        raise _disk_error(err, target) from None
    return digest, n


def _check_pinned(digest, n, expected_sha, expected_size, what):
    if expected_size is not None and n != expected_size:
        raise ChecksumError(f"{what}: got {n} bytes, the pinned file has {expected_size} (truncated download?)")
    if expected_sha is not None and digest.hexdigest() != expected_sha:
        raise ChecksumError(f"{what}: sha256 {digest.hexdigest()} does not match the pinned {expected_sha}; "
                            "the file was not stored")


def _discard(tmp, created_dir):
    """Removes the temporary file `tmp`, and `created_dir` (made for it) up to the store if it is left empty."""
    try:
        os.unlink(tmp)
    except OSError:
        pass
    if created_dir is not None:
        _remove_empty_dirs(created_dir, root())


def _disk_error(err, target):
    if err.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return DataError(f"no space left to write {target} ({os.strerror(err.errno)}); nothing was stored. "
                         "Free some space or point BENCHSCORE_DATA at another disk")
    return DataError(f"cannot write {target}: {err.strerror or err}; nothing was stored")


def copy_verified(source: str | os.PathLike, target: str | os.PathLike, sha256: str, size: int, what: str) -> None:
    """Copies local `source` to `target`, checked against its pin, unless an intact copy is there."""
    with lock(target):
        if state(target, sha256, size) != "present":
            with open(source, "rb") as f:
                write_verified(target, sha256, size, file_chunks(f), what)


def write_source(bench: Source, header: list[str], files: list[tuple], licence: str) -> None:
    """<store>/<benchmark>/SOURCE.md: where the files come from, their licence, citation and sha256.
    `files`: (name, path in the repository, bytes, sha256) rows."""
    lines = [f"# {bench.title}", "", f"Source: {bench.source}", *header]
    lines += [f"Licence: {licence}", "", f"Cite: {bench.cite}", "", "```bibtex", bench.bibtex, "```", "",
              "| file | path in the repository | bytes | sha256 |", "| --- | --- | --- | --- |"]
    lines += [f"| {name} | {path} | {size} | {sha} |" for name, path, size, sha in files]
    text = ("\n".join(lines) + "\n").encode("utf-8")
    write_verified(root() / bench.name / "SOURCE.md", None, None, [text], f"{bench.name} SOURCE.md")
