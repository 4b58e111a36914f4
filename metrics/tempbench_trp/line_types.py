"""A question line and a run line as the benchmark writes them, as msgspec types: where msgspec is installed
(the `fast` extra), the command's lockstep (`kernel.Lockstep`) decodes each line into them in one C call,
which checks every field's type on the way, in place of orjson's dicts and the kernel's checks and depth
walk over them. A line they do not take (a field outside them, a value of another type, anything msgspec
refuses) is read by orjson as before, so they decide nothing: they only skip work.

What they take, msgspec reads as the stdlib reads it (the values the checked path would see, checked in
`tests/test_speedups.py`): strings, and numbers as `int` or `float` (an integer of any length stays an
`int`; 1e400 is refused where the stdlib reads inf). No field outside them (`forbid_unknown_fields`), so a
line they take nests three deep at most and needs no depth walk (`DEPTH`). They are not compiled: mypyc
does not build msgspec's types, and the kernel reads their fields by name.
"""

from typing import Any, Final, NamedTuple, Optional, Union

try:
    import msgspec
except ImportError:  # orjson alone: the lockstep reads every line as it did before
    msgspec = None  # type: ignore[assignment]

DEPTH: Final = 3  # a line these types take: an object, a list of triples, a triple (or a 5-tuple item)

Number = Union[int, float, None]


class Decoders(NamedTuple):
    """What `kernel.Lockstep` decodes lines with, and the types it tells apart by `type(...) is`."""
    question: Any  # msgspec.json.Decoder(Question)
    run_line: Any  # msgspec.json.Decoder(RunLine)
    error: Any  # msgspec.DecodeError: what either raises for a line it does not take (its ValidationError too)
    question_type: Any
    run_line_type: Any
    triple_type: Any


def decoders(max_depth: int) -> Decoders | None:
    """The decoders for `kernel.Lockstep`, or None where msgspec is not installed or the readers' depth limit
    is below what these types hold."""
    if msgspec is None or max_depth < DEPTH:
        return None
    return Decoders(msgspec.json.Decoder(Question), msgspec.json.Decoder(RunLine), msgspec.DecodeError, Question,
                    RunLine, Triple)


if msgspec is not None:
    class Triple(msgspec.Struct, forbid_unknown_fields=True, gc=False):
        """A gold, distractor or stale triple, or a retrieved item written as an object: either space's names."""
        s: Optional[str] = None
        r: Optional[str] = None
        o: Optional[str] = None
        s_id: Optional[str] = None
        r_id: Optional[str] = None
        o_id: Optional[str] = None
        t_start: Number = None
        t_end: Number = None

    class Question(msgspec.Struct, forbid_unknown_fields=True, gc=False):
        """A question line: `files.question_record`'s documented fields, none other."""
        id: str
        t_query: Union[int, float]
        S_star: list[Triple]
        question: Optional[str] = None
        complexity: Optional[str] = None
        operator_type: Optional[str] = None
        split: Optional[str] = None
        S_dist: Optional[list[Triple]] = None
        S_stale: Optional[list[Triple]] = None

    class RunLine(msgspec.Struct, forbid_unknown_fields=True, gc=False):
        """A run line: an id and its evidence (objects, or (s, r, o, t_start, t_end) arrays), with the fields
        the benchmark's runs carry beside them (`retriever`, `space`, `mixed_from`), which nothing reads."""
        id: str
        evidence: list[Union[Triple, tuple[str, str, str, Number, Number]]]
        retriever: Optional[str] = None
        space: Optional[str] = None
        mixed_from: Optional[str] = None
