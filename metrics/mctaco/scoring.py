"""MC-TACO scoring, exactly as the official evaluator (CogComp/MCTACO `evaluator/evaluator.py`).

Zhou et al., EMNLP 2019. The unit is the *question*: the distinct string ``sentence + " " + question``.
Unlike the official tool (exact strings), labels may be "yes"/"no" in any case, 1/0 or booleans.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import benchscore
from benchscore.core.checks import as_int, is_int
from benchscore.core.readers import at_example, check_item_stats, shown
from benchscore.core.records import Signature

VERSION = "1.0.0"

# The orders of the Hub dataset's ClassLabels (CogComp/mc_taco), so ids match it.
CATEGORIES = ("Event Duration", "Event Ordering", "Frequency", "Typical Time", "Stationarity")
LABELS = ("no", "yes")  # 0 = no, 1 = yes
KEY_SOURCES = ("question_id", "sentence+question")  # what the question keys are made of (in the signature)


@dataclass(frozen=True)
class ItemStats:
    """Everything the corpus numbers need from one question."""

    key: str
    category: object  # a category name, or None when not given
    n_candidates: int
    n_correct: int  # candidates whose prediction equals the gold label
    true_positives: int
    n_predicted_yes: int
    n_gold_yes: int

    @property
    def exact_match(self):
        return self.n_correct == self.n_candidates

    @property
    def f1(self):
        return question_f1(self.true_positives, self.n_predicted_yes, self.n_gold_yes)


def question_f1(true_positives: int, n_predicted_yes: int, n_gold_yes: int) -> float:
    """One question's F1 over its "yes" answers, as the official evaluator computes it."""
    # Official order of operations (not 2*tp/(n_pred+n_gold), which differs in the last bit).
    precision = true_positives / n_predicted_yes if n_predicted_yes > 0 else 1.0
    recall = true_positives / n_gold_yes if n_gold_yes > 0 else 1.0
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def parse_label(value):
    """True for a "yes" label ("yes"/"no" in any case, 1/0, booleans), False for "no", None for anything else."""
    if isinstance(value, str):
        label = value.strip().lower()
        return label == "yes" if label in LABELS else None
    if value in (0, 1) and not isinstance(value, float):  # bools and ints (numpy ints too)
        return bool(value)
    return None


def to_yes(value, index, field):
    """`parse_label`, or an `InputError` naming `example index` and `field`."""
    yes = parse_label(value)
    if yes is None:
        raise at_example(index, f"{field} is {shown(value)}; expected 'yes' or 'no' (any case), 1 or 0, True or False")
    return yes


def is_question_key(key):
    """A string, or an integer of at most 64 bits (the evaluate module stores ids as text; one rule for both)."""
    return isinstance(key, str) or (is_int(key) and as_int(key).bit_length() <= 64)


def check_inputs(predictions, references, question_keys, categories=None):
    """The rows checked (lengths, labels, keys, one category per question); labels as booleans."""
    n_rows = len(references)
    for name, column in (("predictions", predictions), ("question keys", question_keys), ("categories", categories)):
        if column is not None and len(column) != n_rows:
            raise ValueError(f"{n_rows} references but {len(column)} {name}; expected one per candidate row")
    predicted = [to_yes(value, i, "prediction") for i, value in enumerate(predictions)]
    gold = [to_yes(value, i, "reference") for i, value in enumerate(references)]
    for i, key in enumerate(question_keys):
        if not is_question_key(key):
            raise at_example(i, f"question key is {shown(key)}; expected a string or a 64-bit integer")
    check_categories(question_keys, categories)
    return predicted, gold


def check_categories(question_keys, categories):
    """Every question has one category, a name from `CATEGORIES` (or `categories` is None)."""
    if categories is None:
        return
    first = {}  # key -> the category of its first row
    for i, (key, category) in enumerate(zip(question_keys, categories)):
        if key not in first and category not in CATEGORIES:  # one test per question, not per row
            raise at_example(i, f"category is {shown(category)}; expected one of {CATEGORIES}")
        if first.setdefault(key, category) != category:
            raise at_example(i, f"category {shown(category)} differs from {shown(first[key])} given earlier for the "
                                f"same question {shown(key)}; expected one category per question")


