"""Is pausing the cyclic garbage collector during `evaluate` `compute` worth it? Timed both ways.

    python scripts/bench_gc_pause.py [--tempbench 50000] [--repeat 3]

`core.metric.BenchscoreMetric` pauses the cyclic GC (reference counting still frees memory) inside
`compute` and `add_batch`: evaluate builds and keeps many long-lived lists and dicts there, which
the collector rescans again and again. This times each module's `compute` with the pause (as
shipped) and without it, interleaved, best of `--repeat`, in this one process, and prints
plain / paused (above 1: the pause is worth it). Inputs: MC-TACO's official test set (9,442 rows,
BERT's predictions) and synthetic TempBench questions (as `bench_tempbench.py`). Data: ../shared.
"""

import argparse
import importlib.util
import os
import pathlib
import random
import time
from contextlib import contextmanager

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED = pathlib.Path(os.environ.get("BENCHSCORE_SHARED", REPO.parent / "shared")) / "data"


@contextmanager
def gc_not_paused():
    from benchscore.core import metric

    paused = metric.gc_paused
    metric.gc_paused = lambda method, **kwargs: method(**kwargs)
    try:
        yield
    finally:
        metric.gc_paused = paused


def mctaco_inputs():
    from benchscore.mctaco.files import read_references
    from benchscore.mctaco.scoring import question_key

    rows = read_references(SHARED / "mctaco" / "test_9442.tsv")
    predictions = (SHARED / "mctaco" / "baseline_outputs" / "bert.norm.output.txt").read_text(encoding="utf-8").split()
    return {"predictions": [p == "yes" for p in predictions], "references": [r["label"] == "yes" for r in rows],
            "question_id": [question_key(r["sentence"], r["question"]) for r in rows]}


def tempbench_inputs(n):
    spec = importlib.util.spec_from_file_location("bench_tempbench", REPO / "scripts" / "bench_tempbench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rng = random.Random(0)
    pool = [bench.make_question(rng, i) for i in range(bench.POOL)]
    pairs = [pool[i % len(pool)] for i in range(n)]
    return {"predictions": [e for _, e in pairs], "references": [q["S_star"] for q, _ in pairs],
            "t_query": [q["t_query"] for q, _ in pairs]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tempbench", type=int, default=50_000, help="synthetic TempBench questions")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")
    import evaluate

    for name, inputs in (("mctaco", mctaco_inputs()), ("tempbench_trp", tempbench_inputs(args.tempbench))):
        module = evaluate.load(str(REPO / "metrics" / name))
        best = {"paused": float("inf"), "plain": float("inf")}
        results = {}
        for _ in range(args.repeat):
            for mode in best:
                start = time.perf_counter()
                if mode == "paused":
                    results[mode] = module.compute(**inputs)
                else:
                    with gc_not_paused():
                        results[mode] = module.compute(**inputs)
                best[mode] = min(best[mode], time.perf_counter() - start)
        assert results["paused"] == results["plain"]
        print(f"{name}: {len(inputs['predictions']):,} examples, compute {best['paused']:.3f} s paused, "
              f"{best['plain']:.3f} s not: plain/paused {best['plain'] / best['paused']:.2f}")


if __name__ == "__main__":
    main()
