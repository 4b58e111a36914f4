"""The official benchmark files, pinned, checksummed and cached: `benchscore data ...` and `official:<split>`.

    benchscore data fetch mctaco            # CogComp/MCTACO dev/test at a pinned commit, sha256-checked
    benchscore mctaco --gold official:test --predictions preds.txt

MC-TACO, WebNLG+ 2020 text-to-RDF and TSVer come from their GitHub repositories as raw files at a
pinned commit, each checked against its recorded sha256 before it is moved into the store and
again before it is used. TempBench is published only as a Hub dataset (`Guen/tempbench`): it is
fetched with `huggingface_hub` at a revision the user can pin (default: the newest), each file
checked against the Hub's own checksum (its ETag), and the resolved commit recorded in the store.

Environment:
    BENCHSCORE_DATA          the store (default: $XDG_CACHE_HOME/benchscore/data, ~/.cache/benchscore/data)
    BENCHSCORE_DATA_MIRROR   replaces https://raw.githubusercontent.com; same layout,
                             <owner>/<repo>/<commit>/<path in the repository>
    BENCHSCORE_OFFLINE=1     never download (HF_HUB_OFFLINE=1 too, for files fetched on first use)
    BENCHSCORE_TEMPBENCH_REVISION   the TempBench revision to fetch (default: main)

Store layout: <store>/<benchmark>/<owner>/<repo>/<commit>/<path in the repository>, with
<store>/<benchmark>/SOURCE.md (source, licence, citation, files and sha256) beside them; TempBench
also has <store>/tempbench/revision.json (the revision asked for, the commit it resolved to and the
sha256 of every file). Lock files live in <store>/.locks.

Only `fetch` (and `resolve` of a missing `official:` file, unless offline) touches the network.
"""

import errno
import hashlib
import http.client
import json
import os
import pathlib
import re
import shutil
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

import benchscore
from benchscore.core.registry import File

PREFIX = "official:"
GITHUB_RAW = "https://raw.githubusercontent.com"
TIMEOUT = 60  # seconds without data before a download is given up
CHUNK = 1 << 16
_UMASK = os.umask(0o022)
os.umask(_UMASK)  # read once (umask cannot be read without setting it): stored files get 0666 & ~umask


class DataError(ValueError):
    """A data-store problem the user can act on (the CLI prints it as one line, exit status 2)."""


class OfflineError(DataError):
    """A file is missing and downloads are disabled."""


class ChecksumError(DataError):
    """A downloaded or stored file does not have its pinned sha256."""


# Each benchmark's official data is declared in its folder (`<folder>/benchmark.toml`): name -> Source.
BENCHMARKS = {name: benchmark.data for name, benchmark in benchscore.BENCHMARKS.items()}
ALIASES = {b.folder: b.name for b in benchscore.BENCHMARKS.values() if b.folder != b.name}  # folder names
# TempBench's official splits are the `split` field of its question files: official:test is
# benchmark_labelled.jsonl restricted to split "test" (the reference scorer's usage).
TEMPBENCH_SPLITS = {"test": ("labelled", "test"), "train": ("labelled", "train"),
                    "test-ids": ("ids", "test"), "train-ids": ("ids", "train")}
TEMPBENCH_OPTIONAL = ("card", "addendum")  # fetched when the revision has them
TIME_SERIES = "time_series"  # `official:time_series` / `--with-time-series`: the 400 TSVer CSVs
MANIFEST = pathlib.Path(benchscore.benchmark("tsver").path, "time_series_manifest.json")  # in the TSVer folder


# ------------------------------------------------------------------ configuration


def _truthy(name):
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def root():
    """The store folder: $BENCHSCORE_DATA, else <user cache dir>/benchscore/data."""
    configured = os.environ.get("BENCHSCORE_DATA")
    if configured:
        return pathlib.Path(configured).expanduser().absolute()
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(cache, "benchscore", "data").absolute()


