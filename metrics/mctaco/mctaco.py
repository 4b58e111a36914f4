"""MC-TACO: question-level exact match and F1 for temporal commonsense (the official evaluator's numbers)."""

import datasets
import evaluate

from benchscore.core.resampling import DEFAULT_RESAMPLES
from benchscore.core.resampling import DEFAULT_SEED
from .scoring import CATEGORIES
from .scoring import aggregate
from .scoring import per_category
from .scoring import question_key
from .scoring import question_stats
from .scoring import signature
from .scoring import to_yes
from .significance import add_confidence

_CITATION = """\
@inproceedings{ZKNR19,
    author = {Ben Zhou and Daniel Khashabi and Qiang Ning and Dan Roth},
    title = {"Going on a vacation" takes longer than "Going for a walk": A Study of Temporal Commonsense Understanding},
    booktitle = {EMNLP},
    year = {2019},
}
"""

_DESCRIPTION = """\
MC-TACO scores candidate answers to temporal commonsense questions. Each candidate is labelled
"yes" (plausible) or "no"; a question has several candidates. The official metrics are computed per
question and averaged over questions: EM ("Strict Acc.") is the share of questions whose candidates
are all labelled correctly, and F1 is the mean per-question F1 of the "yes" labels, where a question
with no gold "yes" and no predicted "yes" scores 1.0. This module reproduces the official evaluator
(CogComp/MCTACO evaluator/evaluator.py) to the last digit; the per-category breakdown is an
extension.
"""

_KWARGS_DESCRIPTION = """
Computes MC-TACO's question-level EM and F1 from per-candidate labels.

Args:
    predictions: one label per candidate: "yes"/"no" (any case), 1/0 or True/False.
    references: the gold label per candidate, in the same forms (the loader's ClassLabel ids work).
    question_id: the question each candidate belongs to (any non-empty string or int). Either this,
        or `sentence` and `question` (the official key is sentence + " " + question). Optional when
        sentence and question are given; None or "" means not given.
    sentence: the context sentence per candidate (optional when question_id is given).
    question: the question text per candidate (optional when question_id is given).
    category: optional temporal category per candidate (a name, or the loader's ClassLabel id);
        adds the per-category breakdown.
    confidence: (extension) a level such as 0.95 adds percentile-bootstrap intervals over questions
        (categories resampled within themselves); None (default) adds none.
    n_resamples: bootstrap resamples for `confidence` (default 1000).
    seed: random seed for `confidence` (default 12345); with the same seed the intervals repeat.
Returns:
    em: share of questions with every candidate right ("Strict Acc."), in [0, 1].
    f1: mean per-question F1 ("Avg F1"), in [0, 1].
    n_questions: number of questions scored.
    extension_per_category: (extension, only with `category`) {category: {em, f1, n_questions}}.
    extension_confidence_intervals: (extension, only with `confidence`) {"em": {"low", "high"}, "f1": ...};
        with `category`, each category's entry gets "confidence_intervals" too.
    signature: the module version and the options that fix these numbers (with `confidence`, also
        `bootstrap:<n_resamples>|seed:<seed>|confidence:<level>`).
Examples:
    >>> mctaco = evaluate.load("mctaco")
    >>> results = mctaco.compute(
    ...     predictions=["yes", "no", "no", "yes"],
    ...     references=["yes", "no", "yes", "yes"],
    ...     question_id=["q1", "q1", "q2", "q2"],
    ... )
    >>> print(round(results["em"], 4), round(results["f1"], 4), results["n_questions"])
    0.5 0.8333 2
    >>> results["signature"]
    'mctaco|version:1.0.0|key:question_id|labels:normalized'

    A question with no gold "yes" and no predicted "yes" scores F1 = 1.0 (the official rule):

    >>> results = mctaco.compute(predictions=[0, 0], references=[0, 0], question_id=[7, 7])
    >>> print(results["em"], results["f1"])
    1.0 1.0

    With sentences, questions and categories, batch by batch:

    >>> for batch in [{"predictions": ["yes", "no"], "references": ["yes", "yes"]},
    ...               {"predictions": [True], "references": [False]}]:
    ...     n = len(batch["predictions"])
    ...     mctaco.add_batch(sentence=["He slept."] * n, question=["How long?"] * n,
    ...                      category=["Event Duration"] * n, **batch)
    >>> results = mctaco.compute()
    >>> print(results["em"], round(results["f1"], 4))
    0.0 0.5
    >>> results["extension_per_category"]["Event Duration"]["n_questions"]
    1

    How sure is a number? A seeded bootstrap over questions (an extension; the numbers are unchanged):

    >>> results = mctaco.compute(
    ...     predictions=["yes", "no", "yes", "yes", "no", "no"],
    ...     references=["yes", "no", "yes", "no", "no", "yes"],
    ...     question_id=["q1", "q1", "q2", "q2", "q3", "q3"],
    ...     confidence=0.95, n_resamples=200, seed=7,
    ... )
    >>> interval = results["extension_confidence_intervals"]["em"]
    >>> print(round(results["em"], 4), round(interval["low"], 4), round(interval["high"], 4))
    0.3333 0.0 0.675
    >>> results["signature"]
    'mctaco|version:1.0.0|key:question_id|labels:normalized|bootstrap:200|seed:7|confidence:0.95'
"""

