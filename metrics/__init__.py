"""benchscore: evaluate-compatible metric modules that give the official numbers.

Each benchmark is one sub-package (`benchscore.mctaco`, ...) whose folder is also an `evaluate`
module and a Hub Space; code the benchmarks share lives once in `benchscore.core`. This file holds
the registry of benchmark names that `load`, the command line and the docs read.
"""

import os
from dataclasses import dataclass

__version__ = "0.1.0"

METRICS_DIR = os.path.dirname(os.path.abspath(__file__))


@dataclass(frozen=True)
class Benchmark:
    """One benchmark: its short name (the CLI command), its folder (sub-package, evaluate module, Space)."""

    name: str
    folder: str
    title: str
    scores: str

    @property
    def path(self):
        return os.path.join(METRICS_DIR, self.folder)


BENCHMARKS = {
    benchmark.name: benchmark
    for benchmark in (
        Benchmark("mctaco", "mctaco", "MC-TACO", "question-level EM and F1 (official evaluator)"),
        Benchmark("tempbench", "tempbench_trp", "TempBench", "TRP, CCR and coverage (reference scorer)"),
        Benchmark("webnlg", "webnlg_rdf", "WebNLG+ 2020 text-to-RDF",
                  "Strict/Exact/Partial/Type P/R/F1 (official evaluation script)"),
        Benchmark("tsver", "tsver", "TSVer", "verdict accuracy, TSCS and Ev2R (official scorer)"),
    )
}


def benchmark(name):
    """The `Benchmark` for a short name ("webnlg") or a folder name ("webnlg_rdf")."""
    for candidate in BENCHMARKS.values():
        if name in (candidate.name, candidate.folder):
            return candidate
    names = sorted({n for b in BENCHMARKS.values() for n in (b.name, b.folder)})
    raise ValueError(f"unknown benchmark {name!r}; expected one of {names}")


def module_path(name):
    """Absolute path of the metric folder for `name` (a benchmark or folder name)."""
    return benchmark(name).path


def load(name, config_name=None, **kwargs):
    """`evaluate.load` on the installed folder of `name`, from any working directory.

    Keyword arguments (``num_process``, ``process_id``, ``experiment_id``, ...) go to
    `evaluate.load` unchanged.
    """
    import evaluate

    return evaluate.load(module_path(name), config_name, **kwargs)
