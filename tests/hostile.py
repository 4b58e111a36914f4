"""Shared helpers of the hostile-input corpus (issue 12): a time guard, and assertions of the
project's error contract at each public entry point.

- CLI: exit status 2, stderr one line `benchscore <cmd>: error: FILE:LINE: ...` (1-based line),
  never a traceback, never exit 0 with silently changed numbers.
- library: ValueError/TypeError (subclasses ok, but not the raw KeyError/IndexError/
  RecursionError/OverflowError/StopIteration/UnicodeDecodeError) naming `example N` (0-based).
- Space: gradio.Error.

Large inputs are built at test time, never committed.
"""

import contextlib
import importlib.util
import io
import json
import pathlib
import re
import signal
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
GUARD_SECONDS = 20
DEEP = 100_000  # nesting depth of the "deeply nested JSON" lines
RAW_EXCEPTIONS = (KeyError, IndexError, RecursionError, OverflowError, StopIteration, UnicodeError,
                  AttributeError, AssertionError)


class GuardTimeout(BaseException):
    """Raised by the guard: a hostile case ran past GUARD_SECONDS (a guard, not a timed assertion)."""


@pytest.fixture
def guard():
    """Fails the test (instead of hanging the suite) when it runs past GUARD_SECONDS."""
    def on_alarm(signum, frame):
        raise GuardTimeout(f"still running after {GUARD_SECONDS} s (runaway input)")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(GUARD_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def deep_json(depth=DEEP):
    """A JSON text nested `depth` arrays deep: [[[[...]]]]."""
    return "[" * depth + "]" * depth


def replace_line(text, number, new):
    """`text` with line `number` (1-based) replaced by `new`, joined with LF."""
    lines = text.splitlines()
    lines[number - 1] = new
    return "\n".join(lines) + "\n"


def write(path, data):
    """Writes bytes or str (str as UTF-8, no newline translation); returns the path as str."""
    path = pathlib.Path(path)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return str(path)


def example_texts(folder, *names):
    """The texts of the bundled example files `names` of metric folder `folder`."""
    return [(REPO / "metrics" / folder / "examples" / name).read_text(encoding="utf-8") for name in names]


def records(text):
    """The JSON records of a JSONL text (blank lines skipped)."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def jsonl(records):
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


# -- CLI ---------------------------------------------------------------------------------------

class CliResult:
    def __init__(self, code, out, err, exc):
        self.code, self.out, self.err, self.exc = code, out, err, exc

    def describe(self):
        exc = "" if self.exc is None else f" raised {type(self.exc).__name__}: {str(self.exc)[:200]}"
        err_lines = self.err.strip().splitlines()
        shown = " | ".join(err_lines[:2])[:400] + (f" ... ({len(err_lines)} lines)" if len(err_lines) > 2 else "")
        return f"exit={self.code}{exc} stderr={shown!r}"


def run_cli(argv):
    """`benchscore.cli.main(argv)` in-process; stdout/stderr captured, any exception recorded."""
    from benchscore import cli

    out, err = io.StringIO(), io.StringIO()
    code, exc = None, None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as stop:
            code = stop.code
        except GuardTimeout:
            raise
        except BaseException as caught:  # noqa: BLE001 - recorded and asserted against
            exc = caught
    return CliResult(code, out.getvalue(), err.getvalue(), exc)


def assert_cli_error(result, command, path=None, line=None):
    """Exit 2 and one stderr line `benchscore <command>: error: ...`, naming `FILE:LINE:` when given."""
    what = result.describe()
    assert result.exc is None, f"uncaught exception, not an error line: {what}"
    assert "Traceback" not in result.err, f"traceback on stderr: {what}"
    assert result.code == 2, f"expected exit 2: {what}"
    lines = [ln for ln in result.err.splitlines() if ln.strip()]
    assert len(lines) == 1, f"expected one stderr line: {what}"
    assert lines[0].startswith(f"benchscore {command}: error: "), f"not a benchscore error line: {what}"
    if path is not None:
        name = re.escape(pathlib.Path(path).name)
        where = rf"{name}:{line}:" if line is not None else name
        assert re.search(where, lines[0]), f"expected {pathlib.Path(path).name}:{line}: in the line: {what}"


def assert_cli_ok(result):
    what = result.describe()
    assert result.exc is None and result.code == 0, f"expected exit 0: {what}"
    return result


def assert_same_or_refused(result, baseline, command, path=None):
    """A variant of a valid file (BOM, CRLF...): identical output to the plain run, or a clean refusal."""
    if result.exc is None and result.code == 0:
        assert result.out == baseline.out, "exit 0 but the numbers differ from the plain file's (silent change)"
    else:
        assert_cli_error(result, command, path)


def assert_bom_same_or_refused(tmp_path, baseline, write_files, cli, command, texts, which):
    """`command` on its files written by `write_files(tmp_path, **{name: text})` (`texts` in the order
    `write_files` returns them), file `which` with a BOM: the plain run's output, or a clean refusal
    naming that file."""
    paths = write_files(tmp_path, **{which: "\ufeff" + texts[which]})
    assert_same_or_refused(cli(*paths), baseline, command, paths[list(texts).index(which)])


# -- library -----------------------------------------------------------------------------------

@contextlib.contextmanager
def _our_error(check, expected, no_error):
    """The block raises ValueError/TypeError (not one of RAW_EXCEPTIONS, not another exception), which
    `check(err)` then asserts on; `expected` names what was wanted in a failure, `no_error` is the
    failure when nothing is raised."""
    try:
        yield
    except GuardTimeout:
        raise
    except RAW_EXCEPTIONS as err:
        pytest.fail(f"raw {type(err).__name__} instead of {expected}: {str(err)[:200]}")
    except (ValueError, TypeError) as err:
        check(err)
        return
    except Exception as err:  # noqa: BLE001
        pytest.fail(f"{type(err).__name__} instead of {expected}: {str(err)[:200]}")
    pytest.fail(no_error)


def library_error(example=None):
    """The block raises ValueError/TypeError (not a raw KeyError, RecursionError...) naming `example N`."""
    def names_example(err):
        if example is not None:
            assert re.search(rf"\bexample #?{example}\b", str(err)), \
                f"{type(err).__name__} does not name 'example {example}': {str(err)[:300]}"

    return _our_error(names_example, "ValueError/TypeError",
                      f"no error: the bad input was accepted (expected ValueError/TypeError naming example {example})")


def loader_error(path, line=None):
    """The block raises ValueError/TypeError naming the file (and the 1-based line, `:N` or `line N`)."""
    def names_file_and_line(err):
        message = str(err)
        assert pathlib.Path(path).name in message, f"error does not name the file: {message[:300]}"
        if line is not None:
            assert re.search(rf"(:|line ){line}\b", message), f"error does not name line {line}: {message[:300]}"

    return _our_error(names_file_and_line, "ValueError", "no error: the bad input was accepted")


def assert_bom_same_rows_or_refused(load, tmp_path, text, suffix):
    """The loader `load` (path -> Dataset) on `text` with a BOM: the same rows as without, or a
    ValueError naming the file."""
    plain = load(write(tmp_path / f"plain{suffix}", text)).to_list()
    path = write(tmp_path / f"bom{suffix}", "\ufeff" + text)
    try:
        rows = load(path).to_list()
    except ValueError as err:
        assert f"bom{suffix}" in str(err)
        return
    assert rows == plain


# -- Spaces ------------------------------------------------------------------------------------

def load_app(folder):
    """metrics/<folder>/app.py as a fresh module, loaded by path as a Space runs it."""
    pytest.importorskip("gradio", reason="gradio is not installed (the spaces extra)")
    sys.path.insert(0, str(REPO / "tests"))
    try:
        import browser  # noqa: F401 - turns gradio's analytics off before gradio is used
    finally:
        sys.path.pop(0)
    path = REPO / "metrics" / folder / "app.py"
    spec = importlib.util.spec_from_file_location(f"hostile_{folder}_app", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def space_error():
    """The block raises gradio.Error (what the page shows), nothing else."""
    import gradio as gr

    try:
        yield
    except GuardTimeout:
        raise
    except gr.Error:
        return
    except BaseException as err:  # noqa: BLE001
        pytest.fail(f"{type(err).__name__} escaped the Space handler instead of gr.Error: {str(err)[:200]}")
    pytest.fail("no gr.Error: the bad input was accepted")


# -- subprocesses (runaway or memory-hungry cases) ---------------------------------------------

def run_subprocess(argv, timeout=GUARD_SECONDS - 2, memory_bytes=4 * 2 ** 30, stdin=None, env=None):
    """Runs `python <argv...>` with this checkout's `benchscore` first on the path, a hard timeout and
    an address-space cap; returns a CliResult (code None and exc=TimeoutError when it ran past `timeout`)."""
    import os
    import resource
    import subprocess

    import benchscore

    package_parent = os.path.dirname(os.path.dirname(benchscore.__file__))
    environment = dict(os.environ, **(env or {}))
    environment["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, environment.get("PYTHONPATH")) if p)
    environment.setdefault("HF_HUB_OFFLINE", "1")
    environment.setdefault("HF_EVALUATE_OFFLINE", "1")

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))

    try:
        done = subprocess.run([sys.executable, *map(str, argv)], capture_output=True, text=True, timeout=timeout,
                              preexec_fn=limit, input=stdin, env=environment, cwd=str(REPO))
    except subprocess.TimeoutExpired as err:
        out, errors = (x.decode("utf-8", "replace") if isinstance(x, bytes) else (x or "") for x in (err.stdout, err.stderr))
        return CliResult(None, out, errors, TimeoutError(f"killed after {timeout} s"))
    return CliResult(done.returncode, done.stdout, done.stderr, None)
