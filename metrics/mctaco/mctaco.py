"""MC-TACO: question-level exact match and F1 for temporal commonsense (the official evaluator's numbers)."""

import functools

import datasets
import evaluate

from benchscore import data
from benchscore.core import metric, resampling
from benchscore.core.checks import as_int, is_int
from benchscore.core.readers import at_example, shown
from benchscore.mctaco import scoring, significance

metric.check_version("0.1.0", "mctaco")

# One citation per benchmark, kept with its official files (`benchscore data list` shows it too).
_CITATION = data.BENCHMARKS["mctaco"].bibtex + "\n"

_DESCRIPTION = """\
MC-TACO scores "yes"/"no" labels of candidate answers to temporal commonsense questions, per question:
EM ("Strict Acc.") is the share of questions whose candidates are all labelled correctly, F1 the mean
per-question F1 of the "yes" labels (1.0 for a question with no gold and no predicted "yes"). The numbers
are the official evaluator's (CogComp/MCTACO) to the last digit; the per-category breakdown is an extension.
"""

_KWARGS_DESCRIPTION = """
Computes MC-TACO's question-level EM and F1 from per-candidate labels.

Args:
    predictions: one label per candidate: "yes"/"no" (any case), 1/0 or True/False.
    references: the gold label per candidate, in the same forms (the loader's ClassLabel ids work).
    question_id: the question of each candidate (a non-empty string or int), for every candidate; or
        instead `sentence` and `question` for every candidate. None or "" means not given.
    sentence, question: the context sentence and question text per candidate (the official key is
        sentence + " " + question).
    category: optional temporal category per candidate (a name, or the loader's ClassLabel id);
        adds the per-category breakdown.
    confidence: (extension) a level such as 0.95 adds percentile-bootstrap intervals over questions
        (categories resampled within themselves); None (default) adds none.
    n_resamples, seed: bootstrap resamples (default 1000) and random seed (default 12345) for `confidence`.
Returns:
    em: share of questions with every candidate right ("Strict Acc."), in [0, 1].
    f1: mean per-question F1 ("Avg F1"), in [0, 1].
    n_questions: number of questions scored.
    extension_per_category: (extension, only with `category`) {category: {em, f1, n_questions}}.
    extension_confidence_intervals: (extension, only with `confidence`) {"em": {"low", "high"}, "f1": ...};
        with `category`, each category's entry gets "confidence_intervals" too.
    signature: what fixes these numbers (with `confidence`, also `bootstrap:<n>|seed:<seed>|confidence:<level>`).
Raises:
    ValueError (TypeError for a non-list column) naming `example N`, the candidate's 0-based index
    across all `add`/`add_batch` calls, for a label, key or category that is not one of the above.
Examples:
    >>> mctaco = evaluate.load("mctaco")
    >>> results = mctaco.compute(predictions=["yes", "no", "no", "yes"], references=["yes", "no", "yes", "yes"],
    ...                          question_id=["q1", "q1", "q2", "q2"])
    >>> print(round(results["em"], 4), round(results["f1"], 4), results["n_questions"])
    0.5 0.8333 2
    >>> results["signature"]
    'mctaco|version:1.0.0|benchscore:0.1.0|key:question_id|labels:normalized'

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

    >>> results = mctaco.compute(predictions=["yes", "no", "yes", "yes", "no", "no"],
    ...                          references=["yes", "no", "yes", "no", "no", "yes"],
    ...                          question_id=["q1", "q1", "q2", "q2", "q3", "q3"],
    ...                          confidence=0.95, n_resamples=200, seed=7)
    >>> interval = results["extension_confidence_intervals"]["em"]
    >>> print(round(results["em"], 4), round(interval["low"], 4), round(interval["high"], 4))
    0.3333 0.0 0.675
    >>> results["signature"]
    'mctaco|version:1.0.0|benchscore:0.1.0|key:question_id|labels:normalized|bootstrap:200|seed:7|confidence:0.95'
"""


def _text(value, index, field, numbers=False):
    """A string column's value: "" for None (Arrow's first-example check refuses None), else the string."""
    if value is None or isinstance(value, str):
        return value or ""
    if numbers and scoring.is_question_key(value):  # an int here: the pure scorer's rule
        return str(as_int(value))
    expected = "a string or a 64-bit integer" if numbers else "a string"
    raise at_example(index, f"{field} is {shown(value)} ({type(value).__name__}); expected {expected} or None")


