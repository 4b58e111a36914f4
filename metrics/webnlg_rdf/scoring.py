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
import re
import string
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

import numpy as np

import benchscore
from benchscore.core.readers import InputError, InputTypeError, at_example, check_item_stats, invalid_text
from benchscore.core.records import Note, Signature
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
CORRECT, INCORRECT, PARTIAL, MISSED, SPURIOUS = range(5)
SUB, PRED, OBJ = _LABELS = ("SUB", "PRED", "OBJ")  # the span labels, in element order
_TAG_GROUP = {SUB: 1, PRED: 2, OBJ: 3}
_N_COUNTS = len(GROUPS) * len(SCHEMES) * len(KINDS)  # 80 per pair or entry
_N_RATES = len(GROUPS) * len(SCHEMES) * len(RATES)  # 48

# -- 1. Normalising a triple string (the SemEval part only; Exact_match uses the raw strings) ---
_CAMEL = re.compile(r"([a-z])([A-Z])")
_SPACES = re.compile(r"\s+")
_TRAILING_PARENS = re.compile(r"^(.*?)(\s\((.*?)\))$")


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


# -- 3. Word alignment (`nonrefwords`): greedy, longest candidate n-gram first, left to right ---
class _OfficialCrash(Exception):
    """An input on which the official script dies: no score to mirror. `side`: the triple to blame."""

    def __init__(self, message, side="candidate"):
        super().__init__(message)
        self.side = side


def _find(tokens, gram):
    """First position of `gram` as a contiguous run in `tokens`, or None (starts found by `list.index`, at C speed)."""
    first, size = gram[0], len(gram)
    end = len(tokens) - size + 1
    start = 0
    while start < end:
        try:
            start = tokens.index(first, start, end)
        except ValueError:
            return None
        if tokens[start : start + size] == gram:
            return start
        start += 1
    return None


def _longest_common_run(ref, cand):
    positions = {}
    for j, token in enumerate(cand):
        positions.setdefault(token, []).append(j)
    longest, previous = 0, {}
    for token in ref:
        current = {j: previous.get(j - 1, 0) + 1 for j in positions.get(token, ())}
        longest = max(longest, *current.values()) if current else longest
        previous = current
    return longest


def _align(ref, cand, found_number=1, length=None, unmarked=None):
    """Mark aligned n-grams in place: ref tokens become FOUNDREF-<n>-<ref pos>, candidate tokens
    FOUNDCAND-<n>-<ref pos>. Written as the official recursion, stale n-gram lists and all, so that the
    runs where the official crashes (a stale n-gram still in the reference, gone from the candidate)
    are detected. Shortcuts that change no mark (checked against the plain transcription on random
    inputs): `unmarked` counts the reference tokens not yet marked, so an n-gram whose first token is
    not among them is skipped unsearched; the top call starts at the longest common run."""
    if unmarked is None:
        unmarked = Counter(ref)
        length = _longest_common_run(ref, cand)
    if not any(unmarked.get(token) for token in cand):
        return  # no n-gram can match (the loop below would find nothing either)
    while length > 0:
        grams = cand[:]  # the official's n-gram list is made here: stale on purpose
        for start in range(len(grams) - length + 1):
            if not unmarked.get(grams[start]):
                continue
            gram = grams[start : start + length]
            ref_start = _find(ref, gram)
            if ref_start is None:
                continue
            _mark(ref, cand, gram, ref_start, found_number, unmarked)
            found_number += 1
            _align(ref, cand, found_number, length, unmarked)  # quirk: its found_number increments are lost
        length -= 1


# -- 4. Spans of one element pair (`getrefdict`) ----------------------------------------------
_MARKER_ID = re.compile(r"^((.*?)-\d+)")


def _marker_id(token):
    return _MARKER_ID.match(token).group(1)


