"""The project's one way to read text, TSV and JSONL files, and to say where an input is wrong.

Every input error (`InputError`, a `ValueError`; the CLI prints it as one line, exit status 2) reads
`FILE:LINE: found; expected` (LINE from 1) or `example N: found; expected` (N from 0, like a list).
The readers refuse what could silently change a number: bytes that are not UTF-8, NaN or Infinity in
JSON (Python's `json` accepts them), nesting deeper than `MAX_DEPTH`, lines over `MAX_LINE_BYTES`.
A leading UTF-8 byte-order mark is dropped (with it, the first field would silently differ).
JSON is parsed by orjson where it is installed (the `fast` extra; about twice the stdlib's speed),
and by the stdlib's `json` otherwise, with the same values and the same messages (see `_loads`).
"""

import json
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from benchscore.core import json_kernel

MAX_LINE_BYTES = 64 << 20  # one line of any input file: 64 MiB
_UMASK = os.umask(0o022)
os.umask(_UMASK)  # read once (a umask cannot be read without setting it)
MAX_DEPTH = json_kernel.MAX_DEPTH  # JSON nesting: our deepest format (a judge's replies) needs 4
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")

orjson: Any
try:
    import orjson
except ImportError:  # the stdlib alone: same values, same messages
    orjson = None


class _Located(Exception):
    """An input error that carries where it is (`example`, the 0-based index of an in-memory example;
    or `path` and `line`, 1-based) and what (`detail`), so that code that shows it elsewhere (a
    Space naming table rows) reads fields, never the text back. The text starts with the place:
    `FILE:LINE: detail`, `example N: detail` (or `label: detail`)."""

    def __init__(self, detail: str, *, example: int | None = None, path: str | os.PathLike | None = None,
                 line: int | None = None, label: str | None = None) -> None:
        self.detail, self.example, self.path, self.line = detail, example, path, line
        where = label or (f"example {example}" if example is not None else f"{path}:{line}" if path is not None else "")
        super().__init__(f"{where}: {detail}" if where else detail)


class InputError(_Located, ValueError):
    """A located input error (a value): see `_Located`."""


class InputTypeError(_Located, TypeError):
    """A located input error (a type): see `_Located`."""


def at_line(path: str | os.PathLike, line: int, message: str) -> InputError:
    """`InputError` for line `line` (1-based) of file `path`."""
    return InputError(message, path=path, line=line)


def at_example(index: int, message: str, kind: type[_Located] = InputError) -> _Located:
    """`kind` (`InputError` or `InputTypeError`) for the in-memory example at `index` (0-based)."""
    return kind(message, example=index)


def in_example(err: Exception, index: int, label: str | None = None) -> _Located:
    """`err` (a ValueError or TypeError) located in the example at `index`: the same kind, its text after
    `example N: ` (or `label: `)."""
    kind = InputTypeError if isinstance(err, TypeError) else InputError
    return kind(str(err), example=index, label=label)


def check_item_stats(stats: Sequence, kind: type, expected: str) -> list:
    """`stats` (as a list) when every item is a `kind`, else a `TypeError` naming the first that is not
    (`expected`: how the message names `kind`, e.g. "an <benchmark> ItemStats"). One pass over the items' types
    (in C), before any number is summed: a type check, never an `AttributeError` caught on the way, which
    would read a bug of ours as the user's."""
    if not all(issubclass(item_type, kind) for item_type in set(map(type, stats))):
        index, item = next((i, item) for i, item in enumerate(stats) if not isinstance(item, kind))
        raise at_example(index, f"the statistics are {type(item).__name__} {shown(item)}; expected {expected} "
                                "(from item_stats)", InputTypeError)
    return stats if isinstance(stats, list) else list(stats)


