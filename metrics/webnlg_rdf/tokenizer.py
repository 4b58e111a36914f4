"""nltk 3.4.5's `word_tokenize`, the tokenizer the official WebNLG text-to-RDF scorer ran: punkt sentence
splitting with the English model, then 3.4.5's "improved" Treebank word rules on each sentence.

Newer nltk tokenizes 44 of the 8,025 elements of the 2020 files differently (which moves scores), and
nltk 3.10's rule lists differ from 3.4.5's, so the 3.4.5 rules are written out below. Punkt's sentence
splitting is written out too, for the model's parameters as far as lower-case text (all the scorer feeds
it) can observe them: the abbreviation types, collocations and sentence starters in full, and of the
orthographic context only the 4 types that pass the orthographic heuristic's lower-case test. So there is
no data file, no download and no nltk at run time: importing nltk (its package imports scipy.stats and
scikit-learn where they are installed) took a second, most of a WebNLG command on the full test set.
`tests/test_webnlg_scoring.py` re-derives these values from the exported model, and compares the
sentences with nltk's `PunktSentenceTokenizer` on these parameters (all 8,025 elements, each rule, and
random texts of what punkt decides on), under nltk 3.10 and, in LightEval's environment, 3.9.1.

The regular expressions are nltk's (`nltk/tokenize/treebank.py`, `nltk/tokenize/__init__.py` of 3.4.5,
`nltk/tokenize/punkt.py`) and the punkt values come from nltk_data's English punkt model.
Copyright (C) 2001-2019 NLTK Project; licensed under the Apache License, Version 2.0
(http://www.apache.org/licenses/LICENSE-2.0).
"""

import re
from functools import lru_cache

# --- punkt: the English model's parameters, as far as lower-case text can observe them ----------
PUNKT_ABBREV_TYPES = frozenset(
    """
    a.a a.c a.d a.g a.h a.m a.m.e a.s a.t adm ala ariz aug ave b.f b.v bros c c.i.t c.o.m.b c.v calif
    chg cie co col colo conn corp cos ct d d.c d.h d.w dec dr e e.f e.h e.l e.m f f.g f.j feb fla fri ft
    g g.d g.f g.k ga gen h h.c h.f h.m i.m.s ill inc j.b j.c j.j j.k j.p j.r jan jr k kan ky l l.a l.f
    l.p lt ltd m m.b.a m.d.c m.j maj messrs mg mich minn mr mrs ms n n.c n.d n.h n.j n.m n.v n.y nev nov
    oct ok okla ore p p.a.m p.m pa ph.d prof r r.a r.h r.i r.j r.k r.t rep reps s s.a s.a.y s.c s.g
    s.p.a s.s sen sep sept sr st sw t t.j tenn tues u.k u.n u.s u.s.a u.s.s.r v va vs vt w w.c w.r w.va
    w.w wash wed wis yr
    """.split()
) | {". . "}  # the model really has this type (with its spaces)
PUNKT_COLLOCATIONS = frozenset(
    tuple(pair.split("|"))
    for pair in """
    ##number##|abreast ##number##|aes ##number##|business ##number##|cbot ##number##|colgate
    ##number##|commodities ##number##|cooper ##number##|corrections ##number##|credit ##number##|dividend
    ##number##|financing ##number##|genentech ##number##|henley ##number##|insider ##number##|international
    ##number##|leisure ##number##|letters ##number##|notable ##number##|pay-fone ##number##|pegasus
    ##number##|pepper ##number##|review ##number##|rj ##number##|wedgestone ##number##|who ##number##|zimmer
    b|edelman b|levine b|smith b|stewart b|wigton i|magnin i|toussie j|aron j|fialka j|walter o|ludcke
    """.split()
)
PUNKT_SENT_STARTERS = frozenset(
    """
    according although among both but despite even he however i if in indeed instead it many meanwhile
    moreover most nevertheless nonetheless nor sales separately similarly since so some the there these
    they this though thus under when while yet
    """.split()
)
# The only types a lower-case next word can be a sentence start for (see the module docstring).
PUNKT_LOWERCASE_SENT_STARTERS = frozenset(("administrators", "b-week", "r-revised", "z-holiday"))

