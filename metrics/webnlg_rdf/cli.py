"""`benchscore webnlg REF.xml CAND.xml [OUT.json]`: a drop-in for the official `Evaluation_script_json.py`.

OUT.json gets exactly the official structure (same keys, same order, one line), so it diffs against
an official output; stdout gets a readable table (or, with --json, the result with the signature and
any breakdown, which are not part of the official structure).
"""

import json
import sys

from tqdm import tqdm

from .loader import pair_entries
from .loader import read_candidates
from .loader import read_references
from .scoring import KINDS
from .scoring import SCHEMES
from .scoring import aggregate
from .scoring import breakdown
from .scoring import entry_stats
from .scoring import signature as scoring_signature

COUNTS = KINDS + ("Possible", "Actual")
PROGRESS_MIN_ENTRIES = 500  # below this a bar only flickers


def add_arguments(parser):
    parser.add_argument("reference", help="reference XML (<entry> with <modifiedtripleset>/<mtriple>)")
    parser.add_argument("candidate", help="candidate XML (<entry> with <generatedtripleset>/<gtriple>)")
    parser.add_argument("output", nargs="?", help="write the official JSON structure here (one line, as the official script)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON (with signature and breakdowns) instead of a table")
    parser.add_argument(
        "--by",
        action="append",
        choices=("category", "size"),
        default=[],
        help="extension: also report per reference category / per size (number of reference triples); repeatable",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def signature(by):
    """The evaluate module's signature for the same settings: a breakdown (`by`) or none."""
    return scoring_signature(breakdown=bool(by))


def _entry_name(index, ref):
    """Position (what pairs the files) and the reference eid (what a reader searches for)."""
    return str(index) if ref["eid"] is None else f"{index} (reference eid {ref['eid']})"


def score_files(reference_path, candidate_path, by=(), progress=False):
    """The result dict: official structure, then `extension_per_<key>` for each key in `by`."""
    references = read_references(reference_path)
    candidates = read_candidates(candidate_path)
    pair_entries(references, candidates, reference_path, candidate_path)
    pairs = tqdm(
        zip(references, candidates),
        total=len(references),
        desc="webnlg",
        unit="entry",
        file=sys.stderr,
        disable=True if not progress or len(references) < PROGRESS_MIN_ENTRIES else None,
    )
    stats = [
        entry_stats(ref["triples"], cand["triples"], entry=_entry_name(index, ref))
        for index, (ref, cand) in enumerate(pairs)
    ]
    result = aggregate(stats)
    # size = number of reference triples, as in the evaluate module (equal to the files' size attribute)
    keys = {"category": [ref["category"] for ref in references], "size": [len(ref["triples"]) for ref in references]}
    for key in by:
        result[f"extension_per_{key}"] = breakdown(stats, keys[key])
    return result


def _fmt(value):
    return f"{value:.4f}"


def format_table(result, by=()):
    """A plain-text table of the official numbers (then of each breakdown)."""
    lines = [
        f"{'':<22}{'P':>8}{'R':>8}{'F1':>8}" + "".join(f"{name:>10}" for name in COUNTS),
    ]

    def block(title, scores):
        lines.append(title)
        for scheme in SCHEMES:
            s = scores[scheme]
            lines.append(
                f"  {scheme:<20}{_fmt(s['Precision']):>8}{_fmt(s['Recall']):>8}{_fmt(s['F1']):>8}"
                + "".join(f"{s[name]:>10}" for name in COUNTS)
            )

    block("Total_scores", result["Total_scores"])
    for tag, scores in result["Scores_per_tag"].items():
        block(f"Scores_per_tag {tag}", scores)
    em = result["Exact_match"]
    lines.append(f"{'Exact_match':<22}{_fmt(em['Precision']):>8}{_fmt(em['Recall']):>8}{_fmt(em['F1']):>8}")
    for key in by:
        lines.append("")
        lines.append(f"Extension (not in the official script): Total_scores F1 per {key}")
        lines.append(f"  {key:<28}" + "".join(f"{scheme:>10}" for scheme in SCHEMES) + f"{'Exact_match':>13}")
        for group, sub in result[f"extension_per_{key}"].items():
            lines.append(
                f"  {str(group):<28}"
                + "".join(f"{_fmt(sub['Total_scores'][scheme]['F1']):>10}" for scheme in SCHEMES)
                + f"{_fmt(sub['Exact_match']['F1']):>13}"
            )
    return "\n".join(lines)


def run(args):
    from benchscore import data  # `official:<split>` -> the store's verified file (benchscore.data)
    args.reference = data.resolve("webnlg", args.reference)
    result = score_files(args.reference, args.candidate, by=args.by, progress=not args.no_progress)
    if args.output:
        official = {key: result[key] for key in ("Total_scores", "Scores_per_tag", "Exact_match")}
        with open(args.output, "w", encoding="utf-8") as out:
            json.dump(official, out)
    if args.json:
        print(json.dumps({**result, "signature": signature(args.by)}, ensure_ascii=False))
    else:
        print(format_table(result, args.by))
        print(f"signature: {signature(args.by)}")
    return 0