def mirror():
    """The base URL GitHub raw files are fetched from ($BENCHSCORE_DATA_MIRROR or GitHub's)."""
    base = os.environ.get("BENCHSCORE_DATA_MIRROR") or GITHUB_RAW
    if urllib.parse.urlsplit(base).scheme not in ("http", "https"):
        raise DataError(f"BENCHSCORE_DATA_MIRROR must be an http:// or https:// URL, found {base!r}")
    return base.rstrip("/")


def offline():
    """True when no file may be fetched on first use (BENCHSCORE_OFFLINE=1 or HF_HUB_OFFLINE=1)."""
    return _truthy("BENCHSCORE_OFFLINE") or _truthy("HF_HUB_OFFLINE")


def benchmark(name):
    """The `Benchmark` entry for a name (`mctaco`, `webnlg`, `tsver`, `tempbench` or a folder name)."""
    key = ALIASES.get(name, name)
    if key not in BENCHMARKS:
        raise DataError(f"unknown benchmark {name!r}; expected one of {', '.join(BENCHMARKS)}")
    return BENCHMARKS[key]


def splits(name):
    """The names accepted after `official:` for a benchmark (its files, split aliases included)."""
    bench = benchmark(name)
    names = list(bench.files) + list(bench.aliases)
    if bench.name == "tempbench":
        names += list(TEMPBENCH_SPLITS)
    return names


def fetch_command(name, split=None):
    """The command that fetches `split` of `name` (what an offline error tells the user to run)."""
    extra = " --with-time-series" if split == TIME_SERIES else ""
    return f"benchscore data fetch {benchmark(name).name}{extra}"


def _file_name(bench, split):
    if split in bench.files:
        return split
    if split in bench.aliases:
        return bench.aliases[split]
    if bench.name == "tempbench" and split in TEMPBENCH_SPLITS:
        return TEMPBENCH_SPLITS[split][0]
    raise DataError(f"{bench.name} has no official file {split!r}; expected one of {', '.join(splits(bench.name))}")


def _github_dir(bench):
    return root() / bench.name / bench.owner / bench.repo / bench.commit


def _url(bench, repo_path):
    return f"{mirror()}/{bench.owner}/{bench.repo}/{bench.commit}/{urllib.parse.quote(repo_path)}"


# ------------------------------------------------------------------ hashing and the time-series manifest


def _file_chunks(f):
    return iter(lambda: f.read(1 << 20), b"")


def _hexdigest_of(path, digest):
    with open(path, "rb") as f:
        for chunk in _file_chunks(f):
            digest.update(chunk)
    return digest.hexdigest()


def sha256_of(path):
    return _hexdigest_of(path, hashlib.sha256())


def _git_blob_sha1(path):
    return _hexdigest_of(path, hashlib.sha1(f"blob {os.path.getsize(path)}\0".encode()))


def _state(path, sha256, size):
    """'present' (size and sha256 as pinned), 'missing' or 'corrupt'."""
    try:
        actual = os.path.getsize(path)
    except OSError:
        return "missing"
    if actual != size or sha256_of(path) != sha256:
        return "corrupt"
    return "present"


def time_series_manifest():
    """{"folder", "concatenated_sha256", "files": [File, ...]} of the 400 TSVer CSVs (names, sizes, sha256)."""
    with open(MANIFEST, encoding="utf-8") as f:
        raw = json.load(f)
    folder = raw["folder"]
    return {"folder": folder, "concatenated_sha256": raw["concatenated_sha256"],
            "files": [File(f"{folder}/{name}", sha, size, f"time_series/csv/{name}") for name, size, sha in raw["files"]]}


def _check_time_series_list(metadata_path, manifest):
    """The CSV names of the pinned metadata.json must be the manifest's (the list comes from a pinned file)."""
    with open(metadata_path, encoding="utf-8") as f:
        names = sorted(entry["filename"] for entry in json.load(f))
    listed = sorted(entry.path.rsplit("/", 1)[1] for entry in manifest["files"])
    if names != listed:
        raise ChecksumError(f"{metadata_path} lists other time series than the pinned manifest {MANIFEST.name}")