def _element_spans(ref, cand, ref_label, cand_label):
    """`getrefdict` on aligned token lists: (found, reference spans, candidate spans, len(total),
    candidate tokens after linking). Spans are (label, start, end), inclusive ends, from offset 0.
    The official overwrites before/after-linked candidate tokens in place with FOUNDCAND-<n>-LINKED;
    the swap's PRED quirk sees them, so the linked list is returned."""
    found_at = [i for i, token in enumerate(cand) if token.startswith("FOUNDCAND")]
    # Nothing aligned: one span a side (none for an empty side).
    if not found_at and not ref:  # only candidate tokens (an empty pair gives the span [0, -1])
        return False, (), ((cand_label, 0, len(cand) - 1),), len(cand), tuple(cand)
    if not found_at and not cand:  # quirk: the official's `total` is then [span dict], of length 1
        return False, ((ref_label, 0, len(ref) - 1),), (), 1, tuple(cand)
    if not found_at:
        spans = ((ref_label, 0, len(ref) - 1),), ((cand_label, len(ref), len(ref) + len(cand) - 1),)
        return (False, *spans, len(ref) + len(cand), tuple(cand))
    before, after, unlinked, linked = _link(ref, cand, found_at[0], found_at[-1])
    total = before + list(ref) + after + unlinked
    ref_spans = ((ref_label, len(before), len(before) + len(ref) - 1),)
    return True, ref_spans, _candidate_spans(total, cand_label), len(total), linked


def _link(ref, cand, first, last):
    """The unmatched candidate words: (before, after, unlinked markers, candidate tokens as linked).
    Those before the first match are linked to it when it is aligned to the first reference word;
    those after the last match, when it is aligned to the last one."""
    link_before = cand[first].endswith("-0")
    link_after = (
        ref[-1].startswith("FOUNDREF")
        and not cand[-1].startswith("FOUNDCAND")
        and cand[last] == ref[-1].replace("FOUNDREF", "FOUNDCAND")
    )
    first_id, last_id = _marker_id(cand[first]), _marker_id(cand[last])
    linked = list(cand)
    before, after, unlinked = [], [], []
    run = 1  # runs of unlinked candidate words are numbered by the matches seen before them
    for i, token in enumerate(cand):
        if token.startswith("FOUNDCAND"):
            run += 1
        elif link_before and i < first:
            linked[i] = first_id + "-LINKED"
            before.append(linked[i])
        elif link_after and i > last:
            linked[i] = last_id + "-LINKED"
            after.append(linked[i])
        else:
            unlinked.append(f"NOTFOUND-{run}")
    return before, after, unlinked, tuple(linked)


def _candidate_spans(total, label):
    """The official walk over `total` (FOUNDREF read as FOUNDCAND) that cuts the candidate spans."""
    spans = []
    current, begin, collecting = "", None, False
    for i, token in enumerate(total):
        token = token.replace("FOUNDREF", "FOUNDCAND")
        if token.startswith(("FOUNDCAND", "NOTFOUND")):
            collecting = True
            if _marker_id(token) != current:
                if current != "":
                    spans.append((label, begin, i - 1))
                current, begin = _marker_id(token), i
            if i == len(total) - 1:
                spans.append((label, begin, i))
        elif collecting:  # quirk: re-emitted for every unmatched reference word, `current` kept
            spans.append((label, begin, i - 1))
    return tuple(spans)


def _mark(ref, cand, gram, ref_start, found_number, unmarked):
    for q in range(ref_start, ref_start + len(gram)):
        unmarked[ref[q]] -= 1
        ref[q] = f"FOUNDREF-{found_number}-{q}"
    cand_start = _find(cand, gram)
    if cand_start is None:
        raise _OfficialCrash("repeated tokens make the official word alignment crash (TypeError in nonrefwords)")
    for offset in range(len(gram)):
        cand[cand_start + offset] = f"FOUNDCAND-{found_number}-{ref_start + offset}"


