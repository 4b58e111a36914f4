"""`benchscore webnlg REF.xml CAND.xml [OUT.json]`: a drop-in for the official `Evaluation_script_json.py`
(OUT.json gets exactly the official structure, one line; stdout a table, or with --json the result with
its signature and breakdowns), and `benchscore compare webnlg`. Both read through `files.py`.
"""

import argparse
import json

from benchscore import data
from benchscore.core import compare, plots
from benchscore.core.readers import check_output
from benchscore.webnlg_rdf import files
from benchscore.webnlg_rdf.scoring import KINDS, RATES, SCHEMES, signature

COUNTS = KINDS + ("Possible", "Actual")
REFERENCE_HELP = "reference XML (<entry> with <modifiedtripleset>/<mtriple>)"
CANDIDATE_HELP = "candidate XML (<entry> with <generatedtripleset>/<gtriple>)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("reference", help=REFERENCE_HELP)
    parser.add_argument("candidate", help=CANDIDATE_HELP)
    parser.add_argument("output", nargs="?", help="write the official JSON structure here (one line, as the official script)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON (with signature and breakdowns) instead of a table")
    parser.add_argument("--by", action="append", choices=("category", "size"), default=[], help="extension: also "
                        "report per reference category / per size (number of reference triples); repeatable")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    plots.add_plot_option(parser)


def _row(label, scores, counts=()):
    return (f"{label:<22}" + "".join(f"{scores[rate]:>8.4f}" for rate in RATES)
            + "".join(f"{scores[name]:>10}" for name in counts))


def format_table(result, by=()):
    """A plain-text table of the official numbers (then of each breakdown)."""
    lines = [f"{'':<22}{'P':>8}{'R':>8}{'F1':>8}" + "".join(f"{name:>10}" for name in COUNTS)]
    per_tag = {f"Scores_per_tag {tag}": scores for tag, scores in result["Scores_per_tag"].items()}
    for title, scores in {"Total_scores": result["Total_scores"], **per_tag}.items():
        lines.append(title)
        lines.extend(_row(f"  {scheme}", scores[scheme], COUNTS) for scheme in SCHEMES)
    lines.append(_row("Exact_match", result["Exact_match"]))
    for key in by:
        lines += ["", f"Extension (not in the official script): Total_scores F1 per {key}",
                  f"  {key:<28}" + "".join(f"{scheme:>10}" for scheme in SCHEMES) + f"{'Exact_match':>13}"]
        for group, sub in result[f"extension_per_{key}"].items():
            f1s = "".join(f"{sub['Total_scores'][scheme]['F1']:>10.4f}" for scheme in SCHEMES)
            lines.append(f"  {str(group):<28}{f1s}{sub['Exact_match']['F1']:>13.4f}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    check_output(args.output, args.reference, args.candidate)
    plots.check_path(args.plot, args.reference, args.candidate, output=args.output)
    result = files.score_files(args.reference, args.candidate, by=args.by, progress=not args.no_progress)
    plots.plot_run(args, result, "webnlg")
    compare.warn("webnlg", result.get("warnings", ()))
    if args.output:
        official = {key: result[key] for key in ("Total_scores", "Scores_per_tag", "Exact_match")}
        with open(args.output, "w", encoding="utf-8") as out:
            json.dump(official, out)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(format_table(result, args.by))
        print(f"signature: {result['signature']}")
    return 0


# ------------------------------------------------------------------ `benchscore compare webnlg`
def add_compare_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gold", "--reference", dest="gold", required=True, help=REFERENCE_HELP)
    compare.add_compare_options(parser, CANDIDATE_HELP, "--candidate")


def systems(args: argparse.Namespace) -> compare.Systems:
    """Every candidate file scored against the references once (`compare` and `table` report them)."""
    from benchscore.webnlg_rdf import significance  # with numpy: only the commands that resample load them

    gold = data.resolve("webnlg", args.gold)
    warnings: list = []
    stats = [files.file_stats(gold, path, warnings) for path in args.predictions]
    compare.warn(args.command, warnings)
    return compare.Systems(stats, significance.confidence_intervals, significance.paired_test, signature(),
                           [gold, *args.predictions])


def run_compare(args: argparse.Namespace) -> int:
    return compare.report_systems(args, systems(args))
