"""The official per-pair algorithm of the WebNLG text-to-RDF scorer on checked tokens: the word alignment
(`nonrefwords`), the spans of an element pair (`getrefdict`), the swap attempts and nervaluate 0.1.7's
counts, as the spec (3.4) describes them, quirks included (each named "quirk:").

`scoring.py` checks and normalises the triples and tokenizes their elements; this module takes the
element tokens of one (reference, candidate) pair and returns its 80 counts, or None where the official
script crashes (repeated tokens in the word alignment), which the caller turns into the clear error. So
it words no message. It also holds the assignment's loops (the official permutation loop, the pruned
search `scoring.search_assignment` explains), an entry's column sums and numpy's float sum
(`Exact_match`'s means without numpy). It is plain typed Python, compiled by mypyc when the package
is built with a C compiler (setup.py): the per-pair Python calls were most of a file's scoring time.
The parity tests check it pair by pair against the official per-entry output.

Markers are the official strings (FOUNDREF-<n>-<ref pos>, FOUNDCAND-<n>-<ref pos>, FOUNDCAND-<n>-LINKED,
NOTFOUND-<run>): the tokens are lower-cased, so no token can start like a marker.
"""

import itertools
from typing import Final

SUB: Final = "SUB"
PRED: Final = "PRED"
OBJ: Final = "OBJ"
LABELS: Final = (SUB, PRED, OBJ)  # the span labels, in element order
N_GROUPS: Final = 4  # all tags, then SUB, PRED, OBJ
N_SCHEMES: Final = 4  # Ent_type, Partial, Strict, Exact
N_KINDS: Final = 5  # Correct, Incorrect, Partial, Missed, Spurious
N_COUNTS: Final = N_GROUPS * N_SCHEMES * N_KINDS
CORRECT: Final = 0
INCORRECT: Final = 1
PARTIAL: Final = 2
MISSED: Final = 3
SPURIOUS: Final = 4

Tokens = tuple[str, ...]
Span = tuple[str, int, int]  # (label, start, end), inclusive end, from the element's offset 0
# getrefdict's result: (found, reference spans, candidate spans, len(total), candidate tokens as linked,
# reference tokens as aligned)
Aligned = tuple[bool, tuple[Span, ...], tuple[Span, ...], int, Tokens, Tokens]
ElementTokens = tuple[Tokens, Tokens, Tokens]  # (reference-side, candidate-side, swap-side) filters
REF_SIDE: Final = 0
CAND_SIDE: Final = 1
SWAP_SIDE: Final = 2


# -- Word alignment (`nonrefwords`): greedy, longest candidate n-gram first, left to right -------------
def find(tokens: list[str], gram: list[str]) -> int:
    """First position of `gram` as a contiguous run in `tokens`, or -1."""
    size = len(gram)
    first = gram[0]
    for start in range(len(tokens) - size + 1):
        if tokens[start] == first:
            offset = 1
            while offset < size and tokens[start + offset] == gram[offset]:
                offset += 1
            if offset == size:
                return start
    return -1


def longest_common_run(ref: list[str], cand: list[str]) -> int:
    """The longest run of tokens found in both lists (no longer n-gram can align)."""
    width = len(cand) + 1
    longest = 0
    previous = [0] * width
    for token in ref:
        current = [0] * width
        for j in range(len(cand)):
            if cand[j] == token:
                run = previous[j] + 1
                current[j + 1] = run
                if run > longest:
                    longest = run
        previous = current
    return longest


def align(ref: list[str], cand: list[str]) -> bool:
    """Marks aligned n-grams in place (ref tokens become FOUNDREF-<n>-<ref pos>, candidate tokens
    FOUNDCAND-<n>-<ref pos>); False where the official recursion crashes. Shortcuts that change no mark
    (tests/test_webnlg_limits.py compares with the plain recursion): the search starts at the longest
    common run, and an n-gram whose first token is no longer unmarked in the reference is not searched."""
    unmarked: dict[str, int] = {}
    for token in ref:
        unmarked[token] = unmarked.get(token, 0) + 1
    return _align(ref, cand, 1, longest_common_run(ref, cand), unmarked)


