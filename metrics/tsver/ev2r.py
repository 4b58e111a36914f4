"""TSVer's Ev²R in one place: the judge's record, the official record file, the official protocol
(what is sent for a claim and how the reply is read), and judging a file's claims.

The formulas (the four counts, the official aggregation) are `scoring`'s, beside the paper's; the
HTTP client that talks to a judge server is `http_judge` (the Space, which runs no judge, never
imports it). The official protocol is TSVer's `baseline/predict_ev2r.py`: the card's "Running the
judge as the paper's pipeline does" lists it point by point.

A *judge* is any callable ``judge(claim, reference, prediction) -> dict`` of the four Ev²R counts
(``EV2R_KEYS``; free-text keys may ride along) that raises ``JudgeError`` for a failure of one
claim, counted and reported, never dropped; any other exception is a bug or a setup error and
propagates.
"""

import concurrent.futures
import contextlib
import dataclasses
import hashlib
import json
import os
import re
import statistics
import sys
import time
from collections.abc import Mapping

from benchscore.core import checks
from benchscore.core.readers import iter_jsonl, parse_json, write_atomically
from benchscore.core.records import Note
from benchscore.tsver.prompt_template import official_prompt
from benchscore.tsver.scoring import EV2R_KEYS, defaulted_keys, ev2r_aggregate, ev2r_counts, listed, warn

# The judge's record

TEXT_KEYS = ("facts in predicted evidence", "fact check predicted evidence",  # free text: for audits, never scored
             "facts in reference evidence", "fact check reference evidence")


class JudgeError(Exception):
    """The judge could not score one claim (after its retries). Counted and reported, not dropped."""


class BadRecord(JudgeError):
    """A parsed record whose counts the official sum cannot add (a string, a float, a negative count).
    The official pipeline would keep it and its scorer then fail; we leave the claim out, not retried."""


@dataclasses.dataclass(frozen=True)
class JudgeOutcome:
    """One item's result: ``counts`` (the four ints) and the judge's whole ``response``, or ``error``."""

    claim: str
    counts: dict | None = None
    response: dict | None = None
    error: str | None = None
    sent: bool = True  # False: not sent at all (the judge budget), so neither judged nor failed

    @property
    def ok(self):
        return self.error is None


def record_counts(response, where="judge output"):
    """The four counts of a judge's record as ints >= 0, a missing one read as 0 (as the official sum
    does); JudgeError naming the key of a count that is not such an int."""
    if not isinstance(response, Mapping):
        raise JudgeError(f"{where}: expected a dict of the Ev2R counts, found {type(response).__name__}")
    try:
        return ev2r_counts(dict(response), where)
    except (TypeError, ValueError) as err:
        raise JudgeError(str(err)) from None


def validate_counts(response, where="judge output"):
    """The four counts of a judge's output as a dict of ints >= 0; raises JudgeError naming the key.
    A support count above its facts count is kept: the official scorer sums whatever the judge said."""
    missing = defaulted_keys(response)
    if missing:
        raise JudgeError(f"{where}: missing key {missing[0]!r} (expected the keys {list(EV2R_KEYS)})")
    return record_counts(response, where)


# The official record file: {"Claim", "ev2r_response"} JSONL, what compute_metrics.py --ev2r reads

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
        ev2r_counts(record["ev2r_response"], where + ": ev2r_response")
        yield number, record["Claim"], record["ev2r_response"]


