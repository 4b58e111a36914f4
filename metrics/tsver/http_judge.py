"""TSVer's Ev²R judge over HTTP: an OpenAI-compatible chat-completions client (`httpx`:
`pip install "benchscore[judge]"`), the official protocol by default (`ev2r.Protocol`).

It keeps apart what talks to a server: one total deadline per request, retries and backoff, a
concurrency limit, the reply cache, the API key that no output may show, the token accounts and
the budget. What is sent and how a reply is read is `ev2r`'s; the card's "Running the judge as the
paper's pipeline does" lists every option.
"""

import base64
import concurrent.futures
import dataclasses
import hashlib
import json
import logging
import math
import os
import pathlib
import re
import stat
import threading
import time
import urllib.parse

from benchscore.core.checks import is_int, is_real
from benchscore.core.readers import decode, parse_json, shown, write_atomically
from benchscore.tsver.ev2r import (
    OFFICIAL_ATTEMPTS,
    OFFICIAL_MODEL,
    OPENROUTER_URL,
    BadRecord,
    JudgeError,
    Protocol,
    validate_counts,
)
from benchscore.tsver.scoring import RATE_LIMITED, ev2r_counts


def _httpx():
    """httpx (the "judge" extra), imported by the first judge: its ~90 ms would otherwise be part of every TSVer
    command's start-up, judged or not."""
    try:
        import httpx
    except ImportError:
        raise ValueError('the HTTP Ev2R judge needs httpx: pip install "benchscore[judge]" (or pip install httpx)') \
            from None
    return httpx


logger = logging.getLogger(__name__)


# The OpenAI-compatible judge

_CACHE_HOME = pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache")
DEFAULT_CACHE_DIR = _CACHE_HOME / "benchscore" / "tsver-ev2r"
MAX_REPLY_BYTES = 8 << 20  # one chat-completions answer
MAX_CACHE_BYTES = 1 << 20  # one cache entry: larger ones are neither written nor read
_RETRY_STATUS = frozenset({408, 409, 429})  # and every 5xx
RATE_LIMITED_CLAIMS = 3  # claims in a row rate-limited on every attempt: the server will not answer this run
SECRET_RUN = 8  # an echoed run of this many consecutive characters of the key is hidden
_HTTP_LOGGERS = ("httpx", "httpcore", "httpcore.http11", "httpcore.http2", "httpcore.connection", "httpcore.proxy")
_UNICODE_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


class _Retry(Exception):
    """A failed attempt worth repeating (rate limit, server error, timeout, malformed reply)."""

    def __init__(self, reason, wait=0.0, rate_limited=False):
        super().__init__(reason)
        self.wait, self.rate_limited = wait, rate_limited


class _Refused(Exception):
    """A failed attempt not worth repeating (HTTP 400, 401, 404, ...)."""


def _encoded_forms(key):
    """The key as base64 (standard and URL-safe, padded or not) and as hex, which a server may echo."""
    raw = key.encode("utf-8")
    forms = {base64.b64encode(raw).decode("ascii"), base64.urlsafe_b64encode(raw).decode("ascii")}
    forms |= {form.rstrip("=") for form in forms}
    hexed = raw.hex()
    return {form for form in forms | {hexed, hexed.upper()} if len(form) >= 8}