# Keys a user may leave out (the question key has two forms; the category is optional).
OPTIONAL_INPUTS = ("sentence", "question", "question_id", "category")


def _to_string_label(value, position):
    """Labels reach Arrow as strings: ints and booleans become "yes"/"no" here, strings pass as they are."""
    if isinstance(value, str):
        return value  # validated, with its global row number, in _compute
    return "yes" if to_yes(value, f"row {position} of this batch", "label") else "no"


def _to_category_name(value, position):
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(CATEGORIES):
        return CATEGORIES[value]  # the loader's ClassLabel id
    raise ValueError(
        f"row {position} of this batch: category is {value!r}; expected a name from {CATEGORIES} or its id 0-4"
    )


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Mctaco(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Value("string"),
                    "references": datasets.Value("string"),
                    "question_id": datasets.Value("string"),
                    "sentence": datasets.Value("string"),
                    "question": datasets.Value("string"),
                    "category": datasets.Value("string"),
                }
            ),
            reference_urls=["https://github.com/CogComp/MCTACO", "https://arxiv.org/abs/1909.03065"],
        )

    # evaluate requires every feature in every call; these three fill the optional ones with None and
    # turn ints/booleans into the declared strings, so users can pass what they have.
    def compute(self, *, predictions=None, references=None, **kwargs):
        """Scores what was added (and `predictions`/`references` with their features, if given)."""
        # (evaluate appends the inputs description to this docstring, so it must exist.)
        if predictions is not None:
            for name in OPTIONAL_INPUTS:
                kwargs.setdefault(name, [None] * len(predictions))
        return super().compute(predictions=predictions, references=references, **kwargs)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Adds a batch of candidate rows; optional features may be left out."""
        n = len(predictions)
        for name in OPTIONAL_INPUTS:
            if kwargs.get(name) is None:
                kwargs[name] = [None] * n
        # evaluate refuses None in a string column, so "not given" travels as "".
        kwargs["question_id"] = ["" if value is None else str(value) for value in kwargs["question_id"]]
        kwargs["category"] = [_to_category_name(value, i) or "" for i, value in enumerate(kwargs["category"])]
        for name in ("sentence", "question"):
            kwargs[name] = ["" if value is None else value for value in kwargs[name]]
        return super().add_batch(
            predictions=[_to_string_label(value, i) for i, value in enumerate(predictions)],
            references=[_to_string_label(value, i) for i, value in enumerate(references)],
            **kwargs,
        )

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Adds one candidate row; optional features may be left out."""
        batch = {name: [value] for name, value in kwargs.items()}
        self.add_batch(predictions=[prediction], references=[reference], **batch)

    def _compute(self, predictions, references, question_id, sentence, question, category, confidence=None,
                 n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED):
        # "" marks an optional feature that was not given (see add_batch).
        if all(question_id):
            keys, key_source = question_id, "question_id"
        else:
            for row, (qid, sent, text) in enumerate(zip(question_id, sentence, question)):
                if qid or not sent or not text:
                    raise ValueError(
                        f"row {row}: give every row a question_id, or every row a sentence and a question; "
                        f"found question_id={qid!r}, sentence={sent!r}, question={text!r}"
                    )
            keys, key_source = [question_key(s, q) for s, q in zip(sentence, question)], "sentence+question"
        if any(category) and not all(category):
            raise ValueError(f"row {category.index('')}: category is missing; give a category for every row or none")
        categories = category if all(category) else None
        stats = question_stats(predictions, references, keys, categories)
        result = aggregate(stats)
        if categories:
            result["extension_per_category"] = per_category(stats)
        result["signature"] = signature(key_source)
        if confidence is not None:
            add_confidence(result, stats, n_resamples, seed, level=confidence)
        return result
