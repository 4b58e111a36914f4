"""`benchscore table <bench>` (issue 22): several systems against one gold file, one row each.

For every benchmark, on its bundled or shared files, each system's value is exactly
`benchscore <bench>`'s number, its interval exactly `benchscore compare`'s for that system, and each
p-value exactly the paired test's (`benchscore compare` of the baseline and that system). The other
formats are made from the same JSON; bad tables get one clear line and exit 2, nothing written.
"""

import csv
import io
import json
import os

import pytest

from benchscore import cli
from conftest import METRICS, shared_path

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def tempbench_runs(tmp_path):
    """The bundled run and a second one that retrieved nothing for the first question."""
    evidence = METRICS / "tempbench_trp" / "examples" / "evidence.jsonl"
    lines = [json.loads(line) for line in evidence.read_text(encoding="utf-8").splitlines()]
    lines[0]["evidence"] = []
    other = tmp_path / "other.jsonl"
    other.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return [str(evidence), str(other)]


# benchmark -> (gold, system files (tmp_path -> paths), single-run argv (gold, path), the table key -> the
# single run's flattened result key)
CASES = {
    "mctaco": (lambda: "official:test",
               lambda tmp: [str(shared_path("data", "mctaco", "baseline_outputs", f"{name}.output.txt"))
                            for name in ("bert.norm", "esim.glove", "esim.elmo", "roberta")],
               lambda gold, path: ["mctaco", "--gold", gold, "--predictions", path, "--json"],
               {"em": "em", "f1": "f1"}),
    "webnlg": (lambda: str(shared_path("data", "webnlg", "subsets", "first100", "ref_en.xml")),
               lambda tmp: [str(shared_path("data", "webnlg", "subsets", "first100", f"cand_en_{name}.xml"))
                            for name in ("amazon_ai_shanghai", "bt5", "cyclegt", "baseline")],
               lambda gold, path: ["webnlg", gold, path, "--json", "--no-progress"],
               {f"{scheme}_F1": f"Total_scores/{scheme}/F1" for scheme in ("Exact", "Strict", "Partial", "Ent_type")}),
    "tsver": (lambda: str(shared_path("data", "tsver", "tsver_dev.jsonl")),
              lambda tmp: [str(shared_path("data", "tsver", "predictions", f"pred_dev_{name}.jsonl"))
                           for name in ("gold", "perturbed_seed12345")],
              lambda gold, path: ["tsver", "--gold", gold, "--predictions", path, "--json"],
              {"tscs": "tscs", "verdict_macro_f1": "verdict_macro_f1", "verdict_accuracy": "verdict_accuracy"}),
    "tempbench": (lambda: str(METRICS / "tempbench_trp" / "examples" / "questions.jsonl"), tempbench_runs,
                  lambda gold, path: ["tempbench", "--questions", gold, "--evidence", path, "--json"],
                  {"TRP_macro": "TRP_macro", "TRP_micro": "TRP_micro", "CCR": "CCR", "coverage": "coverage"}),
}


def run_json(capsys, argv):
    assert cli.main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def flat(result, key):
    for part in key.split("/"):
        result = result[part]
    return result


def table_argv(bench, gold, paths, *extra):
    return ["table", bench, "--gold", gold, *(a for p in paths for a in ("--predictions", p)), "--n-resamples",
            "200", *extra]


@pytest.mark.parity
@pytest.mark.parametrize("bench", sorted(CASES))
def test_each_row_is_the_scorer_compare_and_the_paired_test(bench, capsys, tmp_path):
    gold_of, systems_of, single, keys = CASES[bench]
    gold, paths = gold_of(), systems_of(tmp_path)
    table = run_json(capsys, table_argv(bench, gold, paths, "--format", "json"))
    assert [row["system"] for row in table["rows"]] == [os.path.splitext(os.path.basename(p))[0] for p in paths]
    assert list(table["metrics"]) == list(keys) and table["baseline"] == table["rows"][0]["system"]
    for index, (row, path) in enumerate(zip(table["rows"], paths)):
        scored = run_json(capsys, single(gold, path))
        alone = run_json(capsys, ["compare", bench, "--gold", gold, "--predictions", path, "--n-resamples", "200",
                                  "--json"])["results"]
        paired = None if index == 0 else run_json(capsys, [
            "compare", bench, "--gold", gold, "--predictions", paths[0], "--predictions", path, "--n-resamples",
            "200", "--json"])["results"]
        for key, result_key in keys.items():
            cell = row["metrics"][key]
            assert cell["value"] == flat(scored, result_key) == alone[key]["estimate"]
            assert (cell["low"], cell["high"]) == (alone[key]["low"], alone[key]["high"])
            assert cell["p_value"] == (None if paired is None else paired[key]["p_bootstrap"])
            if paired is not None:
                assert cell["difference"] == {"value": paired[key]["difference"], "low": paired[key]["low"],
                                              "high": paired[key]["high"]}
    assert table["signature"].endswith("|bootstrap:200|seed:12345|confidence:0.95")
    assert len(table["attestation"]["table_sha256"]) == 64 and len(table["attestation"]["inputs"]["others"]) >= 2