def _category(value, index):
    if is_int(value):
        if 0 <= value < len(scoring.CATEGORIES):
            return scoring.CATEGORIES[as_int(value)]
        raise at_example(index, f"category is {shown(value)}; expected a name from {scoring.CATEGORIES} or its id 0-4")
    return _text(value, index, "category")


# The values most inputs hold, by type and value (so 1.0, which equals 1, is not among them): the
# official labels, the loader's ClassLabel ids, booleans, None for a feature not given.
LABEL_IDS = {(str, "yes"): True, (str, "no"): False, (int, 1): True, (int, 0): False, (bool, True): True,
             (bool, False): False}
NOT_GIVEN: dict[tuple[type, object], object] = {(type(None), None): ""}
# feature -> (its common values as stored, the check(value, index) of any other value)
COLUMNS = {
    "predictions": (LABEL_IDS, functools.partial(scoring.to_yes, field="prediction")),
    "references": (LABEL_IDS, functools.partial(scoring.to_yes, field="reference")),
    "question_id": (NOT_GIVEN, functools.partial(_text, field="question_id", numbers=True)),
    **{name: (NOT_GIVEN, functools.partial(_text, field=name)) for name in ("sentence", "question")},
    "category": (NOT_GIVEN | {(int, i): c for i, c in enumerate(scoring.CATEGORIES)}, _category),
}


def _checked(name, values, start):
    """`COLUMNS[name]`'s check on every value; a column of plain strings or of common values in one pass."""
    common, check = COLUMNS[name]
    if common is not LABEL_IDS and all(type(value) is str for value in values):
        return values
    try:
        return [common[type(value), value] for value in values]
    except (KeyError, TypeError):  # some value is not a common one: checked one by one
        return [check(value, index) for index, value in enumerate(values, start)]


def _check_one_id_type(values, start, first):
    """`first` = (kind, index) of the first typed question_id seen; an error at the first of another type
    ("1" and 1 would be one question once stored as text). None and bad values are left to `_text`."""
    for index, value in enumerate(values, start):
        if value is not None:
            kind = "a string" if isinstance(value, str) else "an int"
            first = first or (kind, index)
            if kind != first[0]:
                raise at_example(index, f"question_id is {shown(value)} ({kind}) but example {first[1]} gave "
                                        f"{first[0]}; expected one type")
    return first


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Mctaco(metric.BenchscoreMetric):
    OPTIONAL_INPUTS = ("question_id", "sentence", "question", "category")

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("bool"), "references": datasets.Value("bool"),
                                        **{name: datasets.Value("string") for name in self.OPTIONAL_INPUTS}}),
            reference_urls=["https://github.com/CogComp/MCTACO", "https://arxiv.org/abs/1909.03065"],
        )

    def _prepare(self, batch, start):
        prepared = {name: _checked(name, batch[name], start) for name in COLUMNS}
        first = None if start == 0 else getattr(self, "_first_id_type", None)
        self._first_id_type = _check_one_id_type(batch["question_id"], start, first)
        for i, qid, sentence, question in zip(range(start, start + len(batch["predictions"])),
                                              prepared["question_id"], prepared["sentence"], prepared["question"]):
            if not qid and not (sentence and question):
                raise at_example(i, "no question_id, and no sentence and question; expected a question_id, "
                                    "or a sentence and a question")
        return prepared

    def _compute(self, predictions, references, question_id, sentence, question, category, confidence=None,
                 n_resamples=resampling.DEFAULT_RESAMPLES, seed=resampling.DEFAULT_SEED):
        # Every example was checked by _prepare; only what spans examples is checked here.
        for name, column in (("question_id", question_id), ("category", category)):
            if any(column) and not all(column):
                raise at_example(column.index(""), f"{name} is missing; give it for every example or for none")
        keys, key_source = question_id, "question_id"
        if not any(question_id):
            keys, key_source = [scoring.question_key(s, q) for s, q in zip(sentence, question)], "sentence+question"
        categories = category if any(category) else None
        scoring.check_categories(keys, categories)
        stats = scoring.item_stats(predictions, references, keys, categories, check_input=False)
        result = scoring.result(stats, key_source)
        if confidence is not None:
            significance.add_confidence(result, stats, n_resamples, seed, level=confidence)
        return result
