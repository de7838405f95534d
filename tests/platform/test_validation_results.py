"""Batch results: reliability from gold checks, who is counted, kappa over complete questions."""

import pytest

from recam.agreement import NONE_FITS
from tests.platform.validation_helpers import make_annotator, make_batch
from validation.assignments import annotation_answer, assignment_get_or_create
from validation.results import batch_results


def _answer(batch, user, choose) -> None:
    assignment = assignment_get_or_create(batch=batch, annotator=user)
    for annotation in assignment.annotations.select_related("item"):
        annotation_answer(
            assignment=assignment, annotator=user, annotation_id=annotation.pk, answer=choose(annotation.item)
        )


def test_an_annotator_failing_the_gold_checks_is_listed_but_not_counted(db, recam_data_dir):
    batch = make_batch(
        data_dir=recam_data_dir, generated=2, gold=6, annotations_per_question=3,
        questions_per_assignment=2, gold_rate=1.0, min_gold_accuracy=0.4,
    )  # fmt: skip
    right = lambda item: item.label  # noqa: E731
    for name in ("ann", "bea"):
        _answer(batch, make_annotator(name), right)
    # "cyd" gets every gold check wrong and answers "none fits" on generated questions
    _answer(
        batch,
        make_annotator("cyd"),
        lambda item: NONE_FITS if item.kind == "generated" else (item.label + 1) % 5,
    )
    results = batch_results(batch=batch)
    table = {row.username: row for row in results.annotators}
    assert (table["ann"].gold_answered, table["ann"].gold_accuracy, table["ann"].counted) == (2, 1.0, True)
    assert (table["cyd"].gold_answered, table["cyd"].gold_accuracy, table["cyd"].counted) == (2, 0.0, False)
    # cyd's answers are left out: 2 counted answers of 3 required, so both questions are pending
    assert [q.verdict.decision for q in results.questions] == ["pending", "pending"]
    assert [q.answers for q in results.questions] == [(q.label, q.label) for q in results.questions]
    assert results.human_accuracy == 1.0
    assert results.kappa is None  # no question has all 3 counted answers
    assert results.gold_accuracy == pytest.approx(4 / 6)

    batch.min_gold_accuracy = 0.0  # a minimum of 0 counts everyone: now 3 answers each, 2 on the label
    results = batch_results(batch=batch)
    assert {r.username: r for r in results.annotators}["cyd"].counted
    assert [q.verdict.decision for q in results.questions] == ["keep", "keep"]
    assert results.human_accuracy == pytest.approx(4 / 6)


def test_kappa_and_verdicts_when_everyone_is_counted(db, recam_data_dir):
    batch = make_batch(
        data_dir=recam_data_dir,
        generated=2,
        annotations_per_question=3,
        questions_per_assignment=2,
        gold_rate=0,
    )
    _answer(batch, make_annotator("ann"), lambda item: item.label)
    _answer(batch, make_annotator("bea"), lambda item: item.label)
    _answer(batch, make_annotator("cyd"), lambda item: (item.label + 1) % 5)
    results = batch_results(batch=batch)
    assert [q.verdict.decision for q in results.questions] == ["keep", "keep"]
    assert results.human_accuracy == pytest.approx(4 / 6)
    assert results.kappa_questions == 2
    # the first two dev questions have labels 2 and 4: answers [2, 2, 3] and [4, 4, 0]; P-bar 1/3,
    # shares 2/6, 1/6, 2/6, 1/6 give P_e 10/36; kappa = (12/36 - 10/36) / (26/36) = 1/13
    assert [q.label for q in results.questions] == [2, 4]
    assert results.kappa == pytest.approx(1 / 13)
    assert [q.agreement for q in results.questions] == [pytest.approx(1 / 3)] * 2
