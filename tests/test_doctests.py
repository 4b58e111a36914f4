"""Run every metric module's `>>>` examples, with `evaluate.load` pointed at the local folder.

This mirrors evaluate's own repository: the examples in `_KWARGS_DESCRIPTION` are written as a
user on the Hub would write them (`evaluate.load("mctaco")`), and the runner redirects the name to
`metrics/<folder>`. It also checks evaluate's rule that `_compute` takes no `**kwargs`.
"""

import doctest
import importlib
import inspect

import evaluate

import benchscore
import pytest

from conftest import METRICS

FOLDERS = sorted(b.folder for b in benchscore.BENCHMARKS.values())  # from the registry
_original_load = evaluate.load


def _local_load(path, *args, **kwargs):
    name = str(path).rsplit("/", 1)[-1]
    if (METRICS / name / f"{name}.py").exists():
        path = str(METRICS / name)
    return _original_load(path, *args, **kwargs)


def _metric_class(module):
    classes = [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj) and issubclass(obj, evaluate.Metric) and obj is not evaluate.Metric
    ]
    assert len(classes) == 1, f"{module.__name__} must define exactly one evaluate.Metric"
    return classes[0]


@pytest.mark.parametrize("folder", FOLDERS)
def test_examples_run_as_doctests(folder, monkeypatch):
    monkeypatch.setattr(evaluate, "load", _local_load)
    module = importlib.import_module(f"benchscore.{folder}.{folder}")
    results = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert results.attempted > 0, f"{folder}.py has no >>> examples"
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples failed in {folder}.py"


@pytest.mark.parametrize("folder", FOLDERS)
def test_compute_takes_no_var_kwargs(folder):
    module = importlib.import_module(f"benchscore.{folder}.{folder}")
    signature = inspect.signature(_metric_class(module)._compute)
    kinds = {p.kind for p in signature.parameters.values()}
    assert inspect.Parameter.VAR_KEYWORD not in kinds, f"{folder}._compute must not take **kwargs"
