"""WebNLG+ 2020 text-to-RDF speed: every full submission scored from scratch, and the assignment search.

    python scripts/bench_webnlg.py                       # 4 English + 2 Russian submissions (~30 s)
    python scripts/bench_webnlg.py --only en/bt5 en/baseline

Everything runs in this one process, on one core (CPU time), with the scorer's caches cleared
before each submission, so each number is what a fresh `benchscore webnlg REF CAND` pays after
start-up:
- read: both XML files parsed; score: `entry_stats` for every entry (all k x k pairs and the exact
  assignment) plus `aggregate`; entries/s; and, for scale only, the official script's CPU seconds
  recorded on another machine (../shared/data/webnlg/expected/README.md).
- assignment: our exact search against the official loop (`itertools.permutations`, first maximal
  float sum) timed here on the same score matrices, as a ratio: on every entry of the submission
  with 5 < k <= 8 (k <= 5 runs the loop itself; k = 9, 10 cost the loop minutes each), then on
  entries of 12 and 20 candidate triples that the loop cannot do at all (ours alone).
- evaluate: `evaluate.load(...).compute` against the pure `scoring.score` on the full English test
  set (2,155 entries, bt5's submission), caches cleared before each: the cost of the Arrow round trip.
- limits: the slowest entries we know of under the scorer's limits (100-token elements in 256
  distinct pairs, a 2^16-state search, 100 triples a side), each must stay around a second.
- floor (`floor`, a row of `bench.py`): the parts every command on two files runs whatever its glue,
  each timed alone: the parse, tokenizing the distinct elements, and the compiled per-pair kernel on the
  distinct pairs. Their sum is the least a command built on this scorer can take.
Data: ../shared (BENCHSCORE_SHARED overrides); a missing file is skipped.
"""

import argparse
import itertools
import os
import pathlib
import random
import string
import time

from bench_tsver import best_of

from benchscore.webnlg_rdf import kernel, scoring, tokenizer
from benchscore.webnlg_rdf.files import read_predictions, read_references

REPO = pathlib.Path(__file__).resolve().parent.parent
DATA = pathlib.Path(os.environ.get("BENCHSCORE_SHARED", REPO.parent / "shared")) / "data" / "webnlg"

# submission -> (reference file, official script CPU s from expected/README.md)
SUBMISSIONS = {
    "en/bt5": ("en_all.xml", 139),
    "en/cyclegt": ("en_all.xml", 1082),
    "en/amazon_ai_shanghai": ("en_all.xml", 2913),
    "en/baseline": ("en_all.xml", 2852),
    "ru/bt5": ("ru_all.xml", 45),
    "ru/baseline": ("ru_all.xml", 1630),
}


def clear_caches():
    scoring.clear_caches()
    tokenizer._tokens.cache_clear()


def cpu(fn):
    start = time.process_time()
    result = fn()
    return result, time.process_time() - start


def score_matrix(references, candidates):
    k = max(len(references), len(candidates))
    refs = [scoring.normalise(t) for t in references] + [""] * (k - len(references))
    cands = [scoring.normalise(t) for t in candidates] + [""] * (k - len(candidates))
    return [[scoring.pair_result(r, c).score for r in refs] for c in cands]