def shown(value: object, limit: int = 40) -> str:
    """`value` for a message: its repr, cut after `limit` characters (a huge text or integer stays short)."""
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}... ({len(value):,} characters)"
    try:
        text = repr(value)
    except ValueError:  # an integer with more digits than int -> str allows
        if not isinstance(value, int):
            raise
        return f"an integer of {value.bit_length():,} bits"
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def decode(raw: bytes, path: str | os.PathLike, line: int = 1, expected: str = "a UTF-8 text file") -> str:
    """`raw` (bytes of `path` from line `line` on) as text, or `InputError` at the first byte that is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line += raw.count(b"\n", 0, err.start)
        column = err.start - raw.rfind(b"\n", 0, err.start)
        raise at_line(path, line, f"byte {raw[err.start]:#04x} at column {column} is not UTF-8; "
                                  f"expected {expected}") from None


def write_atomically(path: str | os.PathLike, text: str) -> None:
    """Writes `text` (UTF-8) to a temporary file beside `path`, then renames it into place, so that a
    concurrent reader or a killed run never sees half a file and a failed write leaves the old one."""
    folder = os.path.dirname(os.path.abspath(path))
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=folder, delete=False, suffix=".tmp") as out:
        out.write(text)
    try:
        os.chmod(out.name, 0o666 & ~_UMASK)  # the temporary file is private; the output is an ordinary file
        os.replace(out.name, path)
    except BaseException:
        os.unlink(out.name)
        raise


def check_output(output: str | os.PathLike | None, *inputs: object) -> None:
    """Refuses an output path that is one of the input files (not paths: skipped), before anything is written."""
    for path in inputs:
        if output and isinstance(path, (str, os.PathLike)) and os.path.exists(output) and os.path.exists(path) \
                and os.path.samefile(output, path):
            raise at_line(output, 1, f"the output file is the input file {path}; expected another path (writing "
                                     "there would overwrite the input file)")


def check_writable(path: str | os.PathLike | None) -> None:
    """An output file name checked before any work: not a folder, in a folder that exists and can be written."""
    if path is None:
        return
    if os.path.isdir(path):
        raise ValueError(f"{path}: is a folder; expected a file to write")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"{path}: the folder {folder} does not exist; expected a writable place for the output")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise ValueError(f"{path}: cannot be written (permission denied); expected a writable file")


def iter_lines(path: str | os.PathLike) -> Iterator[tuple[int, str]]:
    """(line number, text) for each line of a UTF-8 file, without its line end (LF or CRLF)."""
    for number, lines in iter_line_blocks(path):
        yield from enumerate(lines, number)


def iter_line_blocks(path: str | os.PathLike) -> Iterator[tuple[int, list[str]]]:
    """`iter_lines` a block at a time: (number of the block's first line, its lines' texts), so that a
    reader loops over a list instead of resuming a generator per line. Each error is raised after the
    lines before it were given, as `iter_lines` gives them."""
    for number, block in _iter_raw_blocks(path):
        try:
            text = block.decode("utf-8")
        except UnicodeDecodeError:  # the lines before the bad one, then its located message
            *before, bad = _lines_to_bad_utf8(block)
            yield number, [raw.decode("utf-8").removesuffix("\r") for raw in before]
            _line_text(bad, path, number + len(before))  # raises
            raise AssertionError("unreachable: _line_text refuses a line that is not UTF-8") from None
        lines = text.split("\n")
        yield number, [line.removesuffix("\r") for line in lines] if "\r" in text else lines


def _lines_to_bad_utf8(block):
    """The lines of `block` up to and including the first that is not UTF-8."""
    lines = block.split(b"\n")
    for index, raw in enumerate(lines):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return lines[:index + 1]
    raise AssertionError("unreachable: the block holds a line that is not UTF-8")


# What a block reader reads at a time: 64 KiB measured faster than 8 KiB or 1 MiB (a block stays in the
# cache while it is decoded and split). A longer line is carried on to the next reads.
BLOCK_BYTES = 1 << 16


def _iter_raw_blocks(path, numbered=True, split=False):
    """(number of the first line, bytes of one or more whole lines joined by LF, without the last line end)
    per block of a file, a UTF-8 byte order mark removed; a line longer than `MAX_LINE_BYTES` (its line
    end counted, as `readline` counts it) is refused once the lines before it were given. Unless
    `numbered`, nothing counts lines (a byte-by-byte loop in CPython): every number after the first
    block's is 0, for a reader that leaves any error to a second, numbered read (a kernel's lockstep).
    With `split`, each block comes as its list of lines, which numbers the next block (no count)."""
    if not stat.S_ISREG(os.stat(path).st_mode):  # checked before opening: a FIFO blocks, a device never ends
        raise at_line(path, 1, "this is not a regular file (a pipe, device or folder); expected a text file")
    with open(path, "rb") as f:
        number, carried, carried_bytes = 1, [], 0  # the start of a line whose end is not read yet
        while chunk := f.read(BLOCK_BYTES):
            end = chunk.rfind(b"\n")
            if end < 0:
                carried.append(chunk)
                carried_bytes += len(chunk)
                if carried_bytes > MAX_LINE_BYTES:
                    raise _too_long(path, number)
                continue
            block = b"".join((*carried, chunk[:end])) if carried else chunk[:end]
            carried, carried_bytes = ([chunk[end + 1:]], len(chunk) - end - 1) if end + 1 < len(chunk) else ([], 0)
            if len(block) >= MAX_LINE_BYTES:  # only then can a line be too long
                yield from _refuse_long_line(path, number, block, split)
            number = yield from _given(number, block, numbered, split)
        if carried:
            block = b"".join(carried)
            if len(block) > MAX_LINE_BYTES:
                raise _too_long(path, number)
            yield from _given(number, block, numbered, split)


def _given(number, block, numbered, split):
    """Gives `block`, which starts at line `number`, as `_iter_raw_blocks` gives it (split or not, its BOM
    removed); returns the number of the line after it: split, counted by the split itself."""
    block = _without_bom(number, block)
    if split:
        lines = block.split(b"\n")
        yield number, lines
        return number + len(lines)
    yield number, block
    return _next_number(number, block, numbered)


def _next_number(number, block, numbered):
    """The number of the line after `block`'s, which starts at line `number`; unnumbered, 0 (not 1, whose BOM is dropped)."""
    return number + block.count(b"\n") + 1 if numbered else 0


