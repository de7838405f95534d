"""Human validation maths: agreement between annotators and the rule that drops a question.

Pure (no Django). An answer is an option index 0-4 or ``NONE_FITS`` ("none of these / more than one
fits"). Fleiss' kappa comes from statsmodels (``statsmodels.stats.inter_rater``); this module only
builds its subjects-by-categories table and states the drop rule.

The drop rule (docs/validation.md): a generated question is kept only when a strict majority (more
than half) of its counted annotations chose the generated label. It is dropped when the majority chose
another option, when the majority answered "none fits", or when no answer has a majority (a split).
A question with fewer annotations than the batch asks for is "pending" and is neither kept nor dropped.
"""

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from statsmodels.stats.inter_rater import fleiss_kappa as _statsmodels_fleiss_kappa

from recam.metrics import accuracy
from recam.records import NUM_OPTIONS

NONE_FITS = -1  # the stored answer for "none of these / more than one fits"
CATEGORIES = (*range(NUM_OPTIONS), NONE_FITS)  # the kappa table's columns, in this order

KEEP, DROP, PENDING = "keep", "drop", "pending"


def answer_counts(*, answers: Iterable[int]) -> list[int]:
    """Counts per category (options 0-4, then none fits): one row of the kappa table."""
    counts = Counter(answers)
    unknown = set(counts) - set(CATEGORIES)
    if unknown:
        raise ValueError(
            f"answers must be 0-{NUM_OPTIONS - 1} or {NONE_FITS} (none fits), got {sorted(unknown)}"
        )
    return [counts.get(category, 0) for category in CATEGORIES]


def fleiss_kappa(*, answers_per_question: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' kappa over questions that all have the same number (>= 2) of answers.

    None when it is undefined: no question, fewer than two raters, or every answer in one category
    (the expected agreement is 1, so kappa is 0/0).

    >>> fleiss_kappa(answers_per_question=[[0, 0, 0], [1, 1, 1], [2, 2, 2]])
    1.0
    """
    if not answers_per_question:
        return None
    sizes = {len(answers) for answers in answers_per_question}
    if len(sizes) != 1:
        raise ValueError(
            f"every question needs the same number of answers for Fleiss' kappa, got {sorted(sizes)}"
        )
    if sizes.pop() < 2:
        return None
    table = np.array([answer_counts(answers=answers) for answers in answers_per_question])  # (questions, 6)
    column_shares = table.sum(axis=0) / table.sum()
    if np.isclose((column_shares**2).sum(), 1.0):
        return None
    return float(_statsmodels_fleiss_kappa(table, method="fleiss"))


def observed_agreement(*, answers: Sequence[int]) -> float | None:
    """Fleiss' per-question agreement P_i: the share of annotator pairs that gave the same answer.

    >>> observed_agreement(answers=[2, 2, 4])
    0.3333333333333333
    """
    n = len(answers)
    if n < 2:
        return None
    counts = answer_counts(answers=answers)
    return (sum(c * c for c in counts) - n) / (n * (n - 1))


@dataclass(frozen=True)
class Verdict:
    decision: str  # KEEP, DROP or PENDING
    reason: str
    majority: int | None  # the answer more than half chose, if any


def question_verdict(*, answers: Sequence[int], label: int, required: int) -> Verdict:
    """Apply the drop rule (module docstring) to one generated question's counted answers."""
    if len(answers) < required:
        return Verdict(PENDING, f"{len(answers)} of {required} annotations", None)
    top, votes = Counter(answers).most_common(1)[0]
    if 2 * votes <= len(answers):
        return Verdict(DROP, "no majority", None)
    if top == NONE_FITS:
        return Verdict(DROP, "majority: none fits", top)
    if top != label:
        return Verdict(DROP, f"majority on option {top + 1}, not the label", top)
    return Verdict(KEEP, "majority on the label", top)


def human_accuracy(*, answers: Sequence[int], labels: Sequence[int]) -> float:
    """Share of answers equal to their question's label ("none fits" is wrong), by the one scorer."""
    return accuracy(predictions=list(answers), references=list(labels))["accuracy"]
