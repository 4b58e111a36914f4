"""TSVer's official Ev²R judge prompt, read from the pinned official file without executing it.

The paper's Ev²R numbers come from `baseline/predict_ev2r.py`, which formats `TEMPLATE_EV2R` of
`baseline/prompt_templates.py` (marekstrong/TSVer at the commit `benchscore.data` pins). A different
prompt gives a number that is not comparable with them, so the prompt is official data: fetched,
sha256-checked and stored like the claims (`benchscore data fetch tsver`, `official:prompt_templates`),
and never copied into this project (its licence is the benchmark's, and a copy could drift).

The file is Python source, but running it would run whatever it holds, so it is parsed with `ast`
and only one shape is accepted, the shape of the pinned file:

    import textwrap
    NAME = textwrap.dedent(<one plain string literal>)      # as many as it has, TEMPLATE_EV2R once

Anything else (a function, an `if`, an f-string, `.format(...)`, `+`, a second import...) is refused
with one line, `FILE:LINE: found; expected`. For that shape the value is fully determined by the
literal, so `textwrap.dedent(literal)` is exactly the string Python would bind, with nothing run.
"""

import ast
import codecs
import functools
import os
import re
import stat
import string
import textwrap

from benchscore import data
from benchscore.core.readers import at_line, decode, shown

TEMPLATE_NAME = "TEMPLATE_EV2R"
TEMPLATE_FIELDS = ("claim_text", "reference_evidence", "predicted_evidence")
MAX_BYTES = 1 << 20  # the pinned file has 10,430 bytes; a template module far larger is not one

_SHAPE = 'expected only `import textwrap` and `NAME = textwrap.dedent("""...""")` statements'
_FIELDS_TEXT = ", ".join("{" + f + "}" for f in TEMPLATE_FIELDS)
# PEP 263: a coding declaration on line 1 or 2 makes Python decode the file with that codec.
_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_STATEMENTS = {  # how a refused top-level statement is named in the error
    ast.FunctionDef: "a function definition", ast.AsyncFunctionDef: "a function definition",
    ast.ClassDef: "a class definition", ast.Return: "a return statement", ast.Delete: "a del statement",
    ast.AugAssign: "an augmented assignment", ast.AnnAssign: "an annotated assignment",
    ast.For: "a for loop", ast.AsyncFor: "a for loop", ast.While: "a while loop", ast.If: "an if statement",
    ast.With: "a with statement", ast.AsyncWith: "a with statement", ast.Match: "a match statement",
    ast.Raise: "a raise statement", ast.Try: "a try statement", ast.Assert: "an assert statement",
    ast.ImportFrom: "a from-import", ast.Global: "a global statement", ast.Nonlocal: "a nonlocal statement",
    ast.Expr: "an expression statement", ast.Pass: "a pass statement", ast.Break: "a break statement",
    ast.Continue: "a continue statement",
}
if hasattr(ast, "TryStar"):  # Python 3.11+
    _STATEMENTS[ast.TryStar] = "a try statement"


def read_template(path: str | os.PathLike[str]) -> str:
    """`TEMPLATE_EV2R` of a TSVer prompt-template file, parsed (never imported or executed) and checked.

    Returns `textwrap.dedent(<its literal>)`, the string Python would bind, after checking that its
    replacement fields are exactly TEMPLATE_FIELDS (no other field, no conversion, no format spec:
    `official_prompt` fills those three and nothing else). Raises `ValueError`
    (`core.readers.InputError`) with one line `FILE:LINE: found; expected` for anything else.
    """
    path = os.fspath(path)
    tree, text = _parse(path, _read_source(path))
    literals, line = _template_literals(path, tree, text)
    template = textwrap.dedent(literals[TEMPLATE_NAME])
    _check_fields(path, line, template)
    return template


def _read_source(path: str) -> str:
    """The file's text as Python would decode it (UTF-8, a leading BOM dropped), size-checked first.

    The size is checked before reading because the file comes from outside (a store, a mirror);
    a coding declaration other than UTF-8 is refused since Python would then decode other text.
    """
    try:
        info = os.stat(path)
    except OSError as err:
        raise at_line(path, 1, f"cannot read the file ({err.strerror or err}); expected a TSVer "
                               "prompt-template file") from None
    if not stat.S_ISREG(info.st_mode):  # a FIFO would block, a device never end
        raise at_line(path, 1, "found no regular file (a pipe, device or folder); expected a Python file")
    if info.st_size > MAX_BYTES:
        raise at_line(path, 1, f"found a file of {info.st_size:,} bytes; expected at most {MAX_BYTES:,} "
                               "(1 MiB) for a prompt-template file")
    with open(path, "rb") as f:
        raw = f.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:  # it grew after the stat
        raise at_line(path, 1, f"found a file of more than {MAX_BYTES:,} bytes; expected at most 1 MiB")
    if b"\0" in raw:
        raise at_line(path, raw.count(b"\n", 0, raw.index(b"\0")) + 1, "found a NUL byte; expected Python source text")
    for number, first in enumerate(raw.split(b"\n", 2)[:2], 1):
        _check_coding(path, number, first)
    text = decode(raw, path, expected="a UTF-8 Python file")
    return text.removeprefix("\ufeff")  # Python drops a UTF-8 BOM; ast.parse of a str would refuse it