def _without_bom(number, block):
    return block[3:] if number == 1 and block.startswith(b"\xef\xbb\xbf") else block


def _refuse_long_line(path, number, block, split=False):
    """Nothing if no line of `block` (each followed by a line end) is longer than `MAX_LINE_BYTES`; else
    the lines before the first such line as one block (`_given`), then its error."""
    lines = block.split(b"\n")
    for index, raw in enumerate(lines):
        if len(raw) + 1 > MAX_LINE_BYTES:
            if index:
                yield from _given(number, b"\n".join(lines[:index]), True, split)
            raise _too_long(path, number + index)


def _line_text(raw, path, number):
    return decode(raw, path, number).rstrip("\n").removesuffix("\r")


def _too_long(path, number):
    return at_line(path, number, f"the line is longer than {MAX_LINE_BYTES >> 20} MiB; expected one record per line")


def iter_tsv(path: str | os.PathLike, fields: Sequence[str], what: str) -> Iterator[tuple[int, dict[str, str]]]:
    """(line number, {field: text}) for each line of a tab-separated file with exactly `fields`."""
    seen = False
    for number, line in iter_lines(path):
        values = line.split("\t")
        if len(values) != len(fields):
            raise at_line(path, number, f"found {len(values)} tab-separated fields; expected {len(fields)} "
                                        f"({' TAB '.join(fields)}) in {what}")
        seen = True
        yield number, dict(zip(fields, values))
    if not seen:
        raise at_line(path, 1, f"the file is empty; expected {what}")


def _refuse_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def _depth(value):
    """How deeply lists and objects nest in a parsed JSON value (iteratively: no recursion limit)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (list, dict)):
            deepest = max(deepest, depth)
            if deepest > MAX_DEPTH:
                return deepest
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


def _loads(text: str) -> Any:
    """The stdlib's `json.loads` (NaN and Infinity refused), by orjson where it gives the same value.

    orjson refuses all that the stdlib refuses here and more (a lone surrogate escape, 1e400, nesting
    past 1024): whatever it refuses is read again by the stdlib, so every message, and every value
    the stdlib accepts, is the stdlib's."""
    if orjson is not None:
        value = _orjson_value(text.encode("utf-8", "surrogatepass"))  # (no lone surrogate comes from a file)
        if value is not _UNSURE:
            return value
    return json.loads(text, parse_constant=_refuse_constant)


def _orjson_value(raw: bytes) -> Any:
    """orjson's value of `raw` where it is the stdlib's (no integer orjson would read as a float), else `_UNSURE`."""
    if json_kernel.LONG_INTEGER in json_kernel.block_guards(raw):
        return _UNSURE
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _UNSURE


_UNSURE = json_kernel.UNSURE


def parse_json(text: str, where: str) -> Any:
    """One JSON value from `text`, or `InputError` prefixed by `where` (e.g. `FILE:LINE` or `example 3`)."""
    try:
        value = _loads(text)
    except RecursionError:
        raise InputError(f"{where}: JSON nested deeper than {MAX_DEPTH} levels; expected a flat record") from None
    except ValueError as err:  # JSONDecodeError, NaN/Infinity, integers of more than 4300 digits
        raise InputError(f"{where}: not valid JSON ({err}); expected one JSON value") from None
    # Cheap guard first: only text with many brackets can nest deeply.
    if text.count("[") + text.count("{") > MAX_DEPTH and _depth(value) > MAX_DEPTH:
        raise InputError(f"{where}: JSON nested deeper than {MAX_DEPTH} levels; expected a flat record")
    # JSON may escape half of a surrogate pair ("\ud800"), which is no text at all; checked only when
    # such an escape is there (a whole pair decodes to one character and passes).
    if _SURROGATE_ESCAPE.search(text):
        bad = invalid_text(value)
        if bad is not None:
            raise InputError(f"{where}: the string {shown(bad)} holds a lone surrogate; expected valid Unicode text")
    return value