class _Secret:
    """Holds the API key so that no repr, log line or traceback local can show it."""

    __slots__ = ("_value", "_forms", "_runs", "__weakref__")

    def __init__(self, raw):
        self._value = raw.strip()  # a key read from a CRLF .env file ends in "\r"
        forms = {raw, self._value}
        forms |= {json.dumps(form, ensure_ascii=ascii)[1:-1] for form in set(forms) for ascii in (True, False)}
        forms |= {form.replace("/", "\\/") for form in forms}  # JSON may escape "/" too
        forms |= _encoded_forms(self._value)
        self._forms = sorted(filter(None, forms), key=len, reverse=True)
        grams = sorted({self._value[i:i + SECRET_RUN].lower() for i in range(len(self._value) - SECRET_RUN + 1)})
        self._runs = re.compile("(?=(" + "|".join(map(re.escape, grams)) + "))", re.IGNORECASE) if grams else None
        for name in _HTTP_LOGGERS:  # httpcore logs response headers at DEBUG: a header may echo the key
            logging.getLogger(name).addFilter(self._filter)

    def _filter(self, record):
        message = record.getMessage()
        if self.redact(message) != message:
            record.msg, record.args = self.redact(message), ()
        return True

    def reveal(self):
        return self._value

    def _replace(self, text):
        for form in self._forms:
            text = re.sub(re.escape(form), "<hidden>", text, flags=re.IGNORECASE)
        return self._hide_runs(text)

    def _hide_runs(self, text):
        pieces, end = [], 0  # text[:end] is done; overlapping or touching runs become one "<hidden>"
        for match in self._runs.finditer(text) if self._runs else ():
            if not pieces or match.start() > end:
                pieces += [text[end:match.start()], "<hidden>"]
            end = max(end, match.end(1))
        return "".join(pieces) + text[end:]

    def redact(self, text):
        """`text` without the key in any form: as is, JSON-escaped (also \\uXXXX char by char), base64, hex."""
        text = self._replace(text)
        unescaped = _UNICODE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
        cleaned = self._replace(unescaped)
        return cleaned if cleaned != unescaped else text

    def __repr__(self):  # str() uses it too
        return "<hidden>"


def _post(client, url, headers, body, deadline, cancelled):
    """One POST read as a stream: (status, headers, body bytes); stops at `deadline` (monotonic)."""
    with client.stream("POST", url, headers=headers, content=body) as answer:
        chunks, size = [], 0
        for chunk in answer.iter_bytes():
            size += len(chunk)
            if cancelled.is_set() or time.monotonic() > deadline:
                raise TimeoutError("the reply did not arrive before the deadline")
            if size > MAX_REPLY_BYTES:
                raise _Retry(f"the reply is longer than {MAX_REPLY_BYTES >> 20} MiB")
            chunks.append(chunk)
        return answer.status_code, answer.headers, b"".join(chunks)


def _check_settings(concurrency, max_retries, timeout, backoff, samples=1):
    for name, value, ok, expected in (
            ("samples", samples, is_int(samples) and samples >= 1, "an int >= 1"),
            ("concurrency", concurrency, is_int(concurrency) and concurrency >= 1, "an int >= 1"),
            ("max_retries", max_retries, is_int(max_retries) and max_retries >= 0, "an int >= 0"),
            ("timeout", timeout, is_real(timeout) and 0 < timeout < math.inf, "a number of seconds > 0"),
            ("backoff", backoff, is_real(backoff) and 0 <= backoff < math.inf, "a finite number of seconds >= 0")):
        if not ok:
            raise ValueError(f"OpenAIJudge: {name} must be {expected}, found {value!r}")


def _check_options(model, cache_dir, budget, protocol, request):
    if not isinstance(model, str) or not model.strip():
        raise TypeError(f"OpenAIJudge: model must be a non-empty string, found {model!r}")
    if cache_dir is not None:
        _check_cache_folder(pathlib.Path(cache_dir))
    if budget is not None and not isinstance(budget, Budget):
        raise TypeError(f"OpenAIJudge: budget must be a http_judge.Budget, found {type(budget).__name__}")
    if protocol is not None and request:
        raise TypeError(f"OpenAIJudge: pass protocol= or {', '.join(request)}=, not both")


def _check_cache_folder(folder):
    """The judge cache folder checked now (one that cannot be created or written is named before any
    request is sent), but created only when a reply is cached: a refused run writes nothing."""
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"OpenAIJudge: cache_dir {str(folder)!r} exists and is not a directory")
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    problem = (f"{str(existing)!r} is not a folder" if not existing.is_dir() else
               None if os.access(existing, os.W_OK | os.X_OK) else f"{str(existing)!r} cannot be written")
    if problem:
        raise ValueError(f"OpenAIJudge: the judge cache folder {str(folder)!r} cannot be created ({problem}); "
                         "expected a folder that can be written (or no cache: cache_dir=None, --no-judge-cache)")


def _masked(url):
    """`url` with any user:password@ part replaced by ***@ (it may hold the key)."""
    scheme, sep, rest = url.partition("://")
    netloc, slash, path = rest.partition("/")
    if "@" in netloc:
        netloc = "***@" + netloc.rpartition("@")[2]
    return scheme + sep + netloc + slash + path


