"""Hand out assignments race-free and record answers.

The hand-out runs in one transaction whose first statement is an UPDATE of the batch row: PostgreSQL
locks the row (then ``select_for_update`` reads it under that lock), SQLite takes its database write
lock. Under the lock, expired assignments give their unanswered items back, the annotation counts are
read, and the new slots are written; so no question gets more than its target number of slots, and an
annotator never gets one question twice (also a unique constraint).
"""

import datetime as dt
import random

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from competitions.errors import ApplicationError
from recam.agreement import NONE_FITS
from recam.records import NUM_OPTIONS
from validation.models import Annotation, Assignment, BatchQuestion, ValidationBatch
from validation.selectors import uncounted_annotator_ids


def _timeout() -> dt.timedelta:
    return dt.timedelta(minutes=settings.VALIDATION_ASSIGNMENT_TIMEOUT_MINUTES)


def assignment_get_or_create(
    *, batch: ValidationBatch, annotator, now: dt.datetime | None = None
) -> Assignment | None:
    """The annotator's open assignment in the batch, or a new one; None when nothing is left for them."""
    now = now or timezone.now()
    with transaction.atomic():
        ValidationBatch.objects.filter(pk=batch.pk).update(assignment_counter=F("assignment_counter") + 1)
        batch = ValidationBatch.objects.select_for_update().get(pk=batch.pk)
        assignments_expire(batch=batch, now=now)
        current = Assignment.objects.filter(
            batch=batch, annotator=annotator, status=Assignment.Status.OPEN
        ).first()
        if current is not None:
            return current
        items = _pick_items(batch=batch, annotator=annotator)
        if not items:
            return None
        assignment = Assignment.objects.create(batch=batch, annotator=annotator, expires_at=now + _timeout())
        random.Random(f"{batch.pk}:{annotator.pk}:{batch.assignment_counter}").shuffle(items)
        Annotation.objects.bulk_create(
            Annotation(assignment=assignment, item=item, annotator=annotator, position=i)
            for i, item in enumerate(items)
        )
    return assignment


def _pick_items(*, batch: ValidationBatch, annotator) -> list[BatchQuestion]:
    """Generated questions with a free slot (fewest annotations first), then gold checks at the rate.

    A slot is taken by an answer or an open item of a counted annotator: the slots of an annotator whose
    gold checks put them below the batch's minimum are free again, so the batch can still finish.
    """
    seen = Annotation.objects.filter(item__batch=batch, annotator=annotator).values("item_id")
    uncounted = uncounted_annotator_ids(batch=batch)
    counted = ~Q(annotations__annotator_id__in=uncounted) if uncounted else None
    free = (
        BatchQuestion.objects.filter(batch=batch, kind=BatchQuestion.Kind.GENERATED)
        .exclude(pk__in=seen)
        .annotate(taken=Count("annotations", filter=counted))
        .filter(taken__lt=batch.annotations_per_question)
        .order_by("taken", "question_id")
    )
    generated = list(free[: batch.questions_per_assignment])
    if not generated or batch.gold_rate <= 0:
        return generated
    wanted = max(1, round(len(generated) * batch.gold_rate))
    gold = list(
        BatchQuestion.objects.filter(batch=batch, kind=BatchQuestion.Kind.GOLD)
        .exclude(pk__in=seen)
        .values_list("pk", flat=True)
    )
    rng = random.Random(f"gold:{batch.pk}:{annotator.pk}:{batch.assignment_counter}")
    chosen = rng.sample(gold, min(wanted, len(gold)))
    return generated + list(BatchQuestion.objects.filter(pk__in=chosen))


def assignments_expire(*, batch: ValidationBatch, now: dt.datetime) -> int:
    """Open assignments past their time: unanswered items go back to the pool. Call under the batch lock."""
    expired = Assignment.objects.filter(batch=batch, status=Assignment.Status.OPEN, expires_at__lt=now)
    ids = list(expired.values_list("pk", flat=True))
    if ids:
        Annotation.objects.filter(assignment_id__in=ids, answer__isnull=True).delete()
        Assignment.objects.filter(pk__in=ids).update(status=Assignment.Status.EXPIRED)
    return len(ids)


def assignments_release(*, batch: ValidationBatch, annotator) -> int:
    """Staff: end an annotator's open assignment now; its unanswered items go back to the pool.

    Their answers stay. Returns the number of slots released.
    """
    with transaction.atomic():
        ValidationBatch.objects.filter(pk=batch.pk).update(assignment_counter=F("assignment_counter") + 1)
        open_ids = list(
            Assignment.objects.filter(
                batch=batch, annotator=annotator, status=Assignment.Status.OPEN
            ).values_list("pk", flat=True)
        )
        released, _ = Annotation.objects.filter(assignment_id__in=open_ids, answer__isnull=True).delete()
        Assignment.objects.filter(pk__in=open_ids).update(status=Assignment.Status.EXPIRED)
    return released


def annotation_mark_shown(*, annotation: Annotation, now: dt.datetime | None = None) -> None:
    if annotation.shown_at is None:
        now = now or timezone.now()
        Annotation.objects.filter(pk=annotation.pk, shown_at__isnull=True).update(shown_at=now)
        annotation.shown_at = now


def annotation_answer(
    *, assignment: Assignment, annotator, annotation_id: int, answer: int, now: dt.datetime | None = None
) -> Annotation:
    """Record one answer (once); push the assignment's expiry back; close it when every item is answered."""
    now = now or timezone.now()
    allowed = set(range(NUM_OPTIONS)) | ({NONE_FITS} if assignment.batch.allow_none else set())
    if answer not in allowed:
        raise ApplicationError("choose one of the options")
    with transaction.atomic():
        annotation = Annotation.objects.filter(
            pk=annotation_id, assignment=assignment, annotator=annotator
        ).first()
        assignment.refresh_from_db(fields=["status"])
        if assignment.status == Assignment.Status.EXPIRED:
            raise ApplicationError(
                "this assignment expired and its unanswered questions went back to the pool"
            )
        if annotation is None:
            raise ApplicationError("this question is not part of your assignment")
        if annotation.answer is not None:
            raise ApplicationError("you already answered this question")
        shown = annotation.shown_at or now
        updated = Annotation.objects.filter(pk=annotation.pk, answer__isnull=True).update(
            answer=answer, answered_at=now, seconds=max((now - shown).total_seconds(), 0.0)
        )
        if not updated:
            raise ApplicationError("you already answered this question")
        left = Annotation.objects.filter(assignment=assignment, answer__isnull=True).exists()
        status = Assignment.Status.OPEN if left else Assignment.Status.DONE
        Assignment.objects.filter(pk=assignment.pk, status=Assignment.Status.OPEN).update(
            expires_at=now + _timeout(), status=status
        )
    annotation.refresh_from_db()
    return annotation