@lru_cache(maxsize=1 << 15)  # the same element pairs recur across pairs and entries; ~0.6 kB each
def _aligned_spans(ref_tokens, cand_tokens, ref_label, cand_label):
    ref, cand = list(ref_tokens), list(cand_tokens)
    _align(ref, cand)
    return (*_element_spans(ref, cand, ref_label, cand_label), tuple(ref))


# -- 5. One (reference, candidate) pair: spans, swap attempts, nervaluate 0.1.7 counts --------
def _elements(ref, cand):
    """The three (subject, predicate, object) strings of each side, as the official splits them."""
    ref_parts, cand_parts = ref.split(" | "), cand.split(" | ")
    if len(ref_parts) == 1:  # padding (or a reference without ' | '): the candidate drives
        if len(cand_parts) != 3:
            raise _OfficialCrash(f"candidate triple {cand!r} has {len(cand_parts)} ' | '-separated part(s) and is "
                                 "scored against a padded reference (more candidate than reference triples); "
                                 "expected exactly 3 (the official script crashes or its behaviour is unrecorded)")
        return ("", "", ""), tuple(cand_parts)
    if len(ref_parts) == 2:
        raise _OfficialCrash(f"reference triple {ref!r} has 2 ' | '-separated parts; expected 3", "reference")
    if len(cand_parts) == 1:  # quirk: a candidate without ' | ' counts as an empty triple
        return tuple(ref_parts[:3]), ("", "", "")
    if len(cand_parts) == 2:
        raise _OfficialCrash(f"candidate triple {cand!r} has 2 ' | '-separated parts; expected 3 (the official script crashes)")
    return tuple(ref_parts[:3]), tuple(cand_parts[:3])  # quirk: parts beyond the third are ignored


_REF, _CAND, _SWAP = 0, 1, 2  # which side's token filter (`_element_tokens`)


def _pair_spans(ref, cand):
    """Reference and candidate spans of one normalised pair: main pass, then the swap attempts.
    Each element's spans are shifted by the element's base (the previous elements' len(total))."""
    ref_tok, cand_tok = ([_element_tokens(e) for e in elements] for elements in _elements(ref, cand))
    results = [_aligned_spans(ref_tok[e][_REF], cand_tok[e][_CAND], label, label) for e, label in enumerate(_LABELS)]
    results, bases = _swapped(ref_tok, cand_tok, results)
    return [[(label, start + base, end + base) for result, base in zip(results, bases)
             for label, start, end in result[side]] for side in (1, 2)]  # (reference, candidate) spans


def _swap(ref_tok, cand_tok, a, b):
    """Elements a and b aligned crosswise (swap-side tokens): the two results if either found a match."""
    first = _aligned_spans(ref_tok[a][_SWAP], cand_tok[b][_SWAP], _LABELS[a], _LABELS[b])
    second = _aligned_spans(ref_tok[b][_SWAP], cand_tok[a][_SWAP], _LABELS[b], _LABELS[a])
    return (first, second) if first[0] or second[0] else None


def _swapped(ref_tok, cand_tok, results):
    """The official swap attempts after the main pass: (element results, their bases). The first
    attempt that finds a match replaces the main pass's results for its two elements."""
    (found_s, *_), (found_p, *_), (found_o, *_) = results
    len_s, len_p = results[0][3], results[1][3]  # each element's len(total)
    # Swap 1: subject <-> object, when neither was found.
    if not found_s and not found_o and (hit := _swap(ref_tok, cand_tok, 0, 2)):
        first, second = hit
        # Quirk: PRED is recomputed from the object/subject token lists just used (as their
        # alignment and linking left them, no new alignment), both labels PRED.
        *_, cand_sub, ref_obj = _aligned_spans(ref_tok[2][_SWAP], cand_tok[0][_SWAP], OBJ, SUB)
        return [first, _element_spans(ref_obj, cand_sub, PRED, PRED), second], (0, first[3], first[3] + len_p)
    # Swap 2: subject <-> predicate. Quirk: guarded by "nothing switched" only, so it also runs when
    # swap 1 was tried and found nothing; the object keeps its main-pass base.
    if not found_s and not found_p and (hit := _swap(ref_tok, cand_tok, 0, 1)):
        return [*hit, results[2]], (0, hit[0][3], len_s + len_p)
    # Swap 3: predicate <-> object.
    if not found_p and not found_o and (hit := _swap(ref_tok, cand_tok, 1, 2)):
        return [results[0], *hit], (0, len_s, len_s + hit[0][3])
    return results, (0, len_s, len_s + len_p)


