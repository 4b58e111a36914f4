"""TempBench TRP and CCR: temporal retrieval precision and chain consistency (the reference scorer's numbers)."""


import datasets
import evaluate

from benchscore import data
from benchscore.core import metric
from benchscore.core.readers import InputTypeError, at_example, in_example, invalid_text
from benchscore.core.resampling import DEFAULT_RESAMPLES, DEFAULT_SEED
from benchscore.tempbench_trp import kernel, scoring, significance

metric.check_version("0.1.0", "tempbench_trp")

# One citation per benchmark, kept with its official files (`benchscore data list` shows it too).
_CITATION = data.BENCHMARKS["tempbench"].bibtex + "\n"

_DESCRIPTION = """\
TempBench scores the evidence a retriever returns for a temporal KGQA question against the
question's gold subgraph S*: TRP (the share of retrieved triples that are gold and valid at t_query,
macro and micro), CCR (every gold triple retrieved) and coverage, also per complexity and operator.
This module reproduces the reference scorer (tempbench_eval.py) number for number; the triple space
(labels or Wikidata ids) is the config name, and evidence in the other space is an error, not a zero.
"""

_KWARGS_DESCRIPTION = """
Computes TempBench TRP, CCR and coverage from one example per question.

Args:
    predictions: per question, the retrieved triples in rank order (already cut to your k): dicts with
        s, r, o (config "label") or s_id, r_id, o_id (config "id") plus t_start, t_end, or 5-tuples.
    references: per question, the gold triples S_star (dicts; benchmark records carry both spaces).
    t_query: per question, the year at which the evidence must hold.
    complexity: (optional) per question "1hop" | "2hop" | "3+hop", for the by_complexity cells.
    operator_type: (optional) per question, for the by_operator cells.
    id: (optional) per question id; needed with `functional_ids`.
    top_k: (extension) keep only the first k retrieved triples (after `dedup`). Default None.
    dedup: (extension) drop exact repeats of a retrieved (s, r, o, t_start, t_end). Default False.
    functional_ids: (extension) score only these question ids (the functional subset). Default None.
    confidence: (extension) a level such as 0.95 adds bootstrap intervals over questions. Default None.
    n_resamples: bootstrap resamples for `confidence` (default 1000).
    seed: random seed for `confidence` (default 12345); with the same seed the intervals repeat.
Returns:
    n_questions, coverage, TRP_macro, TRP_micro, CCR, by_complexity and by_operator ({value: {n, TRP,
        CCR}}), signature (versions and every option), and warnings (only when there is one: e.g. TRP
        reported as 0.0, the reference's convention, where no question retrieved anything).
    With `confidence`: extension_confidence_intervals ({name: {"low", "high"}}), "confidence_intervals"
        in each slice cell, and `|bootstrap:<n>|seed:<s>|confidence:<level>` in the signature.
Examples:
    >>> tempbench = evaluate.load("tempbench_trp")  # config "label"; "id" for Wikidata ids
    >>> gold = [{"s": "Ada", "r": "member of sports team", "o": "Rovers"}]
    >>> right = {"s": "Ada", "r": "member of sports team", "o": "Rovers", "t_start": 1994, "t_end": 1994}
    >>> stale = dict(right, t_start=1991, t_end=1991)
    >>> results = tempbench.compute(predictions=[[right, stale], []], references=[gold, gold],
    ...                             t_query=[1994, 1994], complexity=["1hop", "1hop"])
    >>> print(results["TRP_macro"], results["CCR"], results["coverage"])
    0.5 0.5 0.5
    >>> results["by_complexity"]
    {'1hop': {'n': 2, 'TRP': 0.5, 'CCR': 0.5}}
    >>> results["signature"]
    'tempbench_trp|version:1.0.0|benchscore:0.1.0|space:label|top_k:none|dedup:no|subset:all'

    Question by question with add_batch (5-tuples work too), then options beyond the reference:

    >>> for evidence in ([right, right, ("Ada", "coach", "Bea", 1990, 2000)], [right]):
    ...     tempbench.add_batch(predictions=[evidence], references=[gold], t_query=[1994.0])
    >>> results = tempbench.compute(dedup=True)
    >>> print(round(results["TRP_macro"], 4), results["TRP_micro"], results["signature"])
    0.75 0.6666666666666666 tempbench_trp|version:1.0.0|benchscore:0.1.0|space:label|top_k:none|dedup:yes|subset:all

    Evidence in the other space is refused, with the example and the fix:

    >>> tempbench.compute(predictions=[[{"s_id": "Q1", "r_id": "P54", "o_id": "Q10", "t_start": 1994,
    ...                                  "t_end": 1994}]], references=[gold], t_query=[1994])
    Traceback (most recent call last):
    ...
    benchscore.core.readers.InputError: example 0: question (no id): evidence[0] lacks s, r, o for space 'label' (it is in id space: score with space='id'); it has ['o_id', 'r_id', 's_id', 't_end', 't_start']
"""


def _stored(record, evidence, space):
    """What `_example` gives for a question the kernel is not sure of, or its clear error."""
    question = scoring.check_question(record, space)
    triples, times = [], []
    for j, (triple, t_start, t_end) in enumerate(scoring.check_evidence(evidence, space, question.where)):
        if triple in question.other_gold and triple not in question.gold:
            raise scoring.wrong_space(question, j, triple)
        triples += triple
        times += (t_start, t_end)
    gold_texts = [value for triple in question.gold for value in triple]
    not_unicode = invalid_text(triples) is not None or invalid_text(gold_texts) is not None
    return (question.t_query, question.gold, kernel.item_codes(question.t_query, question.gold, triples, times),
            (triples, gold_texts) if not_unicode else None)