# --- punkt's sentence splitting with these parameters ---------------------------------------------
# Kiss & Strunk's (2006) decision as nltk's PunktSentenceTokenizer takes it at a candidate break: the
# candidates and their contexts, the first (type-based) and second (token-based) annotation of the
# context's words, and the boundary realignment. Its regular expressions are nltk's (3.9.1, whose
# non-word characters are ASCII, as 3.4.5's were).
_NON_WORD = r"""[?!)";}\]*:@'({\[]"""  # characters that cannot appear within a word
_MULTI_CHAR = r"(?:-{2,}|\.{2,}|(?:\.\s){2,}\.)"  # dashes and ellipses
_WORD_START = r"""[^("`{\[:;&#*@)}\]\-,]"""  # characters no word starts with
_PUNKT_WORDS = re.compile(
    rf"({_MULTI_CHAR}|(?={_WORD_START})\S+?(?=\s|$|{_NON_WORD}|{_MULTI_CHAR}|,(?=$|\s|{_NON_WORD}|{_MULTI_CHAR}))|\S)"
)
_CANDIDATE = re.compile(rf"[.?!](?=(?P<after_tok>{_NON_WORD}|\s+(?P<next_tok>\S+)))")
_REALIGN = re.compile(r"""["')\]}]+?(?:\s+|(?=--)|$)""", re.MULTILINE)
_NUMERIC = re.compile(r"^-?[\.,]?\d[\d,\.-]*\.?$")
_INITIAL = re.compile(r"[^\W\d]\.$")
_ELLIPSIS = re.compile(r"\.\.+$")
_ASCII_SPACE = " \t\n\r\x0b\x0c"  # string.whitespace: the white space a candidate's word starts after
_NOT_STARTING = frozenset(";:,.!?")  # no sentence starts with one of these


def _sentences(text):
    """punkt's sentences of `text` (nltk's `tokenize(text)`): the text cut at each candidate whose context
    holds a break, boundaries realigned past closing quotes and brackets, the last without trailing space."""
    breaks, start = [], 0
    for match, context in _candidates(text):
        if _has_break(context):
            breaks.append((start, match.end()))
            start = match.start("next_tok") if match.group("next_tok") else match.end()
    breaks.append((start, len(text.rstrip())))
    return [text[first:last] for first, last in _realigned(text, breaks)]


def _candidates(text):
    """(match, context) of each candidate break: its context is the word before it (from the last ASCII white
    space; quirk: one at the very start of that stretch is not seen), the end character and what follows.
    Where a word runs on into the next candidate's (no white space between), only the last is given."""
    previous, word_start, word_end = None, 0, 0
    for match in _CANDIDATE.finditer(text):
        before = text[word_end:match.start()]
        space = max(before.rfind(char) for char in _ASCII_SPACE)
        start = word_end + space + 1 if space > 0 else word_start
        if previous is not None and word_end <= start:
            yield previous, _context(text, previous, word_start, word_end)
        previous, word_start, word_end = match, start, match.start()
    if previous is not None:
        yield previous, _context(text, previous, word_start, word_end)


def _context(text, match, word_start, word_end):
    return text[word_start:word_end] + match.group() + match.group("after_tok")


class _Token:
    """A punkt word: its text, type (numbers as ##number##) and the annotation's sentbreak and abbr flags."""

    __slots__ = ("text", "type", "sentbreak", "abbr", "ellipsis")

    def __init__(self, text):
        self.text, self.type = text, _NUMERIC.sub("##number##", text.lower())
        self.sentbreak = self.abbr = self.ellipsis = False
        # the first pass: from the token's own type
        if text in (".", "?", "!"):
            self.sentbreak = True
        elif _ELLIPSIS.match(text):
            self.ellipsis = True
        elif text.endswith(".") and not text.endswith(".."):
            stem = text[:-1].lower()
            if stem in PUNKT_ABBREV_TYPES or stem.split("-")[-1] in PUNKT_ABBREV_TYPES:
                self.abbr = True
            else:
                self.sentbreak = True

    def type_no_period(self):
        return self.type[:-1] if len(self.type) > 1 and self.type[-1] == "." else self.type

    def type_no_sentperiod(self):
        return self.type_no_period() if self.sentbreak else self.type


