"""WebNLG+ 2020 text-to-RDF scoring, exactly as the official evaluation script.

Official scorer: `Evaluation_script_json.py` of WebNLG/WebNLG-Text-to-triples (6a40950) with its
pinned nltk 3.4.5 and nervaluate 0.1.7, re-implemented from the spec's functional description (the
official code is GPL and is not used). Every quirk that moves a published number is reproduced and
named where it happens ("quirk: "), and warned where it would surprise (`quirks`); the card (README.md)
gives the formulas, quirks and limits.

    >>> result = score([["Alan_Bean | occupation | Test_pilot"]], [["Alan_Bean | occupation | Test_pilot"]])
    >>> result["Total_scores"]["Exact"]["F1"], result["Exact_match"]["F1"]
    (1.0, 1.0)
"""

import itertools
import math
import operator
import re
import string
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

import benchscore
from benchscore.core.readers import InputError, InputTypeError, at_example, check_item_stats, invalid_text
from benchscore.core.records import Note, Signature
from benchscore.webnlg_rdf import kernel
from benchscore.webnlg_rdf.tokenizer import tokenize

VERSION = "1.0.0"

# Limits on one entry (real data: <= 10 triples a side, 237 characters a triple, 26 tokens an
# element, 80 distinct pairs, 512 search states).
MAX_TRIPLES = 100  # triples per side (the k x k pair matrix)
MAX_TRIPLE_CHARS = 1000  # characters per triple string (tokenizing is superlinear on some texts)
MAX_ELEMENT_TOKENS = 100  # tokens per subject, predicate or object (word alignment is cubic)
MAX_PAIRS = 256  # distinct (reference, candidate) pairs scored, padding included
MAX_SEARCH_STATES = 1 << 16  # states of the exact assignment search (exponential in distinct references)

# The cost of scoring many entries, in deterministic work units (about 0.1 microsecond of CPU each on
# the machine `scripts/bench_webnlg.py` measured), counted before scoring (`tokenizing_cost`, then
# `scoring_cost`); files, the CLI, `compare` and the Spaces refuse more than `MAX_COST` per file.
MAX_COST = 45_000_000  # about 5 s of CPU here at worst (the 2020 files need less than a third of it)
COST_CHAR = 10  # tokenizing one character of a distinct element
COST_SENTENCE_MARK = 150  # more per '.', '?' or '!' (the sentence splitter's work)
COST_ENTRY = 600  # checking, scoring and aggregating one entry
COST_SLOT = 10  # per cell of the k x k pair matrix
COST_PAIR = 250  # per distinct (reference, candidate) pair scored, plus one per word-alignment cell
COST_STATE = 2  # per assignment search state and triple slot


def signature(breakdown: bool = False) -> Signature:
    """`webnlg_rdf|version:…|benchscore:…|…`: every setting that changes a number, defaults included. The scorer
    has one behaviour; its tokenizer and nervaluate semantics are named so that a fixed variant is not comparable."""
    return Signature("webnlg_rdf", version=VERSION, benchscore=benchscore.__version__, tokenizer="nltk-3.4.5-punkt",
                     counting="nervaluate-0.1.7", breakdown="yes" if breakdown else "no")


SCHEMES = ("Ent_type", "Partial", "Strict", "Exact")  # output order
TAGS = ("Subjects", "Predicates", "Objects")  # output names of the span labels SUB, PRED, OBJ
GROUPS = ("Total",) + TAGS  # the four count groups: Total_scores, then Scores_per_tag
KINDS = ("Correct", "Incorrect", "Partial", "Missed", "Spurious")
RATES = ("Precision", "Recall", "F1")
_N_COUNTS = len(GROUPS) * len(SCHEMES) * len(KINDS)  # 80 per pair or entry
_N_RATES = len(GROUPS) * len(SCHEMES) * len(RATES)  # 48

# -- 1. Normalising a triple string (the SemEval part only; Exact_match uses the raw strings) ---
_CAMEL = re.compile(r"([a-z])([A-Z])")
_SPACES = re.compile(r"\s+")
_TRAILING_PARENS = re.compile(r"^(.*?)(\s\((.*?)\))$")


