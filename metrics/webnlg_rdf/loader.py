"""WebNLG XML -> plain rows or a `datasets.Dataset`, read the way the official scorer reads them.

The official script parses both files with `BeautifulSoup(fp, "lxml")` and walks
`benchmark > entries > entry`. Per entry it takes the *first* `<modifiedtripleset>` and all its
`<mtriple>` texts (references), or the first `<generatedtripleset>` and all its `<gtriple>` texts
(candidates); a text is the element's whole text with entities decoded and surrounding white space
kept. Candidate entries are paired with reference entries **by position**: `eid` and `category`
are ignored (the scorer's own example pairs candidate Id19 with reference Id1). Candidate files may
have `eid`s or not and be one line or pretty printed; `<generatedtripleset/>` means no triple.

Safety: the files are parsed with the stdlib expat parser configured to refuse what makes XML
dangerous -- any entity declaration (so no entity expansion: "billion laughs"), external entities
and external DTDs (no file or network access) -- and files above `MAX_XML_BYTES` are refused
before parsing. Each refusal is a `ValueError` naming the file. Where the official's HTML parser is
more lenient we follow it where real files need it: a bare `&` is text (CycleGT's submission has
`College_of_William_&_Mary`), HTML named entities such as `&eacute;` are decoded, and tag names
are matched case-insensitively.

Bad input gets a `ValueError` naming the file, the entry (position and eid) and what was expected:
a candidate entry without `<generatedtripleset>` (the official crashes), a reference entry without
`<modifiedtripleset>`, and a different number of candidate and reference entries (the official
crashes on more candidates and, in its Exact_match part, on fewer).

    >>> from benchscore.webnlg_rdf.loader import load_dataset
    >>> ds = load_dataset("references.xml", "candidates.xml")   # doctest: +SKIP
"""

import html.entities
import os
import re
import xml.etree.ElementTree as ET
from xml.parsers import expat

MAX_XML_BYTES = 256 * 2**20  # the 2020 English reference file is 2 MB


def dataset_features(with_predictions=True):
    """The explicit `datasets.Features` of `load_dataset`'s rows. (`datasets` is imported here, not at
    module level: it takes seconds to import, and the CLI's XML reading does not need it.)"""
    import datasets

    features = {
        "eid": datasets.Value("string"),
        "category": datasets.Value("string"),
        "size": datasets.Value("int32"),
        "references": datasets.List(datasets.Value("string")),
        "predictions": datasets.List(datasets.Value("string")),
        "lexicalisations": datasets.List(datasets.Value("string")),
    }
    if not with_predictions:
        del features["predictions"]
    return datasets.Features(features)


_AMPERSAND = re.compile(r"&(?:([A-Za-z][A-Za-z0-9]*);|#[0-9]+;|#[xX][0-9A-Fa-f]+;)?")
_XML_ENTITIES = frozenset(("lt", "gt", "amp", "quot", "apos"))


def _html_ampersand(match):
    """As the official's HTML parser reads `&`: character references and known named entities are
    decoded, anything else is a literal `&`."""
    name = match.group(1)
    if match.group(0) == "&":
        return "&amp;"
    if name is None or name in _XML_ENTITIES:
        return match.group(0)
    if name + ";" in html.entities.html5:
        return "".join(f"&#{ord(char)};" for char in html.entities.html5[name + ";"])
    return "&amp;" + name + ";"


class _Refused(Exception):
    pass


def _refuse(what):
    def handler(*args):
        raise _Refused(what)

    return handler


def parse_xml(path):
    """The root `ET.Element` of an XML file parsed safely (see the module docstring); tag names lower-cased."""
    size = os.path.getsize(path)
    if size > MAX_XML_BYTES:
        raise ValueError(f"{path}: {size} bytes is above the {MAX_XML_BYTES}-byte limit for a WebNLG XML file")
    builder = ET.TreeBuilder()
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)  # never read an external DTD
    parser.EntityDeclHandler = _refuse("an entity declaration (<!ENTITY ...>)")
    parser.UnparsedEntityDeclHandler = _refuse("an unparsed entity declaration")
    parser.ExternalEntityRefHandler = _refuse("an external entity reference")
    parser.StartElementHandler = lambda tag, attributes: builder.start(tag.lower(), attributes)
    parser.EndElementHandler = lambda tag: builder.end(tag.lower())
    parser.CharacterDataHandler = builder.data
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise ValueError(f"{path}: line {line} is not valid UTF-8 (byte {err.start}); WebNLG files are UTF-8") from None
    try:
        parser.Parse(_AMPERSAND.sub(_html_ampersand, text), True)
    except _Refused as err:
        raise ValueError(f"{path}: refused to parse {err}: WebNLG files need none, and entities can expand "
                         "without bound or read other files") from None
    except expat.ExpatError as err:
        raise ValueError(f"{path}: not well-formed XML: {expat.ErrorString(err.code)} "
                         f"at line {err.lineno}, column {err.offset}") from None
    return builder.close()