def _align(ref: list[str], cand: list[str], found_number: int, length: int, unmarked: dict[str, int]) -> bool:
    if not _any_unmarked(cand, unmarked):
        return True  # no n-gram can match (the loop below would find nothing either)
    while length > 0:
        grams = cand[:]  # the official's n-gram list is made here: stale on purpose
        for start in range(len(grams) - length + 1):
            if unmarked.get(grams[start], 0) == 0:
                continue
            gram = grams[start : start + length]
            ref_start = find(ref, gram)
            if ref_start < 0:
                continue
            if not _mark(ref, cand, gram, ref_start, found_number, unmarked):
                return False
            found_number += 1
            # quirk: the recursion's found_number increments are not returned
            if not _align(ref, cand, found_number, length, unmarked):
                return False
        length -= 1
    return True


def _any_unmarked(cand: list[str], unmarked: dict[str, int]) -> bool:
    for token in cand:
        if unmarked.get(token, 0) != 0:
            return True
    return False


def _mark(ref: list[str], cand: list[str], gram: list[str], ref_start: int, found_number: int,
          unmarked: dict[str, int]) -> bool:
    for q in range(ref_start, ref_start + len(gram)):
        unmarked[ref[q]] -= 1
        ref[q] = f"FOUNDREF-{found_number}-{q}"
    # quirk: a stale n-gram may be in the reference but no longer in the candidate (the official crash)
    cand_start = find(cand, gram)
    if cand_start < 0:
        return False
    for offset in range(len(gram)):
        cand[cand_start + offset] = f"FOUNDCAND-{found_number}-{ref_start + offset}"
    return True


# -- Spans of one element pair (`getrefdict`) --------------------------------------------------------
def marker_id(token: str) -> str:
    """The official `^((.*?)-\\d+)` of a marker: FOUNDCAND-<n> or NOTFOUND-<run>."""
    cut = token.find("-", token.find("-") + 1)
    return token if cut < 0 else token[:cut]


def element_spans(ref: Tokens, cand: Tokens, ref_label: str, cand_label: str) -> Aligned:
    """`getrefdict` on aligned token lists. The official overwrites before/after-linked candidate tokens in
    place with FOUNDCAND-<n>-LINKED; the swap's PRED quirk sees them, so the linked tokens are returned."""
    found_at = [i for i in range(len(cand)) if cand[i].startswith("FOUNDCAND")]
    if not found_at:
        return _unaligned_spans(ref, cand, ref_label, cand_label)
    before, after, unlinked, linked = _link(ref, cand, found_at[0], found_at[-1])
    total = before + list(ref) + after + unlinked
    ref_spans = ((ref_label, len(before), len(before) + len(ref) - 1),)
    return True, ref_spans, candidate_spans(total, cand_label), len(total), linked, ref


def _unaligned_spans(ref: Tokens, cand: Tokens, ref_label: str, cand_label: str) -> Aligned:
    """Nothing aligned: one span a side (none for an empty side)."""
    if not ref:  # only candidate tokens (an empty pair gives the span [0, -1])
        return False, (), ((cand_label, 0, len(cand) - 1),), len(cand), cand, ref
    if not cand:  # quirk: the official's `total` is then [span dict], of length 1
        return False, ((ref_label, 0, len(ref) - 1),), (), 1, cand, ref
    return (False, ((ref_label, 0, len(ref) - 1),), ((cand_label, len(ref), len(ref) + len(cand) - 1),),
            len(ref) + len(cand), cand, ref)


def _link(ref: Tokens, cand: Tokens, first: int, last: int) -> tuple[list[str], list[str], list[str], Tokens]:
    """The unmatched candidate words: (before, after, unlinked markers, candidate tokens as linked). Those
    before the first match are linked to it when it is aligned to the first reference word; those after the
    last match, when it is aligned to the last one."""
    link_before = cand[first].endswith("-0")
    link_after = ref[-1].startswith("FOUNDREF") and not cand[-1].startswith("FOUNDCAND") and \
        cand[last] == ref[-1].replace("FOUNDREF", "FOUNDCAND")
    before_id, after_id = marker_id(cand[first]) + "-LINKED", marker_id(cand[last]) + "-LINKED"
    linked = list(cand)
    before: list[str] = []
    after: list[str] = []
    unlinked: list[str] = []
    run = 1  # runs of unlinked candidate words are numbered by the matches seen before them
    for i in range(len(cand)):
        if cand[i].startswith("FOUNDCAND"):
            run += 1
        elif link_before and i < first:
            linked[i] = before_id
            before.append(before_id)
        elif link_after and i > last:
            linked[i] = after_id
            after.append(after_id)
        else:
            unlinked.append(f"NOTFOUND-{run}")
    return before, after, unlinked, tuple(linked)


