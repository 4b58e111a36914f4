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
        # Fields found by their tabs, not split; a question's rows usually follow each other, so the key
        # is made (and hashed) only where the sentence or the question differs from the row before.
        if prefix and line.startswith(prefix):
            t2 = len(prefix) - 1
        else:
            t1 = line.find("\t")
            t2 = line.find("\t", t1 + 1) if t1 >= 0 else -1
            if t2 < 0:
                return -1
            key = line[:t2].replace("\t", " ")  # sentence + " " + question: the official key (scoring.question_key)
            question = questions.get(key, -1)
            if question < 0:
                question = questions[key] = len(category_of)
                category_of.append("")  # its category: from this row, checked below
                counts.extend((0, 0, 0, 0, 0))
            prefix = line[:t2 + 1]
        t3 = line.find("\t", t2 + 1)
        t4 = line.find("\t", t3 + 1) if t3 >= 0 else -1
        if t4 < 0 or row >= n_predicted:
            return -1  # (a fifth tab is refused below: no category holds one)
        if t4 - t3 == 4 and line.startswith("yes", t3 + 1):
            gold = True
        elif t4 - t3 == 3 and line.startswith("no", t3 + 1):
            gold = False
        else:
            return -1
        category = category_of[question]
        if not category:
            category = category_of[question] = line[t4 + 1:]
            if category not in categories:
                return -1
        elif len(line) - t4 - 1 != len(category) or not line.endswith(category):
            return -1
        yes = predicted[row]
        at = N_COUNTS * question
        counts[at] += 1
        if yes == gold:
            counts[at + 1] += 1
        if yes:
            counts[at + 3] += 1
            if gold:
                counts[at + 2] += 1
        if gold:
            counts[at + 4] += 1
        row += 1
    return row


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
