"""WebNLG+ 2020 text-to-RDF inside a `transformers.Trainer`: a `compute_metrics` for a text-to-triples model.

    from benchscore.webnlg_rdf.loader import load_dataset
    from benchscore.webnlg_rdf.trainer import compute_metrics_for
    entries = load_dataset("references/en_all.xml")        # one row per entry: references, category, ...

    def decode(predictions, indices):        # generated token ids -> triple strings per entry
        texts = tokenizer.batch_decode(np.where(predictions < 0, tokenizer.pad_token_id, predictions),
                                       skip_special_tokens=True)
        return [[t.strip() for t in text.split("&&") if t.strip()] for text in texts]

    trainer = Seq2SeqTrainer(model, Seq2SeqTrainingArguments(..., predict_with_generate=True),
                             eval_dataset=tokenized_entries,
                             compute_metrics=compute_metrics_for(entries, decode))
    trainer.evaluate()     # {"eval_Total_scores/Exact/F1": ..., "eval_Exact_match/F1": ..., ...}

The model's output must first become triples: `decode(predictions, indices)` gets the Trainer's
predictions for some rows (a numpy array, or a tuple of arrays if the model returns several
outputs; padding may be -100) and their row numbers in the eval dataset (a `range`), and returns
one list of "subject | predicate | object" strings per row. The reference triples (and, with
`breakdown=True`, the category) are read here from the eval dataset, in order: pass the dataset
the Trainer evaluates (before or after tokenization, same rows, unshuffled).

Works both ways, with the same numbers: `compute_metrics(eval_pred)` for the whole eval set, and
`TrainingArguments(batch_eval_metrics=True)` (per batch `add_batch`, then `compute()` on the last;
the Trainer calls it only when the eval dataset has labels).

For logging, the nested result is flattened with "/": "Total_scores/Exact/F1",
"Scores_per_tag/Subjects/Strict/Precision", "Exact_match/F1", and with the breakdown
"extension_per_category/<category>/Total_scores/...". Every logged value is a number or the
signature string; pick one for `metric_for_best_model` (e.g. "Total_scores/Exact/F1"). The full
result of the last evaluation is kept in `.last_result`. In batch mode the helper counts rows across
calls: after an evaluation that stopped with an error, build a new one. transformers is not imported
here.
"""

import os

import numpy as np


def _load_module(config_name):
    import evaluate  # lazily: the pure scoring must not need it

    return evaluate.load(os.path.dirname(os.path.abspath(__file__)), config_name)


def to_numpy(array):
    """numpy from what the Trainer passes (numpy, torch tensors in batch mode); tuples stay tuples."""
    if isinstance(array, (tuple, list)):
        return tuple(to_numpy(part) for part in array)
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


class WebnlgComputeMetrics:
    """The `compute_metrics` callable; build it with `compute_metrics_for`."""

    def __init__(self, eval_dataset, decode, metric=None, breakdown=False, compute_kwargs=None):
        if not callable(decode):
            raise TypeError(f"decode must be a function (predictions, indices) -> triples per row, found {decode!r}")
        needed = ["references"] + (["category"] if breakdown else [])
        missing = [c for c in needed if c not in eval_dataset.column_names]
        if missing:
            raise ValueError(f"the eval dataset has no column(s) {missing} (it has {eval_dataset.column_names}); "
                             f"expected the entries as from benchscore.webnlg_rdf.loader.load_dataset")
        self.gold = {name: list(eval_dataset[name]) for name in needed}
        self.n_rows = len(eval_dataset)
        self.decode = decode
        if getattr(metric, "num_process", 1) > 1:
            raise ValueError(f"metric has num_process={metric.num_process}, but the Trainer gives every rank all "
                             f"predictions, which would count them {metric.num_process} times; use num_process=1")
        self.metric = _load_module("breakdown" if breakdown else "default") if metric is None else metric
        self.compute_kwargs = dict(compute_kwargs or {})
        self.last_result = None
        self._offset = 0  # rows already added in batch mode

    def _inputs(self, eval_pred, start):
        predictions = to_numpy(eval_pred.predictions)
        n = len(predictions[0] if isinstance(predictions, tuple) else predictions)
        stop = start + n
        if stop > self.n_rows:
            raise ValueError(f"the Trainer gave {n} predictions for rows {start}..{stop - 1}, but the eval dataset "
                             f"has {self.n_rows} rows; pass this helper the same dataset as Trainer(eval_dataset=...)")
        triples = self.decode(predictions, range(start, stop))
        if not isinstance(triples, (list, tuple)) or len(triples) != n:
            found = f"{len(triples)} items" if isinstance(triples, (list, tuple)) else type(triples).__name__
            raise ValueError(f"decode returned {found} for rows {start}..{stop - 1}; expected a list of {n} "
                             f"lists of triple strings, one per row")
        return {"predictions": list(triples), **{name: column[start:stop] for name, column in self.gold.items()}}

    def __call__(self, eval_pred, compute_result=None):
        if compute_result is None:  # the whole eval set at once
            inputs = self._inputs(eval_pred, 0)
            if len(inputs["predictions"]) != self.n_rows:
                raise ValueError(f"the Trainer gave {len(inputs['predictions'])} predictions for an eval dataset of "
                                 f"{self.n_rows} rows; pass this helper the same dataset as Trainer(eval_dataset=...)")
            return self._finish(self.metric.compute(**inputs, **self.compute_kwargs))
        inputs = self._inputs(eval_pred, self._offset)
        self.metric.add_batch(**inputs)
        self._offset += len(inputs["predictions"])
        if not compute_result:
            return {}
        rows, self._offset = self._offset, 0
        if rows != self.n_rows:
            raise ValueError(f"the last batch ended at row {rows} of an eval dataset of {self.n_rows} rows")
        return self._finish(self.metric.compute(**self.compute_kwargs))

    def _finish(self, result):
        self.last_result = result
        return flatten_for_logging(result)


def compute_metrics_for(eval_dataset, decode, metric=None, breakdown=False, compute_kwargs=None):
    """A `compute_metrics` for `Trainer` scoring decoded triples with the official WebNLG+ 2020 text-to-RDF numbers.

    Args:
        eval_dataset: the entries in the Trainer's order, with a `references` column (lists of
            triple strings) and, for the breakdown, `category`; before or after tokenization.
        decode: (predictions, indices) -> one list of triple strings per row (see the module docstring).
        metric: an evaluate module to use (e.g. this module from the Hub), with num_process=1:
            a multi-process Trainer already gives every rank all predictions;
            default: this folder's module ("breakdown" configuration when `breakdown`).
        breakdown: add the per-size and per-category extension (logged flattened).
        compute_kwargs: keyword arguments for the module's `compute`.
    Returns:
        a callable for `Trainer(compute_metrics=...)`, with or without `batch_eval_metrics`.
    """
    return WebnlgComputeMetrics(eval_dataset, decode, metric, breakdown, compute_kwargs)
