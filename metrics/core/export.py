"""`benchscore export <bench> RESULT.json`: a saved result where results are compared.

RESULT.json is what `benchscore table <bench> --format json` writes (one row per system: choose
one with `--system`) or what `benchscore <bench> --json` prints (one system). From it:

- `--eval-results DIR`: the Hub's `<DIR>/.eval_results/<benchmark>.yaml` (a model repository's
  evaluation results), written with huggingface_hub's own `EvalResultEntry` and
  `eval_result_entries_to_yaml`: one entry per headline metric, with the task ids and the dataset
  of the benchmark's registry record, the dataset revision where the signature records it, a
  quoted ISO date, `source` when given and the signature in `notes`;
- `--eee DIR`: an Every Eval Ever aggregate record (schema 0.3.0), our interval, resample count,
  seed and item count in its uncertainty fields, a judge's settings in its LLM-scoring fields; with
  `--gold` and `--predictions` (the files the result was scored on) also its per-item instance
  records (`files.instances`: each item's input, reference, output and score), laid out as EEE's
  datastore lays them out (`data/<benchmark>/<developer>/<model>/<uuid>.json` and `_samples.jsonl`);
- `--eval-yaml DIR`: a draft `eval.yaml` a benchmark's owner could add to its Hub dataset;
- `--push REPO` (`--create-pr`): uploads the `.eval_results` file to a model repository with
  `huggingface_hub` (its token from the environment, never printed).

Every file is written whole or not at all (a temporary file, then a rename).
"""

import contextlib
import hashlib
import importlib
import json
import logging
import math
import os
import re
import sys
import time
import uuid
from typing import Any

import benchscore
from benchscore.core.checks import is_int, is_real
from benchscore.core.readers import (
    at_line,
    check_output,
    check_writable,
    iter_lines,
    parse_json,
    shown,
    write_atomically,
)
from benchscore.core.records import Signature
from benchscore.core.registry import Benchmark
from benchscore.data.store import truthy

EEE_SCHEMA_VERSION = "0.3.0"


def add_arguments(parser) -> None:
    parser.add_argument("result", metavar="RESULT.json", help="`benchscore table ... --format json` or "
                                                              "`benchscore <bench> --json` output")
    parser.add_argument("--system", help="the row of a table to export (default: its only row)")
    parser.add_argument("--eval-results", metavar="DIR", help="write DIR/.eval_results/<benchmark>.yaml")
    parser.add_argument("--eee", metavar="DIR", help="write an Every Eval Ever aggregate record into DIR")
    parser.add_argument("--eval-yaml", metavar="DIR", help="write a draft eval.yaml for the benchmark's dataset")
    parser.add_argument("--push", metavar="REPO", help="upload the .eval_results file to this model repository")
    parser.add_argument("--create-pr", action="store_true", help="with --push: open a pull request")
    parser.add_argument("--model", help="the model's Hub id (EEE's model_info; default: --push's repo or the system)")
    parser.add_argument("--source", metavar="URL", help="where the evaluation can be seen (the entries' source)")
    parser.add_argument("--source-name", help="the source's display name")
    parser.add_argument("--date", help="when the evaluation ran, ISO 8601 (default: now, UTC)")
    parser.add_argument("--gold", help="with --eee: the gold file the result was scored on, for per-item records")
    parser.add_argument("--predictions", help="with --eee: the system's prediction file, for per-item records")


# ------------------------------------------------------------------ reading a saved result


def read_signature(text: object, path: str) -> Signature:
    """A signature read back from a saved file (the one place one is read from text: what the file says
    it was made by is checked, not trusted)."""
    if not isinstance(text, str) or "|" not in text:
        raise at_line(path, 1, f"the signature is {shown(text)}; expected a benchscore result's signature")
    name, *parts = text.split("|")
    fields = {}
    for part in parts:
        key, sep, value = part.partition(":")
        if not sep:
            raise at_line(path, 1, f"the signature's field {shown(part)} has no ':'; expected key:value fields")
        fields[key] = value
    return Signature(name, fields)


def read_result(path: str, bench: Benchmark, system: str | None = None) -> dict:
    """{"system", "metrics": {key: {"value", "low"?, "high"?}}, "signature", "level"?, "n_resamples"?, "seed"?,
    "n_items"?} of one system, from a table or a single run; a clear error for anything else."""
    found = parse_json("\n".join(text for _, text in iter_lines(path)), f"{path}:1")  # a regular file, no NaN
    if not isinstance(found, dict):
        raise at_line(path, 1, f"found {shown(found)}; expected a JSON object (a benchscore result)")
    signature = read_signature(found.get("signature"), path)
    _check_made_by(signature, found, bench, path)
    one = _table_row(found, path, system, bench) if "rows" in found else _single_run(found, path, bench, system)
    return {**one, "signature": signature}


