"""How sure a TempBench number is: bootstrap intervals and paired tests over questions (on `core.resampling`).

Each question's `ItemStats` is one row, the headline numbers a function of a sample's column sums (the
reference's TRP 0.0 where nothing was retrieved kept in every resample), slices resampled within the
slice; point estimates are always `scoring.aggregate`'s numbers.
"""

from collections.abc import Sequence

import numpy as np

from benchscore.core import resampling
from benchscore.core.resampling import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED
from benchscore.tempbench_trp import scoring
from benchscore.tempbench_trp.scoring import SLICES, aggregate

HEADLINE = ("TRP_macro", "TRP_micro", "CCR", "coverage")


def item_values(stats: Sequence[scoring.ItemStats]) -> np.ndarray:
    """One row (retrieved, TRP if retrieved else 0, hits, n_ret, CCR, 1) per question."""
    rows = [(s.n_ret > 0, s.trp if s.n_ret > 0 else 0.0, s.hits, s.n_ret, s.ccr, 1.0) for s in stats]
    return resampling.as_values(rows, 6)


def statistic(sums: np.ndarray) -> dict:
    """The headline numbers from column sums of `item_values` (one row of sums per sample)."""
    retrieved, trp_sum, hits, n_ret, ccr, n = sums.T
    return {
        "TRP_macro": np.where(retrieved > 0, trp_sum / retrieved, 0.0),
        "TRP_micro": np.where(n_ret > 0, hits / n_ret, 0.0),
        "CCR": ccr / n,
        "coverage": retrieved / n,
    }


def slice_statistic(sums):
    """A slice cell's TRP and CCR (the reference's per-slice numbers)."""
    numbers = statistic(sums)
    return {"TRP": numbers["TRP_macro"], "CCR": numbers["CCR"]}


def _estimates(stats):
    result = aggregate(stats, by=())
    return {name: result[name] for name in HEADLINE}


def confidence_intervals(stats: Sequence[scoring.ItemStats], n_resamples: int = DEFAULT_RESAMPLES,
                         seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL) -> dict:
    """Percentile bootstrap over questions: {name: {"estimate", "low", "high"}}, estimate = `aggregate`'s."""
    return resampling.intervals(item_values(stats), statistic, _estimates(stats), n_resamples, seed, level)


def slice_intervals(stats, by=SLICES, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL):
    """{"by_<field>": {value: {"TRP": {...}, "CCR": {...}}}}: each cell's questions resampled within it."""
    options = (n_resamples, seed, level)
    resampling.check_options(*options)
    result, out = aggregate(stats, by=by), {}
    for field in by:
        out["by_" + field] = cells = {}
        for value, cell in result["by_" + field].items():
            members = [r for r in stats if getattr(r, field) == value]
            estimates = {"TRP": cell["TRP"], "CCR": cell["CCR"]}
            cells[value] = resampling.intervals(item_values(members), slice_statistic, estimates, *options)
    return out


def paired_test(stats_a: Sequence[scoring.ItemStats], stats_b: Sequence[scoring.ItemStats],
                n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL) -> dict:
    """Paired bootstrap and approximate randomization of run B against run A over the same questions:
    {name: {"a", "b", "difference" (b - a), "low", "high", "p_bootstrap", "p_randomization"}}."""
    resampling.check_options(n_resamples, seed, level)
    resampling.check_same_items(stats_a, stats_b, "id and gold triple count", lambda q: (q.id, q.n_gold), "question",
                                "questions", "benchmark")
    return resampling.paired_stats(stats_a, stats_b, item_values, statistic, _estimates, n_resamples, seed, level)


def add_confidence(result: dict, stats: Sequence[scoring.ItemStats], n_resamples: int = DEFAULT_RESAMPLES,
                   seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL) -> dict:
    """Adds "extension_confidence_intervals" {name: {"low", "high"}} to a result dict of `stats`,
    "confidence_intervals" {"TRP", "CCR"} to each slice cell, and the options to its signature."""
    options = (n_resamples, seed, level)
    fields = tuple(key[3:] for key in result if key.startswith("by_"))
    for slice_name, cells in slice_intervals(stats, fields, *options).items():
        for value, numbers in cells.items():
            result[slice_name][value]["confidence_intervals"] = resampling.bounds(numbers)
    return resampling.add_intervals(result, confidence_intervals(stats, *options), *options)