def _has_break(context):
    """Whether a word of the context but its last is a sentence break after the second pass."""
    words = [_Token(word) for line in context.split("\n") if line.strip() for word in _PUNKT_WORDS.findall(line)]
    for word, following in zip(words, words[1:]):
        if word.text.endswith("."):
            _second_pass(word, following)
        if word.sentbreak:
            return True
    return False


def _second_pass(word, following):
    """The token-based decision on a word ending in a period, from the word after it (whose flags are the first
    pass's): the collocation, then the orthographic and sentence-starter heuristics for abbreviations and
    ellipses, then for initials and ordinals."""
    typ, next_typ, initial = word.type_no_period(), following.type_no_sentperiod(), bool(_INITIAL.match(word.text))
    if (typ, next_typ) in PUNKT_COLLOCATIONS:
        word.sentbreak, word.abbr = False, True
    elif (word.abbr or word.ellipsis) and not initial and _sentence_follows(following, next_typ):
        word.sentbreak = True
    elif (initial or typ == "##number##") and _joins_next(following, initial):
        word.sentbreak, word.abbr = False, True


def _sentence_follows(following, next_typ):
    """After an abbreviation or ellipsis: the next word starts a sentence by its orthography, or is a frequent
    sentence starter written upper-case."""
    return _starts_sentence(following) is True or following.text[0].isupper() and next_typ in PUNKT_SENT_STARTERS


def _joins_next(following, initial):
    """After an initial or ordinal: the next word does not start a sentence by its orthography, or (after an
    initial) it is unknown and upper-case, a word not seen lower-case (J. Bach)."""
    starts = _starts_sentence(following)
    return starts is False or starts is None and initial and following.text[0].isupper()


def _starts_sentence(word):
    """The orthographic heuristic: True, False, or None (unknown). Of the orthographic context these parameters
    hold only "seen lower-case at a sentence's beginning", for `PUNKT_LOWERCASE_SENT_STARTERS`."""
    if word.text in _NOT_STARTING:
        return False
    seen_lower_first = word.type_no_sentperiod() in PUNKT_LOWERCASE_SENT_STARTERS
    if word.text[0].isupper() and seen_lower_first:
        return True
    if word.text[0].islower() and not seen_lower_first:
        return False
    return None


def _realigned(text, spans):
    """punkt's boundary realignment: closing quotes and brackets after a break (and the white space after them)
    move to the sentence before; spans left empty are dropped."""
    shift = 0
    for (first, last), following in zip(spans, spans[1:] + [None]):
        first += shift
        moved = following and _REALIGN.match(text, following[0], following[1])
        if moved:
            yield first, following[0] + len(moved.group(0).rstrip())
            shift = moved.end() - following[0]
        else:
            shift = 0
            if last > first:
                yield first, last


