"""`--plot` (issue 22): a forest plot of a table and the slice bars of a single run, each written as
a real image of the layout's size (PNG and SVG), with bad plot names refused before any scoring."""

import json
import re
import struct

import pytest

from benchscore import cli
from benchscore.core import plots
from conftest import METRICS, shared_path

pytest.importorskip("matplotlib", reason="matplotlib is not installed (CI installs the plots extra)")


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    return struct.unpack(">II", head[16:24])


def mctaco_systems():
    return [str(shared_path("data", "mctaco", "baseline_outputs", f"{name}.output.txt"))
            for name in ("bert.norm", "esim.glove", "esim.elmo", "roberta")]


def test_a_forest_plot_of_a_table(tmp_path, capsys):
    out, table = tmp_path / "forest.png", tmp_path / "table.json"
    argv = ["table", "mctaco", "--gold", "official:test", *(a for p in mctaco_systems() for a in ("--predictions", p)),
            "--n-resamples", "200", "--format", "json", "-o", str(table), "--plot", str(out)]
    assert cli.main(argv) == 0
    rows, keys = 4, 2  # 4 systems, 3 differences, EM and F1
    width = (plots.WIDTH_PER_PANEL * keys + 1.5) * plots.DPI
    height = (plots.HEIGHT_PER_ROW * (rows + rows - 1) + 1.6 * 2 + 0.8) * plots.DPI
    assert png_size(out) == (round(width), round(height))
    assert json.loads(table.read_text())["rows"][0]["system"] == "bert.norm.output"


def test_an_svg_forest_plot_says_the_signature(tmp_path, capsys):
    example = METRICS / "mctaco" / "examples"
    out = tmp_path / "forest.svg"
    assert cli.main(["table", "mctaco", "--gold", str(example / "example.tsv"), "--predictions",
                     str(example / "example_predictions.txt"), "--n-resamples", "50", "--plot", str(out)]) == 0
    svg = out.read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert re.search(r'width="[0-9.]+pt"', svg)
    assert "signature" in svg.lower()  # the caption (matplotlib writes text as glyph paths with a comment)


@pytest.mark.parametrize("bench, argv, n_panels", [
    ("mctaco", lambda d: ["--gold", str(d / "example.tsv"), "--predictions", str(d / "example_predictions.txt")], 1),
    ("tempbench", lambda d: ["--questions", str(d / "questions.jsonl"), "--evidence", str(d / "evidence.jsonl")], 2),
    ("webnlg", lambda d: [str(d / "refs.xml"), str(d / "cands.xml"), "--by", "category", "--by", "size",
                          "--no-progress"], 2),
])
def test_the_slice_bars_of_a_single_run(bench, argv, n_panels, tmp_path, capsys):
    import benchscore

    folder = METRICS / benchscore.benchmark(bench).folder / "examples"
    out = tmp_path / "slices.png"
    assert cli.main([bench, *argv(folder), "--plot", str(out)]) == 0
    width, height = png_size(out)
    assert width >= 500 and height == round((2.9 * n_panels + 0.6) * plots.DPI)


def test_a_run_without_slices_and_bad_plot_names_are_refused(tmp_path, capsys):
    folder = METRICS / "webnlg_rdf" / "examples"
    out = tmp_path / "slices.png"
    assert cli.main(["webnlg", str(folder / "refs.xml"), str(folder / "cands.xml"), "--no-progress", "--plot",
                     str(out)]) == 2
    err = capsys.readouterr().err
    assert "this result has none (the webnlg slices: extension_per_category, extension_per_size)" in err
    assert not out.exists() and list(tmp_path.iterdir()) == []
    assert cli.main(["webnlg", str(folder / "refs.xml"), str(folder / "cands.xml"), "--plot", str(tmp_path / "x.jpg")]) == 2
    assert "--plot " in (err := capsys.readouterr().err) and "expected a .png or .svg file name" in err
    assert err.count("\n") == 1
