"""TSVer inside a `transformers.Trainer`: a `compute_metrics` for a verdict classifier.

    from benchscore.tsver.loader import gold_dataset
    from benchscore.tsver.trainer import compute_metrics_for
    gold = gold_dataset("tsver_dev.jsonl")             # claim, verdict, justifications, time_series, ...
    trainer = Trainer(model, args, eval_dataset=tokenized_gold,   # labels = LABELS.index(verdict)
                      compute_metrics=compute_metrics_for(gold))
    trainer.evaluate()    # {"eval_verdict_accuracy": ..., "eval_verdict_macro_f1": ..., "eval_tscs": ..., ...}

The classifier's logits give the verdict (argmax; class i is `labels[i]`, by default the module's
LABELS order: Supported, Cherry-Picking/Conflicting Evidence, Refuted, Not Enough Evidence). The
gold claims (the `references`) are the eval dataset's rows, read here in order; the Trainer's
label ids are checked against the gold verdicts, so a different or reordered dataset is an error.
A verdict classifier predicts no time series: unless `predicted_time_series` gives them (one
list of {"series", "ranges"} per claim, e.g. from a retrieval step), TSCS and its parts are 0 for
every claim, the official score of a system that names no series.

Works both ways, with the same numbers: `compute_metrics(eval_pred)` for the whole eval set, and
`TrainingArguments(batch_eval_metrics=True)` (`compute_metrics(eval_pred, compute_result)` per
batch: `add_batch`, then `compute()` on the last).

For logging, nested dicts are flattened with "/" and lists (the confusion matrix, per-claim
statistics) are dropped; numbers, None and the signature string stay. The full result of the last
evaluation is kept in `.last_result`. In batch mode the helper counts rows across calls: after an
evaluation that stopped with an error, build a new one. transformers is not imported here.
"""

import os

import numpy as np

from .scoring import LABELS


def _load_module():
    import evaluate  # lazily: the pure scoring must not need it

    return evaluate.load(os.path.dirname(os.path.abspath(__file__)))


def to_numpy(array):
    """One numpy array from what the Trainer passes: numpy, a torch tensor (batch mode), or a list of
    per-batch arrays (`eval_do_concat_batches=False`)."""
    if isinstance(array, list):
        return np.concatenate([to_numpy(part) for part in array])
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


