"""TSVer's one read path (CLI, compare, module, loader, Space): the official files -> checked claims and scores;
file problems the official scorer passes silently are `TSVerWarning`s, which `score_files` collects."""

import dataclasses
import json
import os
import warnings
from collections.abc import Sequence
from typing import Any

from benchscore import data
from benchscore.core import readers
from benchscore.core.readers import at_line, check_output, iter_checked_jsonl, shown
from benchscore.core.records import Note
from benchscore.tsver import ev2r, kernel, line_types, scoring
from benchscore.tsver.scoring import TSVerWarning


def read_references(path: str | os.PathLike) -> Any:
    """The checked gold claims of tsver_{test,dev}.jsonl (or `official:test`/`official:dev`, the store's copy)."""
    path = data.resolve("tsver", path)
    records = [record for _, record in iter_checked_jsonl(path, "a gold claim", kernel.plain_gold,
                                                            scoring.check_gold)]
    if not records:
        raise _no_gold(path)
    return records


def _no_gold(path):
    return at_line(path, 1, "the file has no gold claim; expected a gold claim per line")


def _prediction(record, where):
    for key in ("Claim", "Verdict"):
        if key not in record:
            raise ValueError(f"{where}: prediction has no {key!r} key; expected an object with the keys Claim, "
                             "Verdict, PredictedTimeRanges, Explanation")
        if not isinstance(record[key], str):
            raise ValueError(f"{where}: {key!r} must be a string, found {shown(record[key], 80)}")
    error_line = record["Verdict"].lower() == "error" or "ErrorMessage" in record
    for key in ("PredictedTimeRanges", "Explanation"):
        if key not in record and not error_line:
            raise ValueError(f"{where}: prediction has no {key!r} key (null is allowed)")
    explanation = record.get("Explanation")
    if explanation is not None and not isinstance(explanation, str):
        raise ValueError(f"{where}: 'Explanation' must be a string or null, found {type(explanation).__name__}")
    ranges = scoring.check_series(record.get("PredictedTimeRanges"), f"{where}: 'PredictedTimeRanges'")
    return record["Claim"], {"verdict": record["Verdict"], "explanation": explanation, "ranges": ranges}


def read_predictions(path: str | os.PathLike, gold_claims: Sequence[str]) -> Any:
    """Prediction lines aligned to `gold_claims` by exact claim text (official alignment): per gold claim
    None (no line) or {"verdict", "explanation", "ranges", "line"}. A later line for a claim wins and
    lines for other claims are ignored (official; warned). An empty file is refused."""
    latest, repeated = _latest_predictions(path)
    _warn_alignment(path, latest, repeated, gold_claims)
    return [latest.get(claim) for claim in gold_claims]


def _no_prediction(path):
    return at_line(path, 1, "the file has no prediction; expected a prediction per line")


def _latest_predictions(path):
    """({claim: its last prediction line's record with its "line", in the order the file first gives each
    claim}, {claim: its number of lines, for a claim with more than one}): what the official alignment
    pairs with the gold claims, before any gold is read."""
    latest: dict[str, dict] = {}
    repeated: dict[str, int] = {}
    for number, (claim, prediction) in iter_checked_jsonl(path, "a prediction", kernel.plain_prediction,
                                                          _prediction):
        prediction["line"] = number
        if claim in latest:
            repeated[claim] = repeated.get(claim, 1) + 1
        latest[claim] = prediction  # official: a later line wins
    if not latest:
        raise _no_prediction(path)
    return latest, repeated


def _warn_alignment(path, latest, repeated, gold_claims):
    """The official alignment's silent rules, said (`_latest_predictions`' `latest` and `repeated` against the
    gold claim texts): the gold claims with more than one prediction line (the later wins), and the lines
    for claims not in the gold file (ignored)."""
    replaced = [i for i, claim in enumerate(gold_claims) if claim in repeated]
    if replaced:
        scoring.warn(Note("repeated_prediction_lines", f"{path}: {len(replaced)} gold claim(s) have more than one "
                          f"prediction line (claims {scoring.listed(replaced)}); as the official scorer, the "
                          "later line wins"))
    known = set(gold_claims)
    unknown = [claim for claim in latest if claim not in known]
    if unknown:
        scoring.warn(Note("unknown_prediction_claims", f"{path}: ignored "
                          f"{sum(repeated.get(claim, 1) for claim in unknown)} prediction line(s) whose "
                          f"Claim is not in the gold file (the first: {unknown[0][:60]!r})"))