def _check_made_by(signature: Signature, found: dict, bench: Benchmark, path: str) -> None:
    """The result is this benchmark's, by this benchscore and scorer version (what its signature says)."""
    folder = benchscore.benchmark(bench.name).folder
    if signature.name != folder or found.get("benchmark", bench.name) != bench.name:
        raise at_line(path, 1, f"the result is of {signature.name!r}; expected a {bench.name} result "
                               f"(signature {folder}|...)")
    version = importlib.import_module(f"benchscore.{folder}.scoring").VERSION
    made = (signature.fields.get("benchscore"), signature.fields.get("version"))
    if made != (benchscore.__version__, version):
        raise at_line(path, 1, f"the result was made by benchscore {made[0]} (scorer version {made[1]}); expected "
                               f"{benchscore.__version__} ({version}): score it again with this version")
    revision = signature.fields.get("data")
    if revision is not None and not re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{12}", revision):
        raise at_line(path, 1, f"the signature's data field is {shown(revision)}; expected <owner>/<repo>@<commit 12>")


def _checked_rows(rows, path):
    """The table's rows, each {"system": name, "metrics": {...}}; an error naming the first that is not."""
    if not isinstance(rows, list):
        raise at_line(path, 1, f"the table's rows are {shown(rows)}; expected a list of rows")
    if not rows:
        raise at_line(path, 1, "the table has no rows; expected one row per system")
    for index, row in enumerate(rows):
        if not (isinstance(row, dict) and isinstance(row.get("system"), str) and isinstance(row.get("metrics"), dict)):
            raise at_line(path, 1, f"row {index} is {shown(row)}; expected {{\"system\": name, \"metrics\": {{...}}}}")
    return rows


def _table_row(found, path, system, bench):
    rows = _checked_rows(found["rows"], path)
    names = [row["system"] for row in rows]
    repeated = next((name for index, name in enumerate(names) if name in names[:index]), None)
    if repeated is not None:
        raise at_line(path, 1, f"the table has two rows named {shown(repeated)}; expected one row per system")
    if system is None and len(names) > 1:
        raise at_line(path, 1, f"the table has {len(names)} systems ({', '.join(map(str, names))}); expected "
                               "--system NAME to choose one")
    chosen = system if system is not None else names[0]
    if chosen not in names:
        listed = ", ".join(names)
        raise at_line(path, 1, f"the table has no system {shown(chosen)}; expected one of "
                               f"{listed if len(listed) <= 200 else listed[:200] + '...'}")
    row = rows[names.index(chosen)]
    metrics = _metrics(row["metrics"], bench, path)
    options = {"level": _option(found, "level", path), "n_resamples": _option(found, "n_resamples", path),
               "seed": _option(found, "seed", path), "n_items": _option(row, "n_items", path)}
    return {"system": chosen, "metrics": metrics, **options}


# a table's option -> (its check, what the message expects)
_OPTIONS = {"level": (lambda v: is_real(v) and 0 < v < 1, "a confidence level between 0 and 1"),
            "n_resamples": (lambda v: is_int(v) and v >= 1, "a positive int"),
            "seed": (lambda v: is_int(v) and v >= 0, "a non-negative int"),
            "n_items": (lambda v: is_int(v) and v >= 1, "a positive int (the items scored)")}


def _option(found: dict, name: str, path: str):
    value = found.get(name)
    check, expected = _OPTIONS[name]
    if value is not None and not check(value):
        raise at_line(path, 1, f"{name} is {shown(value)}; expected {expected}")
    return value


def _metrics(cells: dict, bench: Benchmark, path: str) -> dict:
    """A row's cells, each a headline metric of the benchmark with checked numbers."""
    unknown = [key for key in cells if key not in bench.table.keys]
    if unknown or not cells:
        raise at_line(path, 1, f"the row's metrics are {shown(sorted(cells))}; expected {bench.name}'s headline "
                               f"metrics ({', '.join(bench.table.keys)})")
    return {key: _numbers(cell, key, path) for key, cell in cells.items()}


