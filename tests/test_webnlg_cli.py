"""`benchscore webnlg REF.xml CAND.xml [OUT.json]`: the official JSON, a readable table, clear errors."""

import json
import math

import pytest

from benchscore.cli import main
from conftest import METRICS
from conftest import shared_path

EXAMPLES = METRICS / "webnlg_rdf" / "examples"


def assert_same_json(got, want):
    """Same keys in the same order, counts equal (ints), rates within 1e-12."""
    assert list(got) == list(want)
    for key, value in want.items():
        if isinstance(value, dict):
            assert_same_json(got[key], value)
        elif isinstance(value, int):
            assert got[key] == value and type(got[key]) is int, (key, got[key], value)
        else:
            assert math.isclose(got[key], value, rel_tol=0, abs_tol=1e-12), (key, got[key], value)


def run_official(tmp_path, ref, cand):
    out = tmp_path / "out.json"
    assert main(["webnlg", str(ref), str(cand), str(out), "--no-progress"]) == 0
    text = out.read_text(encoding="utf-8")
    assert "\n" not in text  # one line, as json.dump writes it
    return json.loads(text)


@pytest.mark.parity
def test_example_files_write_the_official_json(tmp_path, capsys):
    got = run_official(tmp_path, shared_path("data", "webnlg", "example", "Refs.xml"), shared_path("data", "webnlg", "example", "Cands2.xml"))
    assert_same_json(got, json.loads(shared_path("data", "webnlg", "expected", "example.json").read_text()))
    table = capsys.readouterr().out
    assert "Total_scores" in table and "Exact_match" in table
    assert "0.2811" in table  # Total_scores.Exact F1, as in expected/README.md
    assert "signature: webnlg_rdf|version:" in table


FIRST100 = ["en_bt5", "en_cyclegt", "en_baseline", "en_amazon_ai_shanghai", "ru_bt5", "ru_baseline"]


@pytest.mark.parametrize("system", FIRST100)
@pytest.mark.parity
def test_first100_subsets_of_every_submission(tmp_path, system):
    language = system[:2]
    got = run_official(
        tmp_path,
        shared_path("data", "webnlg", "subsets", "first100", f"ref_{language}.xml"),
        shared_path("data", "webnlg", "subsets", "first100", f"cand_{system}.xml"),
    )
    assert_same_json(got, json.loads(shared_path("data", "webnlg", "expected", f"first100_{system}.json").read_text()))


@pytest.mark.parametrize(
    "split, reference",
    [("all", "en_all"), ("unseen_categories", "en_unseen_categories")],
)
@pytest.mark.parity
def test_full_bt5_submission_reproduces_the_published_numbers(tmp_path, split, reference):
    expected_name = "en_bt5" if split == "all" else f"en_bt5_{split}"
    got = run_official(
        tmp_path,
        shared_path("data", "webnlg", "references", f"{reference}.xml"),
        shared_path("data", "webnlg", "submissions", "en", "bt5", f"{split}.xml"),
    )
    assert_same_json(got, json.loads(shared_path("data", "webnlg", "expected", f"{expected_name}.json").read_text()))
    if split == "all":  # Castro Ferreira et al. 2020: bt5 Exact F1 / P / R = 0.682 / 0.670 / 0.701
        exact = got["Total_scores"]["Exact"]
        assert (round(exact["F1"], 3), round(exact["Precision"], 3), round(exact["Recall"], 3)) == (0.682, 0.670, 0.701)


# --- our own example files (run without ../shared) ------------------------------------------------------


def test_bundled_example_scores_as_worked_out_by_hand(tmp_path, capsys):
    out = tmp_path / "out.json"
    argv = ["webnlg", str(EXAMPLES / "refs.xml"), str(EXAMPLES / "cands.xml"), str(out), "--json", "--by", "category"]
    assert main(argv) == 0
    official = json.loads(out.read_text())
    assert list(official) == ["Total_scores", "Scores_per_tag", "Exact_match"]
    # 10 distinct triple strings, 2 of them predicted exactly: macro P = R = F1 = 2/10.
    assert official["Exact_match"] == {"Precision": 0.2, "Recall": 0.2, "F1": 0.2}
    result = json.loads(capsys.readouterr().out)
    assert official == {key: result[key] for key in official}
    groups = result["extension_per_category"]
    # Astronaut: one exact triple (F1 1 everywhere) and the card's worked example (1, 5/6, 2/3, 2/3), averaged.
    f1 = {scheme: s["F1"] for scheme, s in groups["Astronaut"]["Total_scores"].items()}
    assert f1 == pytest.approx({"Ent_type": 1.0, "Partial": 11 / 12, "Strict": 5 / 6, "Exact": 5 / 6}, abs=1e-15)
    # City: no candidate triple, so the reference's three spans are missed and nothing else.
    for scheme in groups["City"]["Total_scores"].values():
        assert [scheme[k] for k in ("Correct", "Incorrect", "Partial", "Missed", "Spurious")] == [0, 0, 0, 3, 0]
        assert scheme["F1"] == 0


