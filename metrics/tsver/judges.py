"""Pluggable Ev²R judges for TSVer (stdlib only; tqdm is used for the progress bar when installed).

A *judge* is any callable ``judge(claim, reference, prediction) -> dict`` that returns the four
Ev²R counts (ints >= 0, under the official record keys ``COUNT_KEYS``; free-text keys may ride
along) or raises ``JudgeError``.  ``reference`` is all gold justifications joined with "\\n";
``prediction`` is the system's ``Explanation``.  A ``JudgeError`` is a *failure of one claim*: the
caller counts and reports it, never drops it silently.  Any other exception is a bug (or a setup
error such as a missing API key) and propagates.

Judges provided here:
- ``RecordedJudge``: looks claims up in an official ``{"Claim", "ev2r_response"}`` JSONL file
  (``read_recorded``) or a mapping claim -> record;
- ``CallableJudge``: wraps any Python function and validates what it returns;
- ``OpenAIJudge``: an OpenAI-compatible ``/chat/completions`` judge over HTTP (urllib only) with
  our own one-shot prompt (``build_prompt``), retries, a concurrency limit, a progress bar and an
  on-disk cache.

``run_judge(judge, items)`` runs a judge over ``(claim, reference, prediction)`` items, in order,
and returns one ``JudgeOutcome`` per item.
"""

import concurrent.futures
import dataclasses
import hashlib
import http.client
import json
import logging
import os
import pathlib
import re
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import warnings
from collections.abc import Mapping

logger = logging.getLogger(__name__)

# The four integer counts of an Ev²R record (official key names, spaces included).
COUNT_KEYS = (
    "facts count predicted evidence",
    "support predicted evidence",
    "facts count reference evidence",
    "support reference evidence",
)
# Free-text keys the judge may add (kept for audits, never scored).
TEXT_KEYS = (
    "facts in predicted evidence",
    "fact check predicted evidence",
    "facts in reference evidence",
    "fact check reference evidence",
)


class JudgeError(Exception):
    """The judge could not score one claim (after its retries). Counted and reported, not dropped."""


def is_judge_failure(err):
    """Whether an exception is a JudgeError: this module's or that of a copy of this file.

    ``evaluate.load`` runs a *copy* of this file beside the metric script, which has its own
    JudgeError class; a judge built from ``benchscore.tsver.judges`` (or a user's judge raising
    that one) must still count as a failure there, so the class is recognised by name.
    """
    return any(cls.__name__ == "JudgeError" for cls in type(err).__mro__)


@dataclasses.dataclass(frozen=True)
class JudgeOutcome:
    """One item's result: ``counts`` (the four ints) and the judge's whole ``response``, or ``error``."""

    claim: str
    counts: dict | None = None
    response: dict | None = None
    error: str | None = None

    @property
    def ok(self):
        return self.error is None


