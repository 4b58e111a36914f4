"""The registry of benchmarks: each benchmark folder declares one `Benchmark` in its `benchmark.toml`
(its command, folder, title and official data: host, pinned files, licence, citation, file sets),
and `collect` reads them. Nothing outside a benchmark's folder lists the benchmarks."""

import functools
import json
import os
import tomllib
from dataclasses import dataclass, field
from typing import Any

METRICS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the `benchscore` package
HOSTS = ("github", "hub")  # raw files of a GitHub repository at a pinned commit; a Hub dataset at a revision


@dataclass(frozen=True)
class File:
    """One official file pinned in a GitHub repository."""

    path: str  # in the repository
    sha256: str
    size: int
    shared: str | None = None  # where ../shared/data/<benchmark>/ keeps a verified copy (for fill_from and the tests)


@dataclass(frozen=True)
class FileSet:
    """Many pinned files fetched only on request (`--with-<name>`, `official:<name>`), listed in a manifest
    kept in the benchmark's folder: {"folder", "concatenated_sha256", "files": [[name, size, sha256], ...]}."""

    name: str
    manifest: str  # absolute path of the manifest (JSON)
    help: str  # what the set is, for `--help`
    needs: tuple = ()  # pinned files fetched with it
    listed_in: str | None = None  # a pinned JSON file whose entries' `listed_key` must be the manifest's names
    listed_key: str = "filename"
    pattern: str = "*"  # how `data list` shows the files of the folder
    shared: str = ""  # the folder of ../shared/data/<benchmark>/ that keeps verified copies

    @property
    def words(self) -> str:
        """The set's name for people ("time series")."""
        return self.name.replace("_", " ")

    @property
    def option(self) -> str:
        """The command-line flag that asks for the set (`--with-time-series`)."""
        return "--with-" + self.name.replace("_", "-")

    @functools.cached_property
    def _manifest(self) -> dict:
        with open(self.manifest, encoding="utf-8") as f:
            return json.load(f)

    @property
    def folder(self) -> str:
        return self._manifest["folder"]

    @property
    def concatenated_sha256(self) -> str:
        """The sha256 of all the files' bytes concatenated in byte order of their paths."""
        return self._manifest["concatenated_sha256"]

    @property
    def files(self) -> list[File]:
        folder, shared = self.folder, self.shared
        return [File(f"{folder}/{name}", sha, size, f"{shared}/{name}" if shared else name)
                for name, size, sha in self._manifest["files"]]


@dataclass(frozen=True)
class Source:
    """Where a benchmark's official files come from, pinned (what `benchscore data` fetches and checks)."""

    name: str
    title: str
    owner: str
    repo: str
    commit: str | None  # None for a Hub dataset (the revision is chosen at fetch time)
    files: dict  # name -> File (GitHub) or name -> path in the Hub repository
    default: tuple  # what `fetch` gets without naming files
    licence: str
    cite: str
    bibtex: str
    host: str = "github"  # one of HOSTS
    aliases: dict = field(default_factory=dict)  # other names of a split -> its file name
    data_dir: str = ""  # folder of the repository that `official:` alone points at
    optional: tuple = ()  # files fetched when the revision has them (a Hub dataset's card, say)
    licence_file: str | None = None  # a file whose YAML header's `license:` is the licence, once fetched
    # Official splits that are a file restricted to a value of its `split` field: name -> (file, value).
    field_splits: dict = field(default_factory=dict)
    file_sets: dict = field(default_factory=dict)  # name -> FileSet

    @property
    def source(self) -> str:
        if self.host == "hub":
            return f"https://huggingface.co/datasets/{self.owner}/{self.repo}"
        return f"https://github.com/{self.owner}/{self.repo}/tree/{self.commit}"

    @property
    def revision_env(self) -> str:
        """The environment variable that pins a Hub dataset's revision (BENCHSCORE_<NAME>_REVISION)."""
        return f"BENCHSCORE_{self.name.upper()}_REVISION"