def test_json_flag_with_breakdowns(capsys):
    assert main(["webnlg", str(EXAMPLES / "refs.xml"), str(EXAMPLES / "cands.xml"), "--json", "--by", "category", "--by", "size"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert list(result) == [
        "Total_scores",
        "Scores_per_tag",
        "Exact_match",
        "extension_per_category",
        "extension_per_size",
        "warnings",  # the example's quoted object: the official quote asymmetry
        "signature",
    ]
    assert list(result["extension_per_category"]) == ["Astronaut", "City", "Food"]
    assert list(result["extension_per_size"]) == ["1", "2", "3"]  # JSON keys
    assert result["extension_per_size"]["1"] == result["extension_per_category"]["City"]  # the same single entry
    assert result["signature"].endswith("|breakdown:yes")


def test_breakdown_table(capsys):
    assert main(["webnlg", str(EXAMPLES / "refs.xml"), str(EXAMPLES / "cands.xml"), "--by", "size"]) == 0
    out = capsys.readouterr().out
    assert "Extension (not in the official script): Total_scores F1 per size" in out


# --- bad input: one line on stderr naming file, entry and triple; exit code 2 ------------------------------

REF = """<?xml version="1.0"?>
<benchmark><entries>
<entry category="Astronaut" eid="Id1" size="1"><modifiedtripleset><mtriple>Alan_Bean | occupation | Test_pilot</mtriple></modifiedtripleset></entry>
<entry category="City" eid="Id2" size="1"><modifiedtripleset><mtriple>Aarhus | leader | Jacob_Bundsgaard</mtriple></modifiedtripleset></entry>
</entries></benchmark>
"""


def cand_file(*entries):
    body = "".join(f'<entry eid="Id{i + 1}">{entry}</entry>\n' for i, entry in enumerate(entries))
    return f'<?xml version="1.0"?>\n<benchmark><entries>\n{body}</entries></benchmark>\n'


def gts(*triples):
    return "<generatedtripleset>" + "".join(f"<gtriple>{t}</gtriple>" for t in triples) + "</generatedtripleset>"


def run_bad(tmp_path, capsys, cand_text, ref_text=REF):
    ref = tmp_path / "ref.xml"
    cand = tmp_path / "cand.xml"
    ref.write_text(ref_text, encoding="utf-8")
    cand.write_text(cand_text, encoding="utf-8")
    out = tmp_path / "out.json"
    assert main(["webnlg", str(ref), str(cand), str(out)]) == 2
    assert not out.exists()  # no partial result file
    captured = capsys.readouterr()
    assert captured.out == ""
    message = captured.err.strip()
    assert message.startswith("benchscore webnlg: error: ") and "\n" not in message
    return message


def test_good_fixture_scores(tmp_path):
    (tmp_path / "ref.xml").write_text(REF)
    (tmp_path / "cand.xml").write_text(cand_file(gts("Alan_Bean | occupation | Test_pilot"), gts()))
    assert main(["webnlg", str(tmp_path / "ref.xml"), str(tmp_path / "cand.xml"), "--no-progress"]) == 0


def test_two_part_candidate_triple(tmp_path, capsys):
    message = run_bad(tmp_path, capsys, cand_file(gts("Alan_Bean | occupation | Test_pilot"), gts("Aarhus | leader")))
    assert "cand.xml:4: entry 1 (reference eid 'Id2'): " in message and "'Aarhus | leader'" in message


def test_missing_generatedtripleset(tmp_path, capsys):
    message = run_bad(tmp_path, capsys, cand_file(gts("Alan_Bean | occupation | Test_pilot"), ""))
    assert "cand.xml:4: entry 1 (eid 'Id2') has no <generatedtripleset>" in message


def test_more_candidate_entries_than_references(tmp_path, capsys):
    message = run_bad(tmp_path, capsys, cand_file(gts(), gts(), gts("x | y | z")))
    assert "cand.xml:5: 3 entries, and" in message and "ref.xml has 2" in message and "paired by position" in message


def test_fewer_candidate_entries_than_references(tmp_path, capsys):
    # The official script silently ignores the extra reference in the SemEval part (then crashes in Exact_match).
    message = run_bad(tmp_path, capsys, cand_file(gts("Alan_Bean | occupation | Test_pilot")))
    assert "cand.xml:3: 1 entries, and" in message and "ref.xml has 2" in message and "paired by position" in message


def test_xml_bomb(tmp_path, capsys):
    bomb = (
        '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
        '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
        '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>\n'
        "<benchmark><entries><entry><generatedtripleset><gtriple>&lol3; | b | c</gtriple>"
        "</generatedtripleset></entry></entries></benchmark>\n"
    )
    message = run_bad(tmp_path, capsys, bomb)
    assert "cand.xml:2: found an entity declaration" in message


def test_external_entity(tmp_path, capsys):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    xxe = (
        f'<?xml version="1.0"?>\n<!DOCTYPE benchmark [<!ENTITY xxe SYSTEM "file://{secret}">]>\n'
        "<benchmark><entries><entry><generatedtripleset><gtriple>&xxe; | b | c</gtriple>"
        "</generatedtripleset></entry><entry><generatedtripleset/></entry></entries></benchmark>\n"
    )
    message = run_bad(tmp_path, capsys, xxe)
    assert "cand.xml:2: found an entity declaration" in message and "TOP SECRET" not in message


def test_missing_file(tmp_path, capsys):
    assert main(["webnlg", str(tmp_path / "nope.xml"), str(EXAMPLES / "cands.xml")]) == 2
    assert "nope.xml" in capsys.readouterr().err


def test_the_progress_bar_runs_on_a_terminal_for_500_entries_or_more(monkeypatch):
    """As the card says; otherwise the entries pass through untouched and tqdm is not loaded for them."""
    import io
    import sys

    from benchscore.webnlg_rdf import files

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    entries = list(range(600))
    assert files._progress_bar(entries, 600) is entries  # pytest's stderr is no terminal
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert files._progress_bar(entries, 499) is entries
    assert list(files._progress_bar(entries, 600)) == entries
    assert "webnlg" in terminal.getvalue() and "600/600" in terminal.getvalue()
