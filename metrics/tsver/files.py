"""TSVer's one read path (CLI, compare, module, loader, Space): the official files -> checked claims and scores;
file problems the official scorer passes silently are `TSVerWarning`s, which `score_files` collects."""

import dataclasses
import json
import os
import tempfile
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


class ResumingJudge:
    """A judge that answers the claims of an existing record file from it and asks `inner` for the
    rest, as the official pipeline skips the claims already in its output file."""

    def __init__(self, inner, records):
        self.inner, self.records = inner, records
        self.concurrency = getattr(inner, "concurrency", 1)
        self.progress = getattr(inner, "progress", False)
        self.samples = getattr(inner, "samples", 1)
        self.usage = getattr(inner, "usage", None)

    @property
    def signature(self):
        return self.inner.signature

    @property
    def budget(self):
        return getattr(self.inner, "budget", None)

    @property
    def spent(self):
        return self.inner.spent

    def cost_of(self, claim, reference, prediction, sample=0):
        return 0.0 if claim in self.records and not sample else self.inner.cost_of(claim, reference, prediction, sample)

    def __call__(self, claim, reference, prediction, **sample):
        if claim in self.records and not sample.get("sample"):
            if self.usage is not None:
                self.usage.recorded_claims += 1
            return self.records[claim]
        return self.inner(claim, reference, prediction, **sample)


def score(gold, predictions, judge=None, strict=False, ev2r_aggregation="tsver", per_claim=False, source=None,
          judged=None):
    """`scoring.score` with an Ev²R judge run on the claims it reads (the one place that runs a judge):
    None, a path of recorded judge outputs (see `scoring.file_ev2r`), or anything `judges.as_judge` takes.
    `judged`, a list, receives the `judges.JudgedClaims` (the records written by `--write-ev2r`)."""
    scoring.check_aggregation(ev2r_aggregation)  # before a judge is asked
    ev2r, name, run = None, "none", None
    if judge is not None:
        run = judges.judge_claims(as_judge(judge), scoring.ev2r_items(gold, predictions), len(gold))
        ev2r, name = run.per_claim, run.signature
        if judged is not None:
            judged.append(run)
    result = scoring.score(gold, predictions, ev2r, strict, ev2r_aggregation, name, per_claim, source)
    if run is not None and run.not_sent and "n_ev2r_judged" not in result:  # the budget let nothing be sent
        result.update({"ev2r_precision": None, "ev2r_recall": None, "ev2r_f1": None, "n_ev2r_judged": 0,
                       "n_ev2r_failed": 0, "ev2r_failures": []})
    if run is not None:
        extra = _run_report(run, ev2r_aggregation)
        result["warnings"] += extra.pop("warnings", [])
        result.update(extra)
    if isinstance(judge, (str, os.PathLike)) and ev2r_aggregation == "tsver":
        result = scoring.file_ev2r(result, [response for _, _, response in iter_recorded(judge)])
    return result


def _run_report(run, ev2r_aggregation):
    """The judge run's own numbers: the claims the budget left unsent, the spread of Ev²R over further
    judge samples. (Its accounts, which differ between a run and its cached rerun, are the CLI's.)"""
    report = {}
    if run.not_sent:
        report["n_ev2r_not_sent"] = len(run.not_sent)
        report["warnings"] = [f"{len(run.not_sent)} claim(s) were not sent to the judge, to stay within the judge "
                              f"budget (claims {scoring.listed(run.not_sent)}); Ev2R is over the judged claims only"]
    if run.samples:
        f1s = [scoring.ev2r_aggregate([c for c in per_claim if isinstance(c, dict)], ev2r_aggregation)["f1"]
               if any(isinstance(c, dict) for c in per_claim) else None for per_claim in [run.per_claim, *run.samples]]
        known = [f for f in f1s if f is not None]
        mean = sum(known) / len(known) if known else None
        spread = (sum((f - mean) ** 2 for f in known) / (len(known) - 1)) ** 0.5 if len(known) > 1 else None
        report["ev2r_judge_samples"] = {"k": len(f1s), "f1": f1s, "mean": mean, "std": spread,
                                        "min": min(known, default=None), "max": max(known, default=None)}
    return report


def check_outputs(gold_path, predictions_path, write_ev2r=None, report=None, judge=None):
    """The output paths refused before anything is read or sent: one that is an input file (the store's
    copy behind `official:`, too), the two outputs on one path, a record file in a missing folder."""
    inputs = [data.resolve("tsver", gold_path), predictions_path, judge]
    check_output(report, *inputs)
    check_output(write_ev2r, *inputs)
    if write_ev2r is not None and report is not None and os.path.abspath(write_ev2r) == os.path.abspath(report):
        raise ValueError(f"{write_ev2r}: given as both --write-ev2r and --per-claim; expected two different paths")
    folder = os.path.dirname(os.path.abspath(write_ev2r)) if write_ev2r is not None else None
    if folder is not None and not os.path.isdir(folder):
        raise ValueError(f"{write_ev2r}: the folder {folder} does not exist; expected a path in an existing folder "
                         "for the Ev2R records")


