"""Two-stage annotation: each annotator answers a question without the article, then with it.

A batch created with ``two_stage`` shows every item twice to the same annotator: first the summary
with its blank and the five options only (``answer_without_article``), then the article as well (the
batch's usual ``answer``), where the annotator may also mark "more than one option fits" and "an
option is ungrammatical". The results give, per source of the questions (the record's ``source``
field when the file has one, else generated / gold check): the with-article and without-article
accuracy of the same annotators, the unique-answer rate and the marks (docs/validation.md).
"""

import datetime as dt
import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from django.db import transaction

from competitions.errors import ApplicationError
from recam.agreement import NONE_FITS
from recam.records import NUM_OPTIONS
from validation.assignments import annotation_answer, assignment_get_or_create
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


def parse_answer_file(*, name: str, data: bytes, items: set[int]) -> dict[int, dict]:
    """An annotator's answers, ``{item: {noarticle, witharticle, multiple_fit, ungrammatical}}`` (item
    numbers as keys, answers 0-4 or -1); errors name the file and the item."""
    try:
        found = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ApplicationError(f"{name}: not a JSON document ({exc})") from None
    if not isinstance(found, dict):
        raise ApplicationError(f"{name}: expected an object of item numbers")
    answers = {}
    for key, value in found.items():
        where = f"{name}, item {key}"
        if not str(key).isdigit() or int(key) not in items:
            raise ApplicationError(f"{where}: not an item of the batch")
        if not isinstance(value, dict):
            raise ApplicationError(f"{where}: expected an object")
        for stage in ("noarticle", "witharticle"):
            if value.get(stage) not in (*range(NUM_OPTIONS), NONE_FITS) or isinstance(value.get(stage), bool):
                raise ApplicationError(
                    f"{where}: {stage!r} must be an option 0-4 or -1, got {value.get(stage)!r}"
                )
        for mark in ("multiple_fit", "ungrammatical"):
            if not isinstance(value.get(mark, False), bool):
                raise ApplicationError(f"{where}: {mark!r} must be true or false")
        answers[int(key)] = value
    return answers


def batch_from_answer_files(
    *, name: str, source_name: str, data: bytes, answer_files: Sequence[tuple[str, bytes]], created_by=None
) -> ValidationBatch:
    """A two-stage batch of a blind file (``recam.blind.batch_records``: id = item number) answered
    offline: one annotator account per answer file (``annotator-<file stem>``), each answer recorded
    through the same services as the pages (first without the article, then with it)."""
    from django.contrib.auth import get_user_model

    from validation.services import BatchSettings, annotator_set, batch_create

    if not answer_files:
        raise ApplicationError("no answer files")
    size = len([line for line in data.decode("utf-8-sig").splitlines() if line.strip()])
    with transaction.atomic():
        batch = batch_create(
            name=name, source_name=source_name, data=data, created_by=created_by,
            batch_settings=BatchSettings(annotations_per_question=len(answer_files), questions_per_assignment=size,
                                         gold_rate=0, min_gold_accuracy=0, two_stage=True),
        )  # fmt: skip
        items = set(batch.questions.values_list("question_id", flat=True))
        for file_name, content in answer_files:
            answers = parse_answer_file(name=file_name, data=content, items=items)
            username = "annotator-" + Path(file_name).stem.removeprefix("answers-")
            user, _ = get_user_model().objects.get_or_create(username=username)
            annotator_set(user=user)
            assignment = assignment_get_or_create(batch=batch, annotator=user)
            for annotation in assignment.annotations.select_related("item"):
                given = answers.get(annotation.item.question_id)
                if given is None:
                    continue
                annotation_answer_without_article(
                    assignment=assignment,
                    annotator=user,
                    annotation_id=annotation.pk,
                    answer=given["noarticle"],
                )
                annotation_answer_with_article(
                    assignment=assignment, annotator=user, annotation_id=annotation.pk,
                    answer=given["witharticle"], multiple_fit=given.get("multiple_fit", False),
                    ungrammatical=given.get("ungrammatical", False),
                )  # fmt: skip
    return batch