def read_recorded(path, lines=None):
    """Official Ev²R judge records as ``{claim: ev2r_response}``; for a claim recorded twice the later line
    wins. `lines`: the file's `iter_recorded` already read (the official sum needs every line too)."""
    records, first_line = {}, {}
    for number, claim, response in iter_recorded(path) if lines is None else lines:
        if claim in first_line:
            warn(Note("repeated_ev2r_records", f"{path}:{number}: records claim {claim[:60]!r} again (first on line "
                                               f"{first_line[claim]}); the later record is used"))
        first_line.setdefault(claim, number)
        records[claim] = response
    return records


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
    write_atomically(path, "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    return [line["ev2r_response"] for line in lines]


# The official protocol: what is sent for one claim and how the reply is read

OPENROUTER_URL = "https://openrouter.ai/api/v1"  # the official pipeline's base URL
OFFICIAL_MODEL = "google/gemini-2.5-flash"  # the official pipeline's judge model
OFFICIAL_REASONING = {"effort": "medium", "exclude": True}  # its one extra body field
OFFICIAL_ATTEMPTS = 3  # the official pipeline tries a claim three times, then leaves it out
PROMPTS = ("tsver", "benchscore")  # tsver: TEMPLATE_EV2R of the pinned prompt_templates.py; ours: build_prompt
REASONING_EFFORTS = ("medium", "low", "high", "none")


# Our own one-shot prompt on the TSVer paper's design. Bump PROMPT_VERSION on any change of wording
# (the cache key also hashes the text, so an edit never reuses stale replies).
PROMPT_VERSION = "benchscore-ev2r-1"


PROMPT_INSTRUCTIONS = """\
You compare two explanations of the verdict on a fact-checked CLAIM: the REFERENCE EVIDENCE, \
written by professional fact-checkers, and the PREDICTED EVIDENCE, written by an automatic system. \
Work in five steps.

Step 1. Split the PREDICTED EVIDENCE into atomic facts: short self-contained statements, one \
sentence each, each carrying a single piece of information (a figure, a trend, a date, a source or \
a conclusion about the claim).
Step 2. For each fact of step 1, decide whether the REFERENCE EVIDENCE supports it. Use only the \
REFERENCE EVIDENCE, not your own knowledge: a fact that it does not state or imply is not supported.
Step 3. Split the REFERENCE EVIDENCE into atomic facts in the same way.
Step 4. For each fact of step 3, decide whether the PREDICTED EVIDENCE supports it, using only the \
PREDICTED EVIDENCE.
Step 5. Report your work as one JSON object in a ```json fenced block with exactly these keys:
"facts in predicted evidence" (the facts of step 1, numbered), "fact check predicted evidence" \
(for each, supported or not supported and why), "facts count predicted evidence" (the number of \
facts of step 1, an integer), "support predicted evidence" (how many of them are supported, an \
integer), and the same four for the reference: "facts in reference evidence", "fact check \
reference evidence", "facts count reference evidence", "support reference evidence". Write nothing \
after the JSON block.

## Example

# CLAIM:
Freedonia's coal consumption halved between 2000 and 2020.

# REFERENCE EVIDENCE:
Energy statistics show that Freedonia consumed 120 TWh of coal in 2000 and 70 TWh in 2020.
That is a fall of about 42%, not a halving.
Most of the decline came after 2012, when two coal power stations closed.

# PREDICTED EVIDENCE:
Freedonia used 120 TWh of coal in 2000 and 70 TWh in 2020. The drop is around 42%, short of half. \
Coal use rose between 2000 and 2008. The claim overstates the decline.

# ANSWER:
```json
{
  "facts in predicted evidence": "1. Freedonia used 120 TWh of coal in 2000.\\n2. Freedonia used 70 TWh of coal in 2020.\\n3. Coal use dropped by around 42% from 2000 to 2020.\\n4. A 42% drop is short of half.\\n5. Coal use rose between 2000 and 2008.\\n6. The claim overstates the decline.",
  "fact check predicted evidence": "1. supported: the reference gives 120 TWh for 2000.\\n2. supported: the reference gives 70 TWh for 2020.\\n3. supported: the reference says about 42%.\\n4. supported: the reference says it is not a halving.\\n5. not supported: the reference says nothing about 2000 to 2008.\\n6. supported: a 42% fall is less than the halving claimed.",
  "facts count predicted evidence": 6,
  "support predicted evidence": 5,
  "facts in reference evidence": "1. Freedonia consumed 120 TWh of coal in 2000.\\n2. Freedonia consumed 70 TWh of coal in 2020.\\n3. Coal consumption fell by about 42% from 2000 to 2020.\\n4. A fall of 42% is not a halving.\\n5. Most of the decline came after 2012.\\n6. Two coal power stations closed in 2012.",
  "fact check reference evidence": "1. supported: the prediction gives 120 TWh for 2000.\\n2. supported: the prediction gives 70 TWh for 2020.\\n3. supported: the prediction says around 42%.\\n4. supported: the prediction says short of half.\\n5. not supported: the prediction does not say when the decline happened.\\n6. not supported: the prediction does not mention power stations.",
  "facts count reference evidence": 6,
  "support reference evidence": 4
}
```

## Your task
"""


def build_prompt(claim, reference, prediction):
    """The one user message sent for one claim: the instructions and example, then the three blocks."""
    return (f"{PROMPT_INSTRUCTIONS}\n# CLAIM:\n{claim}\n\n# REFERENCE EVIDENCE:\n{reference}\n\n"
            f"# PREDICTED EVIDENCE:\n{prediction}\n\n# ANSWER:\n")


_FENCED = re.compile(r"```[ \t]*(?:json)?[ \t]*\n(.*?)```", re.IGNORECASE | re.DOTALL)


def parse_reply(text, redact=None):
    """The judge's JSON object from a reply (the first fenced ```json object, else the whole reply,
    else its first "{" to its last "}"), every string redacted (keys too), its counts validated.
    JudgeError otherwise; a reply without a JSON object is never shown: it may echo the API key."""
    for candidate in [*_FENCED.findall(text), text, text[text.find("{"):text.rfind("}") + 1]]:
        try:
            response = parse_json(candidate, "judge reply")
        except ValueError:
            continue
        if isinstance(response, dict):
            response = _redact_strings(response, redact) if redact else response
            validate_counts(response, "judge reply")
            return response
    raise JudgeError(f"judge reply holds no JSON object ({len(text):,} characters, not shown); expected the "
                     "four counts in a ```json block")


def _redact_strings(value, redact):
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(str(k)): _redact_strings(v, redact) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_strings(v, redact) for v in value]
    return value


