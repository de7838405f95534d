"""Reads: what an annotator sees (never the label), who may annotate, and a batch's results."""

from dataclasses import dataclass

from django.db.models import Count, Q

from recam.records import PLACEHOLDER
from validation.models import Annotation, Assignment, ValidationBatch

ANNOTATOR_GROUP = "annotators"


def user_is_annotator(*, user) -> bool:
    return bool(
        user.is_authenticated and user.is_active and user.groups.filter(name=ANNOTATOR_GROUP).exists()
    )


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
