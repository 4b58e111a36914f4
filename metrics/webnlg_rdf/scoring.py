"""WebNLG+ 2020 text-to-RDF scoring, exactly as the official evaluation script (work in progress).

API (stable): `tokenize`, `entry_stats`, `aggregate`, `score`, `breakdown`, `EntryStats`.
"""

from dataclasses import dataclass

from .tokenizer import tokenize  # noqa: F401  (re-exported: nltk 3.4.5's word_tokenize)

METRIC_VERSION = "1.0.0"
SCHEMES = ("Ent_type", "Partial", "Strict", "Exact")
TAGS = ("Subjects", "Predicates", "Objects")
COUNTS = ("Correct", "Incorrect", "Partial", "Missed", "Spurious")


@dataclass(frozen=True)
class EntryStats:
    """Everything the corpus numbers need from one entry (the selected pairs, computed once)."""


def entry_stats(references, candidates):
    """Score one entry: `references` and `candidates` are lists of "s | p | o" strings."""
    raise NotImplementedError


def aggregate(stats):
    """The official output dict (Total_scores, Scores_per_tag, Exact_match) from `EntryStats`."""
    raise NotImplementedError


def score(references_per_entry, candidates_per_entry):
    """`aggregate` of `entry_stats` over paired entries."""
    return aggregate([entry_stats(r, c) for r, c in zip(references_per_entry, candidates_per_entry, strict=True)])


def breakdown(stats, keys):
    """Extension (not in the official script): `{key: aggregate(stats with that key)}`."""
    raise NotImplementedError