@lru_cache(maxsize=1 << 14)  # a file holds few distinct triples (2,042 of bt5's 13,612), each met several times
def normalise(triple):
    """The official normalisation, in its order. Quirks: the camelCase split applies to subjects and
    objects too ("McDonald" -> "mc donald"); leading/trailing white space becomes one space but is not
    stripped; only the last part (the object) loses a trailing parenthetical, cut at the first " (".
    (The official uses the `regex` package for two of these patterns; on them stdlib `re` matches the
    same: ASCII ranges, and white space is already folded to single spaces.)"""
    text = _SPACES.sub(" ", _CAMEL.sub(r"\1 \2", triple).lower().replace("_", " "))
    last = text.split(" | ")[-1]
    match = _TRAILING_PARENS.match(last)
    return text[: len(text) - len(last)] + match.group(1) if match else text


# -- 2. Tokens of one element -----------------------------------------------------------------
_PUNCTUATION = frozenset(string.punctuation)


@lru_cache(maxsize=1 << 16)
def _element_tokens(element):
    """(reference-side, candidate-side, swap-side) tokens of one element.

    Quirk (quote asymmetry): references drop tokens made only of punctuation, candidates drop only
    single punctuation characters, so Treebank's `` and '' quote tokens stay in candidates. The swap
    attempts drop every token that contains any punctuation character (e.g. "17068.8", "d.c")."""
    tokens = [token.lower() for token in tokenize(element)]
    reference = tuple(t for t in tokens if not _PUNCTUATION.issuperset(t))
    candidate = tuple(t for t in tokens if not (len(t) == 1 and t in _PUNCTUATION))
    swap = tuple(t for t in tokens if _PUNCTUATION.isdisjoint(t))
    return reference, candidate, swap


# -- 3. One (reference, candidate) pair: the official alignment, spans and counts (`kernel`) --------
class _OfficialCrash(Exception):
    """An input on which the official script dies: no score to mirror. `side`: the triple to blame."""

    def __init__(self, message, side="candidate"):
        super().__init__(message)
        self.side = side


def _elements(ref, cand):
    """The three (subject, predicate, object) strings of each side, as the official splits them."""
    ref_parts, cand_parts = _parts(ref), _parts(cand)
    if len(ref_parts) == 1:  # padding (or a reference without ' | '): the candidate drives
        if len(cand_parts) != 3:
            raise _OfficialCrash(f"candidate triple {cand!r} has {len(cand_parts)} ' | '-separated part(s) and is "
                                 "scored against a padded reference (more candidate than reference triples); "
                                 "expected exactly 3 (the official script crashes or its behaviour is unrecorded)")
        return ("", "", ""), cand_parts
    if len(ref_parts) == 2:
        raise _OfficialCrash(f"reference triple {ref!r} has 2 ' | '-separated parts; expected 3", "reference")
    if len(cand_parts) == 1:  # quirk: a candidate without ' | ' counts as an empty triple
        return ref_parts[:3], ("", "", "")
    if len(cand_parts) == 2:
        raise _OfficialCrash(f"candidate triple {cand!r} has 2 ' | '-separated parts; expected 3 (the official script crashes)")
    return ref_parts[:3], cand_parts[:3]  # quirk: parts beyond the third are ignored


@lru_cache(maxsize=1 << 16)
def _parts(triple):
    """The ' | '-separated parts of a normalised triple (a tuple)."""
    return tuple(triple.split(" | "))


_REF, _CAND = kernel.REF_SIDE, kernel.CAND_SIDE  # which side's token filter (`_element_tokens`)


class PairResult(NamedTuple):
    """One (reference, candidate) pair: counts[group][scheme][kind] and rates[group][scheme][P, R, F1]
    as flat tuples, the official pair score (mean F1 of the four schemes, over all tags), and the rates
    as exact integers in units of 2**-1074 (what an entry's `rate_sums` add up)."""

    counts: tuple
    rates: tuple
    score: float
    exact_rates: tuple = ()


def _totals(counts, at):
    """nervaluate's possible, actual and matched of the five counts (`KINDS`) from `counts[at]` on: partial
    matches get half credit in Ent_type and Partial."""
    correct, incorrect, partial, missed, spurious = counts[at : at + 5]
    matched = correct + 0.5 * partial if at % 20 < 10 else correct
    return correct + incorrect + partial + missed, correct + incorrect + partial + spurious, matched


