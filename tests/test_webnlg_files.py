"""webnlg_rdf files and loader: WebNLG XML read as the official scorer reads it, safely, with
`FILE:LINE:` errors."""

import datasets
import pytest

from benchscore.webnlg_rdf import files
from benchscore.webnlg_rdf import loader
from conftest import shared_path

REFERENCES = """<?xml version='1.0' encoding='utf-8'?>
<benchmark>
  <entries>
    <entry category="Airport" eid="Id7" size="2">
      <originaltripleset>
        <otriple>Original | notUsed | Triple</otriple>
      </originaltripleset>
      <modifiedtripleset>
        <mtriple>Aarhus_Airport | cityServed | &quot;Aarhus, Denmark&quot;</mtriple>
        <mtriple> College_of_William_&amp;_Mary | country | United_States </mtriple>
      </modifiedtripleset>
      <modifiedtripleset>
        <mtriple>Second | tripleset | Ignored</mtriple>
      </modifiedtripleset>
      <lex comment="good" lang="en" lid="1">Aarhus Airport serves Aarhus.</lex>
      <lex comment="good" lang="en" lid="2">It serves Aarhus, Denmark.</lex>
    </entry>
    <entry category="Astronaut" eid="Id8" size="1">
      <modifiedtripleset>
        <mtriple>Alan_Bean | occupation | Test_pilot</mtriple>
      </modifiedtripleset>
      <lex lang="en" lid="1">Alan Bean was a test pilot.</lex>
    </entry>
  </entries>
</benchmark>
"""

# One line, no eid, a bare '&' (as CycleGT's real submission has), an HTML entity.
CANDIDATES_ONE_LINE = (
    '<?xml version="1.0" ?><benchmark><entries><entry><generatedtripleset>'
    '<gtriple>Aarhus_Airport | cityServed | "Aarhus"</gtriple>'
    "<gtriple>College_of_William_&_Mary | country | Caf&eacute;</gtriple>"
    "</generatedtripleset></entry><entry><generatedtripleset/></entry></entries></benchmark>"
)

