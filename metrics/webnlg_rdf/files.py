"""WebNLG XML files -> validated entries and per-entry statistics: the one read path of this benchmark
(the CLI, `benchscore compare webnlg`, the loader and the Space).

Read as the official scorer reads them (`BeautifulSoup(fp, "lxml")`): per entry the *first*
`<modifiedtripleset>`'s `<mtriple>` texts (references) or `<generatedtripleset>`'s `<gtriple>` texts
(candidates), whole, entities decoded, white space kept; entries pair **by position** (eids unused).
Like that HTML parser, a bare `&` is text (CycleGT's `College_of_William_&_Mary`), HTML named
entities are decoded and tag names are case-insensitive. Safety (size limit, UTF-8, no entity
declarations, external entities or DTDs) is all here; every error is `FILE:LINE: ...`.
"""

import html.entities
import os
import re
import sys
import time
import xml.etree.ElementTree as ET
from functools import partial
from typing import Any
from xml.parsers import expat

from benchscore import data
from benchscore.core.readers import at_line, iter_line_blocks
from benchscore.core.records import Note
from benchscore.webnlg_rdf import scoring
from benchscore.webnlg_rdf.scoring import EntryError, capped, scored_entry

MAX_XML_BYTES = 16 << 20  # one XML file: 16 MiB (the 2020 English references are 2 MB)

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


def parse_xml(path):
    """(root element, {element: its line}) of an XML file parsed safely; tag names lower-cased."""
    size = os.path.getsize(path)
    if size > MAX_XML_BYTES:
        raise at_line(path, 1, f"the file has {size:,} bytes; expected at most {MAX_XML_BYTES:,} "
                               "(the limit for one WebNLG XML file)")
    text = "\n".join("\n".join(lines) for _, lines in iter_line_blocks(path))  # XML reads CRLF as LF anyway
    if not text.strip():
        raise at_line(path, 1, "the file is empty; expected a WebNLG XML file (<benchmark><entries><entry>...)")
    builder, lines = ET.TreeBuilder(), {}
    parser = expat.ParserCreate()

    def refuse(what, *_):
        raise at_line(path, parser.CurrentLineNumber, f"found {what}; expected none (WebNLG files need none, "
                                                      "and entities can expand without bound or read other files)")

    def start(tag, attributes):
        lines[builder.start(tag.lower(), attributes)] = parser.CurrentLineNumber

    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)  # never read an external DTD
    parser.EntityDeclHandler = partial(refuse, "an entity declaration (<!ENTITY ...>)")
    parser.UnparsedEntityDeclHandler = partial(refuse, "an unparsed entity declaration")
    parser.ExternalEntityRefHandler = partial(refuse, "an external entity reference")
    parser.StartElementHandler = start
    parser.EndElementHandler = lambda tag: builder.end(tag.lower())
    parser.CharacterDataHandler = builder.data
    parser.buffer_text = True  # a text node in one call, not one per line or entity
    try:
        parser.Parse(_AMPERSAND.sub(_html_ampersand, text), True)
    except expat.ExpatError as err:
        raise at_line(path, err.lineno, f"not well-formed XML ({expat.ErrorString(err.code)} at column "
                                        f"{err.offset + 1}); expected a WebNLG XML file") from None
    return builder.close(), lines


def _texts(element, tag, lines):
    children = list(element.iter(tag))
    return ["".join(child.itertext()) for child in children], [lines[child] for child in children]


def _triples(path, tripleset, tag, lines):
    """`_texts` of a triple set that holds no other element: the official reads only `tag` there, so an
    `<mtriple>` among candidates (or any other element) would be dropped without a word."""
    for child in tripleset.iter():
        if child is not tripleset and child.tag != tag:
            raise at_line(path, lines[child], f"found <{child.tag}> in <{tripleset.tag}>; expected <{tag}> only "
                                              "(the official script reads only those and would drop it silently)")
    return _texts(tripleset, tag, lines)


def _name(index, eid):
    return f"entry {index}" + (f" (eid {eid!r})" if eid is not None else "")


def _read(path, tripleset, triple, expected):
    root, lines = parse_xml(path)
    if root.tag != "benchmark":
        raise at_line(path, lines[root], f"the root element is <{root.tag}>; expected <benchmark>")
    entries = root.find("entries")
    if entries is None:
        raise at_line(path, lines[root], "<benchmark> has no <entries> element; expected <entries> with <entry> "
                                         "elements")
    if next(entries.iter("entry"), None) is None:
        raise at_line(path, lines[entries], "<entries> has no <entry>; expected at least one entry")
    for index, entry in enumerate(entries.iter("entry")):
        eid, found = entry.get("eid"), next(entry.iter(tripleset), None)  # (its first descendant so named)
        if found is None:
            raise at_line(path, lines[entry], f"{_name(index, eid)} has no <{tripleset}>; expected {expected}")
        triples, triple_lines = _triples(path, found, triple, lines)
        yield {"eid": eid, "triples": triples, "line": lines[entry], "triple_lines": triple_lines}, entry, lines


