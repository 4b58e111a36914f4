"""TSVer's official Ev²R prompt (`benchscore.tsver.prompt_template`): pinned official data, read without executing it.

The real template is read only through a data store filled from ../shared (or fetched from a
loopback mirror of it); its text never appears here. The hostile files are small synthetic
modules written to tmp_path, each refused with one `FILE:LINE: found; expected` line.
"""

import contextlib
import hashlib
import pathlib
import string

import pytest
from conftest import shared_path
from test_data_store import mirror, store  # noqa: F401 - the data-store tests' loopback mirror and empty store

from benchscore import data
from benchscore.cli import main
from benchscore.tsver import prompt_template

TSVER = data.BENCHMARKS["tsver"]
ENTRY = TSVER.files["prompt_templates"]
FIELDS = set(prompt_template.TEMPLATE_FIELDS)

# A synthetic template (not the official text): the three fields, once each, and doubled braces.
BODY = "Claim: {claim_text}\\nReference: {reference_evidence}\\nPrediction: {predicted_evidence}\\n{{}}"
ONE = f'TEMPLATE_EV2R = textwrap.dedent("{BODY}")'
MULTI = ('TEMPLATE_EV2R = textwrap.dedent(\n"""\\\n    Claim: {claim_text}\n      Reference: {reference_evidence}\n'
         '    Prediction: {predicted_evidence}\n    Answer as ```json {{"a": 1}}```\n""")')


@pytest.fixture(autouse=True)
def fresh_cache():
    prompt_template._read_cached.cache_clear()
    yield
    prompt_template._read_cached.cache_clear()


@pytest.fixture(scope="module")
def shared_data():
    return shared_path("data")


@pytest.fixture(scope="module")
def shared_template(shared_data):
    return shared_path("data", "tsver", ENTRY.shared)