def bench_submission(name):
    ref_file, official_cpu = SUBMISSIONS[name]
    ref_path, cand_path = DATA / "references" / ref_file, DATA / "submissions" / name / "all.xml"
    if not (ref_path.exists() and cand_path.exists()):
        print(f"{name:24s} skipped: {cand_path} not available")
        return
    clear_caches()
    (references, candidates), t_read = cpu(lambda: (
        [r["triples"] for r in read_references(ref_path)], [c["triples"] for c in read_predictions(cand_path)]))
    stats, t_score = cpu(lambda: [scoring.entry_stats(r, c, example=i)
                                  for i, (r, c) in enumerate(zip(references, candidates))])
    result, t_aggregate = cpu(lambda: scoring.aggregate(stats))
    t_total = t_score + t_aggregate
    n, k_max = len(stats), max(s.n_pairs for s in stats)
    exact = result["Total_scores"]["Exact"]
    print(f"{name:24s} {n:5d} entries  read {t_read:5.2f} s  score {t_total:5.2f} s  {n / t_total:7.0f} entries/s"
          f"  (official {official_cpu:5d} CPU s: x{official_cpu / t_total:,.0f})  max k {k_max:2d}"
          f"  Exact P/R/F1 {exact['Precision']:.4f}/{exact['Recall']:.4f}/{exact['F1']:.4f}")

    # The assignment alone, our search vs the official loop, on the entries where the search is
    # used (k > 5; smaller ones run the loop itself) and the loop can finish here (k <= 8).
    matrices = [score_matrix(r, c) for r, c, s in zip(references, candidates, stats) if 5 < s.n_pairs <= 8]
    if matrices:
        ours, t_ours = cpu(lambda: [scoring.search_assignment(m) for m in matrices])
        official, t_official = cpu(lambda: [official_loop(m) for m in matrices])
        assert ours == official, "assignment differs from the official loop"
        print(f"{'':24s} assignment on the {len(matrices)} entries with 5 < k <= 8: search {t_ours * 1e3:6.1f} ms,"
              f" official loop {t_official:6.2f} s: x{t_official / t_ours:,.0f} (identical picks)")


def official_loop(scores):
    """The official script's assignment as it runs it, in Python (the baseline; `scoring.official_assignment` is the
    same loop in the compiled kernel): permutations in lexicographic order, float sums in row order, strict `>`."""
    best_sum, best = None, ()
    for perm in itertools.permutations(range(len(scores))):
        total = 0
        for row, column in zip(scores, perm):
            total += row[column]
        if best_sum is None or total > best_sum:
            best_sum, best = total, perm
    return best


