"""benchscore: evaluate-compatible metric modules that give the official numbers.

Each sub-folder of this package is one standalone `evaluate` metric module (it can be pushed to a
Hub Space on its own); this file only knows where they are.
"""

import os

__version__ = "0.1.0"

METRICS_DIR = os.path.dirname(os.path.abspath(__file__))

# Benchmark name -> metric folder. The short names are what the CLI uses.
MODULES = {
    "mctaco": "mctaco",
    "tempbench": "tempbench_trp",
    "tempbench_trp": "tempbench_trp",
    "webnlg": "webnlg_rdf",
    "webnlg_rdf": "webnlg_rdf",
    "tsver": "tsver",
}


def module_path(name):
    """Absolute path of the metric folder for `name` (a benchmark or folder name)."""
    try:
        folder = MODULES[name]
    except KeyError:
        raise ValueError(f"unknown metric {name!r}; expected one of {sorted(MODULES)}") from None
    return os.path.join(METRICS_DIR, folder)


def load(name, config_name=None, **kwargs):
    """`evaluate.load` on the installed folder of `name`, from any working directory.

    Keyword arguments (``num_process``, ``process_id``, ``experiment_id``, ...) go to
    `evaluate.load` unchanged.
    """
    import evaluate

    return evaluate.load(module_path(name), config_name, **kwargs)