def _single_run(found, path, bench, system):
    if system is not None:
        raise at_line(path, 1, "--system chooses a row of a table; this is a single run's result")
    metrics = {}
    for key in bench.table.keys:
        value = bench.table.run_value(found, key)
        if value is not None:
            metrics[key] = _numbers({"value": value}, key, path)
    n_items = bench.table.run_items(found)
    if not metrics:
        raise at_line(path, 1, f"the result has none of {bench.name}'s headline numbers "
                               f"({', '.join(bench.table.keys)}); expected a benchscore {bench.name} result")
    return {"system": None, "metrics": metrics, "n_items": _option({"n_items": n_items}, "n_items", path)}


def _score(value, key, name, path) -> float:
    if not is_real(value) or abs(value) > 1e6 or not math.isfinite(value):  # big ints first: no float overflow
        raise at_line(path, 1, f"{key}'s {name} is {shown(value)}; expected a finite number (a score)")
    return float(value)


def _numbers(cell, key, path):
    if not isinstance(cell, dict):
        raise at_line(path, 1, f"{key} is {shown(cell)}; expected {{\"value\", \"low\", \"high\"}}")
    out = {name: _score(cell.get(name), key, name, path) for name in ("value", "low", "high")
           if name == "value" or cell.get(name) is not None}
    if "low" in out and "high" in out and not out["low"] <= out["value"] <= out["high"]:
        raise at_line(path, 1, f"{key}'s interval [{out['low']}, {out['high']}] does not hold its value "
                               f"{out['value']}; expected low <= value <= high")
    return out


# ------------------------------------------------------------------ the Hub's .eval_results


def eval_results_yaml(result: dict, bench: Benchmark, date: str, source: str | None = None,
                      source_name: str | None = None) -> str:
    """The `.eval_results/<benchmark>.yaml` text: one entry per headline metric."""
    import yaml
    from huggingface_hub import EvalResultEntry, eval_result_entries_to_yaml

    if not bench.table.dataset_id:
        raise ValueError(f"{bench.name} has no Hub dataset to attach evaluation results to (its registry record "
                         "names none); --eee and --eval-yaml work without one")
    revision = result["signature"].fields.get("data", "").rpartition("@")[2] or None
    entries = [EvalResultEntry(dataset_id=bench.table.dataset_id, task_id=bench.table.task_ids.get(key, key),
                               value=numbers["value"], dataset_revision=revision, date=date, source_url=source,
                               source_name=source_name if source else None, notes=str(result["signature"]))
               for key, numbers in result["metrics"].items()]
    return yaml.safe_dump(eval_result_entries_to_yaml(entries), sort_keys=False, allow_unicode=True)


def eval_results_path(directory: str, bench: Benchmark) -> str:
    folder = directory if os.path.basename(os.path.normpath(directory)) == ".eval_results" else \
        os.path.join(directory, ".eval_results")
    return os.path.join(folder, f"{bench.name}.yaml")


# ------------------------------------------------------------------ Every Eval Ever


def eee_record(result: dict, bench: Benchmark, model: str, date: str, source: str | None = None) -> dict:
    """An Every Eval Ever aggregate record of one system's headline numbers."""
    now = time.time()
    signature = result["signature"]
    model_info = {"name": result["system"] or model, "id": model,
                  "additional_details": {"deployment_type": "unknown", "model_availability": "unknown"}}
    source_data: dict[str, Any]
    if bench.table.dataset_id:
        source_data = {"dataset_name": bench.title, "source_type": "hf_dataset", "hf_repo": bench.table.dataset_id}
    else:
        source_data = {"dataset_name": bench.title, "source_type": "url", "url": [bench.data.source]}
    if result.get("n_items") is not None:
        source_data["samples_number"] = int(result["n_items"])
    results = [_eee_result(result, bench, key, numbers, source_data, date) for key, numbers in result["metrics"].items()]
    record: dict[str, Any] = {
        "schema_version": EEE_SCHEMA_VERSION,
        "evaluation_id": f"{bench.name}/{model}/{int(now)}",
        "evaluation_timestamp": date,
        "retrieved_timestamp": str(int(now)),
        "source_metadata": {"source_name": "benchscore", "source_type": "evaluation_run",
                            "source_organization_name": "benchscore user", "evaluator_relationship": "third_party",
                            "additional_details": {"signature": str(signature)}},
        "model_info": model_info,
        "eval_library": {"name": "benchscore", "version": benchscore.__version__,
                         "additional_details": {"signature": str(signature), "scorer": bench.scores}},
        "evaluation_results": results,
    }
    if source:
        record["source_metadata"]["source_organization_url"] = source
    return record


