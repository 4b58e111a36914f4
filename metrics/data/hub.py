"""The Hub host: a dataset repository fetched with `huggingface_hub` at a revision the user can pin
(default: the newest), each file checked against the Hub's own checksum (its ETag), and the
resolved commit recorded in <store>/<benchmark>/revision.json with the sha256 of every file."""

import json
import os
import pathlib
import re
import shutil
import tempfile
import time

from benchscore.core.registry import Source

from . import store
from .store import ChecksumError, DataError, OfflineError


def _record_path(bench):
    return store.root() / bench.name / "revision.json"


def record(bench: Source) -> dict | None:
    """The revision record of the store's copy, None before the first fetch."""
    path = _record_path(bench)
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return None
    except ValueError:
        raise DataError(f"{path} is not valid JSON; run `{store.fetch_command(bench.name)}` again") from None


def directory(bench: Source, commit: str | None = None) -> pathlib.Path:
    """The store's copy at `commit` (default: the recorded one; an OfflineError when there is none)."""
    if commit is None:
        found = record(bench)
        if not found or not found.get("commit"):
            raise OfflineError(f"{_title(bench)} is not in the store ({store.root()}); run `{store.fetch_command(bench.name)}`")
        commit = found["commit"]
    return store.repo_dir(bench, commit)


def path(bench: Source, file_name: str) -> pathlib.Path:
    return directory(bench) / bench.files[file_name]


def expected(bench: Source, file_name: str) -> tuple[str, int] | None:
    """(sha256, size) recorded when `file_name` was fetched, or None when it never was."""
    info = (record(bench) or {}).get("files", {}).get(file_name)
    return (info["sha256"], info["size"]) if info else None


def _title(bench):
    import benchscore

    return benchscore.benchmark(bench.name).title


