"""What every benchmark's `trainer.py` shares: the `compute_metrics` state machine for `transformers.Trainer`.

A subclass names its benchmark (`benchmark = "<name>"`, a registry name), reads the gold side from
the eval dataset, calls `super().__init__(n_rows, ...)` and implements `_inputs(eval_pred, start)`:
the module's inputs for the Trainer's rows start, start+1, ... (a dict with "predictions"). The
base class runs `compute_metrics(eval_pred)` (one `compute`) and, with
`TrainingArguments(batch_eval_metrics=True)`, `compute_metrics(eval_pred, compute_result)` per batch
(`add_batch`, then `compute()` on the last), with the same numbers. After an evaluation that stopped
with an error, build a new one (rows are counted across calls). The result is flattened for logging;
the full one is kept in `.last_result`. stdlib and numpy only: transformers is never imported here.
"""

import numpy as np

import benchscore


def to_numpy(array):
    """One numpy array from what the Trainer passes: numpy, a torch tensor (batch mode), or a list of
    per-batch arrays (`eval_do_concat_batches=False`)."""
    if isinstance(array, list):
        return np.concatenate([to_numpy(part) for part in array])
    return np.asarray(outputs_to_numpy(array))


def outputs_to_numpy(array):
    """numpy from what the Trainer passes (numpy, torch tensors in batch mode); tuples stay tuples."""
    if isinstance(array, (tuple, list)):
        return tuple(outputs_to_numpy(part) for part in array)
    if hasattr(array, "detach"):  # torch.Tensor, without importing torch
        array = array.detach().cpu().numpy()
    return np.asarray(array)


def flatten_for_logging(result, prefix=""):
    """Nested dicts flattened with "/"; lists (too big to log) dropped; numbers, strings and None kept."""
    flat = {}
    for key, value in result.items():
        if isinstance(value, dict):
            flat.update(flatten_for_logging(value, f"{prefix}{key}/"))
        elif not isinstance(value, (list, tuple)):
            flat[f"{prefix}{key}"] = value
    return flat


def require_columns(eval_dataset, columns, expected):
    """Refuses an eval dataset that is not a `datasets.Dataset`, or lacks `columns` (`expected` says what fits)."""
    names = getattr(eval_dataset, "column_names", None)
    if not isinstance(names, list):
        raise TypeError(f"the eval dataset is a {type(eval_dataset).__name__}; expected a datasets.Dataset "
                        f"({expected})")
    missing = [column for column in columns if column not in names]
    if missing:
        raise ValueError(f"the eval dataset has no column(s) {missing} (it has {names}); expected {expected}")


class ComputeMetricsBase:
    """The `compute_metrics` callable, less the per-benchmark `_inputs`."""

    benchmark: str | None = None  # the registry name of the subclass's benchmark, whose module is loaded by default
    unit, units = "row", "rows"  # what a row of the eval dataset is, in error messages

    def __init__(self, n_rows, metric=None, compute_kwargs=None, config_name=None):
        if getattr(metric, "num_process", 1) > 1:
            raise ValueError(f"metric has num_process={metric.num_process}, but the Trainer gives every rank all "
                             f"predictions, which would count them {metric.num_process} times; use num_process=1")
        self.n_rows = n_rows
        self.metric = benchscore.load(self.benchmark, config_name) if metric is None else metric
        self.compute_kwargs = dict(compute_kwargs or {})
        self.last_result = None
        self._offset = 0  # rows already added in batch mode

    def _inputs(self, eval_pred, start):
        raise NotImplementedError

    def _check_rows(self, start, n, n_label_ids=None):
        stop = start + n
        if stop > self.n_rows or (n_label_ids is not None and n_label_ids != n):
            label_ids = "" if n_label_ids is None else f" and {n_label_ids} label ids"
            raise ValueError(f"the Trainer gave {n} predictions{label_ids} for {self.units} {start}..{stop - 1}, but "
                             f"the eval dataset has {self.n_rows} {self.units}; pass this helper the same dataset as "
                             f"Trainer(eval_dataset=...)")

    def __call__(self, eval_pred, compute_result=None):
        if compute_result is None:  # the whole eval set at once
            inputs = self._inputs(eval_pred, 0)
            if len(inputs["predictions"]) != self.n_rows:
                raise ValueError(f"the Trainer gave {len(inputs['predictions'])} predictions for an eval dataset of "
                                 f"{self.n_rows} {self.units}; pass this helper the same dataset as "
                                 f"Trainer(eval_dataset=...)")
            return self._finish(self.metric.compute(**inputs, **self.compute_kwargs))
        inputs = self._inputs(eval_pred, self._offset)
        self.metric.add_batch(**inputs)
        self._offset += len(inputs["predictions"])
        if not compute_result:
            return {}
        rows, self._offset = self._offset, 0
        if rows != self.n_rows:
            raise ValueError(f"the last batch ended at {self.unit} {rows} of an eval dataset of {self.n_rows} "
                             f"{self.units}")
        return self._finish(self.metric.compute(**self.compute_kwargs))

    def _finish(self, result):
        self.last_result = result
        return flatten_for_logging(result)


class DecodedComputeMetrics(ComputeMetricsBase):
    """For a model whose output a user's `decode(predictions, indices)` turns into the module's predictions.

    The subclass sets `self.gold` (column name -> one value per row, passed to the module beside
    the predictions), names what decode returns per row in `decoded`, and calls `_set_decode` first.
    """

    decoded = "predictions"  # what decode gives per row, e.g. "evidence"
    decoded_lists = "lists"  # what decode returns one of per row, e.g. "evidence lists"

    def _set_decode(self, decode):
        if not callable(decode):
            raise TypeError(f"decode must be a function (predictions, indices) -> {self.decoded} per row, "
                            f"found {decode!r}")
        self.decode = decode

    def _inputs(self, eval_pred, start):
        predictions = outputs_to_numpy(eval_pred.predictions)
        n = len(predictions[0] if isinstance(predictions, tuple) else predictions)
        self._check_rows(start, n)
        stop = start + n
        decoded = self.decode(predictions, range(start, stop))
        if not isinstance(decoded, (list, tuple)) or len(decoded) != n:
            found = f"{len(decoded)} items" if isinstance(decoded, (list, tuple)) else type(decoded).__name__
            raise ValueError(f"decode returned {found} for {self.units} {start}..{stop - 1}; expected a list of {n} "
                             f"{self.decoded_lists}, one per row")
        return {"predictions": list(decoded), **{name: column[start:stop] for name, column in self.gold.items()}}
