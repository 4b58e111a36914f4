"""The registry of benchmarks: each benchmark folder declares one `Benchmark` in its `benchmark.toml`
(its command, folder, title and official data: source, pinned files, licence, citation), and
`collect` reads them. Nothing outside a benchmark's folder lists the benchmarks."""

import os
import tomllib
from dataclasses import dataclass, field

METRICS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the `benchscore` package


@dataclass(frozen=True)
class File:
    """One official file pinned in a GitHub repository."""

    path: str  # in the repository
    sha256: str
    size: int
    shared: str | None = None  # where ../shared/data/<benchmark>/ keeps a verified copy (for fill_from and the tests)


@dataclass(frozen=True)
class Source:
    """Where a benchmark's official files come from, pinned (what `benchscore data` fetches and checks)."""

    name: str
    title: str
    owner: str
    repo: str
    commit: str | None  # None for a Hub dataset (the revision is chosen at fetch time)
    files: dict  # name -> File (GitHub) or name -> path in the Hub repository (TempBench)
    default: tuple  # what `fetch` gets without naming files
    licence: str
    cite: str
    bibtex: str
    aliases: dict = field(default_factory=dict)  # other names of a split -> its file name
    data_dir: str = ""  # folder of the repository that `official:` alone (or load_tsver) points at

    @property
    def source(self) -> str:
        if self.commit is None:
            return f"https://huggingface.co/datasets/{self.owner}/{self.repo}"
        return f"https://github.com/{self.owner}/{self.repo}/tree/{self.commit}"


@dataclass(frozen=True)
class Benchmark:
    """One benchmark: its short name (the CLI command), its folder (sub-package, evaluate module,
    Space), its title, what it scores, and its official data."""

    name: str
    folder: str
    title: str
    scores: str
    data: Source

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
        source = Source(name=record["name"], files=files, default=tuple(data.pop("default")),
                        commit=data.pop("commit", None), **data)
        return Benchmark(**record, data=source)
    except (KeyError, TypeError) as err:  # a record of ours that lacks or misnames a field: say which file
        raise ValueError(f"{path}: not a benchmark record ({type(err).__name__}: {err})") from None


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