# nervaluate 0.1.7's outcome of one predicted span, per scheme (Ent_type, Partial, Strict, Exact).
_EXACT_HIT = (CORRECT, CORRECT, CORRECT, CORRECT)
_SAME_BOUNDS_OTHER_LABEL = (INCORRECT, CORRECT, INCORRECT, CORRECT)
_OVERLAP_SAME_LABEL = (CORRECT, PARTIAL, INCORRECT, INCORRECT)
_OVERLAP_OTHER_LABEL = (INCORRECT, PARTIAL, INCORRECT, INCORRECT)
_MISSED, _SPURIOUS = (MISSED,) * 4, (SPURIOUS,) * 4


def _count(true_spans, pred_spans):
    """nervaluate 0.1.7 `compute_metrics` for one document: counts[group][scheme][kind] as a flat list
    (group 0 = all tags, then SUB, PRED, OBJ). An outcome is booked under the true span's label."""
    booked, hit = [], set()  # (outcome, its groups)
    for pred in pred_spans:
        outcome, true = _outcome(pred, true_spans)  # true is None for a spurious prediction
        hit.add(true)
        # quirk (0.1.7): a spurious prediction is spurious for every tag
        booked.append((outcome, range(len(GROUPS)) if true is None else (0, _TAG_GROUP[true[0]])))
    booked.extend((_MISSED, (0, _TAG_GROUP[true[0]])) for true in true_spans if true not in hit)
    counts = [0] * _N_COUNTS
    for outcome, groups in booked:
        for group in groups:
            for scheme, kind in enumerate(outcome):
                counts[(group * 4 + scheme) * 5 + kind] += 1
    return counts


def _outcome(pred, true_spans):
    """(outcome, the true span it hits) of one predicted span; (all spurious, None) when it hits none."""
    if pred in true_spans:
        return _EXACT_HIT, pred
    label, start, end = pred
    for true in true_spans:
        _, true_start, true_end = true
        if true_start == start and true_end == end:  # (the exact-match case is handled above)
            return _SAME_BOUNDS_OTHER_LABEL, true
        # Quirk (0.1.7): overlap of range(start, end), an exclusive end, so a one-token span never
        # overlaps anything. A true span may be hit by several predictions.
        if max(start, true_start) < min(end, true_end):
            return (_OVERLAP_SAME_LABEL if label == true[0] else _OVERLAP_OTHER_LABEL), true
    return _SPURIOUS, None


class PairResult(NamedTuple):
    """One (reference, candidate) pair: counts[group][scheme][kind] and rates[group][scheme][P, R, F1]
    as flat tuples, and the official pair score (mean F1 of the four schemes, over all tags)."""

    counts: tuple
    rates: tuple
    score: float


def _totals(counts, at):
    """nervaluate's possible, actual and matched of the five counts (`KINDS`) from `counts[at]` on: partial
    matches get half credit in Ent_type and Partial."""
    correct, incorrect, partial, missed, spurious = counts[at : at + 5]
    matched = correct + 0.5 * partial if at % 20 < 10 else correct
    return correct + incorrect + partial + missed, correct + incorrect + partial + spurious, matched