# The official extraction, to the letter: the first ```json block (lower-case), non-greedy up to a "}"
# that a closing fence follows.
_OFFICIAL_BLOCK = re.compile(r"```json\s*(\{.*?\})\s*```", re.DOTALL)
# With --judge-structured: a JSON schema of the record, for servers that honour response_format.
RECORD_SCHEMA = {"type": "json_schema", "json_schema": {"name": "ev2r_record", "strict": True, "schema": {
    "type": "object", "additionalProperties": False, "required": [*TEXT_KEYS, *EV2R_KEYS],
    "properties": {**{key: {"type": "string"} for key in TEXT_KEYS},
                   **{key: {"type": "integer", "minimum": 0} for key in EV2R_KEYS}}}}}


def parse_official_reply(text, redact=None):
    """The judge's record as the official pipeline reads it: the first ```json {...}``` block, json-parsed
    (every key kept; a missing count is read as 0 later, as the official sum does). JudgeError otherwise
    (the official pipeline tries again); the reply itself is never shown: it may echo the API key."""
    match = _OFFICIAL_BLOCK.search(text)
    if match is None:
        raise JudgeError(f"judge reply holds no ```json {{...}}``` block ({len(text):,} characters, not shown); "
                         "the official pipeline reads only that")
    try:
        record = parse_json(match.group(1), "judge reply's ```json block")
    except ValueError as err:
        raise JudgeError(str(err)) from None
    return _redact_strings(record, redact) if redact else record


