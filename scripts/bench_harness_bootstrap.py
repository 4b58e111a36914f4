"""What lm-eval 0.5's bootstrap costs on our harness tasks' corpus aggregations.

    python scripts/bench_harness_bootstrap.py [--draws 200]

lm-eval 0.5 computes the standard error of every aggregation other than `mean` by drawing the
task's documents with replacement (`random.Random(i).choices(xs, k=len(xs))`, 100,000 times by
default) and calling the aggregation on each draw. Per aggregation of `webnlg_text2rdf` (the 2,155
English entries with the bt5 submission's triples) this prints, timed in this one process:
- `aggregation_ms`: one call on a draw (best of 3 passes over `--draws` seeded draws);
- `draw_ms`: lm-eval's own draw of those documents (the floor of its bootstrap);
- `ratio`: aggregation / draw (1 would double the floor);
- `bootstrap_100k_s`: what 100,000 draws and calls cost on one core.
MC-TACO's metrics are all lm-eval's `mean` (a closed-form standard error, no bootstrap).
Data: ../shared (BENCHSCORE_SHARED overrides).
"""

import argparse
import json
import os
import pathlib
import random
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED = pathlib.Path(os.environ.get("BENCHSCORE_SHARED", REPO.parent / "shared")) / "data"


def best_per_call(fn, draws, repeat=3):
    """The fastest of `repeat` passes over `draws`, in milliseconds per call."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for draw in draws:
            fn(draw)
        best = min(best, time.perf_counter() - start)
    return 1000 * best / len(draws)


def webnlg_values():
    from benchscore.harness import tasks
    from benchscore.webnlg_rdf.files import read_predictions, read_references

    references = read_references(SHARED / "webnlg" / "references" / "en_all.xml")
    candidates = read_predictions(SHARED / "webnlg" / "submissions" / "en" / "bt5" / "all.xml")
    return [tasks.webnlg_values({"references": r["triples"]}, "\n".join(c["triples"]))
            for r, c in zip(references, candidates)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=200, help="seeded draws timed per aggregation")
    args = parser.parse_args(argv)
    from benchscore.harness import tasks

    values = webnlg_values()
    rows = []
    for name, aggregation in tasks.WEBNLG_METRICS.items():
        column = [value[name] for value in values]
        draws = [random.Random(i).choices(column, k=len(column)) for i in range(args.draws)]
        aggregation_ms = best_per_call(aggregation, draws)
        rnd = random.Random(0)
        draw_ms = best_per_call(lambda _: rnd.choices(column, k=len(column)), draws)
        rows.append({"task": "webnlg_text2rdf", "metric": name, "documents": len(column),
                     "aggregation_ms": round(aggregation_ms, 3), "draw_ms": round(draw_ms, 3),
                     "ratio": round(aggregation_ms / draw_ms, 1),
                     "bootstrap_100k_s": round(100 * (aggregation_ms + draw_ms), 1)})
    width = max(len(row["metric"]) for row in rows)
    print(f"{'metric':<{width}}  documents  aggregation_ms  draw_ms  ratio  bootstrap_100k_s")
    for row in rows:
        print(f"{row['metric']:<{width}}  {row['documents']:>9}  {row['aggregation_ms']:>14}  {row['draw_ms']:>7}  "
              f"{row['ratio']:>5}  {row['bootstrap_100k_s']:>16}")
    print(json.dumps({"rows": rows}))


if __name__ == "__main__":
    main()