@lru_cache(maxsize=1 << 12)  # pairs repeat the same count patterns (e.g. all missed and spurious)
def _pair_rates(counts):
    """Per group and scheme, nervaluate's P and R, then the script's F1; the int 0 where a denominator is 0."""
    rates = []
    for at in range(0, len(counts), 5):
        possible, actual, matched = _totals(counts, at)
        precision = matched / actual if actual > 0 else 0
        recall = matched / possible if possible > 0 else 0
        rates += (precision, recall, 2 * precision * recall / (precision + recall) if precision + recall != 0 else 0)
    return tuple(rates)


@lru_cache(maxsize=1 << 13)  # hits are mostly within an entry (padding); ~1 kB per pair
def pair_result(ref, cand):
    """Score one pair of *normalised* triple strings ('' = padding)."""
    counts = tuple(_count(*_pair_spans(ref, cand)))
    rates = _pair_rates(counts)
    # statistics.mean of the four F1s is exactly rounded; fsum / 4 is the same float.
    return PairResult(counts, rates, math.fsum(rates[2:12:3]) / 4)


# -- 6. The assignment: the first permutation (lexicographic) with the largest float sum ------
_EPS = 1e-9
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
    best_sum, best = None, ()
    for perm in itertools.permutations(range(len(scores))):
        total = 0
        for row, column in zip(scores, perm):
            total += row[column]
        if best_sum is None or total > best_sum:
            best_sum, best = total, perm
    return best


def search_assignment(scores):
    """`best_assignment` by a pruned depth-first search: the same permutation as the official loop
    (for scores in [0, 1], as pair scores are). Rows in order, columns in increasing order, a leaf
    accepted only if its float sum (in the official order) is > the best so far: unpruned, that *is*
    the official loop. Why each cut never removes the answer:
    - h(used), the optimum of the remaining rows over the unused columns (a memoised DP), is within
      _EPS of the float sums (k values in [0, 1] round by at most k^2 * 2^-53), so a prefix with float
      sum p and p + h(used) + _EPS < max(best, h(nothing) - _EPS) holds no optimal permutation.
    - Of unused columns equal in every row only the first is tried: a permutation using a later one
      first has an earlier twin with the same values in the same order, hence the same float sum.
    - A repeated state (used columns, float prefix sum) is skipped: its completions have twins, with
      the same sums, under the earlier prefix, explored or pruned by a bound no weaker than now.
    - When h(used) == 0 every completion adds zeros: the first (unused columns in order) is taken.
    The DP has at most 2^(distinct columns) x prod(#copies + 1) states (`search_states`).
    """
    k = len(scores)
    columns = list(zip(*scores))
    earlier_twins = [sum(1 << i for i in range(j) if columns[i] == columns[j]) for j in range(k)]
    same_rows_from = [all(row == scores[-1] for row in scores[d:]) for d in range(k)]  # then h is a plain sum

    def choices(used):
        return [j for j in range(k) if not used >> j & 1 and used & earlier_twins[j] == earlier_twins[j]]

    @lru_cache(maxsize=None)
    def h(used):
        row = bin(used).count("1")
        if row == k:
            return 0.0
        if same_rows_from[row]:
            return sum(scores[row][j] for j in range(k) if not used >> j & 1)
        return max(scores[row][j] + h(used | 1 << j) for j in choices(used))

    floor = h(0) - _EPS
    best_sum, best = -1.0, None
    seen = set()

    def search(used, partial, prefix):
        nonlocal best_sum, best
        if len(prefix) == k:
            if partial > best_sum:
                best_sum, best = partial, prefix
            return
        if (used, partial) in seen:
            return
        seen.add((used, partial))
        rest = h(used)
        if partial + rest + _EPS < max(best_sum, floor):
            return
        if rest == 0:
            search((1 << k) - 1, partial, prefix + tuple(j for j in range(k) if not used >> j & 1))
            return
        row = scores[len(prefix)]
        for j in choices(used):
            search(used | 1 << j, partial + row[j], prefix + (j,))

    search(0, 0, ())
    return best


# -- 7. Per-entry statistics and the corpus aggregate -----------------------------------------
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


