"""`benchscore table <bench>`: several systems against one gold file, as a paper's table.

Each system's per-item statistics are computed once (the benchmark's `cli.systems`); every row holds
the benchmark's headline metrics (its registry `Table`) with the value (the scorer's own number),
its bootstrap interval (`significance.confidence_intervals`, as `compare` gives it) and, for every
system but the baseline, the p-value of the paired test against the baseline
(`significance.paired_test`, as `compare` gives it for the pair). Formats: markdown, LaTeX
(booktabs), CSV and JSON; `--plot` draws the same numbers (core.plots).

The JSON is the table's one source: the other formats and the plot are made from it, and its
`attestation` holds the sha256 of every input file and of the table itself, so two tables can be
told to come from the same files.
"""

import csv
import hashlib
import io
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from benchscore.core import plots
from benchscore.core.compare import Systems
from benchscore.core.readers import check_output, check_writable, write_atomically
from benchscore.core.records import extended
from benchscore.core.registry import Benchmark
from benchscore.core.resampling_options import check_options, signature_fields
from benchscore.data.store import sha256_of

FORMATS = ("markdown", "latex", "csv", "json")
TESTS = {"bootstrap": "p_bootstrap", "randomization": "p_randomization"}
TEST_NAMES = {"bootstrap": "paired bootstrap", "randomization": "approximate randomization"}


def add_table_options(parser) -> None:
    """The options `table` adds to a benchmark's compare options."""
    parser.add_argument("--name", action="append", dest="names", metavar="NAME",
                        help="a system's name, once per --predictions in the same order (default: each file's stem)")
    parser.add_argument("--baseline", help="the system the others are tested against (default: the first)")
    parser.add_argument("--format", choices=FORMATS, default=None, help="markdown (default), latex, csv or json")
    parser.add_argument("--test", choices=tuple(TESTS), default="bootstrap",
                        help="the paired test whose p-value is shown (default: paired bootstrap)")
    parser.add_argument("--alpha", type=float, default=0.05, help="the level a difference is marked at (default 0.05)")
    parser.add_argument("-o", "--output", help="write the table to this file instead of printing it")
    parser.add_argument("--plot", help="also draw a forest plot of the values and the differences (.png or .svg; "
                                       "needs the `plots` extra: matplotlib)")


def system_names(predictions: Sequence[str], names: Sequence[str] | None) -> list[str]:
    """The systems' names: --name per file, else each file's stem; an error for a count mismatch or a repeat."""
    if names and len(names) != len(predictions):
        raise ValueError(f"--name was given {len(names)} times and --predictions {len(predictions)} times; expected "
                         "one name per prediction file, in the same order (or none)")
    chosen = list(names) if names else [os.path.splitext(os.path.basename(p))[0] or p for p in predictions]
    for index, name in enumerate(chosen):
        _check_name(index, name)
        if name in chosen[:index]:
            how = "--name" if names else "file stem"
            raise ValueError(f"two systems are named {name!r} ({how} of --predictions {chosen.index(name) + 1} and "
                             f"{index + 1}); expected distinct names (give --name for each)")
    return chosen


def _check_name(index: int, name: str) -> None:
    if not name.strip() or not name.isprintable():
        raise ValueError(f"system {index + 1}'s name is {name!r:.60}; expected a name of printable characters (--name)")


def check_arguments(args) -> None:
    """The table's options checked before any file is read."""
    check_options(args.n_resamples, args.seed, args.confidence)
    if not 0 < args.alpha < 1:
        raise ValueError(f"--alpha is {args.alpha!r}; expected a level strictly between 0 and 1 (e.g. 0.05)")
    if getattr(args, "json", False):
        if args.format not in (None, "json"):
            raise ValueError(f"--json and --format {args.format} contradict each other; give one")
        args.format = "json"
    args.format = args.format or "markdown"
    _check_systems(args)
    plots.check_path(args.plot, *args.predictions, *_inputs(args), output=args.output)
    check_output(args.output, *args.predictions, *_inputs(args), args.plot)
    check_writable(args.output)


def _check_systems(args) -> None:
    """The systems' names, the baseline among them, and a judge's records (if any) one per system."""
    names = system_names(args.predictions, args.names)
    records = getattr(args, "ev2r", None)
    if records and len(records) != len(args.predictions):
        raise ValueError(f"--ev2r was given {len(records)} times and --predictions {len(args.predictions)} times; a "
                         "table has one row per prediction file, each with its own judge records (to compare two "
                         "judges of one file, use benchscore compare)")
    if args.baseline is not None and args.baseline not in names:
        raise ValueError(f"--baseline {args.baseline!r} is not a system; expected one of {', '.join(names)}")


