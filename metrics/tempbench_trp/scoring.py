"""TempBench TRP and CCR: per-question statistics, then an aggregate over them.

Definitions (Caldarini, TempBench, CIKM '26; reference scorer `tempbench_eval.py`):

    hits  = retrieved triples whose (s, r, o) is in S* and whose own t_start <= t_query <= t_end
    TRP   = hits / n_retrieved                      (undefined when nothing was retrieved)
    CCR   = 1 if every distinct gold (s, r, o) is among the hits, else 0

    TRP_macro = mean TRP over questions that retrieved anything
    TRP_micro = sum(hits) / sum(n_retrieved)
    CCR       = mean CCR over all questions;  coverage = share of questions that retrieved anything

Step 1, `score_question`, gives one row per question (the reference's row, key for key); step 2,
`aggregate` (or `Aggregator` when streaming), gives the corpus numbers from those rows alone, so
slices, streaming and resampling never re-score. Quirks of the reference are kept on purpose
(see README.md, "Limitations and bias"); what we do differently is an error where the reference
would silently score zero or crash without saying where.
"""

import functools
import hashlib
import json
import operator

__version__ = "1.0.0"

SPACES = {"label": ("s", "r", "o"), "id": ("s_id", "r_id", "o_id")}
SLICES = ("complexity", "operator")
_OTHER_SPACE = {"label": "id", "id": "label"}


# ----------------------------------------------------------------------------------------------
# Step 1: one row per question


def score_question(question, evidence, space="label", top_k=None, dedup=False):
    """The reference's per-question row: id, complexity, operator, n_ret, hits, n_gold, trp, ccr.

    `evidence` is what the retriever returned for `question`, in rank order: dicts with the
    space's keys plus `t_start`/`t_end`, or 5-tuples `(s, r, o, t_start, t_end)`.
    `dedup` drops exact repeats of a normalised `(s, r, o, t_start, t_end)`; `top_k` then keeps
    the first k. Both are extensions (the reference counts every copy and never truncates).
    """
    keys = _space_keys(space)
    _check_options(top_k, dedup)
    if not isinstance(question, dict):
        raise TypeError(f"a question must be a dict (a benchmark record), found {type(question).__name__}")
    t_query = _year(question, "t_query")
    gold = _gold_triples(question, keys)
    if isinstance(evidence, (str, bytes, dict)) or not hasattr(evidence, "__iter__"):
        raise TypeError(f"{_where(question)}: evidence must be a list of triples, found {type(evidence).__name__}")
    other_gold = None  # gold in the other space, built when first needed
    s_key, r_key, o_key = keys
    seen = set() if dedup else None
    n_ret = hits = 0
    covered = set()
    for j, item in enumerate(evidence):
        if n_ret == top_k:
            break  # items past the cut are neither scored nor checked
        try:
            if isinstance(item, dict):
                triple = (item[s_key], item[r_key], item[o_key])
                start, end = float(item["t_start"]), float(item["t_end"])
            elif isinstance(item, (list, tuple)) and len(item) == 5:
                triple = (item[0], item[1], item[2])
                start, end = float(item[3]), float(item[4])
            else:
                raise TypeError
            if seen is not None:
                if (triple, start, end) in seen:
                    continue
                seen.add((triple, start, end))
            in_gold = triple in gold
        except (KeyError, TypeError, ValueError):
            raise _evidence_error(item, j, space, _where(question)) from None
        n_ret += 1
        if in_gold:
            # Only the retrieved triple's own interval is compared; gold times are never read.
            if start <= t_query <= end:
                hits += 1
                covered.add(triple)
        else:
            # Gold written in the other space too lets us catch evidence in the wrong space,
            # which the reference would silently score as zero hits.
            if other_gold is None:
                other_gold = _gold_triples(question, SPACES[_OTHER_SPACE[space]], strict=False)
            if triple in other_gold:
                raise ValueError(
                f"{_where(question)}: evidence[{j}] {triple!r} matches a gold triple in {_OTHER_SPACE[space]} space, "
                f"but space={space!r}; score this run with space={_OTHER_SPACE[space]!r}"
                )
    return {
        "id": question.get("id"),
        "complexity": question.get("complexity"),
        "operator": question.get("operator_type"),
        "n_ret": n_ret,
        "hits": hits,
        "n_gold": len(gold),
        "trp": hits / n_ret if n_ret else None,
        "ccr": 1 if gold and len(covered) == len(gold) else 0,
    }