def _check_elements(normalised, side, example):
    for i, triple in enumerate(normalised):
        for name, element in zip(("subject", "predicate", "object"), triple.split(" | ")[:3]):
            n_tokens = len(_element_tokens(element)[_CAND])
            if n_tokens > MAX_ELEMENT_TOKENS:
                raise EntryError(f"the {name} of {side} triple {i} has {n_tokens} tokens; "
                                 f"expected at most {MAX_ELEMENT_TOKENS} (a limit of this scorer)", side, i, example)


def check_entry(references, candidates, example=None):
    """Refuses what cannot be scored, before any scoring: `TypeError` for what is not a list of
    strings, `EntryError` beyond the limits. Returns the normalised triples (references, candidates)."""
    _check_list(references, "reference", example)
    _check_list(candidates, "candidate", example)
    refs, cands = [normalise(t) for t in references], [normalise(t) for t in candidates]
    _check_elements(refs, "reference", example)
    _check_elements(cands, "candidate", example)
    distinct_refs = len(set(refs) | ({""} if len(cands) > len(refs) else set()))  # padding included
    distinct_cands = len(set(cands) | ({""} if len(refs) > len(cands) else set()))
    if distinct_refs * distinct_cands > MAX_PAIRS:
        raise EntryError(f"{distinct_refs} distinct reference x {distinct_cands} distinct candidate "
                         f"triples (padding included) make {distinct_refs * distinct_cands} pairs to score; expected "
                         f"at most {MAX_PAIRS} (a limit of this scorer)", example=example)
    return refs, cands


def tokenizing_cost(references, candidates, seen, example=None):
    """Work units to tokenize the elements of this entry not in `seen` (a set, updated), from their
    characters alone; `TypeError`/`EntryError` for what is not a list of strings within the limits."""
    _check_list(references, "reference", example)
    _check_list(candidates, "candidate", example)
    units = 0
    for triple in itertools.chain(references, candidates):
        for element in set(normalise(triple).split(" | ")[:3]) - seen:
            seen.add(element)
            units += COST_CHAR * len(element) + COST_SENTENCE_MARK * sum(map(element.count, ".?!"))
    return units


def scoring_cost(references, candidates, example=None):
    """Work units to score one entry (its elements are tokenized here: count `tokenizing_cost` first):
    the pair matrix, each distinct pair and its word-alignment cells, and the search's state bound
    (identical references share columns; an entry beyond `MAX_SEARCH_STATES` is refused before its search)."""
    refs, cands = check_entry(references, candidates, example)
    k = max(len(refs), len(cands))
    padded_refs = Counter(refs + [""] * (k - len(refs)))
    pairs = list(itertools.product(padded_refs, set(cands + [""] * (k - len(cands)))))
    cells = sum(_cells(ref, cand) for ref, cand in pairs)
    states = math.prod(copies + 1 for copies in padded_refs.values())
    search = math.factorial(k) if k <= _SMALL else min(states, MAX_SEARCH_STATES)
    return COST_ENTRY + COST_SLOT * k * k + COST_PAIR * len(pairs) + cells + COST_STATE * k * search


def _cells(ref, cand):
    sizes = [[len(_element_tokens(element)[_CAND]) + 1 for element in triple.split(" | ")[:3]] for triple in (ref, cand)]
    return sum(a * b for a, b in itertools.zip_longest(*sizes, fillvalue=1))


