"""How sure an MC-TACO number is: bootstrap intervals and paired tests over questions.

The unit is the question (as in the official EM and F1), so a resample draws questions, never
candidate rows. Each question is a row (exact match, F1, 1) of per-question statistics from
`scoring.question_stats`; EM and F1 are column sums over the count:

    em = sum(exact) / n        f1 = sum(F1_q) / n

The point estimates are always the parity numbers of `scoring.aggregate`; only the interval and
the p-values come from resampling (`resampling.py`, the same file in every metric folder).

    stats = question_stats(predictions, references, question_keys)
    confidence_intervals(stats)                  # {"em": {"estimate", "low", "high"}, "f1": {...}}
    paired_test(stats_bert, stats_roberta)       # difference, interval, p-values per number
"""

from .resampling import DEFAULT_LEVEL
from .resampling import DEFAULT_RESAMPLES
from .resampling import DEFAULT_SEED
from .resampling import add_compare_options
from .resampling import as_values
from .resampling import bounds
from .resampling import check_options
from .resampling import intervals
from .resampling import paired
from .resampling import report_comparison
from .resampling import signature_part
from .scoring import aggregate
from .scoring import per_category
from .scoring import signature

HEADLINE = ("em", "f1")


def question_values(stats):
    """One row (exact match, F1, 1) per question."""
    return as_values([(q.exact_match, q.f1, 1.0) for q in stats], 3)


def statistic(sums):
    """EM and F1 from column sums of `question_values` (one row of sums per sample)."""
    return {"em": sums[:, 0] / sums[:, 2], "f1": sums[:, 1] / sums[:, 2]}


def _estimates(stats):
    result = aggregate(stats)
    return {name: result[name] for name in HEADLINE}


def confidence_intervals(stats, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL):
    """Percentile bootstrap over questions: {"em": {"estimate", "low", "high"}, "f1": {...}}.

    `estimate` is exactly `aggregate(stats)`'s number. For a slice, pass that slice's stats: its
    questions are resampled within it.
    """
    check_options(n_resamples, seed, level)
    return intervals(question_values(stats), statistic, _estimates(stats), n_resamples, seed, level)


def per_category_intervals(stats, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL):
    """Extension: `confidence_intervals` within each category (questions resampled within it)."""
    check_options(n_resamples, seed, level)
    by_category = {}
    for question in stats:
        by_category.setdefault(question.category, []).append(question)
    return {category: confidence_intervals(by_category[category], n_resamples, seed, level)
            for category in per_category(stats)}  # per_category's order


def check_same_questions(stats_a, stats_b):
    """Both systems must be scored on the same questions, in the same order, against the same gold."""
    if len(stats_a) != len(stats_b):
        raise ValueError(f"system A has {len(stats_a)} questions and system B {len(stats_b)}; "
                         "a paired test needs both scored on the same gold file")
    for index, (a, b) in enumerate(zip(stats_a, stats_b)):
        if (a.key, a.n_candidates, a.n_gold_yes) != (b.key, b.n_candidates, b.n_gold_yes):
            raise ValueError(
                f"question {index} ({a.key[:60]!r}): systems A and B differ in question key, candidate count "
                f"or gold labels ({a.key[:30]!r}/{a.n_candidates}/{a.n_gold_yes} vs "
                f"{b.key[:30]!r}/{b.n_candidates}/{b.n_gold_yes}); expected the same gold questions in the same order"
            )


def paired_test(stats_a, stats_b, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL):
    """Paired bootstrap and approximate randomization of B against A over the same questions.

    Returns {"em": {"a", "b", "difference", "low", "high", "p_bootstrap", "p_randomization"}, "f1": ...};
    difference = b - a, (low, high) its interval at `level`, p-values two-sided.
    """
    check_options(n_resamples, seed, level)
    check_same_questions(stats_a, stats_b)
    return paired(question_values(stats_a), question_values(stats_b), statistic, _estimates(stats_a),
                  _estimates(stats_b), n_resamples, seed, level)


def add_confidence(result, stats, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL):
    """Adds intervals to a result dict of `stats` (as `compute` returns it) and names them in its signature.

    Extension keys: "extension_confidence_intervals" {"em": {"low", "high"}, "f1": ...}, and in each
    "extension_per_category" entry (if any) "confidence_intervals", resampled within the category.
    """
    options = (n_resamples, seed, level)
    result["extension_confidence_intervals"] = bounds(confidence_intervals(stats, *options))
    if "extension_per_category" in result:
        for category, per in per_category_intervals(stats, *options).items():
            result["extension_per_category"][category]["confidence_intervals"] = bounds(per)
    result["signature"] += "|" + signature_part(*options)
    return result


# ------------------------------------------------------------------ `benchscore compare mctaco`


def add_compare_arguments(parser):
    parser.add_argument("--gold", required=True, help="the MC-TACO TSV (dev_3783.tsv or test_9442.tsv)")
    add_compare_options(parser, "one yes/no label per line, aligned with --gold")


def read_stats(gold_path, predictions_path):
    """Per-question stats of a prediction file against a gold TSV (validated as `benchscore mctaco` does)."""
    # Imported here: the evaluate module ships this file without the loader (it never reads files).
    from .loader import read_predictions
    from .loader import read_tsv
    from .scoring import question_key
    from .scoring import question_stats
    from .scoring import to_yes

    rows = read_tsv(gold_path)
    predictions = read_predictions(predictions_path)
    if len(predictions) != len(rows):
        raise ValueError(f"{predictions_path} has {len(predictions)} labels but {gold_path} has {len(rows)} rows; "
                         "expected one label per gold row, in the same order")
    for line, label in enumerate(predictions, start=1):
        to_yes(label, f"{predictions_path}: line {line}", "the label")
    keys = [question_key(row["sentence"], row["question"]) for row in rows]
    return question_stats(predictions, [row["label"] for row in rows], keys, [row["category"] for row in rows])


def run_compare(args):
    from benchscore import data  # `official:<split>` -> the store's verified file (benchscore.data)
    args.gold = data.resolve("mctaco", args.gold)
    stats = [read_stats(args.gold, path) for path in args.predictions]
    return report_comparison(args, stats, confidence_intervals, paired_test, signature("sentence+question"))
