"""TSVer: verdict accuracy and macro-F1, TSCS (time-series coverage) and Ev²R, as the official scorer."""

import warnings

import datasets
import evaluate

from benchscore import data
from benchscore.core import metric
from benchscore.core.resampling import DEFAULT_RESAMPLES, DEFAULT_SEED
from benchscore.tsver import files, kernel, scoring
from benchscore.tsver.loader import TIME_SERIES
from benchscore.tsver.significance import add_confidence

metric.check_version("0.1.0", "tsver")

# One citation per benchmark, kept with its official files (`benchscore data list` shows it too).
_CITATION = data.BENCHMARKS["tsver"].bibtex + "\n"

_DESCRIPTION = """\
TSVer scores fact verification against time-series evidence (Strong & Vlachos, EMNLP 2025), giving
the numbers of the official scorer (marekstrong/TSVer, baseline/compute_metrics.py at 7dd35f2):
- verdict accuracy and macro-F1 over the four labels (Supported, Cherry-Picking/Conflicting
  Evidence, Refuted, Not Enough Evidence), with the official free-text label matcher;
- TSCS, the Time Series Coverage Score: per claim, F1 of the predicted series ids times the mean
  IoU of the predicted and gold year ranges over the matched series; plus the mean IoU, series
  precision, recall and F1;
- optionally Ev²R, an LLM judge's atomic-fact precision/recall/F1 of the explanation against the
  gold justifications (pass `ev2r_judge`).
Official denominators (the card's table): a claim whose prediction has `verdict=None` is left out;
`strict=True` counts every claim. Values are fractions in [0, 1] (the official table prints x100).
For large runs, the pure functions give the same numbers faster (README.md, "Fast path").
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: one dict per claim:
        "verdict" (str or None: None means the system gave no prediction for the claim),
        "explanation" (str or None: read by the Ev²R judge),
        "time_series" (list of {"series": str, "ranges": [{"from": int, "to": int}]}: the
        predicted series ids with their inclusive year ranges; [] or None for none).
    references: one dict per claim:
        "claim" (str), "verdict" (one of the four labels), "justifications" (list of str),
        "time_series" (the gold series, same shape as above).
    strict: False (official) or True: missing and unmatched verdicts count wrong and claims with
        no prediction score 0 in TSCS, so a system cannot gain by abstaining.
    ev2r_judge: None (no Ev²R), a path to official judge records ({"Claim", "ev2r_response"}
        JSONL), a dict claim -> record, a callable judge(claim, reference, prediction) -> the four
        counts (raising ev2r.JudgeError for a failed claim), or a judge object (e.g.
        http_judge.OpenAIJudge(), the official pipeline's protocol by default).
    ev2r_aggregation: "tsver" (official micro sums, rounded to 4 decimals) or "paper" (the Ev²R
        paper / FEVER-8 per-claim average).
    return_per_claim: also return "per_claim", the per-claim statistics (for slices, bootstrap).
    confidence: (extension) a level such as 0.95 adds percentile-bootstrap intervals over claims,
        each number with its official denominators; None (default) adds none.
    n_resamples: bootstrap resamples for `confidence` (default 1000).
    seed: random seed for `confidence` (default 12345); with the same seed the intervals repeat.
Returns:
    verdict_accuracy, verdict_macro_f1, tscs, iou, precision, recall, f1 (None when nothing counts),
    n_claims, n_scored, n_in_tscs, n_correct, n_unmatched, n_errors, n_missing, confusion_matrix
    (rows gold, columns predicted, order S, C, R, N), signature, warnings (what the official rules
    did silently that changes a number; also issued as TSVerWarning); with a judge, ev2r_precision,
    ev2r_recall, ev2r_f1 (None, with the reason in warnings, when the judge failed on every claim),
    n_ev2r_judged, n_ev2r_failed; with `confidence`, extension_confidence_intervals ({name: {"low",
    "high"}} per headline number) and `|bootstrap:<n>|seed:<s>|confidence:<level>` in the signature.
Examples:
    >>> tsver = evaluate.load("tsver")
    >>> references = [
    ...     {"claim": "Rainfall in Atlantis doubled between 2000 and 2010.", "verdict": "Refuted",
    ...      "justifications": ["Rainfall rose by only 10% over the decade."],
    ...      "time_series": [{"series": "rainfall", "ranges": [{"from": 2000, "to": 2010}]}]},
    ...     {"claim": "Atlantis exports more fish than grain.", "verdict": "Supported",
    ...      "justifications": ["Fish exports were twice grain exports in 2020."],
    ...      "time_series": [{"series": "fish-exports", "ranges": [{"from": 2020, "to": 2020}]},
    ...                      {"series": "grain-exports", "ranges": [{"from": 2020, "to": 2020}]}]},
    ... ]
    >>> predictions = [
    ...     {"verdict": "refuted.", "explanation": "Rainfall grew 10%, not 100%.",
    ...      "time_series": [{"series": "rainfall", "ranges": [{"from": 2005, "to": 2010}]}]},
    ...     {"verdict": "Supported", "explanation": "Fish exports exceed grain exports.",
    ...      "time_series": [{"series": "fish-exports", "ranges": [{"from": 2020, "to": 2020}]}]},
    ... ]
    >>> results = tsver.compute(predictions=predictions, references=references)
    >>> results["verdict_accuracy"], round(results["tscs"], 4), results["n_scored"]
    (1.0, 0.6061, 2)
    >>> results["signature"]
    'tsver|version:1.0.0|benchscore:0.1.0|strict:no|ev2r:tsver|judge:none'

    Ev²R with any callable as the judge (here a fixed one):
    >>> judge = lambda claim, reference, prediction: {
    ...     "facts count predicted evidence": 2, "support predicted evidence": 1,
    ...     "facts count reference evidence": 3, "support reference evidence": 2}
    >>> results = tsver.compute(predictions=predictions, references=references, ev2r_judge=judge)
    >>> results["ev2r_precision"], results["ev2r_recall"], results["ev2r_f1"], results["n_ev2r_failed"]
    (0.5, 0.3333, 0.4, 0)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Tsver(metric.BenchscoreMetric):  # evaluate names the module after the class: "tsver", like the folder
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # Stored as given: `_prepare` checks each example's exact keys and value types
            # (`scoring.check_example`); evaluate's encoding, a Python call per leaf, cost more than scoring.
            features=metric.StoredAsPrepared({
                "predictions": {"verdict": datasets.Value("string"), "explanation": datasets.Value("string"),
                                "time_series": TIME_SERIES},
                "references": {"claim": datasets.Value("string"), "verdict": datasets.Value("string"),
                               "justifications": [datasets.Value("string")], "time_series": TIME_SERIES},
            }),
            codebase_urls=["https://github.com/marekstrong/TSVer"],
            reference_urls=["https://arxiv.org/abs/2511.01101"],
        )

    def _prepare(self, batch, start):
        for offset, (p, r) in enumerate(zip(batch["predictions"], batch["references"])):
            scoring.check_example(p, r, start + offset)
        return batch

    def _enforce_nested_string_type(self, schema, obj):
        # evaluate checks the first example of each batch and rejects None for a string or list
        # feature, though Arrow stores it as null; None is meaningful here (no prediction line, null
        # Explanation, null PredictedTimeRanges) and `_prepare` has checked every example.
        if obj is None:
            return None
        return super()._enforce_nested_string_type(schema, obj)

    def _compute(self, predictions, references, strict=False, ev2r_judge=None, ev2r_aggregation="tsver",
                 return_per_claim=False, confidence=None, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED):
        scoring.check_flag(return_per_claim, "return_per_claim")
        if not predictions:
            raise ValueError("no examples to score; expected at least one claim")
        # Per-claim statistics only where they are returned or resampled (else summed as the command sums)
        per_claim = return_per_claim or confidence is not None
        summed = None if per_claim or ev2r_judge is not None else \
            kernel.example_rows(predictions, references, scoring.verdict_outcome)
        if summed is not None:  # plain examples: summed from them, no official record built per claim
            result = scoring.summarize_rows(*summed, strict, ev2r_aggregation)
        else:
            gold, aligned = zip(*map(scoring.from_example, predictions, references))
            result = files.score(list(gold), list(aligned), ev2r_judge, strict, ev2r_aggregation, per_claim=per_claim)
        stats = result.pop("per_claim", None)
        if confidence is not None:
            add_confidence(result, stats, n_resamples, seed, confidence, strict, ev2r_aggregation)
        if return_per_claim:
            result["per_claim"] = stats
        for warning in result["warnings"]:
            warnings.warn(warning, scoring.TSVerWarning, stacklevel=2)
        return result
