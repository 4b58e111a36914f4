"""TempBench TRP and CCR: temporal retrieval precision and chain consistency (the reference scorer's numbers)."""

import datasets
import evaluate

from benchscore.core.resampling import DEFAULT_RESAMPLES
from benchscore.core.resampling import DEFAULT_SEED
from .scoring import SPACES
from .scoring import score
from .scoring import score_question
from .significance import add_confidence
from .significance import score_rows

_CITATION = """\
@inproceedings{caldarini2026tempbench,
    author = {Caldarini},
    title = {TempBench: A Temporal Knowledge-Graph QA Benchmark with Per-Question Gold Subgraphs and Retrieval-Quality Metrics},
    booktitle = {Proceedings of the ACM International Conference on Information and Knowledge Management (CIKM '26)},
    year = {2026},
    doi = {10.1145/3799682.3840181},
}
"""

_DESCRIPTION = """\
TempBench scores the evidence a retriever returns for a temporal KGQA question against the
question's gold subgraph S*, not the generated answer. Per question, a retrieved triple is a hit
when its (s, r, o) is in S* and its own interval contains t_query (inclusive); TRP = hits / retrieved
and CCR = 1 when every distinct gold triple is among the hits. The corpus reports TRP macro (over
questions that retrieved anything) and micro, CCR, coverage, and the same cells per complexity and
per operator. This module reproduces the reference scorer (tempbench_eval.py) number for number;
the triple space (labels or Wikidata ids) is the config name, and evidence in the other space is
an error instead of the reference's silent zero.
"""

_KWARGS_DESCRIPTION = """
Computes TempBench TRP, CCR and coverage from one example per question.

Args:
    predictions: per question, the retrieved triples in rank order (already cut to your k): dicts
        with s, r, o (config "label") or s_id, r_id, o_id (config "id") plus t_start and t_end,
        or 5-tuples (s, r, o, t_start, t_end) in the config's space.
    references: per question, the gold triples S_star (dicts; benchmark records carry both spaces).
    t_query: per question, the year at which the evidence must hold.
    complexity: (optional) per question "1hop" | "2hop" | "3+hop", for the by_complexity cells.
    operator_type: (optional) per question, for the by_operator cells.
    id: (optional) per question id; needed with `functional_ids`.
    top_k: (extension) keep only the first k retrieved triples (after `dedup`). Default None.
    dedup: (extension) drop exact repeats of a retrieved (s, r, o, t_start, t_end). Default False.
    functional_ids: (extension) score only these question ids (the functional subset). Default None.
    confidence: (extension) a level such as 0.95 adds percentile-bootstrap intervals over questions
        (slice cells resampled within the cell); None (default) adds none.
    n_resamples: bootstrap resamples for `confidence` (default 1000).
    seed: random seed for `confidence` (default 12345); with the same seed the intervals repeat.
Returns:
    n_questions, coverage, TRP_macro, TRP_micro, CCR, by_complexity, by_operator
        ({value: {n, TRP, CCR}}), and signature (module version, space and every option).
    With `confidence`: extension_confidence_intervals ({"TRP_macro": {"low", "high"}, "TRP_micro",
        "CCR", "coverage"}), "confidence_intervals" ({"TRP", "CCR"}) in each slice cell, and
        `|bootstrap:<n>|seed:<s>|confidence:<level>` at the end of the signature.
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
    'tempbench_trp|version:1.0.0|space:label|top_k:none|dedup:no|subset:all'

    Question by question with add_batch (5-tuples work too), then options beyond the reference:

    >>> for evidence in ([right, right, ("Ada", "coach", "Bea", 1990, 2000)], [right]):
    ...     tempbench.add_batch(predictions=[evidence], references=[gold], t_query=[1994.0])
    >>> results = tempbench.compute(dedup=True)
    >>> print(round(results["TRP_macro"], 4), results["TRP_micro"], results["signature"])
    0.75 0.6666666666666666 tempbench_trp|version:1.0.0|space:label|top_k:none|dedup:yes|subset:all

    Evidence in the other space is refused, with the example and the fix:

    >>> tempbench.compute(predictions=[[{"s_id": "Q1", "r_id": "P54", "o_id": "Q10", "t_start": 1994,
    ...                                  "t_end": 1994}]], references=[gold], t_query=[1994])
    Traceback (most recent call last):
    ...
    ValueError: example #0: question (no id): evidence[0] lacks s, r, o for space 'label' (it is in id space: score with space='id'); it has ['o_id', 'r_id', 's_id', 't_end', 't_start']
"""