def read_resumable(path, gold_claims):
    """The records of an existing `--write-ev2r` file as {claim: record} ({} when there is none yet);
    a file that is not ours to extend (a folder, malformed lines, records of claims not in the gold
    file) is refused before any request is sent."""
    if path is None or not os.path.lexists(path):
        return {}
    if os.path.isdir(path):
        raise ValueError(f"{path}: a folder; expected a JSONL file of Ev2R records to write (or extend)")
    known, records = set(gold_claims), {}
    for number, claim, response in iter_recorded(path):
        if claim not in known:
            raise ValueError(f"{path}:{number}: a record of the claim {claim[:60]!r}, which is not in the gold file; "
                             "expected records of this gold file's claims only (another run's file?)")
        if claim in records:
            raise ValueError(f"{path}:{number}: the claim {claim[:60]!r} is recorded twice; expected one record "
                             "per claim")
        records[claim] = response
    return records


def write_records(path, gold, existing, run):
    """The official record file: the records it held, then the newly judged claims' in gold order (never
    completion order), written whole (temp file, then rename) so that a failed run leaves it as it was."""
    lines = [{"Claim": claim, "ev2r_response": record} for claim, record in existing.items()]
    lines += [{"Claim": gold[i]["Claim"], "ev2r_response": record} for i, record in sorted(run.records.items())
              if gold[i]["Claim"] not in existing]
    folder = os.path.dirname(os.path.abspath(path))
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=folder, delete=False, suffix=".tmp") as out:
        out.writelines(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    os.replace(out.name, path)
    return [line["ev2r_response"] for line in lines]


def plan(gold_path, predictions_path, judge, write_ev2r=None):
    """What a judge run would send, without sending: claims to judge, those answered by the record
    file or the cache, and the size of the prompts to send (characters; tokens are about a quarter)."""
    check_outputs(gold_path, predictions_path, write_ev2r)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TSVerWarning)
        gold = read_references(gold_path)
        predictions = read_predictions(predictions_path, [g["Claim"] for g in gold])
        existing = read_resumable(write_ev2r, [g["Claim"] for g in gold])
    items = [item for _, item in scoring.ev2r_items(gold, predictions)]
    samples = getattr(judge, "samples", 1)
    to_send, recorded, cached = [], 0, 0
    for k in range(samples):
        for item in items:
            if k == 0 and item[0] in existing:
                recorded += 1
            elif judge.cached(*item, sample=k):
                cached += 1
            else:
                to_send.append(judge.protocol.message(*item))
    sizes = [len(text) for text in to_send]
    return {"claims": len(items), "samples": samples, "in_record_file": recorded, "cached": cached,
            "to_send": len(to_send), "prompt_characters": sum(sizes), "largest_prompt_characters": max(sizes, default=0),
            "signature_judge": judge.signature,
            "warnings": [str(w.message) for w in caught if issubclass(w.category, TSVerWarning)]}


def score_files(gold_path, predictions_path, judge=None, strict=False, ev2r_aggregation="tsver", report=None,
                write_ev2r=None):
    """The result dict of a prediction file against a gold file, read warnings included, as the CLI
    prints it. With `report` (a path), also writes `scoring.official_report` there as JSON. With
    `write_ev2r` (a path), the judge's records go there in the official format, and claims already
    recorded there are not sent again (a rerun resumes)."""
    check_outputs(gold_path, predictions_path, write_ev2r, report, judge)
    if write_ev2r is not None and (judge is None or isinstance(judge, (str, os.PathLike))):
        raise ValueError("writing Ev2R records (--write-ev2r) needs a judge that is run (--judge-url), not a "
                         "recorded file")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TSVerWarning)
        gold = read_references(gold_path)
        predictions = read_predictions(predictions_path, [g["Claim"] for g in gold])
        existing = read_resumable(write_ev2r, [g["Claim"] for g in gold])
        if write_ev2r is not None:
            judge = ResumingJudge(as_judge(judge), existing)
        judged = []
        result = score(gold, predictions, judge, strict, ev2r_aggregation, report is not None, str(predictions_path),
                       judged)
    if write_ev2r is not None:
        records = write_records(write_ev2r, gold, existing, judged[0])
        if ev2r_aggregation == "tsver":  # the file's number, as `--ev2r FILE` and the official scorer read it
            result = scoring.file_ev2r(result, records)
    result["warnings"] = [str(w.message) for w in caught if issubclass(w.category, TSVerWarning)] + result["warnings"]
    if judged and judged[0].usage is not None:
        result["judge_usage"] = judged[0].usage
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
