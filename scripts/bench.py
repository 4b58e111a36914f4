"""Every benchmark's speed as one table of ratios, measured in this one run (issue 23's targets).

    python scripts/bench.py --quick     # small sizes: a few minutes
    python scripts/bench.py             # the issue's sizes (TempBench 100k/200k questions, ~100 MB files)

Three kinds of rows, each a ratio of two timings taken side by side in this process (best of a few),
so a slow or busy machine slows both alike; seconds are printed for scale only:
- `pure / reference`: TempBench's pure scorer against the reference scorer on the same questions
  (speed-up: reference seconds / ours; the target is >= 3);
- `cli / parse`: the command `benchscore <bench>` on large files (run in-process, its output
  discarded) against the fastest parse of the same files: orjson per JSONL line (json when orjson is
  not installed), `str.split` per TSV line, lxml for XML (ElementTree when lxml is not installed; the
  target is <= 2);
- `compute / pure`: `evaluate` `compute` against the pure scorer on the same inputs (target <= 3);
- WebNLG's `floor / parse`: what its command cannot do without, against the same parse (no target: it
  bounds the `cli / parse` row from below): the parse, tokenizing the distinct elements and the compiled
  per-pair kernel on the distinct pairs, each timed alone (`bench_webnlg.floor`).
The per-benchmark scripts (`bench_<benchmark>.py`) measure each in more detail. Data: ../shared
(BENCHSCORE_SHARED overrides) and synthetic TempBench questions (`bench_tempbench.py`).
"""

import argparse
import contextlib
import importlib.metadata
import io
import json
import os
import pathlib
import sys
import tempfile
import warnings
import xml.etree.ElementTree as ElementTree

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")

import bench_mctaco  # noqa: E402
import bench_tempbench  # noqa: E402
import bench_tsver  # noqa: E402
import bench_webnlg  # noqa: E402

from benchscore import cli  # noqa: E402

SHARED = pathlib.Path(os.environ.get("BENCHSCORE_SHARED", HERE.parent.parent / "shared"))
DATA = SHARED / "data"

try:
    import orjson

    PARSER, loads = "orjson", orjson.loads
except ImportError:  # the stdlib as the limit instead (the table says which)
    PARSER, loads = "json", json.loads

try:  # libxml2 parses the WebNLG files in about two thirds of expat's time (none of our extras installs it)
    from lxml import etree

    XML_PARSER, parse_xml_file = "lxml", etree.parse
except ImportError:
    XML_PARSER, parse_xml_file = "ElementTree", ElementTree.parse


best = bench_tsver.best_of  # the best time of `repeat` runs


def parse_jsonl(*paths):
    for path in paths:
        with open(path, "rb") as f:
            for line in f:
                if line.strip():
                    loads(line)


def parse_tsv(*paths):
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line.rstrip("\n").split("\t")


def parse_xml(*paths):
    for path in paths:
        parse_xml_file(path)