_OPTIONAL_INPUTS = ("complexity", "operator_type", "id")
_GOLD_KEYS = SPACES["label"] + SPACES["id"]


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class TempbenchTrp(evaluate.Metric):
    def _info(self):
        space = self._space()
        s, r, o = SPACES[space]
        triple = {s: datasets.Value("string"), r: datasets.Value("string"), o: datasets.Value("string"),
                  "t_start": datasets.Value("float64"), "t_end": datasets.Value("float64")}
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": [triple],
                    # Gold keeps both spaces, so evidence in the wrong space is caught at scoring time.
                    "references": [{key: datasets.Value("string") for key in _GOLD_KEYS}],
                    "t_query": datasets.Value("float64"),
                    "complexity": datasets.Value("string"),
                    "operator_type": datasets.Value("string"),
                    "id": datasets.Value("string"),
                }
            ),
            reference_urls=["https://doi.org/10.1145/3799682.3840181", "https://huggingface.co/datasets/Guen/tempbench"],
        )

    def _space(self):
        space = "label" if self.config_name == "default" else self.config_name
        if space not in SPACES:
            raise ValueError(f"config_name must be 'label' (the default) or 'id', found {self.config_name!r}")
        return space

    # evaluate requires every feature in every call; these fill the optional ones with None.
    def compute(self, *, predictions=None, references=None, **kwargs):
        """Scores what was added (and `predictions`/`references` with their features, if given)."""
        # (evaluate appends the inputs description to this docstring, so it must exist.)
        if predictions is not None:
            for name in _OPTIONAL_INPUTS:
                kwargs.setdefault(name, None)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Adds one question (its retrieved triples, gold S_star, t_query and optional slice fields)."""
        return self.add_batch(predictions=[prediction], references=[reference],
                              **{key: [value] for key, value in kwargs.items()})

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Adds questions; each is checked here, so an error names the example before Arrow sees it."""
        if predictions is None or references is None or kwargs.get("t_query") is None:
            raise ValueError("tempbench_trp needs predictions, references and t_query for every question")
        n = len(predictions)
        for name in _OPTIONAL_INPUTS:
            if kwargs.get(name) is None:
                kwargs[name] = [None] * n
        for name, column in [("references", references)] + list(kwargs.items()):
            if len(column) != n:
                raise ValueError(f"{name} has {len(column)} values for {n} predictions")
        space = self._space()
        start = getattr(self, "_n_added", 0)
        evidence_rows, gold_rows, t_query = [], [], []
        for i in range(n):
            question = {"id": kwargs["id"][i], "t_query": kwargs["t_query"][i], "S_star": references[i],
                        "complexity": kwargs["complexity"][i], "operator_type": kwargs["operator_type"][i]}
            evidence = predictions[i]
            if not isinstance(evidence, (list, tuple, str, bytes, dict)) and hasattr(evidence, "__iter__"):
                evidence = list(evidence)  # read a generator once, for the check and for storing
            try:
                score_question(question, evidence, space)  # the scorer's own checks, nothing stored
            except (ValueError, TypeError) as err:
                raise type(err)(f"example #{start + i}: {err}") from None
            evidence_rows.append([_as_record(item, space, start + i, j) for j, item in enumerate(evidence)])
            gold_rows.append([{key: _gold_text(g, key, start + i, j) for key in _GOLD_KEYS}
                              for j, g in enumerate(references[i])])
            t_query.append(float(question["t_query"]))
        self._n_added = start + n
        # evaluate refuses None in a string column: "not given" travels as "" and comes back as None.
        for name in _OPTIONAL_INPUTS:
            kwargs[name] = [_text(value) for value in kwargs[name]]
        kwargs["t_query"] = t_query
        return super().add_batch(predictions=evidence_rows, references=gold_rows, **kwargs)

    def _compute(self, predictions, references, t_query, complexity, operator_type, id, top_k=None, dedup=False,
                 functional_ids=None, confidence=None, n_resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED):
        self._n_added = 0
        questions = [
            {"id": id[i] or None, "t_query": t_query[i], "complexity": complexity[i] or None,
             "operator_type": operator_type[i] or None,
             "S_star": [{key: value or None for key, value in g.items()} for g in references[i]]}
            for i in range(len(predictions))
        ]
        result = score(questions, predictions, self._space(), top_k, dedup, functional_ids)
        if confidence is not None:
            rows = score_rows(questions, predictions, self._space(), top_k, dedup, functional_ids)
            add_confidence(result, rows, n_resamples, seed, confidence)
        return result


def _as_record(item, space, example, j):
    """One validated evidence item as the declared struct (5-tuples become dicts)."""
    s, r, o = SPACES[space]
    if isinstance(item, dict):
        item = (item[s], item[r], item[o], item["t_start"], item["t_end"])
    for name, value in zip((s, r, o), item):
        if not isinstance(value, str):
            raise TypeError(f"example #{example}: evidence[{j}].{name} must be a string, found {value!r}")
    return {s: item[0], r: item[1], o: item[2], "t_start": float(item[3]), "t_end": float(item[4])}


def _gold_text(gold, key, example, j):
    value = gold.get(key)
    if value is not None and not isinstance(value, str):
        raise TypeError(f"example #{example}: references[{j}].{key} must be a string, found {value!r}")
    return _text(value)


def _text(value):
    return "" if value is None else str(value)