def score_questions(questions, evidences, space="label", top_k=None, dedup=False):
    """Rows for paired iterables of questions and their evidence, in order.

    An error names the question's position in the input as well as its id.
    """
    rows = []
    for index, (question, evidence) in enumerate(zip_strict(questions, evidences)):
        try:
            rows.append(score_question(question, evidence, space, top_k, dedup))
        except (ValueError, TypeError) as err:
            raise type(err)(f"question #{index}: {err}") from None
    return rows


# ----------------------------------------------------------------------------------------------
# Step 2: corpus numbers from rows alone


class Aggregator:
    """Running sums over rows, added in question order (a list at a time, or one by one).

    Float sums continue left to right across calls (`reduce(add, values, running_sum)`), the
    reference's plain `sum()` order, so streaming in chunks gives bit-identical floats to
    `aggregate(all_rows)`. (Python 3.12's `sum` is compensated; the reference's numbers on 3.12
    may then differ from these in the last bit.)
    """

    def __init__(self, by=SLICES):
        self.by = tuple(by)
        self.n_ret = self.hits = 0
        self.total = [0, 0, 0, 0]  # a cell: questions, questions that retrieved, sum of TRP, sum of CCR
        self.slices = {field: {} for field in self.by}

    def add(self, row):
        self.add_rows([row])

    def add_rows(self, rows):
        rows = rows if isinstance(rows, list) else list(rows)
        self.n_ret += sum(r["n_ret"] for r in rows)
        self.hits += sum(r["hits"] for r in rows)
        _add_to_cell(self.total, rows)
        for field, cells in self.slices.items():
            groups = {}
            for r in rows:
                key = r.get(field)
                group = groups.get(key)
                if group is None:
                    group = groups[key] = []
                group.append(r)
            for key, group in groups.items():
                cell = cells.get(key)
                if cell is None:
                    cell = cells[key] = [0, 0, 0, 0]
                _add_to_cell(cell, group)
        return self

    def result(self):
        n, n_scored, trp_sum, ccr_sum = self.total
        if not n:
            # The reference returns only {'n_questions': 0}; we keep every key, and the rates
            # are None (undefined), not a zero that reads like a score.
            out = {"n_questions": 0, "coverage": None, "TRP_macro": None, "TRP_micro": None, "CCR": None}
            out.update({"by_" + field: {} for field in self.by})
            return out
        out = {
            "n_questions": n,
            "coverage": n_scored / n,
            # Reference quirk kept: 0.0, not undefined, when no question retrieved anything.
            "TRP_macro": trp_sum / n_scored if n_scored else 0.0,
            "TRP_micro": self.hits / self.n_ret if self.n_ret else 0.0,
            "CCR": ccr_sum / n,
        }
        for field, cells in self.slices.items():
            # Slices keyed by the raw field value (None when missing), ordered by str(key).
            ordered = sorted(cells.items(), key=lambda kv: str(kv[0]))
            out["by_" + field] = {key: _cell_summary(cell) for key, cell in ordered}
        return out


def _add_to_cell(cell, rows):
    trps = [r["trp"] for r in rows if r["n_ret"] > 0]  # TRP is undefined without retrieval
    cell[0] += len(rows)
    cell[1] += len(trps)
    cell[2] = functools.reduce(operator.add, trps, cell[2])
    cell[3] += sum(r["ccr"] for r in rows)


def _cell_summary(cell):
    n, n_scored, trp_sum, ccr_sum = cell
    return {"n": n, "TRP": trp_sum / n_scored if n_scored else 0.0, "CCR": ccr_sum / n}