@dataclasses.dataclass(frozen=True)
class Protocol:
    """What is sent for one claim and how its reply is read. The default is the official pipeline's
    (`baseline/predict_ev2r.py`): TEMPLATE_EV2R, one user message, ``reasoning`` and nothing else."""

    prompt: str = "tsver"
    temperature: float | None = None
    seed: int | None = None
    reasoning: str = "medium"  # the effort of the official `reasoning` field; "none" leaves it out
    structured: bool = False  # response_format: RECORD_SCHEMA

    def __post_init__(self):
        for name, value, ok, expected in (
                ("prompt", self.prompt, self.prompt in PROMPTS, f"one of {list(PROMPTS)}"),
                ("temperature", self.temperature, self.temperature is None
                 or (checks.is_real(self.temperature) and 0 <= self.temperature <= 2), "None or a number from 0 to 2"),
                ("seed", self.seed, self.seed is None or checks.is_int(self.seed), "None or an int"),
                ("reasoning", self.reasoning, self.reasoning in REASONING_EFFORTS, f"one of {list(REASONING_EFFORTS)}"),
                ("structured", self.structured, isinstance(self.structured, bool), "True or False")):
            if not ok:
                raise ValueError(f"OpenAIJudge: {name} must be {expected}, found {value!r}")
        if self.temperature is not None:  # 0 and 0.0 send, sign and cache alike
            object.__setattr__(self, "temperature", float(self.temperature))

    def message(self, claim, reference, prediction):
        if self.prompt == "tsver":
            return official_prompt(claim, reference, prediction)
        return build_prompt(claim, reference, prediction)

    def body(self, model, content, sample=0):
        """The request's JSON body; a seed moves with the judge sample (sample k sends seed + k)."""
        body = {"messages": [{"role": "user", "content": content}], "model": model}
        if self.reasoning != "none":
            body["reasoning"] = {**OFFICIAL_REASONING, "effort": self.reasoning}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.seed is not None:
            body["seed"] = self.seed + sample
        if self.structured:
            body["response_format"] = RECORD_SCHEMA
        return body

    def read(self, reply, redact=None):
        """The record of a reply (JudgeError: try again; BadRecord: leave the claim out)."""
        if self.prompt == "benchscore":
            return parse_reply(reply, redact)
        record = parse_official_reply(reply, redact)
        try:
            ev2r_counts(record, "judge reply")
        except (TypeError, ValueError) as err:
            raise BadRecord(str(err)) from None
        return record

    def describe(self, attempts=OFFICIAL_ATTEMPTS, samples=1):
        """The signature's part: `protocol=tsver-official` (the defaults, the official pipeline's), or
        `protocol=custom` and each way it differs from the official one."""
        parts = [] if self.prompt == "tsver" else [f"prompt={PROMPT_VERSION}"]
        parts += [f"temperature={self.temperature}"] if self.temperature is not None else []
        parts += [f"seed={self.seed}"] if self.seed is not None else []
        parts += [f"reasoning={self.reasoning}"] if self.reasoning != "medium" else []
        parts += ["response_format=json_schema"] if self.structured else []
        parts += [f"attempts={attempts}"] if attempts != OFFICIAL_ATTEMPTS else []
        repeated = [f"samples={samples}"] if samples != 1 else []  # the same protocol, run K times
        return ",".join(["protocol=tsver-official" if not parts else "protocol=custom", *parts, *repeated])


def claims_to_judge(gold, predictions):
    """(claim index, (claim, reference, prediction)) for each claim an Ev²R judge reads (official:
    the gold justifications joined with "\\n", the Explanation; none without one)."""
    return [(i, (g["Claim"], "\n".join(g["Justifications"] or []), p["explanation"]))
            for i, (g, p) in enumerate(zip(gold, predictions))
            if p is not None and p["explanation"] is not None]


# Judging a file's claims

class RecordedJudge:
    """A judge that returns the recorded Ev²R record of a claim (JudgeError if it has none), from a
    mapping claim -> record (``read_recorded`` reads the official file); a missing count is 0."""

    def __init__(self, records):
        if not isinstance(records, Mapping):
            raise TypeError(f"RecordedJudge: expected a mapping claim -> record, found {type(records).__name__} "
                            "(for a file, use benchscore.tsver.ev2r.as_judge(path))")
        self.records = dict(records)

    @property
    def signature(self):
        canonical = json.dumps(self.records, sort_keys=True, ensure_ascii=False, default=repr)
        return f"recorded(n={len(self.records)},sha256={hashlib.sha256(canonical.encode('utf-8')).hexdigest()[:12]})"

    def __call__(self, claim, reference, prediction):
        if claim not in self.records:
            raise JudgeError(f"no recorded Ev2R record for the claim {claim[:80]!r}")
        record = self.records[claim]
        if not isinstance(record, Mapping):
            raise JudgeError(f"recorded Ev2R record: expected a dict, found {type(record).__name__}")
        record_counts(record, "recorded Ev2R record")  # a missing count stays missing: read as 0, and warned
        return dict(record)

    def __repr__(self):
        return f"RecordedJudge({len(self.records)} records)"


