"""One JSONL line to orjson, where orjson reads it as `readers.parse_json` reads its text: the guard that
`readers.iter_jsonl` and the benchmarks' kernels share, with no error path of its own (`UNSURE`: take the
exact path, which gives the value or the located message).

Plain typed Python, compiled by mypyc when the package is built with a C compiler (setup.py), so that a
kernel looping over lines calls it without a Python frame per line.
"""

import importlib
from collections.abc import Iterator
from typing import Any, Final


def _optional_orjson() -> Any:
    """orjson, or None (the stdlib alone: every line takes the exact path). Imported by name, so that the
    compiler checks the same code where orjson is not installed."""
    try:
        return importlib.import_module("orjson")
    except ImportError:
        return None


orjson: Any = _optional_orjson()

MAX_DEPTH: Final = 64  # readers.MAX_DEPTH, the readers' limit (our deepest format, a judge's replies, needs 4)
# orjson reads an integer of more than 64 bits as a float, the stdlib as an int: text with a run of 19
# digits goes to the stdlib (found by mapping every digit to 0: bytes.translate is ~10x a regex here).
# Braces map to brackets in the same pass, so that a line's brackets are counted with one count.
GUARD_TABLE: Final = bytes.maketrans(b"123456789{", b"000000000[")
LONG_INTEGER: Final = b"0" * 19
UNSURE: Final = object()


def block_guards(block: bytes) -> bytes:
    """The guards of a block of lines: one translated copy of it, read line by line by `guarded_loads`."""
    return block.translate(GUARD_TABLE)


def guarded_loads(raw: bytes, guards: bytes, start: int, long_integers: bool, max_depth: int) -> Any:
    """orjson's value of the line `raw`, at `start` in its block, unless its span of the block's `guards`
    holds more brackets than `max_depth` (it may nest deeper than allowed) or (`long_integers`: the block
    has one) a long integer; else, or where orjson refuses the line, `UNSURE`. orjson itself refuses what
    is not UTF-8, lone surrogate escapes, NaN and 1e400, and takes line ends as whitespace."""
    end = start + len(raw)
    if guards.count(b"[", start, end) > max_depth or long_integers and guards.find(LONG_INTEGER, start, end) >= 0:
        return UNSURE
    return loads(raw)


def value_within_depth(raw: bytes, max_depth: int) -> Any:
    """orjson's value of the line `raw` where it nests no deeper than `max_depth`, else `UNSURE`: the guard
    for a caller that walks the value anyway, and so needs no translated copy of its text. Unlike
    `guarded_loads`, an integer past 64 bits comes as orjson reads it, a float of magnitude 2**63 or more:
    such a caller takes no float that large (the stdlib reads an int there), and reads no other number."""
    value = loads(raw)
    return value if value is UNSURE or nests_within(value, max_depth) else UNSURE


def loads(raw: bytes) -> Any:
    """orjson's value of `raw`, or `UNSURE` where it refuses it: no guard at all (for a caller that checks
    the value's depth itself, and reads no number past 2**63, as `value_within_depth` says)."""
    if orjson is None:
        return UNSURE
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return UNSURE


def nests_within(value: Any, levels: int) -> bool:
    """Whether lists and objects nest at most `levels` deep in `value` (a parsed JSON value: `readers._depth`)."""
    if type(value) is dict:
        return _dict_within(value, levels)
    return _list_within(value, levels) if type(value) is list else True


# A scalar nests nowhere: the walks below look at a child's type before calling into it (most values of a
# line are scalars; a call per value was a fifth of a walk).
def _dict_within(value: dict, levels: int) -> bool:
    if levels == 0:
        return False
    for child in value.values():
        if (type(child) is dict or type(child) is list) and not nests_within(child, levels - 1):
            return False
    return True


def _list_within(value: list, levels: int) -> bool:
    if levels == 0:
        return False
    for child in value:
        if (type(child) is dict or type(child) is list) and not nests_within(child, levels - 1):
            return False
    return True


# A benchmark's typed lines (its `line_types`, msgspec types of the lines its files hold), tried before orjson
NOT_DECODED: Final = object()  # a line the decoder refused, or was not asked to decode
DECODE_TRIES: Final = 100  # refusals in a run after which no decoder is tried: files of another shape cost as before


class TypedLines:
    """The tries of a command's msgspec decoders at its lines: `decode` gives a line's typed value, or
    `NOT_DECODED` where the decoder refuses it (the caller reads it by orjson instead). After `DECODE_TRIES`
    refusals in a run, or with no `error` (msgspec not installed), nothing is tried (`tries` is 0)."""

    def __init__(self, error: Any) -> None:
        self.error = error  # msgspec.DecodeError (its ValidationError too), or None
        self.tries = 0 if error is None else DECODE_TRIES

    def decode(self, decoder: Any, raw: bytes) -> Any:
        if self.tries == 0:
            return NOT_DECODED
        try:
            return decoder.decode(raw)
        except self.error:
            self.tries -= 1
            return NOT_DECODED


def is_blank(raw: bytes) -> bool:
    """Whether the exact path skips the line `raw` as blank for certain: ASCII whitespace alone, which its
    `str.strip` strips too (it strips more, such as a no-break space, which is left to it)."""
    return not raw.strip()


def next_line(block: bytes, start: int) -> tuple[bytes, int]:
    """(the line of `block`, lines joined by LF, at `start`; where the next one starts, past the end after the
    last): found by `find` (memchr), where `bytes.split` compares each byte in a loop and builds a list
    (measured 3.7x its cost in a command's lockstep over two files)."""
    end = block.find(b"\n", start)
    if end < 0:
        end = len(block)
    return block[start:end], end + 1


class BlockLines:
    """A file's lines one at a time, from its blocks of lines (`readers._iter_raw_blocks(path, numbered=False)`),
    each found by `next_line` rather than split into a list, skipping those of ASCII white space alone
    (`is_blank`: what the readers skip for certain; a line of other white space is not skipped here, and a
    kernel leaves it to the readers)."""

    def __init__(self, blocks: Iterator[Any]) -> None:
        self.blocks = blocks
        self.block = b""
        self.start = 1  # where the block's next line starts: past its end, so the first call reads a block

    def next_line(self) -> bytes | None:
        """The next non-blank line, or None at the end of the file."""
        while True:
            if self.start > len(self.block):
                found = next(self.blocks, None)
                if found is None:
                    return None
                self.block, self.start = found[1], 0
            raw, self.start = next_line(self.block, self.start)
            if not is_blank(raw):
                return raw