# --- nltk 3.4.5's TreebankWordTokenizer with the four "improved" edits of nltk.tokenize ---------
# Each list is in 3.4.5's final order; "(improved)" marks the four rules 3.4.5's word_tokenize adds.
_STARTING_QUOTES = [
    (re.compile("([«“‘„]|[`]+)"), r" \1 "),  # (improved) inserted first
    (re.compile(r"^\""), r"``"),
    (re.compile(r"(``)"), r" \1 "),
    (re.compile(r"([ \(\[{<])(\"|\'{2})"), r"\1 `` "),
    (re.compile(r"(?i)(\')(?!re|ve|ll|m|t|s|d)(\w)\b"), r"\1 \2"),  # (improved) appended
]
_PUNCTUATION = [
    (re.compile(r"([^\.])(\.)([\]\)}>\"\'»”’ ]*)\s*$"), r"\1 \2 \3 "),  # (improved) inserted first
    (re.compile(r"([:,])([^\d])"), r" \1 \2"),
    (re.compile(r"([:,])$"), r" \1 "),
    (re.compile(r"\.\.\."), r" ... "),
    (re.compile(r"[;@#$%&]"), r" \g<0> "),
    (re.compile(r"([^\.])(\.)([\]\)}>\"\']*)\s*$"), r"\1 \2\3 "),
    (re.compile(r"[?!]"), r" \g<0> "),
    (re.compile(r"([^'])' "), r"\1 ' "),
]
_PARENS_BRACKETS = (re.compile(r"[\]\[\(\)\{\}\<\>]"), r" \g<0> ")
_DOUBLE_DASHES = (re.compile(r"--"), r" -- ")
_ENDING_QUOTES = [
    (re.compile("([»”’])"), r" \1 "),  # (improved) inserted first
    (re.compile(r'"'), " '' "),
    (re.compile(r"(\S)(\'\')"), r"\1 \2 "),
    (re.compile(r"([^' ])('[sS]|'[mM]|'[dD]|') "), r"\1 \2 "),
    (re.compile(r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) "), r"\1 \2 "),
]
_CONTRACTIONS = [  # MacIntyre's CONTRACTIONS2 then CONTRACTIONS3, as in 3.4.5
    re.compile(pattern)
    for pattern in (
        r"(?i)\b(can)(?#X)(not)\b",
        r"(?i)\b(d)(?#X)('ye)\b",
        r"(?i)\b(gim)(?#X)(me)\b",
        r"(?i)\b(gon)(?#X)(na)\b",
        r"(?i)\b(got)(?#X)(ta)\b",
        r"(?i)\b(lem)(?#X)(me)\b",
        r"(?i)\b(mor)(?#X)('n)\b",
        r"(?i)\b(wan)(?#X)(na)\s",
        r"(?i) ('t)(?#X)(is)\b",
        r"(?i) ('t)(?#X)(was)\b",
    )
]

# Every match of a contraction rule contains one of these strings (case aside): text that holds none is left
# as it is by the first rule, and so by each of the others.
_CONTRACTION_WORDS = re.compile(r"(?i)cannot|d'ye|gimme|gonna|gotta|lemme|mor'n|wanna|'tis|'twas")
_PLAIN = re.compile(r"(?:[^\W_]|\s)*")  # letters, digits and white space only


def _treebank_words(text):
    """nltk 3.4.5's improved `TreebankWordTokenizer().tokenize(text)` (no parenthesis conversion)."""
    # A shortcut: on letters, digits and white space only the contraction rules can fire (every
    # other rule needs a quote, an apostrophe, punctuation or a bracket), and most elements are such.
    plain = _PLAIN.fullmatch(text)
    if not plain:
        for regexp, substitution in _STARTING_QUOTES + _PUNCTUATION + [_PARENS_BRACKETS, _DOUBLE_DASHES]:
            text = regexp.sub(substitution, text)
    text = " " + text + " "
    if not plain:
        for regexp, substitution in _ENDING_QUOTES:
            text = regexp.sub(substitution, text)
    if _CONTRACTION_WORDS.search(text):  # (in few texts; the ten rules were most of the time of the others)
        for regexp in _CONTRACTIONS:
            text = regexp.sub(r" \1 \2 ", text)
    return text.split()


@lru_cache(maxsize=1 << 16)
def _tokens(text):
    if _PLAIN.fullmatch(text):  # a shortcut: without . ? ! punkt cannot split
        return tuple(_treebank_words(text))
    return tuple(word for sentence in _sentences(text) for word in _treebank_words(sentence))


def tokenize(text):
    """Tokens of `text` exactly as nltk 3.4.5's `word_tokenize(text)` gave them (before the scorer's
    lower-casing and punctuation filtering). Exact for lower-case text, which is all the scorer feeds it.

    >>> tokenize('"j.r.r. tolkien" (author)')
    ['``', 'j.r.r', '.', 'tolkien', "''", '(', 'author', ')']
    """
    return list(_tokens(text))