def _eee_result(result, bench, key, numbers, source_data, date):
    details = {"signature": str(result["signature"])}
    if "low" in numbers and result.get("seed") is not None:
        details["bootstrap_seed"] = str(result["seed"])
    score = {"score": numbers["value"], "details": details}
    uncertainty = _uncertainty(result, numbers)
    if uncertainty:
        score["uncertainty"] = uncertainty
    metric = {"evaluation_description": f"{bench.title}: {bench.scores}", "metric_id": f"{bench.name}.{key}",
              "metric_name": bench.table.label(key), "metric_unit": "proportion", "lower_is_better": False,
              "score_type": "continuous", "min_score": 0, "max_score": 1}
    judge = result["signature"].fields.get("judge")
    if judge and judge != "none" and key.startswith("ev2r"):
        metric["llm_scoring"] = _llm_scoring(judge)
    return {"evaluation_result_id": f"{bench.name}.{key}", "evaluation_name": f"{bench.title}: {bench.table.label(key)}",
            "source_data": source_data, "evaluation_timestamp": date, "metric_config": metric, "score_details": score}


def _uncertainty(result: dict, numbers: dict) -> dict:
    """EEE's uncertainty fields: our interval (level, method, resamples) and the item count."""
    uncertainty: dict[str, Any] = {}
    if "low" in numbers and "high" in numbers:
        interval = {"lower": numbers["low"], "upper": numbers["high"], "method": "percentile bootstrap over items"}
        if result.get("level") is not None:
            interval["confidence_level"] = float(result["level"])
        uncertainty["confidence_interval"] = interval
        if result.get("n_resamples") is not None:
            uncertainty["num_bootstrap_samples"] = int(result["n_resamples"])
    if result.get("n_items") is not None:
        uncertainty["num_samples"] = int(result["n_items"])
    return uncertainty


def _llm_scoring(judge: str) -> dict:
    """EEE's LLM-scoring fields for a judged metric: the judge as its signature names it."""
    model = {"name": judge, "id": judge, "additional_details": {"deployment_type": "unknown",
                                                                 "model_availability": "unknown"}}
    return {"judges": [{"model_info": model}],
            "input_prompt": "the benchmark's official judge prompt (see its card; the signature names the protocol)",
            "additional_details": {"judge_signature": judge}}


# ------------------------------------------------------------------ a draft eval.yaml


def eval_yaml(bench: Benchmark) -> str:
    """A draft `eval.yaml` for the benchmark's Hub dataset: its tasks are our headline metrics, each
    scored by benchscore (for the dataset's owner to review: the Hub's format is in beta)."""
    import yaml

    draft = {"name": bench.title, "description": f"{bench.data.title}. Scored by benchscore: {bench.scores}.",
             "citation": bench.data.cite,
             "tasks": [{"id": bench.table.task_ids.get(key, key), "name": f"{bench.title} {label}",
                        "metric": {"name": label, "higher_is_better": True,
                                   "scorer": f"benchscore {bench.name} (result key {key!r})"}}
                       for key, label in bench.table.metrics]}
    header = (f"# Draft eval.yaml for {bench.title}, written by benchscore {benchscore.__version__}: review it "
              "against the Hub's eval.yaml format before adding it to the dataset.\n")
    return header + yaml.safe_dump(draft, sort_keys=False, allow_unicode=True)


# ------------------------------------------------------------------ the command


# (an option given, the option it needs, the message): options that mean nothing alone
_NEEDS = (("create_pr", "push", "--create-pr opens a pull request on --push's repository; expected --push REPO too"),
          ("gold", "eee", "--gold and --predictions give --eee its per-item records; expected --eee DIR too"),
          ("predictions", "eee", "--gold and --predictions give --eee its per-item records; expected --eee DIR too"),
          ("source_name", "source", "--source-name names --source's link; expected --source URL too"))


def check_arguments(args) -> None:
    """The export's options checked before the result is read."""
    if not (args.eval_results or args.eee or args.eval_yaml or args.push):
        raise ValueError("nothing to export; expected --eval-results DIR, --eee DIR, --eval-yaml DIR or --push REPO")
    missing = next((message for given, needed, message in _NEEDS if getattr(args, given) and not getattr(args, needed)),
                   None)
    if missing:
        raise ValueError(missing)
    _check_places_and_date(args)


