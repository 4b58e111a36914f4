"""TempBench's files (questions, runs, functional subsets) -> checked questions and `ItemStats`: the one read path.

Questions are scored in file order (the reference's sum order), each joined to its run line by id; run
lines met ahead of their question are held, so memory stays flat when the run follows the questions.
"""

import json
import os
from typing import Any

from benchscore import data
from benchscore.core import readers
from benchscore.core.readers import at_line, iter_jsonl
from benchscore.tempbench_trp import kernel, line_types, scoring

TRIPLE_STRINGS = ("s", "r", "o", "s_id", "r_id", "o_id")
TRIPLE_TIMES = ("t_start", "t_end")
TRIPLE_FIELDS = ("S_star", "S_dist", "S_stale")
STRINGS = ("id", "question", "complexity", "operator_type", "split")
REQUIRED = ("id", "t_query", "S_star")
FIELDS = STRINGS + ("t_query",) + TRIPLE_FIELDS
QUESTION = "one question (a JSON object with id, t_query, S_star)"
EVIDENCE = 'one {"id": ..., "evidence": [triples]} object'


def question_record(raw, where):
    """A checked question: every documented field (None when absent), the others in the JSON text `extra`."""
    qid = raw.get("id")
    where = f"{where}: question {qid!r:.80}" if qid is not None else f"{where}: question (no id)"
    missing = [field for field in REQUIRED if raw.get(field) is None]
    if missing:
        raise ValueError(f"{where}: missing {', '.join(missing)}; a TempBench question needs {', '.join(REQUIRED)}")
    record = _strings(raw, STRINGS, where)
    record["t_query"] = scoring.year(raw["t_query"], f"{where}: t_query", finite=True)
    extra = {key: value for key, value in raw.items() if key not in FIELDS}
    for field in TRIPLE_FIELDS:
        record[field] = _triples(raw.get(field), field, where, extra)
    record["extra"] = json.dumps(extra, ensure_ascii=False, sort_keys=True) if extra else "{}"
    return record


def _strings(raw, fields, where, path=""):
    """{field: its string, or None} for `fields` of `raw` (one call per record or triple: this runs per line)."""
    values = {field: raw.get(field) for field in fields}
    for field, value in values.items():
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{where}: {path}{field} must be a string, found {value!r:.80}")
    return values


def _triples(triples, field, where, extra):
    if triples is None:
        return None
    if not isinstance(triples, list):
        raise ValueError(f"{where}: {field} must be a list of triples, found {type(triples).__name__}")
    return [_triple(t, f"{field}[{i}]", where, extra) for i, t in enumerate(triples)]


def _triple(raw, path, where, extra):
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: {path} must be an object with s, r, o and/or s_id, r_id, o_id, found {raw!r:.80}")
    triple = _strings(raw, TRIPLE_STRINGS, where, f"{path}.")
    if None in (triple["s"], triple["r"], triple["o"]) and None in (triple["s_id"], triple["r_id"], triple["o_id"]):
        raise ValueError(f"{where}: {path} has neither s, r, o nor s_id, r_id, o_id (keys: {sorted(raw)!s:.200})")
    for key in TRIPLE_TIMES:
        value = raw.get(key)
        triple[key] = None if value is None else scoring.year(value, f"{where}: {path}.{key}")
    extra.update({f"{path}.{key}": value for key, value in raw.items() if key not in triple})
    return triple


def iter_questions(path, split=None):
    """(line, checked question record) for the questions of `path` (`official:<split>` too), of `split` if given."""
    return ((number, record) for number, record, _ in _iter_questions(path, split, plain=False))


def _iter_questions(path, split, plain):
    """(line, record, whether it is the line as parsed): with `plain`, a line that `kernel.plain_question` takes
    as it is comes as parsed (scoring reads nothing a record would change), any other as its record."""
    path, split = data.resolve_split("tempbench", path, split)
    splits, n_selected = set(), 0
    for number, raw in iter_jsonl(path, QUESTION):
        parsed = plain and kernel.plain_question(raw)
        record = raw if parsed else question_record(raw, f"{path}:{number}")
        splits.add(record.get("split"))
        if split is None or record.get("split") == split:
            n_selected += 1
            yield number, record, parsed
    if not splits:
        raise at_line(path, 1, f"the file has no questions; expected {QUESTION} per line")
    if not n_selected:
        found = ", ".join(sorted(map(str, splits)))
        raise at_line(path, 1, f"no question has split {split!r} (splits found: {found:.200}); expected at least one")


def read_references(path: str | os.PathLike, split: str | None = None) -> Any:
    """The checked question records of `path` (those of `split`, if given), in file order."""
    return [record for _, record in iter_questions(path, split)]