def _summed_files(gold_file: str | os.PathLike, predictions_path: str | os.PathLike, strict: bool = False,
                    ev2r_aggregation: str = "tsver") -> dict | None:
    """`score(read_references(gold_file), read_predictions(...))` without a judge or per-claim statistics, the
    same result and warnings, never holding the gold file (justifications are most of its bytes, and memory
    used again is faster than new): the two files read in step (`_paired_rows`), else each claim's last
    prediction kept and the gold streamed (`_streamed_rows`). None where the two-file path must run
    instead: a prediction file these refuse or cannot open (that path reads the gold first, so a bad gold
    file is the error given first), or a claim `ClaimRows.add_claim` does not take plainly."""
    found = _paired_rows(gold_file, predictions_path)
    if found is None:
        found = _streamed_rows(gold_file, predictions_path)
    if found is None:
        return None
    rows, claims = found
    return scoring.summarize_rows(rows, claims, strict, ev2r_aggregation, str(predictions_path))


def _paired_rows(gold_file, predictions_path):
    """`kernel.paired_rows` of the two files (each pair scored while both lines are fresh): where the prediction
    file has one line per gold claim in the gold's order, as the official baseline writes it. None where
    they are not so, or on any error (the other reads word it)."""
    try:
        return kernel.paired_rows(readers._iter_raw_blocks(gold_file, numbered=False),
                                  readers._iter_raw_blocks(predictions_path, numbered=False),
                                  scoring.verdict_outcome, readers.MAX_DEPTH, line_types.decoders(readers.MAX_DEPTH))
    except (TypeError, ValueError, OSError):  # OSError: a missing file, say; the gold's own error comes first
        return None


def _streamed_rows(gold_file, predictions_path):
    """(`kernel.ClaimRows`, gold claim texts) of any order: each claim's last prediction line kept, then each
    gold line scored as it is read, with `read_predictions`' warnings. None on a prediction file it refuses
    (missing, unreadable) or a claim `ClaimRows.add_claim` does not take plainly."""
    try:
        latest, repeated = _latest_predictions(predictions_path)
    except (TypeError, ValueError, OSError):  # the two-file path reads the gold first: its error, if any, first
        return None
    rows, claims = kernel.ClaimRows(), []
    for _, record in iter_checked_jsonl(gold_file, "a gold claim", kernel.plain_gold, scoring.check_gold):
        if not rows.add_claim(record, latest.get(record["Claim"]), scoring.verdict_outcome):
            return None
        claims.append(record["Claim"])
    if not claims:
        raise _no_gold(gold_file)
    _warn_alignment(predictions_path, latest, repeated, claims)
    return rows, claims


def score(gold: Sequence, predictions: Sequence, judge: Any = None, strict: bool = False,
          ev2r_aggregation: str = "tsver", per_claim: bool = False, source: str | None = None,
          judged: list | None = None) -> dict:
    """`scoring.score` with an Ev²R judge run on the claims it reads (the one place that runs a judge):
    None, a path of recorded judge outputs (read once: its claims' records, and every line for the
    official sum, see `scoring.file_ev2r`), or anything `ev2r.as_judge` takes. `judged`, a list,
    receives the `ev2r.JudgedClaims` (the records written by `--write-ev2r`)."""
    scoring.check_aggregation(ev2r_aggregation)  # before a judge is asked
    file_records = None
    if isinstance(judge, (str, os.PathLike)):
        lines = list(ev2r.iter_recorded(judge))
        file_records = [response for _, _, response in lines]
        judge = ev2r.RecordedJudge(ev2r.read_recorded(judge, lines))
    if judge is None:
        return _unjudged(gold, predictions, strict, ev2r_aggregation, per_claim, source)
    run = ev2r.judge_claims(ev2r.as_judge(judge), ev2r.claims_to_judge(gold, predictions), len(gold))
    if judged is not None:
        judged.append(run)
    result = scoring.score(gold, predictions, run.per_claim, strict, ev2r_aggregation, run.signature, per_claim,
                           source)
    if run.not_sent and "n_ev2r_judged" not in result:  # the budget let nothing be sent
        result.update({"ev2r_precision": None, "ev2r_recall": None, "ev2r_f1": None, "n_ev2r_judged": 0,
                       "n_ev2r_failed": 0, "ev2r_failures": []})
    extra = ev2r.run_report(run, ev2r_aggregation)
    result["warnings"] += extra.pop("warnings", [])
    result.update(extra)
    if file_records is not None and ev2r_aggregation == "tsver":
        result = scoring.file_ev2r(result, file_records)
    return result


