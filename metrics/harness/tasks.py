"""Harness-neutral task logic: documents, prompts, answer parsing and corpus aggregations.

The lm-evaluation-harness task folders (`lm_eval_tasks/*/utils.py`) and the LightEval module
(`lighteval_tasks.py`) are thin wrappers around these functions, so both harnesses give the same
numbers. Scores come from `scorers.py` (the one adapter to benchscore's scorers).

MC-TACO (`mc_taco_official`)
    **One document per question** (the official unit: the candidates sharing `sentence + " " +
    question`), with two log-likelihood requests per candidate: lm-eval's own `mc_taco` prompt of
    that candidate row and its choices " no" / " yes". A candidate's answer is "yes" when
    loglikelihood(" yes") > loglikelihood(" no") (lm-eval's argmax: a tie is "no"). Each
    document's values are the question's official exact match and F1 (`mctaco_question_result`),
    so the corpus numbers are plain means over questions: lm-eval's `mean` (and its standard error),
    right on any subset or resample of the documents; `--limit N` is N whole questions.

WebNLG text-to-RDF (`webnlg_text2rdf*`)
    One document per entry of the official 2020 test file. The input is the entry's `<lex>`: every
    entry of the 2020 text-to-RDF test files has exactly one, so "one document per
    lexicalisation" and "the first one" are the same documents. The model writes
    `subject | predicate | object` lines; `parse_triples` documents the tolerant parsing.
    Each document's values (`webnlg_values`) are what its entry adds to each corpus number, so
    every corpus aggregation (`WEBNLG_METRICS`) gives the official number on the whole set and a
    correct number on any multiset of documents (a bootstrap resample, duplicates included) in
    about the time lm-eval takes to draw it; the counters are means per entry (lm-eval's `mean`).
"""

import functools
import itertools
import math
import operator
import re
from collections import Counter

from benchscore.core.checks import is_real

from .official_files import official_file
from .scorers import (
    check_mctaco_categories,
    mctaco_question_key,
    mctaco_question_stats,
    webnlg_entry_stats,
    webnlg_exact_match,
    webnlg_pair_mean,
    webnlg_pair_rates,
)

# =============================================================================================
# MC-TACO
# =============================================================================================
# lm-eval's mc_taco prompt, one candidate at a time, cut where a question's candidates part: the
# question's text is the document's, each candidate adds its answer line.
MCTACO_QUESTION_PROMPT = "{sentence}\nQuestion: {question}"
MCTACO_ANSWER_PROMPT = "\nAnswer: {answer}\nPlausible:"
MCTACO_PROMPT = MCTACO_QUESTION_PROMPT + MCTACO_ANSWER_PROMPT  # lm-eval's mc_taco doc_to_text
MCTACO_CHOICES = ["no", "yes"]  # lm-eval's mc_taco (and the ClassLabel order of `label`)
# Every per-question value is lm-eval's `mean` over questions (see the module docstring).
MCTACO_METRICS = ("em", "f1", "candidate_acc")


def _mctaco_questions(path):
    """One dict per question of an official TSV, in first-appearance order of the official key."""
    from benchscore.mctaco.files import read_references

    rows = read_references(path)
    keys = [mctaco_question_key(row["sentence"], row["question"]) for row in rows]
    check_mctaco_categories(keys, [row["category"] for row in rows])
    questions = {}
    for index, (key, row) in enumerate(zip(keys, rows)):
        question = questions.get(key)
        if question is None:
            question = questions[key] = {"question_key": key, "sentence": row["sentence"], "question": row["question"],
                                         "category": row["category"], "answers": [], "labels": [], "rows": []}
        question["answers"].append(row["answer"])
        question["labels"].append(MCTACO_CHOICES.index(row["label"]))
        question["rows"].append(index)
    return list(questions.values())


def mctaco_dataset(data_dir=None, **_metadata):
    """The official TSVs as a DatasetDict {"validation": dev_3783, "test": test_9442} of **questions**
    (1,332 in test): question_key (the official grouping key, `sentence + " " + question`), sentence,
    question, category, and per candidate, in file order, answers, labels (0 = no, 1 = yes) and rows
    (the line index in the file). Extra metadata keys (lm-eval passes model arguments too) are ignored."""
    import datasets

    splits = {"validation": official_file("mctaco", "validation", data_dir),
              "test": official_file("mctaco", "test", data_dir)}
    return datasets.DatasetDict({name: datasets.Dataset.from_list(_mctaco_questions(path))
                                 for name, path in splits.items()})


