"""The one adapter between the harness tasks and benchscore's scorers.

Every scorer name the harness tasks use is imported here and nowhere else, so a rename in the
scoring modules (e.g. `question_stats` -> `item_stats`, `benchscore.<folder>.resampling` ->
`benchscore.core.resampling`) is a fix in this file only.
"""

import numpy as np

from benchscore.core.resampling import DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrap_samples
from benchscore.mctaco.scoring import aggregate as mctaco_aggregate
from benchscore.mctaco.scoring import item_stats as mctaco_question_stats
from benchscore.mctaco.scoring import question_key as mctaco_question_key
from benchscore.mctaco.scoring import signature as mctaco_signature
from benchscore.mctaco.significance import item_values as mctaco_question_values
from benchscore.mctaco.significance import statistic as mctaco_statistic
from benchscore.webnlg_rdf.scoring import aggregate as webnlg_aggregate
from benchscore.webnlg_rdf.scoring import item_stats as webnlg_entry_stats
from benchscore.webnlg_rdf.scoring import signature as webnlg_signature
from benchscore.webnlg_rdf.significance import item_values as webnlg_entry_values
from benchscore.webnlg_rdf.significance import statistic as webnlg_statistic

__all__ = [
    "mctaco_question_key",
    "mctaco_scores",
    "mctaco_stderrs",
    "mctaco_signature",
    "webnlg_entry_stats",
    "webnlg_aggregate",
    "webnlg_signature",
    "webnlg_stderrs",
]


def mctaco_scores(predictions, references, question_keys):
    """The official MC-TACO {"em", "f1", "n_questions"} (`benchscore mctaco`'s numbers)."""
    return mctaco_aggregate(mctaco_question_stats(predictions, references, question_keys))


def mctaco_stderrs(predictions, references, question_keys, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED):
    """Bootstrap standard errors {"em", "f1"} over questions: the sample standard deviation (ddof=1)
    of the statistic over `n_resamples` seeded resamples of the per-question statistics (benchscore's
    resampling engine, the draws `benchscore compare mctaco` makes)."""
    stats = mctaco_question_stats(predictions, references, question_keys)
    samples = bootstrap_samples(mctaco_question_values(stats), mctaco_statistic, n_resamples, seed)
    return {name: float(np.std(samples[name], ddof=1)) for name in ("em", "f1")}


def webnlg_stderrs(stats, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED):
    """Bootstrap standard errors of the Total_scores F1s {"Ent_type", "Partial", "Strict", "Exact"}
    over entries (ddof=1; resamples where a number is undefined are left out), the draws of
    `benchscore compare webnlg`. Exact_match is not resampled by benchscore, so it has none."""
    samples = bootstrap_samples(webnlg_entry_values(stats), webnlg_statistic, n_resamples, seed)
    return {scheme: float(np.nanstd(samples[f"{scheme}_F1"], ddof=1)) for scheme in ("Ent_type", "Partial", "Strict", "Exact")}
