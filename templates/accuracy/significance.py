"""How sure the template's accuracy is: bootstrap intervals and paired tests over items
(`benchscore.core.resampling`; the point estimate is always `scoring.aggregate`'s)."""

from collections.abc import Sequence

import numpy as np

from benchscore.core import resampling
from benchscore.core.resampling import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED

from . import scoring


def item_values(stats: Sequence[scoring.ItemStats]) -> np.ndarray:
    """One row (correct, 1) per item."""
    return resampling.as_values([(float(s.correct), 1.0) for s in stats], 2)


def statistic(sums: np.ndarray) -> dict:
    """Accuracy from column sums of `item_values`."""
    return {"accuracy": sums[:, 0] / sums[:, 1]}


def _estimates(stats):
    return {"accuracy": scoring.aggregate(stats)["accuracy"]}


def confidence_intervals(stats: Sequence[scoring.ItemStats], n_resamples: int = DEFAULT_RESAMPLES,
                         seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL) -> dict:
    """Percentile bootstrap over items: {"accuracy": {"estimate", "low", "high"}}."""
    return resampling.intervals(item_values(stats), statistic, _estimates(stats), n_resamples, seed, level)


def paired_test(stats_a: Sequence[scoring.ItemStats], stats_b: Sequence[scoring.ItemStats],
                n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL) -> dict:
    """Paired bootstrap and approximate randomization of B against A over the same items."""
    resampling.check_same_items(stats_a, stats_b, "key and reference", lambda s: (s.key, s.reference), "item",
                                "items", "gold")
    return resampling.paired_stats(stats_a, stats_b, item_values, statistic, _estimates, n_resamples, seed, level)


def add_confidence(result: dict, stats: Sequence[scoring.ItemStats], n_resamples: int = DEFAULT_RESAMPLES,
                   seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL) -> dict:
    """Adds "extension_confidence_intervals" to a result dict of `stats` and names them in its signature."""
    options = (n_resamples, seed, level)
    return resampling.add_intervals(result, confidence_intervals(stats, *options), *options)
