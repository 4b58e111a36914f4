"""benchscore: evaluate-compatible metric modules that give the official numbers.

Each benchmark is one sub-package (`benchscore.<folder>`) whose folder is also an `evaluate`
module and a Hub Space; code the benchmarks share lives once in `benchscore.core`. `BENCHMARKS` is
the registry that `load`, the command line, the data store and the docs read: one `Benchmark` per
folder that declares one in its `benchmark.toml`.
"""

import os

__version__ = "0.1.0"

METRICS_DIR = os.path.dirname(os.path.abspath(__file__))


# Each benchmark folder declares its own record (`<folder>/benchmark.toml`); this is where they meet.
from benchscore.core.registry import collect  # noqa: E402

BENCHMARKS = collect(METRICS_DIR)


def benchmark(name):
    """The `Benchmark` for a short name (its CLI command) or a folder name."""
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