def _example(record, evidence, space, index):
    """(t_query, the distinct gold, `kernel.evidence_codes`, None or the example's strings when one is not
    Unicode) of one example; the clear error naming it."""
    checked = kernel.checked_gold(record, space)  # plainly typed inputs; the checked path for the rest
    codes = None if checked is None else kernel.evidence_codes(checked, evidence, space)
    if codes is not None:
        return checked[0], checked[1], codes, None
    try:
        return _stored(record, evidence, space)
    except (ValueError, TypeError) as err:
        raise in_example(err, index) from None


def _checked_batch(batch, start, space):
    """What `_prepare` stores of a batch, example by example, each error naming its example."""
    prepared = {"predictions": [], "references": [], "t_query": []}
    n = len(batch["predictions"])
    texts = {"predictions": [None] * n, "references": [None] * n}  # of examples whose strings are not Unicode
    for i, (evidence, gold, t_query) in enumerate(zip(batch["predictions"], batch["references"], batch["t_query"])):
        record = {"t_query": t_query, "S_star": gold, "id": batch["id"][i]}
        t_query, gold, (hits, repeats), not_unicode = _example(record, evidence, space, start + i)
        if not_unicode:
            texts["predictions"][i], texts["references"][i] = not_unicode
        prepared["predictions"].append({"hits": hits, "repeats": repeats})
        prepared["references"].append(len(gold))
        prepared["t_query"].append(t_query)
    if any(text is not None for text in texts["references"]):  # refused as when Arrow stored the strings
        raise metric.surrogate_error(texts, start)
    return prepared


def _rows(predictions, references, complexity, operator_type, id, keep, cut, dedup):
    """The rows of the stored examples `keep` keeps (`kernel.coded_row`: the formula on what _prepare stored)."""
    rows = []
    for i, (codes, n_gold) in enumerate(zip(predictions, references)):
        qid = id[i] or None
        try:
            if keep is not None and not keep({"id": qid}):
                continue
        except ValueError as err:  # no id, with functional_ids
            raise in_example(err, i) from None
        rows.append(kernel.coded_row(qid, complexity[i] or None, operator_type[i] or None, n_gold, codes["hits"],
                                     codes["repeats"], cut, dedup))
    return rows


def _texts(column, start, field):
    """An optional string column as stored: "" for None; a column of `str` and None alone in one pass."""
    if set(map(type, column)) <= {str, type(None)}:
        return [value or "" for value in column]
    return [_text(value, start + i, field) for i, value in enumerate(column)]


def _text(value, index, field):
    """An optional string column's value: "" for None (evaluate refuses None in a string column)."""
    if value is None or isinstance(value, str):
        return value or ""
    raise at_example(index, f"{field} must be a string or None, found {type(value).__name__}", InputTypeError)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class TempbenchTrp(metric.BenchscoreMetric):
    OPTIONAL_INPUTS = ("complexity", "operator_type", "id")

    def _info(self):
        self._space()  # an unknown configuration is refused when the module is loaded
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # What `_prepare` found (`kernel.evidence_codes`), which is all the formula needs under any top_k and
            # dedup: per retrieved item the gold triple it hits (-1: none) and whether it repeats an earlier
            # one; the number of distinct gold triples. Small ints through Arrow, not the triples' strings
            # (those cost 3x the pure scoring), stored as given (evaluate encodes per value in Python).
            features=metric.StoredAsPrepared({"predictions": {"hits": [datasets.Value("int32")],
                                                              "repeats": [datasets.Value("bool")]},
                                "references": datasets.Value("int32"), "t_query": datasets.Value("float64"),
                                **{name: datasets.Value("string") for name in self.OPTIONAL_INPUTS}}),
            reference_urls=["https://doi.org/10.1145/3799682.3840181", "https://huggingface.co/datasets/Guen/tempbench"],
        )

    def _space(self):
        space = "label" if self.config_name == "default" else self.config_name
        if space not in scoring.SPACES:
            raise ValueError(f"config_name must be 'label' (the default) or 'id', found {self.config_name!r}")
        return space

    def _prepare(self, batch, start):
        if batch.get("t_query") is None:
            raise ValueError("tempbench_trp needs t_query (the year of each question) with every batch")
        space = self._space()
        coded = kernel.coded_batch(batch["predictions"], batch["references"], batch["t_query"], space)
        prepared = _checked_batch(batch, start, space) if coded is None else \
            dict(zip(("predictions", "references", "t_query"), coded))
        for name in self.OPTIONAL_INPUTS:
            prepared[name] = _texts(batch[name], start, name)
        return prepared

    def _compute(self, predictions, references, t_query, complexity, operator_type, id, top_k=None, dedup=False,
                 functional_ids=None, confidence=None, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED):
        # Every example was checked by _prepare: the formula runs on the stored values.
        space = self._space()
        scoring.check_options(space, top_k, dedup)
        keep = scoring.subset_filter(functional_ids)
        rows = _rows(predictions, references, complexity, operator_type, id, keep, int(top_k or 0), dedup)
        result = scoring._summarize_rows(rows, space=space, top_k=top_k, dedup=dedup, functional_ids=functional_ids)
        if confidence is not None:
            significance.add_confidence(result, [scoring.ItemStats(*row) for row in rows], n_resamples, seed,
                                        confidence)
        return result