def test_the_published_tables_are_reproduced(capsys):
    """MC-TACO (Zhou et al. 2019): BERT + unit normalization 42.7 EM / 69.9 F1; WebNLG+ 2020 English:
    Amazon AI (Shanghai) and bt5 Exact F1 0.689 and 0.682."""
    mctaco = run_json(capsys, table_argv("mctaco", "official:test", CASES["mctaco"][1](None), "--format", "json"))
    bert = mctaco["rows"][0]["metrics"]
    assert (round(100 * bert["em"]["value"], 1), round(100 * bert["f1"]["value"], 1)) == (42.7, 69.9)
    folder = shared_path("data", "webnlg")
    paths = [str(folder / "submissions" / "en" / name / "all.xml") for name in ("amazon_ai_shanghai", "bt5")]
    webnlg = run_json(capsys, table_argv("webnlg", "official:en", paths, "--format", "json", "--name",
                                         "Amazon AI (Shanghai)", "--name", "bt5"))
    assert [round(row["metrics"]["Exact_F1"]["value"], 3) for row in webnlg["rows"]] == [0.689, 0.682]


def test_markdown_latex_and_csv_are_made_from_the_same_numbers(capsys, tmp_path):
    gold, paths = CASES["mctaco"][0](), CASES["mctaco"][1](tmp_path)
    names = ["BERT", "ESIM_GloVe", "ESIM & ELMo", "RoBERTa"]
    name_args = [a for n in names for a in ("--name", n)]
    table = run_json(capsys, table_argv("mctaco", gold, paths, "--format", "json", *name_args))
    assert cli.main(table_argv("mctaco", gold, paths, *name_args)) == 0
    markdown = capsys.readouterr().out
    assert markdown.startswith("| system | EM | F1 | p (EM) | p (F1) |\n| --- | ---: |")
    assert "| BERT | 42.7 [" in markdown and "| ESIM_GloVe | 20.9* [" in markdown
    assert f"Signature: `{table['signature']}`" in markdown
    assert cli.main(table_argv("mctaco", gold, paths, "--format", "latex", *name_args)) == 0
    latex = capsys.readouterr().out
    assert r"\toprule" in latex and r"\bottomrule" in latex and r"ESIM \& ELMo" in latex and r"ESIM\_GloVe" in latex
    best_f1 = max(row["metrics"]["f1"]["value"] for row in table["rows"])
    assert rf"\textbf{{{100 * best_f1:.1f}}}" in latex and r"* p \textless{} 0.05 against BERT" in latex
    out = tmp_path / "table.csv"
    assert cli.main(table_argv("mctaco", gold, paths, "--format", "csv", *name_args, "-o", str(out))) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [row["system"] for row in rows] == names
    for row, expected in zip(rows, table["rows"]):
        assert float(row["em"]) == expected["metrics"]["em"]["value"]
        assert row["f1_p_value"] == ("" if expected["metrics"]["f1"]["p_value"] is None
                                     else repr(expected["metrics"]["f1"]["p_value"]))


def test_the_baseline_and_the_test_can_be_chosen(capsys, tmp_path):
    gold, paths = CASES["mctaco"][0](), CASES["mctaco"][1](tmp_path)
    table = run_json(capsys, table_argv("mctaco", gold, paths, "--format", "json", "--baseline", "roberta.output",
                                        "--test", "randomization"))
    assert table["baseline"] == "roberta.output" and table["test"] == "randomization"
    assert table["rows"][3]["metrics"]["em"]["p_value"] is None
    paired = run_json(capsys, ["compare", "mctaco", "--gold", gold, "--predictions", paths[3], "--predictions",
                               paths[0], "--n-resamples", "200", "--json"])["results"]
    assert table["rows"][0]["metrics"]["em"]["p_value"] == paired["em"]["p_randomization"]


