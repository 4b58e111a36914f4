"""webnlg_rdf bounded cost and nothing silent: the entry limits (each refused with its place), the
word-alignment shortcuts (the same marks as the plain recursion, the same spans without aligning), every
official file well within the limits, and the warnings for official quirks that change a number."""

import random

import pytest

from benchscore.cli import main
from benchscore.webnlg_rdf import files
from benchscore.webnlg_rdf import kernel
from benchscore.webnlg_rdf import scoring
from conftest import load_metric
from conftest import shared_path


def plain_align(ref, cand, found_number=1, length=None):
    """The spec's `nonrefwords` recursion (3.4 c) transcribed without shortcuts: the oracle."""
    length = len(cand) if length is None else length
    while length > 0:
        grams = [cand[i : i + length] for i in range(len(cand) - length + 1)]
        for gram in grams:
            at = next((p for p in range(len(ref) - length + 1) if ref[p : p + length] == gram), None)
            if at is None:
                continue
            for q in range(at, at + length):
                ref[q] = f"FOUNDREF-{found_number}-{q}"
            start = next((p for p in range(len(cand) - length + 1) if cand[p : p + length] == gram), None)
            if start is None:
                raise TypeError("crash")
            for offset in range(length):
                cand[start + offset] = f"FOUNDCAND-{found_number}-{at + offset}"
            found_number += 1
            plain_align(ref, cand, found_number, length)
        length -= 1


def outcome(align, ref, cand):
    ref, cand = list(ref), list(cand)
    try:
        if align(ref, cand) is False:  # the kernel's word for the official crash
            return "crash"
    except TypeError:
        return "crash"
    return ref, cand


def test_alignment_shortcuts_give_the_plain_recursions_marks_and_crashes():
    rng = random.Random(7)
    crashes = 0
    for _ in range(20000):
        vocabulary = rng.randint(1, 6)
        ref = [f"w{rng.randrange(vocabulary)}" for _ in range(rng.randint(0, 9))]
        cand = [f"w{rng.randrange(vocabulary)}" for _ in range(rng.randint(0, 9))]
        want = outcome(plain_align, ref, cand)
        crashes += want == "crash"
        assert outcome(kernel.align, ref, cand) == want, (ref, cand)
    assert crashes > 100  # the crash path was exercised


def aligned_without_shortcut(ref, cand):
    """`kernel.aligned_spans` the long way: the word alignment, then the spans (None for the crash)."""
    ref, cand = list(ref), list(cand)
    if kernel.align(ref, cand) is False:
        return None
    return kernel.element_spans(tuple(ref), tuple(cand), "SUB", "OBJ")


def test_element_pairs_that_share_no_token_get_the_spans_of_the_alignment():
    """`aligned_spans` skips the alignment (and its memo) for token lists that share no token: the same
    result as aligning them, empty lists included; pairs that share one take the memoised alignment."""
    rng = random.Random(11)
    disjoint = 0
    for _ in range(20000):
        vocabulary = rng.randint(1, 8)
        ref = tuple(f"w{rng.randrange(vocabulary)}" for _ in range(rng.randint(0, 6)))
        cand = tuple(f"{rng.choice('wv')}{rng.randrange(vocabulary)}" for _ in range(rng.randint(0, 6)))
        disjoint += set(ref).isdisjoint(cand)
        assert kernel.aligned_spans(ref, cand, "SUB", "OBJ") == aligned_without_shortcut(ref, cand), (ref, cand)
    assert 2000 < disjoint < 18000  # both paths exercised


def words(n, prefix="w"):
    return " ".join(f"{prefix}{i}" for i in range(n))


@pytest.mark.parametrize("references, candidates, message", [
    (["a | b | c"] * 101, ["a | b | c"], "101 reference triples in one entry; expected at most 100"),
    (["a | b | c"], ["a | b | " + "x" * 1001], "candidate triple 0 has 1,009 characters; expected at most 1,000"),
    (["a | b | " + words(101)], ["a | b | c"], "the object of reference triple 0 has 101 tokens; expected at most 100"),
    ([f"s{i} | p | o" for i in range(16)], [f"t{i} | p | o" for i in range(17)],
     "17 distinct reference x 17 distinct candidate triples (padding included) make 289 pairs to score; expected at most 256"),
    ([f"s | p{i} | {words(i + 1)}" for i in range(17)], ["s | p0 | w0"],
     "the assignment search over 17 triple slots has 131,072 states; expected at most 65,536"),
    (["a | b | c"], ["a | b | \ud800"], "candidate triple 0 'a | b | \\ud800' holds a lone surrogate"),
])
def test_entries_beyond_the_limits_are_refused_by_name(references, candidates, message):
    with pytest.raises(ValueError, match="^example 4: ") as err:
        scoring.score([["a | b | c"]] * 4 + [references], [["a | b | c"]] * 4 + [candidates])
    assert message in str(err.value)