def validate_counts(response, where="judge output"):
    """The four counts of a judge's output as a dict of ints >= 0; raises JudgeError naming the key.

    Only the types are checked: a support count above its facts count is kept as is, since the
    official scorer sums whatever the judge said.
    """
    if not isinstance(response, Mapping):
        raise JudgeError(f"{where}: expected a dict with the keys {list(COUNT_KEYS)}, found {type(response).__name__}")
    counts = {}
    for key in COUNT_KEYS:
        if key not in response:
            raise JudgeError(f"{where}: missing key {key!r} (expected the keys {list(COUNT_KEYS)})")
        value = response[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise JudgeError(f"{where}: key {key!r} must be an int >= 0, found {value!r}")
        counts[key] = value
    return counts


# ---------------------------------------------------------------------------------------------
# Recorded judge outputs (the official file format)


def iter_recorded(path):
    """Every record of an official Ev²R file, in file order: ``(line_number, claim, ev2r_response)``.

    The official aggregation sums over *all* records of the file (duplicates and claims absent
    from the gold file included); use this view to reproduce it.  Blank lines are skipped.  Raises
    ValueError naming the line for bad JSON, a missing key, or a count that is not an int >= 0
    (a present count; a missing one is left missing, the official aggregation counts it 0).
    """
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"{path}: line {number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise ValueError(f"{where}: not valid JSON ({err.msg} at column {err.colno})") from None
            if not isinstance(record, dict):
                raise ValueError(f"{where}: expected a JSON object, found {type(record).__name__}")
            for key, kind in (("Claim", str), ("ev2r_response", dict)):
                if key not in record:
                    raise ValueError(f"{where}: missing key {key!r} "
                                     '(expected {"Claim": str, "ev2r_response": {...}})')
                if not isinstance(record[key], kind):
                    raise ValueError(f"{where}: {key!r} must be a {'string' if kind is str else 'JSON object'}, "
                                     f"found {type(record[key]).__name__}")
            response = record["ev2r_response"]
            for key in COUNT_KEYS:
                value = response.get(key, 0)
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise ValueError(f"{where}: ev2r_response[{key!r}] must be an int >= 0, found {value!r}")
            yield number, record["Claim"], response


def read_recorded(path):
    """Official Ev²R judge records ``{"Claim": str, "ev2r_response": {...}}`` (JSONL) by claim text.

    Returns ``{claim: ev2r_response}`` with each response as recorded (the raw dict: a missing count
    key is left missing, since the official aggregation counts it as 0).  A claim recorded twice:
    the later line wins (as for prediction lines), with a warning naming both lines; note that the
    official aggregation sums both (see ``iter_recorded``).  Errors as in ``iter_recorded``.
    """
    records, first_line = {}, {}
    for number, claim, response in iter_recorded(path):
        if claim in first_line:
            warnings.warn(f"{path}: line {number} records claim {claim[:60]!r} again (first on line "
                          f"{first_line[claim]}); the later record is used", stacklevel=2)
        else:
            first_line[claim] = number
        records[claim] = response
    return records


class RecordedJudge:
    """A judge that returns the recorded Ev²R record of a claim (JudgeError if it has none).

    ``source`` is a path to an official JSONL file (see ``read_recorded``) or a mapping
    claim -> record.  Missing count keys come back as 0, as the official aggregation counts them;
    the free-text keys come back as recorded.
    """

    def __init__(self, source):
        self.records = dict(source) if isinstance(source, Mapping) else read_recorded(source)

    @property
    def signature(self):
        """Which records: their number and a digest of their content (two files, two signatures)."""
        canonical = json.dumps(self.records, sort_keys=True, ensure_ascii=False, default=repr)
        return f"recorded(n={len(self.records)},sha256={hashlib.sha256(canonical.encode('utf-8')).hexdigest()[:12]})"

    def __call__(self, claim, reference, prediction):
        if claim not in self.records:
            raise JudgeError(f"no recorded Ev2R record for the claim {claim[:80]!r}")
        record = self.records[claim]
        if not isinstance(record, Mapping):
            raise JudgeError(f"recorded Ev2R record: expected a dict, found {type(record).__name__}")
        response = {key: 0 for key in COUNT_KEYS} | dict(record)
        validate_counts(response, "recorded Ev2R record")
        return response

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


# ---------------------------------------------------------------------------------------------
# Our own one-shot prompt, on the design the TSVer paper describes (five steps, one worked
# example, then the claim / reference / prediction blocks).  Bump PROMPT_VERSION on any change
# of wording; the cache key also hashes the text itself, so an edit never reuses stale replies.

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


def parse_reply(text):
    """The judge's JSON object from a reply: the first fenced ```json block that holds an object,
    else the whole reply, else the span from its first "{" to its last "}"; then its counts are
    validated.  Raises JudgeError for a malformed reply."""
    candidates = _FENCED.findall(text)
    candidates += [text, text[text.find("{"):text.rfind("}") + 1]]
    for candidate in candidates:
        try:
            response = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(response, dict):
            validate_counts(response, "judge reply")
            return response
    raise JudgeError(f"judge reply holds no JSON object: {_shorten(text)!r}")


def _shorten(text, limit=200):
    return text if len(text) <= limit else text[:limit] + "..."


# ---------------------------------------------------------------------------------------------
# The OpenAI-compatible judge

_CACHE_HOME = pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache")
DEFAULT_CACHE_DIR = _CACHE_HOME / "benchscore" / "tsver-ev2r"

_RETRY_STATUS = frozenset({408, 409, 429})  # and every 5xx


class _Retry(Exception):
    """A failed attempt worth repeating (rate limit, server error, timeout, malformed reply)."""

    def __init__(self, reason, wait=0.0):
        super().__init__(reason)
        self.wait = wait


class _Refused(Exception):
    """A failed attempt not worth repeating (HTTP 400, 401, 404, ...)."""


class _Secret:
    """Holds the API key so that no repr, log line or traceback local can show it."""

    __slots__ = ("_value",)

    def __init__(self, value):
        self._value = value

    def reveal(self):
        return self._value

    def __repr__(self):
        return "<hidden>"

    __str__ = __repr__


class OpenAIJudge:
    """An OpenAI-compatible chat-completions judge with our own one-shot prompt.

    One request per claim to ``{base_url}/chat/completions`` (urllib only), ``temperature`` and
    ``seed`` sent unless None (pass None for an API that rejects them).  The reply's JSON (fenced
    ```json or bare) is parsed and validated; HTTP 408/409/429/5xx, timeouts, connection errors and
    malformed replies are retried ``max_retries`` times (so ``max_retries + 1`` attempts), waiting
    ``backoff``, ``2 * backoff``, ``4 * backoff``... seconds (at least the server's Retry-After, at
    most 60 s), then JudgeError; other HTTP errors (400, 401, 404, ...) fail at once.  At most
    ``concurrency`` requests run at once, however many threads call the judge.

    Successful replies are cached under ``cache_dir`` (None: no cache), one JSON file per key; the
    key hashes the model, prompt version and text, temperature, seed and the three inputs (not the
    URL, so the same model behind another host or port reuses it).  A rerun makes no request and
    gives the same numbers; failures are not cached, so a rerun tries them again.

    The API key is read from the environment variable ``api_key_env`` when a request is first
    needed (None: send no key, e.g. a local server); a missing key is a ValueError, not a judge
    failure.  The key is never logged, cached, or shown in errors or reprs.
    """

    def __init__(self, base_url, model, api_key_env="OPENAI_API_KEY", cache_dir=DEFAULT_CACHE_DIR, max_retries=3,
                 timeout=60.0, concurrency=4, temperature=0, seed=0, progress=True, backoff=1.0):
        if not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"OpenAIJudge: concurrency must be an int >= 1, found {concurrency!r}")
        if not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"OpenAIJudge: max_retries must be an int >= 0, found {max_retries!r}")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.api_key_env = api_key_env
        self.cache_dir = None if cache_dir is None else pathlib.Path(cache_dir)
        self.max_retries = max_retries
        self.timeout = timeout
        self.concurrency = concurrency
        self.temperature = temperature
        self.seed = seed
        self.progress = progress
        self.backoff = backoff
        self.requests_made = 0  # HTTP requests sent (attempts), for cost accounting
        self._slots = threading.BoundedSemaphore(concurrency)
        self._lock = threading.Lock()
        self._key = None

    @property
    def signature(self):
        """Everything that changes the judge's numbers, without "|" (results' signatures use it)."""
        return f"openai(model={self.model},prompt={PROMPT_VERSION},temperature={self.temperature},seed={self.seed})"

    def __repr__(self):
        return (f"OpenAIJudge(url={self.url!r}, model={self.model!r}, api_key_env={self.api_key_env!r}, "
                f"cache_dir={str(self.cache_dir) if self.cache_dir else None!r})")

    def __call__(self, claim, reference, prediction):
        key = self.cache_key(claim, reference, prediction)
        cached = self._read_cache(key)
        if cached is not None:
            return cached
        prompt = build_prompt(claim, reference, prediction)
        reason, wait, failure = "", 0.0, None
        for attempt in range(self.max_retries + 1):
            if attempt:
                delay = min(60.0, max(self.backoff * 2 ** (attempt - 1), wait))
                logger.info("Ev2R judge: attempt %d/%d failed (%s); retrying in %.2f s",
                            attempt, self.max_retries + 1, reason, delay)
                time.sleep(delay)
            try:
                reply = self._request(prompt)
                response = parse_reply(reply)
                break
            except _Retry as err:
                reason, wait = str(err), err.wait
            except JudgeError as err:  # a malformed reply: the next attempt may be well-formed
                reason, wait = str(err), 0.0
            except _Refused as err:
                failure = f"Ev2R judge request refused: {err}"
                break
        else:
            failure = f"Ev2R judge failed after {self.max_retries + 1} attempts: {reason}"
        if failure is not None:  # raised here, outside the frames that hold the request headers
            raise JudgeError(failure)
        self._write_cache(key, claim, reference, prediction, reply, response)
        return response

    def cache_key(self, claim, reference, prediction):
        prompt_hash = hashlib.sha256(PROMPT_INSTRUCTIONS.encode("utf-8")).hexdigest()
        temperature = None if self.temperature is None else float(self.temperature)  # 0 and 0.0 alike
        fields = [self.model, PROMPT_VERSION, prompt_hash, temperature, self.seed, claim, reference, prediction]
        return hashlib.sha256(json.dumps(fields, ensure_ascii=False).encode("utf-8")).hexdigest()

    # -- HTTP --------------------------------------------------------------------------------

    def _api_key(self):
        with self._lock:
            if self._key is None and self.api_key_env is not None:
                value = os.environ.get(self.api_key_env)
                if not value:
                    raise ValueError(f"OpenAIJudge: the environment variable {self.api_key_env} holding the API "
                                     "key is not set (pass api_key_env=None for a server that needs no key)")
                self._key = _Secret(value)
            return self._key

    def _redact(self, text):
        return text.replace(self._key.reveal(), "<hidden>") if self._key is not None else text

    def _request(self, prompt):
        """One POST; returns the reply text, raises _Retry or _Refused."""
        body = {"model": self.model, "messages": [{"role": "user", "content": prompt}]}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.seed is not None:
            body["seed"] = self.seed
        headers = {"Content-Type": "application/json"}
        key = self._api_key()
        if key is not None:
            headers["Authorization"] = "Bearer " + key.reveal()
        data = json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        with self._slots:
            with self._lock:
                self.requests_made += 1
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                    payload = answer.read()
            except urllib.error.HTTPError as err:
                detail = self._redact(_shorten(_error_body(err)))
                message = f"HTTP {err.code} from {self.url}: {detail}"
                if err.code in _RETRY_STATUS or err.code >= 500:
                    raise _Retry(message, _retry_after(err.headers)) from None
                raise _Refused(message) from None
            except (TimeoutError, ConnectionError, urllib.error.URLError, http.client.HTTPException) as err:
                reason = getattr(err, "reason", err)
                raise _Retry(self._redact(f"{type(err).__name__} from {self.url}: {reason}")) from None
        try:
            content = json.loads(payload)["choices"][0]["message"]["content"]
        except (ValueError, LookupError, TypeError):
            content = None
        if not isinstance(content, str):
            text = self._redact(_shorten(payload.decode("utf-8", "replace")))
            raise _Retry(f"not a chat-completions answer: {text!r}")
        return content

    # -- cache -------------------------------------------------------------------------------

    def _cache_path(self, key):
        return self.cache_dir / key[:2] / f"{key}.json"

    def _read_cache(self, key):
        if self.cache_dir is None:
            return None
        path = self._cache_path(key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            validate_counts(entry["response"], "cache entry")
            return entry["response"]
        except FileNotFoundError:
            return None
        except (ValueError, KeyError, TypeError, JudgeError) as err:  # a damaged entry is asked again
            logger.warning("Ev2R judge: ignoring the unreadable cache entry %s (%s)", path, err)
            return None

    def _write_cache(self, key, claim, reference, prediction, reply, response):
        if self.cache_dir is None:
            return
        path = self._cache_path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        entry = {"model": self.model, "prompt_version": PROMPT_VERSION, "temperature": self.temperature,
                 "seed": self.seed, "claim": claim, "reference": reference, "prediction": prediction,
                 "reply": reply, "response": response}
        # Write then rename, so a concurrent reader or a killed run never sees half a file.
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, delete=False, suffix=".tmp") as out:
            json.dump(entry, out, ensure_ascii=False, indent=1)
        os.replace(out.name, path)


