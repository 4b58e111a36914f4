"""WebNLG+ 2020 text-to-RDF: the official evaluation script's numbers, as an `evaluate` metric."""

import datasets
import evaluate

from benchscore import data
from benchscore.core import metric
from benchscore.core.readers import at_example
from benchscore.core.resampling import DEFAULT_RESAMPLES, DEFAULT_SEED
from benchscore.webnlg_rdf import scoring, significance

metric.check_version("0.1.0", "webnlg_rdf")

# One citation per benchmark, kept with its official files (`benchscore data list` shows it too).
_CITATION = data.BENCHMARKS["webnlg"].bibtex + "\n"

_DESCRIPTION = """\
The WebNLG+ 2020 text-to-RDF (semantic parsing) metric: a system reads a text and outputs RDF triples
"subject | predicate | object", compared with the reference triples of the same entry. This module
reproduces the challenge's official evaluation script (WebNLG/WebNLG-Text-to-triples,
`Evaluation_script_json.py`, with its pinned nltk 3.4.5 and nervaluate 0.1.7 behaviour, quirks
included), so its numbers equal the published ones, in seconds instead of hours. The metric card
(README.md) defines the four match types (Ent_type, Partial, Strict, Exact), `Exact_match` and the quirks.

Fast path: `evaluate` round-trips every triple string through Arrow. For large inputs,
`benchscore.webnlg_rdf.scoring.score(references_per_entry, candidates_per_entry)` gives the same numbers.
"""

_KWARGS_DESCRIPTION = """
Scores one WebNLG entry per example.

Args:
    predictions (`list` of `list` of `str`): per entry, the candidate triples as
        "subject | predicate | object" strings (what a seq2seq model decodes to). An empty list
        means the system produced no triple for that entry.
    references (`list` of `list` of `str`): per entry, the reference triples (`<mtriple>` texts
        of the first `<modifiedtripleset>`), same format.
    category (`list` of `str`, only with `config_name="breakdown"`): per entry, its DBpedia
        category (`<entry category=...>`). It is a feature, so `add_batch` accumulates it.
    confidence (`float`, optional): (extension) a level such as 0.95 adds percentile-bootstrap
        intervals over entries (breakdown groups resampled within the group). Default None: none.
    n_resamples (`int`): bootstrap resamples for `confidence` (default 1000).
    seed (`int`): random seed for `confidence` (default 12345); the same seed repeats the intervals.

Returns:
    `Total_scores` (`dict`, the published numbers): for each of `Ent_type`, `Partial`, `Strict`, `Exact`:
        `Correct`, `Incorrect`, `Partial`, `Missed`, `Spurious`, `Possible`, `Actual` (sums over the
        selected triple pairs) and `Precision`, `Recall`, `F1` (means over them).
    `Scores_per_tag` (`dict`): the same for `Subjects`, `Predicates` and `Objects` separately.
    `Exact_match` (`dict`): `Precision`, `Recall`, `F1`, macro-averaged over distinct triple strings.
    `extension_per_size`, `extension_per_category` (`dict`, only with `config_name="breakdown"`, NOT
        in the official script): the three blocks above per size (reference triples) and per category.
    `signature` (`str`): module, version and every option that changes a number.
    `extension_confidence_intervals` (`dict`, only with `confidence`): NOT part of the official
        script. {"<scheme>_<rate>": {"low", "high"}} for the `Total_scores` P, R, F1 of each scheme;
        each breakdown group gets `confidence_intervals` too, and the signature ends with
        `|bootstrap:<n_resamples>|seed:<seed>|confidence:<level>`.

Examples:

    A perfect prediction (the official key order is kept):

    >>> import evaluate
    >>> webnlg = evaluate.load("webnlg_rdf")
    >>> refs = [["Alan_Bean | occupation | Test_pilot"]]
    >>> preds = [["Alan_Bean | occupation | Test_pilot"]]
    >>> results = webnlg.compute(predictions=preds, references=refs)
    >>> list(results)
    ['Total_scores', 'Scores_per_tag', 'Exact_match', 'signature']
    >>> results["Total_scores"]["Exact"]["F1"], results["Exact_match"]["F1"]
    (1.0, 1.0)

    The four match types on one triple whose object is too long: the object span overlaps the
    reference span, so Ent_type counts it correct, Partial half-correct, Strict and Exact wrong:

    >>> preds = [["Alan_Bean | occupation | Test_pilot_school"]]
    >>> results = webnlg.compute(predictions=preds, references=refs)
    >>> {scheme: round(s["F1"], 4) for scheme, s in results["Total_scores"].items()}
    {'Ent_type': 1.0, 'Partial': 0.8333, 'Strict': 0.6667, 'Exact': 0.6667}

    Streaming: `add_batch` accumulates entries (here a second entry with no predicted triple, whose
    three reference elements are missed) and `compute()` scores them all, as one `compute` would:

    >>> for batch_preds, batch_refs in [(preds, refs), ([[]], [["Alan_Bean | birthPlace | Wheeler,_Texas"]])]:
    ...     webnlg.add_batch(predictions=batch_preds, references=batch_refs)
    >>> results = webnlg.compute()
    >>> results["Total_scores"]["Exact"]["Missed"], results["Total_scores"]["Exact"]["Possible"]
    (3, 6)

    Per-size and per-category breakdowns (an extension) with the "breakdown" configuration:

    >>> webnlg = evaluate.load("webnlg_rdf", "breakdown")
    >>> results = webnlg.compute(
    ...     predictions=[["Alan_Bean | occupation | Test_pilot"], []],
    ...     references=[["Alan_Bean | occupation | Test_pilot"], ["Aarhus | leader | Jacob_Bundsgaard"]],
    ...     category=["Astronaut", "City"],
    ... )
    >>> results["extension_per_category"]["Astronaut"]["Total_scores"]["Exact"]["F1"]
    1.0
    >>> results["extension_per_category"]["City"]["Total_scores"]["Exact"]["F1"]
    0
"""