def aggregate(rows, by=SLICES):
    """Corpus numbers and per-slice cells (the reference's `aggregate`) from per-question rows.

    Any list of rows works, so a bootstrap resample is `aggregate([rows[i] for i in sample])`.
    """
    return Aggregator(by).add_rows(rows).result()


# ----------------------------------------------------------------------------------------------
# Whole runs: options, signature, and streaming from JSONL files


def signature(space="label", top_k=None, dedup=False, functional_ids=None):
    """`tempbench_trp|version:..|space:..|top_k:..|dedup:..|subset:..`; every option that changes a number."""
    _space_keys(space)
    _check_options(top_k, dedup)
    if functional_ids is None:
        subset = "all"
    else:
        # The id list itself changes the numbers: name it by size and content.
        ids = sorted(set(functional_ids))
        digest = hashlib.sha256("\n".join(ids).encode("utf-8")).hexdigest()[:8]
        subset = f"functional-{len(ids)}-{digest}"
    return (
        f"tempbench_trp|version:{__version__}|space:{space}|top_k:{top_k if top_k else 'none'}"
        f"|dedup:{'yes' if dedup else 'no'}|subset:{subset}"
    )


def score(questions, evidences, space="label", top_k=None, dedup=False, functional_ids=None, by=SLICES):
    """The fast path: aggregate and signature for paired questions and evidence (no `evaluate`).

    Takes any iterables (generators stream); rows are aggregated in chunks and not kept.
    """
    sig = signature(space, top_k, dedup, functional_ids)
    keep = _subset_filter(functional_ids)

    def rows():
        for index, (question, evidence) in enumerate(zip_strict(questions, evidences)):
            if keep is not None and not keep(question, index):
                continue
            try:
                yield score_question(question, evidence, space, top_k, dedup)
            except (ValueError, TypeError) as err:
                raise type(err)(f"question #{index}: {err}") from None

    return dict(_aggregate_chunks(rows(), by), signature=sig)


def score_jsonl(questions_path, evidence_path, space="label", split=None, top_k=None, dedup=False,
                functional_ids=None, by=SLICES):
    """Score a run file against a questions file, one question at a time.

    `evidence_path` holds one `{"id": ..., "evidence": [...]}` line per question. Questions are
    scored in questions-file order (the order the reference's sums use) and joined to evidence by
    id. Memory stays flat when the evidence lines follow the questions' order (what a retrieval
    loop over the questions file writes), also with other lines in between; lines met out of
    order are held until their question comes. Evidence lines whose id is not among the selected
    questions are counted in `n_evidence_unused`, not scored.
    """
    sig = signature(space, top_k, dedup, functional_ids)
    keep = _subset_filter(functional_ids)
    splits_seen = set()
    with open(evidence_path, encoding="utf-8") as evidence_file:
        evidence_lines = _EvidenceById(evidence_file, evidence_path)

        def rows():
            for index, (number, question) in enumerate(_numbered_records(questions_path)):
                if split is not None:
                    splits_seen.add(question.get("split"))
                    if question.get("split") != split:
                        continue
                if keep is not None and not keep(question, index):
                    continue
                where = f"{questions_path} line {number}"
                evidence = evidence_lines.pop(question.get("id"), where)
                try:
                    yield score_question(question, evidence, space, top_k, dedup)
                except (ValueError, TypeError) as err:
                    raise type(err)(f"{where}: {err}") from None

        result = _aggregate_chunks(rows(), by)
        unused = evidence_lines.count_unused()
    if split is not None and not result["n_questions"]:
        found = ", ".join(sorted(map(str, splits_seen))) or "none"
        raise ValueError(f"{questions_path}: no question has split {split!r} (splits found: {found})")
    return dict(result, n_evidence_unused=unused, signature=sig)


def _aggregate_chunks(rows, by, chunk_size=4096):
    totals = Aggregator(by)
    chunk = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == chunk_size:
            totals.add_rows(chunk)
            chunk = []
    totals.add_rows(chunk)
    return totals.result()