def _check_places_and_date(args) -> None:
    for directory in filter(None, (args.eval_results, args.eee, args.eval_yaml)):
        _check_folder(directory)
    if args.date is not None:
        _check_date(args.date)


def _check_date(date: str) -> None:
    from datetime import datetime

    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?", date):
            raise ValueError(date)
        datetime.fromisoformat(date.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"--date {date!r}: expected an ISO 8601 date or time (e.g. 2026-12-02 or "
                         "2026-12-02T10:00:00Z)") from None


def _check_folder(directory: str) -> None:
    """A folder to write into (made if missing): its nearest existing ancestor is a folder we may write."""
    existing = os.path.abspath(directory)
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise ValueError(f"{directory}: {existing} is a file; expected a folder to write into")
    check_writable(os.path.join(existing, ".benchscore-export"))


def run(args, bench: Benchmark) -> int:
    result = read_result(args.result, bench, args.system)
    date = args.date or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    yaml_text = eval_results_yaml(result, bench, date, args.source, args.source_name) \
        if args.eval_results or args.push else ""
    files = _files(args, bench, result, date, yaml_text)
    for path, _ in files:
        check_output(path, args.result, args.gold, args.predictions)
    pushed = [push(args.push, bench, yaml_text, args.create_pr)] if args.push else []  # the network first
    written = _write_all(files)
    for path in written + pushed:
        print(path)
    return 0


def _files(args, bench: Benchmark, result: dict, date: str, yaml_text: str) -> list[tuple[str, str]]:
    """(path, text) of each file the options ask for, all made before any is written."""
    files = []
    if args.eval_results:
        files.append((eval_results_path(args.eval_results, bench), yaml_text))
    if args.eee:
        files += eee_files(args, bench, result, date)
    if args.eval_yaml:
        files.append((os.path.join(args.eval_yaml, "eval.yaml"), eval_yaml(bench)))
    return files


def eee_files(args, bench: Benchmark, result: dict, date: str) -> list[tuple[str, str]]:
    """The EEE aggregate record (and, with --gold and --predictions, its instance records) as (path, text)."""
    model = args.model or args.push or result["system"] or "unknown"
    record = eee_record(result, bench, model, date, args.source)
    developer, _, name = model.rpartition("/")
    folder = "/".join(["data", bench.name, _safe(developer or "unknown"), _safe(name)])
    run_id = str(uuid.uuid4())
    files = []
    if args.gold or args.predictions:
        samples = instance_records(args, bench, result, record, model)
        text = "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in samples)
        relative = f"{folder}/{run_id}_samples.jsonl"
        record["detailed_evaluation_results"] = {
            "format": "jsonl", "file_path": relative, "hash_algorithm": "sha256", "total_rows": len(samples),
            "checksum": hashlib.sha256(text.encode("utf-8")).hexdigest()}
        files.append((os.path.join(args.eee, *relative.split("/")), text))
    files.insert(0, (os.path.join(args.eee, *folder.split("/"), f"{run_id}.json"),
                     json.dumps(record, indent=2, ensure_ascii=False) + "\n"))
    return files


def _safe(part: str) -> str:
    """A folder name from part of a model id: its own characters only, never "." or ".."."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", part)[:100]
    return "unknown" if safe.strip(".") == "" else safe


def instance_records(args, bench: Benchmark, result: dict, record: dict, model: str) -> list[dict]:
    """EEE instance records from the benchmark's `files.instances` of --gold and --predictions."""
    if not (args.gold and args.predictions):
        raise ValueError("per-item records need both --gold and --predictions (the files the result was scored on)")
    files = importlib.import_module(f"benchscore.{benchscore.benchmark(bench.name).folder}.files")
    if not hasattr(files, "instances"):
        raise ValueError(f"{bench.name} has no per-item records (its files.py defines no `instances`)")
    items = files.instances(args.gold, args.predictions)
    if result.get("n_items") is not None and len(items) != result["n_items"]:
        raise ValueError(f"--gold and --predictions give {len(items)} items, but the result was scored on "
                         f"{result['n_items']}; expected the files the result was scored on")
    _check_same_numbers(result, bench, files.score_files(args.gold, args.predictions))
    first = record["evaluation_results"][0]
    return [{"schema_version": EEE_SCHEMA_VERSION, "evaluation_id": record["evaluation_id"], "model_id": model,
             "evaluation_name": first["evaluation_name"], "evaluation_result_id": first["evaluation_result_id"],
             "sample_id": item["sample_id"], "interaction_type": "single_turn",
             "input": {"raw": item["input"], "reference": item["reference"]}, "output": {"raw": item["output"]},
             "answer_attribution": [{"turn_idx": 0, "source": "output.raw", "extracted_value": "\n".join(item["output"]),
                                     "extraction_method": f"benchscore {bench.name} (official scorer)",
                                     "is_terminal": True}],
             "evaluation": {"score": item["score"], "is_correct": item["is_correct"]}, "metadata": item["metadata"]}
            for item in items]