def mctaco_question_text(doc):
    """The part of lm-eval's mc_taco prompt that a question's candidates share."""
    return MCTACO_QUESTION_PROMPT.format(sentence=doc["sentence"], question=doc["question"])


def mctaco_answer_lines(doc):
    """Per candidate, the rest of lm-eval's mc_taco prompt after `mctaco_question_text`."""
    return [MCTACO_ANSWER_PROMPT.format(answer=answer) for answer in doc["answers"]]


def mctaco_candidate_contexts(doc, context):
    """One context per candidate: `context` (which ends with `mctaco_question_text(doc)`) and the
    candidate's answer line, i.e. lm-eval's mc_taco prompt of that candidate row."""
    return [context + line for line in mctaco_answer_lines(doc)]


def _mctaco_answer(row, loglikelihood_no, loglikelihood_yes):
    """True for "yes" when loglikelihood(" yes") > loglikelihood(" no") (lm-eval's argmax: a tie is "no").

    A log-likelihood that is NaN or not a number is an error naming the row: the comparison would
    silently read it as "no". (-inf, a choice the model rules out, is a number.)"""
    for choice, value in (("no", loglikelihood_no), ("yes", loglikelihood_yes)):
        found = f"example {row} (mc_taco_official candidate row): the log-likelihood of {choice!r} is {value!r:.40}"
        if not is_real(value):
            raise TypeError(f"{found} ({type(value).__name__}); expected a number")
        try:
            number = float(value)
        except OverflowError:
            raise ValueError(f"{found}; expected a log-likelihood within float range") from None
        if math.isnan(number):
            raise ValueError(f"{found}; expected a number, not NaN (a model or harness failure?)")
    return loglikelihood_yes > loglikelihood_no


def mctaco_question_result(doc, loglikelihoods):
    """{"em", "f1", "candidate_acc"} of one question document, from the (loglikelihood(" no"),
    loglikelihood(" yes")) of each of its candidates, in the document's order.

    `em` and `f1` are the official per-question exact match and F1 (their means over questions are
    `benchscore mctaco`'s numbers); `candidate_acc` is the share of the question's candidates
    answered right."""
    loglikelihoods = list(loglikelihoods)
    if len(loglikelihoods) != len(doc["answers"]):
        raise ValueError(f"question {doc['question_key']!r:.80} has {len(doc['answers'])} candidates but "
                         f"{len(loglikelihoods)} pairs of log-likelihoods; expected one (no, yes) pair per candidate")
    predicted = [_mctaco_answer(row, no, yes) for row, (no, yes) in zip(doc["rows"], loglikelihoods)]
    gold = [label == 1 for label in doc["labels"]]
    (question,) = mctaco_question_stats(predicted, gold, [doc["question_key"]] * len(gold), check_input=False)
    return {"em": float(question.exact_match), "f1": question.f1,
            "candidate_acc": question.n_correct / question.n_candidates}


# =============================================================================================
# WebNLG+ 2020 text-to-RDF
# =============================================================================================
WEBNLG_DESCRIPTION = (
    "Extract the facts stated in the text as RDF triples, one per line, each written as "
    "subject | predicate | object (DBpedia style: underscores instead of spaces in entity names, "
    "camelCase predicates).\n\n"
)

