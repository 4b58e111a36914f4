"""MC-TACO: what `evaluate` costs over the pure scorer, on the full test set.

    python scripts/bench_mctaco.py                 # test_9442.tsv + the BERT output, best of 5
    python scripts/bench_mctaco.py --copies 4      # the test set four times over (distinct questions)

Both paths score the same in-memory columns (what a user holds after `loader.load_split`): the
pure path is `scoring.score`, the evaluate path `benchscore.load("mctaco").compute` (Arrow encode,
cache file, decode, then the same statistics), once with sentence/question keys and string labels,
once with the loader's question_id and ClassLabel ids. Everything is timed in this one process
against the pure baseline measured next to it: the ratios are the result, not the seconds.
"""

import argparse
import os
import pathlib
import sys
import timeit

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED = pathlib.Path(os.environ.get("BENCHSCORE_SHARED", REPO.parent / "shared")) / "data" / "mctaco"

import benchscore  # noqa: E402
from benchscore.mctaco import files  # noqa: E402
from benchscore.mctaco import loader  # noqa: E402
from benchscore.mctaco import scoring  # noqa: E402


def best_times(functions, repeat):
    """The best time of each function, the functions timed in turn (so a busy machine slows all alike)."""
    times = [[timeit.timeit(function, number=1) for function in functions] for _ in range(repeat)]
    return [min(column) for column in zip(*times)]


def columns(copies):
    """The test set (and the BERT output) `copies` times over, each copy's questions distinct."""
    if not (SHARED / "test_9442.tsv").exists():
        sys.exit(f"the MC-TACO test set is needed: {SHARED / 'test_9442.tsv'}")
    rows = files.read_references(SHARED / "test_9442.tsv")
    yes = files.read_predictions(SHARED / "baseline_outputs" / "bert.norm.output.txt")
    dataset = loader.load_split(SHARED / "test_9442.tsv", "test")
    by_text = {
        "predictions": ["yes" if y else "no" for y in yes] * copies,
        "references": [row["label"] for row in rows] * copies,
        "sentence": [f"{row['sentence']} #{c}" for c in range(copies) for row in rows],
        "question": [row["question"] for row in rows] * copies,
        "category": [row["category"] for row in rows] * copies,
    }
    by_id = {
        "predictions": [int(y) for y in yes] * copies,
        "references": list(dataset["label"]) * copies,
        "question_id": [f"{qid}#{c}" for c in range(copies) for qid in dataset["question_id"]],
        "category": list(dataset["category"]) * copies,
    }
    return by_text, by_id


def pure_by_text(c):
    keys = [scoring.question_key(s, q) for s, q in zip(c["sentence"], c["question"])]
    return scoring.score(c["predictions"], c["references"], keys, c["category"], key_source="sentence+question")


def pure_by_id(c):
    categories = [scoring.CATEGORIES[i] for i in c["category"]]
    return scoring.score(c["predictions"], c["references"], c["question_id"], categories)


def evaluate_ratios(copies=1, repeat=5):
    """{keys: (pure seconds, evaluate seconds)} on the test set `copies` times over, both key schemes."""
    by_text, by_id = columns(copies)
    module = benchscore.load("mctaco")
    out = {}
    for name, cols, pure in (("sentence+question, 'yes'/'no'", by_text, pure_by_text),
                             ("question_id, ClassLabel ids", by_id, pure_by_id)):
        expected, got = pure(cols), module.compute(**cols)
        assert (got["em"], got["f1"], got["n_questions"]) == (expected["em"], expected["f1"], expected["n_questions"])
        out[name] = tuple(best_times([lambda: pure(cols), lambda: module.compute(**cols)], repeat))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=1, help="how many times over the test set (default 1)")
    parser.add_argument("--repeat", type=int, default=5, help="timings per path; the best is kept (default 5)")
    args = parser.parse_args(argv)
    n = len(columns(args.copies)[0]["predictions"])
    print(f"MC-TACO test set x{args.copies}: {n:,} candidates; best of {args.repeat}")
    for name, (t_pure, t_evaluate) in evaluate_ratios(args.copies, args.repeat).items():
        print(f"  {name:32} pure {t_pure * 1000:8.1f} ms   evaluate {t_evaluate * 1000:8.1f} ms   "
              f"ratio {t_evaluate / t_pure:5.2f}x")


if __name__ == "__main__":
    main()