class TsverComputeMetrics:
    """The `compute_metrics` callable; build it with `compute_metrics_for`."""

    def __init__(self, eval_dataset, metric=None, labels=LABELS, predicted_time_series=None, compute_kwargs=None):
        missing = [c for c in ("claim", "verdict", "justifications", "time_series") if c not in eval_dataset.column_names]
        if missing:
            raise ValueError(f"the eval dataset has no column(s) {missing} (it has {eval_dataset.column_names}); "
                             f"expected the gold claims as from benchscore.tsver.loader.gold_dataset")
        if sorted(labels) != sorted(LABELS):
            raise ValueError(f"labels must name the classifier's classes in its order, each of {list(LABELS)} once; "
                             f"found {list(labels)}")
        self.labels = list(labels)
        self.references = [{"claim": row["claim"], "verdict": row["verdict"], "justifications": row["justifications"],
                            "time_series": row["time_series"]} for row in eval_dataset]
        if predicted_time_series is not None and len(predicted_time_series) != len(self.references):
            raise ValueError(f"{len(predicted_time_series)} predicted_time_series for {len(self.references)} "
                             f"claims; expected one list (or None) per claim")
        self.predicted_time_series = predicted_time_series
        if getattr(metric, "num_process", 1) > 1:
            raise ValueError(f"metric has num_process={metric.num_process}, but the Trainer gives every rank all "
                             f"predictions, which would count them {metric.num_process} times; use num_process=1")
        self.metric = _load_module() if metric is None else metric
        self.compute_kwargs = dict(compute_kwargs or {})
        if self.compute_kwargs.get("ev2r_judge") is not None:
            raise ValueError("a verdict classifier gives no explanation for an Ev2R judge to read; "
                             "score explanations with the module's compute(..., ev2r_judge=...) instead")
        self.last_result = None
        self._offset = 0  # claims already added in batch mode

    def _inputs(self, eval_pred, start):
        logits = to_numpy(eval_pred.predictions)
        if logits.ndim != 2 or logits.shape[1] != len(self.labels):
            raise ValueError(f"logits have shape {logits.shape}; expected (n, {len(self.labels)}), one column "
                             f"per verdict label {self.labels}")
        label_ids = to_numpy(eval_pred.label_ids).reshape(-1)
        stop = start + len(logits)
        if stop > len(self.references) or len(label_ids) != len(logits):
            raise ValueError(f"the Trainer gave {len(logits)} predictions and {len(label_ids)} label ids for claims "
                             f"{start}..{stop - 1}, but the eval dataset has {len(self.references)} claims; pass this "
                             f"helper the same dataset as Trainer(eval_dataset=...)")
        for offset, label_id in enumerate(label_ids):
            gold = self.references[start + offset]
            if self.labels[int(label_id)] != gold["verdict"]:
                raise ValueError(f"claim {start + offset} ({gold['claim'][:60]!r}): the Trainer's label id {int(label_id)} "
                                 f"is {self.labels[int(label_id)]!r} but the gold verdict is {gold['verdict']!r}; the "
                                 f"predictions are not in the dataset's order, or labels is not the classifier's order")
        # "" and [] rather than None: evaluate's type check refuses None in a batch's first example.
        # Both score as None does: no explanation is judged here, and no series scores TSCS 0.
        series = self.predicted_time_series
        predictions = [{"verdict": self.labels[i], "explanation": "",
                        "time_series": (None if series is None else series[start + offset]) or []}
                       for offset, i in enumerate(logits.argmax(axis=1))]
        return {"predictions": predictions, "references": self.references[start:stop]}

    def __call__(self, eval_pred, compute_result=None):
        if compute_result is None:  # the whole eval set at once
            inputs = self._inputs(eval_pred, 0)
            if len(inputs["predictions"]) != len(self.references):
                raise ValueError(f"the Trainer gave {len(inputs['predictions'])} predictions for an eval dataset of "
                                 f"{len(self.references)} claims; pass this helper the same dataset as "
                                 f"Trainer(eval_dataset=...)")
            return self._finish(self.metric.compute(**inputs, **self.compute_kwargs))
        inputs = self._inputs(eval_pred, self._offset)
        self.metric.add_batch(**inputs)
        self._offset += len(inputs["predictions"])
        if not compute_result:
            return {}
        claims, self._offset = self._offset, 0
        if claims != len(self.references):
            raise ValueError(f"the last batch ended at claim {claims} of an eval dataset of {len(self.references)}")
        return self._finish(self.metric.compute(**self.compute_kwargs))

    def _finish(self, result):
        self.last_result = result
        return flatten_for_logging(result)


def compute_metrics_for(eval_dataset, metric=None, labels=LABELS, predicted_time_series=None, compute_kwargs=None):
    """A `compute_metrics` for `Trainer` scoring a TSVer verdict classifier (official numbers).

    Args:
        eval_dataset: the gold claims in the Trainer's order, before or after tokenization, with
            the loader's columns claim, verdict, justifications, time_series.
        metric: an evaluate module to use (e.g. this module from the Hub), with num_process=1:
            a multi-process Trainer already gives every rank all predictions;
            default: this folder's module.
        labels: the verdict label of each logit column, in the classifier's order.
        predicted_time_series: optional, per claim the predicted series ([{"series", "ranges"}]).
        compute_kwargs: keyword arguments for the module's `compute`, e.g. {"strict": True}.
    Returns:
        a callable for `Trainer(compute_metrics=...)`, with or without `batch_eval_metrics`.
    """
    return TsverComputeMetrics(eval_dataset, metric, labels, predicted_time_series, compute_kwargs)