def _check_url(base_url):
    if not isinstance(base_url, str):
        raise TypeError(f"OpenAIJudge: base_url must be a string such as 'https://api.openai.com/v1', "
                        f"found {type(base_url).__name__}")
    try:
        parts = urllib.parse.urlsplit(base_url)
        host = parts.hostname
    except ValueError as err:
        raise ValueError(f"OpenAIJudge: base_url {_masked(base_url)!r} is not a valid URL ({err})") from None
    if parts.scheme not in ("http", "https") or not host or any(c.isspace() for c in base_url):
        raise ValueError(f"OpenAIJudge: base_url {_masked(base_url)!r} is not an http(s) URL with a host; "
                         "expected e.g. 'https://api.openai.com/v1'")
    return base_url


# The request protocols: what is sent for one claim and how the reply is read


# What a run of the judge cost: summed from every reply's `usage`

USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens", "total_tokens")
# Where each count sits in a chat-completions `usage` object.
_USAGE_PATHS = {"prompt_tokens": ("prompt_tokens",), "completion_tokens": ("completion_tokens",),
                "reasoning_tokens": ("completion_tokens_details", "reasoning_tokens"),
                "cached_tokens": ("prompt_tokens_details", "cached_tokens"), "total_tokens": ("total_tokens",)}


def _usage_count(usage, path):
    value = usage
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    if value is not None and (not is_int(value) or value < 0):
        raise ValueError(f"the judge's usage.{'.'.join(path)} is {shown(value)}; expected a whole number of "
                         "tokens >= 0")
    return value


def read_usage(answer):
    """The token counts of a chat-completions answer's `usage` ({field: int}), None when it has none,
    or ValueError when it is there in another shape (so a budget is never enforced on a guess)."""
    usage = answer.get("usage") if isinstance(answer, dict) else None
    if usage is None:
        return None
    if not isinstance(usage, dict):
        raise ValueError(f"the judge's usage is {type(usage).__name__}; expected an object of token counts")
    counts = {name: value for name, path in _USAGE_PATHS.items() if (value := _usage_count(usage, path)) is not None}
    missing = [name for name in ("prompt_tokens", "completion_tokens") if name not in counts]
    if missing:
        raise ValueError(f"the judge's usage has no {missing[0]}; expected prompt_tokens and completion_tokens")
    counts.setdefault("total_tokens", counts["prompt_tokens"] + counts["completion_tokens"])
    return counts


@dataclasses.dataclass
class JudgeUsage:
    """A judge run's accounts: requests sent, token totals, claims answered from the cache (free),
    failed attempts, requests whose answer reported no usage, and the wall time of the run."""

    requests: int = 0
    cached_claims: int = 0
    recorded_claims: int = 0  # answered by the --write-ev2r file of an earlier run
    failed_attempts: int = 0
    unreported: int = 0
    wall_seconds: float = 0.0
    tokens: dict = dataclasses.field(default_factory=lambda: dict.fromkeys(USAGE_FIELDS, 0))

    def add(self, counts):
        for name, value in (counts or {}).items():
            self.tokens[name] += value

    def as_dict(self):
        return {"requests": self.requests, "cached_claims": self.cached_claims, "recorded_claims": self.recorded_claims,
                "failed_attempts": self.failed_attempts, "requests_without_usage": self.unreported,
                **self.tokens, "wall_seconds": round(self.wall_seconds, 3)}


@dataclasses.dataclass(frozen=True)
class Budget:
    """A limit on what a run may spend: ``limit`` tokens, or ``limit`` dollars at ``price`` (dollars per
    million prompt and completion tokens, as the user's provider bills them)."""

    limit: float
    price: tuple | None = None

    def __post_init__(self):
        if not is_real(self.limit) or not 0 <= self.limit < math.inf:
            raise ValueError(f"judge budget must be a finite number >= 0, found {self.limit!r}")
        if self.price is not None and (len(self.price) != 2 or not all(
                is_real(p) and 0 <= p < math.inf for p in self.price)):
            raise ValueError(f"judge price must be two numbers >= 0 (dollars per million prompt and completion "
                             f"tokens), found {self.price!r}")

    @property
    def unit(self):
        return "tokens" if self.price is None else "USD"

    def cost(self, counts):
        if self.price is None:
            return counts["total_tokens"]
        prompt_price, completion_price = self.price  # reasoning tokens are billed as completion tokens
        return (counts["prompt_tokens"] * prompt_price + counts["completion_tokens"] * completion_price) / 1e6


