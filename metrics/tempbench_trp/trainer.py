"""TempBench inside a `transformers.Trainer`: a `compute_metrics` for a model whose output decodes to evidence.

Usage: the card's "In a training loop". `decode(predictions, indices)` gets the Trainer's predictions
for some rows (an array or a tuple of arrays; padding may be -100) and their row numbers (a `range`),
and returns one evidence list per row, as the module's `predictions`; the gold side is read from the
eval dataset in order. Both Trainer modes, the logged keys and `.last_result`: `benchscore.core.trainer`.
"""

from benchscore.core.trainer import DecodedComputeMetrics, require_columns
from benchscore.core.trainer import flatten_for_logging as flatten_for_logging  # re-exported: this module's API
from benchscore.core.trainer import outputs_to_numpy as to_numpy  # noqa: F401 - re-exported; tuples stay tuples
from benchscore.tempbench_trp.loader import metric_inputs


class TempbenchComputeMetrics(DecodedComputeMetrics):
    """A `compute_metrics` for `Trainer`: `eval_dataset` the questions in the Trainer's order; `metric` an
    evaluate module (num_process=1), default this folder's with `config_name` ("label" or "id");
    `compute_kwargs` for its `compute`, e.g. {"top_k": 10}."""

    benchmark = "tempbench_trp"
    decoded, decoded_lists = "evidence", "evidence lists"

    def __init__(self, eval_dataset, decode, metric=None, config_name=None, compute_kwargs=None):
        self._set_decode(decode)
        require_columns(eval_dataset, ("S_star", "t_query"),
                        "the questions as from benchscore.tempbench_trp.loader.load_tempbench")
        self.gold = metric_inputs(eval_dataset)  # references, t_query, ...
        super().__init__(len(eval_dataset), metric, compute_kwargs, config_name)


compute_metrics_for = TempbenchComputeMetrics  # the name every benchmark's trainer.py exposes