CANDIDATES_PRETTY = """<?xml version="1.0" ?>
<benchmark>
  <entries>
    <entry eid="Id7">
      <generatedtripleset>
        <gtriple>Aarhus_Airport | cityServed | Aarhus</gtriple>
      </generatedtripleset>
    </entry>
    <entry eid="Id8">
      <generatedtripleset>
      </generatedtripleset>
    </entry>
  </entries>
</benchmark>
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_read_references(tmp_path):
    rows = files.read_references(write(tmp_path, "refs.xml", REFERENCES))
    assert rows == [
        {
            "eid": "Id7",
            "category": "Airport",
            "size": 2,
            # first <modifiedtripleset> only; entities decoded; surrounding white space kept
            "triples": ['Aarhus_Airport | cityServed | "Aarhus, Denmark"', " College_of_William_&_Mary | country | United_States "],
            "lexicalisations": ["Aarhus Airport serves Aarhus.", "It serves Aarhus, Denmark."],
            "line": 4,
            "triple_lines": [9, 10],
        },
        {
            "eid": "Id8",
            "category": "Astronaut",
            "size": 1,
            "triples": ["Alan_Bean | occupation | Test_pilot"],
            "lexicalisations": ["Alan Bean was a test pilot."],
            "line": 18,
            "triple_lines": [20],
        },
    ]


def test_read_candidates_one_line_without_eid_and_pretty_printed(tmp_path):
    assert files.read_predictions(write(tmp_path, "one_line.xml", CANDIDATES_ONE_LINE)) == [
        {"eid": None, "triples": ['Aarhus_Airport | cityServed | "Aarhus"', "College_of_William_&_Mary | country | Café"],
         "line": 1, "triple_lines": [1, 1]},
        {"eid": None, "triples": [], "line": 1, "triple_lines": []},  # <generatedtripleset/>: no triple
    ]
    assert files.read_predictions(write(tmp_path, "pretty.xml", CANDIDATES_PRETTY)) == [
        {"eid": "Id7", "triples": ["Aarhus_Airport | cityServed | Aarhus"], "line": 4, "triple_lines": [6]},
        {"eid": "Id8", "triples": [], "line": 9, "triple_lines": []},
    ]


def test_load_dataset_has_explicit_features_and_pairs_by_position(tmp_path):
    refs = write(tmp_path, "refs.xml", REFERENCES)
    ds = loader.load_dataset(refs, write(tmp_path, "cands.xml", CANDIDATES_ONE_LINE))
    assert isinstance(ds, datasets.Dataset) and ds.features == loader.dataset_features()
    assert ds.num_rows == 2
    assert ds[1] == {"eid": "Id8", "category": "Astronaut", "size": 1,
                     "references": ["Alan_Bean | occupation | Test_pilot"], "predictions": [],
                     "lexicalisations": ["Alan Bean was a test pilot."]}
    without = loader.load_dataset(refs)
    assert "predictions" not in without.column_names and without.features == loader.dataset_features(False)


def test_missing_generatedtripleset_names_the_entry(tmp_path):
    path = write(tmp_path, "c.xml", CANDIDATES_PRETTY.replace("<generatedtripleset>\n      </generatedtripleset>", ""))
    with pytest.raises(ValueError, match=r"c.xml:9: entry 1 \(eid 'Id8'\) has no <generatedtripleset>"):
        files.read_predictions(path)


def test_missing_modifiedtripleset_and_bad_size(tmp_path):
    no_triples = REFERENCES.replace("<modifiedtripleset>\n        <mtriple>Alan_Bean | occupation | Test_pilot</mtriple>\n      </modifiedtripleset>", "")
    with pytest.raises(ValueError, match=r"r1.xml:18: entry 1 \(eid 'Id8'\) has no <modifiedtripleset>"):
        files.read_references(write(tmp_path, "r1.xml", no_triples))
    with pytest.raises(ValueError, match="r2.xml:4: entry 0 .* has size 'two'; expected a number of triples from 0 to "
                                         "2,147,483,647$"):
        files.read_references(write(tmp_path, "r2.xml", REFERENCES.replace('size="2"', 'size="two"')))


@pytest.mark.parametrize("size", ["-1", "2147483648", str(10**30)])
def test_a_size_out_of_range_is_named_in_every_reader(tmp_path, size):
    """Not a raw Arrow range error from the loader, naming no file or entry (issue 21)."""
    from benchscore.webnlg_rdf.loader import load_dataset

    path = write(tmp_path, "r.xml", REFERENCES.replace('size="2"', f'size="{size}"'))
    message = rf"r.xml:4: entry 0 .* has size '{size}'; expected a number of triples from 0 to 2,147,483,647$"
    with pytest.raises(ValueError, match=message):
        files.read_references(path)
    with pytest.raises(ValueError, match=message):
        load_dataset(str(path))


def test_entry_count_mismatch_is_an_error(tmp_path):
    one_entry = CANDIDATES_PRETTY.replace('<entry eid="Id8">\n      <generatedtripleset>\n      </generatedtripleset>\n    </entry>', "")
    with pytest.raises(ValueError, match=r"c.xml:4: 1 entries, and .*r.xml has 2; expected as many \(entries are paired by position\)"):
        loader.load_dataset(write(tmp_path, "r.xml", REFERENCES), write(tmp_path, "c.xml", one_entry))


BOMB = """<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<benchmark><entries><entry><generatedtripleset><gtriple>&lol3;</gtriple></generatedtripleset></entry></entries></benchmark>
"""
EXTERNAL = """<?xml version="1.0"?>
<!DOCTYPE benchmark [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<benchmark><entries><entry><generatedtripleset><gtriple>&secret;</gtriple></generatedtripleset></entry></entries></benchmark>
"""
EXTERNAL_DTD = """<?xml version="1.0"?>
<!DOCTYPE benchmark SYSTEM "http://127.0.0.1:9/evil.dtd">
<benchmark><entries><entry><generatedtripleset/></entry></entries></benchmark>
"""


@pytest.mark.parametrize("text, line", [(BOMB, 2), (EXTERNAL, 2)])
def test_entity_expansion_and_external_entities_are_refused(tmp_path, text, line):
    with pytest.raises(ValueError, match=f"evil.xml:{line}: found an entity declaration"):
        files.read_predictions(write(tmp_path, "evil.xml", text))


def test_external_dtd_is_never_fetched(tmp_path):
    # Nothing listens on port 9 and nothing is fetched: the file parses as one empty entry.
    assert files.read_predictions(write(tmp_path, "dtd.xml", EXTERNAL_DTD))[0]["triples"] == []


def test_size_limit_and_malformed_xml(tmp_path, monkeypatch):
    path = write(tmp_path, "c.xml", CANDIDATES_PRETTY)
    monkeypatch.setattr(files, "MAX_XML_BYTES", 100)
    with pytest.raises(ValueError, match=r"c.xml:1: the file has 317 bytes; expected at most 100"):
        files.read_predictions(path)
    monkeypatch.undo()
    with pytest.raises(ValueError, match=r"bad.xml:3: not well-formed XML \(mismatched tag at column 10\)"):
        files.read_predictions(write(tmp_path, "bad.xml", "<benchmark>\n<entries>\n<entry></entries>"))
    with pytest.raises(ValueError, match="root.xml:1: the root element is <entries>; expected <benchmark>"):
        files.read_predictions(write(tmp_path, "root.xml", "<entries></entries>"))
    bad_utf8 = tmp_path / "latin1.xml"
    bad_utf8.write_bytes("<benchmark>\n<entries>caf\xe9</entries></benchmark>".encode("latin-1"))
    with pytest.raises(ValueError, match="latin1.xml:2: byte 0xe9 at column 13 is not UTF-8"):
        files.read_predictions(bad_utf8)


@pytest.mark.parametrize("text, line, message", [
    ("", 1, "the file is empty"),
    ("  \n\n", 1, "the file is empty"),
    ("<benchmark/>", 1, "<benchmark> has no <entries> element"),
    ("<benchmark>\n <entries>\n </entries>\n</benchmark>", 2, "<entries> has no <entry>; expected at least one"),
])
def test_empty_files_are_refused(tmp_path, text, line, message):
    for read in (files.read_references, files.read_predictions):
        with pytest.raises(ValueError, match=f"^.*e.xml:{line}: {message}"):
            read(write(tmp_path, "e.xml", text))


def test_an_entry_that_cannot_be_scored_names_the_line_of_its_triple(tmp_path):
    refs = write(tmp_path, "r.xml", REFERENCES)
    cands = write(tmp_path, "c.xml", CANDIDATES_PRETTY.replace("| cityServed | Aarhus", "| cityServed"))
    with pytest.raises(ValueError, match=r"c.xml:6: entry 0 \(reference eid 'Id7'\): reference triple 0 .* against "
                                         r"candidate triple 0 'Aarhus_Airport \| cityServed'"):
        files.file_stats(refs, cands)
    refs = write(tmp_path, "r.xml", REFERENCES.replace("Alan_Bean | occupation | Test_pilot", "Alan_Bean | occupation"))
    with pytest.raises(ValueError, match=r"r.xml:20: entry 1 \(reference eid 'Id8'\): reference triple 0"):
        files.file_stats(refs, write(tmp_path, "c2.xml", CANDIDATES_PRETTY.replace("</generatedtripleset>\n    </entry>\n  </entries>", "<gtriple>a | b | c</gtriple></generatedtripleset>\n    </entry>\n  </entries>")))


# --- the real 2020 files (facts from SOURCES.md) ------------------------------------------------
@pytest.mark.parametrize(
    "path, entries, triples",
    [
        (("references", "en_all.xml"), 2155, 6945),
        (("references", "ru_all.xml"), 1206, 3784),
        (("example", "Refs.xml"), 15, 30),
    ],
)
def test_real_reference_files(path, entries, triples):
    rows = files.read_references(shared_path("data", "webnlg", *path))
    assert len(rows) == entries and sum(len(r["triples"]) for r in rows) == triples
    assert all(r["size"] == len(r["triples"]) for r in rows)


@pytest.mark.parametrize(
    "system, triples",
    [("bt5", 6667), ("amazon_ai_shanghai", 7151), ("baseline", 7631), ("cyclegt", 3974)],
)
def test_real_submissions(system, triples):
    rows = files.read_predictions(shared_path("data", "webnlg", "submissions", "en", system, "all.xml"))
    assert len(rows) == 2155 and sum(len(r["triples"]) for r in rows) == triples


def test_split_files_are_subsets_of_the_full_files_after_entity_decoding():
    """SOURCES.md: each split entry equals the en_all entry with the same eid, and each split
    submission entry the all.xml entry at that reference position (serialisations differ)."""
    data = shared_path("data", "webnlg")
    full = files.read_references(data / "references" / "en_all.xml")
    position = {row["eid"]: i for i, row in enumerate(full)}
    all_candidates = files.read_predictions(data / "submissions" / "en" / "amazon_ai_shanghai" / "all.xml")
    for split in ("seen", "unseen_entities", "unseen_categories"):
        references = files.read_references(data / "references" / f"en_{split}.xml")
        candidates = files.read_predictions(data / "submissions" / "en" / "amazon_ai_shanghai" / f"{split}.xml")
        assert len(references) == len(candidates)
        for reference, candidate in zip(references, candidates):
            i = position[reference["eid"]]
            assert reference["triples"] == full[i]["triples"]
            assert candidate["triples"] == all_candidates[i]["triples"]


def test_files_with_no_triple_at_all_are_refused(tmp_path):
    refs = write(tmp_path, "r.xml", "<benchmark><entries>\n<entry><modifiedtripleset/></entry></entries></benchmark>")
    cands = write(tmp_path, "c.xml", "<benchmark><entries><entry><generatedtripleset/></entry></entries></benchmark>")
    with pytest.raises(ValueError, match=r"r.xml:2: no entry has a reference or candidate triple; expected at least one"):
        files.file_stats(refs, cands)