def bench_large_entries():
    """Entries the official loop cannot score: 12 and 20 candidate triples against 7 references,
    built from real triples (right ones, near misses, and unrelated ones)."""
    ref_path = DATA / "references" / "en_all.xml"
    if not ref_path.exists():
        return
    entries = read_references(ref_path)
    pool = [t for e in entries for t in e["triples"]]
    rng = random.Random(0)
    references = next(e["triples"] for e in entries if len(e["triples"]) == 7)
    for n_candidates in (12, 20):
        candidates = [rng.choice(references) for _ in range(n_candidates // 3)]
        candidates += [t.replace(" | ", "_x | ", 1) for t in rng.sample(references, 3)]  # near misses
        candidates += rng.sample(pool, n_candidates - len(candidates))
        rng.shuffle(candidates)
        clear_caches()
        stats, t = cpu(lambda: scoring.entry_stats(references, candidates))
        print(f"entry with {n_candidates} candidate triples vs 7 references: {t * 1e3:7.1f} ms "
              f"(exact search; the official loop would enumerate {len(stats.assignment)}! permutations)")


def bench_evaluate(copies=(1, 10)):
    """evaluate's compute over the pure path on the same entries, both from cold caches (one ratio per size)."""
    ref_path, cand_path = DATA / "references" / "en_all.xml", DATA / "submissions" / "en" / "bt5" / "all.xml"
    if not (ref_path.exists() and cand_path.exists()):
        return []
    import evaluate

    references = [r["triples"] for r in read_references(ref_path)]
    candidates = [c["triples"] for c in read_predictions(cand_path)]
    module = evaluate.load(str(REPO / "metrics" / "webnlg_rdf"))
    # 10 copies: 21,550 entries, the repeats hit the scorer's caches
    return [_evaluate_ratio(module, references * c, candidates * c) for c in copies]


def _evaluate_ratio(module, references, candidates):
    module.compute(predictions=candidates[:50], references=references[:50])  # one-time start-up costs, both paths
    times = {"pure": [], "module": []}
    for _ in range(3):  # alternated, the best of three
        clear_caches()
        pure, t = cpu(lambda: scoring.score(references, candidates))
        times["pure"].append(t)
        clear_caches()
        wrapped, t = cpu(lambda: module.compute(predictions=candidates, references=references))
        times["module"].append(t)
    assert wrapped["Total_scores"] == pure["Total_scores"]
    t_pure, t_module = min(times["pure"]), min(times["module"])
    print(f"evaluate compute on {len(references):,} entries: {t_module:.2f} s, pure score {t_pure:.2f} s: "
          f"x{t_module / t_pure:.2f}")
    return {"entries": len(references), "pure": t_pure, "compute": t_module}


def floor(reference_path, candidate_path, parse, repeat=3):
    """The parts of a command on these files that no glue can remove, each timed alone from cold memos (wall
    clock, best of `repeat`): `parse(reference_path, candidate_path)`, tokenizing each distinct element once,
    and `kernel.pair_counts` (the official alignment, spans and counts, compiled) on each distinct pair of the
    entries' k x k matrices. The kernel's counts are checked against the scorer's for every pair, so this
    times the work a command does. Returns seconds ("parse", "tokenize", "pairs") and counts ("elements",
    "distinct_pairs")."""
    references = [row["triples"] for row in read_references(reference_path)]
    candidates = [row["triples"] for row in read_predictions(candidate_path)]
    clear_caches()
    pairs = set()
    for refs, cands in scoring.checked_entries(references, candidates)[1]:
        pairs.update(itertools.product(*scoring._padded(refs, cands)))
    pairs = sorted(pairs)
    elements = sorted({element for pair in pairs for triple in pair for element in scoring._parts(triple)[:3]})

    def tokenize():
        for element in elements:
            scoring._element_tokens(element)

    t_tokenize = best_of(tokenize, repeat, before=clear_caches)
    arguments = [[list(map(scoring._element_tokens, side)) for side in scoring._elements(ref, cand)]
                 for ref, cand in pairs]
    counts = [scoring.pair_result(ref, cand).counts for ref, cand in pairs]
    assert [kernel.pair_counts(*pair) for pair in arguments] == counts, "the kernel's counts differ from the scorer's"
    t_pairs = best_of(lambda: [kernel.pair_counts(*pair) for pair in arguments], repeat, before=kernel.clear_memo)
    t_parse = best_of(lambda: parse(reference_path, candidate_path), repeat)
    return {"parse": t_parse, "tokenize": t_tokenize, "pairs": t_pairs, "elements": len(elements),
            "distinct_pairs": len(pairs)}


def bench_limits():
    """The slowest entries we know under the limits: CPU seconds each, from cold caches."""
    letters = ["".join(p) for p in itertools.product(string.ascii_lowercase, repeat=2)]
    rng = random.Random(0)

    def element(vocabulary):
        return " ".join(rng.sample(vocabulary, scoring.MAX_ELEMENT_TOKENS))

    def triples(n, vocabularies):
        return [" | ".join(element(v) for v in vocabularies) for _ in range(n)]

    near, far = letters[:100], letters[100:200]
    cases = {
        "16 x 16 triples of 100-token elements (256 pairs, 2^16 search states)":
            (triples(16, [near] * 3), triples(16, [near] * 3)),
        "the same, subjects and predicates unmatched (the swap attempts run)":
            (triples(16, [far, far, near]), triples(16, [near, far, near])),
        "7 x 32 triples of 100-token elements": (triples(7, [near] * 3), triples(32, [near] * 3)),
        "100 x 100 triples, one distinct": (["Alan_Bean | occupation | Test_pilot"] * 100,
                                            ["Alan_Bean | occupation | Test_pilot_school"] * 100),
        "16 references scoring alike except their own column (2^16 states)":
            ([f"s | p{i} | o{i}" for i in range(16)], [f"s | p{i} | o{i}" for i in range(16)]),
    }
    for name, (references, candidates) in cases.items():
        clear_caches()
        _, t = cpu(lambda: scoring.entry_stats(references, candidates))
        print(f"limits: {name}: {t:.2f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="+", choices=SUBMISSIONS, default=list(SUBMISSIONS))
    parser.add_argument("--evaluate-and-limits", action="store_true", help="only the evaluate ratio and the limits")
    args = parser.parse_args()
    if not args.evaluate_and_limits:
        for name in args.only:
            bench_submission(name)
        bench_large_entries()
    bench_evaluate()
    bench_limits()


if __name__ == "__main__":
    main()