def _concatenated_sha256(directory, manifest):
    digest = hashlib.sha256()
    for entry in sorted(manifest["files"], key=lambda e: e.path.encode("utf-8")):
        with open(directory / entry.path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()


# ------------------------------------------------------------------ safe download of one file


class _SameSchemeRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to the scheme of the request (never https -> http, never file:)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        old, new = urllib.parse.urlsplit(req.full_url).scheme, urllib.parse.urlsplit(newurl).scheme
        if new != old:
            fp.close()
            raise DataError(f"{req.full_url} redirected to another scheme ({newurl}); refused")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_SameSchemeRedirects)


def _looks_like_html(first_bytes, content_type):
    if "text/html" in (content_type or "").lower():
        return True
    head = first_bytes.lstrip()[:64].lower()
    return head.startswith(b"<!doctype html") or head.startswith(b"<html")


def _progress_bar(total, desc, progress):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr,
                disable=None if progress else True, leave=False)  # None: shown on a terminal only


def _lock(target):
    """An inter-process lock for one store file (filelock), in <store>/.locks."""
    from filelock import FileLock

    locks = root() / ".locks"
    locks.mkdir(parents=True, exist_ok=True)
    return FileLock(str(locks / (hashlib.sha256(str(target).encode("utf-8")).hexdigest()[:32] + ".lock")))


def _remove_empty_dirs(directory, stop):
    """Removes `directory` and its parents up to (not including) `stop` while they are empty."""
    directory, stop = pathlib.Path(directory), pathlib.Path(stop)
    while directory != stop and stop in directory.parents:
        try:
            directory.rmdir()
        except OSError:
            return
        directory = directory.parent


def _write_verified(target, expected_sha, expected_size, chunks, what):
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


def _http_chunks(url, what, bar):
    """The body of `url` in chunks, with clear errors for HTTP failures, HTML pages, truncation and interruption."""
    response = _http_open(url, what)
    with response:
        length = response.headers.get("Content-Length")
        received = 0
        while True:
            chunk = _http_read(response, url, what, received)
            if not chunk:
                break
            if received == 0 and _looks_like_html(chunk, response.headers.get("Content-Type")):
                raise DataError(f"{what}: {url} sent an HTML page instead of the file (an error or login "
                                "page?); nothing was stored")
            received += len(chunk)
            bar.update(len(chunk))
            yield chunk
        if length is not None and length.isdigit() and received != int(length):
            raise DataError(f"{what}: the download from {url} was cut short: {received} of {length} bytes "
                            "(truncated); nothing was stored")


def _http_open(url, what):
    request = urllib.request.Request(url, headers={"User-Agent": "benchscore-data", "Accept-Encoding": "identity"})
    try:
        return _OPENER.open(request, timeout=TIMEOUT)
    except urllib.error.HTTPError as err:
        raise DataError(f"{what}: {url} answered HTTP {err.code} {err.reason}") from None
    except urllib.error.URLError as err:
        raise DataError(f"{what}: cannot reach {url} ({err.reason})") from None
    except (OSError, http.client.HTTPException) as err:
        raise DataError(f"{what}: cannot reach {url} ({err})") from None


def _http_read(response, url, what, received):
    """The next chunk of `response` (b'' at the end), `received` bytes having come before it."""
    try:
        return response.read(CHUNK)
    except http.client.IncompleteRead as err:
        raise DataError(f"{what}: the download from {url} was cut short after "
                        f"{received + len(err.partial)} bytes (truncated); nothing was stored") from None
    except (OSError, http.client.HTTPException) as err:
        raise DataError(f"{what}: the download from {url} was interrupted ({err}); nothing was stored") from None


def _fetch_file(bench, entry, force=False, progress=True):
    """One pinned GitHub file into the store (locked, verified, atomic). Returns its path."""
    target = _github_dir(bench) / entry.path
    what = f"{bench.name} {entry.path}"
    with _lock(target):
        if not force and _state(target, entry.sha256, entry.size) == "present":
            return target
        url = _url(bench, entry.path)
        with _progress_bar(entry.size, os.path.basename(entry.path)[:40], progress) as bar:
            _write_verified(target, entry.sha256, entry.size, _http_chunks(url, what, bar), what)
    return target


# ------------------------------------------------------------------ TempBench (Hub)


