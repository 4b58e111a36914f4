"""How sure a TempBench number is: bootstrap intervals and paired tests over questions.

TempBench's own guidance is to read the *gap* between retrievers (TRP's absolute scale is low by
construction); `paired_test` says whether a gap is larger than the question sample explains.
The unit is the question: each per-question row of `scoring.score_question` becomes one row of
numbers, and the headline numbers are functions of column sums over a sample:

    coverage  = sum(retrieved) / n                retrieved: the question retrieved anything
    TRP_macro = sum(TRP_q over retrieved) / sum(retrieved)      (0.0 when nothing was retrieved)
    TRP_micro = sum(hits) / sum(n_ret)                          (0.0 when nothing was retrieved)
    CCR       = sum(CCR_q) / n

(the two 0.0 cases are the reference scorer's quirk, kept in every resample). Slices (complexity,
operator) are resampled within the slice. The point estimates are always `scoring.aggregate`'s
parity numbers; only intervals and p-values come from resampling (`resampling.py`, the same file in
every metric folder).

    rows = score_questions(questions, evidences)
    confidence_intervals(rows)             # {"TRP_macro": {"estimate", "low", "high"}, ...}
    paired_test(rows_bm25, rows_dense)     # difference, interval, p-values per number
"""

import numpy as np

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
from .scoring import SLICES
from .scoring import aggregate
from .scoring import score_questions

HEADLINE = ("TRP_macro", "TRP_micro", "CCR", "coverage")


def question_values(rows):
    """One row (retrieved, TRP if retrieved else 0, hits, n_ret, CCR, 1) per question."""
    return as_values([(r["n_ret"] > 0, r["trp"] if r["n_ret"] > 0 else 0.0, r["hits"], r["n_ret"], r["ccr"], 1.0)
                      for r in rows], 6)


def statistic(sums):
    """The headline numbers from column sums of `question_values` (one row of sums per sample)."""
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


def confidence_intervals(rows, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL):
    """Percentile bootstrap over questions: {name: {"estimate", "low", "high"}} per headline number.

    `estimate` is exactly `aggregate(rows)`'s number.
    """
    check_options(n_resamples, seed, level)
    result = aggregate(rows, by=())
    return intervals(question_values(rows), statistic, {name: result[name] for name in HEADLINE},
                     n_resamples, seed, level)


def slice_intervals(rows, by=SLICES, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL):
    """{"by_<field>": {value: {"TRP": {...}, "CCR": {...}}}}: each cell's questions resampled within it."""
    check_options(n_resamples, seed, level)
    result = aggregate(rows, by=by)
    out = {}
    for field in by:
        cells = {}
        for value, cell in result["by_" + field].items():
            members = [r for r in rows if r.get(field) == value]
            cells[value] = intervals(question_values(members), slice_statistic,
                                     {"TRP": cell["TRP"], "CCR": cell["CCR"]}, n_resamples, seed, level)
        out["by_" + field] = cells
    return out


def check_same_questions(rows_a, rows_b):
    """Both runs must be scored on the same questions, in the same order."""
    if len(rows_a) != len(rows_b):
        raise ValueError(f"run A has {len(rows_a)} questions and run B {len(rows_b)}; "
                         "a paired test needs both scored on the same questions")
    for index, (a, b) in enumerate(zip(rows_a, rows_b)):
        if (a["id"], a["n_gold"]) != (b["id"], b["n_gold"]):
            raise ValueError(f"question #{index}: id {a['id']!r} with {a['n_gold']} gold triples in run A but "
                             f"{b['id']!r} with {b['n_gold']} in run B; expected the same questions in the same order")


def paired_test(rows_a, rows_b, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL):
    """Paired bootstrap and approximate randomization of run B against run A over the same questions.

    Returns {name: {"a", "b", "difference", "low", "high", "p_bootstrap", "p_randomization"}};
    difference = b - a, (low, high) its interval at `level`, p-values two-sided.
    """
    check_options(n_resamples, seed, level)
    check_same_questions(rows_a, rows_b)
    result_a, result_b = aggregate(rows_a, by=()), aggregate(rows_b, by=())
    return paired(question_values(rows_a), question_values(rows_b), statistic,
                  {name: result_a[name] for name in HEADLINE}, {name: result_b[name] for name in HEADLINE},
                  n_resamples, seed, level)


