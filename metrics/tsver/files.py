"""TSVer's one read path (CLI, compare, module, loader, Space): the official files -> checked claims and scores;
file problems the official scorer passes silently are `TSVerWarning`s, which `score_files` collects."""

import dataclasses
import json
import os
import warnings

from benchscore import data
from benchscore.core.readers import check_output, iter_jsonl, read_jsonl, shown
from benchscore.tsver import judges, scoring
from benchscore.tsver.scoring import TSVerWarning


def read_references(path):
    """The checked gold claims of tsver_{test,dev}.jsonl (or `official:test`/`official:dev`, the store's copy)."""
    path = data.resolve("tsver", path)
    return [scoring.check_gold(record, f"{path}:{number}")
            for number, record in read_jsonl(path, "a gold claim", empty="gold claim")]


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
    return {"verdict": record["Verdict"], "explanation": explanation, "ranges": ranges}


def read_predictions(path, gold_claims):
    """Prediction lines aligned to `gold_claims` by exact claim text (official alignment): per gold claim
    None (no line) or {"verdict", "explanation", "ranges", "line"}. A later line for a claim wins and
    lines for other claims are ignored (official; warned). An empty file is refused."""
    index = {}
    for i, claim in enumerate(gold_claims):
        index.setdefault(claim, []).append(i)
    aligned, unknown, replaced = [None] * len(gold_claims), [], set()
    for number, record in read_jsonl(path, "a prediction", empty="prediction"):
        prediction = {**_prediction(record, f"{path}:{number}"), "line": number}
        if record["Claim"] not in index:
            unknown.append(record["Claim"])
        for i in index.get(record["Claim"], ()):
            if aligned[i] is not None:
                replaced.add(i)
            aligned[i] = prediction
    if replaced:
        warnings.warn(f"{path}: {len(replaced)} gold claim(s) have more than one prediction line (claims "
                      f"{scoring.listed(sorted(replaced))}); as the official scorer, the later line wins",
                      TSVerWarning, stacklevel=2)
    if unknown:
        warnings.warn(f"{path}: ignored {len(unknown)} prediction line(s) whose Claim is not in the gold file "
                      f"(the first: {unknown[0][:60]!r})", TSVerWarning, stacklevel=2)
    return aligned


def iter_recorded(path):
    """Every record of an official Ev²R file (the official sum reads them all) as ``(line, claim, response)``."""
    for number, record in iter_jsonl(path, 'an Ev2R record {"Claim", "ev2r_response"}'):
        where = f"{path}:{number}"
        for key, kind, what in (("Claim", str, "a string"), ("ev2r_response", dict, "a JSON object")):
            if key not in record:
                raise ValueError(f"{where}: missing key {key!r}; expected "
                                 '{"Claim": str, "ev2r_response": {...}}')
            if not isinstance(record[key], kind):
                raise ValueError(f"{where}: {key!r} is {type(record[key]).__name__}; expected {what}")
        scoring.ev2r_counts(record["ev2r_response"], where + ": ev2r_response")
        yield number, record["Claim"], record["ev2r_response"]


def read_recorded(path):
    """Official Ev²R judge records as ``{claim: ev2r_response}``; for a claim recorded twice the later line wins."""
    records, first_line = {}, {}
    for number, claim, response in iter_recorded(path):
        if claim in first_line:
            warnings.warn(f"{path}:{number}: records claim {claim[:60]!r} again (first on line "
                          f"{first_line[claim]}); the later record is used", TSVerWarning, stacklevel=2)
        first_line.setdefault(claim, number)
        records[claim] = response
    return records


def as_judge(judge):
    """A judge from what a user passes: a path of recorded judge outputs, or what `judges.as_judge` takes."""
    if isinstance(judge, (str, os.PathLike)):
        return judges.RecordedJudge(read_recorded(judge))
    return judges.as_judge(judge)


def score(gold, predictions, judge=None, strict=False, ev2r_aggregation="tsver", per_claim=False, source=None):
    """`scoring.score` with an Ev²R judge run on the claims it reads (the one place that runs a judge):
    None, a path of recorded judge outputs (see `scoring.file_ev2r`), or anything `judges.as_judge` takes."""
    scoring.check_aggregation(ev2r_aggregation)  # before a judge is asked
    ev2r, name = None, "none"
    if judge is not None:
        ev2r, name = judges.judge_claims(as_judge(judge), scoring.ev2r_items(gold, predictions), len(gold))
    result = scoring.score(gold, predictions, ev2r, strict, ev2r_aggregation, name, per_claim, source)
    if isinstance(judge, (str, os.PathLike)) and ev2r_aggregation == "tsver":
        result = scoring.file_ev2r(result, [response for _, _, response in iter_recorded(judge)])
    return result


def score_files(gold_path, predictions_path, judge=None, strict=False, ev2r_aggregation="tsver", report=None):
    """The result dict of a prediction file against a gold file, read warnings included, as the CLI
    prints it. With `report` (a path), also writes `scoring.official_report` there as JSON."""
    check_output(report, gold_path, predictions_path, judge)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TSVerWarning)
        gold = read_references(gold_path)
        predictions = read_predictions(predictions_path, [g["Claim"] for g in gold])
        result = score(gold, predictions, judge, strict, ev2r_aggregation, report is not None, str(predictions_path))
    result["warnings"] = [str(w.message) for w in caught if issubclass(w.category, TSVerWarning)] + result["warnings"]
    if report is not None:
        stats = result.pop("per_claim")
        with open(report, "w", encoding="utf-8") as f:
            json.dump({"gold": str(gold_path), "predictions": str(predictions_path), "signature": result["signature"],
                       **scoring.official_report(gold, stats, strict)}, f, ensure_ascii=False, indent=1)
    return result


def file_stats(gold_path, predictions_path, ev2r_path=None):
    """(per-claim statistics, judge signature) of a prediction file (and recorded Ev²R) against gold,
    for `compare`. Where the Ev²R file holds more records than judged claims, the official Ev²R sums
    them all, a number no resample of the claims can carry: Ev²R is then left out (warning)."""
    gold = read_references(gold_path)
    predictions = read_predictions(predictions_path, [g["Claim"] for g in gold])
    result = score(gold, predictions, ev2r_path, per_claim=True)
    stats, name = result["per_claim"], result["signature"].rpartition("|judge:")[2]
    if "n_ev2r_records" in result:
        warnings.warn(f"{ev2r_path} holds {result['n_ev2r_records']} records for {result['n_ev2r_judged']} judged "
                      "claims; the official Ev2R sums them all, which no resample of the claims can reproduce, "
                      "so Ev2R is not compared", TSVerWarning, stacklevel=2)
        return [dataclasses.replace(s, ev2r=None, ev2r_failure=None) for s in stats], "none"
    return stats, name