def run_cli(argv):
    """`benchscore <argv>` in this process, its output discarded; its exit status must be 0."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = cli.main(argv)
    if code != 0:
        raise SystemExit(f"benchscore {' '.join(argv)} exited {code}")


def cli_row(bench, argv, parse, inputs, repeat, before=None):
    """The command against the parse of its inputs, best of `repeat` each; `before()` runs untimed before each
    command (a fresh process starts with empty memos: WebNLG's would make a second run in this one faster)."""
    def parsed():
        with cli.rare_collections():  # the GC setting a command runs under, so that neither pays more rescans
            parse(*inputs)

    t_cli, t_parse = best(lambda: run_cli(argv), repeat, before=before), best(parsed, repeat)
    size = sum(os.path.getsize(path) for path in inputs) / 2**20
    baseline = {parse_jsonl: PARSER, parse_xml: XML_PARSER}.get(parse, parse.__name__)
    return {"benchmark": bench, "ratio": "cli / parse", "value": t_cli / t_parse, "target": "<= 2",
            "detail": f"{size:,.0f} MiB; cli {seconds(t_cli)} s, {baseline} {seconds(t_parse)} s"}


def seconds(t):
    """Two decimals, three below 0.1 s (WebNLG's parse takes about 0.02 s)."""
    return f"{t:.2f}" if t >= 0.1 else f"{t:.3f}"


# ------------------------------------------------------------------ large files, written once per run


def replicate_lines(source, target, copies, edit):
    """`source`'s lines `copies` times over into `target`, each line passed through `edit(line, copy)`."""
    lines = source.read_text(encoding="utf-8").splitlines()
    with open(target, "w", encoding="utf-8") as out:
        for copy in range(copies):
            out.writelines(edit(line, copy) + "\n" for line in lines)
    return target


def mctaco_files(folder, copies):
    """The test set `copies` times over (each copy's sentences distinct) and the BERT output to match."""
    gold = replicate_lines(DATA / "mctaco" / "test_9442.tsv", folder / "mctaco.tsv", copies,
                           lambda line, c: line.replace("\t", f" #{c}\t", 1))
    predictions = replicate_lines(DATA / "mctaco" / "baseline_outputs" / "bert.norm.output.txt",
                                  folder / "mctaco.txt", copies, lambda line, c: line)
    return gold, predictions


def tsver_files(folder, copies):
    """The test set and a prediction file `copies` times over, each copy's claims distinct."""
    def distinct(line, copy):
        record = json.loads(line)
        record["Claim"] = f"{record['Claim']} #{copy}"
        return json.dumps(record, ensure_ascii=False)

    gold = replicate_lines(DATA / "tsver" / "tsver_test.jsonl", folder / "tsver_gold.jsonl", copies, distinct)
    predictions = replicate_lines(DATA / "tsver" / "predictions" / "pred_test_wrong_verdict.jsonl",
                                  folder / "tsver_predictions.jsonl", copies, distinct)
    return gold, predictions


def webnlg_files(folder, copies):
    """The English test references and bt5's submission with their entries `copies` times over."""
    def repeated(source, target):
        text = source.read_text(encoding="utf-8")
        start, end = text.index("<entries>") + len("<entries>"), text.rindex("</entries>")
        target.write_text(text[:start] + text[start:end] * copies + text[end:], encoding="utf-8")
        return target

    return (repeated(DATA / "webnlg" / "references" / "en_all.xml", folder / "webnlg_refs.xml"),
            repeated(DATA / "webnlg" / "submissions" / "en" / "bt5" / "all.xml", folder / "webnlg_cands.xml"))


# ------------------------------------------------------------------ the rows


def tempbench_rows(sizes, repeat, folder):
    pool = bench_tempbench.make_pool()
    versus = bench_tempbench.bench_against_reference(pool, sizes["reference"], repeat)
    rows = [{"benchmark": "tempbench", "ratio": "pure / reference (speed-up)", "value": versus["speedup_score"],
             "target": ">= 3", "detail": f"{versus['questions']:,} questions; reference {versus['reference_s']} s, "
                                         f"ours {versus['ours_score_s']} s"}]
    questions, evidence = bench_tempbench.write_jsonl(pool, sizes["cli"], folder)
    rows.append(cli_row("tempbench", ["tempbench", "--questions", str(questions), "--evidence", str(evidence),
                                      "--json"], parse_jsonl, [questions, evidence], repeat))
    compute = bench_tempbench.bench_evaluate(pool, [sizes["compute"]], 1000, repeat)[0]
    rows.append({"benchmark": "tempbench", "ratio": "compute / pure", "value": compute["compute_over_pure"],
                 "target": "<= 3", "detail": f"{compute['questions']:,} questions; pure {compute['pure_s']} s"})
    return rows


def mctaco_rows(sizes, repeat, folder):
    gold, predictions = mctaco_files(folder, sizes["mctaco_copies"])
    rows = [cli_row("mctaco", ["mctaco", "--gold", str(gold), "--predictions", str(predictions), "--json"],
                    parse_tsv, [gold, predictions], repeat)]
    for keys, (t_pure, t_compute) in bench_mctaco.evaluate_ratios(1, repeat).items():
        rows.append({"benchmark": "mctaco", "ratio": "compute / pure", "value": t_compute / t_pure, "target": "<= 3",
                     "detail": f"test set, {keys}; pure {t_pure:.3f} s"})
    return rows


def tsver_rows(sizes, repeat, folder):
    gold, predictions = tsver_files(folder, sizes["tsver_copies"])
    rows = [cli_row("tsver", ["tsver", "--gold", str(gold), "--predictions", str(predictions), "--json"],
                    parse_jsonl, [gold, predictions], repeat)]
    t = bench_tsver.timings(20, SHARED)
    rows.append({"benchmark": "tsver", "ratio": "compute / pure", "value": t["compute"] / t["pure"], "target": "<= 3",
                 "detail": f"test set x20 ({t['claims']:,} claims); pure {t['pure']:.3f} s (score, an ItemStats per "
                           f"claim); compute sums without them, {t['compute'] / t['summarize']:.2f}x summarize "
                           f"({t['summarize']:.3f} s)"})
    return rows


def webnlg_rows(sizes, repeat, folder):
    references, candidates = webnlg_files(folder, sizes["webnlg_copies"])
    rows = [cli_row("webnlg", ["webnlg", str(references), str(candidates), "--json", "--no-progress"],
                    parse_xml, [references, candidates], repeat, before=bench_webnlg.clear_caches)]
    least = bench_webnlg.floor(references, candidates, parse_xml, repeat)
    total = least["parse"] + least["tokenize"] + least["pairs"]
    rows.append({"benchmark": "webnlg", "ratio": "floor / parse", "value": total / least["parse"], "target": "-",
                 "detail": f"the least a command on this scorer takes: {XML_PARSER} {seconds(least['parse'])} s + "
                           f"tokenizing {least['elements']:,} elements {seconds(least['tokenize'])} s + the compiled "
                           f"per-pair kernel on {least['distinct_pairs']:,} pairs {seconds(least['pairs'])} s"})
    with contextlib.redirect_stdout(io.StringIO()):
        ratios = bench_webnlg.bench_evaluate(copies=(1,))
    for found in ratios:
        rows.append({"benchmark": "webnlg", "ratio": "compute / pure", "value": found["compute"] / found["pure"],
                     "target": "<= 3", "detail": f"{found['entries']:,} entries; pure {found['pure']:.2f} s"})
    return rows


SIZES = {"quick": {"reference": 20_000, "cli": 20_000, "compute": 10_000, "mctaco_copies": 2, "tsver_copies": 20,
                   "webnlg_copies": 1},
         # WebNLG: the full English test set once (2,155 entries), the largest file the command takes
         # (more copies pass its limits: 16 MiB a file, 45M work units of scoring).
         "full": {"reference": 100_000, "cli": 200_000, "compute": 100_000, "mctaco_copies": 60,
                  "tsver_copies": 150, "webnlg_copies": 1}}


def readers():
    """Which optional readers this run had: the parse baseline's, and the commands' typed lines (the `fast` extra)."""
    def version(name):
        try:
            return f"{name} {importlib.metadata.version(name)}"
        except importlib.metadata.PackageNotFoundError:
            return f"{name} not installed"
    return f"Readers: {version('orjson')} (the parse, and the commands' JSONL), {version('msgspec')} (TempBench's " \
           f"and TSVer's commands decode their lines with it first), {version('lxml')} (the XML parse)."


def table(rows):
    lines = ["| benchmark | ratio | measured | target | detail |", "| --- | --- | ---: | --- | --- |"]
    lines += [f"| {r['benchmark']} | {r['ratio']} | {r['value']:.2f} | {r['target']} | {r['detail']} |" for r in rows]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (minutes, not tens of minutes)")
    parser.add_argument("--repeat", type=int, default=3, help="timings per path; the best is kept (default 3)")
    parser.add_argument("--json", help="also write the rows to this JSON file")
    args = parser.parse_args(argv)
    sizes = SIZES["quick" if args.quick else "full"]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for make in (tempbench_rows, mctaco_rows, tsver_rows, webnlg_rows):
            rows += make(sizes, args.repeat, pathlib.Path(folder))
            print(table(rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    print(table(rows))
    print(f"\n{readers()}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
