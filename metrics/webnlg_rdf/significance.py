"""How sure a WebNLG+ 2020 text-to-RDF number is: bootstrap intervals and paired tests over entries.

The unit is the entry (one text and its triple set). `scoring.entry_stats` keeps, per entry, the
selected (reference, candidate) pairs' exact P/R/F1 sums and their number k, so a resample
re-aggregates without re-aligning or re-searching anything. The official corpus P, R and F1 of
each scheme are means over all selected pairs of all entries:

    P_scheme = sum over entries of (sum of the pairs' P) / sum over entries of k      (R, F1 alike)

The headline numbers are `Total_scores` P, R and F1 of the four schemes (Ent_type, Partial,
Strict, Exact), named "<scheme>_<rate>". `Exact_match` (macro over every distinct triple string)
is not resampled. The point estimates are always `scoring.aggregate`'s parity numbers; only
intervals and p-values come from resampling (`resampling.py`, the same file in every metric folder).

    stats = [entry_stats(refs, cands) for refs, cands in zip(references, candidates)]
    confidence_intervals(stats)          # {"Exact_F1": {"estimate", "low", "high"}, ...}
    paired_test(stats_a, stats_b)        # difference, interval, p-values per number
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
from .scoring import RATES
from .scoring import SCHEMES
from .scoring import aggregate
from .scoring import breakdown

HEADLINE = tuple(f"{scheme}_{rate}" for scheme in SCHEMES for rate in RATES)
_UNIT = 2**1074  # `EntryStats.rate_sums` are exact sums in units of 2**-1074 (see scoring.py)


def entry_values(stats):
    """One row per entry: k (its selected pairs), then the Total group's rate sums, scheme by scheme."""
    # rate_sums starts with the Total group: [scheme][P, R, F1]; int / int is the correctly rounded float.
    n_totals = len(SCHEMES) * len(RATES)
    return as_values([(entry.n_pairs, *(total / _UNIT for total in entry.rate_sums[:n_totals])) for entry in stats],
                     1 + n_totals)


def statistic(sums):
    """Total_scores P, R, F1 of each scheme from column sums of `entry_values` (one row per sample)."""
    return {name: sums[:, 1 + column] / sums[:, 0] for column, name in enumerate(HEADLINE)}


def _estimates(result):
    totals = result["Total_scores"]
    return {f"{scheme}_{rate}": float(totals[scheme][rate]) for scheme in SCHEMES for rate in RATES}


def confidence_intervals(stats, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL):
    """Percentile bootstrap over entries: {"<scheme>_<rate>": {"estimate", "low", "high"}}.

    `estimate` is exactly `aggregate(stats)`'s number. For a slice, pass that slice's stats: its
    entries are resampled within it.
    """
    check_options(n_resamples, seed, level)
    return intervals(entry_values(stats), statistic, _estimates(aggregate(stats)), n_resamples, seed, level)


def breakdown_intervals(stats, keys, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL):
    """Extension: `confidence_intervals` within each key's entries (as `scoring.breakdown` groups them)."""
    check_options(n_resamples, seed, level)
    stats, keys = list(stats), list(keys)
    groups = breakdown(stats, keys)  # validates the keys and gives the order
    return {key: confidence_intervals([s for s, k in zip(stats, keys) if k == key], n_resamples, seed, level)
            for key in groups}


def check_same_entries(stats_a, stats_b):
    """Both systems must be scored on the same reference entries, in the same order."""
    if len(stats_a) != len(stats_b):
        raise ValueError(f"system A has {len(stats_a)} entries and system B {len(stats_b)}; "
                         "a paired test needs both scored on the same reference file")
    for index, (a, b) in enumerate(zip(stats_a, stats_b)):
        if a.references != b.references:
            raise ValueError(f"entry {index}: the reference triples differ between systems A and B; "
                             "expected the same reference entries in the same order")


def paired_test(stats_a, stats_b, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL):
    """Paired bootstrap and approximate randomization of B against A over the same entries.

    Returns {"<scheme>_<rate>": {"a", "b", "difference", "low", "high", "p_bootstrap", "p_randomization"}};
    difference = b - a, (low, high) its interval at `level`, p-values two-sided.
    """
    check_options(n_resamples, seed, level)
    check_same_entries(stats_a, stats_b)
    return paired(entry_values(stats_a), entry_values(stats_b), statistic, _estimates(aggregate(stats_a)),
                  _estimates(aggregate(stats_b)), n_resamples, seed, level)


def add_confidence(result, stats, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL,
                   breakdowns=None):
    """Adds intervals to a result dict of `stats` (as `compute` returns it) and names them in its signature.

    Extension keys: "extension_confidence_intervals" {"<scheme>_<rate>": {"low", "high"}}; and for
    each `breakdowns` item (result key -> one key per entry, e.g. "extension_per_category" ->
    categories), "confidence_intervals" in each of that breakdown's groups, resampled within it.
    """
    options = (n_resamples, seed, level)
    result["extension_confidence_intervals"] = bounds(confidence_intervals(stats, *options))
    for name, keys in (breakdowns or {}).items():
        for key, numbers in breakdown_intervals(stats, keys, *options).items():
            result[name][key]["confidence_intervals"] = bounds(numbers)
    result["signature"] += "|" + signature_part(*options)
    return result


# ------------------------------------------------------------------ `benchscore compare webnlg`


def add_compare_arguments(parser):
    parser.add_argument("--gold", "--reference", dest="gold", required=True,
                        help="reference XML (<entry> with <modifiedtripleset>/<mtriple>)")
    add_compare_options(parser, "candidate XML (<entry> with <generatedtripleset>/<gtriple>)", "--candidate")


def read_stats(reference_path, candidate_path):
    """Per-entry stats of a candidate file against a reference file (entries paired by position)."""
    # Imported here: the evaluate module ships this file without the loader (it never reads files).
    from .loader import pair_entries
    from .loader import read_candidates
    from .loader import read_references
    from .scoring import entry_stats

    references = read_references(reference_path)
    candidates = read_candidates(candidate_path)
    pair_entries(references, candidates, reference_path, candidate_path)
    return [entry_stats(ref["triples"], cand["triples"], entry=f"{candidate_path}: entry {index}")
            for index, (ref, cand) in enumerate(zip(references, candidates))]


def run_compare(args):
    from .cli import signature
    from benchscore import data  # `official:<split>` -> the store's verified file (benchscore.data)
    args.gold = data.resolve("webnlg", args.gold)

    stats = [read_stats(args.gold, path) for path in args.predictions]
    return report_comparison(args, stats, confidence_intervals, paired_test, signature(by=()))