def _check_same_numbers(result: dict, bench: Benchmark, rescored: dict) -> None:
    """The result's numbers are what --gold and --predictions score (with the default options), metric
    by metric, so per-item records never describe other files than the aggregate's."""
    compared = 0
    for key, numbers in result["metrics"].items():
        value = bench.table.run_value(rescored, key)
        if value is None:  # e.g. Ev2R, which needs the judge's records
            continue
        compared += 1
        if value != numbers["value"]:
            raise ValueError(f"--gold and --predictions give {key} {value!r}, but the result says "
                             f"{numbers['value']!r}; expected the files (and default options) the result was "
                             "scored with")
    if not compared:
        raise ValueError("--gold and --predictions give none of the result's numbers; expected its files")


def _write_all(files: list[tuple[str, str]]) -> list[str]:
    """Every (path, text), each whole (its folder made if missing); on a failure, the files and folders
    made so far are removed again, so nothing is left half exported."""
    made: list[str] = []
    try:
        for path, text in files:
            made += _make_folders(os.path.dirname(path))
            write_atomically(path, text)
            made.append(path)
    except BaseException:
        for path in reversed(made):
            with contextlib.suppress(OSError):
                os.rmdir(path) if os.path.isdir(path) else os.unlink(path)
        raise
    return [path for path, _ in files]


def _make_folders(folder: str) -> list[str]:
    """Makes `folder` and its missing parents; the ones made, outermost first."""
    missing = []
    while folder and not os.path.exists(folder):
        missing.append(folder)
        folder = os.path.dirname(folder)
    for path in reversed(missing):
        os.mkdir(path)
    return list(reversed(missing))


def _connection_errors() -> tuple:
    """OSError and the HTTP errors of whichever client huggingface_hub uses (httpx, or its httpx2)."""
    errors: list[type] = [OSError]
    for name in ("httpx", "httpx2"):
        with contextlib.suppress(ImportError, AttributeError):
            errors.append(importlib.import_module(name).HTTPError)
    return tuple(errors)


def push(repo_id: str, bench: Benchmark, yaml_text: str, create_pr: bool) -> str:
    """Uploads `.eval_results/<benchmark>.yaml` to a model repository; the commit's (or PR's) URL."""
    if truthy("HF_HUB_OFFLINE"):
        raise ValueError(f"--push {repo_id}: HF_HUB_OFFLINE=1 is set, and an upload needs the Hub; unset it to push")
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError

    hub_logger = logging.getLogger("huggingface_hub")  # its retries would print a line each: ours says it once
    level = hub_logger.level
    hub_logger.setLevel(logging.ERROR)
    try:
        info = HfApi().upload_file(path_or_fileobj=yaml_text.encode("utf-8"),
                                   path_in_repo=f".eval_results/{bench.name}.yaml", repo_id=repo_id,
                                   repo_type="model", create_pr=create_pr,
                                   commit_message=f"Add {bench.title} evaluation results (benchscore)")
    except RepositoryNotFoundError:
        raise ValueError(f"--push {repo_id}: no such model repository, or no access to it (HF_TOKEN?)") from None
    except HfHubHTTPError as err:
        raise ValueError(f"--push {repo_id}: the Hub refused the upload ({str(err).splitlines()[0]})") from None
    except _connection_errors() as err:  # the HTTP client's connection errors are not OSErrors
        raise ValueError(f"--push {repo_id}: cannot reach the Hub ({type(err).__name__}: "
                         f"{str(err).splitlines()[0] if str(err) else 'no answer'})") from None
    finally:
        hub_logger.setLevel(level)
    url = getattr(info, "pr_url", None) or getattr(info, "commit_url", None) or str(info)
    print(f"pushed .eval_results/{bench.name}.yaml to {repo_id}", file=sys.stderr)
    return url