# config_name -> features. The category is a feature (not a compute() keyword) so that add_batch
# accumulates it; it is its own configuration because every declared feature must be present in
# every example, and because evaluate.combine sends compute() keywords to every module.
_TRIPLES = datasets.List(datasets.Value("string"))
_FEATURES = {
    "default": datasets.Features({"predictions": _TRIPLES, "references": _TRIPLES}),
    "breakdown": datasets.Features({"predictions": _TRIPLES, "references": _TRIPLES, "category": datasets.Value("string")}),
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class WebnlgRdf(metric.BenchscoreMetric):
    """WebNLG+ 2020 text-to-RDF, official evaluation script semantics."""

    def _info(self):
        if self.config_name not in _FEATURES:
            raise ValueError(
                f"unknown configuration {self.config_name!r} for webnlg_rdf; expected one of {sorted(_FEATURES)}"
            )
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=_FEATURES[self.config_name],
            codebase_urls=["https://github.com/WebNLG/WebNLG-Text-to-triples"],
            reference_urls=["https://aclanthology.org/2020.webnlg-1.7", "https://synalp.gitlabpages.inria.fr/webnlg-challenge/"],
        )

    def _prepare(self, batch, start):
        """Every example checked once, before Arrow sees it: lists of strings within the scorer's limits
        (datasets would split a bare string into one "triple" per character), a category where declared."""
        for offset, (cands, refs) in enumerate(zip(batch["predictions"], batch["references"])):
            scoring.check_entry(refs, cands, example=start + offset)
        for offset, name in enumerate(batch.get("category", ())):
            if not isinstance(name, str) or not name:
                raise at_example(start + offset, f"category is {name!r}; expected a non-empty string")
        batch["predictions"] = [list(cands) for cands in batch["predictions"]]
        batch["references"] = [list(refs) for refs in batch["references"]]
        return batch

    def _compute(self, predictions, references, category=None, confidence=None, n_resamples=DEFAULT_RESAMPLES,
                 seed=DEFAULT_SEED):
        # In the default configuration `category` is not a feature, so evaluate passes it here.
        if self.config_name == "default" and category is not None:
            raise ValueError(
                "category is a feature of the 'breakdown' configuration: "
                'load it with evaluate.load("webnlg_rdf", "breakdown") and pass category= to add_batch/compute'
            )
        # Per-entry statistics once; the aggregate, breakdowns and intervals all reuse them.
        stats = [scoring.entry_stats(refs, cands, example=i) for i, (cands, refs) in enumerate(zip(predictions, references))]
        results = scoring.aggregate(stats)
        breakdowns = {}
        if self.config_name == "breakdown":
            breakdowns = {"extension_per_size": [len(refs) for refs in references], "extension_per_category": category}
        results.update((name, scoring.breakdown(stats, keys)) for name, keys in breakdowns.items())
        if warnings := scoring.warnings(stats):
            results["warnings"] = warnings
        results["signature"] = scoring.signature(breakdown=bool(breakdowns))
        if confidence is not None:
            significance.add_confidence(results, stats, n_resamples, seed, confidence, breakdowns)
        return results
