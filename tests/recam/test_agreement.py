"""Agreement maths and the drop rule on constructed cases with known values."""

import pytest

from recam.agreement import (
    DROP,
    KEEP,
    NONE_FITS,
    PENDING,
    answer_counts,
    fleiss_kappa,
    human_accuracy,
    observed_agreement,
    question_verdict,
)

# Fleiss (1971) as worked in Wikipedia's "Fleiss' kappa" article: 10 subjects, 14 raters, 5 categories;
# kappa = 0.210 (P-bar = 0.378, P-bar_e = 0.213).
FLEISS_TABLE = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def _answers(row: list[int]) -> list[int]:
    return [category for category, count in enumerate(row) for _ in range(count)]


def test_fleiss_kappa_matches_the_worked_example():
    kappa = fleiss_kappa(answers_per_question=[_answers(row) for row in FLEISS_TABLE])
    assert kappa == pytest.approx(0.20993, abs=5e-5)


def test_fleiss_kappa_small_case_by_hand():
    # P_i = 1 and 0, P-bar = 0.5; shares 3/4 and 1/4, P_e = 10/16; kappa = (0.5 - 0.625) / 0.375
    assert fleiss_kappa(answers_per_question=[[0, 0], [0, 1]]) == pytest.approx(-1 / 3)


def test_fleiss_kappa_counts_none_fits_as_its_own_category():
    # 3 raters; two questions agree on "none fits", one on option 2: perfect agreement
    kappa = fleiss_kappa(answers_per_question=[[NONE_FITS] * 3, [NONE_FITS] * 3, [2, 2, 2]])
    assert kappa == pytest.approx(1.0)
    # P_i = 1, 1, 0 (P-bar 2/3); shares none 1/2, option 2 1/3, option 0 1/6 (P_e 7/18): kappa 5/11
    split = fleiss_kappa(answers_per_question=[[NONE_FITS, NONE_FITS], [2, 2], [0, NONE_FITS]])
    assert split == pytest.approx(5 / 11)


def test_fleiss_kappa_undefined_cases():
    assert fleiss_kappa(answers_per_question=[]) is None
    assert fleiss_kappa(answers_per_question=[[1], [2]]) is None  # one rater
    assert fleiss_kappa(answers_per_question=[[3, 3], [3, 3]]) is None  # one category: 0/0
    with pytest.raises(ValueError, match="same number of answers"):
        fleiss_kappa(answers_per_question=[[1, 1], [1, 1, 1]])


def test_answer_counts_rejects_unknown_answers():
    assert answer_counts(answers=[0, 4, NONE_FITS, 4]) == [1, 0, 0, 0, 2, 1]
    with pytest.raises(ValueError, match=r"got \[5\]"):
        answer_counts(answers=[5])


def test_observed_agreement():
    assert observed_agreement(answers=[1, 1, 1]) == 1.0
    assert observed_agreement(answers=[0, 1, 2]) == 0.0
    assert observed_agreement(answers=[2, 2, 4]) == pytest.approx(1 / 3)
    assert observed_agreement(answers=[2]) is None


@pytest.mark.parametrize(
    ("answers", "decision", "reason"),
    [
        ([2, 2, 1], KEEP, "majority on the label"),
        ([2, 2, 2], KEEP, "majority on the label"),
        ([1, 1, 2], DROP, "majority on option 2, not the label"),
        ([NONE_FITS, NONE_FITS, 2], DROP, "majority: none fits"),
        ([0, 1, 2], DROP, "no majority"),
        ([2, 2, 1, 1], DROP, "no majority"),  # a tie is not a majority
        ([2, 2], PENDING, "2 of 3 annotations"),
    ],
)
def test_drop_rule(answers, decision, reason):
    verdict = question_verdict(answers=answers, label=2, required=3 if len(answers) < 4 else 4)
    assert (verdict.decision, verdict.reason) == (decision, reason)


def test_human_accuracy_counts_none_fits_as_wrong():
    assert human_accuracy(answers=[1, NONE_FITS, 3, 3], labels=[1, 1, 3, 0]) == 0.5
