"""MC-TACO's rows from plain lines: `files.file_stats`' counting, with no error path of its own.

Where each gold line is exactly five tab-separated fields with a "yes"/"no" label and a known category
(the same for every row of a question), and each prediction is exactly "yes" or "no", these functions
count the rows; on anything else they answer that they are unsure (False, -1) and the caller reads
the files on the checked path, which gives the same numbers or the clear error (and the warning for
labels that are not exactly "yes"/"no"). So this file decides no number and words no message;
`tests/test_speedups.py` compares it with the checked path on random and hostile files.

It is plain typed Python, compiled by mypyc when the package is built with a C compiler (setup.py).
"""

from collections.abc import Callable
from collections.abc import Set as AbstractSet

N_COUNTS = 5  # per question: candidates, correct, true positives, predicted "yes", gold "yes" (ItemStats' order)


def add_labels(lines: list[str], labels: list[bool]) -> bool:
    """Appends each line's label (True for "yes") to `labels`; False at the first line not exactly "yes"/"no"."""
    for line in lines:
        if line == "yes":
            labels.append(True)
        elif line == "no":
            labels.append(False)
        else:
            return False
    return True


def add_rows(lines: list[str], predicted: list[bool], row: int, categories: AbstractSet[str],
             questions: dict[str, int], category_of: list[str], counts: list[int]) -> int:
    """Counts gold `lines` (rows `row`, `row` + 1, ...) against `predicted` into question `questions[key]`'s
    `N_COUNTS` slots of `counts` (its category in `category_of`); the next row, or -1 where unsure."""
    n_predicted = len(predicted)
    prefix, question = "", -1  # "sentence TAB question TAB" of the row before, and its question
    for line in lines:
        # Fields are found by their tabs, not split; a question's rows usually follow each other, so the
        # key is made (and hashed) only where the sentence or the question differs from the row before.
        if prefix and line.startswith(prefix):
            end_of_question = len(prefix) - 1
        else:
            end_of_sentence = line.find("\t")
            end_of_question = line.find("\t", end_of_sentence + 1) if end_of_sentence >= 0 else -1
            if end_of_question < 0:
                return -1
            question = _question(line[:end_of_question].replace("\t", " "), questions, category_of, counts)
            prefix = line[:end_of_question + 1]
        gold, end_of_label = _label(line, end_of_question)
        if end_of_label < 0 or row >= n_predicted or not _same_category(line, end_of_label, question, categories,
                                                                          category_of):
            return -1  # (a fifth tab is refused with the category: no category holds one)
        _count(counts, N_COUNTS * question, predicted[row], gold)
        row += 1
    return row


def _label(line: str, end_of_question: int) -> tuple[bool, int]:
    """(whether the gold label is "yes", where it ends) of the row after its question; -1 as the end where the
    answer or the label is not followed by a tab, or the label is not exactly "yes" or "no"."""
    end_of_answer = line.find("\t", end_of_question + 1)
    end_of_label = line.find("\t", end_of_answer + 1) if end_of_answer >= 0 else -1
    label = line[end_of_answer + 1:end_of_label] if end_of_label >= 0 else ""
    return label == "yes", end_of_label if label == "yes" or label == "no" else -1


def _question(key: str, questions: dict[str, int], category_of: list[str], counts: list[int]) -> int:
    """The index of the question with the official `key` (sentence + " " + question), added if new."""
    question = questions.get(key, -1)
    if question < 0:
        question = questions[key] = len(category_of)
        category_of.append("")  # its category: set by its first row (`_same_category`)
        counts.extend((0, 0, 0, 0, 0))
    return question


def _same_category(line: str, end_of_label: int, question: int, categories: AbstractSet[str],
                   category_of: list[str]) -> bool:
    """Whether the line's category (after `end_of_label`) is its question's, or, on its first row, a known one."""
    category = category_of[question]
    if not category:
        category = category_of[question] = line[end_of_label + 1:]
        return category in categories
    return len(line) - end_of_label - 1 == len(category) and line.endswith(category)


def _count(counts: list[int], at: int, yes: bool, gold: bool) -> None:
    counts[at] += 1
    if yes == gold:
        counts[at + 1] += 1
    if yes:
        counts[at + 3] += 1
        if gold:
            counts[at + 2] += 1
    if gold:
        counts[at + 4] += 1


def question_stats(questions: dict[str, int], category_of: list[str], counts: list[int],
                   make: Callable[..., object]) -> list[object]:
    """`make(key, category, *counts)` per question counted by `add_rows`, in the order they first appeared."""
    stats: list[object] = []
    at = 0
    for key in questions:
        stats.append(make(key, category_of[len(stats)], counts[at], counts[at + 1], counts[at + 2], counts[at + 3],
                          counts[at + 4]))
        at += N_COUNTS
    return stats