MAX_SIZE = 2**31 - 1  # an entry's size attribute (a number of triples): what the loader's int32 holds


def read_references(path: str | os.PathLike) -> Any:
    """Per `<entry>` in file order: {"eid", "triples", "line", "triple_lines", "category", "size",
    "lexicalisations"}: the `<mtriple>` texts of the first `<modifiedtripleset>`, their lines (from 1),
    the `size` attribute (the number of triples when absent) and the `<lex>` texts. `path` may be
    `official:en` (en_seen, en_unseen_entities, en_unseen_categories, ru): the data store's copy."""
    path = data.resolve("webnlg", path)
    rows: list = []
    for row, entry, lines in _read(path, "modifiedtripleset", "mtriple", "the reference triples"):
        size = entry.get("size", str(len(row["triples"])))
        try:
            size = int(size)
        except ValueError:
            size = None
        if size is None or not 0 <= size <= MAX_SIZE:  # the loader stores it as an int32
            raise at_line(path, row["line"], f"{_name(len(rows), row['eid'])} has size {entry.get('size')!r}; expected "
                                             f"a number of triples from 0 to {MAX_SIZE:,}")
        rows.append({**row, "category": entry.get("category"), "size": size,
                     "lexicalisations": _texts(entry, "lex", lines)[0]})
    return rows


def read_predictions(path: str | os.PathLike) -> Any:
    """Per `<entry>` in file order: {"eid" (None when absent), "triples", "line", "triple_lines"}: the
    `<gtriple>` texts of the first `<generatedtripleset>` and their lines."""
    expected = "one (empty, <generatedtripleset/>, for no triple)"
    return [row for row, _, _ in _read(path, "generatedtripleset", "gtriple", expected)]


def _eid_warnings(reference_path, candidate_path, references, candidates):
    """A reference eid given twice, and candidate eids that differ from the reference's at the same
    position: the official pairs entries by position and never reads eids, so both are scored."""
    found, first = [], {}
    for index, row in enumerate(references):
        if row["eid"] is not None and row["eid"] in first:
            found.append(Note("duplicate_eid", f"{reference_path}:{row['line']}: entry {index} has eid {row['eid']!r}, "
                              f"a duplicate of entry {first[row['eid']]}; both are scored (entries are paired by "
                              "position, as in the official script)"))
        first.setdefault(row["eid"], index)
    mismatched = [(index, ref, cand) for index, (ref, cand) in enumerate(zip(references, candidates))
                  if None not in (cand["eid"], ref["eid"]) and cand["eid"] != ref["eid"]]
    if mismatched:
        index, ref, cand = mismatched[0]
        found.append(Note("mismatched_eids", f"{candidate_path}:{cand['line']}: entry {index} has eid {cand['eid']!r} "
                          f"and the reference entry at that position {ref['eid']!r} ({len(mismatched)} such entries); "
                          "entries are paired by position and eids are not used (as in the official script)"))
    return found


def read_pair(reference_path, candidate_path, warnings=None):
    """(references, candidates) of two files with the same number of entries (paired by position);
    the eid warnings are appended to `warnings` (a list) when given."""
    references, candidates = read_references(reference_path), read_predictions(candidate_path)
    if len(references) != len(candidates):
        line = candidates[len(references)]["line"] if len(candidates) > len(references) else candidates[-1]["line"]
        raise at_line(candidate_path, line, f"{len(candidates)} entries, and {reference_path} has {len(references)}; "
                                            "expected as many (entries are paired by position)")
    if warnings is not None:
        warnings.extend(_eid_warnings(reference_path, candidate_path, references, candidates))
    return references, candidates


def _located(reference_path, candidate_path, references, candidates, index, err):
    """An `EntryError` of entry `index` at the line of the triple it blames (else the candidate entry)."""
    reference = references[index]
    path, row = (reference_path, reference) if err.side == "reference" else (candidate_path, candidates[index])
    line = row["line"] if err.triple is None or err.triple >= len(row["triple_lines"]) else row["triple_lines"][err.triple]
    eid = "" if reference["eid"] is None else f" (reference eid {reference['eid']!r})"
    where = "" if err.side == "entries" else f"entry {index}{eid}: "  # (the running total names its entries)
    return at_line(path, line, f"{where}{err.detail}")


def check_cost(reference_path, candidate_path, references, candidates, limit=scoring.MAX_COST):
    """Refuses, before scoring, files whose entries need more than `limit` work units (`scoring.check_cost`),
    at the line of the entry where the running total passes it. Returns the total."""
    return _checked(reference_path, candidate_path, references, candidates, limit)[0]


def _checked(reference_path, candidate_path, references, candidates, limit=scoring.MAX_COST):
    """`scoring.checked_entries` of the files' entries, its errors at their lines."""
    return scoring.checked_entries([row["triples"] for row in references], [row["triples"] for row in candidates],
                                   limit, partial(_located, reference_path, candidate_path, references, candidates))