class CallableJudge:
    """Wraps ``fn(claim, reference, prediction) -> dict`` and validates its counts (JudgeError if bad)."""

    signature = "callable"

    def __init__(self, fn):
        if not callable(fn):
            raise TypeError(f"CallableJudge: expected a callable, found {type(fn).__name__}")
        self.fn = fn

    def __call__(self, claim, reference, prediction):
        response = self.fn(claim, reference, prediction)
        validate_counts(response, f"judge {getattr(self.fn, '__name__', repr(self.fn))} returned a bad result")
        return dict(response)

    def __repr__(self):
        return f"CallableJudge({self.fn!r})"


def is_judge_failure(err):
    """Whether an exception is one claim's judge failure (counted), not a bug (propagated)."""
    return isinstance(err, JudgeError)


def as_judge(judge):
    """A judge from what a user passes: a path of recorded judge outputs or a mapping claim -> record
    (RecordedJudge), a judge object (callable with a ``signature``, as the classes here and
    ``http_judge.OpenAIJudge``) as is, or any other callable (CallableJudge)."""
    if isinstance(judge, (str, os.PathLike)):
        return RecordedJudge(read_recorded(judge))
    if callable(judge) and hasattr(judge, "signature"):
        return judge
    if isinstance(judge, Mapping):
        return RecordedJudge(judge)
    if callable(judge):
        return CallableJudge(judge)
    raise TypeError(f"judge: expected a path, a mapping claim -> record or a callable, found {type(judge).__name__}")


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


def run_judge(judge, items, concurrency=None, progress=None, sample=0):
    """Run ``judge`` over ``(claim, reference, prediction)`` items: one JudgeOutcome per item, in order
    whatever the completion order (a JudgeError as its ``error``); ``concurrency`` and ``progress``
    default to the judge's settings; ``sample`` > 0 asks a judge that takes samples for another one."""
    items = [tuple(item) for item in items]
    concurrency = concurrency or getattr(judge, "concurrency", 1)
    extra = {"sample": sample} if sample else {}
    with _progress(len(items), getattr(judge, "progress", False) if progress is None else progress) as tick:

        def one(item):
            try:
                response = judge(*item, **extra)
                counts = record_counts(response)
            except JudgeError as err:  # see is_judge_failure
                return JudgeOutcome(item[0], error=str(err))
            finally:
                tick()
            return JudgeOutcome(item[0], counts=counts, response=dict(response))

        if concurrency == 1:
            return [one(item) for item in items]
        with concurrent.futures.ThreadPoolExecutor(max_workers=concurrency) as pool:
            futures = [pool.submit(one, item) for item in items]
            try:
                return [future.result() for future in futures]
            except BaseException:
                pool.shutdown(cancel_futures=True)
                raise


@contextlib.contextmanager
def _progress(total, show):
    if show:  # tqdm loads here, not at the top: a command that shows no bar does not load it
        try:
            from tqdm import tqdm
        except ImportError:  # the progress bar is optional
            show = False
    if not show:
        yield lambda: None
        return
    with tqdm(total=total, desc="Ev2R judge", unit="claim", file=sys.stderr) as bar:
        yield lambda: bar.update(1)


@dataclasses.dataclass
class JudgedClaims:
    """What judging a file's claims gave: ``per_claim`` (None: not asked or not sent, the counts, or
    the failure message), the judge's ``signature``, the judge's whole ``records`` (claim index ->
    record, for `--write-ev2r`), the claims ``not_sent`` (the budget), the per-claim lists of further
    judge ``samples``, and the judge's ``usage`` (None for a judge that keeps no accounts)."""

    per_claim: list
    signature: str
    records: dict
    not_sent: list
    samples: list
    usage: dict | None


