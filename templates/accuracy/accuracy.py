"""The template benchmark's evaluate module: exact-match accuracy of one label per item.

The module file is named after its folder and finds its package by that name, so a copy of the
template only renames this file (evaluate copies the module file alone and imports `benchscore`).
"""

import importlib
import pathlib

import datasets
import evaluate

from benchscore.core import metric
from benchscore.core.readers import at_example, shown
from benchscore.core.resampling import DEFAULT_RESAMPLES, DEFAULT_SEED

metric.check_version("0.1.0", pathlib.Path(__file__).stem)

PACKAGE = "benchscore." + pathlib.Path(__file__).stem  # this folder's package, by the module file's name
scoring = importlib.import_module(PACKAGE + ".scoring")
significance = importlib.import_module(PACKAGE + ".significance")
data = importlib.import_module("benchscore.data")

_CITATION = data.benchmark(scoring.FOLDER).bibtex + "\n"

_DESCRIPTION = """\
Exact-match accuracy of one label per item: the share of items whose predicted label is the reference
label, compared as exact strings (a label that differs in case or spaces is wrong, and said so).
"""

_KWARGS_DESCRIPTION = """
Computes accuracy from one predicted and one reference label per item.

Args:
    predictions: the predicted label of each item (a string).
    references: the reference label of each item (a non-empty string).
    item_id: optional key of each item (a string), for the per-item statistics and paired tests.
    confidence: (extension) a level such as 0.95 adds percentile-bootstrap intervals over items.
    n_resamples, seed: bootstrap resamples (default 1000) and random seed (default 12345) for `confidence`.
Returns:
    accuracy: the share of items predicted exactly, in [0, 1].
    n_correct, n_items: the counts.
    extension_confidence_intervals: (extension, only with `confidence`) {"accuracy": {"low", "high"}}.
    signature: what fixes these numbers.
Raises:
    ValueError (TypeError for a non-list column) naming `example N`, the item's 0-based index across all
    `add`/`add_batch` calls.
Examples:
    >>> accuracy = evaluate.load("accuracy")
    >>> results = accuracy.compute(predictions=["yes", "no", "Yes"], references=["yes", "yes", "yes"])
    >>> print(round(results["accuracy"], 4), results["n_items"])
    0.3333 3
"""


def _label(value, index, field):
    if isinstance(value, str) and (value or field != "references"):
        return value
    expected = "a non-empty string" if field == "references" else "a string"
    raise at_example(index, f"{field} is {shown(value)} ({type(value).__name__}); expected {expected}")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Accuracy(metric.BenchscoreMetric):
    OPTIONAL_INPUTS = ("item_id",)

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION, citation=_CITATION, inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"),
                                        "references": datasets.Value("string"),
                                        "item_id": datasets.Value("string")}),
        )

    def _prepare(self, batch, start):
        checked = {name: [_label(v, i, name) for i, v in enumerate(batch[name], start)]
                   for name in ("predictions", "references")}
        for i, key in enumerate(batch["item_id"], start):
            if key is not None and not isinstance(key, str):
                raise at_example(i, f"item_id is {shown(key)} ({type(key).__name__}); expected a string or None")
        return {**checked, "item_id": [key or "" for key in batch["item_id"]]}

    def _compute(self, predictions, references, item_id, confidence=None, n_resamples=DEFAULT_RESAMPLES,
                 seed=DEFAULT_SEED):
        if any(item_id) and not all(item_id):
            raise at_example(item_id.index(""), "item_id is missing; give it for every example or for none")
        keys = item_id if all(item_id) else None
        stats = scoring.item_stats(predictions, references, keys)
        result = scoring.result(stats, scoring.inexact_labels(predictions, references))
        if confidence is not None:
            significance.add_confidence(result, stats, n_resamples, seed, confidence)
        return result