def _error_body(err):
    try:
        return err.read().decode("utf-8", "replace").strip()
    except (OSError, http.client.HTTPException):  # the body itself was cut off
        return ""


def _retry_after(headers):
    try:
        return max(0.0, float(headers.get("Retry-After", 0)))
    except (TypeError, ValueError):  # an HTTP date: fall back to our own backoff
        return 0.0


# ---------------------------------------------------------------------------------------------


def as_judge(judge):
    """A judge from what a user passes: a path (RecordedJudge), a mapping (RecordedJudge), a judge
    object (callable with a ``signature``, as the classes here, or copies of them) as is, or any
    other callable (CallableJudge)."""
    if callable(judge) and hasattr(judge, "signature"):
        return judge
    if isinstance(judge, (str, os.PathLike, Mapping)):
        return RecordedJudge(judge)
    if callable(judge):
        return CallableJudge(judge)
    raise TypeError(f"judge: expected a path, a mapping claim -> record or a callable, found {type(judge).__name__}")


def run_judge(judge, items, concurrency=None, progress=None):
    """Run ``judge`` over ``(claim, reference, prediction)`` items; one JudgeOutcome per item, in order.

    ``concurrency`` and ``progress`` default to the judge's own settings (1 and False for judges
    without them).  The progress bar (tqdm, on stderr) is shown only when tqdm is installed.
    A JudgeError (see ``is_judge_failure``) becomes an outcome with ``error``; any other exception
    propagates.
    """
    items = [tuple(item) for item in items]
    concurrency = concurrency or getattr(judge, "concurrency", 1)
    show = getattr(judge, "progress", False) if progress is None else progress
    bar = _progress_bar(len(items), show)

    def one(item):
        claim = item[0]
        try:
            response = judge(*item)
            counts = validate_counts(response)
        except Exception as err:
            if not is_judge_failure(err):
                raise
            return JudgeOutcome(claim, error=str(err))
        finally:
            bar.update(1)
        return JudgeOutcome(claim, counts=counts, response=dict(response))

    try:
        if concurrency == 1:
            return [one(item) for item in items]
        with concurrent.futures.ThreadPoolExecutor(max_workers=concurrency) as pool:
            futures = [pool.submit(one, item) for item in items]
            try:
                return [future.result() for future in futures]
            except BaseException:
                pool.shutdown(cancel_futures=True)
                raise
    finally:
        bar.close()


class _NoBar:
    def update(self, n):
        pass

    def close(self):
        pass


def _progress_bar(total, show):
    if not show:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:
        return _NoBar()
    return tqdm(total=total, desc="Ev2R judge", unit="claim", file=sys.stderr)