def candidate_spans(total: list[str], label: str) -> tuple[Span, ...]:
    """The official walk over `total` (FOUNDREF read as FOUNDCAND) that cuts the candidate spans."""
    spans: list[Span] = []
    current = ""
    begin = 0
    collecting = False
    last = len(total) - 1
    for i in range(len(total)):
        token = total[i]
        if token.startswith("FOUNDREF") or token.startswith("FOUNDCAND") or token.startswith("NOTFOUND"):
            collecting = True
            found = marker_id(token.replace("FOUNDREF", "FOUNDCAND"))
            if found != current:
                if current != "":
                    spans.append((label, begin, i - 1))
                current, begin = found, i
            if i == last:
                spans.append((label, begin, i))
        elif collecting:  # quirk: re-emitted for every unmatched reference word, `current` kept
            spans.append((label, begin, i - 1))
    return tuple(spans)


def _shares_token(ref: Tokens, cand: Tokens) -> bool:
    """Whether the word alignment of these lists marks anything. It marks a token exactly when the lists share
    one (its search starts at their longest common run, then at least 1, with every token unmarked), and it
    crashes only after marking; so lists that share none align to nothing, with no crash, and need no alignment."""
    for token in ref:
        for other in cand:
            if token == other:
                return True
    return False


_aligned_memo: dict[tuple[Tokens, Tokens, str, str], Aligned | None] = {}
MEMO_SIZE: Final = 1 << 15  # element pairs recur across pairs and entries; the memo starts over when full


def aligned_spans(ref_tokens: Tokens, cand_tokens: Tokens, ref_label: str, cand_label: str) -> Aligned | None:
    """`element_spans` of two token tuples after the word alignment; None where the alignment crashes."""
    if not _shares_token(ref_tokens, cand_tokens):  # most element pairs of an entry's k x k: no alignment, no memo
        return _unaligned_spans(ref_tokens, cand_tokens, ref_label, cand_label)
    key = (ref_tokens, cand_tokens, ref_label, cand_label)
    if key in _aligned_memo:
        return _aligned_memo[key]
    ref, cand = list(ref_tokens), list(cand_tokens)
    found = element_spans(tuple(ref), tuple(cand), ref_label, cand_label) if align(ref, cand) else None
    if len(_aligned_memo) >= MEMO_SIZE:
        _aligned_memo.clear()
    _aligned_memo[key] = found
    return found


def clear_memo() -> None:
    _aligned_memo.clear()


# -- One (reference, candidate) pair: main pass, swap attempts, spans -----------------------------
def pair_spans(ref_elements: list[ElementTokens], cand_elements: list[ElementTokens]
               ) -> tuple[list[Span], list[Span]] | None:
    """(reference spans, candidate spans) of one pair of triples given as the tokens of their three
    elements: the main pass, then the swap attempts; each element's spans shifted by its base (the
    previous elements' len(total)). None where the official crashes."""
    results: list[Aligned] = []
    for e in range(3):
        found = aligned_spans(ref_elements[e][REF_SIDE], cand_elements[e][CAND_SIDE], LABELS[e], LABELS[e])
        if found is None:
            return None
        results.append(found)
    swapped = _swapped(ref_elements, cand_elements, results)
    if swapped is None:
        return None
    elements, bases = swapped
    ref_spans: list[Span] = []
    cand_spans: list[Span] = []
    for e in range(3):
        base = bases[e]
        for label, start, end in elements[e][1]:
            ref_spans.append((label, start + base, end + base))
        for label, start, end in elements[e][2]:
            cand_spans.append((label, start + base, end + base))
    return ref_spans, cand_spans