def _check_coding(path: str, number: int, line: bytes) -> None:
    found = _CODING.match(line)
    if found is None:
        return
    name = found.group(1).decode("ascii", "replace")
    try:
        codec = codecs.lookup(name).name
    except LookupError:
        codec = None
    if codec not in ("utf-8", "utf-8-sig"):
        raise at_line(path, number, f"found the encoding declaration {shown(name)}; expected UTF-8 (Python "
                                    "would decode other text than is read here)")


def _parse(path: str, text: str) -> tuple[ast.Module, str]:
    try:
        return ast.parse(text, filename=path), text
    except SyntaxError as err:
        raise at_line(path, err.lineno or 1, f"found invalid Python ({err.msg}); {_SHAPE}") from None
    except (RecursionError, MemoryError):
        raise at_line(path, 1, f"found code nested too deeply to parse; {_SHAPE}") from None


def _snippet(text: str, node: ast.AST) -> str:
    """The first line of `node`'s source, short, for an error message."""
    segment = ast.get_source_segment(text, node) or ""
    return shown(segment.split("\n", 1)[0])


def _template_literals(path: str, tree: ast.Module, text: str) -> tuple[dict[str, str], int]:
    """{name: string literal} of the module, checked statement by statement, and TEMPLATE_EV2R's line."""
    literals: dict[str, str] = {}
    imported = False
    template_line = None
    for node in tree.body:
        if isinstance(node, ast.Import):
            imported = _check_import(path, node, text, imported)
            continue
        if not isinstance(node, ast.Assign):
            kind = _STATEMENTS.get(type(node), f"a {type(node).__name__} statement")
            raise at_line(path, node.lineno, f"found {kind} {_snippet(text, node)}; {_SHAPE}")
        name = _check_target(path, node, text)
        if not imported:  # Python would fail here with a NameError: the value is not defined
            raise at_line(path, node.lineno, "found textwrap.dedent used before `import textwrap`; expected "
                                             "`import textwrap` first")
        if name == TEMPLATE_NAME:
            if template_line is not None:
                raise at_line(path, node.lineno, f"found a second assignment to {TEMPLATE_NAME} (the first is on "
                                                 f"line {template_line}); expected it assigned exactly once")
            template_line = node.lineno
        literals[name] = _dedent_literal(path, node.value, text)
    if template_line is None:
        raise at_line(path, 1, f"found no assignment to {TEMPLATE_NAME}; expected "
                               f'`{TEMPLATE_NAME} = textwrap.dedent("""...""")` once')
    return literals, template_line


def _check_import(path: str, node: ast.Import, text: str, imported: bool) -> bool:
    names = [(alias.name, alias.asname) for alias in node.names]
    if names != [("textwrap", None)]:
        raise at_line(path, node.lineno, f"found the import {_snippet(text, node)}; expected `import textwrap` "
                                         "only")
    if imported:
        raise at_line(path, node.lineno, "found a second `import textwrap`; expected it once")
    return True


def _check_target(path: str, node: ast.Assign, text: str) -> str:
    """The one plain name `node` assigns to (not `textwrap`, which later statements use)."""
    if len(node.targets) != 1:
        raise at_line(path, node.lineno, f"found a chained assignment to {len(node.targets)} targets "
                                         f"{_snippet(text, node)}; expected one name per assignment")
    target = node.targets[0]
    if not isinstance(target, ast.Name):
        raise at_line(path, node.lineno, f"found an assignment to {_snippet(text, target)} (not a plain name); "
                                         "expected `NAME = textwrap.dedent(...)`")
    if target.id == "textwrap":
        raise at_line(path, node.lineno, "found an assignment to the name `textwrap`; expected the module to "
                                         "stay bound")
    return target.id


def _is_dedent(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "dedent" and isinstance(func.value, ast.Name)
            and func.value.id == "textwrap")