@pytest.fixture
def filled_store(shared_data, tmp_path, monkeypatch):
    """A store filled from ../shared with `data.fill_from` (no network), offline as in CI."""
    monkeypatch.setenv("BENCHSCORE_DATA", str(tmp_path / "store"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    stored = data.fill_from(shared_data, ["tsver"], skip_sets=("time_series",))
    assert "prompt_templates" in stored["tsver"]
    return tmp_path / "store"


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def fields_of(template):
    return [(field, spec, conversion) for _, field, spec, conversion in string.Formatter().parse(template)
            if field is not None]


def python_value(path):
    """What Python itself binds to TEMPLATE_EV2R: the file executed in a throwaway namespace (tests only)."""
    namespace = {}
    exec(compile(pathlib.Path(path).read_bytes(), str(path), "exec"), namespace)  # noqa: S102 - the reference
    return namespace["TEMPLATE_EV2R"]


def one_line_error(path, line, *words):
    """Reads `path` expecting one ValueError line `path:line: ...` naming each of `words`."""
    with pytest.raises(ValueError) as caught:
        prompt_template.read_template(path)
    message = str(caught.value)
    assert "\n" not in message, message
    assert message.startswith(f"{path}:{line}: "), message
    for word in words:
        assert word in message, (word, message)
    return message


# ------------------------------------------------------------------ the real template


@pytest.mark.parity
def test_real_template_through_a_store_filled_from_shared(filled_store, shared_template):  # noqa: F811 - the imported fixtures
    stored = data.resolve("tsver", "official:prompt_templates")
    assert pathlib.Path(stored).is_relative_to(filled_store)
    template = prompt_template.read_template(stored)
    assert {f for f, _, _ in fields_of(template)} == FIELDS
    assert all(spec == "" and conversion is None for _, spec, conversion in fields_of(template))
    assert prompt_template.official_template() == template
    # Python's own evaluation of the same file gives the same string (the library never executes it)
    assert python_value(stored) == template
    assert python_value(shared_template) == template
    prompt = prompt_template.official_prompt("Claim: CO2 {rose} 5% in 2020.", "Ref one.\nRef two.", "Pred: it {fell}.")
    assert "Claim: CO2 {rose} 5% in 2020." in prompt and "Ref one.\nRef two." in prompt and "Pred: it {fell}." in prompt
    assert prompt == template.format(claim_text="Claim: CO2 {rose} 5% in 2020.",
                                     reference_evidence="Ref one.\nRef two.", predicted_evidence="Pred: it {fell}.")
    assert prompt_template.official_prompt("c", "r", "p", template="{claim_text}|{reference_evidence}|{predicted_evidence}") \
        == "c|r|p"


@pytest.mark.parity
def test_the_pinned_entry_matches_the_shared_copy(shared_template):
    raw = shared_template.read_bytes()
    assert (ENTRY.path, len(raw), hashlib.sha256(raw).hexdigest()) == ("baseline/prompt_templates.py", ENTRY.size,
                                                                        ENTRY.sha256)
    assert "prompt_templates" in TSVER.default


@pytest.mark.parametrize("source", [
    "import textwrap\n\n" + MULTI + "\n",
    "import textwrap\r\n" + MULTI.replace("\n", "\r\n") + "\r\n",  # CRLF: Python reads LF inside the literal
    "\ufeffimport textwrap\n" + ONE + "\n",  # a UTF-8 BOM, which Python drops
    "# -*- coding: utf-8 -*-\nimport textwrap\nOTHER = textwrap.dedent('x')\n" + ONE + "\n",
    ('import textwrap\nTEMPLATE_EV2R = textwrap.dedent(\n    "  {claim_text}\\n"  \'  {reference_evidence}\\n\'\n'
     '    r"""  {predicted_evidence} \\d""" u"\\u00e9\\t\\x41")\n'),  # adjacent literals, raw, escapes
    "import textwrap\n# a comment\n\nA = textwrap.dedent('''a''')\n" + ONE + "\nB = textwrap.dedent('b')\n",
])
def test_accepted_files_give_exactly_what_python_binds(tmp_path, source):
    path = tmp_path / "prompt_templates.py"
    path.write_bytes(source.encode("utf-8"))
    template = prompt_template.read_template(path)
    assert template == python_value(path)
    assert {f for f, _, _ in fields_of(template)} == FIELDS


# ------------------------------------------------------------------ hostile files

IMPORT = "import textwrap\n"
HOSTILE = {
    "f-string": (IMPORT + 'TEMPLATE_EV2R = textwrap.dedent(f"{claim_text}")\n', 2, ["f-string"]),
    "format call": (IMPORT + f'TEMPLATE_EV2R = textwrap.dedent("{BODY}").format(claim_text="x")\n', 2,
                    ["`.format(...)`"]),
    "format on the literal": (IMPORT + f'TEMPLATE_EV2R = textwrap.dedent("{BODY}".format())\n', 2, ["`.format(...)`"]),
    "keyword": (IMPORT + f'TEMPLATE_EV2R = textwrap.dedent(text="{BODY}")\n', 2, ["keyword argument `text=`"]),
    "double-star keyword": (IMPORT + 'TEMPLATE_EV2R = textwrap.dedent(**{})\n', 2, ["keyword argument `**`"]),
    "two args": (IMPORT + f'TEMPLATE_EV2R = textwrap.dedent("{BODY}", "x")\n', 2, ["2 positional arguments"]),
    "no args": (IMPORT + "TEMPLATE_EV2R = textwrap.dedent()\n", 2, ["0 positional arguments"]),
    "starred": (IMPORT + "TEMPLATE_EV2R = textwrap.dedent(*X)\n", 2, ["starred"]),
    "bytes": (IMPORT + f'TEMPLATE_EV2R = textwrap.dedent(b"{BODY}")\n', 2, ["bytes literal"]),
    "number": (IMPORT + "TEMPLATE_EV2R = textwrap.dedent(3)\n", 2, ["constant 3"]),
    "twice": (IMPORT + ONE + "\n\n" + ONE + "\n", 4, ["second assignment to TEMPLATE_EV2R", "line 2"]),
    "zero times": (IMPORT + f'OTHER = textwrap.dedent("{BODY}")\n', 1, ["no assignment to TEMPLATE_EV2R"]),
    "empty file": ("", 1, ["no assignment to TEMPLATE_EV2R"]),
    "inside an if": (IMPORT + "if True:\n    " + ONE + "\n", 2, ["an if statement", "if True:"]),
    "inside a try": (IMPORT + "try:\n    " + ONE + "\nexcept Exception:\n    pass\n", 2, ["a try statement"]),
    "function beside it": (IMPORT + ONE + "\ndef helper():\n    return 1\n", 3, ["function definition", "def helper"]),
    "class beside it": (IMPORT + ONE + "\nclass C:\n    pass\n", 3, ["class definition"]),
    "print": (IMPORT + ONE + "\nprint(1)\n", 3, ["expression statement", "print(1)"]),
    "__import__": (IMPORT + '__import__("os")\n' + ONE + "\n", 2, ["expression statement", "__import__"]),
    "docstring": ('"""doc"""\n' + IMPORT + ONE + "\n", 1, ["expression statement"]),
    "from-import": ("from textwrap import dedent\n" + ONE + "\n", 1, ["from-import", "from textwrap import dedent"]),
    "second import": (IMPORT + IMPORT + ONE + "\n", 2, ["second `import textwrap`"]),
    "other import": ("import textwrap, os\n" + ONE + "\n", 1, ["import textwrap, os"]),
    "aliased import": ("import textwrap as textwrap\n" + ONE + "\n", 1, ["import textwrap as textwrap"]),
    "no import": (ONE + "\n", 1, ["before `import textwrap`"]),
    "import after use": (ONE + "\n" + IMPORT, 1, ["before `import textwrap`"]),
    "rebinding textwrap": (IMPORT + 'textwrap = textwrap.dedent("x")\n' + ONE + "\n", 2, ["the name `textwrap`"]),
    "concatenation": (IMPORT + 'TEMPLATE_EV2R = textwrap.dedent("{claim_text}" + "{reference_evidence}")\n', 2,
                      ["operation `+`"]),
    "percent": (IMPORT + 'TEMPLATE_EV2R = textwrap.dedent("%s" % "{claim_text}")\n', 2, ["operation `%`"]),
    "dedent of a dedent": (IMPORT + f'TEMPLATE_EV2R = textwrap.dedent(textwrap.dedent("{BODY}"))\n', 2,
                           ["call of `.dedent(...)`", "passed to textwrap.dedent"]),
    "a name": (IMPORT + f'OTHER = textwrap.dedent("{BODY}")\nTEMPLATE_EV2R = textwrap.dedent(OTHER)\n', 3,
               ["the name `OTHER`"]),
    "other call": (IMPORT + f'TEMPLATE_EV2R = str("{BODY}")\n', 2, ["call of `str(...)`"]),
    "other attribute call": (IMPORT + f'TEMPLATE_EV2R = textwrap.indent("{BODY}", "")\n', 2,
                             ["call of `.indent(...)`"]),
    "plain literal": (IMPORT + f'TEMPLATE_EV2R = "{BODY}"\n', 2, ["plain string literal as the value"]),
    "annotated": (IMPORT + f'TEMPLATE_EV2R: str = textwrap.dedent("{BODY}")\n', 2, ["annotated assignment"]),
    "augmented": (IMPORT + ONE + '\nTEMPLATE_EV2R += "{claim_text}"\n', 3, ["augmented assignment"]),
    "tuple target": (IMPORT + 'A, TEMPLATE_EV2R = textwrap.dedent("x"), textwrap.dedent("y")\n', 2,
                     ["'A, TEMPLATE_EV2R'", "not a plain name"]),
    "chained": (IMPORT + f'A = TEMPLATE_EV2R = textwrap.dedent("{BODY}")\n', 2, ["chained assignment"]),
    "syntax error": (IMPORT + "TEMPLATE_EV2R = = 1\n", 2, ["invalid Python"]),
    "unterminated": (IMPORT + 'TEMPLATE_EV2R = textwrap.dedent("{claim_text}\n', 2, ["invalid Python"]),
    "unknown field": (IMPORT + 'TEMPLATE_EV2R = textwrap.dedent("{claim_text} {reference_evidence} '
                      '{predicted_evidence} {other}")\n', 2, ["the field '{other}' in TEMPLATE_EV2R"]),
    "positional field": (IMPORT + 'TEMPLATE_EV2R = textwrap.dedent("{claim_text} {reference_evidence} '
                         '{predicted_evidence} {}")\n', 2, ["the field '{}'"]),
    "attribute field": (IMPORT + f'TEMPLATE_EV2R = textwrap.dedent("{BODY} {{claim_text.__class__}}")\n', 2,
                        ["the field '{claim_text.__class__}'"]),
    "missing field": (IMPORT + 'TEMPLATE_EV2R = textwrap.dedent("{claim_text} {reference_evidence}")\n', 2,
                      ["no field {predicted_evidence}"]),
    "conversion": (IMPORT + 'TEMPLATE_EV2R = textwrap.dedent("{claim_text!r} {reference_evidence} '
                   '{predicted_evidence}")\n', 2, ["'{claim_text!r}'", "conversion or format spec"]),
    "format spec": (IMPORT + 'TEMPLATE_EV2R = textwrap.dedent("{claim_text} {reference_evidence:>10} '
                    '{predicted_evidence}")\n', 2, ["'{reference_evidence:>10}'"]),
    "lone brace": (IMPORT + f'TEMPLATE_EV2R = textwrap.dedent("{BODY} }}")\n', 2, ["str.format refuses", "Single '}'"]),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_template_is_one_located_line(tmp_path, name):
    source, line, words = HOSTILE[name]
    path = tmp_path / "prompt_templates.py"
    path.write_text(source, encoding="utf-8")
    one_line_error(path, line, *words)


@pytest.mark.parametrize("raw, line, words", [
    (b"import textwrap\nTEMPLATE_EV2R = textwrap.dedent('caf\xe9 {claim_text}')\n", 2, ["0xe9", "not UTF-8"]),
    (b"# -*- coding: latin-1 -*-\nimport textwrap\nTEMPLATE_EV2R = textwrap.dedent('caf\xe9')\n", 1, ["latin-1"]),
    (b"#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\nimport textwrap\n", 2, ["cp1252"]),
    (b"import textwrap\nTEMPLATE_EV2R = textwrap.dedent('\0')\n", 2, ["NUL byte"]),
])
def test_bytes_python_would_read_otherwise_are_refused(tmp_path, raw, line, words):
    path = tmp_path / "prompt_templates.py"
    path.write_bytes(raw)
    one_line_error(path, line, *words)


def test_file_over_one_mib_is_refused_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "prompt_templates.py"
    path.write_text(IMPORT + ONE + "\n#" + "x" * (1 << 20) + "\n", encoding="utf-8")

    def no_open(*args, **kwargs):
        raise AssertionError("the file was opened")

    monkeypatch.setattr("builtins.open", no_open)
    one_line_error(path, 1, f"{path.stat().st_size:,} bytes", "1 MiB")


def test_missing_file_and_folder_are_one_line(tmp_path):
    one_line_error(tmp_path / "absent.py", 1, "cannot read the file")
    one_line_error(tmp_path, 1, "no regular file")


def test_deeply_nested_code_is_one_line(tmp_path):
    path = tmp_path / "prompt_templates.py"
    path.write_text(IMPORT + "TEMPLATE_EV2R = textwrap.dedent(" + "1+" * 200_000 + "1)\n", encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        prompt_template.read_template(path)
    assert "\n" not in str(caught.value) and str(caught.value).startswith(f"{path}:")


@pytest.mark.parametrize("code", [
    "open(MARKER, 'w').write('ran')\n" + ONE,
    ONE.replace('textwrap.dedent("', "textwrap.dedent(open(MARKER, 'w').write('ran') and \""),
    "def f(x=open(MARKER, 'w').write('ran')):\n    pass\n" + ONE,
    "if open(MARKER, 'w').write('ran'):\n    pass\n" + ONE,
    "X: open(MARKER, 'w').write('ran') = 1\n" + ONE,
    "TEMPLATE_EV2R = textwrap.dedent(f\"{open(MARKER, 'w').write('ran')} {claim_text}\")",
    "__import__('pathlib').Path(MARKER).touch()\n" + ONE,
])
def test_nothing_in_the_file_is_executed(tmp_path, code):
    marker = tmp_path / "marker"
    path = tmp_path / "prompt_templates.py"
    path.write_text(IMPORT + code.replace("MARKER", repr(str(marker))) + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        prompt_template.read_template(path)
    assert str(caught.value).startswith(f"{path}:") and "\n" not in str(caught.value)
    assert not marker.exists()
    # and the file really would have created it, had it been executed
    python_namespace = {}
    with contextlib.suppress(NameError):  # the f-string case stops at {claim_text}, after the marker
        exec(compile(path.read_bytes(), str(path), "exec"), python_namespace)  # noqa: S102 - proves the hazard
    assert marker.exists()


# ------------------------------------------------------------------ the data store and the CLI


# (fetch, import and a tampered stored copy: test_data_store.py's test_tsver_prompt_template_is_fetched_imported_and_checked)


@pytest.mark.parametrize("variable", ["HF_HUB_OFFLINE", "BENCHSCORE_OFFLINE"])
def test_offline_with_an_empty_store_names_the_fetch_command(store, mirror, monkeypatch, variable):  # noqa: F811 - the imported fixtures
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setenv(variable, "1")
    with pytest.raises(data.OfflineError) as caught:
        prompt_template.official_template()
    message = str(caught.value)
    assert isinstance(caught.value, ValueError) and "\n" not in message
    assert "`benchscore data fetch tsver`" in message and f"{variable}=1" in message
    assert "official:prompt_templates" in message
    assert mirror.gets == [] and not store.exists()


def test_online_first_use_fetches_the_template(store, mirror, monkeypatch, capsys):  # noqa: F811 - the imported fixtures
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    template = prompt_template.official_template()
    assert {f for f, _, _ in fields_of(template)} == FIELDS
    assert mirror.gets == [f"{TSVER.owner}/{TSVER.repo}/{TSVER.commit}/{ENTRY.path}"]
    assert "fetching" in capsys.readouterr().err
