"""Seeded bootstrap intervals and paired significance tests over per-item statistics.

Benchmark-agnostic, stdlib + numpy only; every benchmark's `significance.py` uses it. A benchmark
describes itself by two things:

    values     float array (n_items, n_columns): one row per unit of the benchmark (question,
               entry, claim), the per-item statistics computed once by its scorer;
    statistic  sums (n_rows, n_columns) -> {name: array (n_rows,)}: the headline numbers from
               column sums over a sample of items (means are sum / count, micro rates ratios of
               summed counts, so every headline number of our benchmarks is such a function).

A bootstrap resample is then a weighted column sum, `weights @ values`, where weights[r, i] is how
often item i was drawn in resample r: nothing is re-scored, and 1,000 resamples cost a few
matrix products. Resamples are drawn in chunks as an index matrix (rows, n_items) from a
`numpy.random.Generator` seeded with `seed`, so a run is reproducible.

- `bootstrap`: percentile intervals (Efron; linear interpolation between order statistics).
- `paired_bootstrap`: the same resampled items for systems A and B; the interval of the
  difference B - A, and a two-sided p-value from the bootstrap distribution shifted to the null
  (Berg-Kirkpatrick et al., 2012): p = (1 + #{|d* - d| >= |d|}) / (1 + R).
- `approximate_randomization`: swap A's and B's statistics item by item with probability 1/2
  (Noreen, 1989; Riezler and Maxwell, 2005): p = (1 + #{|d'| >= |d|}) / (1 + R).

A sample where a number is undefined (a 0/0, e.g. no item of the slice counted) gives NaN and is
left out of that number's interval and p-value; `n_defined` says how many samples counted.
"""

import math

import numpy as np

from benchscore.core.readers import shown
from benchscore.core.records import extended
from benchscore.core.resampling_options import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    check_options,
    signature_fields,
)

CHUNK_CELLS = 1 << 20  # index-matrix cells per chunk (8 MB of int64): memory stays flat for any n_resamples
TIE_TOLERANCE = 1e-12  # resummed floats differ in the last bits; such a difference is a tie, not "more extreme"


def add_intervals(result: dict, intervals: dict, n_resamples: int, seed: int, level: float) -> dict:
    """`result` with "extension_confidence_intervals" ({name: {"low", "high"}} of `intervals`) and the
    resampling options in its signature: the last step of every benchmark's `add_confidence`."""
    result["extension_confidence_intervals"] = bounds(intervals)
    result["signature"] = extended(result["signature"], signature_fields(n_resamples, seed, level))
    return result


def as_values(rows, n_columns):
    """A float (n_items, n_columns) array from per-item rows; at least one item is required."""
    values = np.asarray(rows, dtype=np.float64).reshape(-1, n_columns)
    if not len(values):
        raise ValueError("no items to resample; expected at least one")
    return values


def _evaluate(statistic, sums):
    with np.errstate(divide="ignore", invalid="ignore"):  # 0/0 in a sample is NaN: undefined, not an error
        return {name: np.asarray(column, dtype=np.float64) for name, column in statistic(sums).items()}


