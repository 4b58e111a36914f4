"""Hostile and broken inputs for WebNLG+ 2020 text-to-RDF (issue 12), through the public entry points only.

Runaway cases (24+ distinct triples in one entry, very long elements) run in a subprocess with a
timeout and a memory cap: a result or a clear refusal within the guard, never minutes.
"""

import json
import pathlib
import random
from xml.sax.saxutils import escape

import pytest

from conftest import METRICS, load_metric
from hostile import (assert_bom_same_or_refused, assert_bom_same_rows_or_refused, assert_cli_error,  # noqa: F401
                     assert_cli_ok, assert_same_or_refused, guard, library_error, load_app, loader_error,
                     run_cli, run_subprocess, space_error, write)

pytestmark = pytest.mark.usefixtures("guard")

EXAMPLES = METRICS / "webnlg_rdf" / "examples"
REFS = (EXAMPLES / "refs.xml").read_text(encoding="utf-8")
CANDS = (EXAMPLES / "cands.xml").read_text(encoding="utf-8")


def files(tmp_path, refs=REFS, cands=CANDS):
    return write(tmp_path / "refs.xml", refs), write(tmp_path / "cands.xml", cands)


def cli(refs, cands, *extra):
    return run_cli(["webnlg", refs, cands, "--json", "--no-progress", *extra])


@pytest.fixture
def baseline(tmp_path):
    return assert_cli_ok(cli(*files(tmp_path / "")))


def xml(entries, tag):
    """A WebNLG XML file; `entries` is a list of triple lists; tag "m" (reference) or "g" (candidate)."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<benchmark>", "  <entries>"]
    for i, triples in enumerate(entries, 1):
        size = f' size="{len(triples)}"' if tag == "m" else ""
        out.append(f'    <entry category="Test" eid="Id{i}"{size}>')
        out.append(f"      <{'modified' if tag == 'm' else 'generated'}tripleset>")
        out += [f"        <{tag}triple>{escape(t)}</{tag}triple>" for t in triples]
        out.append(f"      </{'modified' if tag == 'm' else 'generated'}tripleset>")
        out.append("    </entry>")
    out += ["  </entries>", "</benchmark>", ""]
    return "\n".join(out)


def many_triples(n):
    """One entry with n distinct reference and n distinct candidate triples that partly overlap."""
    refs = [f"Entity_{i} | relation{i % 5} | Value_{i}_x" for i in range(n)]
    cands = [f"Entity_{i} | relation{(i + 1) % 5} | Value_{(i * 7) % n}_y" for i in range(n)]
    return refs, cands


def long_elements(n_tokens):
    """Two triples whose objects are n_tokens distinct words each, half of them shared."""
    rng = random.Random(0)
    a = [f"w{i}" for i in range(n_tokens)]
    b = [f"w{i}" for i in range(n_tokens // 2, n_tokens + n_tokens // 2)]
    rng.shuffle(b)
    return ["Subject | predicate | " + " ".join(a)], ["Subject | predicate | " + " ".join(b)]


def assert_result_or_refusal(result, command="webnlg"):
    """Within the guard: exit 0 with a result, or a clean one-line refusal (exit 2)."""
    assert result.exc is None, f"did not finish within the guard (or crashed): {result.describe()}"
    if result.code == 0:
        assert "Total_scores" in result.out, result.describe()
    else:
        assert_cli_error(result, command)


# -- bounded cost ------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [24, 30])
def test_cli_entry_with_many_distinct_triples_finishes(tmp_path, n):
    refs, cands = many_triples(n)
    paths = files(tmp_path, refs=xml([refs], "m"), cands=xml([cands], "g"))
    assert_result_or_refusal(run_subprocess(["-m", "benchscore", "webnlg", *paths, "--json", "--no-progress"]))


def test_cli_entry_with_very_long_elements_finishes(tmp_path):
    refs, cands = long_elements(800)
    paths = files(tmp_path, refs=xml([refs], "m"), cands=xml([cands], "g"))
    assert_result_or_refusal(run_subprocess(["-m", "benchscore", "webnlg", *paths, "--json", "--no-progress"]))


def test_compare_entry_with_many_distinct_triples_finishes(tmp_path):
    refs, cands = many_triples(24)
    paths = files(tmp_path, refs=xml([refs, refs[:2]], "m"), cands=xml([cands, refs[:2]], "g"))
    result = run_subprocess(["-m", "benchscore", "compare", "webnlg", "--reference", paths[0], "--predictions",
                             paths[1], "--n-resamples", "20", "--json"])
    assert result.exc is None, f"did not finish within the guard: {result.describe()}"
    assert result.code == 0 or (result.code == 2 and len(result.err.strip().splitlines()) == 1), result.describe()


MODULE_SCRIPT = """
import json, sys, evaluate
refs, cands = json.loads(sys.stdin.read())
metric = evaluate.load({path!r})
try:
    result = metric.compute(predictions=[cands], references=[refs])
