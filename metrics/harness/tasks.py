"""Harness-neutral task logic: documents, prompts, answer parsing and corpus aggregations.

The lm-evaluation-harness task folders (`lm_eval_tasks/*/utils.py`) and the LightEval module
(`lighteval_tasks.py`) are thin wrappers around these functions, so both harnesses give the same
numbers. Scores come from `scorers.py` (the one adapter to benchscore's scorers).

MC-TACO (`mc_taco_official`)
    Documents are the candidate rows of the official TSV in file order, prompt and choices exactly
    as lm-eval's own `mc_taco`; the model's answer to a candidate is "yes" when
    loglikelihood(" yes") > loglikelihood(" no") (lm-eval's argmax: a tie is "no"). Each document's
    per-sample value is a small dict (`mctaco_item`); the corpus numbers group them by question.
    **Whole questions only:** a question is scored only when every one of its candidates was
    evaluated; a question cut by `--limit` (or `--samples`) is left out entirely and counted in
    `partial_questions`. (Candidates of a question are consecutive in the official files, so
    `--limit N` scores the questions that lie entirely within the first N rows: at most one is cut.)

WebNLG text-to-RDF (`webnlg_text2rdf*`)
    One document per entry of the official 2020 test file. The input is the entry's `<lex>`: every
    entry of the 2020 text-to-RDF test files has exactly one, so "one document per
    lexicalisation" and "the first one" are the same documents. The model writes
    `subject | predicate | object` lines; `parse_triples` documents the tolerant parsing.
"""

import functools
import math
import numbers
import re

from .official_files import official_file
from .scorers import (
    mctaco_question_key,
    mctaco_scores,
    mctaco_stderrs,
    webnlg_aggregate,
    webnlg_entry_stats,
    webnlg_stderrs,
)

# =============================================================================================
# MC-TACO
# =============================================================================================
MCTACO_PROMPT = "{sentence}\nQuestion: {question}\nAnswer: {answer}\nPlausible:"  # lm-eval's mc_taco
MCTACO_CHOICES = ["no", "yes"]  # lm-eval's mc_taco (and the ClassLabel order of `label`)


def mctaco_dataset(data_dir=None, **_metadata):
    """The official TSVs as a DatasetDict {"validation": dev_3783, "test": test_9442}: the columns of
    the Hub's CogComp/mc_taco (sentence, question, answer, label, category), plus `row` (the line
    index in the file), `question_key` (the official grouping key) and `n_candidates` (of its
    question in the file). Extra metadata keys (lm-eval passes model arguments too) are ignored."""
    from benchscore.mctaco.loader import load_mctaco

    data = load_mctaco(validation=official_file("mctaco", "validation", data_dir),
                       test=official_file("mctaco", "test", data_dir))

    def extra_columns(split):
        keys = [mctaco_question_key(s, q) for s, q in zip(split["sentence"], split["question"])]
        counts = {}
        for key in keys:
            counts[key] = counts.get(key, 0) + 1
        split = split.add_column("row", list(range(len(keys))))
        split = split.add_column("question_key", keys)
        return split.add_column("n_candidates", [counts[key] for key in keys])

    return data.__class__({name: extra_columns(split) for name, split in data.items()})


def mctaco_doc_to_text(doc):
    return MCTACO_PROMPT.format(**doc)


def mctaco_item(doc, loglikelihood_no, loglikelihood_yes):
    """The per-document value every corpus metric of `mc_taco_official` aggregates.

    A log-likelihood that is NaN or not a number is an error naming the document: the comparison
    would silently read it as "no". (-inf, a choice the model rules out, is a number.)"""
    for choice, value in (("no", loglikelihood_no), ("yes", loglikelihood_yes)):
        found = f"example {doc['row']} (mc_taco_official document): the log-likelihood of {choice!r} is {value!r:.40}"
        if not isinstance(value, numbers.Real) or isinstance(value, bool):
            raise TypeError(f"{found} ({type(value).__name__}); expected a number")
        try:
            number = float(value)
        except OverflowError:
            raise ValueError(f"{found}; expected a log-likelihood within float range") from None
        if math.isnan(number):
            raise ValueError(f"{found}; expected a number, not NaN (a model or harness failure?)")
    return {
        "row": doc["row"],
        "question_key": doc["question_key"],
        "n_candidates": doc["n_candidates"],
        "prediction": "yes" if loglikelihood_yes > loglikelihood_no else "no",
        "label": MCTACO_CHOICES[doc["label"]],
    }


def _mctaco_candidate_counts(items):
    """({question key: candidates evaluated}, {question key: candidates in the file}); more evaluated
    than in the file is an error (a document evaluated twice)."""
    evaluated, expected = {}, {}
    for item in items:
        key = item["question_key"]
        evaluated[key] = evaluated.get(key, 0) + 1
        expected[key] = item["n_candidates"]
    for key, n in evaluated.items():
        if n > expected[key]:
            raise ValueError(f"question {key!r} has {n} evaluated candidates but {expected[key]} in the file; "
                             "was a document evaluated twice?")
    return evaluated, expected


MCTACO_ITEM_KEYS = ("row", "question_key", "n_candidates", "prediction", "label")


def _check_mctaco_items(items):
    """Each item a dict with `MCTACO_ITEM_KEYS` (`mctaco_item`'s output), else an error naming it."""
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise TypeError(f"item {index} is {item!r:.60} ({type(item).__name__}); expected a dict from "
                            "mctaco_item")
        missing = [key for key in MCTACO_ITEM_KEYS if key not in item]
        if missing:
            raise ValueError(f"item {index} (keys {sorted(map(str, item))!r:.100}) has no {', '.join(missing)}; "
                             "expected the dict mctaco_item returns")