def test_identical_triples_do_not_count_against_the_pair_limit():
    stats = scoring.entry_stats(["a | b | c"] * 100, ["a | b | c"] * 60)
    assert stats.n_pairs == 100 and scoring.aggregate([stats])["Total_scores"]["Exact"]["Correct"] == 180


def xml(entries, tag):
    kind = {"m": "modifiedtripleset", "g": "generatedtripleset"}[tag]
    body = "".join(f'<entry eid="Id{i}">\n<{kind}>\n' + "".join(f"<{tag}triple>{t}</{tag}triple>\n" for t in triples)
                   + f"</{kind}>\n</entry>\n" for i, triples in enumerate(entries, 1))
    return f"<benchmark><entries>\n{body}</entries></benchmark>\n"


def test_a_file_entry_beyond_a_limit_names_the_line_of_its_triple(tmp_path, capsys):
    refs, cands = tmp_path / "r.xml", tmp_path / "c.xml"
    refs.write_text(xml([["a | b | c"], ["a | b | c"]], "m"))
    cands.write_text(xml([["a | b | c"], ["a | b | c", "d | e | " + words(120)]], "g"))
    assert main(["webnlg", str(refs), str(cands)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"benchscore webnlg: error: {cands}:10: entry 1 (reference eid 'Id2'): the object of candidate "
                          "triple 1 has 120 tokens; expected at most 100") and err.count("\n") == 1


def test_every_official_file_is_well_within_the_limits():
    """Each limit is at least 3x (search states: 100x) what the official files and submissions need, the
    per-file cost budget included."""
    data = shared_path("data", "webnlg")
    pairs = [(data / "references" / f"{language}_all.xml", path)
             for language in ("en", "ru") for path in sorted((data / "submissions" / language).glob("*/all.xml"))]
    most = dict.fromkeys(("triples", "chars", "tokens", "pairs", "states", "cost"), 0)
    for reference_path, candidate_path in pairs:
        references, candidates = files.read_pair(reference_path, candidate_path)
        most["cost"] = max(most["cost"], files.check_cost(reference_path, candidate_path, references, candidates))
        for reference, candidate in zip(references, candidates):
            refs, cands = reference["triples"], candidate["triples"]
            normalised = [scoring.normalise(t) for t in refs + cands]
            most["triples"] = max(most["triples"], len(refs), len(cands))
            most["chars"] = max([most["chars"], *map(len, refs + cands)])
            most["tokens"] = max([most["tokens"], *(len(scoring._element_tokens(e)[1])
                                                     for t in normalised for e in t.split(" | ")[:3])])
            k = max(len(refs), len(cands))
            padded_refs = [scoring.normalise(t) for t in refs] + [""] * (k - len(refs))
            padded_cands = [scoring.normalise(t) for t in cands] + [""] * (k - len(cands))
            most["pairs"] = max(most["pairs"], len(set(padded_refs)) * len(set(padded_cands)))
            scores = [[scoring.pair_result(r, c).score for r in padded_refs] for c in padded_cands]
            most["states"] = max(most["states"], scoring.search_states(scores))
    assert most["triples"] * 3 <= scoring.MAX_TRIPLES
    assert most["chars"] * 3 <= scoring.MAX_TRIPLE_CHARS
    assert most["tokens"] * 3 <= scoring.MAX_ELEMENT_TOKENS
    assert most["pairs"] * 3 <= scoring.MAX_PAIRS
    assert most["states"] * 100 <= scoring.MAX_SEARCH_STATES
    assert most["cost"] * 3 <= scoring.MAX_COST  # the per-file budget (work units)


# --- nothing silent: official quirks that change a number are reproduced and reported ----------------

def test_quirks_are_reproduced_and_warned_in_every_entry_point(tmp_path, capsys):
    references, candidates = [["x | y | z"], ["a | b | c", "p | q | r"]], [["x | y | z"], ["a|b|c", "a | b | c | d"]]
    result = scoring.score(references, candidates)
    assert result["warnings"] == [
        "example 1: candidate triple 0 'a|b|c' has no ' | ' separator: it counts as an empty triple (as in the official script)",
        "example 1: candidate triple 1 'a | b | c | d' has 4 ' | '-separated parts: the parts beyond the third are "
        "ignored where it is scored against a real triple (as in the official script)",
    ]
    assert result["Total_scores"]["Exact"]["Correct"] == 6  # the 4-part triple matches on its first three parts
    module = load_metric("webnlg_rdf").compute(predictions=candidates, references=references)
    assert module["warnings"] == result["warnings"] and list(module)[-2:] == ["warnings", "signature"]
    assert "warnings" not in scoring.score([["a | b | c"]], [["a | b | c"]])

    refs, cands = tmp_path / "r.xml", tmp_path / "c.xml"
    refs.write_text(xml(references, "m"))
    cands.write_text(xml(candidates, "g"))
    assert main(["webnlg", str(refs), str(cands), "--no-progress"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [f"benchscore webnlg: warning: {cands}:9: entry 1: candidate triple 0 'a|b|c' has no ' | ' separator: "
                   "it counts as an empty triple (as in the official script)",
                   f"benchscore webnlg: warning: {cands}:10: entry 1: candidate triple 1 'a | b | c | d' has 4 ' | '-separated "
                   "parts: the parts beyond the third are ignored where it is scored against a real triple (as in the "
                   "official script)"]


def test_eid_warnings(tmp_path):
    refs, cands = tmp_path / "r.xml", tmp_path / "c.xml"
    refs.write_text(xml([["a | b | c"], ["d | e | f"]], "m").replace('eid="Id2"', 'eid="Id1"'))
    cands.write_text(xml([["a | b | c"], ["d | e | f"]], "g").replace('eid="Id1"', 'eid="Id9"'))
    warnings = []
    files.file_stats(refs, cands, warnings)
    assert warnings == [
        f"{refs}:7: entry 1 has eid 'Id1', a duplicate of entry 0; both are scored (entries are paired by position, "
        "as in the official script)",
        f"{cands}:2: entry 0 has eid 'Id9' and the reference entry at that position 'Id1' (2 such entries); entries are "
        "paired by position and eids are not used (as in the official script)",
    ]


def test_many_warnings_are_capped():
    result = scoring.score([["a | b | c"]] * 30, [["a|b|c"]] * 30)
    assert len(result["warnings"]) == 11 and result["warnings"][-1] == "... and 20 more such warnings"


def test_a_space_stops_a_file_that_takes_too_long(monkeypatch):
    gradio = pytest.importorskip("gradio", reason="gradio is not installed (the spaces extra)")
    import browser

    app = browser.load_app("webnlg_rdf")
    monkeypatch.setattr(app, "TIME_LIMIT", 0)
    examples = browser.METRICS / "webnlg_rdf" / "examples"
    with pytest.raises(gradio.Error) as err:
        app.score_files(str(examples / "refs.xml"), str(examples / "cands.xml"))
    assert err.value.message.startswith("cands.xml:") and "scoring stopped at entry 0 of 3, after 0 s" in err.value.message


# --- properties (hypothesis): random well-formed entries --------------------------------------------
hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is not installed (the test extra)")
st = hypothesis.strategies
ELEMENT = st.lists(st.sampled_from(["Alan", "Bean", "test", "pilot", "(x)", "McDonald", "1.5", "\"q\""]),
                   min_size=1, max_size=3).map("_".join)
TRIPLE = st.tuples(ELEMENT, ELEMENT, ELEMENT).map(" | ".join)
ENTRY = st.tuples(st.lists(TRIPLE, max_size=4), st.lists(TRIPLE, max_size=4))


def score_or_documented_error(references, candidates):
    try:
        return scoring.score(references, candidates)
    except ValueError as err:  # the official word-alignment crash on repeated tokens, named by example
        assert str(err).startswith("example ") and "word alignment crash" in str(err)
        return None


@hypothesis.settings(max_examples=150, deadline=None)
@hypothesis.given(st.lists(ENTRY, min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_entry_order_does_not_change_the_numbers(entries, rng):
    references, candidates = [r for r, _ in entries], [c for _, c in entries]
    hypothesis.assume(any(references) or any(candidates))
    result = score_or_documented_error(references, candidates)
    hypothesis.assume(result is not None)
    order = list(range(len(entries)))
    rng.shuffle(order)
    shuffled = scoring.score([references[i] for i in order], [candidates[i] for i in order])
    for key in ("Total_scores", "Scores_per_tag", "Exact_match"):
        assert shuffled[key] == result[key]


@hypothesis.settings(max_examples=150, deadline=None)
@hypothesis.given(st.lists(st.lists(TRIPLE, min_size=1, max_size=4), min_size=1, max_size=5))
def test_perfect_predictions_score_one_or_warn_why(references):
    result = score_or_documented_error(references, references)
    hypothesis.assume(result is not None)
    assert result["Exact_match"]["F1"] == 1.0
    if any(result["Total_scores"][scheme]["F1"] != 1.0 for scheme in scoring.SCHEMES):
        assert any("cannot match exactly" in warning for warning in result["warnings"]), result.get("warnings")


def test_quoted_candidates_are_warned():
    result = scoring.score([['x | y | "retired"']], [['x | y | "retired"']])
    assert result["Total_scores"]["Exact"]["F1"] == 2 / 3  # the spec's worked example
    assert result["warnings"] == ["example 0: candidate triple 0 'x | y | \"retired\"' has a token made of several "
                                  "punctuation marks (e.g. a quote, which the tokenizer turns into `` or ''): references "
                                  "never keep such tokens, so its element cannot match exactly (as in the official script)"]
