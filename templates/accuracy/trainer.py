"""The template inside a `transformers.Trainer`: a `compute_metrics` for a classifier over the
loader's ClassLabel ids (the argmax of the logits is the predicted label)."""

import numpy as np

from benchscore.core.readers import shown
from benchscore.core.trainer import ComputeMetricsBase, require_columns, to_numpy


class AccuracyComputeMetrics(ComputeMetricsBase):
    """`eval_dataset`: the loader's rows in the Trainer's order ("id", "label" as a ClassLabel)."""

    benchmark = __name__.split(".")[-2]  # this folder (a registry name or folder name)

    def __init__(self, eval_dataset, metric=None, compute_kwargs=None):
        require_columns(eval_dataset, ["id", "label"], "the rows as from this benchmark's loader")
        self.names = eval_dataset.features["label"].names
        self.gold = {"references": [self.names[i] for i in eval_dataset["label"]], "item_id": list(eval_dataset["id"])}
        super().__init__(len(eval_dataset), metric, compute_kwargs)

    def _inputs(self, eval_pred, start):
        logits = to_numpy(eval_pred.predictions)
        if logits.ndim != 2 or logits.shape[1] != len(self.names) or logits.dtype.kind not in "iuf":
            raise ValueError(f"logits are {shown(logits.shape)} of {logits.dtype}; expected numbers of shape "
                             f"(n, {len(self.names)}), one column per label")
        if not np.isfinite(logits).all():
            row = int(np.argwhere(~np.isfinite(logits))[0][0])
            raise ValueError(f"eval dataset row {start + row}: the logits are not finite; expected finite numbers")
        self._check_rows(start, len(logits))
        rows = slice(start, start + len(logits))
        return {"predictions": [self.names[i] for i in logits.argmax(axis=1)],
                **{name: column[rows] for name, column in self.gold.items()}}


compute_metrics_for = AccuracyComputeMetrics  # the name every benchmark's trainer.py exposes