def read_functional_ids(path, flag=None):
    """Question ids of a `functional_negatives.jsonl`-style file (with `flag`: the lines where it is true)."""
    path = data.resolve("tempbench", path)
    ids = [_functional_id(path, number, record, flag)
           for number, record in iter_jsonl(path, "an object with an 'id'", objects_only=False)]
    ids = [question_id for question_id in ids if question_id is not None]
    if not ids:
        found = "the file has no ids" if flag is None else f"no line has {flag!r} true"
        raise at_line(path, 1, f"{found}; expected at least one question id (an empty subset scores nothing)")
    return ids


def _functional_id(path, number, record, flag):
    if isinstance(record, str):
        record = {"id": record}
    if not isinstance(record, dict) or not isinstance(record.get("id"), str):
        raise at_line(path, number, f"found {record!r:.80}; expected an object with a string 'id'")
    if flag is not None and flag not in record:
        raise at_line(path, number, f"no field {flag!r} (fields: {sorted(record)!s:.200}); expected it with --functional-flag")
    return record["id"] if flag is None or record[flag] else None


def read_predictions(path: str | os.PathLike) -> Any:
    """{question id: evidence list} of a run file (in memory; `file_stats` streams instead)."""
    return {qid: evidence for qid, (_, evidence) in _Evidence(path).read().items()}


class _Evidence:
    """A run file's evidence looked up by question id, read ahead only as far as needed."""

    def __init__(self, path):
        self.path, self.records = path, iter_jsonl(path, EVIDENCE)
        self.waiting = {}  # id -> (line, evidence), read ahead of its question
        self.used = _IdFilter()  # the ids already scored, to find a repeated line at the end
        self.n_read = 0

    def read(self, until=None):
        """{id: (line, evidence)} of the lines held, once read up to id `until`'s line (None: to the end)."""
        for number, record in self.records:
            if "id" not in record or "evidence" not in record:
                raise at_line(self.path, number, f"found the fields {sorted(record)!s:.200}; expected {EVIDENCE}")
            qid = record["id"]
            if not isinstance(qid, str):
                raise at_line(self.path, number, f"the id is {qid!r:.80}; expected a string id")
            if qid in self.waiting:
                raise self._repeated(number, qid, f"first on line {self.waiting[qid][0]}")
            self.waiting[qid] = number, record["evidence"]
            self.n_read += 1
            if qid == until:
                break
        return self.waiting

    def pop(self, question_id):
        if question_id not in self.waiting:
            self.read(until=question_id)
        found = self.waiting.pop(question_id, None)
        if found:
            self.used.add(question_id)
        return found

    def count_unused(self, scored_ids):
        """Lines never scored; a second line for a scored id (`scored_ids()`, asked only when the filter
        says a line may repeat one) is an error."""
        leftover = self.read()
        suspects = {qid for qid in leftover if qid in self.used}
        repeated = suspects and [qid for qid in scored_ids() if qid in suspects]
        if repeated:
            number, qid = min((leftover[qid][0], qid) for qid in repeated)
            raise self._repeated(number, qid, "an earlier line was already scored")
        return len(leftover)

    def _repeated(self, number, qid, earlier):
        return at_line(self.path, number,
                       f"duplicate id {qid!r:.80} ({earlier}); expected one evidence line per question")


class _IdFilter:
    """A Bloom filter of ids in 1 MiB (`kernel.add_id`), whatever the number of questions (no false negatives)."""

    def __init__(self):
        self.bits = bytearray(kernel.ID_FILTER_BYTES)

    def add(self, key):
        kernel.add_id(self.bits, key)

    def __contains__(self, key):
        return kernel.may_hold_id(self.bits, key)


def iter_file_rows(questions_path, evidence_path, space, split, top_k, dedup, functional_ids, counts):
    """Each selected question's `ItemStats` fields (`scoring.checked_row`), streamed; once exhausted,
    `counts["n_evidence_unused"]` is set."""
    scoring.check_options(space, top_k, dedup)
    keep = scoring.subset_filter(functional_ids)

    def selected():
        return ((n, q, parsed) for n, q, parsed in _iter_questions(questions_path, split, plain=True)
                if keep is None or keep(q))

    evidence = _Evidence(evidence_path)
    for number, question, parsed in selected():
        gold = kernel.checked_gold(question, space)
        if gold is None:  # the question's error belongs to its own line, found before its evidence is read
            if parsed:  # its record, whose fields the messages name
                question = question_record(question, f"{questions_path}:{number}")
            try:
                scoring.check_question(question, space)
            except (ValueError, TypeError) as err:
                raise at_line(questions_path, number, str(err)) from None
        found = evidence.pop(question["id"])
        if found is None:
            raise _missing(questions_path, number, question["id"], evidence)
        line, items = found
        try:
            yield scoring.evidence_row(question, gold, items, space, top_k, dedup)
        except (ValueError, TypeError) as err:
            raise at_line(evidence_path, line, str(err)) from None
    counts["n_evidence_unused"] = evidence.count_unused(lambda: (q["id"] for _, q, _ in selected()))