def _unjudged(gold, predictions, strict, ev2r_aggregation, per_claim, source):
    """`score` without a judge: summed without an ItemStats per claim unless they are asked for."""
    scoring.check_flag(per_claim, "per_claim")
    if per_claim:
        return scoring.score(gold, predictions, None, strict, ev2r_aggregation, "none", per_claim, source)
    return scoring.summarize(gold, predictions, strict, ev2r_aggregation, source)


def check_outputs(gold_file, predictions_path, write_ev2r=None, report=None, judge=None):
    """The output paths refused before anything is read or sent: one that is an input file (`gold_file`
    is the resolved gold path: the store's copy behind `official:`), the two outputs on one path, a
    record file in a missing folder or without a judge to run."""
    inputs = [gold_file, predictions_path, judge]
    check_output(report, *inputs)
    check_output(write_ev2r, *inputs)
    if write_ev2r is not None and report is not None and os.path.abspath(write_ev2r) == os.path.abspath(report):
        raise ValueError(f"{write_ev2r}: given as both --write-ev2r and --per-claim; expected two different paths")
    if write_ev2r is None:
        return
    folder = os.path.dirname(os.path.abspath(write_ev2r))
    if not os.path.isdir(folder):
        raise ValueError(f"{write_ev2r}: the folder {folder} does not exist; expected a path in an existing folder "
                         "for the Ev2R records")
    if judge is None or isinstance(judge, (str, os.PathLike)):
        raise ValueError("writing Ev2R records (--write-ev2r) needs a judge that is run (--judge-url), not a "
                         "recorded file")


def _read(gold_path, predictions_path, write_ev2r):
    """The gold claims, the aligned predictions and the records already in `write_ev2r` ({} if none)."""
    gold = read_references(gold_path)
    predictions = read_predictions(predictions_path, [g["Claim"] for g in gold])
    return gold, predictions, ev2r.read_resumable(write_ev2r, [g["Claim"] for g in gold])


def plan(gold_path, predictions_path, judge, write_ev2r=None):
    """`ev2r.plan` of the files (what a judge run would send), with the read warnings."""
    gold_file = data.resolve("tsver", gold_path)  # once: resolving checks the store copy's sha256
    check_outputs(gold_file, predictions_path, write_ev2r, judge=judge)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TSVerWarning)
        gold, predictions, existing = _read(gold_file, predictions_path, write_ev2r)
    return {**ev2r.plan(gold, predictions, judge, existing),
            "warnings": scoring.caught_notes(caught)}


def score_files(gold_path: str | os.PathLike, predictions_path: str | os.PathLike, judge: Any = None,
                strict: bool = False, ev2r_aggregation: str = "tsver", report: str | os.PathLike | None = None,
                write_ev2r: str | os.PathLike | None = None) -> dict:
    """The result dict of a prediction file against a gold file, read warnings included, as the CLI
    prints it. With `report` (a path), also writes `scoring.official_report` there as JSON. With
    `write_ev2r` (a path), the judge's records go there in the official format, and claims already
    recorded there are not sent again (a rerun resumes)."""
    gold_file = data.resolve("tsver", gold_path)  # once: resolving checks the store copy's sha256
    check_outputs(gold_file, predictions_path, write_ev2r, report, judge)
    if judge is None and report is None and write_ev2r is None:  # only the numbers: neither file is held
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", TSVerWarning)
            summed = _summed_files(gold_file, predictions_path, strict, ev2r_aggregation)
        if summed is not None:  # (None: it warned nothing, and the path below reads both files whole)
            summed["warnings"] = scoring.caught_notes(caught) + summed["warnings"]
            return summed
    return _score_whole_files(gold_path, gold_file, predictions_path, judge, strict, ev2r_aggregation, report,
                              write_ev2r)


