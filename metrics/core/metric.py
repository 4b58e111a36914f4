"""The `evaluate.Metric` base every benchmark's module (`metrics/<folder>/<folder>.py`) subclasses.

It works around three behaviours of evaluate 0.4.6:

1. every declared feature is required in every call (else "inputs are missing" or a bare
   `KeyError`): `OPTIONAL_INPUTS` are filled with None here;
2. only the first example is type-checked, and None is refused in a string column: the subclass's
   `_prepare` validates every example once, before Arrow, and makes None storable;
3. examples are not numbered: `_prepare` gets the index of the batch's first example across all
   `add_batch` calls, so an error names `example N` of the whole input;
4. `compute` and `add_batch` build and keep many long-lived lists and dicts, which the cyclic
   garbage collector rescans again and again: both run with it paused (`gc_paused`; reference
   counting still frees memory). Measured by `scripts/bench_gc_pause.py`.

Import this module as a module (`from benchscore.core import metric`), never the class itself:
evaluate's loader takes the first `evaluate.Metric` subclass it finds in the module file's names.
"""

import gc

import datasets
import evaluate

import benchscore
from benchscore.core.readers import at_example, invalid_text, shown


def check_version(written_for, module):
    """Refuses a module file written for another `benchscore` than the installed one."""
    if benchscore.__version__ != written_for:
        raise ImportError(
            f"the evaluate module {module!r} was written for benchscore {written_for}, but benchscore "
            f"{benchscore.__version__} is installed; install benchscore=={written_for} or use the module "
            f"folder shipped with benchscore {benchscore.__version__} (benchscore.load({module!r}))"
        )


def gc_paused(method, **kwargs):
    """`method(**kwargs)` with the cyclic GC paused, and restored as it was."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return method(**kwargs)
    finally:
        if enabled:
            gc.enable()


# A plain `Value` feature -> the Python type its values encode to unchanged (Value.encode_example is
# bool(v), str(v), int(v), float(v): the identity on values of exactly that type).
_STORED_AS_IS = {"bool": bool, "string": str, "int64": int, "float64": float}


class PreparedFeatures(datasets.Features):
    """The features evaluate writes a batch with, encoding a column only where encoding changes it.

    evaluate's `add_batch` encodes every value through datasets' `Features.encode_batch`, a Python call
    per value: most of `compute`'s cost over the pure scorer on flat columns. A column of a plain
    `Value` whose values all have exactly its Python type (what `_prepare` gives) encodes to itself, so
    it is passed through; every other column is encoded as datasets encodes it. A module whose
    `_prepare` stores every column in Arrow's form declares `StoredAsPrepared` instead."""

    def encode_batch(self, batch):
        if set(batch) != set(self):
            return super().encode_batch(batch)  # datasets' own error
        return {key: column if self._as_is(key, column) else self.encode_column(column, key)
                for key, column in batch.items()}

    def _as_is(self, key, column):
        feature = self[key]
        kind = _STORED_AS_IS.get(feature.dtype) if type(feature) is datasets.Value else None
        return kind is not None and type(column) is list and set(map(type, column)) <= {kind}


class StoredAsPrepared(PreparedFeatures):
    """Features whose batches are written as `_prepare` returns them, nothing encoded: for a module
    whose `_prepare` checks every value's keys and type and gives each column Arrow's form (nested
    ones included, where `PreparedFeatures` would encode each leaf); Arrow still checks every value
    against the declared types. tests/test_speedups.py stores such examples both ways and compares."""

    def encode_batch(self, batch):
        return batch


class BenchscoreMetric(evaluate.Metric):
    """A thin `evaluate.Metric`: optional inputs filled, every example validated once by `_prepare`."""

    OPTIONAL_INPUTS: tuple[str, ...] = ()  # declared features a user may leave out

    def _prepare(self, batch, start):
        """The batch ({feature: column}) checked and made storable; `start` is its first example's index."""
        return batch

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Scores what was added (and `predictions`/`references` with their features, if given)."""
        # (evaluate appends the inputs description to this docstring, so it must exist.)
        if predictions is not None or references is not None:
            for name in self.OPTIONAL_INPUTS:
                kwargs.setdefault(name, None)
        return gc_paused(super().compute, predictions=predictions, references=references, **kwargs)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Adds a batch of examples; optional features may be left out."""
        return gc_paused(self._add_batch, predictions=predictions, references=references, **kwargs)

    def _add_batch(self, *, predictions=None, references=None, **kwargs):
        if predictions is None or references is None:
            raise ValueError(f"{self.name}: add_batch needs predictions and references")
        batch = {"predictions": predictions, "references": references, **kwargs}
        batch = {name: _as_list(column, name) for name, column in batch.items()
                 if column is not None or name not in self.OPTIONAL_INPUTS}
        n = len(batch["predictions"])
        for name in self.OPTIONAL_INPUTS:
            batch.setdefault(name, [None] * n)
        for name, column in batch.items():
            if len(column) != n:
                raise ValueError(f"{name} has {len(column)} values for {n} predictions; expected one per example")
        start = getattr(self, "_n_added", 0)
        batch = self._prepare(batch, start)
        try:
            written = super().add_batch(**batch)
        except UnicodeEncodeError:
            # Arrow cannot store a lone surrogate (text that is not valid Unicode); found only on this
            # error path, so valid input pays nothing for the search.
            raise surrogate_error(batch, start) from None
        self._n_added = start + n
        return written

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Adds one example; optional features may be left out."""
        return self.add_batch(predictions=[prediction], references=[reference],
                              **{name: [value] for name, value in kwargs.items()})

    def _infer_feature_from_batch(self, batch):
        # evaluate picks the features a batch is written with here; ours encode only what changes (see
        # PreparedFeatures), after `_prepare` checked every value.
        features = super()._infer_feature_from_batch(batch)
        return features if isinstance(features, PreparedFeatures) else PreparedFeatures(features)

    def _finalize(self):
        self._n_added = 0  # the next add_batch starts a new input
        return super()._finalize()


def surrogate_error(batch: dict, start: int) -> Exception:
    """The error naming the first example (column by column) of `batch` whose value holds a lone surrogate."""
    for name, column in batch.items():
        for offset, value in enumerate(column):
            text = invalid_text(value)
            if text is not None:
                bad = next(c for c in text if 0xD800 <= ord(c) <= 0xDFFF)
                return at_example(start + offset, f"{name} holds a lone surrogate (U+{ord(bad):04X}) in "
                                                  f"{shown(text)}; expected valid Unicode text")
    return ValueError("a string in this batch is not valid Unicode; expected valid Unicode text")


def _as_list(column, name):
    if isinstance(column, (str, bytes, dict)) or not hasattr(column, "__len__") and not hasattr(column, "__iter__"):
        raise TypeError(f"{name} must be a list with one value per example, found {type(column).__name__}")
    return column if isinstance(column, list) else list(column)