def _missing(questions_path, number, question_id, evidence):
    if not evidence.n_read:
        return at_line(evidence.path, 1, f"the file has no records; expected {EVIDENCE} per line")
    for earlier, record in iter_jsonl(questions_path, QUESTION):
        if earlier >= number:
            break
        if record.get("id") == question_id:
            return at_line(questions_path, number, f"duplicate question id {question_id!r:.80} (first on line "
                                                   f"{earlier}); expected each question once")
    return at_line(questions_path, number, f"no evidence line for id {question_id!r:.80} in {evidence.path}; "
                                           "expected one per question")


class _Unsure(Exception):
    """The kernel is not sure of a line (or of the end of a file): both files are read again on the checked path."""


def _lockstep_rows(questions_path, evidence_path, space, split, top_k, dedup, functional_ids, counts):
    """`iter_file_rows` by `kernel.Lockstep`, a block of question lines at a time; `_Unsure` (raised once
    rows may have been given) where the kernel is not sure, or where reading a file fails (the checked
    path, reading in its own order, names the first error)."""
    scoring.check_options(space, top_k, dedup)
    keep = None if functional_ids is None else scoring._functional_ids(functional_ids)
    if readers.orjson is None:
        raise _Unsure
    questions_path, split = data.resolve_split("tempbench", questions_path, split)
    evidence_blocks = readers._iter_raw_blocks(evidence_path, numbered=False)
    try:
        lockstep = kernel.Lockstep(evidence_blocks, space, int(top_k or 0), dedup, split, keep, readers.MAX_DEPTH,
                                   line_types.decoders(readers.MAX_DEPTH))
        for _, block in readers._iter_raw_blocks(questions_path, numbered=False):
            rows = lockstep.rows(block)
            if rows is None:
                raise _Unsure
            yield from rows
        unused = lockstep.unused()
    except (readers.InputError, OSError):
        raise _Unsure from None
    finally:
        evidence_blocks.close()
    if unused is None:
        raise _Unsure
    counts["n_evidence_unused"] = unused


def _consume_rows(consume, *args):
    """`consume(rows)` of `iter_file_rows(*args)`: by the kernel's lockstep where it is sure of both files,
    else on the checked path from the start (same rows, or the located error)."""
    try:
        return consume(_lockstep_rows(*args))
    except _Unsure:
        return consume(iter_file_rows(*args))


def file_stats(questions_path: str | os.PathLike, evidence_path: str | os.PathLike, space: str = "label",
               split: str | None = None, top_k: int | None = None, dedup: bool = False,
               functional_ids: Any = None) -> Any:
    """Every selected question's `ItemStats`, in questions-file order (for resampling and `compare`)."""
    return _consume_rows(lambda rows: [scoring.ItemStats(*row) for row in rows], questions_path, evidence_path,
                         space, split, top_k, dedup, functional_ids, {})


def score_files(questions_path: str | os.PathLike, evidence_path: str | os.PathLike, space: str = "label",
                split: str | None = None, top_k: int | None = None, dedup: bool = False, functional_ids: Any = None,
                by: Any = scoring.SLICES) -> dict:
    """The result dict of a run file (streamed, flat memory), with `n_evidence_unused` and the signature."""
    # Resolved once (a store file is checksummed on each resolve); a Hub copy's revision joins the signature.
    questions_path, split = data.resolve_split("tempbench", questions_path, split)
    counts: dict = {}
    result = _consume_rows(lambda rows: scoring._summarize_rows(rows, by, space=space, top_k=top_k, dedup=dedup,
                                                                functional_ids=functional_ids),
                           questions_path, evidence_path, space, split, top_k, dedup, functional_ids, counts)
    sig = result.pop("signature").plus(data.signature_fields(questions_path))
    return dict(result, n_evidence_unused=counts["n_evidence_unused"], signature=sig)


def _triple_text(triple: dict) -> str:
    return f"{triple.get('s')} | {triple.get('r')} | {triple.get('o')}"


def instances(questions_path: str | os.PathLike, evidence_path: str | os.PathLike) -> list[dict]:
    """One record per question, for per-item exports: its text, the gold triples (S*) and the
    retrieved ones, its TRP (0 where nothing was retrieved, TRP being undefined there: the metadata
    says so) and whether its CCR is 1."""
    questions = {q["id"]: q for q in read_references(questions_path)}
    evidence = read_predictions(evidence_path)
    return [{"sample_id": str(s.id), "input": questions[s.id]["question"],
             "reference": [_triple_text(t) for t in questions[s.id]["S_star"]],
             "output": [_triple_text(t) for t in evidence.get(s.id, [])], "score": float(s.trp or 0.0),
             "is_correct": s.ccr == 1, "metadata": {"complexity": str(s.complexity), "operator": str(s.operator),
                                                   "trp": "undefined (nothing retrieved)" if s.trp is None
                                                   else repr(s.trp)}}
            for s in file_stats(questions_path, evidence_path)]