def _swap(ref_elements: list[ElementTokens], cand_elements: list[ElementTokens], a: int, b: int
          ) -> tuple[Aligned, Aligned] | None:
    """Elements a and b aligned crosswise (swap-side tokens); None where the alignment crashes. Neither
    result found: both returned with found False (the caller keeps the main pass)."""
    first = aligned_spans(ref_elements[a][SWAP_SIDE], cand_elements[b][SWAP_SIDE], LABELS[a], LABELS[b])
    second = aligned_spans(ref_elements[b][SWAP_SIDE], cand_elements[a][SWAP_SIDE], LABELS[b], LABELS[a])
    if first is None or second is None:
        return None
    return first, second


Swapped = tuple[list[Aligned], tuple[int, int, int]]  # the element results and their bases
NOTHING_SWAPPED: Final[Swapped] = ([], (0, 0, 0))  # a swap attempt that found no match (no element results)


def _swapped(ref_elements: list[ElementTokens], cand_elements: list[ElementTokens], results: list[Aligned]
             ) -> Swapped | None:
    """The official swap attempts after the main pass: (element results, their bases), None where the
    alignment crashes. The first attempt that finds a match replaces the main pass's results for its two
    elements; the three are separate `if`s guarded by "nothing switched" only (quirk: swap 2 also runs when
    swap 1 was tried and found nothing)."""
    if not results[0][0] and not results[2][0]:  # swap 1: subject <-> object
        swapped = _swap_subject_object(ref_elements, cand_elements, results[1][3])
        if swapped is None or swapped[0]:
            return swapped
    for a in (0, 1):  # swap 2: subject <-> predicate, then swap 3: predicate <-> object
        if not results[a][0] and not results[a + 1][0]:
            swapped = _swap_neighbours(ref_elements, cand_elements, results, a)
            if swapped is None or swapped[0]:
                return swapped
    return results, (0, results[0][3], results[0][3] + results[1][3])


def _swap_neighbours(ref_elements: list[ElementTokens], cand_elements: list[ElementTokens], results: list[Aligned],
                     a: int) -> Swapped | None:
    """Swap 2 (a = 0: subject <-> predicate) or 3 (a = 1: predicate <-> object): its results, `NOTHING_SWAPPED`
    when it found no match, None where the alignment crashes. The third element keeps its main-pass base."""
    hit = _swap(ref_elements, cand_elements, a, a + 1)
    if hit is None:
        return None
    if not hit[0][0] and not hit[1][0]:
        return NOTHING_SWAPPED
    elements = list(results)
    elements[a], elements[a + 1] = hit
    bases = [0, results[0][3], results[0][3] + results[1][3]]
    bases[a + 1] = bases[a] + hit[0][3]
    return elements, (bases[0], bases[1], bases[2])


def _swap_subject_object(ref_elements: list[ElementTokens], cand_elements: list[ElementTokens], len_p: int
                         ) -> Swapped | None:
    """Swap 1, subject <-> object: its results, `NOTHING_SWAPPED` when it found no match, None where the
    alignment crashes."""
    hit = _swap(ref_elements, cand_elements, 0, 2)
    if hit is None:
        return None
    first, second = hit
    if not first[0] and not second[0]:
        return NOTHING_SWAPPED
    # Quirk: PRED is recomputed from the object/subject token lists just used (as their alignment and
    # linking left them, no new alignment), both labels PRED.
    pred = element_spans(second[5], second[4], PRED, PRED)
    return [first, pred, second], (0, first[3], first[3] + len_p)


# -- nervaluate 0.1.7's counts of one document -----------------------------------------------------
def _tag_group(label: str) -> int:
    return 1 if label == SUB else 2 if label == PRED else 3


def _book(counts: list[int], group: int, outcome: tuple[int, int, int, int]) -> None:
    at = group * N_SCHEMES * N_KINDS
    counts[at + outcome[0]] += 1
    counts[at + N_KINDS + outcome[1]] += 1
    counts[at + 2 * N_KINDS + outcome[2]] += 1
    counts[at + 3 * N_KINDS + outcome[3]] += 1