def _check_time(deadline, time_limit, index, total, path, candidate):
    if deadline is not None and time.monotonic() > deadline:
        raise at_line(path, candidate["line"], f"scoring stopped at entry {index} of {total}, after {time_limit} s; "
                                               f"expected files that score within {time_limit} s here (the "
                                               "command line `benchscore webnlg` has no time limit)")


def file_stats(reference_path: str | os.PathLike, candidate_path: str | os.PathLike,
               warnings: list | None = None) -> Any:
    """The per-entry `ItemStats` of a candidate file against a reference file (for `compare`; warnings
    as in `scored_entries`)."""
    return scored_entries(reference_path, candidate_path, warnings)[2]


def scored_entries(reference_path: str | os.PathLike, candidate_path: str | os.PathLike, warnings: list | None = None,
                   progress: Any = None, time_limit: float | None = None) -> tuple:
    """(references, candidates, per-entry `ItemStats`) of a candidate file against a reference file.
    Warnings (eids, official quirks met; at most `scoring.capped`'s number) are appended to
    `warnings` (a list) when given; `progress(iterable, total)` may wrap the entry loop;
    `time_limit` (seconds, e.g. a Space's) stops a file whose entries together take longer."""
    found: list = []
    references, candidates = read_pair(reference_path, candidate_path, found)
    _, checked = _checked(reference_path, candidate_path, references, candidates)
    pairs = enumerate(zip(references, candidates))
    stats = []
    deadline = None if time_limit is None else time.monotonic() + time_limit
    for index, (reference, candidate) in progress(pairs, len(references)) if progress else pairs:
        _check_time(deadline, time_limit, index, len(references), candidate_path, candidate)
        try:
            stats.append(scored_entry(reference["triples"], candidate["triples"], *checked[index]))
        except EntryError as err:
            raise _located(reference_path, candidate_path, references, candidates, index, err) from None
        for side, triple, message in stats[-1].warnings:  # each at the line of its triple
            path, row = (reference_path, reference) if side == "reference" else (candidate_path, candidate)
            found.append(Note("quirk", f"{path}:{row['triple_lines'][triple]}: entry {index}: {message}"))
    if not any(entry.n_pairs for entry in stats):
        raise at_line(reference_path, references[0]["line"], "no entry has a reference or candidate triple; expected "
                                                             "at least one triple to score")
    if warnings is not None:
        warnings.extend(capped(found))
    return references, candidates, stats


PROGRESS_MIN_ENTRIES = 500  # below this a bar only flickers


def _progress_bar(iterable, total):
    """A bar on standard error when it is a terminal and there are `PROGRESS_MIN_ENTRIES` entries or more; tqdm
    loads only then (a command that shows no bar does not load it)."""
    if total < PROGRESS_MIN_ENTRIES or not sys.stderr.isatty():
        return iterable
    from tqdm import tqdm

    return tqdm(iterable, total=total, desc="webnlg", unit="entry", file=sys.stderr)


def score_files(reference_path: str | os.PathLike, candidate_path: str | os.PathLike, by: Any = (),
                progress: Any = False, time_limit: float | None = None) -> dict:
    """The result dict: official structure, then `extension_per_<key>` for each key in `by`, the
    warnings (if any) and the signature. `time_limit`: see `scored_entries`."""
    warnings: list = []
    references, _, stats = scored_entries(reference_path, candidate_path, warnings, _progress_bar if progress else None,
                                            time_limit)
    result = scoring.aggregate(stats)
    # size = number of reference triples, as in the evaluate module (equal to the files' size attribute)
    keys = {"category": [ref["category"] for ref in references], "size": [len(ref["triples"]) for ref in references]}
    result.update((f"extension_per_{key}", scoring.breakdown(stats, keys[key])) for key in by)
    if warnings:
        result["warnings"] = warnings
    result["signature"] = scoring.signature(breakdown=bool(by))
    return result


def instances(reference_path: str | os.PathLike, candidate_path: str | os.PathLike) -> list[dict]:
    """One record per entry, for per-item exports: its first lexicalisation (the text the triples come
    from), the reference and candidate triples, its Exact F1 and whether that is 1."""
    references, candidates, stats = scored_entries(reference_path, candidate_path)
    records = []
    for index, (reference, candidate, entry) in enumerate(zip(references, candidates, stats)):
        exact = scoring.aggregate([entry])["Total_scores"]["Exact"]["F1"]
        records.append({"sample_id": str(reference["eid"] or f"entry-{index}"),
                        "input": (reference.get("lexicalisations") or [""])[0],
                        "reference": list(reference["triples"]), "output": list(candidate["triples"]),
                        "score": exact, "is_correct": exact == 1.0,
                        "metadata": {"category": str(reference.get("category")), "size": str(reference.get("size"))}})
    return records