def invalid_text(value: object) -> str | None:
    """The first string inside `value` (nested lists, tuples, dicts: keys too) that UTF-8 cannot encode, else None."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return None


def iter_jsonl(path: str | os.PathLike, what: str = "a JSON object", objects_only: bool = True) -> Iterator[tuple[int, Any]]:
    """(line number, record) for each non-blank line of a JSONL file; each record a JSON object.

    A line's bytes go to orjson where it reads them as `parse_json` would read their text: orjson refuses
    what is not UTF-8, lone surrogate escapes, NaN and 1e400 (read again on the exact path, which finds
    each its message), and takes line ends as whitespace. Two kinds of line go to the exact path first:
    one with an integer past 64 bits (`_orjson_value`'s guard) and one with more brackets than
    `MAX_DEPTH` (it may nest deeper than `parse_json` allows). Both are found in one translated copy of
    each block (`json_kernel.guarded_loads`), not one per line."""
    for first, block in _iter_raw_blocks(path):
        guards = json_kernel.block_guards(block) if orjson is not None else None
        long_integers = guards is not None and json_kernel.LONG_INTEGER in guards
        start = 0
        for number, raw in enumerate(block.split(b"\n"), first):
            record = _UNSURE if guards is None else \
                json_kernel.guarded_loads(raw, guards, start, long_integers, MAX_DEPTH)
            start += len(raw) + 1
            if record is _UNSURE:  # the exact path: decoded, blank lines skipped, every error located
                record = _exact_value(raw, path, number)
                if record is _UNSURE:
                    continue
            if objects_only and not isinstance(record, dict):
                raise at_line(path, number, f"found a JSON {type(record).__name__}; expected {what} per line")
            yield number, record


def _exact_value(raw: bytes, path: str | os.PathLike, number: int) -> Any:
    """The value of the line `raw` on the exact path (`parse_json` of its text: every error located), or
    `_UNSURE` for a blank line (skipped)."""
    line = _line_text(raw, path, number)
    return parse_json(line, f"{path}:{number}") if line.strip() else _UNSURE


def iter_checked_jsonl(path: str | os.PathLike, what: str, plain: Callable[[bytes, int], Any],
                       check: Callable[[dict, str], Any]) -> Iterator[tuple[int, Any]]:
    """(line number, checked record) for each non-blank line of a JSONL file of objects, as `check(record,
    "FILE:LINE")` of `iter_jsonl`'s record gives it. A kernel's `plain(raw line, MAX_DEPTH)` goes first:
    the checked record of a line it is sure of (parsed, within the depth and checked in one pass, with no
    guard over the text), else `json_kernel.UNSURE`, and that line takes the exact path and `check`.
    The errors come as from `read_jsonl` then `check` per record: a line that is not a JSON object
    anywhere in the file before the first record `check` refuses."""
    refused = None  # the first error of `check`, raised once every line is read
    for first, lines in _iter_raw_blocks(path, split=True):
        for number, raw in enumerate(lines, first):
            record = plain(raw, MAX_DEPTH) if orjson is not None else _UNSURE
            if record is _UNSURE:
                record = _exact_object(raw, path, number, what)
                if record is _UNSURE or refused is not None:
                    continue
                try:
                    record = check(record, f"{path}:{number}")
                except (TypeError, ValueError) as err:
                    refused = err
            if refused is None:
                yield number, record
    if refused is not None:
        raise refused


def _exact_object(raw: bytes, path: str | os.PathLike, number: int, what: str) -> Any:
    """`_exact_value` of a line that must be a JSON object (`what`), `_UNSURE` for a blank line."""
    record = _exact_value(raw, path, number)
    if record is not _UNSURE and not isinstance(record, dict):
        raise at_line(path, number, f"found a JSON {type(record).__name__}; expected {what} per line")
    return record


def read_jsonl(path: str | os.PathLike, what: str = "a JSON object", objects_only: bool = True,
               empty: str = "records") -> list:
    """Every record of a JSONL file as (line number, record); an empty file is an error ("has no <empty>")."""
    records = list(iter_jsonl(path, what, objects_only))
    if not records:
        raise at_line(path, 1, f"the file has no {empty}; expected {what} per line")
    return records