# The outcome of one predicted span per scheme (Ent_type, Partial, Strict, Exact).
EXACT_HIT: Final = (CORRECT, CORRECT, CORRECT, CORRECT)
SAME_BOUNDS_OTHER_LABEL: Final = (INCORRECT, CORRECT, INCORRECT, CORRECT)
OVERLAP_SAME_LABEL: Final = (CORRECT, PARTIAL, INCORRECT, INCORRECT)
OVERLAP_OTHER_LABEL: Final = (INCORRECT, PARTIAL, INCORRECT, INCORRECT)
MISSED_ALL: Final = (MISSED, MISSED, MISSED, MISSED)
SPURIOUS_ALL: Final = (SPURIOUS, SPURIOUS, SPURIOUS, SPURIOUS)


def count(true_spans: list[Span], pred_spans: list[Span]) -> tuple[int, ...]:
    """nervaluate 0.1.7 `compute_metrics` for one document: counts[group][scheme][kind], flat (group 0 =
    all tags, then SUB, PRED, OBJ). An outcome is booked under the true span's label."""
    counts = [0] * N_COUNTS
    hit = [False] * len(true_spans)
    for pred in pred_spans:
        index = _hit(pred, true_spans)
        if index < 0:  # quirk (0.1.7): a spurious prediction is spurious for every tag
            for group in range(N_GROUPS):
                _book(counts, group, SPURIOUS_ALL)
            continue
        true = true_spans[index]
        for j in range(len(true_spans)):  # a true span is hit by value, as the official's set of hits
            if true_spans[j] == true:
                hit[j] = True
        outcome = _outcome(pred, true)
        _book(counts, 0, outcome)
        _book(counts, _tag_group(true[0]), outcome)
    for j in range(len(true_spans)):
        if not hit[j]:
            _book(counts, 0, MISSED_ALL)
            _book(counts, _tag_group(true_spans[j][0]), MISSED_ALL)
    return tuple(counts)


def _hit(pred: Span, true_spans: list[Span]) -> int:
    """The index of the true span a predicted span hits, or -1: an equal span first, then the first with the
    same bounds or an overlap. A true span may be hit by several predictions (0.1.7)."""
    for j in range(len(true_spans)):
        if true_spans[j] == pred:
            return j
    _, start, end = pred
    for j in range(len(true_spans)):
        _, true_start, true_end = true_spans[j]
        if true_start == start and true_end == end:
            return j
        # Quirk (0.1.7): overlap of range(start, end), an exclusive end, so a one-token span never overlaps.
        if max(start, true_start) < min(end, true_end):
            return j
    return -1


def _outcome(pred: Span, true: Span) -> tuple[int, int, int, int]:
    if pred == true:
        return EXACT_HIT
    if pred[1] == true[1] and pred[2] == true[2]:
        return SAME_BOUNDS_OTHER_LABEL
    return OVERLAP_SAME_LABEL if pred[0] == true[0] else OVERLAP_OTHER_LABEL


def pair_counts(ref_elements: list[ElementTokens], cand_elements: list[ElementTokens]) -> tuple[int, ...] | None:
    """The 80 counts of one pair of triples given as their elements' tokens; None where the official crashes."""
    spans = pair_spans(ref_elements, cand_elements)
    return None if spans is None else count(spans[0], spans[1])


# -- The assignment: the first permutation (lexicographic) with the largest float sum ----------------
def official_assignment(scores: list[list[float]]) -> tuple[int, ...]:
    """The official loop: permutations in lexicographic order (itertools.permutations', made in C), float sums
    in row order, strict `>` (the first permutation is always taken)."""
    k = len(scores)
    best: tuple[int, ...] = ()
    best_sum = 0.0
    first = True
    for perm in itertools.permutations(range(k)):
        total = 0.0
        for row in range(k):
            total += scores[row][perm[row]]
        if first or total > best_sum:
            best_sum, best, first = total, perm, False
    return best


EPS: Final = 1e-9


