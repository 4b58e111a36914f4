"""MC-TACO scoring, exactly as the official evaluator (CogComp/MCTACO `evaluator/evaluator.py`).

Zhou et al., EMNLP 2019. The unit is the *question*: the distinct string ``sentence + " " + question``,
grouped in first-appearance order (candidates of one question need not be consecutive). Two steps:

1. `question_stats` reduces the candidate rows to one `QuestionStats` per question (counts only);
2. `aggregate` turns any list of those into the corpus numbers, so slices, batching and resampling
   never re-score candidates.

Official formulas, per question (tp = predicted yes and gold yes, n_pred = predicted yes,
n_gold = gold yes)::

    EM_q = every candidate's prediction equals its gold label
    P = tp / n_pred if n_pred > 0 else 1.0      # nothing predicted: precision 1
    R = tp / n_gold if n_gold > 0 else 1.0      # nothing to find: recall 1
    F1_q = 2 * P * R / (P + R) if P + R > 0 else 0.0

so a question with no gold "yes" and no predicted "yes" has F1 = 1.0. "Strict Acc." (EM) and
"Avg F1" are the means over questions; the F1 mean is a plain float sum from 0.0 in question order
divided by the count, which is what reproduces the official floats to the last digit.

Where we differ from the official tool (its labels are exact, case-sensitive strings and it
ignores surplus prediction lines), inputs are validated instead: labels may be "yes"/"no" in any
case, 1/0 or booleans; anything else, or a length mismatch, is a `ValueError` naming the row.
"""

from dataclasses import dataclass

METRIC_VERSION = "1.0.0"

# The order of the Hub dataset's ClassLabel (CogComp/mc_taco), so category ids match it.
CATEGORIES = ("Event Duration", "Event Ordering", "Frequency", "Typical Time", "Stationarity")
LABELS = ("no", "yes")  # ClassLabel order of the Hub dataset: 0 = no, 1 = yes


@dataclass(frozen=True)
class QuestionStats:
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
        # Official order of operations (not 2*tp/(n_pred+n_gold), which differs in the last bit).
        precision = self.true_positives / self.n_predicted_yes if self.n_predicted_yes > 0 else 1.0
        recall = self.true_positives / self.n_gold_yes if self.n_gold_yes > 0 else 1.0
        return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def to_yes(value, where, field):
    """True for a "yes" label, False for "no"; `where` and `field` name the input in errors.

    Accepted: "yes"/"no" in any case (surrounding white space ignored), 1/0, True/False.
    """
    if isinstance(value, str):
        label = value.strip().lower()
        if label in ("yes", "no"):
            return label == "yes"
    elif value in (0, 1) and not isinstance(value, float):  # bools and ints (numpy ints too)
        return bool(value)
    raise ValueError(f"{where}: {field} is {value!r}; expected 'yes' or 'no' (any case), 1 or 0, True or False")


def question_stats(predictions, references, question_keys, categories=None):
    """Per-question statistics from aligned candidate rows.

    Args:
        predictions, references: one label per candidate row (see `to_yes`).
        question_keys: one key per row; rows with equal keys are one question. The official key is
            ``sentence + " " + question`` (see `question_key`).
        categories: optional, one category name per row (constant within a question).

    Returns:
        a list of `QuestionStats` in first-appearance order of the keys.
    """
    n_rows = len(references)
    for name, column in (("predictions", predictions), ("question keys", question_keys), ("categories", categories)):
        if column is not None and len(column) != n_rows:
            raise ValueError(f"{n_rows} references but {len(column)} {name}; expected one per candidate row")
    counts = {}  # key -> [category, n_candidates, n_correct, tp, n_pred_yes, n_gold_yes]; dicts keep insertion order
    for row in range(n_rows):
        predicted = to_yes(predictions[row], f"row {row}", "prediction")
        gold = to_yes(references[row], f"row {row}", "reference")
        category = None if categories is None else categories[row]
        entry = counts.get(question_keys[row])
        if entry is None:
            entry = counts[question_keys[row]] = [category, 0, 0, 0, 0, 0]
        elif entry[0] != category:
            raise ValueError(
                f"row {row}: category {category!r} differs from {entry[0]!r} given earlier for the same question "
                f"{question_keys[row]!r}; a question has one category"
            )
        entry[1] += 1
        entry[2] += predicted == gold
        entry[3] += predicted and gold
        entry[4] += predicted
        entry[5] += gold
    return [QuestionStats(key, *entry) for key, entry in counts.items()]


def aggregate(stats):
    """Corpus EM and F1 over per-question statistics (the official "Strict Acc." and "Avg F1")."""
    if not stats:
        raise ValueError("no questions to score; expected at least one candidate row")
    f1_sum = 0.0
    for question in stats:  # plain left-to-right float sum, as the official tool
        f1_sum += question.f1
    return {
        "em": sum(question.exact_match for question in stats) / len(stats),
        "f1": f1_sum / len(stats),
        "n_questions": len(stats),
    }


def per_category(stats):
    """Extension (not in the official tool): `aggregate` within each category, in `CATEGORIES` order."""
    by_category = {}
    for question in stats:
        by_category.setdefault(question.category, []).append(question)
    order = {name: i for i, name in enumerate(CATEGORIES)}
    return {
        category: aggregate(by_category[category])
        for category in sorted(by_category, key=lambda c: (order.get(c, len(order)), str(c)))
    }


def question_key(sentence, question):
    """The official question key."""
    return sentence + " " + question


def score(predictions, references, question_keys, categories=None):
    """One call: EM and F1 (official), plus the per-category breakdown when categories are given."""
    stats = question_stats(predictions, references, question_keys, categories)
    result = aggregate(stats)
    if categories is not None:
        result["extension_per_category"] = per_category(stats)
    return result


def signature(key_source, **options):
    """A sacrebleu-style string naming everything that fixes the numbers."""
    parts = ["mctaco", f"version:{METRIC_VERSION}", f"key:{key_source}", "labels:normalized"]
    parts += [f"{name}:{value}" for name, value in sorted(options.items())]
    return "|".join(parts)