def _revision_record():
    path = root() / "tempbench" / "revision.json"
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return None
    except ValueError:
        raise DataError(f"{path} is not valid JSON; run `benchscore data fetch tempbench` again") from None


def _tempbench_dir(commit):
    bench = BENCHMARKS["tempbench"]
    return root() / bench.name / bench.owner / bench.repo / commit


def _fetch_tempbench(names, revision=None, force=False, progress=True):
    """TempBench files from the Hub at `revision` (default $BENCHSCORE_TEMPBENCH_REVISION or main)."""
    bench = BENCHMARKS["tempbench"]
    if _truthy("HF_HUB_OFFLINE"):
        raise OfflineError("TempBench is fetched from the Hugging Face Hub, and HF_HUB_OFFLINE=1 is set; "
                           "unset it to run `benchscore data fetch tempbench`")
    _check_hub_installed()
    requested = revision or os.environ.get("BENCHSCORE_TEMPBENCH_REVISION") or "main"
    repo_id = f"{bench.owner}/{bench.repo}"
    store = root()
    store.mkdir(parents=True, exist_ok=True)
    cache = tempfile.mkdtemp(dir=store, prefix=".hub-")
    commit, fetched = None, {}
    try:
        for name in names:
            local = _hub_download(bench, name, commit or requested, cache)
            if local is None:
                continue
            commit = pathlib.Path(local).relative_to(cache).parts[2]  # datasets--Guen--tempbench/snapshots/<commit>
            fetched[name] = _store_hub_file(bench.files[name], local, commit)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    _write_revision_record({"repo": repo_id, "requested": requested, "commit": commit,
                            "fetched_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "files": fetched})
    return {name: str(_tempbench_dir(commit) / bench.files[name]) for name in fetched}


def _check_hub_installed():
    try:
        import huggingface_hub  # noqa: F401
        import huggingface_hub.errors  # noqa: F401
    except ImportError:  # pragma: no cover - huggingface_hub comes with datasets
        raise DataError("fetching TempBench needs huggingface_hub (pip install huggingface_hub)") from None


def _hub_download(bench, name, revision, cache):
    """The local path of TempBench file `name` at `revision` downloaded into `cache`; None for a missing
    optional file; a DataError naming the file and revision for any other failure."""
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

        raise DataError(f"tempbench: cannot reach the Hub at {constants.ENDPOINT} to fetch {filename}; "
                        "check the network (or HF_ENDPOINT)") from None
    except RemoteEntryNotFoundError:
        if name in TEMPBENCH_OPTIONAL:
            return None
        raise DataError(f"tempbench: {filename} is not in {repo_id} at revision {revision}") from None
    except RevisionNotFoundError:
        raise DataError(f"tempbench: {repo_id} has no revision {revision!r}") from None
    except HfHubHTTPError as err:
        raise DataError(f"tempbench: {repo_id} {filename} at {revision}: {err}".splitlines()[0]) from None
    except (OSError, ValueError) as err:
        raise DataError(f"tempbench: cannot fetch {filename} from {repo_id} at {revision}: "
                        f"{str(err).splitlines()[0] if str(err) else type(err).__name__}") from None


def _check_hub_checksum(filename, blob, etag):
    """The Hub's ETag is the file's sha256 (LFS) or its git blob sha1: checks the bytes against it."""
    if re.fullmatch(r"[0-9a-f]{64}", etag):
        ok = sha256_of(blob) == etag
    elif re.fullmatch(r"[0-9a-f]{40}", etag):
        ok = _git_blob_sha1(blob) == etag
    else:
        raise ChecksumError(f"tempbench: {filename}: the Hub gave no checksum (ETag {etag!r}); not stored")
    if not ok:
        raise ChecksumError(f"tempbench: {filename}: the downloaded bytes do not match the Hub's checksum "
                            f"{etag}; nothing was stored")


def _store_hub_file(filename, local, commit):
    """Checks the downloaded `local` against the Hub's checksum and stores it; its record entry."""
    blob = os.path.realpath(local)
    etag = os.path.basename(blob)
    _check_hub_checksum(filename, blob, etag)
    target = _tempbench_dir(commit) / filename
    with _lock(target), open(blob, "rb") as f:
        size = os.path.getsize(blob)
        sha256 = _write_verified(target, None, size, _file_chunks(f), f"tempbench {filename}")
    return {"path": filename, "sha256": sha256, "size": size, "etag": etag}


def _write_revision_record(record):
    """Writes tempbench/revision.json, keeping the files fetched before at the same commit."""
    with _lock(root() / "tempbench" / "revision.json"):
        previous = _revision_record()
        if previous and previous.get("commit") == record["commit"]:
            record["files"] = {**previous.get("files", {}), **record["files"]}
        text = json.dumps(record, indent=1, ensure_ascii=False).encode("utf-8")
        _write_verified(root() / "tempbench" / "revision.json", None, None, [text], "tempbench revision.json")


def revision_of(path):
    """'Guen/tempbench@<commit>' for a file of the store's TempBench copy, else None."""
    bench = BENCHMARKS["tempbench"]
    try:
        relative = pathlib.Path(os.path.abspath(path)).relative_to(root() / bench.name / bench.owner / bench.repo)
    except ValueError:
        return None
    if len(relative.parts) < 2 or not re.fullmatch(r"[0-9a-f]{40}", relative.parts[0]):
        return None
    return f"{bench.owner}/{bench.repo}@{relative.parts[0]}"


def signature_part(path):
    """'|data:Guen/tempbench@<commit 12>' for a result scored from the store's TempBench copy, else ''."""
    revision = revision_of(path)
    return "" if revision is None else "|data:" + revision[: revision.index("@") + 13]


# ------------------------------------------------------------------ the public API


def fetch(name, files=None, *, with_time_series=False, revision=None, force=False, progress=True):
    """Downloads a benchmark's official files (default: all but the TSVer time series) into the store.

    Each file is checked against its pinned sha256 (TempBench: the Hub's checksum) and moved into
    place atomically; files already present and intact are not downloaded again (unless `force`).
    `revision` pins TempBench's Hub revision. Returns {file name: path}.
    """
    bench = benchmark(name)
    if _truthy("BENCHSCORE_OFFLINE"):
        raise OfflineError("BENCHSCORE_OFFLINE=1 is set: no download; unset it to fetch")
    names = list(bench.default) if files is None else [_file_name(bench, f) for f in files]
    names = list(dict.fromkeys(names))
    if bench.name == "tempbench":
        paths = _fetch_tempbench(names, revision, force, progress)
        _write_source(bench)
        return paths
    _check_github_options(bench, revision, with_time_series)
    return _fetch_github(bench, names, with_time_series, force, progress)


def _check_github_options(bench, revision, with_time_series):
    if revision is not None:
        raise DataError(f"--revision applies to tempbench only; {bench.name} is pinned to commit {bench.commit}")
    if with_time_series and bench.name != "tsver":
        raise DataError("--with-time-series applies to tsver only")


def _fetch_github(bench, names, with_time_series, force, progress):
    """The pinned GitHub files `names` (and the TSVer time series) into the store; SOURCE.md once any came."""
    if with_time_series:
        names = names + [n for n in ("metadata", "country_codes") if n not in names]
    paths = {}
    try:
        for n in names:
            paths[n] = str(_fetch_file(bench, bench.files[n], force, progress))
        if with_time_series:
            paths[TIME_SERIES] = str(_fetch_time_series(bench, force, progress))
    finally:
        if paths:
            _write_source(bench)
    return paths


def _fetch_time_series(bench, force, progress):
    from concurrent.futures import ThreadPoolExecutor

    from tqdm import tqdm

    manifest = time_series_manifest()
    directory = _github_dir(bench)
    _check_time_series_list(directory / bench.files["metadata"].path, manifest)
    entries = manifest["files"]
    with tqdm(total=len(entries), desc="tsver time series", unit="file", file=sys.stderr,
              disable=None if progress else True) as bar, ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(_fetch_file, bench, entry, force, False) for entry in entries]
        try:
            for future in futures:
                future.result()
                bar.update(1)
        except BaseException:
            for future in futures:
                future.cancel()  # the files not started yet; the ones in flight finish or clean up
            raise
    if _concatenated_sha256(directory, manifest) != manifest["concatenated_sha256"]:
        raise ChecksumError("tsver time series: the sha256 of the 400 CSVs concatenated does not match the one "
                            "recorded at the source")
    return directory / manifest["folder"]


def path(name, split):
    """Where the store keeps `split` of benchmark `name` (present or not; see `status`)."""
    bench = benchmark(name)
    if split == TIME_SERIES and bench.name == "tsver":
        return str(_github_dir(bench) / time_series_manifest()["folder"])
    file_name = _file_name(bench, split)
    if bench.name == "tempbench":
        record = _revision_record()
        if not record or not record.get("commit"):
            raise OfflineError(f"TempBench is not in the store ({root()}); run `{fetch_command(name)}`")
        return str(_tempbench_dir(record["commit"]) / bench.files[file_name])
    return str(_github_dir(bench) / bench.files[file_name].path)


def _expected(bench, file_name):
    """(sha256, size) a store file must have, or None when it was never fetched (TempBench)."""
    if bench.name != "tempbench":
        entry = bench.files[file_name]
        return entry.sha256, entry.size
    record = _revision_record() or {}
    info = record.get("files", {}).get(file_name)
    return (info["sha256"], info["size"]) if info else None


def _present(name, split):
    """The verified store path of `split`, or an error saying what is wrong and what to run."""
    bench = benchmark(name)
    file_name = _file_name(bench, split)
    expected = _expected(bench, file_name) if bench.name != "tempbench" or _revision_record() else None
    if expected is None:
        raise OfflineError(f"{bench.name} {split} is not in the store ({root()}); run `{fetch_command(name)}`")
    target = path(name, split)
    state = _state(target, *expected)
    if state == "missing":
        raise OfflineError(f"{bench.name} {split} is not in the store ({target}); run `{fetch_command(name)}`")
    if state == "corrupt":
        raise ChecksumError(f"{target} does not match its pinned sha256 (corrupt); run "
                            f"`{fetch_command(name)} --force`")
    return target


def resolve(name, value):
    """`value` unchanged unless it starts with 'official:'; then the local path of that official file.

    `official:<split>` names a file of the benchmark (`benchscore data list` shows them); `official:`
    alone is the folder of the store holding the benchmark's files at their repository paths (tsver:
    `data/`, where `load_tsver` looks); `official:time_series` (tsver) that folder with the CSVs. A
    missing file is fetched on first use (with a progress bar) unless offline (BENCHSCORE_OFFLINE=1
    or HF_HUB_OFFLINE=1), where the error names the `benchscore data fetch` command. A stored file is
    checked against its sha256 before it is returned.
    """
    if not isinstance(value, str) or not value.startswith(PREFIX):
        return value
    split = value[len(PREFIX):]
    bench = benchmark(name)
    if split in ("", TIME_SERIES):
        return _resolve_folder(bench, split)
    return _resolve_file(bench, split)


def _resolve_folder(bench, split):
    """`official:` (split '') or `official:time_series`: the store folder, its files fetched first if missing."""
    for f in bench.default:
        if f not in TEMPBENCH_OPTIONAL:
            _resolve_file(bench, f)
    if split == TIME_SERIES:
        _resolve_time_series(bench)
    if bench.name == "tempbench":
        return os.path.dirname(os.path.dirname(path(bench.name, "labelled")))
    return str(_github_dir(bench) / bench.data_dir)


def _resolve_time_series(bench):
    if bench.name != "tsver":
        raise DataError(f"official:{TIME_SERIES} is a tsver folder; {bench.name} has none")
    if not _time_series_complete(bench):
        _fetch_on_first_use(bench, TIME_SERIES, lambda: fetch(bench.name, [], with_time_series=True))


def _resolve_file(bench, split):
    try:
        return _present(bench.name, split)
    except ChecksumError:
        if offline():
            raise
    except OfflineError:
        pass
    _fetch_on_first_use(bench, split, lambda: fetch(bench.name, [split]))
    return _present(bench.name, split)


def _fetch_on_first_use(bench, split, do_fetch):
    if offline():
        why = "BENCHSCORE_OFFLINE=1" if _truthy("BENCHSCORE_OFFLINE") else "HF_HUB_OFFLINE=1"
        raise OfflineError(f"official:{split} of {bench.name} is not in the store ({root()}) and {why} forbids "
                           f"downloading it; run `{fetch_command(bench.name, split)}` first")
    print(f"benchscore: fetching the official {bench.name} files into {root()}", file=sys.stderr)
    do_fetch()


def _time_series_complete(bench):
    directory = _github_dir(bench)
    return all(_state(directory / e.path, e.sha256, e.size) == "present" for e in time_series_manifest()["files"])


def resolve_split(name, value, split=None):
    """(path, split) for a question file that carries its own split field (TempBench).

    `official:test` is benchmark_labelled.jsonl with split "test" (the reference scorer's usage),
    `official:test-ids` benchmark.jsonl with split "test"; a plain path, or `official:labelled`, keeps
    `split`. A `split` that contradicts the one in `value` is an error.
    """
    resolved = resolve(name, value)
    if isinstance(value, str) and value.startswith(PREFIX) and benchmark(name).name == "tempbench":
        implied = TEMPBENCH_SPLITS.get(value[len(PREFIX):], (None, None))[1]
        if implied is not None:
            if split is not None and split != implied:
                raise DataError(f"{value} is the {implied!r} split, but split {split!r} was asked for")
            split = implied
    return resolved, split


def status(names=None):
    """One dict per official file: benchmark, file, state (present/missing/corrupt), size, path, source."""
    rows = []
    for name in names or BENCHMARKS:
        bench = benchmark(name)
        if bench.name == "tempbench":
            rows += _tempbench_status(bench)
            continue
        for file_name, entry in bench.files.items():
            target = _github_dir(bench) / entry.path
            rows.append({"benchmark": bench.name, "file": file_name, "state": _state(target, entry.sha256, entry.size),
                         "size": entry.size, "path": str(target), "source": _url_plain(bench, entry.path)})
        if bench.name == "tsver":
            rows.append(_time_series_status(bench))
    return rows


def _tempbench_status(bench):
    """The status rows of TempBench's files, from revision.json (missing where it has no record of them)."""
    record = _revision_record()
    rows = []
    for file_name, repo_path in bench.files.items():
        row = {"benchmark": bench.name, "file": file_name, "source": f"{bench.source} {repo_path}",
               "state": "missing", "size": None, "path": None}
        info = (record or {}).get("files", {}).get(file_name)
        if record and info:
            row["path"] = str(_tempbench_dir(record["commit"]) / repo_path)
            row["size"] = info["size"]
            row["state"] = _state(row["path"], info["sha256"], info["size"])
            row["revision"] = f"{record['commit']} (asked: {record['requested']})"
        rows.append(row)
    return rows


def _time_series_status(bench):
    """The one status row of TSVer's 400 time-series CSVs, with counts per state."""
    manifest = time_series_manifest()
    states = [_state(_github_dir(bench) / e.path, e.sha256, e.size) for e in manifest["files"]]
    counts = {s: states.count(s) for s in ("present", "missing", "corrupt")}
    state = ("present" if counts["present"] == len(states) else
             "corrupt" if counts["corrupt"] else "missing" if not counts["present"] else "partial")
    return {"benchmark": bench.name, "file": TIME_SERIES, "state": state,
            "size": sum(e.size for e in manifest["files"]), "path": path(bench.name, TIME_SERIES),
            "source": _url_plain(bench, manifest["folder"]) + "/*.csv", "counts": counts,
            "optional": True}


def _url_plain(bench, repo_path):
    return f"{GITHUB_RAW}/{bench.owner}/{bench.repo}/{bench.commit}/{repo_path}"


def _card_licence(bench):
    """TempBench: the `license:` of the fetched dataset card's YAML header, if any."""
    try:
        card = path(bench.name, "card")
        with open(card, encoding="utf-8") as f:
            text = f.read(20000)
    except (OSError, DataError):
        return None
    header = re.match(r"---\s*\n(.*?)\n---", text, re.S)
    found = re.search(r"^licen[sc]e:\s*(\S.*)$", header.group(1), re.M) if header else None
    return found.group(1).strip().strip("'\"") if found else None


def licence(name):
    """The licence of a benchmark's data, as recorded (TempBench: read from its fetched dataset card)."""
    bench = benchmark(name)
    if bench.name == "tempbench":
        found = _card_licence(bench)
        if found:
            return f"{found} (from the dataset card)"
    return bench.licence


def _write_source(bench):
    """<store>/<benchmark>/SOURCE.md: where the files come from, their licence, citation and sha256."""
    lines = [f"# {bench.title}", "", f"Source: {bench.source}"]
    if bench.name == "tempbench":
        record = _revision_record() or {}
        lines.append(f"Revision: {record.get('commit')} (asked for: {record.get('requested')}, "
                     f"fetched {record.get('fetched_at')})")
        files = [(n, bench.files[n], info["sha256"], info["size"]) for n, info in record.get("files", {}).items()]
    else:
        files = [(n, e.path, e.sha256, e.size) for n, e in bench.files.items()]
    lines += [f"Licence: {licence(bench.name)}", "", f"Cite: {bench.cite}", "", "```bibtex", bench.bibtex, "```", "",
              "| file | path in the repository | bytes | sha256 |", "| --- | --- | --- | --- |"]
    lines += [f"| {n} | `{p}` | {size} | {sha} |" for n, p, sha, size in files]
    if bench.name == "tsver":
        manifest = time_series_manifest()
        lines.append(f"| {TIME_SERIES} (with --with-time-series) | `{manifest['folder']}/*.csv` (400 files) | "
                     f"{sum(e.size for e in manifest['files'])} | concatenated: {manifest['concatenated_sha256']} |")
    text = ("\n".join(lines) + "\n").encode("utf-8")
    _write_verified(root() / bench.name / "SOURCE.md", None, None, [text], f"{bench.name} SOURCE.md")


def fill_from(directory, names=None, *, with_time_series=True):
    """Fills the store from a local copy of the files (no network), each checked against its sha256.

    `directory` is laid out like ../shared/data (<benchmark>/<file as there>, e.g. mctaco/test_9442.tsv)
    or like a mirror (<owner>/<repo>/<commit>/<path in the repository>). Files that are absent there
    are skipped; a file that is there with another sha256 is an error. TempBench has no pinned
    checksums and is not filled this way. Returns {benchmark: [file names stored]}.
    """
    directory = pathlib.Path(directory)
    if not directory.is_dir():
        raise DataError(f"{directory} is not a folder")
    stored = {}
    for name in names or [n for n in BENCHMARKS if n != "tempbench"]:
        bench = benchmark(name)
        if bench.name == "tempbench":
            raise DataError("tempbench has no pinned checksums to fill the store with; run "
                            "`benchscore data fetch tempbench`")
        files = _fill_benchmark(bench, directory, with_time_series)
        if files:
            stored[bench.name] = files
            _write_source(bench)
    return stored


def _fill_benchmark(bench, directory, with_time_series):
    """The file names of `bench` stored from `directory` (each once, in order); absent ones are skipped."""
    entries = list(bench.files.items())
    if bench.name == "tsver" and with_time_series:
        entries += [(TIME_SERIES, e) for e in time_series_manifest()["files"]]
    stored = []
    for file_name, entry in entries:
        candidates = [directory / bench.name / entry.shared,
                      directory / bench.owner / bench.repo / bench.commit / entry.path]
        source = next((c for c in candidates if c.is_file()), None)
        if source is None:
            continue
        _copy_verified(bench, entry, source)
        if file_name not in stored:
            stored.append(file_name)
    return stored


def _copy_verified(bench, entry, source):
    """Copies local `source` to its store place, checked against its pin, unless an intact copy is there."""
    target = _github_dir(bench) / entry.path
    with _lock(target):
        if _state(target, entry.sha256, entry.size) != "present":
            with open(source, "rb") as f:
                _write_verified(target, entry.sha256, entry.size, _file_chunks(f), f"{bench.name} {source}")