def fetch(bench: Source, names: list[str], revision: str | None = None, force: bool = False,
          progress: bool = True) -> dict[str, str]:
    """The files `names` at `revision` (default $BENCHSCORE_<NAME>_REVISION or main)."""
    if store.truthy("HF_HUB_OFFLINE"):
        raise OfflineError(f"{_title(bench)} is fetched from the Hugging Face Hub, and HF_HUB_OFFLINE=1 is set; "
                           f"unset it to run `{store.fetch_command(bench.name)}`")
    _check_hub_installed(bench)
    requested = revision or os.environ.get(bench.revision_env) or "main"
    repo_id = f"{bench.owner}/{bench.repo}"
    root = store.root()
    root.mkdir(parents=True, exist_ok=True)
    cache = tempfile.mkdtemp(dir=root, prefix=".hub-")
    commit, fetched = None, {}
    try:
        for name in names:
            local = _download(bench, name, commit or requested, cache)
            if local is None:
                continue
            commit = pathlib.Path(local).relative_to(cache).parts[2]  # datasets--<owner>--<repo>/snapshots/<commit>
            fetched[name] = _store_file(bench, bench.files[name], local, commit)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    _write_record(bench, {"repo": repo_id, "requested": requested, "commit": commit,
                          "fetched_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "files": fetched})
    return {name: str(directory(bench, commit) / bench.files[name]) for name in fetched}


def _check_hub_installed(bench):
    try:
        import huggingface_hub  # noqa: F401
        import huggingface_hub.errors  # noqa: F401
    except ImportError:  # pragma: no cover - huggingface_hub comes with datasets
        raise DataError(f"fetching {_title(bench)} needs huggingface_hub (pip install huggingface_hub)") from None


def _download(bench, name, revision, cache):
    """The local path of file `name` at `revision` downloaded into `cache`; None for a missing optional
    file; a DataError naming the file and revision for any other failure."""
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import (
        HfHubHTTPError,
        LocalEntryNotFoundError,
        RemoteEntryNotFoundError,
        RevisionNotFoundError,
    )

    filename, repo_id = bench.files[name], f"{bench.owner}/{bench.repo}"
    try:
        return hf_hub_download(repo_id, filename, repo_type="dataset", revision=revision, cache_dir=cache)
    except LocalEntryNotFoundError:  # the Hub did not answer (nothing is read from any cache here)
        from huggingface_hub import constants

        raise DataError(f"{bench.name}: cannot reach the Hub at {constants.ENDPOINT} to fetch {filename}; "
                        "check the network (or HF_ENDPOINT)") from None
    except RemoteEntryNotFoundError:
        if name in bench.optional:
            return None
        raise DataError(f"{bench.name}: {filename} is not in {repo_id} at revision {revision}") from None
    except RevisionNotFoundError:
        raise DataError(f"{bench.name}: {repo_id} has no revision {revision!r}") from None
    except HfHubHTTPError as err:
        raise DataError(f"{bench.name}: {repo_id} {filename} at {revision}: {err}".splitlines()[0]) from None
    except (OSError, ValueError) as err:
        raise DataError(f"{bench.name}: cannot fetch {filename} from {repo_id} at {revision}: "
                        f"{str(err).splitlines()[0] if str(err) else type(err).__name__}") from None


def _check_checksum(bench, filename, blob, etag):
    """The Hub's ETag is the file's sha256 (LFS) or its git blob sha1: checks the bytes against it."""
    if re.fullmatch(r"[0-9a-f]{64}", etag):
        ok = store.sha256_of(blob) == etag
    elif re.fullmatch(r"[0-9a-f]{40}", etag):
        ok = store.git_blob_sha1(blob) == etag
    else:
        raise ChecksumError(f"{bench.name}: {filename}: the Hub gave no checksum (ETag {etag!r}); not stored")
    if not ok:
        raise ChecksumError(f"{bench.name}: {filename}: the downloaded bytes do not match the Hub's checksum "
                            f"{etag}; nothing was stored")


def _store_file(bench, filename, local, commit):
    """Checks the downloaded `local` against the Hub's checksum and stores it; its record entry."""
    blob = os.path.realpath(local)
    etag = os.path.basename(blob)
    _check_checksum(bench, filename, blob, etag)
    target = directory(bench, commit) / filename
    with store.lock(target), open(blob, "rb") as f:
        size = os.path.getsize(blob)
        sha256 = store.write_verified(target, None, size, store.file_chunks(f), f"{bench.name} {filename}")
    return {"path": filename, "sha256": sha256, "size": size, "etag": etag}


def _write_record(bench, new):
    """Writes revision.json, keeping the files fetched before at the same commit."""
    path = _record_path(bench)
    with store.lock(path):
        previous = record(bench)
        if previous and previous.get("commit") == new["commit"]:
            new["files"] = {**previous.get("files", {}), **new["files"]}
        text = json.dumps(new, indent=1, ensure_ascii=False).encode("utf-8")
        store.write_verified(path, None, None, [text], f"{bench.name} revision.json")


def revision_of(bench: Source, path: str | os.PathLike) -> str | None:
    """'<owner>/<repo>@<commit>' for a file of the store's copy of `bench`, else None."""
    try:
        relative = pathlib.Path(os.path.abspath(path)).relative_to(store.root() / bench.name / bench.owner / bench.repo)
    except ValueError:
        return None
    if len(relative.parts) < 2 or not re.fullmatch(r"[0-9a-f]{40}", relative.parts[0]):
        return None
    return f"{bench.owner}/{bench.repo}@{relative.parts[0]}"


def status(bench: Source) -> list[dict]:
    """The rows of the files, from revision.json (missing where it has no record of them)."""
    found = record(bench)
    rows = []
    for file_name, repo_path in bench.files.items():
        row = {"benchmark": bench.name, "file": file_name, "source": f"{bench.source} {repo_path}",
               "state": "missing", "size": None, "path": None}
        info = (found or {}).get("files", {}).get(file_name)
        if found and info:
            row["path"] = str(directory(bench, found["commit"]) / repo_path)
            row["size"] = info["size"]
            row["state"] = store.state(row["path"], info["sha256"], info["size"])
            row["revision"] = f"{found['commit']} (asked: {found['requested']})"
        rows.append(row)
    return rows


def source_rows(bench: Source) -> tuple[list[str], list[tuple]]:
    """SOURCE.md's header lines (the revision) and (name, path, bytes, sha256) rows of the fetched files."""
    found = record(bench) or {}
    header = [f"Revision: {found.get('commit')} (asked for: {found.get('requested')}, "
              f"fetched {found.get('fetched_at')})"]
    rows = [(n, f"`{bench.files[n]}`", info["size"], info["sha256"]) for n, info in found.get("files", {}).items()]
    return header, rows