def _per_claim(items, outcomes, n_claims):
    per_claim, records, not_sent = [None] * n_claims, {}, []
    for (i, _), outcome in zip(items, outcomes):
        if not outcome.sent:
            not_sent.append(i)
        elif outcome.error is not None:
            per_claim[i] = outcome.error
        else:  # a count the record lacks stays missing, so the scorer can say it read it as 0
            missing = defaulted_keys(outcome.response)
            per_claim[i] = {key: value for key, value in outcome.counts.items() if key not in missing}
            records[i] = outcome.response
    return per_claim, records, not_sent


def _run_within_budget(judge, items, sample):
    """`run_judge` in waves of ``judge.concurrency`` claims (the first wave one claim, to learn what a
    request costs), each wave admitted on ``judge.spent`` and ``judge.cost_of`` before it is sent; the
    claims after the first that does not fit are not sent. A judge without a ``budget`` runs at once."""
    budget = getattr(judge, "budget", None)
    if budget is None:
        return run_judge(judge, items, sample=sample)
    outcomes, start, wave = [], 0, 1
    while start < len(items):
        chunk, planned, admitted = items[start:start + wave], judge.spent, 0
        for item in chunk:  # decided before the wave is sent, in claim order: never by which reply comes first
            planned += judge.cost_of(*item, sample=sample)
            if planned > budget.limit:
                break
            admitted += 1
        outcomes += run_judge(judge, chunk[:admitted], sample=sample)
        if admitted < len(chunk):
            reason = f"not sent: the judge budget of {judge.budget.limit:g} {judge.budget.unit} would be exceeded"
            return outcomes + [JudgeOutcome(item[0], error=reason, sent=False) for item in items[start + admitted:]]
        start, wave = start + len(chunk), judge.concurrency
    return outcomes


def judge_claims(judge, items, n_claims):
    """Runs `judge` on `claims_to_judge` (``judge.samples`` times, for a judge that takes samples)."""
    started = time.monotonic()
    runs = [_per_claim(items, _run_within_budget(judge, [item for _, item in items], k), n_claims)
            for k in range(getattr(judge, "samples", 1))]
    usage = getattr(judge, "usage", None)
    if usage is not None:
        usage.wall_seconds += time.monotonic() - started
    (per_claim, records, not_sent), *others = runs
    return JudgedClaims(per_claim, getattr(judge, "signature", "callable"), records, not_sent,
                        [run[0] for run in others], None if usage is None else usage.as_dict())


def run_report(run, ev2r_aggregation):
    """The judge run's own numbers: the claims the budget left unsent, the spread of Ev²R over further
    judge samples. (Its accounts, which differ between a run and its cached rerun, are the CLI's.)"""
    report = {}
    if run.not_sent:
        report["n_ev2r_not_sent"] = len(run.not_sent)
        report["warnings"] = [Note("ev2r_not_sent", f"{len(run.not_sent)} claim(s) were not sent to the judge, to "
                                   f"stay within the judge budget (claims {listed(run.not_sent)}); Ev2R is over the "
                                   "judged claims only")]
    if run.samples:
        report["ev2r_judge_samples"] = judge_sample_spread([run.per_claim, *run.samples], ev2r_aggregation)
    return report


def judge_sample_spread(samples, aggregation="tsver"):
    """How much the judge itself moves Ev²R: the F1 of each judge sample (per-claim lists as in
    `JudgedClaims.per_claim`; None where a sample judged no claim), their mean, standard deviation
    (n - 1), minimum and maximum."""
    f1s = []
    for per_claim in samples:
        judged = [ev2r_counts(c) for c in per_claim if isinstance(c, dict)]  # a missing count is 0, as officially
        f1s.append(ev2r_aggregate(judged, aggregation)["f1"] if judged else None)
    known = [f for f in f1s if f is not None]
    return {"k": len(f1s), "f1": f1s, "mean": statistics.fmean(known) if known else None,
            "std": statistics.stdev(known) if len(known) > 1 else None, "min": min(known, default=None),
            "max": max(known, default=None)}


def plan(gold, predictions, judge, existing):
    """What a judge run would send, without sending: claims to judge, those answered by the record
    file (`existing`, claim -> record) or the cache, and the size of the prompts to send (characters;
    tokens are about a quarter)."""
    items = [item for _, item in claims_to_judge(gold, predictions)]
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
            "signature_judge": judge.signature}
