"""TempBench speed and memory: our pure scorer against the reference, streaming, and evaluate's overhead.

    python scripts/bench_tempbench.py                       # the full run (minutes; ~1.5 GB in a temp dir)
    python scripts/bench_tempbench.py --sizes 20000 --stream-sizes 20000 --evaluate-sizes 2000   # quick

Everything is timed in this one process against a baseline measured next to it (ratios, not
absolute times, are the result). Inputs are synthetic TempBench-shaped questions of ~10 retrieved
triples (gold, stale copies and distractors), dicts in label space; a pool of distinct questions
is cycled to reach the size, so the large sizes cost little memory to hold. The streaming check
runs `files.score_files` on JSONL files in a child process and reports its peak RSS for each size:
flat across sizes means the questions are not held in memory.
"""

import argparse
import importlib.util
import json
import os
import pathlib
import random
import resource
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED = pathlib.Path(os.environ.get("BENCHSCORE_SHARED", REPO.parent / "shared"))

from benchscore.tempbench_trp import files  # noqa: E402
from benchscore.tempbench_trp import scoring  # noqa: E402

POOL = 5000
COMPLEXITY = {1: "1hop", 2: "2hop", 3: "3+hop"}
OPERATORS = ("point_in_time", "before", "after", "interval")


def make_question(rng, index):
    """One TempBench-shaped question and ~10 retrieved triples for it."""
    hops = rng.choice((1, 1, 2, 2, 3))
    year = float(rng.randint(1900, 2020))
    entities = [f"Entity Q{rng.randint(1, 10**6)}" for _ in range(hops + 1)]
    gold = []
    for h in range(hops):
        relation = rng.choice(("member of sports team", "position held", "award received", "spouse"))
        gold.append({"s": entities[h], "r": relation, "o": entities[h + 1], "s_id": f"Q{index}{h}",
                     "r_id": f"P{h}", "o_id": f"Q{index}{h + 1}", "t_start": year, "t_end": year})
    evidence = []
    for g in gold:
        if rng.random() < 0.7:
            evidence.append({"s": g["s"], "r": g["r"], "o": g["o"], "t_start": year, "t_end": year})
        if rng.random() < 0.4:
            stale = year + rng.choice((-2.0, -1.0, 1.0, 3.0))
            evidence.append({"s": g["s"], "r": g["r"], "o": g["o"], "t_start": stale, "t_end": stale})
    while len(evidence) < rng.randint(8, 12):
        start = float(rng.randint(1900, 2020))
        evidence.append({"s": rng.choice(entities), "r": "located in", "o": f"Entity Q{rng.randint(1, 10**6)}",
                         "t_start": start, "t_end": start + rng.choice((0.0, 0.0, 5.0))})
    rng.shuffle(evidence)
    question = {"id": f"bench-{index}", "question": "?", "t_query": year, "S_star": gold,
                "complexity": COMPLEXITY[hops], "operator_type": rng.choice(OPERATORS),
                "split": "test" if rng.random() < 0.75 else "train", "S_dist": [], "S_stale": []}
    return question, evidence


def make_pool(size=POOL, seed=0):
    rng = random.Random(seed)
    return [make_question(rng, i) for i in range(size)]