class OpenAIJudge:
    """An OpenAI-compatible chat-completions judge; by default the official TSVer pipeline's protocol.

    One POST per claim to ``{base_url}/chat/completions`` (httpx) with the body ``protocol.body``
    builds: by default exactly the official one (TEMPLATE_EV2R in one user message, the model, the
    ``reasoning`` field), read the official way (``parse_official_reply``), three attempts
    (``max_retries=2``), then the claim is left out, reported. ONE total deadline per request,
    ``timeout`` seconds, whatever the server does: it runs in a worker thread and the caller stops
    waiting then. HTTP 408/409/429/5xx, timeouts, connection errors and unreadable replies are retried,
    waiting ``backoff``, ``2 * backoff``... seconds (at least Retry-After, at most ``timeout`` and 60 s);
    other HTTP errors fail at once. A Retry-After longer than ``timeout`` fails the claim at once ("rate
    limited"); after ``RATE_LIMITED_CLAIMS`` such claims in a row, or one claim failing every attempt
    before any answer (a dead server), the remaining claims fail at once. At most ``concurrency``
    requests run at once; results never depend on completion order. Replies are cached under
    ``cache_dir`` (None: no cache), keyed by the request body and the judge sample, never the URL;
    failures are not. ``usage`` sums every answer's token counts; a ``budget`` stops sending before it
    could be exceeded. The API key (environment variable ``api_key_env``, None: no key) is never shown,
    in any form; the card's "Limits and bad input" lists how.
    """

    def __init__(self, base_url=OPENROUTER_URL, model=OFFICIAL_MODEL, api_key_env="OPENROUTER_API_KEY",
                 cache_dir=DEFAULT_CACHE_DIR, max_retries=OFFICIAL_ATTEMPTS - 1, timeout=60.0, concurrency=8,
                 protocol=None, samples=1, budget=None, progress=True, backoff=1.0, **request):
        httpx = _httpx()
        _check_settings(concurrency=concurrency, max_retries=max_retries, timeout=timeout, backoff=backoff,
                        samples=samples)
        _check_options(model, cache_dir, budget, protocol, request)
        self.protocol = protocol if protocol is not None else Protocol(**request)  # TypeError for a foreign name
        self.url = _check_url(base_url).rstrip("/") + "/chat/completions"
        self.shown_url = _masked(self.url)  # the URL as shown in messages: user:password@ hidden
        self.model = model
        self.api_key_env = api_key_env
        self.cache_dir = None if cache_dir is None else pathlib.Path(cache_dir)
        self.max_retries = max_retries
        self.timeout = float(timeout)
        self.concurrency = concurrency
        self.samples = samples
        self.budget = budget
        self.progress = progress
        self.backoff = float(backoff)
        self.usage = JudgeUsage()
        self._spent = 0.0  # budget units spent
        self._per_character = self._completion = None  # the most prompt tokens per character and completion tokens seen
        self._slots = threading.BoundedSemaphore(concurrency)
        self._lock = threading.Lock()
        self._key = None
        self._answered, self._in_a_row, self._down = False, 0, None  # a dead server fails the run fast
        self._limited_in_a_row = 0  # claims rate-limited on every attempt, since the last answer
        self._client = httpx.Client(timeout=httpx.Timeout(self.timeout), follow_redirects=False)

    @property
    def requests_made(self):
        """HTTP requests sent (attempts), for cost accounting."""
        return self.usage.requests

    @property
    def signature(self):
        """Everything that changes the judge's numbers, without "|" (results' signatures use it)."""
        return f"openai(model={self.model},{self.protocol.describe(self.max_retries + 1, self.samples)})"

    def __repr__(self):
        return (f"OpenAIJudge(url={self.shown_url!r}, model={self.model!r}, api_key_env={self.api_key_env!r}, "
                f"cache_dir={str(self.cache_dir) if self.cache_dir else None!r})")

    def request_body(self, claim, reference, prediction, sample=0):
        """The JSON body sent for one claim (and judge sample), as a dict."""
        return self.protocol.body(self.model, self.protocol.message(claim, reference, prediction), sample)

    def __call__(self, claim, reference, prediction, sample=0):
        body = self.request_body(claim, reference, prediction, sample)
        key = self.cache_key(claim, reference, prediction, sample, body)
        cached = self._read_cache(key, body, sample)
        if cached is not None:
            with self._lock:
                self.usage.cached_claims += 1
            return cached
        reply, response, usage = self._ask(body)
        self._write_cache(key, {"request": body, "sample": sample, "reply": reply, "response": response,
                                "usage": usage})
        return response

    def cached(self, claim, reference, prediction, sample=0):
        """Whether a valid cache entry answers this claim (what a dry run counts as free)."""
        body = self.request_body(claim, reference, prediction, sample)
        return self._read_cache(self.cache_key(claim, reference, prediction, sample, body), body, sample) is not None

    def _ask(self, body):
        """(reply text, parsed record, usage) after the retries; JudgeError when every attempt failed."""
        failure = None
        for attempt in range(self.max_retries + 1):
            if attempt:  # the backoff, at least Retry-After, at most the request deadline
                delay = min(self.timeout, 60.0, max(self.backoff * 2 ** (attempt - 1), failure.wait))
                logger.info("Ev2R judge: attempt %d/%d failed (%s); retrying in %.2f s",
                            attempt, self.max_retries + 1, failure, delay)
                time.sleep(delay)
            self._check_down()
            if attempt and self.budget is not None and self._spent + self._estimate(body["messages"][0]["content"]) > self.budget.limit:
                raise JudgeError(f"Ev2R judge not asked again: a retry could pass the judge budget of "
                                 f"{self.budget.limit:g} {self.budget.unit} (after: {failure})")
            try:
                content, usage = self._request(body)
                reply = self._redact(content)  # a key echoed back never reaches the cache
                response = self.protocol.read(reply, self._redact)  # nor does one escaped inside the JSON
            except BadRecord as err:
                raise JudgeError(f"the judge's record cannot be summed: {self._redact(str(err))}") from None
            except (_Retry, JudgeError) as err:  # JudgeError: an unreadable reply, the next may be readable
                failure = self._note_failure(err)
                continue
            except _Refused as err:
                raise JudgeError(f"Ev2R judge request refused: {err}") from None
            with self._lock:
                self._answered, self._limited_in_a_row = True, 0
            return reply, response, usage
        message = f"Ev2R judge failed after {self.max_retries + 1} attempts: {failure}"
        raise self._rate_limited(message) if failure.rate_limited else JudgeError(message)

    def _check_down(self):
        if self._limited_in_a_row >= RATE_LIMITED_CLAIMS:
            raise JudgeError(f"{RATE_LIMITED}: Ev2R judge not asked, {self._limited_in_a_row} claims in a row were "
                             "rate limited on every attempt")
        if self._down is not None:
            raise JudgeError(f"Ev2R judge not asked: no usable answer so far ({self._down})")

    def _note_failure(self, err):
        """A failed attempt as a _Retry (its reason redacted), counted toward the limits the class docstring gives."""
        failure = err if isinstance(err, _Retry) else _Retry(self._redact(str(err)))
        with self._lock:
            self.usage.failed_attempts += 1
        if failure.wait > self.timeout:  # waiting beyond the request deadline is not ours to do
            raise self._rate_limited(f"the server asks to wait {failure.wait:g} s (Retry-After), longer than the "
                                     f"{self.timeout:g} s request deadline: {failure}")
        with self._lock:
            if not self._answered and not failure.rate_limited:
                self._in_a_row += 1
                if self._in_a_row > self.max_retries:
                    self._down = str(failure)
        return failure

    def _rate_limited(self, message):
        with self._lock:
            self._limited_in_a_row += 1
        return JudgeError(f"{RATE_LIMITED}: {message}")

    def cache_key(self, claim, reference, prediction, sample=0, body=None):
        """The cache key: the request body as sent (prompt, model, every field) and the judge sample."""
        body = self.request_body(claim, reference, prediction, sample) if body is None else body
        return hashlib.sha256(json.dumps([body, sample], ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()

    def _api_key(self):
        with self._lock:
            if self._key is None and self.api_key_env is not None:
                secret = _Secret(os.environ.get(self.api_key_env) or "")
                if not secret.reveal():
                    raise ValueError(f"OpenAIJudge: the environment variable {self.api_key_env} holding the API "
                                     "key is not set (pass api_key_env=None for a server that needs no key)")
                if not secret.reveal().isascii() or not secret.reveal().isprintable():
                    raise ValueError(f"OpenAIJudge: the API key in {self.api_key_env} holds characters that cannot "
                                     "go in an HTTP header (it is not shown)")
                self._key = secret
            return self._key

    def _redact(self, text):
        return text if self._key is None else self._key.redact(text)

    def _headers(self):
        key = self._api_key()
        auth = {} if key is None else {"Authorization": "Bearer " + key.reveal()}
        return {"Content-Type": "application/json", **auth}

    def _send(self, headers, body):
        httpx = _httpx()  # (imported by __init__ already)
        deadline = time.monotonic() + self.timeout
        answer, cancelled = concurrent.futures.Future(), threading.Event()

        def work():  # a daemon thread: a server that never stops trickling cannot hold the process
            try:
                answer.set_result(_post(self._client, self.url, headers, body, deadline, cancelled))
            except BaseException as err:  # noqa: BLE001 - handed to the waiting caller
                answer.set_exception(err)

        threading.Thread(target=work, daemon=True, name="ev2r-judge-request").start()
        try:
            return answer.result(timeout=self.timeout)
        except (TimeoutError, concurrent.futures.TimeoutError, httpx.TimeoutException):  # 3.10: two TimeoutErrors
            cancelled.set()
            raise _Retry(f"no complete reply from {self.shown_url} within {self.timeout:g} s") from None
        except (httpx.HTTPError, OSError) as err:
            raise _Retry(self._redact(f"{type(err).__name__} from {self.shown_url}: {err}")) from None

    @property
    def spent(self):
        """What the run has spent so far, in the budget's unit (0 without a budget)."""
        return self._spent

    def cost_of(self, claim, reference, prediction, sample=0):
        """What judging one claim is assumed to cost, in the budget's unit: 0 when the cache answers it,
        else `_estimate` of its prompt."""
        if self.cached(claim, reference, prediction, sample):
            return 0.0
        return self._estimate(self.protocol.message(claim, reference, prediction))

    def _estimate(self, prompt_text):
        """What one request with this prompt is assumed to cost: the prompt at the most tokens per
        character seen so far (before any answer, half a token a character: twice a typical rate),
        plus a tenth (no tokenizer is exact), and the longest completion seen so far (before any
        answer, as long as the prompt)."""
        prompt = math.ceil(len(prompt_text) * 1.1 * (self._per_character or 0.5))
        completion = self._completion if self._completion is not None else prompt
        return self.budget.cost({"prompt_tokens": prompt, "completion_tokens": completion,
                                 "total_tokens": prompt + completion})

    def _account(self, body, usage):
        with self._lock:
            if usage is None:
                self.usage.unreported += 1
                return
            self.usage.add(usage)
            if self.budget is not None:
                self._spent += self.budget.cost(usage)
                per_character = usage["prompt_tokens"] / max(len(body["messages"][0]["content"]), 1)
                self._per_character = max(per_character, self._per_character or 0.0)
                self._completion = max(usage["completion_tokens"], self._completion or 0)

    def _request(self, body):
        """One attempt: (the answer's content, its usage or None)."""
        headers, payload = self._headers(), json.dumps(body).encode("utf-8")
        usage = None
        try:
            with self._slots:
                with self._lock:
                    self.usage.requests += 1
                status, answer_headers, raw = self._send(headers, payload)
            text = raw.decode("utf-8", "replace")
            try:
                answer = parse_json(text, "reply")
            except ValueError:
                answer = None
            if status < 400 and answer is not None:
                usage = self._usage(answer)
        finally:
            self._account(body, usage)
        if status >= 400:
            said = self._redact(text.strip())
            message = f"HTTP {status} from {self.shown_url}: {said[:200]}{'...' if len(said) > 200 else ''}"
            if status in _RETRY_STATUS or status >= 500:
                raise _Retry(message, _retry_after(answer_headers), rate_limited=status in _RETRY_STATUS)
            raise _Refused(message)
        try:
            content = answer["choices"][0]["message"]["content"]
        except (LookupError, TypeError):
            content = None
        if not isinstance(content, str):  # the text is not shown: it may echo anything
            raise _Retry(f"not a chat-completions answer from {self.shown_url} ({len(text):,} characters, not shown); "
                         "expected JSON with choices[0].message.content")
        return content, usage

    def _usage(self, answer):
        """The answer's usage; a shape we cannot read stops the run when a budget depends on it."""
        try:
            usage = read_usage(answer)
        except ValueError as err:  # the usage may echo the key: never shown unredacted
            if self.budget is not None:
                raise ValueError(f"{self._redact(str(err))}; the judge budget cannot be kept without it") from None
            logger.warning("Ev2R judge: %s; this request's tokens are not counted", self._redact(str(err)))
            return None
        if usage is None and self.budget is not None:
            raise ValueError(f"the judge at {self.shown_url} reports no token usage; the judge budget cannot be "
                             "kept without it (run without --judge-budget)")
        return usage

    def _cache_path(self, key):
        return self.cache_dir / key[:2] / f"{key}.json"

    def _read_cache(self, key, body, sample):
        """The cached response for `key` if its entry is whole and was written for exactly this request
        body and sample (an entry edited or copied from another claim would otherwise change a number)."""
        if self.cache_dir is None:
            return None
        path = self._cache_path(key)
        try:
            entry = parse_json(decode(_read_regular(path), path, expected="a UTF-8 JSON cache entry"), str(path))
            if not isinstance(entry, dict) or entry.get("request") != body or entry.get("sample") != sample:
                raise ValueError(f"{path}: the entry was written for another request")
            response = entry.get("response")
            if not isinstance(response, dict):
                raise ValueError(f"{path}: the entry has no response record")
            ev2r_counts(response, f"{path}: the cache entry's response")
            if self.protocol.prompt == "benchscore":
                validate_counts(response, f"{path}: the cache entry's response")
            return response
        except FileNotFoundError:
            return None
        except (ValueError, TypeError, JudgeError, OSError) as err:  # a damaged entry is asked again
            logger.warning("Ev2R judge: ignoring the unreadable cache entry %s (%s); asking the judge again", path, err)
            return None

    def _write_cache(self, key, entry):
        if self.cache_dir is None:
            return
        path = self._cache_path(key)
        text = json.dumps(entry, ensure_ascii=False, indent=1)
        if len(text.encode("utf-8")) > MAX_CACHE_BYTES:
            logger.info("Ev2R judge: reply not cached (its entry is over %d MiB)", MAX_CACHE_BYTES >> 20)
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(path, text)
        except OSError as err:  # the reply is scored all the same: only a rerun would ask again
            logger.warning("Ev2R judge: the judge cache %s could not be written (%s); this reply is not cached",
                           self.cache_dir, err.strerror or err)


def _read_regular(path):
    """The bytes of a cache entry that is a regular file (not a link, FIFO or device) of at most
    MAX_CACHE_BYTES; FileNotFoundError if absent, ValueError naming the file otherwise."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    if path.is_symlink():
        raise ValueError(f"{path}: a symbolic link; expected a regular cache file")
    with os.fdopen(os.open(path, flags), "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{path}: not a regular file; expected a JSON cache entry")
        if info.st_size > MAX_CACHE_BYTES:
            raise ValueError(f"{path}: {info.st_size:,} bytes; expected a cache entry of at most "
                             f"{MAX_CACHE_BYTES >> 20} MiB")
        data = handle.read(MAX_CACHE_BYTES + 1)
    if len(data) > MAX_CACHE_BYTES:
        raise ValueError(f"{path}: over {MAX_CACHE_BYTES >> 20} MiB; expected a smaller cache entry")
    return data


def _retry_after(headers):
    try:
        return max(0.0, float(headers.get("Retry-After", 0)))
    except (TypeError, ValueError):  # an HTTP date: fall back to our own backoff
        return 0.0