# Few-shot examples: hand-written, about invented entities, so they are in no WebNLG split (the
# WebNLG train/dev data is not part of the official text-to-RDF test release these tasks read).
WEBNLG_FEWSHOT = {
    "en": [
        {"text": "The Larkspur Bridge, which crosses the Tamsin River, was completed in 1931.",
         "references": ["Larkspur_Bridge | crosses | Tamsin_River", "Larkspur_Bridge | completionDate | 1931"]},
        {"text": "Orla Venn, born in Castlebrook, plays the cello for the Harrow Quartet.",
         "references": ["Orla_Venn | birthPlace | Castlebrook", "Orla_Venn | instrument | Cello",
                        "Orla_Venn | memberOf | Harrow_Quartet"]},
        {"text": "Quillon Press is located in Marrowby.",
         "references": ["Quillon_Press | location | Marrowby"]},
    ],
    "ru": [
        {"text": "Мост Ларкспур, пересекающий реку Тамсин, был построен в 1931 году.",
         "references": ["Larkspur_Bridge | crosses | Tamsin_River", "Larkspur_Bridge | completionDate | 1931"]},
        {"text": "Орла Венн родилась в Каслбруке и играет на виолончели в квартете Харроу.",
         "references": ["Orla_Venn | birthPlace | Castlebrook", "Orla_Venn | instrument | Cello",
                        "Orla_Venn | memberOf | Harrow_Quartet"]},
        {"text": "Издательство Квиллон находится в Марроуби.",
         "references": ["Quillon_Press | location | Marrowby"]},
    ],
}


def webnlg_dataset(subset, data_dir=None):
    """{"test": one row per entry of the official file}: row, eid, category, size, references
    (the first <modifiedtripleset>'s triples, as the official scorer reads them) and text (the
    entry's <lex>; each 2020 test entry has exactly one, checked here)."""
    import datasets

    from benchscore.webnlg_rdf.files import read_references

    path = official_file("webnlg", subset, data_dir)
    rows = read_references(path)
    for index, row in enumerate(rows):
        if len(row["lexicalisations"]) != 1:
            raise ValueError(f"{path}: entry {index} (eid {row['eid']!r}) has {len(row['lexicalisations'])} <lex>; "
                             "expected exactly one, as in the 2020 text-to-RDF test files")
    columns = {
        "row": list(range(len(rows))),
        "eid": [row["eid"] for row in rows],
        "category": [row["category"] for row in rows],
        "size": [row["size"] for row in rows],
        "references": [row["triples"] for row in rows],
        "text": [row["lexicalisations"][0] for row in rows],
    }
    return datasets.DatasetDict({"test": datasets.Dataset.from_dict(columns)})


def webnlg_doc_to_text(doc):
    return f"Text: {doc['text']}\nTriples:"


def webnlg_doc_to_target(doc):
    return "\n".join(doc["references"])


_BULLET = re.compile(r"^(?:[-*\u2022]\s+|\(?\d+[.)]\s+)")


def parse_triples(generation):
    """(triples, number of unparseable lines) from a model's generation.

    Line by line: surrounding white space is stripped and blank lines are skipped; one leading
    list marker is removed ("- ", "* ", "• ", "1. ", "1) ", "(1) "); the line is split on "|";
    exactly three non-empty parts (each stripped) make the triple "s | p | o". Any other line is
    unparseable: counted, not scored. Nothing else is changed (no spaces -> underscores, no
    deduplication), so what is scored is what the model wrote."""
    if not isinstance(generation, str):
        what = "None" if generation is None else f"{generation!r:.60} ({type(generation).__name__})"
        raise TypeError(f"the generation is {what}; expected a string")
    triples, unparseable = [], 0
    for line in generation.split("\n"):
        line = line.strip()
        if not line:
            continue
        parts = [part.strip() for part in _BULLET.sub("", line).split("|")]
        if len(parts) == 3 and all(parts):
            triples.append(" | ".join(parts))
        else:
            unparseable += 1
    return triples, unparseable


def scorable_triples(references, triples):
    """(kept, number left out): the official script crashes on some (reference, candidate) pairs
    (the repeated-token word alignment; our scorer raises ValueError there instead). Whether a
    candidate triple crashes depends on it and the references only, so each is tried alone, and
    the ones that would crash are left out and counted."""
    kept = []
    for triple in triples:
        try:
            _entry(tuple(references), (triple,))
        except ValueError:
            continue
        kept.append(triple)
    # benchscore's scorer refuses an entry past its limits (triples per entry, search size): the
    # triples beyond what it accepts, from the end of the generation, are left out and counted too.
    while kept:
        try:
            _entry(tuple(references), tuple(kept))
            break
        except ValueError:
            kept.pop()
    return kept, len(triples) - len(kept)