def _inputs(args) -> list[str]:
    """The other input files a benchmark's options name (its gold file, judge records), for the output checks."""
    names = ("gold", "questions", "reference")
    return [value for name in names if isinstance(value := getattr(args, name, None), str)] + list(
        getattr(args, "ev2r", None) or [])


def build(bench: Benchmark, names: Sequence[str], systems: Systems, n_resamples: int, seed: int, level: float,
          baseline: str | None = None, test: str = "bootstrap") -> dict:
    """The table as JSON-ready data: {"benchmark", "signature", "baseline", "test", "level", "rows":
    [{"system", "metrics": {key: {"value", "low", "high", "p_value"}}}], "attestation"}."""
    options = (n_resamples, seed, level)
    baseline = baseline or names[0]
    intervals = [systems.intervals(stats, *options) for stats in systems.stats]
    keys = [key for key in bench.table.keys if all(key in found for found in intervals)]
    if not keys:
        raise ValueError(f"no headline metric of {bench.name} ({', '.join(bench.table.keys)}) is in the results")
    rows = _rows(names, systems, intervals, keys, list(names).index(baseline), options, test)
    table = {"benchmark": bench.name, "signature": extended(systems.signature, signature_fields(*options)),
             "baseline": baseline, "test": test, "level": level, "n_resamples": n_resamples, "seed": seed,
             "metrics": {key: bench.table.label(key) for key in keys}, "rows": rows}
    inputs = {"gold": {str(systems.inputs[0]): sha256_of(systems.inputs[0])},
              "others": {str(path): sha256_of(path) for path in systems.inputs[1:]}}
    table["attestation"] = {"inputs": inputs, "table_sha256": _digest(table)}
    return table


def _rows(names, systems, intervals, keys, base, options, test):
    """One row per system: its cells, each with the paired test against the baseline (row `base`)."""
    rows = []
    for index, (name, found) in enumerate(zip(names, intervals)):
        paired = None if index == base else systems.paired(systems.stats[base], systems.stats[index], *options)
        rows.append({"system": name, "n_items": len(systems.stats[index]),
                     "metrics": {key: _cell(found[key], paired, key, test) for key in keys}})
    return rows


def _cell(found: dict, paired: dict | None, key: str, test: str) -> dict:
    cell = {"value": found["estimate"], "low": found["low"], "high": found["high"],
            "p_value": None if paired is None else paired[key][TESTS[test]]}
    if paired is not None:
        cell["difference"] = {"value": paired[key]["difference"], "low": paired[key]["low"], "high": paired[key]["high"]}
    return cell


def of_run(bench: Benchmark, result: dict, system: str = "run", inputs: dict | None = None) -> dict:
    """One run's result as a table of one row (what a Space hands over): its headline numbers, no
    interval and no p-value (those need the per-item statistics: `benchscore table`), and an
    attestation of the inputs ({name: sha256}) and of the result (its canonical JSON)."""
    found = {key: bench.table.run_value(result, key) for key in bench.table.keys}
    keys = [key for key, value in found.items() if value is not None]
    cells = {key: {"value": found[key], "low": None, "high": None, "p_value": None} for key in keys}
    n_items = bench.table.run_items(result)
    table: dict[str, Any] = {
        "benchmark": bench.name, "signature": str(result["signature"]), "baseline": system, "test": None,
        "level": None, "n_resamples": None, "seed": None, "metrics": {key: bench.table.label(key) for key in keys},
        "rows": [{"system": system, "n_items": n_items, "metrics": cells}]}
    table["attestation"] = {"inputs": dict(inputs or {}), "result_sha256": _digest(result),
                            "table_sha256": _digest(table)}
    return table


def _digest(table: dict) -> str:
    """The sha256 of a table's (or a result's) canonical JSON: sorted keys, no attestation."""
    body = {key: value for key, value in table.items() if key != "attestation"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


# ------------------------------------------------------------------ formats


def _shown(value: float | None, bench: Benchmark) -> str:
    return "n/a" if value is None else f"{value * bench.table.scale:.{bench.table.digits}f}"


def _mark(cell: dict, alpha: float) -> str:
    return "*" if cell["p_value"] is not None and cell["p_value"] < alpha else ""


def _p(cell: dict) -> str:
    return "" if cell["p_value"] is None else f"{cell['p_value']:.4f}"


def _interval(cell: dict, bench: Benchmark) -> str:
    """" [low, high]" of a cell, or nothing for a single run's cell (no interval)."""
    if cell["low"] is None:
        return ""
    return f" [{_shown(cell['low'], bench)}, {_shown(cell['high'], bench)}]"


def _footnote(table: dict, alpha: float, n_systems: int) -> str:
    if table["level"] is None:
        return "A single run: no interval (benchscore table adds bootstrap intervals and paired tests)."
    level = f"{table['level']:.0%}"
    note = f"[low, high]: {level} bootstrap interval."
    if n_systems > 1:
        note += f" * p < {alpha} against {table['baseline']} ({TEST_NAMES[table['test']]} over the same items)."
    return note


def markdown(table: dict, bench: Benchmark, alpha: float = 0.05) -> str:
    keys = list(table["metrics"])
    tested = keys if len(table["rows"]) > 1 else []  # p-value columns against the baseline, when there are others
    header = ["system", *(table["metrics"][k] for k in keys), *(f"p ({table['metrics'][k]})" for k in tested)]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(["---"] + ["---:"] * (len(header) - 1)) + " |"]
    for row in table["rows"]:
        cells = row["metrics"]
        values = [f"{_shown(cells[k]['value'], bench)}{_mark(cells[k], alpha)}{_interval(cells[k], bench)}" for k in keys]
        lines.append("| " + " | ".join([_escape_md(row["system"]), *values, *(_p(cells[k]) or "-" for k in tested)])
                     + " |")
    lines += ["", _footnote(table, alpha, len(table["rows"])) + f" Signature: `{table['signature']}`"]
    return "\n".join(lines)


