"""MC-TACO's files -> checked rows and per-question statistics: the one read path (CLI, compare, loader, Space)."""

import os
from typing import Any

from benchscore import data
from benchscore.core.readers import InputError, at_line, iter_line_blocks, iter_lines, iter_tsv, shown
from benchscore.core.records import Note
from benchscore.mctaco import kernel, scoring

FIELDS = ("sentence", "question", "answer", "label", "category")
KEY_SOURCE = "sentence+question"  # the question key of rows read from the TSV (named in the signature)


def read_references(path: str | os.PathLike) -> Any:
    """The rows of an MC-TACO TSV (or `official:dev`/`official:test`) as dicts of strings, row i = line i + 1."""
    path = data.resolve("mctaco", path)
    rows: list = []
    categories: dict[str, tuple[str, int]] = {}  # question key -> (category, line of its first row)
    for number, row in iter_tsv(path, FIELDS, "an MC-TACO TSV line"):
        if row["label"] not in scoring.LABELS:
            raise at_line(path, number, f"label is {shown(row['label'])}; expected 'yes' or 'no'")
        if row["category"] not in scoring.CATEGORIES:
            raise at_line(path, number, f"category is {shown(row['category'])}; expected one of {scoring.CATEGORIES}")
        category, first = categories.setdefault(scoring.question_key(row["sentence"], row["question"]),
                                                (row["category"], number))
        if category != row["category"]:
            raise at_line(path, number, f"category is {row['category']!r} but line {first} gave {category!r} for the "
                                        "same sentence and question; expected one category per question")
        rows.append(row)
    return rows


def read_predictions(path: str | os.PathLike, warnings: list | None = None) -> Any:
    """One label per line ("yes"/"no" in any case, spaces ignored) as booleans; `warnings` (a list) gets a
    message when some labels are not exactly "yes" or "no"."""
    labels, inexact = [], []
    for number, text in iter_lines(path):
        yes = scoring.parse_label(text)
        if yes is None:
            raise at_line(path, number, f"the label is {shown(text)}; expected 'yes' or 'no' (any case), one per line")
        if text not in scoring.LABELS:
            inexact.append((number, text))
        labels.append(yes)
    if not labels:
        raise at_line(path, 1, "the file is empty; expected one 'yes'/'no' label per line")
    if inexact and warnings is not None:
        (line, text), n = inexact[0], len(inexact)
        warnings.append(Note("inexact_labels", f"{path}: {n} label{'s' * (n > 1)} not exactly 'yes' or 'no' (the "
                             f"first: line {line}, {shown(text)}), scored by meaning; the official evaluator compares "
                             "exact strings and may give other numbers"))
    return labels


def _aligned(gold_path, predictions_path, warnings=None):
    """(gold rows, predicted labels), both read and checked, one label per row."""
    rows = read_references(gold_path)
    predicted = read_predictions(predictions_path, warnings)
    if len(predicted) != len(rows):
        found = (f"the file ends after {len(predicted)} labels" if len(predicted) < len(rows)
                 else f"found label {len(rows) + 1}")
        raise at_line(predictions_path, min(len(predicted), len(rows)) + 1,
                      f"{found}; expected {len(rows)}, one per line of {gold_path}, in the same order")
    return rows, predicted


def _item_stats(rows, predicted):
    keys = [scoring.question_key(row["sentence"], row["question"]) for row in rows]
    gold = [row["label"] == "yes" for row in rows]
    return scoring.item_stats(predicted, gold, keys, [row["category"] for row in rows], check_input=False)


def file_stats(gold_path: str | os.PathLike, predictions_path: str | os.PathLike, warnings: list | None = None) -> Any:
    """Per-question statistics of a prediction file against a gold TSV (both read and checked here)."""
    resolved = data.resolve("mctaco", gold_path)
    counted = _plain_counts(resolved, predictions_path)
    if counted is not None:
        return kernel.question_stats(*counted, scoring.ItemStats)
    return _item_stats(*_aligned(resolved, predictions_path, warnings))


_CATEGORIES = frozenset(scoring.CATEGORIES)


def _plain_counts(gold_path: str | os.PathLike,
                  predictions_path: str | os.PathLike) -> tuple[dict[str, int], list[str], list[int]] | None:
    """(question keys -> index, categories, counts) of `kernel.add_rows` for files whose every line the kernel
    takes (each gold line plainly a row, each label exactly "yes"/"no": nothing to warn of), counted a block of
    lines at a time; None where it is unsure of a line or a reader refuses one (or cannot open it), and the
    checked path then reads both files, in its order, with its messages."""
    try:
        predicted: list[bool] = []
        for _, lines in iter_line_blocks(predictions_path):
            if not kernel.add_labels(lines, predicted):
                return None
        questions: dict[str, int] = {}
        category_of: list[str] = []
        counts: list[int] = []
        row = 0
        for _, lines in iter_line_blocks(gold_path):
            row = kernel.add_rows(lines, predicted, row, _CATEGORIES, questions, category_of, counts)
            if row < 0:
                return None
    except (InputError, OSError):  # (a missing file too: the checked path names the file it reads first)
        return None
    if row == 0 or row != len(predicted):
        return None
    return questions, category_of, counts


def score_files(gold_path: str | os.PathLike, predictions_path: str | os.PathLike) -> dict:
    """The result dict of a prediction file against a gold TSV (with "warnings" when there are any)."""
    resolved = data.resolve("mctaco", gold_path)
    counted = _plain_counts(resolved, predictions_path)
    if counted is not None:  # plain files: nothing to warn of, and no object per question needed
        return scoring.result_of_counts(counted[1], counted[2], KEY_SOURCE)
    warnings: list = []
    result = scoring.result(_item_stats(*_aligned(resolved, predictions_path, warnings)), KEY_SOURCE)
    if warnings:
        result["warnings"] = warnings
    return result


def instances(gold_path: str | os.PathLike, predictions_path: str | os.PathLike) -> list[dict]:
    """One record per question, for per-item exports: its text, the gold and the predicted "yes" answers,
    its F1 and whether every candidate is right (the official EM)."""
    rows, predicted = _aligned(gold_path, predictions_path)
    stats = _item_stats(rows, predicted)
    answers: dict[str, tuple[list, list]] = {}
    for row, yes in zip(rows, predicted):
        gold, chosen = answers.setdefault(scoring.question_key(row["sentence"], row["question"]), ([], []))
        if row["label"] == "yes":
            gold.append(row["answer"])
        if yes:
            chosen.append(row["answer"])
    return [{"sample_id": f"question-{index}", "input": q.key, "reference": answers[q.key][0],
             "output": answers[q.key][1], "score": q.f1, "is_correct": q.exact_match,
             "metadata": {"category": str(q.category), "candidates": str(q.n_candidates)}}
            for index, q in enumerate(stats)]