class AssignmentSearch:
    """`scoring.search_assignment`'s pruned depth-first search (its docstring says why each cut is exact)."""

    def __init__(self, scores: list[list[float]]) -> None:
        k = len(scores)
        self.k = k
        self.scores = scores
        columns = [[row[j] for row in scores] for j in range(k)]
        self.earlier_twins = [sum([1 << i for i in range(j) if columns[i] == columns[j]]) for j in range(k)]
        self.same_rows_from = [all([row == scores[-1] for row in scores[d:]]) for d in range(k)]  # h is a plain sum
        self.rest: dict[int, float] = {}
        self.seen: set[tuple[int, float]] = set()
        self.best_sum = -1.0
        self.best: tuple[int, ...] = ()
        self.floor = self.h(0) - EPS

    def choices(self, used: int) -> list[int]:
        """The unused columns, of those equal in every row only the first."""
        return [j for j in range(self.k) if not used >> j & 1 and used & self.earlier_twins[j] == self.earlier_twins[j]]

    def h(self, used: int) -> float:
        """The optimum of the remaining rows over the unused columns (memoised)."""
        if used in self.rest:
            return self.rest[used]
        row = bin(used).count("1")
        best = 0.0
        if row < self.k:
            scores = self.scores[row]
            if self.same_rows_from[row]:
                for j in range(self.k):
                    if not used >> j & 1:
                        best += scores[j]
            else:
                first = True
                for j in self.choices(used):
                    value = scores[j] + self.h(used | 1 << j)
                    if first or value > best:
                        best, first = value, False
        self.rest[used] = best
        return best

    def search(self, used: int, partial: float, prefix: list[int]) -> None:
        if len(prefix) == self.k:
            if partial > self.best_sum:
                self.best_sum, self.best = partial, tuple(prefix)
            return
        if (used, partial) in self.seen:
            return
        self.seen.add((used, partial))
        rest = self.h(used)
        if partial + rest + EPS < max(self.best_sum, self.floor):
            return
        if rest == 0:  # every completion adds zeros: the first (unused columns in order)
            self.search((1 << self.k) - 1, partial, prefix + [j for j in range(self.k) if not used >> j & 1])
            return
        row = self.scores[len(prefix)]
        for j in self.choices(used):
            self.search(used | 1 << j, partial + row[j], prefix + [j])


def search_assignment(scores: list[list[float]]) -> tuple[int, ...]:
    search = AssignmentSearch(scores)
    search.search(0, 0.0, [])
    return search.best


def column_sums(rows: list[tuple[int, ...]], width: int) -> tuple[int, ...]:
    """Per column, the sum over the rows (zeros when there is no row). The first row is the start and zeros are
    not added: an entry's exact rates are integers of about 1,074 bits, and each addition makes a new one."""
    if not rows:
        return (0,) * width
    sums = list(rows[0])
    for r in range(1, len(rows)):
        row = rows[r]
        for i in range(width):
            value = row[i]
            if value:
                sums[i] += value
    return tuple(sums)


# -- numpy's float sum: Exact_match's means without importing numpy (half the command's time on a small file) ---
def pairwise_sum(values: list[float]) -> float:
    """`np.add.reduce` of `values` as a float64 array, bit for bit (what `np.mean` divides by the count): 0.0 plus
    numpy's pairwise sum. Fewer than 8 values are added in order; up to 128, in 8 running sums (one per position
    modulo 8, over the whole blocks of 8) combined as ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)), then
    the rest in order; more are split in two (the first part's size half, rounded down to a multiple of 8),
    each part summed so, and the two sums added."""
    return 0.0 + _pairwise_sum(values, 0, len(values))


def _pairwise_sum(values: list[float], start: int, n: int) -> float:
    if n < 8:
        total = 0.0
        for i in range(start, start + n):
            total += values[i]
        return total
    if n <= 128:
        sums = values[start : start + 8]
        i = 8
        while i < n - n % 8:
            for j in range(8):
                sums[j] += values[start + i + j]
            i += 8
        total = ((sums[0] + sums[1]) + (sums[2] + sums[3])) + ((sums[4] + sums[5]) + (sums[6] + sums[7]))
        while i < n:
            total += values[start + i]
            i += 1
        return total
    half = n // 2
    half -= half % 8
    return _pairwise_sum(values, start, half) + _pairwise_sum(values, start + half, n - half)
