"""Reads: what an annotator sees (never the label), who may annotate, and a batch's results."""

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Count, F, Q

from recam.records import PLACEHOLDER
from validation.models import Annotation, Assignment, BatchQuestion, ValidationBatch

ANNOTATOR_GROUP = "annotators"


def user_is_annotator(*, user) -> bool:
    return bool(
        user.is_authenticated and user.is_active and user.groups.filter(name=ANNOTATOR_GROUP).exists()
    )


def is_counted(*, gold_correct: int, gold_answered: int, minimum: float) -> bool:
    """The batch's rule: counted unless the gold-check accuracy is at or below the minimum (0 counts all)."""
    return minimum <= 0 or not gold_answered or gold_correct / gold_answered > minimum


def uncounted_annotator_ids(*, batch: ValidationBatch) -> set[int]:
    """Annotators whose answers do not count: their slots are free for others (assignments.py)."""
    rows = (
        Annotation.objects.filter(item__batch=batch, item__kind=BatchQuestion.Kind.GOLD, answer__isnull=False)
        .values("annotator_id")
        .annotate(answered=Count("pk"), correct=Count("pk", filter=Q(answer=F("item__label"))))
    )
    return {
        row["annotator_id"]
        for row in rows
        if not is_counted(
            gold_correct=row["correct"], gold_answered=row["answered"], minimum=batch.min_gold_accuracy
        )
    }


@dataclass(frozen=True)
class ItemView:
    """Everything an annotator's page shows for one item. Deliberately no label and no kind (gold/generated)."""

    annotation_id: int
    article: str
    question_before: str
    question_after: str
    options: tuple[str, ...]
    allow_none: bool


@dataclass(frozen=True)
class Progress:
    answered: int
    total: int

    @property
    def percent(self) -> int:
        return round(100 * self.answered / self.total) if self.total else 100


def assignment_get(*, pk: int, annotator) -> Assignment | None:
    return Assignment.objects.select_related("batch").filter(pk=pk, annotator=annotator).first()


def assignment_progress(*, assignment: Assignment) -> Progress:
    counts = assignment.annotations.aggregate(
        total=Count("pk"), answered=Count("pk", filter=Q(answer__isnull=False))
    )
    return Progress(answered=counts["answered"], total=counts["total"])


def assignment_next_annotation(*, assignment: Assignment) -> Annotation | None:
    return (
        assignment.annotations.filter(answer__isnull=True).select_related("item").order_by("position").first()
    )


def item_view(*, annotation: Annotation, allow_none: bool) -> ItemView:
    before, _, after = annotation.item.question.partition(PLACEHOLDER)
    return ItemView(
        annotation_id=annotation.pk,
        article=annotation.item.article,
        question_before=before,
        question_after=after,
        options=tuple(annotation.item.options),
        allow_none=allow_none,
    )


@dataclass(frozen=True)
class BatchOverview:
    batch: ValidationBatch
    generated: int
    slots: int  # generated questions x annotations per question
    answered: int  # answered slots of generated questions
    open_assignment_id: int | None  # the viewer's open assignment, if any

    @property
    def percent(self) -> int:
        return round(100 * min(self.answered, self.slots) / self.slots) if self.slots else 100


def batch_overviews(*, user) -> list[BatchOverview]:
    rows = []
    batches = ValidationBatch.objects.annotate(
        generated=Count("questions", filter=Q(questions__kind="generated"), distinct=True)
    )
    for batch in batches:
        answered = Annotation.objects.filter(
            item__batch=batch, item__kind="generated", answer__isnull=False
        ).count()
        mine = Assignment.objects.filter(batch=batch, annotator=user, status=Assignment.Status.OPEN).first()
        rows.append(
            BatchOverview(
                batch=batch,
                generated=batch.generated,
                slots=batch.generated * batch.annotations_per_question,
                answered=answered,
                open_assignment_id=mine.pk if mine else None,
            )
        )
    return rows


def batch_get(*, pk: int) -> ValidationBatch | None:
    return ValidationBatch.objects.filter(pk=pk).first()


def open_slot_holders(*, batch: ValidationBatch) -> list[tuple[str, int]]:
    """(username, unanswered slots) of everyone with an open assignment in the batch."""
    rows = (
        Annotation.objects.filter(
            assignment__batch=batch, assignment__status=Assignment.Status.OPEN, answer__isnull=True
        )
        .values("annotator__username")
        .annotate(slots=Count("pk"))
        .order_by("annotator__username")
    )
    return [(row["annotator__username"], row["slots"]) for row in rows]


def annotator_usernames() -> list[str]:
    return sorted(
        get_user_model()
        .objects.filter(groups__name=ANNOTATOR_GROUP, is_active=True)
        .values_list("username", flat=True)
    )


def user_by_username(*, username: str):
    return get_user_model().objects.filter(username=username).first()