def _escape_md(text: str) -> str:
    return text.replace("|", "\\|")


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "|": r"\textbar{}", "<": r"\textless{}", ">": r"\textgreater{}"}


def _latex_text(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))


def latex(table: dict, bench: Benchmark, alpha: float = 0.05) -> str:
    """A booktabs table: the best value of each column in bold, a footnote saying what the marks mean."""
    keys = list(table["metrics"])
    best = {k: max((row["metrics"][k]["value"] for row in table["rows"] if row["metrics"][k]["value"] is not None),
                   default=None) for k in keys}
    lines = [r"\begin{table}[t]", r"\centering", r"\begin{tabular}{l" + "r" * len(keys) + "}", r"\toprule",
             "System & " + " & ".join(_latex_text(table["metrics"][k]) for k in keys) + r" \\", r"\midrule"]
    for row in table["rows"]:
        cells = [_latex_cell(row["metrics"][k], best[k], bench, alpha) for k in keys]
        lines.append(_latex_text(row["system"]) + " & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}",
              r"\caption{" + _latex_text(_footnote(table, alpha, len(table["rows"]))) + " Bold: the best value. "
              r"Signature: \texttt{" + _latex_text(table["signature"]) + "}}", r"\end{table}"]
    return "\n".join(lines)


def _latex_cell(cell: dict, best: float | None, bench: Benchmark, alpha: float) -> str:
    """A value (bold where it is the column's best), its mark and its interval (none for a single run)."""
    value = _shown(cell["value"], bench)
    if cell["value"] is not None and cell["value"] == best:
        value = rf"\textbf{{{value}}}"
    mark = "$^{*}$" if _mark(cell, alpha) else ""
    interval = _interval(cell, bench)
    return f"{value}{mark} {{\\scriptsize{interval}}}" if interval else f"{value}{mark}"


def csv_text(table: dict, bench: Benchmark, alpha: float = 0.05) -> str:
    """One row per system: the value, interval and p-value of each metric (unscaled fractions, full digits)."""
    keys = list(table["metrics"])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["system", *(f"{k}{suffix}" for k in keys for suffix in ("", "_low", "_high", "_p_value"))])
    for row in table["rows"]:
        writer.writerow([row["system"], *(_csv_number(row["metrics"][k][field]) for k in keys
                                          for field in ("value", "low", "high", "p_value"))])
    return out.getvalue().rstrip("\n")


def _csv_number(value: float | None) -> str:
    return "" if value is None else repr(value)


def render(table: dict, bench: Benchmark, fmt: str, alpha: float = 0.05) -> str:
    if fmt == "json":
        return json.dumps(table, indent=2, ensure_ascii=False)
    return {"markdown": markdown, "latex": latex, "csv": csv_text}[fmt](table, bench, alpha)


def report(args, bench: Benchmark, systems: Systems) -> int:
    """Builds, prints or writes the table (and its plot); the exit status."""
    names = system_names(args.predictions, args.names)
    if len(systems.stats) != len(names):  # two judges of one prediction file: a comparison, not a table
        raise ValueError(f"{len(systems.stats)} systems were scored from {len(names)} --predictions; a table has one "
                         f"row per prediction file (to compare two judges of one file, use benchscore compare "
                         f"{bench.name})")
    table = build(bench, names, systems, args.n_resamples, args.seed, args.confidence, args.baseline, args.test)
    for path in (args.output, args.plot):  # resolved inputs (official:<split> included) are never overwritten
        check_output(path, *systems.inputs)
    text = render(table, bench, args.format, args.alpha)
    if args.plot:
        plots.forest(table, bench, args.plot, args.alpha)
    if args.output:
        write_atomically(args.output, text + "\n")
        print(f"table: {args.output}", file=sys.stderr)
    else:
        print(text)
    return 0
