"""How sure a WebNLG+ 2020 text-to-RDF number is: bootstrap intervals and paired tests over entries.

The unit is the entry. `scoring.entry_stats` keeps per entry the selected pairs' exact P/R/F1 sums and
their number k, so a resample re-aggregates (P = sum of the pairs' P / sum of k, R and F1 alike)
without re-aligning anything. The headline numbers are `Total_scores` P, R and F1 of the four
schemes, named "<scheme>_<rate>"; `Exact_match` is not resampled. Point estimates are always
`scoring.aggregate`'s parity numbers; only intervals and p-values come from `core.resampling`.
"""

from collections.abc import Sequence

import numpy as np

from benchscore.core import resampling
from benchscore.core.resampling import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED
from benchscore.webnlg_rdf import scoring
from benchscore.webnlg_rdf.scoring import RATES, SCHEMES, UNIT, aggregate, grouped

HEADLINE = tuple(f"{scheme}_{rate}" for scheme in SCHEMES for rate in RATES)


def item_values(stats: Sequence[scoring.ItemStats]) -> np.ndarray:
    """One row per entry: k (its selected pairs), then the Total group's rate sums, scheme by scheme."""
    # rate_sums starts with the Total group: [scheme][P, R, F1]; int / int is the correctly rounded float.
    return resampling.as_values([(entry.n_pairs, *(total / UNIT for total in entry.rate_sums[:len(HEADLINE)]))
                                 for entry in stats], 1 + len(HEADLINE))


def statistic(sums: np.ndarray) -> dict:
    """Total_scores P, R, F1 of each scheme from column sums of `item_values` (one row per sample)."""
    return {name: sums[:, 1 + column] / sums[:, 0] for column, name in enumerate(HEADLINE)}


def _estimates(stats):
    totals = aggregate(stats)["Total_scores"]
    return {f"{scheme}_{rate}": float(totals[scheme][rate]) for scheme in SCHEMES for rate in RATES}


def confidence_intervals(stats: Sequence[scoring.ItemStats], n_resamples: int = DEFAULT_RESAMPLES,
                         seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL) -> dict:
    """Percentile bootstrap over entries: {"<scheme>_<rate>": {"estimate", "low", "high"}}; `estimate` is
    exactly `aggregate(stats)`'s number (for a slice, pass its stats: they are resampled within it)."""
    return resampling.intervals(item_values(stats), statistic, _estimates(stats), n_resamples, seed, level)


def breakdown_intervals(stats, keys, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL):
    """Extension: `confidence_intervals` within each key's entries (as `scoring.breakdown` groups them)."""
    resampling.check_options(n_resamples, seed, level)
    return {key: confidence_intervals(group, n_resamples, seed, level) for key, group in grouped(stats, keys).items()}


def paired_test(stats_a: Sequence[scoring.ItemStats], stats_b: Sequence[scoring.ItemStats],
                n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL) -> dict:
    """Paired bootstrap and approximate randomization of B against A over the same entries:
    {"<scheme>_<rate>": {"a", "b", "difference", "low", "high", "p_bootstrap", "p_randomization"}};
    difference = b - a, (low, high) its interval at `level`, p-values two-sided."""
    resampling.check_options(n_resamples, seed, level)
    resampling.check_same_items(stats_a, stats_b, "reference triples", lambda entry: sorted(entry.references),
                                "entry", "entries", "reference")
    return resampling.paired_stats(stats_a, stats_b, item_values, statistic, _estimates, n_resamples, seed, level)


def add_confidence(result: dict, stats: Sequence[scoring.ItemStats], n_resamples: int = DEFAULT_RESAMPLES,
                   seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL, breakdowns: dict | None = None) -> dict:
    """Adds "extension_confidence_intervals" {"<scheme>_<rate>": {"low", "high"}} to a result dict of `stats`
    and names them in its signature; for each `breakdowns` item (result key -> one key per entry), each
    group of that breakdown gets "confidence_intervals", resampled within it."""
    options = (n_resamples, seed, level)
    for name, keys in (breakdowns or {}).items():
        for key, numbers in breakdown_intervals(stats, keys, *options).items():
            result[name][key]["confidence_intervals"] = resampling.bounds(numbers)
    return resampling.add_intervals(result, confidence_intervals(stats, *options), *options)