def iter_jsonl(path):
    """Records of a JSONL file, one at a time; a bad line names the file and line number."""
    for _, record in _numbered_records(path):
        yield record


def _numbered_records(path, objects_only=True):
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as err:
                raise ValueError(f"{path} line {number}: not valid JSON ({err})") from None
            if objects_only and not isinstance(record, dict):
                raise ValueError(f"{path} line {number}: expected a JSON object, found {type(record).__name__}")
            yield number, record


def read_functional_ids(path, flag=None):
    """Question ids of the functional subset from a `functional_negatives.jsonl`-style file.

    Each line is an object with an `id`; with `flag` (e.g. a per-negative-type field), only lines
    whose `flag` field is true are kept. A bare JSON string line is taken as an id.
    """
    ids = []
    for number, record in _numbered_records(path, objects_only=False):
        if isinstance(record, str):
            record = {"id": record}
        if not isinstance(record, dict) or not isinstance(record.get("id"), str):
            raise ValueError(f"{path} line {number}: expected an object with a string 'id', found {record!r:.80}")
        if flag is not None:
            if flag not in record:
                raise ValueError(f"{path} line {number}: no field {flag!r} (fields: {sorted(record)})")
            if not record[flag]:
                continue
        ids.append(record["id"])
    return ids


def zip_strict(questions, evidences):
    """zip that refuses inputs of different lengths instead of dropping the tail."""
    questions, evidences = iter(questions), iter(evidences)
    sentinel = object()
    index = 0
    while True:
        question, evidence = next(questions, sentinel), next(evidences, sentinel)
        if question is sentinel or evidence is sentinel:
            if question is not evidence:
                longer = "questions" if evidence is sentinel else "evidence lists"
                raise ValueError(f"questions and evidence lists differ in length: more {longer} after {index}")
            return
        yield question, evidence
        index += 1


# ----------------------------------------------------------------------------------------------
# Helpers: validation with messages that name the question, the field and what was expected


def _space_keys(space):
    try:
        return SPACES[space]
    except (KeyError, TypeError):
        raise ValueError(f"space must be 'label' or 'id', found {space!r}") from None


def _check_options(top_k, dedup):
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1):
        raise ValueError(f"top_k must be a positive int or None, found {top_k!r}")
    if not isinstance(dedup, bool):
        raise TypeError(f"dedup must be True or False, found {dedup!r}")


def _where(question):
    return f"question {question.get('id')!r}" if question.get("id") is not None else "question (no id)"


def _year(record, field):
    value = record.get(field)
    try:
        if value is None or isinstance(value, bool):
            raise TypeError
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"{_where(record)}: {field} must be a year as a number (e.g. 1994.0, or 'inf'), found {value!r}"
        ) from None


def _gold_triples(question, keys, strict=True):
    """Distinct gold (s, r, o) in one space; with strict=False, whatever the gold has in it."""
    s_key, r_key, o_key = keys
    try:
        triples = {(g[s_key], g[r_key], g[o_key]) for g in question["S_star"]}
        for triple in triples:
            if None in triple:
                raise KeyError
        return triples
    except (KeyError, TypeError):
        if not strict:
            return {
                (g.get(s_key), g.get(r_key), g.get(o_key))
                for g in question.get("S_star") or ()
                if isinstance(g, dict) and all(g.get(k) is not None for k in keys)
            }
    # Say what is wrong with the first bad gold triple.
    where, gold = _where(question), question.get("S_star")
    if not isinstance(gold, (list, tuple)):
        raise TypeError(f"{where}: S_star must be a list of gold triples, found {type(gold).__name__}")
    for i, g in enumerate(gold):
        if not isinstance(g, dict):
            raise TypeError(f"{where}: S_star[{i}] must be a dict, found {type(g).__name__}")
        if any(g.get(k) is None for k in keys):
            raise ValueError(
                f"{where}: S_star[{i}] needs {', '.join(keys)} for space {_space_name(keys)!r}, found {sorted(g)}"
            )
        try:
            hash(tuple(g[k] for k in keys))
        except TypeError:
            raise TypeError(f"{where}: S_star[{i}] {', '.join(keys)} must be strings") from None
    raise AssertionError("unreachable")  # pragma: no cover