@dataclass(frozen=True)
class Table:
    """How a paper table shows the benchmark (`benchscore table`, plots, exports): its headline metrics
    as (result key, label), in column order, and how the papers print them (value x `scale`, `digits`)."""

    metrics: tuple[tuple[str, str], ...]
    scale: float = 1.0
    digits: int = 3
    # The Hub's evaluation results: the benchmark's dataset on the Hub and a task id per metric key.
    dataset_id: str | None = None
    task_ids: dict = field(default_factory=dict)
    # A single run's slices, as the Space shows them: result key -> ((key within a slice's cell, label), ...)
    slices: dict = field(default_factory=dict)
    # Where a single run's result keeps a headline number, when not under its own key ("a/b" = nested)
    result_keys: dict = field(default_factory=dict)
    items_key: str | None = None  # the result's count of scored items (questions, claims), if it has one

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(key for key, _ in self.metrics)

    def label(self, key: str) -> str:
        return dict(self.metrics).get(key, key)

    def run_items(self, result: dict) -> Any:
        """A single run's count of scored items (`items_key`), or None."""
        return result.get(self.items_key) if self.items_key else None

    def run_value(self, result: dict, key: str) -> Any:
        """Where a single run's result keeps headline `key` (`result_keys`, "a/b" nested): its value, or None."""
        found: Any = result
        for part in self.result_keys.get(key, key).split("/"):
            found = found.get(part) if isinstance(found, dict) else None
        return found


@dataclass(frozen=True)
class Benchmark:
    """One benchmark: its short name (the CLI command), its folder (sub-package, evaluate module,
    Space), its title, what it scores, and its official data."""

    name: str
    folder: str
    title: str
    scores: str
    data: Source
    table: Table

    @property
    def path(self) -> str:
        return os.path.join(METRICS_DIR, self.folder)


def read(path: str | os.PathLike) -> Benchmark:
    """The `Benchmark` a `benchmark.toml` declares (its `[data]` table: the `Source`, files included)."""
    with open(path, "rb") as f:
        record = tomllib.load(f)
    try:
        data = dict(record.pop("data"))
        files = {name: entry if isinstance(entry, str) else File(**entry) for name, entry in data.pop("files").items()}
        folder = os.path.dirname(os.path.abspath(path))
        sets = {name: FileSet(name=name, **{**entry, "manifest": os.path.join(folder, entry["manifest"]),
                                            "needs": tuple(entry.get("needs", ()))})
                for name, entry in data.pop("file_sets", {}).items()}
        splits = {name: tuple(pair) for name, pair in data.pop("field_splits", {}).items()}
        source = Source(name=record["name"], files=files, default=tuple(data.pop("default")),
                        commit=data.pop("commit", None), optional=tuple(data.pop("optional", ())),
                        field_splits=splits, file_sets=sets, **data)
        _check_source(source)
        spec = dict(record.pop("table"))
        slices = {name: tuple((key, label) for key, label in pairs) for name, pairs in spec.pop("slices", {}).items()}
        table = Table(**{**spec, "metrics": tuple((key, label) for key, label in spec["metrics"]), "slices": slices})
        if not table.metrics:
            raise ValueError("[table] names no metrics")
        return Benchmark(**record, data=source, table=table)
    except (KeyError, TypeError, ValueError) as err:  # a record of ours that lacks or misnames a field: say which file
        raise ValueError(f"{path}: not a benchmark record ({type(err).__name__}: {err})") from None


def _check_source(source: Source) -> None:
    if source.host not in HOSTS:
        raise ValueError(f"host {source.host!r}; expected one of {', '.join(HOSTS)}")
    if (source.commit is None) != (source.host == "hub"):
        raise ValueError("a GitHub source pins a commit; a Hub dataset has none")
    named = set(source.default) | set(source.optional) | {f for f, _ in source.field_splits.values()}
    named |= set(source.aliases.values()) | {n for s in source.file_sets.values() for n in s.needs}
    unknown = sorted(named - set(source.files))
    if unknown:
        raise ValueError(f"names files it does not declare: {', '.join(unknown)}")


def collect(metrics_dir: str) -> dict[str, Benchmark]:
    """{name: Benchmark} of every folder of `metrics_dir` that has a `benchmark.toml`, by folder name."""
    found = {}
    for folder in sorted(os.listdir(metrics_dir)):
        path = os.path.join(metrics_dir, folder, "benchmark.toml")
        if os.path.isfile(path):
            benchmark = read(path)
            if benchmark.folder != folder:
                raise ValueError(f"{path}: declares folder {benchmark.folder!r}; expected {folder!r}")
            found[benchmark.name] = benchmark
    return found