def _score_whole_files(gold_path, gold_file, predictions_path, judge, strict, ev2r_aggregation, report, write_ev2r):
    """`score_files` with both files read whole: the records a judge, a report or Ev2R records need."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TSVerWarning)
        gold, predictions, existing = _read(gold_file, predictions_path, write_ev2r)
        if write_ev2r is not None:
            judge = ev2r.ResumingJudge(ev2r.as_judge(judge), existing)
        judged: list = []
        result = score(gold, predictions, judge, strict, ev2r_aggregation, report is not None, str(predictions_path),
                       judged)
    if write_ev2r is not None:
        records = ev2r.write_records(write_ev2r, gold, existing, judged[0])
        if ev2r_aggregation == "tsver":  # the file's number, as `--ev2r FILE` and the official scorer read it
            result = scoring.file_ev2r(result, records)
    result["warnings"] = scoring.caught_notes(caught) + result["warnings"]
    if judged and judged[0].usage is not None:
        result["judge_usage"] = judged[0].usage
    if report is not None:
        _write_report(report, gold_path, predictions_path, gold, result.pop("per_claim"), result["signature"], strict)
    return result


def _write_report(report, gold_path, predictions_path, gold, stats, signature, strict):
    with open(report, "w", encoding="utf-8") as f:
        json.dump({"gold": str(gold_path), "predictions": str(predictions_path), "signature": signature,
                   **scoring.official_report(gold, stats, strict)}, f, ensure_ascii=False, indent=1)


def file_stats(gold_path: str | os.PathLike, predictions_path: str | os.PathLike,
               ev2r_path: str | os.PathLike | None = None) -> Any:
    """The per-claim statistics of a prediction file (and recorded Ev²R) against gold (see `scored_claims`)."""
    return scored_claims(gold_path, predictions_path, ev2r_path)[0]


def scored_claims(gold_path: str | os.PathLike, predictions_path: str | os.PathLike,
                  ev2r_path: str | os.PathLike | None = None) -> tuple:
    """(per-claim statistics, judge signature) of a prediction file (and recorded Ev²R) against gold,
    for `compare`. Where the Ev²R file holds more records than judged claims, the official Ev²R sums
    them all, a number no resample of the claims can carry: Ev²R is then left out (warning)."""
    gold = read_references(gold_path)
    predictions = read_predictions(predictions_path, [g["Claim"] for g in gold])
    judged: list = []  # the judge's run, whose signature names the judge (never parsed back out of the result's)
    result = score(gold, predictions, ev2r_path, per_claim=True, judged=judged)
    stats, name = result["per_claim"], judged[0].signature if judged else "none"
    if "n_ev2r_records" in result:
        scoring.warn(Note("ev2r_not_compared", f"{ev2r_path} holds {result['n_ev2r_records']} records for "
                          f"{result['n_ev2r_judged']} judged claims; the official Ev2R sums them all, which no "
                          "resample of the claims can reproduce, so Ev2R is not compared"))
        return [dataclasses.replace(s, ev2r=None, ev2r_failure=None) for s in stats], "none"
    return stats, name


def instances(gold_path: str | os.PathLike, predictions_path: str | os.PathLike) -> list[dict]:
    """One record per gold claim, for per-item exports: the claim, the gold and the predicted verdict,
    1 or 0 for the verdict (as verdict accuracy counts it) and the claim's TSCS."""
    gold = read_references(gold_path)
    stats, _ = scored_claims(gold_path, predictions_path)
    return [{"sample_id": f"claim-{index}", "input": claim["Claim"], "reference": [claim["Verdict"]],
             "output": [s.verdict or ""], "score": float(s.correct), "is_correct": bool(s.correct),
             "metadata": {"status": s.status, "tscs": repr(s.tscs)}}
            for index, (claim, s) in enumerate(zip(gold, stats))]
