"""The one adapter between the harness tasks and benchscore's scorers.

Every scorer name the harness tasks use is imported here and nowhere else, so a rename in the
scoring modules (e.g. `question_stats` -> `item_stats`) is a fix in this file only.
"""

from benchscore.mctaco.scoring import check_categories as check_mctaco_categories
from benchscore.mctaco.scoring import item_stats as mctaco_question_stats
from benchscore.mctaco.scoring import question_key as mctaco_question_key
from benchscore.webnlg_rdf.scoring import entry_stats as webnlg_entry_stats
from benchscore.webnlg_rdf.scoring import exact_match as webnlg_exact_match
from benchscore.webnlg_rdf.scoring import pair_mean as webnlg_pair_mean
from benchscore.webnlg_rdf.scoring import pair_rates as webnlg_pair_rates

__all__ = [
    "check_mctaco_categories",
    "mctaco_question_key",
    "mctaco_question_stats",
    "webnlg_entry_stats",
    "webnlg_exact_match",
    "webnlg_pair_mean",
    "webnlg_pair_rates",
]
