"""Two-stage annotation: each annotator answers a question without the article, then with it.

A batch created with ``two_stage`` shows every item twice to the same annotator: first the summary
with its blank and the five options only (``answer_without_article``), then the article as well (the
batch's usual ``answer``), where the annotator may also mark "more than one option fits" and "an
option is ungrammatical". The results give, per source of the questions (the record's ``source``
field when the file has one, else generated / gold check): the with-article and without-article
accuracy of the same annotators, the unique-answer rate and the marks (docs/validation.md).
"""

import datetime as dt
from collections import defaultdict

from django.db import transaction

from competitions.errors import ApplicationError
from recam.agreement import NONE_FITS
from recam.records import NUM_OPTIONS
from validation.assignments import annotation_answer
from validation.models import Annotation, Assignment, ValidationBatch


def _allowed(batch: ValidationBatch) -> set[int]:
    return set(range(NUM_OPTIONS)) | ({NONE_FITS} if batch.allow_none else set())


def annotation_answer_without_article(
    *, assignment: Assignment, annotator, annotation_id: int, answer: int
) -> Annotation:
    """Record the first-stage answer (once, before the article is shown)."""
    if not assignment.batch.two_stage:
        raise ApplicationError("this batch has no answers without the article")
    if answer not in _allowed(assignment.batch):
        raise ApplicationError("choose one of the options")
    with transaction.atomic():
        annotation = Annotation.objects.filter(
            pk=annotation_id, assignment=assignment, annotator=annotator
        ).first()
        if annotation is None:
            raise ApplicationError("this question is not part of your assignment")
        assignment.refresh_from_db(fields=["status"])
        if assignment.status == Assignment.Status.EXPIRED:
            raise ApplicationError(
                "this assignment expired and its unanswered questions went back to the pool"
            )
        updated = Annotation.objects.filter(
            pk=annotation.pk, answer_without_article__isnull=True, answer__isnull=True
        ).update(answer_without_article=answer)
        if not updated:
            raise ApplicationError("you already answered this question without the article")
    annotation.refresh_from_db()
    return annotation


def annotation_answer_with_article(
    *,
    assignment: Assignment,
    annotator,
    annotation_id: int,
    answer: int,
    multiple_fit: bool = False,
    ungrammatical: bool = False,
    now: dt.datetime | None = None,
) -> Annotation:
    """The second stage: the usual answer (:func:`validation.assignments.annotation_answer`) and the marks.
    In a two-stage batch it is refused until the item was answered without the article."""
    if assignment.batch.two_stage:
        first = Annotation.objects.filter(
            pk=annotation_id, assignment=assignment, annotator=annotator
        ).first()
        if first is not None and first.answer_without_article is None:
            raise ApplicationError("answer this question without the article first")
    with transaction.atomic():
        annotation = annotation_answer(
            assignment=assignment, annotator=annotator, annotation_id=annotation_id, answer=answer, now=now
        )
        Annotation.objects.filter(pk=annotation.pk).update(
            multiple_fit=multiple_fit, ungrammatical=ungrammatical
        )
    annotation.refresh_from_db()
    return annotation


def _rate(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def source_of(item) -> str:
    """A question's source for the tables: the record's ``source`` field, else its kind."""
    return str(item.extra.get("source") or item.kind)


def two_stage_results(*, batch: ValidationBatch) -> dict:
    """Per source: questions, answers, accuracy with and without the article (same annotators), the
    unique-answer rate (questions where a majority of annotators answered one option with the article
    and did not mark "more than one fits"), the marks, and the questions that needed their article (a
    majority right with it and a majority wrong without it)."""
    annotations = (
        Annotation.objects.filter(item__batch=batch, answer__isnull=False)
        .select_related("item")
        .defer("item__article")
    )
    by_item: dict[int, list[Annotation]] = defaultdict(list)
    items = {}
    for a in annotations:
        by_item[a.item_id].append(a)
        items[a.item_id] = a.item
    sources: dict[str, dict] = {}
    for item_id, answers in sorted(by_item.items()):
        item = items[item_id]
        row = sources.setdefault(source_of(item), defaultdict(int))
        n = len(answers)
        with_right = sum(a.answer == item.label for a in answers)
        staged = [a for a in answers if a.answer_without_article is not None]
        without_right = sum(a.answer_without_article == item.label for a in staged)
        unique = sum(a.answer != NONE_FITS and not a.multiple_fit for a in answers)
        row["questions"] += 1
        row["answers"] += n
        row["staged_answers"] += len(staged)
        row["with_article_correct"] += with_right
        row["without_article_correct"] += without_right
        row["multiple_fit_marks"] += sum(a.multiple_fit or a.answer == NONE_FITS for a in answers)
        row["ungrammatical_marks"] += sum(a.ungrammatical for a in answers)
        row["unique_questions"] += unique * 2 > n
        row["ungrammatical_questions"] += any(a.ungrammatical for a in answers)
        row["needed_article"] += with_right * 2 > n and bool(staged) and without_right * 2 < len(staged)
    table = {}
    for source, row in sorted(sources.items()):
        table[source] = {
            **row,
            "with_article_accuracy": _rate(row["with_article_correct"], row["answers"]),
            "without_article_accuracy": _rate(row["without_article_correct"], row["staged_answers"]),
            "unique_answer_rate": _rate(row["unique_questions"], row["questions"]),
            "multiple_fit_rate": _rate(row["multiple_fit_marks"], row["answers"]),
            "ungrammatical_rate": _rate(row["ungrammatical_marks"], row["answers"]),
        }
    return {"batch": batch.pk, "two_stage": batch.two_stage, "by_source": table}


def two_stage_rows(*, batch: ValidationBatch) -> list[dict]:
    """One row per answer with both stages and the marks (the export's ``two_stage.json``)."""
    rows = []
    annotations = (
        Annotation.objects.filter(item__batch=batch, answer__isnull=False)
        .select_related("item", "annotator")
        .defer("item__article")
        .order_by("item__kind", "item__question_id", "annotator__username")
    )
    for a in annotations:
        rows.append({
            "question_id": a.item.question_id, "kind": a.item.kind, "source": source_of(a.item),
            "annotator": a.annotator.username, "label": a.item.label,
            "without_article": a.answer_without_article, "with_article": a.answer,
            "multiple_fit": a.multiple_fit, "ungrammatical": a.ungrammatical,
        })  # fmt: skip
    return rows
