"""A gold line and a prediction line as the official files write them, as msgspec types: where msgspec is
installed (the `fast` extra), the command's in-step read (`kernel.paired_rows`) decodes each pair of lines
into them in C, with every field's type checked on the way, in place of orjson's dicts and the kernel's
checks and depth walk over them. A pair they do not take (a field outside them, a value of another type,
anything msgspec refuses) is read by orjson as before, so they decide nothing: they only skip work.

What they take, msgspec reads as the stdlib reads it (checked in `tests/test_speedups.py`): strings, and
years as `int` (an integer of any length stays an `int`; a float or a bool is refused). No field outside
them (`forbid_unknown_fields`), so a line they take nests four deep at most (`DEPTH`: the line, its series
dict, a series' list of ranges, a range). Series keep the official form, dicts of lists of
{"from": year, "to": year} dicts, which the kernel still checks for exactly those two keys and int32
years (`kernel.plain_series`). They are not compiled: mypyc does not build msgspec's types.
"""

from typing import Any, Final, NamedTuple, Optional

try:
    import msgspec
except ImportError:  # orjson alone: the in-step read parses every line as it did before
    msgspec = None  # type: ignore[assignment]

DEPTH: Final = 4

Series = dict[str, list[dict[str, int]]]


class Decoders(NamedTuple):
    """What `kernel.paired_rows` decodes a pair of lines with."""
    gold: Any  # msgspec.json.Decoder(Gold)
    prediction: Any  # msgspec.json.Decoder(Prediction)
    error: Any  # msgspec.DecodeError: what either raises for a line it does not take (its ValidationError too)


def decoders(max_depth: int) -> Decoders | None:
    """The decoders for `kernel.paired_rows`, or None where msgspec is not installed or the readers' depth limit
    is below what these types hold."""
    if msgspec is None or max_depth < DEPTH:
        return None
    return Decoders(msgspec.json.Decoder(Gold), msgspec.json.Decoder(Prediction), msgspec.DecodeError)


if msgspec is not None:
    class Gold(msgspec.Struct, forbid_unknown_fields=True, gc=False):
        """A gold claim: the four fields `scoring.check_gold` reads, and the official file's other four."""
        Claim: str
        Verdict: str
        TimeSeries: Series
        Justifications: list[str]
        Claimant: Optional[str] = None
        Date: Optional[str] = None
        Publisher: Optional[str] = None
        URL: Optional[str] = None

    class Prediction(msgspec.Struct, forbid_unknown_fields=True, gc=False):
        """A prediction: the four fields `files._prediction` reads, each there (two may be null, as
        `kernel.plain_prediction` asks), and those the official baseline writes beside them."""
        Claim: str
        Verdict: str
        PredictedTimeRanges: Optional[Series]
        Explanation: Optional[str]
        Claimant: Optional[str] = None
        Date: Optional[str] = None
        PredictedTimeSeries: Optional[list[str]] = None
        PredictedCountries: Optional[list[str]] = None
