"""TSVer inside a `transformers.Trainer`: a `compute_metrics` for a verdict classifier.

The logits' argmax gives the verdict (class i is `labels[i]`). The gold claims are the eval
dataset's rows, in order; the Trainer's label ids are checked against their verdicts, so a
different or reordered dataset is an error. Without `predicted_time_series` TSCS is 0 for every
claim, the official score of a system that names no series.
"""

from benchscore.core.trainer import ComputeMetricsBase, require_columns, to_numpy
from benchscore.core.trainer import flatten_for_logging as flatten_for_logging  # re-exported: this module's API
from benchscore.tsver.scoring import LABELS, REFERENCE_KEYS


class TsverComputeMetrics(ComputeMetricsBase):
    """The `compute_metrics` callable; build it with `compute_metrics_for`."""

    benchmark = "tsver"
    unit, units = "claim", "claims"

    def __init__(self, eval_dataset, metric=None, labels=LABELS, predicted_time_series=None, compute_kwargs=None):
        require_columns(eval_dataset, REFERENCE_KEYS, "the gold claims as from benchscore.tsver.loader.gold_dataset")
        if sorted(labels) != sorted(LABELS):
            raise ValueError(f"labels must name the classifier's classes in its order, each of {list(LABELS)} once; "
                             f"found {list(labels)}")
        self.labels = list(labels)
        self.references = [{c: row[c] for c in REFERENCE_KEYS} for row in eval_dataset]
        if predicted_time_series is not None and len(predicted_time_series) != len(self.references):
            raise ValueError(f"{len(predicted_time_series)} predicted_time_series for {len(self.references)} "
                             f"claims; expected one list (or None) per claim")
        self.predicted_time_series = predicted_time_series
        super().__init__(len(self.references), metric, compute_kwargs)
        if self.compute_kwargs.get("ev2r_judge") is not None:
            raise ValueError("a verdict classifier gives no explanation for an Ev2R judge to read; "
                             "score explanations with the module's compute(..., ev2r_judge=...) instead")

    def _inputs(self, eval_pred, start):
        logits = to_numpy(eval_pred.predictions)
        if logits.ndim != 2 or logits.shape[1] != len(self.labels):
            raise ValueError(f"logits have shape {logits.shape}; expected (n, {len(self.labels)}), one column "
                             f"per verdict label {self.labels}")
        label_ids = to_numpy(eval_pred.label_ids).reshape(-1)
        self._check_rows(start, len(logits), len(label_ids))
        for row, label_id in enumerate(map(int, label_ids), start):
            gold = self.references[row]
            if self.labels[label_id] != gold["verdict"]:
                raise ValueError(f"claim {row} ({gold['claim'][:60]!r}): the Trainer's label id {label_id} is "
                                 f"{self.labels[label_id]!r} but the gold verdict is {gold['verdict']!r}; the "
                                 f"predictions are not in the dataset's order, or labels is not the classifier's order")
        # "" and [] rather than None: evaluate's type check refuses None in a batch's first example.
        # Both score as None does: no explanation is judged here, and no series scores TSCS 0.
        series = self.predicted_time_series
        predictions = [{"verdict": self.labels[i], "explanation": "",
                        "time_series": (None if series is None else series[start + offset]) or []}
                       for offset, i in enumerate(logits.argmax(axis=1))]
        return {"predictions": predictions, "references": self.references[start:start + len(logits)]}


def compute_metrics_for(eval_dataset, metric=None, labels=LABELS, predicted_time_series=None, compute_kwargs=None):
    """A `compute_metrics` for `Trainer` scoring a TSVer verdict classifier (official numbers).

    Args:
        eval_dataset: the gold claims in the Trainer's order (the loader's columns claim, verdict,
            justifications, time_series), before or after tokenization.
        metric: the evaluate module to use, with num_process=1 (default: this folder's module).
        labels: the verdict label of each logit column, in the classifier's order.
        predicted_time_series: optional, per claim the predicted series ([{"series", "ranges"}]).
        compute_kwargs: keyword arguments for the module's `compute`, e.g. {"strict": True}.
    """
    return TsverComputeMetrics(eval_dataset, metric, labels, predicted_time_series, compute_kwargs)