@lru_cache(maxsize=1 << 12)  # pairs repeat the same count patterns (e.g. all missed and spurious)
def _pair_rates(counts):
    """(rates, exact rates, score) of a pair's counts. Rates: per group and scheme, nervaluate's P and R,
    then the script's F1; the int 0 where a denominator is 0."""
    rates = []
    for at in range(0, len(counts), 5):
        possible, actual, matched = _totals(counts, at)
        precision = matched / actual if actual > 0 else 0
        recall = matched / possible if possible > 0 else 0
        rates += (precision, recall, 2 * precision * recall / (precision + recall) if precision + recall != 0 else 0)
    # statistics.mean of the four F1s is exactly rounded; fsum / 4 is the same float.
    return tuple(rates), tuple(map(_exact, rates)), math.fsum(rates[2:12:3]) / 4


@lru_cache(maxsize=1 << 15)  # pairs recur within an entry (padding) and across entries; ~0.2 kB each
def pair_result(ref, cand):
    """Score one pair of *normalised* triple strings ('' = padding)."""
    ref_elements, cand_elements = _elements(ref, cand)
    counts = kernel.pair_counts(list(map(_element_tokens, ref_elements)), list(map(_element_tokens, cand_elements)))
    if counts is None:
        raise _OfficialCrash("repeated tokens make the official word alignment crash (TypeError in nonrefwords)")
    rates, exact_rates, score = _pair_rates(counts)
    return PairResult(counts, rates, score, exact_rates)


def clear_caches():
    """Forgets every memo of this scorer (for timing it from cold, as a fresh process runs it)."""
    for cache in (normalise, _parts, _element_tokens, _triple_tokens, _cell_sizes, _element_costs,
                  _element_over_limit, _quirks_met, pair_result, _pair_rates, _exact):
        cache.cache_clear()
    kernel.clear_memo()


# -- 4. The assignment: the first permutation (lexicographic) with the largest float sum ------
_SMALL = 5  # up to 5! = 120 permutations the official loop itself is the cheapest exact method


def best_assignment(scores):
    """`assignment[c]` = column for row c maximising `s = 0; for c: s += scores[c][assignment[c]]`
    (float, in row order) -- the first such permutation in lexicographic order, i.e. exactly what
    the official `for perm in itertools.permutations(range(k)): if s > best` loop selects."""
    return official_assignment(scores) if len(scores) <= _SMALL else search_assignment(scores)


def search_states(scores):
    """The most states `search_assignment` can visit: prod(copies + 1) over groups of equal columns
    (2^k when all k columns differ). `entry_stats` refuses entries above `MAX_SEARCH_STATES`."""
    return math.prod(copies + 1 for copies in Counter(zip(*scores)).values())


def official_assignment(scores):
    """The official loop: permutations in lexicographic order, float sums in row order, strict `>`."""
    return kernel.official_assignment(_rows(scores))


def search_assignment(scores):
    """`best_assignment` by a pruned depth-first search: the same permutation as the official loop
    (for scores in [0, 1], as pair scores are). Rows in order, columns in increasing order, a leaf
    accepted only if its float sum (in the official order) is > the best so far: unpruned, that *is*
    the official loop. Why each cut never removes the answer:
    - h(used), the optimum of the remaining rows over the unused columns (a memoised DP), is within
      EPS of the float sums (k values in [0, 1] round by at most k^2 * 2^-53), so a prefix with float
      sum p and p + h(used) + EPS < max(best, h(nothing) - EPS) holds no optimal permutation.
    - Of unused columns equal in every row only the first is tried: a permutation using a later one
      first has an earlier twin with the same values in the same order, hence the same float sum.
    - A repeated state (used columns, float prefix sum) is skipped: its completions have twins, with
      the same sums, under the earlier prefix, explored or pruned by a bound no weaker than now.
    - When h(used) == 0 every completion adds zeros: the first (unused columns in order) is taken.
    The DP has at most 2^(distinct columns) x prod(#copies + 1) states (`search_states`).
    """
    return kernel.search_assignment(_rows(scores))


def _rows(scores):
    """The scores as the kernel takes them: a list of lists of floats."""
    return [[float(score) for score in row] for row in scores]


# -- 5. Per-entry statistics and the corpus aggregate -----------------------------------------
UNIT = 2**1074  # every float is an integer multiple of 2**-1074: exact sums as Python ints