def _dedent_literal(path: str, value: ast.expr, text: str) -> str:
    """The one plain str literal of `textwrap.dedent(<literal>)`, or the located refusal of what is there."""
    if not (isinstance(value, ast.Call) and _is_dedent(value.func)):
        raise at_line(path, value.lineno, f"found {_expression(value, text)} as the value; expected "
                                          'textwrap.dedent("""...""") of one string literal')
    if value.keywords:
        keyword = value.keywords[0]
        which = f"`{keyword.arg}=`" if keyword.arg else "`**`"
        raise at_line(path, keyword.lineno, f"found textwrap.dedent with the keyword argument {which}; expected "
                                            "one positional string literal")
    if len(value.args) != 1:
        raise at_line(path, value.lineno, f"found textwrap.dedent with {len(value.args)} positional arguments; "
                                          "expected one string literal")
    literal = value.args[0]
    if not (isinstance(literal, ast.Constant) and type(literal.value) is str):
        raise at_line(path, literal.lineno, f"found {_expression(literal, text)} passed to textwrap.dedent; "
                                            "expected one plain string literal")
    return literal.value


def _expression(node: ast.expr, text: str) -> str:
    """What an expression that is not the accepted shape is, in words, for an error message."""
    if isinstance(node, ast.JoinedStr):
        return "an f-string"
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bytes):
            return "a bytes literal"
        if isinstance(node.value, str):
            return "a plain string literal"
        return f"the constant {shown(node.value)}"
    if isinstance(node, ast.BinOp):
        symbol = {ast.Add: "+", ast.Mod: "%", ast.Mult: "*"}.get(type(node.op), type(node.op).__name__)
        return f"an operation `{symbol}` {_snippet(text, node)}"
    if isinstance(node, ast.Name):
        return f"the name `{node.id}`"
    if isinstance(node, ast.Call):
        return _call_words(node, text)
    if isinstance(node, ast.Starred):
        return "a starred argument"
    return f"an expression {_snippet(text, node)}"


def _call_words(node: ast.Call, text: str) -> str:
    func = node.func
    if isinstance(func, ast.Attribute):
        return f"a call of `.{func.attr}(...)`"
    if isinstance(func, ast.Name):
        return f"a call of `{func.id}(...)`"
    return f"a call {_snippet(text, node)}"


def _check_fields(path: str, line: int, template: str) -> None:
    """The replacement fields of `template` must be TEMPLATE_FIELDS exactly, each plain and present."""
    seen = set()
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as err:  # a lone "{" or "}"
        raise at_line(path, line, f"found a {TEMPLATE_NAME} that str.format refuses ({err}); expected the "
                                  f"fields {_FIELDS_TEXT} and doubled braces elsewhere") from None
    for _literal, field, spec, conversion in parsed:
        if field is not None:
            _check_field(path, line, field, spec, conversion)
            seen.add(field)
    missing = [f for f in TEMPLATE_FIELDS if f not in seen]
    if missing:
        raise at_line(path, line, f"found no field {{{missing[0]}}} in {TEMPLATE_NAME}; expected each of "
                                  f"{_FIELDS_TEXT}")


def _check_field(path: str, line: int, field: str, spec: str | None, conversion: str | None) -> None:
    if field not in TEMPLATE_FIELDS:
        raise at_line(path, line, f"found the field {shown('{' + field + '}')} in {TEMPLATE_NAME}; expected only "
                                  f"{_FIELDS_TEXT}")
    if spec or conversion:
        written = "{" + field + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
        raise at_line(path, line, f"found the field {shown(written)} in {TEMPLATE_NAME}, with a conversion or "
                                  f"format spec; expected the plain field {{{field}}}")


@functools.lru_cache(maxsize=8)
def _read_cached(path: str) -> str:
    # Safe to cache by path: data.resolve checks the stored file's pinned sha256 on every call, so
    # the text behind a resolved path cannot change while this cache holds it.
    return read_template(path)


def official_template() -> str:
    """The official `TEMPLATE_EV2R`, from the data store (`official:prompt_templates`, fetched on first
    use unless offline, where the error names `benchscore data fetch tsver`)."""
    return _read_cached(data.resolve("tsver", "official:prompt_templates"))


def official_prompt(claim: str, reference: str, prediction: str, template: str | None = None) -> str:
    """The judge prompt of one claim, as `baseline/predict_ev2r.py` builds it.

    The official pipeline passes the gold claim, the gold justifications joined by "\\n", and the
    prediction's Explanation; `template` defaults to `official_template()`.
    """
    if template is None:
        template = official_template()
    return template.format(claim_text=claim, reference_evidence=reference, predicted_evidence=prediction)
