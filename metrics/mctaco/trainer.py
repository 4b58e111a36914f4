"""MC-TACO inside a `transformers.Trainer`: a `compute_metrics` for a per-candidate binary classifier.

MC-TACO scores *questions*, the Trainer hands over rows: each row's question is read from the eval
dataset's `question_id` column, in order (the Trainer evaluates unshuffled; on several processes its
gather restores that order). Gold labels come from the dataset too; the Trainer's label ids are
checked against them, so a different or reordered eval dataset is an error, not a wrong number.
"""

import numbers

import numpy as np

from benchscore.core.readers import shown
from benchscore.core.trainer import ComputeMetricsBase, require_columns, to_numpy
from benchscore.core.trainer import flatten_for_logging as flatten_for_logging  # re-exported: this module's API
from benchscore.mctaco.scoring import LABELS, parse_label


def yes_from_logits(logits, start=0):
    """Per-row "yes" (bool) from a binary classifier's logits (rows numbered from `start`): for shape (n, 2),
    argmax with column 1 "yes" (the loader's label ids; a tie goes to "no"); for (n,) or (n, 1), logit > 0."""
    if isinstance(logits, tuple) or (isinstance(logits, list) and any(isinstance(part, tuple) for part in logits)):
        raise TypeError("the predictions are a tuple of arrays (the logits and other model outputs, e.g. hidden "
                        "states); expected the logits alone: pass Trainer(preprocess_logits_for_metrics=lambda "
                        "logits, labels: logits[0]), or have the model return only its logits")
    logits = to_numpy(logits)
    if not (logits.ndim == 1 or (logits.ndim == 2 and logits.shape[1] in (1, len(LABELS)))):
        raise ValueError(f"logits have shape {logits.shape}; expected (n, 2) for a two-class classifier or (n,) / "
                         f"(n, 1) for one logit")
    logits = check_logits(logits, start)
    if logits.ndim == 2 and logits.shape[1] == len(LABELS):
        return logits.argmax(axis=1) == LABELS.index("yes")
    return logits.reshape(-1) > 0


def check_logits(logits, start=0):
    """`logits` as floats, or a `ValueError` naming the first row (from `start`) that is not finite numbers:
    argmax would silently read a NaN or an infinity (a diverged model, an fp16 overflow) as the larger."""
    if logits.dtype.kind not in "iuf":
        for (row, *_), value in np.ndenumerate(logits):
            if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
                raise ValueError(f"eval dataset row {start + row}: a logit is {shown(value)} ({type(value).__name__}); "
                                 "expected numbers")
        logits = logits.astype(float)
    bad = ~np.isfinite(logits)
    if bad.any():
        row = int(np.argwhere(bad)[0][0])
        what = "NaN" if np.isnan(logits[row]).any() else "infinite"
        raise ValueError(f"eval dataset row {start + row}: the logits are {what}; expected finite numbers (a diverged "
                         "model, an fp16 overflow?)")
    return logits


def to_yes_id(value, row):
    """1 for a "yes" gold label, 0 for "no" (the loader's ClassLabel ids, or the strings)."""
    yes = None if isinstance(value, (bool, float)) else parse_label(value)
    if yes is None:
        raise ValueError(f"eval dataset row {row}: label is {shown(value)}; expected 0/1 (no/yes) or 'no'/'yes'")
    return int(yes)


class MctacoComputeMetrics(ComputeMetricsBase):
    """A `compute_metrics` for `Trainer` scoring MC-TACO's question-level EM and F1 (official numbers).

    `eval_dataset`: the eval rows in the Trainer's order (their columns are read here, so the Trainer may
    drop them); `category_column` (e.g. "category") adds the per-category extension. `metric`: an evaluate
    module with num_process=1 (default: this folder's); `compute_kwargs`: e.g. {"confidence": 0.95}.
    """

    benchmark = "mctaco"

    def __init__(self, eval_dataset, metric=None, question_id_column="question_id", label_column="label",
                 category_column=None, compute_kwargs=None):
        columns = [c for c in (question_id_column, label_column, category_column) if c is not None]
        require_columns(eval_dataset, columns, "the rows as from benchscore.mctaco.loader, or name the column")
        self.gold = {"references": [to_yes_id(value, row) for row, value in enumerate(eval_dataset[label_column])],
                     "question_id": list(eval_dataset[question_id_column])}
        if category_column is not None:
            self.gold["category"] = list(eval_dataset[category_column])
        super().__init__(len(eval_dataset), metric, compute_kwargs)

    def _inputs(self, eval_pred, start):
        predictions = yes_from_logits(eval_pred.predictions, start)
        label_ids = to_numpy(eval_pred.label_ids).reshape(-1)
        self._check_rows(start, len(predictions), len(label_ids))
        references, question_ids = self.gold["references"], self.gold["question_id"]
        for row, label_id in enumerate(label_ids, start):
            if int(label_id) != references[row]:
                raise ValueError(f"row {row} (question_id {question_ids[row]!r}): the Trainer's label id is "
                                 f"{int(label_id)} but the eval dataset's label is {references[row]}; the "
                                 "predictions are not in the dataset's order (same dataset, unshuffled, expected)")
        rows = slice(start, start + len(predictions))
        return {"predictions": predictions.tolist(), **{name: column[rows] for name, column in self.gold.items()}}


compute_metrics_for = MctacoComputeMetrics  # the name every benchmark's trainer.py exposes
