"""benchscore.core: the one reader of input files, and the checks every entry point gets from it."""

import json
import os

import pytest

from benchscore import cli
from benchscore.core import readers

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "metrics", "mctaco", "examples")


def write(tmp_path, data, name="in.jsonl"):
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def records(path):
    return [record for _, record in readers.iter_jsonl(path)]


def test_bom_and_crlf_read_as_the_plain_file(tmp_path):
    plain = write(tmp_path, b'{"a": 1}\n{"b": 2}\n', "plain.jsonl")
    odd = write(tmp_path, b'\xef\xbb\xbf{"a": 1}\r\n\r\n{"b": 2}\r\n', "odd.jsonl")
    assert records(odd) == records(plain) == [{"a": 1}, {"b": 2}]


@pytest.mark.parametrize("line, message", [
    (b'{"a": NaN}', r"in\.jsonl:2: not valid JSON \(NaN is not a JSON number\)"),
    (b'{"a": ' + b"9" * 5000 + b"}", r"in\.jsonl:2: not valid JSON .*4300 digits"),
    (b"[" * 100_000 + b"]" * 100_000, r"in\.jsonl:2: JSON nested deeper than 64 levels"),
    (b'{"a": "x\xff"}', r"in\.jsonl:2: byte 0xff at column 9 is not UTF-8"),
    (b'{"a": "x\\ud800"}', r"in\.jsonl:2: the string 'x\\ud800' holds a lone surrogate"),
    (b"[1]", r"in\.jsonl:2: found a JSON list; expected a JSON object per line"),
])
def test_bad_lines_are_located_errors(tmp_path, line, message):
    path = write(tmp_path, b'{"ok": 1}\n' + line + b"\n")
    with pytest.raises(readers.InputError, match=message):
        records(path)


def test_a_whole_surrogate_pair_is_text(tmp_path):
    path = write(tmp_path, json.dumps({"a": "\U0001F600"}).encode() + b"\n")
    assert records(path) == [{"a": "\U0001F600"}]


def test_a_pipe_is_refused_before_it_is_opened(tmp_path):
    fifo = tmp_path / "gold.tsv"
    os.mkfifo(fifo)  # opening it would block until a writer comes
    with pytest.raises(readers.InputError, match=r"gold\.tsv:1: this is not a regular file"):
        list(readers.iter_lines(fifo))


def test_compare_checks_its_options_before_reading_files(capsys):
    argv = ["compare", "mctaco", "--gold", "no-such-gold.tsv", "--predictions", "no-such-predictions.txt"]
    assert cli.main(argv + ["--n-resamples", "0"]) == 2
    assert capsys.readouterr().err == "benchscore compare: error: n_resamples must be a positive int, found 0\n"
    assert cli.main(argv + ["--predictions", "b", "--predictions", "c"]) == 2
    assert "given 3 times; expected once (intervals) or twice (A, B)" in capsys.readouterr().err


def test_empty_table_cells_are_empty_not_the_text_nan():
    pd = pytest.importorskip("pandas")
    pytest.importorskip("gradio")
    from benchscore.core import space

    table = pd.DataFrame([["q", None, float("nan"), " yes "]], columns=list("abcd"))
    assert space.table_rows(table, list("abcd")) == [["q", "", "", "yes"]]