def check_cost(references_per_entry, candidates_per_entry, limit=MAX_COST, located=None):
    """The work units of these entries (paired by position), counted before anything is scored;
    `EntryError` naming the example where the running total passes `limit`. Returns the total.
    `located(index, err)`, when given, makes the error raised for entry `index` from an `EntryError`
    without "example N: " (side "entries" for the running total): a file reader names the line."""
    seen, total = set(), 0
    for index, (references, candidates) in enumerate(zip(references_per_entry, candidates_per_entry)):
        example = None if located else index
        try:
            total += tokenizing_cost(references, candidates, seen, example)
            if total <= limit:  # (tokenizing is what the first count bounds)
                total += scoring_cost(references, candidates, example)
            if total > limit:
                raise EntryError(f"entries 0 to {index} need {total:,} work units to score; expected "
                                 f"at most {limit:,} at once (a limit of this scorer, a few seconds of work; split "
                                 "the file or score it with the library)", "entries", example=example)
        except EntryError as err:
            if located:
                raise located(index, err) from None
            raise
    return total


def quirks(references, candidates, refs, cands):
    """The official behaviours of this entry that a reader would not expect and that change its numbers
    (reported as warnings), each as (side, triple index, message); `refs`/`cands` are the normalised triples."""
    return tuple((side, i, f"{side} triple {i} {raw[i]!r:.80} has {what} (as in the official script)")
                 for side, raw, normalised in (("reference", references, refs), ("candidate", candidates, cands))
                 for i, triple in enumerate(normalised) for what in _quirks_met(side, triple, bool(refs)))


def _quirks_met(side, triple, has_references):
    """What `quirks` reports of one normalised triple, each as the end of "<side> triple <i> <text> has ..."."""
    parts, met = len(triple.split(" | ")), []
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
    return met


def _unmatchable(triple):
    """A candidate element holding a token the reference side drops (the quote asymmetry)."""
    return any(tokens[_REF] != tokens[_CAND] for tokens in map(_element_tokens, triple.split(" | ")[:3]))


def _pair_matrix(references, candidates, refs, cands, example):
    """matrix[c][r]: the `PairResult` of every candidate slot against every reference slot (k x k, padded).
    All pairs are scored, as in the official script, where an error in any pair aborts the run."""
    k = max(len(refs), len(cands))
    refs, cands = refs + [""] * (k - len(refs)), cands + [""] * (k - len(cands))
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


def _column_sums(rows, width, value):
    """Per column, the sum of `value(x)` over the rows (zeros when there is no row)."""
    return tuple(sum(map(value, column)) for column in zip(*rows)) if rows else (0,) * width


def entry_stats(references: Sequence, candidates: Sequence, example: int | None = None) -> ItemStats:
    """Score one entry. `references` and `candidates` are lists of "subject | predicate | object"
    strings (raw, as in the XML); `example` (its index) names it in error messages."""
    refs, cands = check_entry(references, candidates, example)
    matrix = _pair_matrix(references, candidates, refs, cands, example)
    scores = [[pair.score for pair in row] for row in matrix]
    states = search_states(scores)
    if states > MAX_SEARCH_STATES:
        raise EntryError(f"the assignment search over {len(scores)} triple slots has {states:,} "
                         f"states; expected at most {MAX_SEARCH_STATES:,} (a limit of this scorer: too many "
                         "reference triples that score differently)", example=example)
    assignment = best_assignment(scores)
    selected = [matrix[c][r] for c, r in enumerate(assignment)]
    return ItemStats(
        n_references=len(references),
        n_candidates=len(candidates),
        assignment=assignment,
        counts=_column_sums([pair.counts for pair in selected], _N_COUNTS, int),
        rate_sums=_column_sums([pair.rates for pair in selected], _N_RATES, _exact),
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
    classes = sorted(in_references.keys() | in_candidates.keys())
    true_positives, predicted, actual = (np.fromiter(map(counts.get, classes, itertools.repeat(0)), float, len(classes))
                                         for counts in (in_both, in_candidates, in_references))
    precision = true_positives / np.where(predicted == 0, 1, predicted)
    recall = true_positives / np.where(actual == 0, 1, actual)
    f1 = 2 * precision * recall / np.where(precision + recall == 0, 1, precision + recall)
    return {"Precision": float(np.mean(precision)), "Recall": float(np.mean(recall)), "F1": float(np.mean(f1))}


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