def score_rows(questions, evidences, space="label", top_k=None, dedup=False, functional_ids=None):
    """The per-question rows that `scoring.score` aggregates (its functional subset too), kept for resampling."""
    rows = score_questions(questions, evidences, space, top_k, dedup)
    if functional_ids is None:
        return rows
    keep = frozenset(functional_ids)
    return [row for row in rows if row["id"] in keep]


def add_confidence(result, rows, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=DEFAULT_LEVEL):
    """Adds intervals to a result dict of `rows` (as `score` or `compute` returns it) and names them
    in its signature.

    Extension keys: "extension_confidence_intervals" {name: {"low", "high"}} per headline number,
    and in each slice cell of the result's "by_<field>" "confidence_intervals" {"TRP", "CCR"},
    resampled within the cell.
    """
    options = (n_resamples, seed, level)
    result["extension_confidence_intervals"] = bounds(confidence_intervals(rows, *options))
    fields = tuple(key[3:] for key in result if key.startswith("by_"))
    for slice_name, cells in slice_intervals(rows, fields, *options).items():
        for value, numbers in cells.items():
            result[slice_name][value]["confidence_intervals"] = bounds(numbers)
    result["signature"] += "|" + signature_part(*options)
    return result


# ------------------------------------------------------------------ `benchscore compare tempbench`


def add_compare_arguments(parser):
    parser.add_argument("--questions", "--gold", dest="questions", required=True,
                        help="benchmark_labelled.jsonl (labels) or benchmark.jsonl (ids)")
    add_compare_options(parser, 'a run: one {"id", "evidence": [triples]} line per question', "--evidence")
    parser.add_argument("--space", choices=("label", "id"), default="label",
                        help="match triples on labels (default) or on Wikidata ids")
    parser.add_argument("--split", help="score only questions with this split (e.g. test)")
    parser.add_argument("--top-k", type=int, help="(extension) keep the first K retrieved triples per question")
    parser.add_argument("--dedup", action="store_true", help="(extension) drop exact repeats of a retrieved triple")


def read_questions(path, split=None):
    """The questions of a questions file (those of `split`, if given), in file order."""
    from .scoring import iter_jsonl

    questions = [q for q in iter_jsonl(path) if split is None or q.get("split") == split]
    if not questions:
        which = "" if split is None else f" has split {split!r}"
        raise ValueError(f"{path}: no question{which}; expected at least one")
    return questions


def read_rows(questions, evidence_path, space="label", top_k=None, dedup=False):
    """Per-question rows of a run file (one {"id", "evidence"} line per question) for `questions`."""
    from .scoring import iter_jsonl

    evidence = {}
    for number, record in enumerate(iter_jsonl(evidence_path), 1):
        if "id" not in record or "evidence" not in record:
            raise ValueError(f"{evidence_path}: record {number}: expected 'id' and 'evidence', found {sorted(record)}")
        if record["id"] in evidence:
            raise ValueError(f"{evidence_path}: record {number}: a second evidence line for id {record['id']!r}")
        evidence[record["id"]] = record["evidence"]
    for index, question in enumerate(questions):
        if question.get("id") not in evidence:
            raise ValueError(f"{evidence_path}: no evidence line for question #{index} (id {question.get('id')!r})")
    try:
        return score_rows(questions, [evidence[q["id"]] for q in questions], space, top_k, dedup)
    except TypeError as err:  # a wrongly typed value in a file is an input error
        raise ValueError(f"{evidence_path}: {err}") from None


def run_compare(args):
    from .scoring import signature
    from benchscore import data  # `official:<split>` -> the store's verified file (benchscore.data)
    args.questions, args.split = data.resolve_split("tempbench", args.questions, args.split)

    questions = read_questions(args.questions, args.split)
    rows = [read_rows(questions, path, args.space, args.top_k, args.dedup) for path in args.predictions]
    return report_comparison(args, rows, confidence_intervals, paired_test,
                             signature(args.space, args.top_k, args.dedup) + data.signature_part(args.questions))
