"""TSVer Ev2R judge throughput: concurrent requests against the official one-at-a-time, in one process.

    python scripts/bench_judge.py [--latency 0.05] [--concurrency 8] [--repeat 1] [--predictions FILE]

Judges the TSVer test set (gold `official:test` from the data store, predictions
pred_test_gold.jsonl from ../shared beside the checkout, or `--predictions`) with `OpenAIJudge`
against a fake chat-completions server on 127.0.0.1 that answers every request after `--latency`
seconds (tests/fake_judge_server.py; no cache, no key, nothing leaves the machine). Runs it once
with concurrency 1 (the official pipeline sends one request at a time) and once with
`--concurrency`, best of `--repeat` each, and prints claims, requests and wall seconds of each run
and their ratio (concurrent / one at a time; the target is <= 1/6 = 0.167 at concurrency 8), measured
in the same run, never asserted on a clock. Also checks that both runs gave the same Ev2R and the same
judge records (results never depend on completion order).
"""

import argparse
import pathlib
import sys
import tempfile
import time
import warnings

from benchscore.tsver import files, http_judge, scoring

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from fake_judge_server import FakeJudgeServer  # the tests' fake server, found through sys.path

TARGET = 1 / 6
EV2R_FIELDS = ("ev2r_precision", "ev2r_recall", "ev2r_f1", "n_ev2r_judged", "n_ev2r_failed")


def judge_once(server, gold, predictions, concurrency, records_file):
    """(wall seconds, requests sent, the result, the records written) of one judge run on a fresh judge."""
    judge = http_judge.OpenAIJudge(server.base_url, "fake-judge", api_key_env=None, cache_dir=None,
                                   concurrency=concurrency, progress=False)
    records_file.unlink(missing_ok=True)  # a leftover file would resume: every claim must be sent
    before = len(server.requests)
    start = time.perf_counter()
    result = files.score_files(gold, predictions, judge=judge, write_ev2r=records_file)
    seconds = time.perf_counter() - start
    return seconds, len(server.requests) - before, result, records_file.read_text(encoding="utf-8")


def best_of(repeats, run):
    runs = [run() for _ in range(repeats)]
    return min(runs, key=lambda found: found[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.05, help="seconds the fake server holds each request")
    parser.add_argument("--concurrency", type=int, default=8, help="requests in flight in the concurrent run")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each setting; the best one is shown")
    parser.add_argument("--gold", default="official:test", help="gold file (default: the data store's test set)")
    parser.add_argument("--predictions",
                        default=str(REPO.parent / "shared" / "data" / "tsver" / "predictions" / "pred_test_gold.jsonl"))
    parser.add_argument("--workdir", default=None, help="where the temporary record files go (default: a temp dir)")
    args = parser.parse_args()
    if args.latency < 0 or args.concurrency < 1 or args.repeat < 1:
        parser.error("--latency must be >= 0, --concurrency and --repeat >= 1")

    warnings.simplefilter("ignore", scoring.TSVerWarning)
    with tempfile.TemporaryDirectory(dir=args.workdir) as folder, FakeJudgeServer(hold=args.latency) as server:
        folder = pathlib.Path(folder)
        serial = best_of(args.repeat, lambda: judge_once(server, args.gold, args.predictions, 1, folder / "one.jsonl"))
        concurrent = best_of(args.repeat, lambda: judge_once(server, args.gold, args.predictions, args.concurrency,
                                                            folder / "many.jsonl"))
        peak = server.max_in_flight

    (t1, n1, r1, w1), (tn, nn, rn, wn) = serial, concurrent
    ratio = tn / t1
    print(f"server latency: {args.latency * 1000:.0f} ms per request; peak in flight: {peak}")
    print(f"claims: {r1['n_claims']} ({r1['n_ev2r_judged']} judged, {r1['n_ev2r_failed']} failed)")
    print(f"{'run':<20} {'requests':>9} {'wall s':>9}")
    print(f"{'concurrency 1':<20} {n1:>9} {t1:>9.3f}")
    print(f"{f'concurrency {args.concurrency}':<20} {nn:>9} {tn:>9.3f}")
    print(f"ratio (concurrent / one at a time): {ratio:.3f}  (target <= {TARGET:.3f}: "
          f"{'met' if ratio <= TARGET else 'NOT met'})")
    same_ev2r = all(r1.get(k) == rn.get(k) for k in EV2R_FIELDS)
    same_records = w1 == wn
    print(f"same Ev2R: {'yes' if same_ev2r else 'NO'} (F1 {r1.get('ev2r_f1')!r} vs {rn.get('ev2r_f1')!r}); "
          f"same records: {'yes' if same_records else 'NO'} ({len(w1.splitlines())} lines)")
    return 0 if same_ev2r and same_records else 1


if __name__ == "__main__":
    sys.exit(main())