def item_stats(predictions: Sequence, references: Sequence, question_keys: Sequence, categories: Sequence | None = None,
               check_input: bool = True) -> list:
    """`ItemStats` per question, in first-appearance order of `question_keys` (one per row, see `question_key`);
    `check_input=False` skips `check_inputs` for rows already checked (labels as booleans), as scikit-learn's."""
    if check_input:
        predictions, references = check_inputs(predictions, references, question_keys, categories)
    if categories is None:
        categories = [None] * len(question_keys)
    # key -> [category, n_candidates, n_correct, tp, n_pred_yes, n_gold_yes]; dicts keep insertion order
    counts: dict = {}
    for predicted, gold, key, category in zip(predictions, references, question_keys, categories):
        entry = counts.get(key)
        if entry is None:
            entry = counts[key] = [category, 0, 0, 0, 0, 0]
        entry[1] += 1
        entry[2] += predicted == gold
        entry[3] += predicted and gold
        entry[4] += predicted
        entry[5] += gold
    return [ItemStats(key, *entry) for key, entry in counts.items()]


def aggregate(stats: Sequence[ItemStats]) -> dict:
    """Corpus EM and F1 over per-question statistics (the official "Strict Acc." and "Avg F1")."""
    return _corpus(_scored(stats))


def _scored(stats):
    """(F1, exact match) of each question, each read once (the corpus and the categories share them)."""
    if not stats:
        return []  # (`_corpus` refuses no questions)
    return [(question.f1, question.exact_match) for question in check_item_stats(stats, ItemStats,
                                                                                  "an mctaco ItemStats")]


def _corpus(scored):
    if not scored:
        raise ValueError("no questions to score; expected at least one candidate row")
    f1_sum = 0.0
    for f1, _ in scored:  # plain left-to-right float sum, as the official tool
        f1_sum += f1
    n_exact = sum(exact for _, exact in scored)
    return {"em": n_exact / len(scored), "f1": f1_sum / len(scored), "n_questions": len(scored)}


def _category_groups(categories: list) -> dict[object, list[int]]:
    """The positions of each category in `categories`, in `CATEGORIES` order (other names after, sorted)."""
    groups: dict = {}
    for index, category in enumerate(categories):
        groups.setdefault(category, []).append(index)
    others = sorted((category for category in groups if category not in CATEGORIES), key=str)
    return {category: groups[category] for category in (*CATEGORIES, *others) if category in groups}


def by_category(stats):
    """The questions of each category, in `CATEGORIES` order (other names after, sorted)."""
    stats = list(stats)
    return {category: [stats[i] for i in positions]
            for category, positions in _category_groups([question.category for question in stats]).items()}


def per_category(stats: Sequence[ItemStats]) -> dict:
    """Extension (not in the official tool): `aggregate` within each category, in `CATEGORIES` order."""
    if not len(stats):
        return {}  # no questions: no category
    return _per_category(_scored(stats), [question.category for question in stats])


def _per_category(scored, categories):
    return {category: _corpus([scored[i] for i in positions])
            for category, positions in _category_groups(categories).items()}


def question_key(sentence, question):
    """The official question key."""
    return sentence + " " + question


def result(stats: Sequence[ItemStats], key_source: str, **options: object) -> dict:
    """The result dict of `stats`: `aggregate`, the per-category extension (when categories are given), signature."""
    scored = _scored(stats)
    categories = [question.category for question in stats] if scored and stats[0].category is not None else None
    return _result(scored, categories, key_source, options)


def result_of_counts(categories: Sequence[str], counts: Sequence[int], key_source: str) -> dict:
    """`result` of questions given as counts rather than `ItemStats` (the same numbers, without making an
    object per question): question i has category `categories[i]` and the five counts
    `counts[5 * i:5 * i + 5]`, in ItemStats' order (n_candidates, n_correct, true_positives,
    n_predicted_yes, n_gold_yes). For counts already checked (MC-TACO's command: `kernel.add_rows`)."""
    scored = [(question_f1(counts[at + 2], counts[at + 3], counts[at + 4]), counts[at + 1] == counts[at])
              for at in range(0, len(counts), 5)]
    return _result(scored, categories, key_source, {})


def _result(scored, categories, key_source, options):
    """`result` of each question's (F1, exact match) and its category (None: no per-category extension)."""
    numbers = _corpus(scored)
    if categories is not None:
        numbers["extension_per_category"] = _per_category(scored, categories)
    numbers["signature"] = signature(key_source, **options)
    return numbers


def score(predictions: Sequence, references: Sequence, question_keys: Sequence, categories: Sequence | None = None,
          key_source: str = "question_id") -> dict:
    """One call: EM and F1 (official), the per-category breakdown when categories are given, the signature."""
    return result(item_stats(predictions, references, question_keys, categories), key_source)


def signature(key_source: str, **options: object) -> Signature:
    """A sacrebleu-style `Signature` naming everything that fixes the numbers."""
    if key_source not in KEY_SOURCES:
        raise ValueError(f"key_source is {shown(key_source)}; expected one of {KEY_SOURCES}")
    return Signature("mctaco", [("version", VERSION), ("benchscore", benchscore.__version__), ("key", key_source),
                                ("labels", "normalized"), *sorted(options.items())])