# The per-document value of each F1: the entry's selected pairs' Total F1 in that scheme (padding
# included), so that the corpus F1 is their exact mean over all pairs, as the official script's.
WEBNLG_F1_SCHEMES = {"strict_f1": "Strict", "exact_f1": "Exact", "partial_f1": "Partial", "ent_type_f1": "Ent_type"}
# Counters as means per entry: lm-eval's `mean`, right on any resample.
WEBNLG_PER_ENTRY = ("unparseable_lines_per_entry", "unscorable_triples_per_entry")


def webnlg_values(doc, generation):
    """Every metric's per-document value (`WEBNLG_METRICS` and `WEBNLG_PER_ENTRY`) from a generation.

    `<scheme>_f1`: the Total F1 of each selected (reference, candidate) pair of the entry;
    `triple_f1`: the entry's lower-cased reference and candidate triples and those in both;
    `unparseable_lines_per_entry`, `unscorable_triples_per_entry`: the entry's counts."""
    triples, unparseable = parse_triples(generation)
    kept, unscorable = scorable_triples(doc["references"], triples)
    entry = _entry(tuple(doc["references"]), tuple(kept))
    # Tuples, not lists: lm-eval 0.5 reads a list as one value per repeat of the document.
    values = {name: tuple(map(float, webnlg_pair_rates(entry, scheme))) for name, scheme in WEBNLG_F1_SCHEMES.items()}
    values["triple_f1"] = {"references": sorted(entry.references), "candidates": sorted(entry.candidates),
                           "both": sorted(entry.references & entry.candidates)}
    values["unparseable_lines_per_entry"] = unparseable
    values["unscorable_triples_per_entry"] = unscorable
    return values


@functools.lru_cache(maxsize=1 << 14)
def _entry(references, candidates):
    return webnlg_entry_stats(list(references), list(candidates))


def _checked_values(values, metric, kind):
    """`values` as a list, each of type `kind` (`webnlg_values`' per-document value of `metric`)."""
    values = list(values)
    if not values:
        raise ValueError(f"{metric}: no document to aggregate")
    if set(map(type, values)) != {kind}:  # one pass in C: an aggregation runs once per bootstrap resample
        index, value = next((i, v) for i, v in enumerate(values) if type(v) is not kind)
        raise TypeError(f"{metric}: document value {index} is {value!r:.60} ({type(value).__name__}); expected "
                        f"the {kind.__name__} webnlg_values gives")
    return values


def _pooled_f1(values, name):
    """Total_scores F1 of `WEBNLG_F1_SCHEMES[name]`: the exact mean of the selected pairs' F1 over
    every document given (a multiset: a repeated document counts each time)."""
    return webnlg_pair_mean(_checked_values(values, name, tuple))


# Module-level functions, each named as its metric: lm-eval 0.5 pickles an aggregation into its
# bootstrap's process pool, by name.
def webnlg_strict_f1(values):
    """Total_scores Strict F1 (see `_pooled_f1`)."""
    return _pooled_f1(values, "strict_f1")


def webnlg_exact_f1(values):
    """Total_scores Exact F1 (see `_pooled_f1`)."""
    return _pooled_f1(values, "exact_f1")


def webnlg_partial_f1(values):
    """Total_scores Partial F1 (see `_pooled_f1`)."""
    return _pooled_f1(values, "partial_f1")


def webnlg_ent_type_f1(values):
    """Total_scores Ent_type F1 (see `_pooled_f1`)."""
    return _pooled_f1(values, "ent_type_f1")


def webnlg_triple_f1(values):
    """The full-triple F1 (the official `Exact_match` F1, macro over triple strings) of the documents
    given; a repeated document counts each time."""
    values = _checked_values(values, "triple_f1", dict)
    return webnlg_exact_match(*(Counter(itertools.chain.from_iterable(map(operator.itemgetter(side), values)))
                                for side in ("references", "candidates", "both")))["F1"]


WEBNLG_METRICS = {"strict_f1": webnlg_strict_f1, "exact_f1": webnlg_exact_f1, "partial_f1": webnlg_partial_f1,
                  "ent_type_f1": webnlg_ent_type_f1, "triple_f1": webnlg_triple_f1}