except (ValueError, TypeError) as err:
    print("REFUSED", err)
else:
    print("RESULT", json.dumps(result["Total_scores"]["Exact"]))
"""


@pytest.mark.parametrize("case", ["24 distinct triples", "800-token elements"])
def test_module_runaway_entry_finishes_with_result_or_refusal(case):
    refs, cands = many_triples(24) if case == "24 distinct triples" else long_elements(800)
    script = MODULE_SCRIPT.format(path=str(METRICS / "webnlg_rdf"))
    result = run_subprocess(["-c", script], stdin=json.dumps([refs, cands]))
    assert result.exc is None and result.code == 0, f"did not finish within the guard: {result.describe()}"
    assert result.out.startswith(("RESULT", "REFUSED")), result.describe()


@pytest.fixture(scope="module")
def app():
    return load_app("webnlg_rdf")


def test_space_pasted_entry_with_many_distinct_triples_finishes(app):
    import gradio as gr

    refs, cands = many_triples(24)
    try:
        app.score_text(xml([refs], "m"), xml([cands], "g"))
    except gr.Error:
        pass  # a clear refusal is fine


def test_space_pasted_entry_with_very_long_elements_finishes(app):
    import gradio as gr

    refs, cands = long_elements(800)
    try:
        app.score_text(xml([refs], "m"), xml([cands], "g"))
    except gr.Error:
        pass


# -- encodings, line ends, empty and malformed files ---------------------------------------------

@pytest.mark.parametrize("which", ["refs", "cands"])
def test_bom_same_numbers_or_refused(tmp_path, baseline, which):
    assert_bom_same_or_refused(tmp_path, baseline, files, cli, "webnlg", {"refs": REFS, "cands": CANDS}, which)


def test_crlf_same_numbers(tmp_path, baseline):
    paths = files(tmp_path, refs=REFS.replace("\n", "\r\n"), cands=CANDS.replace("\n", "\r\n"))
    assert assert_cli_ok(cli(*paths)).out == baseline.out


@pytest.mark.parametrize("which", ["refs", "cands"])
def test_empty_file(tmp_path, which):
    paths = files(tmp_path, **{which: ""})
    assert_cli_error(cli(*paths), "webnlg", paths[0 if which == "refs" else 1], 1)


def test_invalid_utf8_names_file_and_line(tmp_path):
    data = CANDS.encode().replace(b"Wheeler,_Texas", b"Wheeler,_T\xffexas")
    line = data[: data.index(b"\xff")].count(b"\n") + 1
    paths = files(tmp_path, cands=data)
    assert_cli_error(cli(*paths), "webnlg", paths[1], line)


def test_malformed_xml_names_file_and_line(tmp_path):
    text = CANDS.replace("</generatedtripleset>", "</generatedtriplese>", 1)
    line = text[: text.index("</generatedtriplese>")].count("\n") + 1
    paths = files(tmp_path, cands=text)
    assert_cli_error(cli(*paths), "webnlg", paths[1], line)


def test_entity_expansion_is_refused(tmp_path):
    bomb = ('<?xml version="1.0"?>\n<!DOCTYPE b [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>\n'
            "<benchmark><entries><entry><generatedtripleset><gtriple>&b; | p | o</gtriple></generatedtripleset>"
            "</entry></entries></benchmark>\n")
    paths = files(tmp_path, refs=xml([["s | p | o"]], "m"), cands=bomb)
    assert_cli_error(cli(*paths), "webnlg", paths[1])


def test_deeply_nested_xml(tmp_path):
    depth = 100_000
    text = ('<?xml version="1.0"?>\n<benchmark><entries><entry><generatedtripleset><gtriple>'
            + "<x>" * depth + "s | p | o" + "</x>" * depth + "</gtriple></generatedtripleset></entry></entries></benchmark>\n")
    paths = files(tmp_path, refs=xml([["s | p | o"]], "m"), cands=text)
    result = cli(*paths)
    if result.code == 0 and result.exc is None:
        return  # the text content is read as it is: fine
    assert_cli_error(result, "webnlg", paths[1])


def test_entry_count_mismatch(tmp_path):
    paths = files(tmp_path, refs=xml([["a | b | c"], ["d | e | f"]], "m"), cands=xml([["a | b | c"]], "g"))
    assert_cli_error(cli(*paths), "webnlg", paths[1])


def test_duplicate_reference_eid_refused_or_warned(tmp_path):
    text = xml([["a | b | c"], ["d | e | f"]], "m").replace('eid="Id2"', 'eid="Id1"')
    paths = files(tmp_path, refs=text, cands=xml([["a | b | c"], ["d | e | f"]], "g"))
    result = cli(*paths)
    if result.code == 0 and result.exc is None:
        assert "duplicate" in (result.out + result.err).lower(), f"duplicate eid scored silently: {result.describe()}"
    else:
        assert_cli_error(result, "webnlg", paths[0])


def test_compare_empty_candidate_file(tmp_path):
    paths = files(tmp_path, cands="")
    result = run_cli(["compare", "webnlg", "--reference", paths[0], "--predictions", paths[1], "--n-resamples", "20"])
    assert_cli_error(result, "compare", paths[1], 1)


# -- the evaluate module -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def module():
    return load_metric("webnlg_rdf")


@pytest.mark.parametrize("value", [5, None, ["a", "b", "c"], {"s": "a"}])
def test_module_non_string_triple_in_first_example(module, value):
    with library_error(0):
        module.compute(predictions=[[value], ["a | b | c"]], references=[["a | b | c"], ["a | b | c"]])


@pytest.mark.parametrize("value", [5, None, 1.5])
def test_module_non_string_triple_in_later_example(module, value):
    with library_error(2):
        module.compute(predictions=[["a | b | c"], ["a | b | c"], ["a | b | c", value]],
                       references=[["a | b | c"]] * 3)


def test_module_non_string_reference_in_later_example(module):
    with library_error(1):
        module.compute(predictions=[["a | b | c"], ["a | b | c"]], references=[["a | b | c"], [7]])


def test_module_string_instead_of_list_in_later_example(module):
    with library_error(1):
        module.compute(predictions=[["a | b | c"], "a | b | c"], references=[["a | b | c"], ["a | b | c"]])


def test_module_lone_surrogate_in_triple(module):
    with library_error(1):
        module.compute(predictions=[["a | b | c"], ["a | b | \ud800"]], references=[["a | b | c"], ["a | b | c"]])


# -- the loader --------------------------------------------------------------------------------

def test_loader_invalid_utf8_names_file_and_line(tmp_path):
    from benchscore.webnlg_rdf.loader import load_dataset

    data = REFS.encode().replace(b"Jacob_Bundsgaard", b"Jacob_\xc3\x28Bundsgaard", 1)
    line = data[: data.index(b"\xc3\x28")].count(b"\n") + 1
    path = write(tmp_path / "refs.xml", data)
    with loader_error(path, line):
        load_dataset(path)


def test_loader_bom_same_rows_or_refused(tmp_path):
    from benchscore.webnlg_rdf.loader import load_dataset

    assert_bom_same_rows_or_refused(load_dataset, tmp_path, REFS, ".xml")


# -- the Space ---------------------------------------------------------------------------------

def test_space_lone_surrogate_in_pasted_text(app):
    with space_error():
        app.score_text(REFS, CANDS.replace("Wheeler", "Whee\ud800ler", 1))


def test_space_table_with_too_few_columns(app):
    import pandas as pd

    table = pd.DataFrame([["reference", "Alan_Bean"], ["candidate", "Alan_Bean"]], columns=["side", "subject"])
    with space_error():
        app.score_table(table)


def test_space_table_with_an_extra_column(app):
    """An extra column is refused (issue 21: it was cut off and the rest scored)."""
    import pandas as pd

    header = [*app.TABLE_HEADERS, "note"]
    table = pd.DataFrame([[*row, "x"] for row in app.TABLE_EXAMPLE], columns=header)
    import gradio as gr

    with pytest.raises(gr.Error, match=rf"table row 1: found {len(header)} columns; expected {len(header) - 1} \("):
        app.score_table(table)


def test_space_invalid_utf8_upload(app, tmp_path):
    paths = files(tmp_path, cands=CANDS.encode().replace(b"Wheeler", b"Whe\xffeler", 1))
    with space_error():
        app.score_files(*paths)


# -- audit of issue 12, second round: the per-file cost budget, stray triple tags, OUT.json, aggregate ---

def heavy_entries(n, seed=0):
    """n entries of 16 x 16 distinct triples with 100-token elements over one 100-word vocabulary: about
    10 million work units (a second of scoring) each, the slowest kind of entry under the entry limits."""
    rng = random.Random(seed)
    words = [a + b for a in "abcd" for b in "abcdefghijklmnopqrstuvwxy"]  # 2 letters: 900-character triples

    def triple():
        return " | ".join(" ".join(rng.sample(words, 100)) for _ in range(3))

    return [[triple() for _ in range(16)] for _ in range(n)], [[triple() for _ in range(16)] for _ in range(n)]


BUDGET_MESSAGE = "entries 0 to 4 need {units} work units to score; expected at most 45,000,000 at once"


def test_budget_counts_before_scoring_and_names_the_entry():
    from benchscore.webnlg_rdf import scoring

    refs, cands = heavy_entries(6)
    units = sum(scoring.scoring_cost(r, c) for r, c in zip(refs[:5], cands[:5]))
    units += scoring.tokenizing_cost([t for r in refs[:5] for t in r], [t for c in cands[:5] for t in c], set())
    assert 9_000_000 < units / 5 < 11_000_000
    with pytest.raises(ValueError, match="^example 4: ") as err:
        scoring.check_cost(refs, cands)
    assert BUDGET_MESSAGE.format(units=f"{units:,}") in str(err.value)
    assert scoring.check_cost(refs[:4], cands[:4]) <= scoring.MAX_COST


def test_cli_and_compare_refuse_a_file_over_the_budget_before_scoring(tmp_path, monkeypatch):
    from benchscore.webnlg_rdf import scoring

    def never(*args, **kwargs):
        raise AssertionError("an entry was scored before the budget was checked")

    refs, cands = heavy_entries(6)
    paths = files(tmp_path, refs=xml(refs, "m"), cands=xml(cands, "g"))
    monkeypatch.setattr(scoring, "search_assignment", never)
    result = cli(*paths)
    assert_cli_error(result, "webnlg", paths[1], 84)  # the candidate <entry> line of entry 4
    assert "need" in result.err and "expected at most 45,000,000 at once" in result.err
    result = run_cli(["compare", "webnlg", "--gold", paths[0], "--predictions", paths[1], "--n-resamples", "10"])
    assert_cli_error(result, "compare", paths[1], 84)


def test_space_refuses_uploads_and_tables_over_the_budget(app, tmp_path):
    import gradio as gr
    import pandas as pd

    refs, cands = heavy_entries(6)
    with space_error():
        app.score_files(*files(tmp_path, refs=xml(refs, "m"), cands=xml(cands, "g")))
    table = [[str(i), side, triple] for i in range(6) for side, entries in (("reference", refs), ("candidate", cands))
             for triple in entries[i]]
    with pytest.raises(gr.Error, match="table entry '4': entries 0 to 4 need"):
        app.score_table(pd.DataFrame(table, columns=app.TABLE_HEADERS))
    assert app.TIME_LIMIT <= 10


@pytest.mark.parametrize("tripleset, stray, expected, which", [
    ("generatedtripleset", "mtriple", "gtriple", "cands"),
    ("modifiedtripleset", "gtriple", "mtriple", "refs"),
    ("generatedtripleset", "triple", "gtriple", "cands"),
])
def test_a_stray_element_in_a_triple_set_is_refused(tmp_path, tripleset, stray, expected, which):
    """The official reads only <gtriple> (<mtriple>) there: a stray element would be dropped silently."""
    refs, cands = [["a | b | c"], ["d | e | f"]], [["a | b | c"], ["d | e | f"]]
    texts = {"refs": xml(refs, "m"), "cands": xml(cands, "g")}
    lines = texts[which].split("\n")
    at = next(i for i, line in enumerate(lines) if "d | e | f" in line)
    lines.insert(at + 1, f"        <{stray}>x | y | z</{stray}>")
    texts[which] = "\n".join(lines)
    paths = files(tmp_path, refs=texts["refs"], cands=texts["cands"])
    result = cli(*paths)
    path = paths[0] if which == "refs" else paths[1]
    assert_cli_error(result, "webnlg", path, at + 2)
    assert f"found <{stray}> in <{tripleset}>; expected <{expected}> only" in result.err


@pytest.mark.parametrize("which", [0, 1])
def test_an_output_path_equal_to_an_input_is_refused_before_writing(tmp_path, which):
    paths = files(tmp_path)
    before = pathlib.Path(paths[which]).read_bytes()
    same = tmp_path / "link.xml"
    same.symlink_to(paths[which])
    for output in (paths[which], str(tmp_path / "." / pathlib.Path(paths[which]).name), same):
        result = run_cli(["webnlg", *paths, output, "--no-progress"])
        assert_cli_error(result, "webnlg", output, 1)
        assert "the output file is the input file" in result.err
        assert pathlib.Path(paths[which]).read_bytes() == before
    assert_cli_ok(run_cli(["webnlg", *paths, tmp_path / "out.json", "--no-progress"]))


@pytest.mark.parametrize("bad, named", [
    ([None], "example 0"), (["stats"], "example 0"), ("ab", "stats is str"), (None, "stats is NoneType"), (3, "stats is int"),
])
def test_aggregate_and_breakdown_refuse_what_is_not_item_stats(bad, named):
    from benchscore.webnlg_rdf import scoring

    good = scoring.entry_stats(["a | b | c"], ["a | b | c"])
    stats = [good, *bad] if isinstance(bad, list) else bad
    named = named.replace("example 0", "example 1") if isinstance(bad, list) else named
    for function in (scoring.aggregate, lambda s: scoring.breakdown(s, [None] * 2)):
        with pytest.raises(TypeError, match=f"^{named}") as err:
            function(stats)
        assert "expected" in str(err.value) and "ItemStats" in str(err.value)