@pytest.mark.parametrize("extra, words", [
    (["--name", "a", "--name", "a"], "two systems are named 'a' (--name of --predictions 1 and 2)"),
    (["--name", "a"], "--name was given 1 times and --predictions 2 times"),
    (["--baseline", "zz"], "--baseline 'zz' is not a system; expected one of"),
    (["--alpha", "1.5"], "--alpha is 1.5; expected a level strictly between 0 and 1"),
    (["--plot", "x.pdf"], "--plot x.pdf: expected a .png or .svg file name"),
    (["-o", "/nonexistent/dir/t.md"], "the folder /nonexistent/dir does not exist"),
    (["--json", "--format", "csv"], "--json and --format csv contradict each other"),
    (["--n-resamples", "0"], "n_resamples must be a positive int"),
])
def test_bad_options_get_one_line_and_exit_2_before_any_file_is_read(extra, words, capsys):
    argv = ["table", "mctaco", "--gold", "/nonexistent/gold.tsv", "--predictions", "/nonexistent/x/a.txt",
            "--predictions", "/nonexistent/y/b.txt", *extra]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err and "Traceback" not in err


def test_systems_of_different_lengths_or_two_same_stems_are_refused(capsys, tmp_path):
    example = METRICS / "mctaco" / "examples"
    gold = str(example / "example.tsv")
    short = tmp_path / "short.txt"
    short.write_text("yes\n", encoding="utf-8")
    assert cli.main(["table", "mctaco", "--gold", gold, "--predictions", str(example / "example_predictions.txt"),
                     "--predictions", str(short)]) == 2
    err = capsys.readouterr().err
    assert f"{short}:2:" in err and err.count("\n") == 1
    (tmp_path / "a").mkdir()
    twin = tmp_path / "a" / "example_predictions.txt"
    twin.write_bytes((example / "example_predictions.txt").read_bytes())
    assert cli.main(["table", "mctaco", "--gold", gold, "--predictions", str(example / "example_predictions.txt"),
                     "--predictions", str(twin)]) == 2
    assert "two systems are named 'example_predictions' (file stem" in capsys.readouterr().err


def test_an_output_that_is_a_folder_is_refused_before_scoring(capsys, tmp_path):
    example = METRICS / "mctaco" / "examples"
    assert cli.main(["table", "mctaco", "--gold", str(example / "example.tsv"), "--predictions",
                     str(example / "example_predictions.txt"), "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path}: is a folder; expected a file to write" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_outputs_never_overwrite_an_input_and_are_two_files(capsys, tmp_path):
    example = METRICS / "mctaco" / "examples"
    gold = tmp_path / "gold.tsv"
    gold.write_bytes((example / "example.tsv").read_bytes())
    preds = str(example / "example_predictions.txt")
    for extra, words in ((["-o", str(gold)], "the output file is the input file"),
                         (["-o", str(tmp_path / "x.png"), "--plot", str(tmp_path / "x.png")], "are both")):
        assert cli.main(["table", "mctaco", "--gold", str(gold), "--predictions", preds, *extra]) == 2
        assert words in capsys.readouterr().err
    assert gold.read_bytes() == (example / "example.tsv").read_bytes()
    out = tmp_path / "x.png"
    assert cli.main(["mctaco", "--gold", str(gold), "--predictions", preds, "-o", str(out), "--plot", str(out)]) == 2
    assert "the output and --plot are both" in capsys.readouterr().err and not out.exists()
    tsver = METRICS / "tsver" / "examples"
    ev2r = tmp_path / "ev2r.jsonl"
    ev2r.write_bytes((tsver / "ev2r.jsonl").read_bytes())
    assert cli.main(["table", "tsver", "--gold", str(tsver / "gold.jsonl"), "--predictions",
                     str(tsver / "predictions.jsonl"), "--ev2r", str(ev2r), "-o", str(ev2r)]) == 2
    assert "the output file is the input file" in capsys.readouterr().err
    assert ev2r.read_bytes() == (tsver / "ev2r.jsonl").read_bytes()


def test_latex_escapes_bars_and_angle_brackets_and_names_must_be_printable(capsys, tmp_path):
    example = METRICS / "mctaco" / "examples"
    argv = ["table", "mctaco", "--gold", str(example / "example.tsv"), "--predictions",
            str(example / "example_predictions.txt"), "--n-resamples", "20"]
    assert cli.main([*argv, "--name", "a|b<c>", "--format", "latex"]) == 0
    assert r"a\textbar{}b\textless{}c\textgreater{}" in capsys.readouterr().out
    assert cli.main([*argv, "--name", "two\nlines"]) == 2
    assert "expected a name of printable characters" in capsys.readouterr().err


def test_two_judges_of_one_prediction_file_are_a_comparison_not_a_table(capsys):
    folder = METRICS / "tsver" / "examples"
    assert cli.main(["table", "tsver", "--gold", str(folder / "gold.jsonl"), "--predictions",
                     str(folder / "predictions.jsonl"), "--ev2r", str(folder / "ev2r.jsonl"), "--ev2r",
                     str(folder / "ev2r.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "--ev2r was given 2 times and --predictions 1 times; a table has one row per prediction file" in err
    assert err.count("\n") == 1