def load_reference():
    path = SHARED / "reference" / "tempbench_eval.py"
    if not path.exists():
        sys.exit(f"the reference scorer is needed for the comparison: {path}")
    spec = importlib.util.spec_from_file_location("tempbench_eval_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(function, repeat):
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = function()
        best = min(best, time.perf_counter() - start)
    return best, value


def bench_against_reference(pool, n, repeat):
    reference = load_reference()
    pairs = [pool[i % len(pool)] for i in range(n)]
    questions = [q for q, _ in pairs]
    evidences = [e for _, e in pairs]
    t_ref, ref_result = timed(lambda: reference.aggregate([reference.score_question(q, e, "label") for q, e in pairs]),
                              repeat)
    t_rows, rows_result = timed(lambda: scoring.aggregate(scoring.item_stats(questions, evidences)), repeat)
    t_fast, fast_result = timed(lambda: scoring.score(questions, evidences), repeat)
    fast_result.pop("signature")
    fast_result.pop("warnings", None)
    assert ref_result == rows_result == fast_result, "our numbers differ from the reference's"
    triples = sum(len(e) for e in evidences) / n
    return {"questions": n, "triples_per_question": round(triples, 2), "reference_s": round(t_ref, 3),
            "ours_rows_then_aggregate_s": round(t_rows, 3), "ours_score_s": round(t_fast, 3),
            "speedup_rows": round(t_ref / t_rows, 2), "speedup_score": round(t_ref / t_fast, 2),
            "reference_us_per_question": round(t_ref / n * 1e6, 2), "ours_us_per_question": round(t_fast / n * 1e6, 2)}


def write_jsonl(pool, n, folder):
    questions_path, evidence_path = folder / f"questions_{n}.jsonl", folder / f"evidence_{n}.jsonl"
    with open(questions_path, "w", encoding="utf-8") as qf, open(evidence_path, "w", encoding="utf-8") as ef:
        for i in range(n):
            question, evidence = pool[i % len(pool)]
            qf.write(json.dumps(dict(question, id=f"bench-{i}")) + "\n")
            ef.write(json.dumps({"id": f"bench-{i}", "evidence": evidence}) + "\n")
    return questions_path, evidence_path


def _stream_child(questions_path, evidence_path):
    """Runs in a child process: score the files, report time and peak RSS."""
    start = time.perf_counter()
    result = files.score_files(questions_path, evidence_path)
    elapsed = time.perf_counter() - start
    print(json.dumps({"n_questions": result["n_questions"], "seconds": round(elapsed, 2),
                      "peak_rss_mib": peak_rss_mib()}))


def peak_rss_mib():
    """This process's peak resident memory. VmHWM belongs to the process's own address space;
    ru_maxrss would carry over the parent's peak into a child started by fork + exec."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # KiB on Linux


def bench_streaming(pool, sizes, folder):
    out = []
    for n in sizes:
        questions_path, evidence_path = write_jsonl(pool, n, folder)
        size_mib = (questions_path.stat().st_size + evidence_path.stat().st_size) / 2**20
        child = subprocess.run([sys.executable, __file__, "--stream-child", str(questions_path), str(evidence_path)],
                               check=True, capture_output=True, text=True)
        report = json.loads(child.stdout)
        report.update(files_mib=round(size_mib, 1), us_per_question=round(report["seconds"] / n * 1e6, 2))
        out.append(report)
        questions_path.unlink()
        evidence_path.unlink()
    baseline = subprocess.run([sys.executable, __file__, "--peak-rss"], check=True, capture_output=True, text=True)
    return {"interpreter_with_scoring_imported_mib": float(baseline.stdout), "runs": out}


def bench_evaluate(pool, sizes, batch_size, repeat):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")
    import evaluate

    metric = evaluate.load(str(REPO / "metrics" / "tempbench_trp"))
    out = []
    for n in sizes:
        pairs = [pool[i % len(pool)] for i in range(n)]
        questions = [q for q, _ in pairs]
        evidences = [e for _, e in pairs]
        inputs = {"references": [q["S_star"] for q in questions], "t_query": [q["t_query"] for q in questions],
                  "complexity": [q["complexity"] for q in questions],
                  "operator_type": [q["operator_type"] for q in questions], "id": [q["id"] for q in questions]}
        # Interleaved, best of each: the two are timed under the same load of a shared machine.
        t_pure = t_compute = float("inf")
        for _ in range(repeat if n > 20_000 else max(repeat, 7)):
            t, pure = timed(lambda: scoring.score(questions, evidences), 1)
            t_pure = min(t_pure, t)
            t, via_compute = timed(lambda: metric.compute(predictions=evidences, **inputs), 1)
            t_compute = min(t_compute, t)

        def batched():
            for start in range(0, n, batch_size):
                metric.add_batch(predictions=evidences[start:start + batch_size],
                                 **{k: v[start:start + batch_size] for k, v in inputs.items()})
            return metric.compute()

        t_batched, via_batches = timed(batched, repeat)
        assert pure == via_compute == via_batches, "evaluate's numbers differ from the pure scorer's"
        out.append({"questions": n, "pure_s": round(t_pure, 3), "compute_s": round(t_compute, 2),
                    f"add_batch_{batch_size}_s": round(t_batched, 2),
                    "compute_over_pure": round(t_compute / t_pure, 1),
                    "add_batch_over_pure": round(t_batched / t_pure, 1)})
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[100_000, 1_000_000],
                        help="questions for the comparison with the reference")
    parser.add_argument("--stream-sizes", type=int, nargs="*", default=[100_000, 1_000_000],
                        help="questions written to JSONL and streamed")
    parser.add_argument("--evaluate-sizes", type=int, nargs="*", default=[10_000, 100_000],
                        help="questions through evaluate's compute and add_batch")
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs below 200k questions")
    parser.add_argument("--tmp", help="folder for the streaming files (default: a new temp dir)")
    parser.add_argument("--stream-child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--peak-rss", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.peak_rss:
        print(peak_rss_mib())
        return 0
    if args.stream_child:
        _stream_child(*args.stream_child)
        return 0

    pool = make_pool()
    report = {"python": sys.version.split()[0], "pool_of_distinct_questions": POOL}
    report["vs_reference"] = [bench_against_reference(pool, n, args.repeat if n < 200_000 else 1) for n in args.sizes]
    print(json.dumps(report["vs_reference"], indent=1), flush=True)
    if args.stream_sizes:
        with tempfile.TemporaryDirectory(dir=args.tmp) as folder:
            report["streaming"] = bench_streaming(pool, args.stream_sizes, pathlib.Path(folder))
        print(json.dumps(report["streaming"], indent=1), flush=True)
    if args.evaluate_sizes:
        report["evaluate_overhead"] = bench_evaluate(pool, args.evaluate_sizes, args.batch_size, args.repeat)
        print(json.dumps(report["evaluate_overhead"], indent=1), flush=True)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