def _space_name(keys):
    return next(name for name, space_keys in SPACES.items() if space_keys == keys)


def _evidence_error(item, j, space, where):
    """The clear error for an evidence item the fast loop could not read."""
    keys = SPACES[space]
    if isinstance(item, dict):
        missing = [k for k in keys if k not in item]
        if missing:
            hint = ""
            if all(k in item for k in SPACES[_OTHER_SPACE[space]]):
                hint = f" (it is in {_OTHER_SPACE[space]} space: score with space={_OTHER_SPACE[space]!r})"
            return ValueError(
                f"{where}: evidence[{j}] lacks {', '.join(missing)} for space {space!r}{hint}; it has {sorted(item)}"
            )
        fields = [(k, item[k]) for k in keys] + [(k, item.get(k)) for k in ("t_start", "t_end")]
    elif isinstance(item, (list, tuple)):
        if len(item) != 5:
            return ValueError(f"{where}: evidence[{j}] must be (s, r, o, t_start, t_end), found {len(item)} fields")
        fields = list(zip(keys + ("t_start", "t_end"), item))
    else:
        return TypeError(f"{where}: evidence[{j}] must be a dict or a 5-tuple, found {type(item).__name__}")
    for name, value in fields:
        if name in ("t_start", "t_end"):
            try:
                if value is None or isinstance(value, bool):
                    raise TypeError
                float(value)
            except (TypeError, ValueError):
                return ValueError(
                    f"{where}: evidence[{j}].{name} must be a year as a number (e.g. 1994.0, or 'inf' for "
                    f"an open bound), found {value!r}"
                )
        else:
            try:
                hash(value)
            except TypeError:
                return TypeError(f"{where}: evidence[{j}].{name} must be a string, found {type(value).__name__}")
    return ValueError(f"{where}: evidence[{j}] could not be read: {item!r}")


def _subset_filter(functional_ids):
    if functional_ids is None:
        return None
    if isinstance(functional_ids, (str, bytes)):
        raise TypeError("functional_ids must be a collection of question ids, not one string")
    ids = frozenset(functional_ids)

    def keep(question, index):
        question_id = question.get("id") if isinstance(question, dict) else None
        if question_id is None:
            raise ValueError(f"question #{index}: has no id, so it cannot be matched to the functional subset")
        return question_id in ids

    return keep


class _EvidenceById:
    """Evidence lines looked up by question id, read ahead only as far as needed."""

    def __init__(self, lines, path):
        self.lines = enumerate(lines, 1)
        self.path = path
        self.waiting = {}

    def pop(self, question_id, where):
        if question_id is None:
            raise ValueError(f"{where}: the question has no id, so its evidence line cannot be found")
        if question_id in self.waiting:
            return self.waiting.pop(question_id)
        for number, line in self.lines:
            if not line.strip():
                continue
            record_id, evidence = self._parse(line, number)
            if record_id == question_id:
                return evidence
            if record_id in self.waiting:
                raise ValueError(f"{self.path} line {number}: a second evidence line for id {record_id!r}")
            self.waiting[record_id] = evidence
        raise ValueError(f"{where}: no evidence line for id {question_id!r} in {self.path}")

    def _parse(self, line, number):
        try:
            record = json.loads(line)
        except ValueError as err:
            raise ValueError(f"{self.path} line {number}: not valid JSON ({err})") from None
        if not isinstance(record, dict) or "id" not in record or "evidence" not in record:
            found = sorted(record) if isinstance(record, dict) else type(record).__name__
            raise ValueError(f"{self.path} line {number}: expected an object with 'id' and 'evidence', found {found}")
        return record["id"], record["evidence"]

    def count_unused(self):
        return len(self.waiting) + sum(1 for _, line in self.lines if line.strip())