def mctaco_whole_questions(items):
    """(predictions, labels, question keys, number of partial questions left out): the rows, in file
    order, of the questions all of whose candidates are among `items`."""
    items = list(items)
    _check_mctaco_items(items)
    items = sorted(items, key=lambda item: item["row"])
    evaluated, expected = _mctaco_candidate_counts(items)
    whole = [item for item in items if evaluated[item["question_key"]] == item["n_candidates"]]
    partial = sum(1 for key, n in evaluated.items() if n < expected[key])
    return [i["prediction"] for i in whole], [i["label"] for i in whole], [i["question_key"] for i in whole], partial


def _mctaco_whole(items):
    predictions, labels, keys, _ = mctaco_whole_questions(items)
    if not keys:
        raise ValueError("no whole MC-TACO question among the evaluated documents; raise --limit so that at least "
                         "one question's candidates are all evaluated")
    return predictions, labels, keys


def mctaco_em(items):
    """Official question-level exact match ("Strict Acc.") over the whole questions."""
    return mctaco_scores(*_mctaco_whole(items))["em"]


def mctaco_f1(items):
    """Official question-level F1 ("Avg F1") over the whole questions."""
    return mctaco_scores(*_mctaco_whole(items))["f1"]


def mctaco_em_stderr(items):
    """Bootstrap standard error of `em` (1,000 seeded resamples of the questions)."""
    return mctaco_stderrs(*_mctaco_whole(items))["em"]


def mctaco_f1_stderr(items):
    """Bootstrap standard error of `f1` (1,000 seeded resamples of the questions)."""
    return mctaco_stderrs(*_mctaco_whole(items))["f1"]


def mctaco_n_questions(items):
    """Number of whole questions scored."""
    return len(set(_mctaco_whole(items)[2]))


def mctaco_partial_questions(items):
    """Number of questions left out because only some of their candidates were evaluated."""
    return mctaco_whole_questions(items)[3]


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


def webnlg_item(doc, generation):
    """The per-document value every corpus metric of `webnlg_text2rdf*` aggregates."""
    triples, unparseable = parse_triples(generation)
    kept, unscorable = scorable_triples(doc["references"], triples)
    return {"row": doc["row"], "references": list(doc["references"]), "candidates": kept,
            "unparseable_lines": unparseable, "unscorable_triples": unscorable}


@functools.lru_cache(maxsize=1 << 14)
def _entry(references, candidates):
    return webnlg_entry_stats(list(references), list(candidates))


@functools.lru_cache(maxsize=8)
def _webnlg_result(entries):
    return webnlg_aggregate([_entry(references, candidates) for _, references, candidates in entries])


@functools.lru_cache(maxsize=8)
def _webnlg_stderrs(entries):
    return webnlg_stderrs([_entry(references, candidates) for _, references, candidates in entries])


def _entries_key(items):
    items = sorted(items, key=lambda item: item["row"])
    return tuple((i["row"], tuple(i["references"]), tuple(i["candidates"])) for i in items)


def webnlg_result(items):
    """The official result dict (`benchscore webnlg`'s structure) over the items, in file order."""
    return _webnlg_result(_entries_key(items))


def webnlg_stderr(items):
    """{"Ent_type", "Partial", "Strict", "Exact"}: bootstrap standard errors of the Total_scores F1s."""
    return _webnlg_stderrs(_entries_key(items))


def webnlg_strict_f1(items):
    return webnlg_result(items)["Total_scores"]["Strict"]["F1"]


def webnlg_exact_f1(items):
    return webnlg_result(items)["Total_scores"]["Exact"]["F1"]


def webnlg_partial_f1(items):
    return webnlg_result(items)["Total_scores"]["Partial"]["F1"]


def webnlg_ent_type_f1(items):
    return webnlg_result(items)["Total_scores"]["Ent_type"]["F1"]


def webnlg_triple_f1(items):
    """The full-triple F1 (the official `Exact_match`)."""
    return webnlg_result(items)["Exact_match"]["F1"]


def webnlg_strict_f1_stderr(items):
    return webnlg_stderr(items)["Strict"]


def webnlg_exact_f1_stderr(items):
    return webnlg_stderr(items)["Exact"]


def webnlg_partial_f1_stderr(items):
    return webnlg_stderr(items)["Partial"]


def webnlg_ent_type_f1_stderr(items):
    return webnlg_stderr(items)["Ent_type"]


def webnlg_unparseable_lines(items):
    return sum(item["unparseable_lines"] for item in items)


def webnlg_unscorable_triples(items):
    return sum(item["unscorable_triples"] for item in items)


WEBNLG_METRICS = {
    "strict_f1": webnlg_strict_f1,
    "exact_f1": webnlg_exact_f1,
    "partial_f1": webnlg_partial_f1,
    "ent_type_f1": webnlg_ent_type_f1,
    "triple_f1": webnlg_triple_f1,
    "strict_f1_stderr": webnlg_strict_f1_stderr,
    "exact_f1_stderr": webnlg_exact_f1_stderr,
    "partial_f1_stderr": webnlg_partial_f1_stderr,
    "ent_type_f1_stderr": webnlg_ent_type_f1_stderr,
    "unparseable_lines": webnlg_unparseable_lines,
    "unscorable_triples": webnlg_unscorable_triples,
}
MCTACO_METRICS = {
    "em": mctaco_em,
    "f1": mctaco_f1,
    "em_stderr": mctaco_em_stderr,
    "f1_stderr": mctaco_f1_stderr,
    "n_questions": mctaco_n_questions,
    "partial_questions": mctaco_partial_questions,
}
