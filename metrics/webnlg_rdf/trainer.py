"""WebNLG+ 2020 text-to-RDF inside a `transformers.Trainer`: a `compute_metrics` for a text-to-triples model.

Usage: the card's "In a `transformers` Trainer".
`decode(predictions, indices)` gets the Trainer's predictions for some rows (a numpy array, or a
tuple of arrays; padding may be -100) and their row numbers in the eval dataset (a `range`), and
returns one list of "subject | predicate | object" strings per row. The reference triples (and, with
`breakdown=True`, the category) are read from the eval dataset, in order (before or after
tokenization, same rows, unshuffled). The rest (both Trainer modes, the "/"-flattened logging,
`.last_result`) is `benchscore.core.trainer`'s; transformers is not imported here.
"""

from benchscore.core.trainer import DecodedComputeMetrics, require_columns
from benchscore.core.trainer import flatten_for_logging as flatten_for_logging  # re-exported: this module's API
from benchscore.core.trainer import outputs_to_numpy as to_numpy  # noqa: F401 - re-exported; tuples stay tuples


class WebnlgComputeMetrics(DecodedComputeMetrics):
    """The `compute_metrics` callable; build it with `compute_metrics_for`."""

    benchmark = "webnlg_rdf"
    decoded, decoded_lists = "triples", "lists of triple strings"

    def __init__(self, eval_dataset, decode, metric=None, breakdown=False, compute_kwargs=None):
        self._set_decode(decode)
        needed = ["references"] + (["category"] if breakdown else [])
        require_columns(eval_dataset, needed, "the entries as from benchscore.webnlg_rdf.loader.load_dataset")
        self.gold = {name: list(eval_dataset[name]) for name in needed}
        super().__init__(len(eval_dataset), metric, compute_kwargs, "breakdown" if breakdown else "default")


def compute_metrics_for(eval_dataset, decode, metric=None, breakdown=False, compute_kwargs=None):
    """A `compute_metrics` for `Trainer` scoring decoded triples with the official WebNLG+ 2020 text-to-RDF numbers.

    `eval_dataset`: the entries in the Trainer's order, with a `references` column (and `category` for
    the breakdown); `decode`: see the module docstring; `metric`: an evaluate module with num_process=1
    (default: this folder's); `breakdown`: add the per-size and per-category extension;
    `compute_kwargs`: keyword arguments for the module's `compute`.
    """
    return WebnlgComputeMetrics(eval_dataset, decode, metric, breakdown, compute_kwargs)
