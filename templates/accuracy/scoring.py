"""The template's pure scorer: exact-match accuracy of one label per item (framework-free, no file IO).

accuracy = #{i : prediction_i == reference_i} / n, labels compared as exact strings (the template's
"official" rule: a label that differs only in case or spaces is wrong, and said so in a Note).
Statistics first (`item_stats`, one `ItemStats` per item), then the score (`aggregate`), as sacrebleu.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import benchscore
from benchscore.core.readers import at_example, check_item_stats, shown
from benchscore.core.records import Note, Signature

VERSION = "1.0.0"  # of the official scoring rule this module reproduces
FOLDER = __name__.split(".")[-2]  # this benchmark's folder (so a copy of the template needs no edit here)


@dataclass(frozen=True)
class ItemStats:
    """Everything the corpus numbers need from one item."""

    key: str
    correct: bool
    reference: str


def check_inputs(predictions: Sequence, references: Sequence, keys: Sequence | None = None) -> list[str]:
    """The item keys (default: "0", "1", ...) after checking lengths, labels and keys."""
    if len(predictions) != len(references):
        raise ValueError(f"{len(references)} references but {len(predictions)} predictions; expected one per item")
    keys = [str(i) for i in range(len(references))] if keys is None else list(keys)
    if len(keys) != len(references):
        raise ValueError(f"{len(references)} references but {len(keys)} keys; expected one per item")
    seen: dict[str, int] = {}
    for i, (prediction, reference, key) in enumerate(zip(predictions, references, keys)):
        for field, value in (("prediction", prediction), ("reference", reference), ("key", key)):
            if not isinstance(value, str):
                raise at_example(i, f"{field} is {shown(value)} ({type(value).__name__}); expected a string")
        if not reference:
            raise at_example(i, "reference is empty; expected a label")
        if key in seen:
            raise at_example(i, f"key {shown(key)} repeats example {seen[key]}; expected one example per item")
        seen[key] = i
    return keys


def item_stats(predictions: Sequence[str], references: Sequence[str], keys: Sequence[str] | None = None,
               check_input: bool = True) -> list[ItemStats]:
    """One `ItemStats` per item, in order; `check_input=False` skips `check_inputs` for checked rows."""
    if check_input:
        keys = check_inputs(predictions, references, keys)
    keys = list(keys) if keys is not None else [str(i) for i in range(len(references))]
    return [ItemStats(key, prediction == reference, reference)
            for key, prediction, reference in zip(keys, predictions, references)]


def aggregate(stats: Sequence[ItemStats]) -> dict:
    """{"accuracy", "n_correct", "n_items"} over per-item statistics."""
    if not stats:
        raise ValueError("no items to score; expected at least one")
    stats = check_item_stats(list(stats), ItemStats, f"a {FOLDER} ItemStats")
    n_correct = sum(s.correct for s in stats)
    return {"accuracy": n_correct / len(stats), "n_correct": n_correct, "n_items": len(stats)}


def signature() -> Signature:
    """Everything that fixes the numbers (compare only results whose signatures match)."""
    return Signature(FOLDER, version=VERSION, benchscore=benchscore.__version__, labels="exact")


def inexact_labels(predictions: Sequence[str], references: Sequence[str]) -> list[Note]:
    """A Note when some wrong labels differ from the reference only in case or spaces."""
    found = [i for i, (p, r) in enumerate(zip(predictions, references)) if p != r and p.strip().lower() == r.lower()]
    if not found:
        return []
    return [Note("inexact_labels", f"{len(found)} prediction(s) differ from the reference only in case or spaces "
                                   f"(examples {', '.join(map(str, found[:10]))}); as the official rule, they are "
                                   "wrong")]


def result(stats: Sequence[ItemStats], notes: Sequence[Note] = ()) -> dict:
    """`aggregate`'s numbers with the signature (and "warnings" when there are any)."""
    numbers = aggregate(stats)
    numbers["signature"] = signature()
    if notes:
        numbers["warnings"] = list(notes)
    return numbers


def score(predictions: Sequence[str], references: Sequence[str], keys: Sequence[str] | None = None) -> dict:
    """One call: accuracy and counts, the signature and any notes."""
    stats = item_stats(predictions, references, keys)
    return result(stats, inexact_labels(predictions, references))