@lru_cache(maxsize=1 << 14)  # few distinct rate values
def _exact(value):
    numerator, denominator = value.as_integer_ratio()
    return numerator * (UNIT // denominator)


@dataclass(frozen=True)
class ItemStats:
    """Everything the corpus numbers need from one entry, computed once (resample these freely).
    `counts` and `rate_sums` are flat, [group][scheme][kind or rate] in the order of `GROUPS`, `SCHEMES`,
    `KINDS`, `RATES`; `rate_sums` are exact sums over the selected pairs in units of 2**-1074 (so a corpus
    mean is exactly `statistics.mean`); `references`/`candidates`: the lower-cased raw triples of `Exact_match`."""

    n_references: int
    n_candidates: int
    assignment: tuple  # assignment[c] = reference index given to candidate slot c (>= n_references: padding)
    counts: tuple
    rate_sums: tuple
    references: frozenset
    candidates: frozenset
    warnings: tuple = field(default=(), compare=False)  # `quirks` met: (side, triple index, message)
    # The selected pairs' rates, [pair][group][scheme][rate] (what `rate_sums` sums; `pair_rates` reads it).
    selected_rates: tuple = field(default=(), compare=False, repr=False)

    @property
    def n_pairs(self):
        """k = max(n_references, n_candidates): the selected pairs, padding included."""
        return len(self.assignment)


class EntryError(InputError):
    """An entry that cannot be scored. `side` ("reference", "candidate", None for the whole entry or "entries"
    for the entries up to it) and `triple` (its index, or None) say where, so that a file reader can name the line."""

    def __init__(self, message, side=None, triple=None, example=None):
        super().__init__(message, example=example)
        self.side, self.triple = side, triple


def _type_error(message, example):
    return TypeError(message) if example is None else at_example(example, message, InputTypeError)


def _check_list(triples, side, example):
    if isinstance(triples, str) or not isinstance(triples, (list, tuple)):
        raise _type_error(f"{side}s is {type(triples).__name__} {triples!r:.80}; "
                          "expected a list of 'subject | predicate | object' strings", example)
    for i, triple in enumerate(triples):
        if not isinstance(triple, str):
            raise _type_error(f"{side}s[{i}] is {type(triple).__name__} {triple!r:.80}; "
                              "expected a 'subject | predicate | object' string", example)
        if not triple.isascii() and invalid_text(triple) is not None:
            raise EntryError(f"{side} triple {i} {triple!r:.80} holds a lone surrogate; expected valid "
                             "Unicode text", side, i, example)
        if len(triple) > MAX_TRIPLE_CHARS:
            raise EntryError(f"{side} triple {i} has {len(triple):,} characters; expected at most "
                             f"{MAX_TRIPLE_CHARS:,} (a limit of this scorer)", side, i, example)
    if len(triples) > MAX_TRIPLES:
        raise EntryError(f"{len(triples)} {side} triples in one entry; expected at most {MAX_TRIPLES} "
                         "(a limit of this scorer: the official script would try k! assignments)", side, example=example)


@lru_cache(maxsize=1 << 14)
def _triple_tokens(triple):
    """`_element_tokens` of the (at most three) elements of a normalised triple."""
    return tuple(map(_element_tokens, _parts(triple)[:3]))


def _check_elements(normalised, side, example):
    for i, triple in enumerate(normalised):
        if over := _element_over_limit(triple):
            name, n_tokens = over
            raise EntryError(f"the {name} of {side} triple {i} has {n_tokens} tokens; "
                             f"expected at most {MAX_ELEMENT_TOKENS} (a limit of this scorer)", side, i, example)


@lru_cache(maxsize=1 << 14)  # checked at every occurrence of a triple, decided once per distinct one
def _element_over_limit(triple):
    """(name, tokens) of the first element of a normalised triple with more than `MAX_ELEMENT_TOKENS`, else None."""
    for name, tokens in zip(("subject", "predicate", "object"), _triple_tokens(triple)):
        if len(tokens[_CAND]) > MAX_ELEMENT_TOKENS:
            return name, len(tokens[_CAND])
    return None


def check_entry(references, candidates, example=None):
    """Refuses what cannot be scored, before any scoring: `TypeError` for what is not a list of
    strings, `EntryError` beyond the limits. Returns the normalised triples (references, candidates)."""
    _check_list(references, "reference", example)
    _check_list(candidates, "candidate", example)
    refs, cands = [normalise(t) for t in references], [normalise(t) for t in candidates]
    _check_normalised(refs, cands, example)
    return refs, cands


def _padded(refs, cands):
    """An entry's k slots a side, k = max(len(refs), len(cands)): each side's normalised triples, then "" (padding)."""
    k = max(len(refs), len(cands))
    return refs + [""] * (k - len(refs)), cands + [""] * (k - len(cands))


def _check_normalised(refs, cands, example):
    """`check_entry`'s limits on the normalised triples of lists already checked."""
    _check_elements(refs, "reference", example)
    _check_elements(cands, "candidate", example)
    distinct_refs, distinct_cands = (len(set(slots)) for slots in _padded(refs, cands))  # padding included
    if distinct_refs * distinct_cands > MAX_PAIRS:
        raise EntryError(f"{distinct_refs} distinct reference x {distinct_cands} distinct candidate "
                         f"triples (padding included) make {distinct_refs * distinct_cands} pairs to score; expected "
                         f"at most {MAX_PAIRS} (a limit of this scorer)", example=example)


def tokenizing_cost(references, candidates, seen, example=None):
    """Work units to tokenize the elements of this entry not in `seen` (a set, updated), from their
    characters alone; `TypeError`/`EntryError` for what is not a list of strings within the limits."""
    _check_list(references, "reference", example)
    _check_list(candidates, "candidate", example)
    return _tokenizing_units(map(normalise, itertools.chain(references, candidates)), seen)


def _tokenizing_units(normalised, seen):
    units = 0
    for triple in normalised:
        for element, cost in _element_costs(triple):
            if element not in seen:
                seen.add(element)
                units += cost
    return units


@lru_cache(maxsize=1 << 14)
def _element_costs(triple):
    """(element, its tokenizing units) of each element of a normalised triple (at most three)."""
    return tuple((element, COST_CHAR * len(element) + COST_SENTENCE_MARK * sum(map(element.count, ".?!")))
                 for element in _parts(triple)[:3])


def scoring_cost(references, candidates, example=None):
    """Work units to score one entry (its elements are tokenized here: count `tokenizing_cost` first):
    the pair matrix, each distinct pair and its word-alignment cells, and the search's state bound
    (identical references share columns; an entry beyond `MAX_SEARCH_STATES` is refused before its search)."""
    return _scoring_units(*check_entry(references, candidates, example))


def _scoring_units(refs, cands):
    padded_refs, padded_cands = _padded(refs, cands)
    k = len(padded_refs)
    distinct_refs, distinct_cands = set(padded_refs), set(padded_cands)
    if k <= _SMALL:
        search = math.factorial(k)
    else:
        search = min(math.prod(copies + 1 for copies in Counter(padded_refs).values()), MAX_SEARCH_STATES)
    return (COST_ENTRY + COST_SLOT * k * k + COST_PAIR * len(distinct_refs) * len(distinct_cands)
            + _cells(distinct_refs, distinct_cands) + COST_STATE * k * search)


def _cells(refs, cands):
    """The word-alignment cells of every (reference, candidate) pair of these distinct triples: per element
    position, (its tokens + 1) x (the other's tokens + 1), a missing element counting 1, over the positions of
    the longer triple. Summed per position over each side rather than pair by pair: with both triples padded
    to three elements by 1s, a pair's sum is its cells plus 1 for each position neither triple has (which only
    a pair of two triples of fewer than three elements has, e.g. padding)."""
    if not refs or not cands:
        return 0
    ref_columns, cand_columns = list(zip(*map(_cell_sizes, refs))), list(zip(*map(_cell_sizes, cands)))
    padded = sum(map(operator.mul, map(sum, ref_columns[:3]), map(sum, cand_columns[:3])))
    short_refs, short_cands = [n for n in ref_columns[3] if n < 3], [n for n in cand_columns[3] if n < 3]
    return padded - sum(3 - max(a, b) for a in short_refs for b in short_cands)


@lru_cache(maxsize=1 << 14)
def _cell_sizes(triple):
    """(tokens + 1 of each element, padded to three by 1s; the number of elements) of a normalised triple."""
    sizes = [len(tokens[_CAND]) + 1 for tokens in _triple_tokens(triple)]
    return (*sizes, *[1] * (3 - len(sizes)), len(sizes))


def check_cost(references_per_entry, candidates_per_entry, limit=MAX_COST, located=None):
    """The work units of these entries (paired by position), counted before anything is scored;
    `EntryError` naming the example where the running total passes `limit`. Returns the total.
    `located(index, err)`, when given, makes the error raised for entry `index` from an `EntryError`
    without "example N: " (side "entries" for the running total): a file reader names the line."""
    return checked_entries(references_per_entry, candidates_per_entry, limit, located)[0]


def checked_entries(references_per_entry, candidates_per_entry, limit=MAX_COST, located=None):
    """(`check_cost`'s total, per entry its normalised (references, candidates)): every entry checked as
    `check_entry` checks it, so that `scored_entry` can score it without checking it again."""
    seen, total, checked = set(), 0, []
    for index, (references, candidates) in enumerate(zip(references_per_entry, candidates_per_entry)):
        example = None if located else index
        try:  # tokenizing_cost, then scoring_cost, with the lists checked and normalised once
            _check_list(references, "reference", example)
            _check_list(candidates, "candidate", example)
            refs, cands = [normalise(t) for t in references], [normalise(t) for t in candidates]
            total += _tokenizing_units(itertools.chain(refs, cands), seen)
            if total <= limit:  # (tokenizing is what the first count bounds)
                _check_normalised(refs, cands, example)
                total += _scoring_units(refs, cands)
            if total > limit:
                raise EntryError(f"entries 0 to {index} need {total:,} work units to score; expected "
                                 f"at most {limit:,} at once (a limit of this scorer, a few seconds of work; split "
                                 "the file or score it with the library)", "entries", example=example)
        except EntryError as err:
            if located:
                raise located(index, err) from None
            raise
        checked.append((refs, cands))
    return total, checked


def quirks(references, candidates, refs, cands):
    """The official behaviours of this entry that a reader would not expect and that change its numbers
    (reported as warnings), each as (side, triple index, message); `refs`/`cands` are the normalised triples."""
    return tuple((side, i, f"{side} triple {i} {raw[i]!r:.80} has {what} (as in the official script)")
                 for side, raw, normalised in (("reference", references, refs), ("candidate", candidates, cands))
                 for i, triple in enumerate(normalised) for what in _quirks_met(side, triple, bool(refs)))


@lru_cache(maxsize=1 << 14)
def _quirks_met(side, triple, has_references):
    """What `quirks` reports of one normalised triple, each as the end of "<side> triple <i> <text> has ..."."""
    parts, met = len(_parts(triple)), []
    if parts == 1 and side == "reference":
        met.append("no ' | ' separator: it counts as padding")
    elif parts == 1 and has_references:
        met.append("no ' | ' separator: it counts as an empty triple")
    elif side == "candidate" and _unmatchable(triple):
        met.append("a token made of several punctuation marks (e.g. a quote, which the tokenizer turns into `` or "
                   "''): references never keep such tokens, so its element cannot match exactly")
    if parts > 3:
        met.append(f"{parts} ' | '-separated parts: the parts beyond the third are ignored where it is scored "
                   "against a real triple")
    return tuple(met)


def _unmatchable(triple):
    """A candidate element holding a token the reference side drops (the quote asymmetry)."""
    return any(tokens[_REF] != tokens[_CAND] for tokens in _triple_tokens(triple))


def _pair_matrix(references, candidates, refs, cands, example):
    """matrix[c][r]: the `PairResult` of every candidate slot against every reference slot (k x k, padded).
    All pairs are scored, as in the official script, where an error in any pair aborts the run."""
    refs, cands = _padded(refs, cands)
    matrix = []
    for c, cand in enumerate(cands):
        row = []
        for r, ref in enumerate(refs):
            try:
                row.append(pair_result(ref, cand))
            except _OfficialCrash as err:
                ref_text = repr(references[r]) if r < len(references) else "(padding)"
                cand_text = repr(candidates[c]) if c < len(candidates) else "(padding)"
                raise EntryError(f"reference triple {r} {ref_text} against candidate triple {c} {cand_text}: {err}",
                                 err.side, r if err.side == "reference" else c, example) from None
        matrix.append(row)
    return matrix


def entry_stats(references: Sequence, candidates: Sequence, example: int | None = None) -> ItemStats:
    """Score one entry. `references` and `candidates` are lists of "subject | predicate | object"
    strings (raw, as in the XML); `example` (its index) names it in error messages."""
    refs, cands = check_entry(references, candidates, example)
    return scored_entry(references, candidates, refs, cands, example)


def _check_states(scores, example):
    """Refuses an entry whose assignment search could pass `MAX_SEARCH_STATES` states. prod(copies + 1) <= 2^k:
    only an entry of more slots than MAX_SEARCH_STATES has bits can, so the others are not counted."""
    if len(scores) < MAX_SEARCH_STATES.bit_length():
        return
    states = search_states(scores)
    if states > MAX_SEARCH_STATES:
        raise EntryError(f"the assignment search over {len(scores)} triple slots has {states:,} "
                         f"states; expected at most {MAX_SEARCH_STATES:,} (a limit of this scorer: too many "
                         "reference triples that score differently)", example=example)


def scored_entry(references: Sequence, candidates: Sequence, refs: list, cands: list,
                 example: int | None = None) -> ItemStats:
    """`entry_stats` of an entry already checked: `refs` and `cands` are its normalised triples, as
    `check_entry` or `checked_entries` return them."""
    matrix = _pair_matrix(references, candidates, refs, cands, example)
    scores = [[pair.score for pair in row] for row in matrix]
    _check_states(scores, example)
    assignment = best_assignment(scores)
    selected = [matrix[c][r] for c, r in enumerate(assignment)]
    return ItemStats(
        n_references=len(references),
        n_candidates=len(candidates),
        assignment=assignment,
        counts=kernel.column_sums([pair.counts for pair in selected], _N_COUNTS),
        rate_sums=kernel.column_sums([pair.exact_rates for pair in selected], _N_RATES),
        references=frozenset(t.lower() for t in references),
        candidates=frozenset(t.lower() for t in candidates),
        warnings=quirks(references, candidates, refs, cands),
        selected_rates=tuple(pair.rates for pair in selected),
    )


def warnings(stats):
    """The entries' warnings (`ItemStats.warnings`) as "example N: ...", at most `capped`'s number."""
    return capped([Note("quirk", f"example {i}: {note}")
                   for i, entry in enumerate(stats) for _, _, note in entry.warnings])


def capped(found, limit=10):
    """The first `limit` warnings, then how many more there are."""
    return found[:limit] + ([Note("more_warnings", f"... and {len(found) - limit} more such warnings")]
                            if len(found) > limit else [])


def exact_match(in_references, in_candidates, in_both):
    """The official `Exact_match` {"Precision", "Recall", "F1"} from, per lower-cased raw triple string
    (a class), the number of entries holding it among the references, the candidates, and both:
    sklearn 0.22's macro P/R/F1 with MultiLabelBinarizer (entries are samples)."""
    # The official class order is set() order (hash-seed dependent), so its means vary in the last
    # ulp between runs; sorted order is our deterministic choice.
    precisions, recalls, f1s = [], [], []
    for name in sorted(in_references.keys() | in_candidates.keys()):
        true_positives = float(in_both.get(name, 0))
        predicted, actual = float(in_candidates.get(name, 0)), float(in_references.get(name, 0))
        precision = true_positives / (predicted if predicted != 0 else 1.0)  # sklearn: 0 where nothing was predicted
        recall = true_positives / (actual if actual != 0 else 1.0)
        both = precision + recall
        precisions.append(precision)
        recalls.append(recall)
        f1s.append(2 * precision * recall / (both if both != 0 else 1.0))
    return {"Precision": _mean(precisions), "Recall": _mean(recalls), "F1": _mean(f1s)}


def _mean(values):
    """`np.mean` of the values, bit for bit (numpy's pairwise sum divided by the count; nan for none)."""
    return kernel.pairwise_sum(values) / len(values) if values else math.nan


def _exact_match(stats):
    """`exact_match` of the entries: duplicates within an entry collapse (its triples are sets)."""
    def entries_holding(side):
        return Counter(itertools.chain.from_iterable(map(side, stats)))

    return exact_match(entries_holding(lambda entry: entry.references), entries_holding(lambda entry: entry.candidates),
                       entries_holding(lambda entry: entry.references & entry.candidates))


def pair_rates(entry, scheme, rate="F1"):
    """The Total-group `rate` of `scheme` of each selected pair of one entry (padding included):
    what `aggregate` averages over all pairs of all entries."""
    at = SCHEMES.index(scheme) * len(RATES) + RATES.index(rate)  # the Total group comes first
    return tuple(rates[at] for rates in entry.selected_rates)


def pair_mean(rates_per_entry):
    """The exactly rounded mean of the pair rates of several entries (lists of `pair_rates`), pooled:
    `aggregate`'s Total_scores number over those entries (as a float; `aggregate` gives the int 0
    where every rate is 0)."""
    rates = list(itertools.chain.from_iterable(rates_per_entry))
    n_pairs = len(rates)
    if n_pairs == 0:
        raise ValueError("nothing to score: no entry has a reference or candidate triple")
    # The exact sum as high + low (two correctly rounded fsums) when that is exact, which a third fsum
    # of the remainder proves (the inputs are multiples of 2**-1074, so a remainder that rounds to 0 is
    # 0): three passes in C instead of one int conversion per rate. Else the sum of the exact ints.
    high = math.fsum(rates)
    low = math.fsum(itertools.chain(rates, (-high,)))
    if math.fsum(itertools.chain(rates, (-high, -low))) == 0:
        total = _exact(high) + _exact(low)
    else:
        total = sum(map(_exact, rates))
    return total / (UNIT * n_pairs)


def checked_stats(stats):
    """`stats` as a list, every item an `ItemStats` (`TypeError` naming the first that is not)."""
    if isinstance(stats, (str, bytes, ItemStats)) or not hasattr(stats, "__iter__"):
        raise TypeError(f"stats is {type(stats).__name__} {stats!r:.80}; expected a list of ItemStats (from "
                        "item_stats or entry_stats)")
    return check_item_stats(list(stats), ItemStats, "a webnlg_rdf ItemStats")


def aggregate(stats: Sequence[ItemStats]) -> dict:
    """The official output dict from a list of `ItemStats`, keys in the official order. Counts are sums;
    P/R/F1 are the exactly rounded means over all selected pairs, as `statistics.mean` gives them (the
    int 0 when every pair's is)."""
    stats = checked_stats(stats)
    n_pairs = sum(entry.n_pairs for entry in stats)
    if n_pairs == 0:
        raise ValueError("nothing to score: no entry has a reference or candidate triple")
    counts = [sum(column) for column in zip(*(entry.counts for entry in stats))]
    rate_sums = [sum(column) for column in zip(*(entry.rate_sums for entry in stats))]

    def block(group, scheme):
        at = (group * 4 + scheme) * 5
        possible, actual, matched = _totals(counts, at)
        result = dict(zip(KINDS, counts[at : at + 5]))
        result.update(Possible=possible, Actual=actual)
        # A per-pair rate is the int 0 exactly when its denominator (summed here) or its numerator is 0.
        for index, all_int in enumerate((actual == 0, possible == 0, matched == 0)):
            result[RATES[index]] = 0 if all_int else rate_sums[(group * 4 + scheme) * 3 + index] / (UNIT * n_pairs)
        return result

    def schemes(group):
        return {name: block(group, scheme) for scheme, name in enumerate(SCHEMES)}

    return {
        "Total_scores": schemes(0),
        "Scores_per_tag": {tag: schemes(group) for group, tag in enumerate(TAGS, start=1)},
        "Exact_match": _exact_match(stats),
    }


def item_stats(references_per_entry: Sequence, candidates_per_entry: Sequence) -> list[ItemStats]:
    """`entry_stats` of every entry, entries paired by position (as the official pairs them)."""
    references_per_entry, candidates_per_entry = list(references_per_entry), list(candidates_per_entry)
    if len(references_per_entry) != len(candidates_per_entry):
        raise ValueError(f"{len(candidates_per_entry)} candidate entries for {len(references_per_entry)} reference "
                         "entries; entries are paired by position, so the counts must be equal")
    return [entry_stats(refs, cands, example=i)
            for i, (refs, cands) in enumerate(zip(references_per_entry, candidates_per_entry))]


def score(references_per_entry: Sequence, candidates_per_entry: Sequence) -> dict:
    """`aggregate` of `item_stats`, with the warnings of the quirks met and the signature."""
    stats = item_stats(references_per_entry, candidates_per_entry)
    result = aggregate(stats)
    if found := warnings(stats):
        result["warnings"] = found
    result["signature"] = signature()
    return result


def grouped(stats, keys):
    """`{key: the entries with that key}` (one key per entry), keys sorted (None last)."""
    stats, keys = checked_stats(stats), list(keys)
    if len(stats) != len(keys):
        raise ValueError(f"{len(keys)} breakdown keys for {len(stats)} entries; expected one key per entry")
    groups = {}
    for entry, key in zip(stats, keys):
        groups.setdefault(key, []).append(entry)
    return {key: groups[key] for key in sorted(groups, key=lambda key: (key is None, key))}


def breakdown(stats: Sequence[ItemStats], keys: Sequence) -> dict:
    """Extension (not in the official script): `{key: aggregate(entries with that key)}` in `grouped`'s order."""
    return {key: aggregate(group) for key, group in grouped(stats, keys).items()}