def _chunks(n_resamples, n_items):
    rows = max(1, CHUNK_CELLS // n_items)
    for start in range(0, n_resamples, rows):
        yield min(rows, n_resamples - start)


def _bootstrap_weights(rng, n_rows, n_items):
    """How often each item is drawn in each of n_rows resamples of n_items items with replacement."""
    index = rng.integers(0, n_items, size=(n_rows, n_items))
    flat = (index + n_items * np.arange(n_rows)[:, None]).ravel()
    return np.bincount(flat, minlength=n_rows * n_items).reshape(n_rows, n_items).astype(np.float64)


def _collect(chunks):
    """{name: array (R,)} from a list of {name: array (rows,)}."""
    return {name: np.concatenate([chunk[name] for chunk in chunks]) for name in chunks[0]}


def bootstrap_samples(values, statistic, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED):
    """{name: the statistic on each of n_resamples bootstrap resamples of the items}."""
    rng = np.random.default_rng(seed)
    chunks = [_evaluate(statistic, _bootstrap_weights(rng, rows, len(values)) @ values)
              for rows in _chunks(n_resamples, len(values))]
    return _collect(chunks)


def _interval(samples, level):
    defined = samples[~np.isnan(samples)]
    if not len(defined):
        return None, None, 0
    alpha = 100 * (1 - level) / 2
    low, high = np.percentile(defined, [alpha, 100 - alpha])
    return float(low), float(high), len(defined)


def _p_value(null_samples, observed):
    """(1 + #{|sample| >= |observed|}) / (1 + #defined samples): never 0, 1 for a tie everywhere."""
    defined = null_samples[~np.isnan(null_samples)]
    if not len(defined) or math.isnan(observed):
        return None
    extreme = np.count_nonzero(np.abs(defined) >= abs(observed) - TIE_TOLERANCE)
    return float((1 + extreme) / (1 + len(defined)))


def bootstrap(values, statistic, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL):
    """Percentile bootstrap: {name: {"low", "high", "n_defined"}} at the given confidence level."""
    check_options(n_resamples, seed, level)
    samples = bootstrap_samples(values, statistic, n_resamples, seed)
    intervals = {}
    for name, column in samples.items():
        low, high, n_defined = _interval(column, level)
        intervals[name] = {"low": low, "high": high, "n_defined": n_defined}
    return intervals


def _check_paired(values_a, values_b):
    if values_a.shape != values_b.shape:
        raise ValueError(
            f"system A has {len(values_a)} items and system B {len(values_b)}; a paired test needs both "
            "systems scored on the same items, in the same order"
        )


def _observed(values, statistic):
    return {name: float(column[0]) for name, column in _evaluate(statistic, values.sum(axis=0)[None, :]).items()}


def paired_bootstrap(values_a, values_b, statistic, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED,
                     level=DEFAULT_LEVEL):
    """{name: {"low", "high", "p_value", "n_defined"}} for the difference B - A over the same resamples."""
    check_options(n_resamples, seed, level)
    _check_paired(values_a, values_b)
    observed_a, observed_b = _observed(values_a, statistic), _observed(values_b, statistic)
    rng = np.random.default_rng(seed)
    chunks = []
    for rows in _chunks(n_resamples, len(values_a)):
        weights = _bootstrap_weights(rng, rows, len(values_a))  # one draw, used for both systems
        a, b = _evaluate(statistic, weights @ values_a), _evaluate(statistic, weights @ values_b)
        chunks.append({name: b[name] - a[name] for name in a})
    results = {}
    for name, differences in _collect(chunks).items():
        observed = observed_b[name] - observed_a[name]
        low, high, n_defined = _interval(differences, level)
        p_value = _p_value(differences - observed, observed)  # shifted so that the null (no difference) holds
        results[name] = {"low": low, "high": high, "p_value": p_value, "n_defined": n_defined}
    return results


def approximate_randomization(values_a, values_b, statistic, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED):
    """{name: {"p_value", "n_defined"}}: how often random item-wise swaps of A and B differ at least as much."""
    check_options(n_resamples, seed, DEFAULT_LEVEL)
    _check_paired(values_a, values_b)
    observed_a, observed_b = _observed(values_a, statistic), _observed(values_b, statistic)
    total_a, total_b = values_a.sum(axis=0), values_b.sum(axis=0)
    change = values_b - values_a  # what swapping one item moves from B's sums into A's
    rng = np.random.default_rng(seed)
    chunks = []
    for rows in _chunks(n_resamples, len(values_a)):
        swapped = rng.integers(0, 2, size=(rows, len(values_a))).astype(np.float64)
        moved = swapped @ change
        a, b = _evaluate(statistic, total_a + moved), _evaluate(statistic, total_b - moved)
        chunks.append({name: b[name] - a[name] for name in a})
    results = {}
    for name, differences in _collect(chunks).items():
        p_value = _p_value(differences, observed_b[name] - observed_a[name])
        results[name] = {"p_value": p_value, "n_defined": int(np.count_nonzero(~np.isnan(differences)))}
    return results


# ------------------------------------------------------------------ what the benchmarks call


def intervals(values, statistic, estimates, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL):
    """{name: {"estimate", "low", "high"}} for each headline number in `estimates`.

    `estimates` are the benchmark's own (parity) numbers from its pure aggregate; the interval
    comes from resampling `values` through `statistic`.
    """
    limits = bootstrap(values, statistic, n_resamples, seed, level)
    return {name: {"estimate": estimate, "low": limits[name]["low"], "high": limits[name]["high"]}
            for name, estimate in estimates.items()}


def bounds(results):
    """{name: {"low", "high"}}: `intervals` results without the estimates (a result dict already has them)."""
    return {name: {"low": r["low"], "high": r["high"]} for name, r in results.items()}


def paired(values_a, values_b, statistic, estimates_a, estimates_b, n_resamples=DEFAULT_RESAMPLES,
           seed=DEFAULT_SEED, level=DEFAULT_LEVEL):
    """{name: {"a", "b", "difference", "low", "high", "p_bootstrap", "p_randomization"}} per headline number.

    `estimates_a`/`estimates_b`: each system's parity numbers; `difference` = b - a, and (low, high)
    its paired-bootstrap interval.
    """
    boot = paired_bootstrap(values_a, values_b, statistic, n_resamples, seed, level)
    randomized = approximate_randomization(values_a, values_b, statistic, n_resamples, seed)
    results = {}
    for name, a in estimates_a.items():
        b = estimates_b[name]
        results[name] = {"a": a, "b": b, "difference": None if a is None or b is None else b - a,
                         "low": boot[name]["low"], "high": boot[name]["high"],
                         "p_bootstrap": boot[name]["p_value"], "p_randomization": randomized[name]["p_value"]}
    return results


def paired_stats(stats_a, stats_b, item_values, statistic, estimates, n_resamples, seed, level):
    """`paired` on two systems' per-item statistics: `item_values(stats)` the rows resampled,
    `estimates(stats)` the point numbers (the scorer's); the items' sameness is checked first by the
    benchmark (`check_same_items`)."""
    return paired(item_values(stats_a), item_values(stats_b), statistic, estimates(stats_a), estimates(stats_b),
                  n_resamples, seed, level)


def check_same_items(stats_a, stats_b, what, key, unit, units, gold):
    """ValueError unless systems A and B were scored on the same items in the same order: as many, and
    `key(item)` (`what` it is) equal item by item. `unit`/`units` name an item, `gold` their source."""
    if len(stats_a) != len(stats_b):
        raise ValueError(f"system A has {len(stats_a)} {units} and system B {len(stats_b)}; "
                         f"a paired test needs both scored on the same {gold} file")
    for index, (a, b) in enumerate(zip(stats_a, stats_b)):
        if key(a) != key(b):
            raise ValueError(f"{unit} {index}: {what} {shown(key(a))} for system A but {shown(key(b))} for B; "
                             f"expected the same {gold} {units} in the same order")
