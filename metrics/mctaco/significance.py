"""How sure an MC-TACO number is: bootstrap intervals and paired tests over questions (see the card).

A resample draws questions (the unit of the official EM and F1), never candidate rows: each question
is a row (exact match, F1, 1) of `scoring.item_stats`, and em = sum(exact) / n, f1 = sum(F1_q) / n.
The point estimates are always `scoring.aggregate`'s parity numbers; only the intervals and p-values
come from resampling (`benchscore.core.resampling`).
"""

from collections.abc import Sequence

import numpy as np

from benchscore.core import resampling
from benchscore.core.resampling import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED
from benchscore.mctaco import scoring


def item_values(stats: Sequence[scoring.ItemStats]) -> np.ndarray:
    """One row (exact match, F1, 1) per question."""
    return resampling.as_values([(q.exact_match, q.f1, 1.0) for q in stats], 3)


def statistic(sums: np.ndarray) -> dict:
    """EM and F1 from column sums of `item_values` (one row of sums per sample)."""
    return {"em": sums[:, 0] / sums[:, 2], "f1": sums[:, 1] / sums[:, 2]}


def _estimates(stats):
    result = scoring.aggregate(stats)
    return {"em": result["em"], "f1": result["f1"]}


def confidence_intervals(stats: Sequence[scoring.ItemStats], n_resamples: int = DEFAULT_RESAMPLES,
                         seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL) -> dict:
    """Percentile bootstrap over questions: {"em": {"estimate", "low", "high"}, "f1": {...}}; a slice's stats
    are resampled within the slice."""
    return resampling.intervals(item_values(stats), statistic, _estimates(stats), n_resamples, seed, level)


def per_category_intervals(stats, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL):
    """Extension: `confidence_intervals` within each category (questions resampled within it)."""
    return {category: confidence_intervals(questions, n_resamples, seed, level)
            for category, questions in scoring.by_category(stats).items()}


def paired_test(stats_a: Sequence[scoring.ItemStats], stats_b: Sequence[scoring.ItemStats],
                n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL) -> dict:
    """Paired bootstrap and approximate randomization of B against A over the same questions: {"em": {"a",
    "b", "difference" (b - a), "low", "high" (its interval), "p_bootstrap", "p_randomization"}, "f1": ...}."""
    resampling.check_same_items(stats_a, stats_b, "key, candidate count and gold 'yes' count",
                                lambda q: (q.key, q.n_candidates, q.n_gold_yes), "question", "questions", "gold")
    return resampling.paired_stats(stats_a, stats_b, item_values, statistic, _estimates, n_resamples, seed, level)


def add_confidence(result: dict, stats: Sequence[scoring.ItemStats], n_resamples: int = DEFAULT_RESAMPLES,
                   seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL) -> dict:
    """Adds "extension_confidence_intervals" (and "confidence_intervals" in each "extension_per_category"
    entry) to a result dict of `stats`, and names them in its signature."""
    options = (n_resamples, seed, level)
    if "extension_per_category" in result:
        for category, per in per_category_intervals(stats, *options).items():
            result["extension_per_category"][category]["confidence_intervals"] = resampling.bounds(per)
    return resampling.add_intervals(result, confidence_intervals(stats, *options), *options)