def _entries(root, path):
    if root.tag != "benchmark":
        raise ValueError(f"{path}: the root element is <{root.tag}>; expected <benchmark>")
    entries = root.find("entries")
    if entries is None:
        raise ValueError(f"{path}: <benchmark> has no <entries> element")
    return list(entries.iter("entry"))


def _texts(element, tag):
    return ["".join(child.itertext()) for child in element.iter(tag)]


def _where(path, index, entry):
    eid = entry.get("eid")
    return f"{path}: entry {index}" + (f" (eid {eid!r})" if eid is not None else "")


def read_references(path):
    """Per `<entry>` in file order: {"eid", "category", "size", "triples", "lexicalisations"}. `triples`
    are the `<mtriple>` texts of the first `<modifiedtripleset>`; `size` is the `size` attribute
    (the number of triples when it is absent)."""
    rows = []
    for index, entry in enumerate(_entries(parse_xml(path), path)):
        tripleset = entry.find(".//modifiedtripleset")
        if tripleset is None:
            raise ValueError(f"{_where(path, index, entry)} has no <modifiedtripleset>; expected the reference triples")
        triples = _texts(tripleset, "mtriple")
        size = entry.get("size", str(len(triples)))
        try:
            size = int(size)
        except ValueError:
            raise ValueError(f"{_where(path, index, entry)}: size is {size!r}; expected an integer") from None
        rows.append(
            {
                "eid": entry.get("eid"),
                "category": entry.get("category"),
                "size": size,
                "triples": triples,
                "lexicalisations": _texts(entry, "lex"),
            }
        )
    return rows


def read_candidates(path):
    """Per `<entry>` in file order: {"eid" (None when absent), "triples"}: the `<gtriple>` texts of the
    first `<generatedtripleset>`."""
    rows = []
    for index, entry in enumerate(_entries(parse_xml(path), path)):
        tripleset = entry.find(".//generatedtripleset")
        if tripleset is None:
            raise ValueError(
                f"{_where(path, index, entry)} has no <generatedtripleset>; expected one "
                "(empty, <generatedtripleset/>, for no triple)"
            )
        rows.append({"eid": entry.get("eid"), "triples": _texts(tripleset, "gtriple")})
    return rows


def pair_entries(references, candidates, references_path="references", candidates_path="candidates"):
    """Check that the two files have the same number of entries (they are paired by position)."""
    if len(references) != len(candidates):
        raise ValueError(
            f"{candidates_path} has {len(candidates)} entries and {references_path} has {len(references)}; "
            "entries are paired by position, so the numbers must be equal"
        )


def load_dataset(references_path, candidates_path=None):
    """One row per reference entry: eid, category, size, references, lexicalisations, and predictions
    (the candidate triples of the entry at the same position) when `candidates_path` is given."""
    from datasets import Dataset

    from benchscore import data  # `official:<split>` -> the store's verified file (benchscore.data)
    references_path = data.resolve("webnlg", references_path)
    references = read_references(references_path)
    columns = {
        "eid": [row["eid"] for row in references],
        "category": [row["category"] for row in references],
        "size": [row["size"] for row in references],
        "references": [row["triples"] for row in references],
        "lexicalisations": [row["lexicalisations"] for row in references],
    }
    if candidates_path is not None:
        candidates = read_candidates(candidates_path)
        pair_entries(references, candidates, references_path, candidates_path)
        columns["predictions"] = [row["triples"] for row in candidates]
    features = dataset_features(with_predictions=candidates_path is not None)
    return Dataset.from_dict({name: columns[name] for name in features}, features=features)
