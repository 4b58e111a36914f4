"""TSVer speed: the pure scorer against evaluate's compute, and aggregate alone, in one process.

    python scripts/bench_tsver.py [--copies 20] [--shared ../shared]

The test set (280 claims) with the all-verdicts-wrong predictions is repeated `--copies` times.
Prints ratios, measured in the same run (best of 3 after a warm-up call each): evaluate.compute /
pure scoring (the Arrow round trip the fast path avoids), against `scoring.score` (an ItemStats per claim) and against
`scoring.summarize` (the sums without them, which `compute` and the command use when no per-claim
output is asked for), and aggregate / pure scoring (what a slice or a bootstrap resample costs once
per-claim statistics exist).
"""

import argparse
import pathlib
import time
import warnings

from benchscore import load
from benchscore.tsver import files
from benchscore.tsver import loader
from benchscore.tsver import scoring


def best_of(function, repeats=3, warm_up=False, before=None):
    """The best time of `repeats` calls; with `warm_up`, after one untimed call (a process's first calls of
    `compute` take up to twice as long while its heap grows: measured 0.10-0.24 s, then 0.09 s steadily);
    `before()`, when given, runs untimed before each call (e.g. to time each from cold caches)."""
    if warm_up:
        function()
    times = []
    for _ in range(repeats):
        if before is not None:
            before()
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def timings(copies=20, shared=None):
    """{"claims", "pure", "summarize", "aggregate_only", "compute"} (seconds, best of 3 after a warm-up) on the
    test set `copies` times over."""
    data = pathlib.Path(shared or pathlib.Path(__file__).resolve().parents[2] / "shared") / "data" / "tsver"
    gold = files.read_references(data / "tsver_test.jsonl")
    predictions = files.read_predictions(data / "predictions" / "pred_test_wrong_verdict.jsonl",
                                         [g["Claim"] for g in gold])
    gold, predictions = gold * copies, predictions * copies

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", scoring.TSVerWarning)
        pure = best_of(lambda: scoring.score(gold, predictions), warm_up=True)
        summed = best_of(lambda: scoring.summarize(gold, predictions), warm_up=True)
        stats = scoring.item_stats(gold, predictions)
        aggregate_only = best_of(lambda: scoring.aggregate(stats))
        references = [loader.reference(g) for g in gold]
        examples = [loader.prediction(p) for p in predictions]
        metric = load("tsver")
        wrapped = best_of(lambda: metric.compute(predictions=examples, references=references), warm_up=True)
    return {"claims": len(gold), "pure": pure, "summarize": summed, "aggregate_only": aggregate_only,
            "compute": wrapped}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--shared", default=str(pathlib.Path(__file__).resolve().parents[2] / "shared"))
    args = parser.parse_args()
    t = timings(args.copies, args.shared)
    print(f"claims: {t['claims']}")
    print(f"pure scoring:      {t['pure']:.3f} s")
    print(f"summarize:         {t['summarize']:.3f} s  ({t['summarize'] / t['pure']:.2f} x pure)")
    print(f"aggregate only:    {t['aggregate_only']:.4f} s  ({t['aggregate_only'] / t['pure']:.3f} x pure)")
    print(f"evaluate.compute:  {t['compute']:.3f} s  ({t['compute'] / t['pure']:.1f} x pure, "
          f"{t['compute'] / t['summarize']:.1f} x summarize)")


if __name__ == "__main__":
    main()
