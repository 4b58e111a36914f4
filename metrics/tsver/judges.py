"""Pluggable Ev²R judges for TSVer (stdlib only).

A *judge* is any callable ``judge(claim, reference, prediction) -> dict`` that returns the four
Ev²R counts (ints >= 0, under the official record keys ``COUNT_KEYS``; free-text keys may ride
along) or raises ``JudgeError``.  ``reference`` is all gold justifications joined with "\\n";
``prediction`` is the system's ``Explanation``.  A ``JudgeError`` is a *failure of one claim*: the
caller counts and reports it, never drops it silently.  Any other exception is a bug and propagates.

Judges provided here:
- ``RecordedJudge``: looks claims up in an official ``{"Claim", "ev2r_response"}`` JSONL file
  (``read_recorded``) or a mapping claim -> record;
- ``CallableJudge``: wraps any Python function and validates what it returns;
- ``OpenAIJudge``: an OpenAI-compatible ``/chat/completions`` judge over HTTP (urllib only) with
  our own one-shot prompt, retries, a concurrency limit, a progress bar and an on-disk cache.

``run_judge(judge, items)`` runs a judge over ``(claim, reference, prediction)`` items, in order,
and returns one ``JudgeOutcome`` per item.
"""

import dataclasses
import json
import os
from collections.abc import Mapping

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
    """The four counts of a judge's output as a dict of ints >= 0; raises JudgeError naming the key."""
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


def read_recorded(path):
    """Official Ev²R judge records ``{"Claim": str, "ev2r_response": {...}}`` (JSONL) by claim text.

    Returns ``{claim: ev2r_response}`` with each response as recorded (the raw dict: a missing count
    key is left missing, since the official aggregation counts it as 0).  A claim recorded twice:
    the later line wins (as for prediction lines), with a warning naming both lines.
    Raises ValueError naming the line for bad JSON, a missing key or a value of the wrong type.
    """
    raise NotImplementedError


class RecordedJudge:
    """A judge that returns the recorded Ev²R record of a claim (JudgeError if it has none).

    ``source`` is a path to an official JSONL file (see ``read_recorded``) or a mapping
    claim -> record.  Missing count keys come back as 0, as the official aggregation counts them.
    """

    signature = "recorded"

    def __init__(self, source):
        raise NotImplementedError

    def __call__(self, claim, reference, prediction):
        raise NotImplementedError


class CallableJudge:
    """Wraps ``fn(claim, reference, prediction) -> dict`` and validates its counts (JudgeError if bad)."""

    signature = "callable"

    def __init__(self, fn):
        raise NotImplementedError

    def __call__(self, claim, reference, prediction):
        raise NotImplementedError


class OpenAIJudge:
    """An OpenAI-compatible chat-completions judge with our own one-shot prompt.

    One request per claim to ``{base_url}/chat/completions`` (urllib only), ``temperature`` and
    ``seed`` sent unless None.  The reply's JSON (fenced ```json or bare) is parsed and validated;
    HTTP 429/5xx, timeouts, connection errors and malformed replies are retried ``max_retries``
    times with exponential backoff, then JudgeError.  At most ``concurrency`` requests run at
    once.  Successful replies are cached under ``cache_dir`` (None: no cache) keyed by a hash of
    model, prompt version and text, temperature, seed and the three inputs, so a rerun makes no
    request and gives the same numbers.  The API key is read from the environment variable
    ``api_key_env`` (None: no key, e.g. a local server) and is never logged, cached, or shown in
    errors or reprs.
    """

    def __init__(self, base_url, model, api_key_env="OPENAI_API_KEY", cache_dir=None, max_retries=3,
                 timeout=60.0, concurrency=4, temperature=0, seed=0, progress=True, backoff=1.0):
        raise NotImplementedError

    def __call__(self, claim, reference, prediction):
        raise NotImplementedError


def as_judge(judge):
    """A judge from what a user passes: a path (RecordedJudge), a mapping (RecordedJudge), a judge
    object of this module as is, or any other callable (CallableJudge)."""
    if isinstance(judge, (RecordedJudge, CallableJudge, OpenAIJudge)):
        return judge
    if isinstance(judge, (str, os.PathLike, Mapping)):
        return RecordedJudge(judge)
    if callable(judge):
        return CallableJudge(judge)
    raise TypeError(f"judge: expected a path, a mapping claim -> record or a callable, found {type(judge).__name__}")


def run_judge(judge, items, concurrency=None, progress=None):
    """Run ``judge`` over ``(claim, reference, prediction)`` items; one JudgeOutcome per item, in order.

    ``concurrency`` and ``progress`` default to the judge's own settings (1 and False for judges
    without them).  JudgeError becomes an outcome with ``error``; any other exception propagates.
    """
    raise NotImplementedError
