"""A batch's results: per question and per batch human accuracy, Fleiss' kappa, reliability, drops.

The maths is in recam/agreement.py (Django-free); this module reads the answers and applies it.
Annotators whose gold-check accuracy is at or below the batch's ``min_gold_accuracy`` (the paper's
Appendix E keeps annotators whose average accuracy is above 40%) are listed but not counted; a
minimum of 0 counts everyone.
"""

from collections import defaultdict
from dataclasses import dataclass, field

from recam.agreement import (
    KEEP,
    NONE_FITS,
    PENDING,
    Verdict,
    answer_counts,
    fleiss_kappa,
    human_accuracy,
    observed_agreement,
    question_verdict,
)
from validation.models import Annotation, BatchQuestion, ValidationBatch
from validation.selectors import is_counted


@dataclass(frozen=True)
class AnnotatorRow:
    username: str
    answered: int
    gold_answered: int
    gold_correct: int
    generated_answered: int
    seconds: float
    counted: bool

    @property
    def gold_accuracy(self) -> float | None:
        return self.gold_correct / self.gold_answered if self.gold_answered else None

    @property
    def seconds_per_item(self) -> float | None:
        return self.seconds / self.answered if self.answered else None


@dataclass(frozen=True)
class QuestionRow:
    question_id: int
    question: str
    options: tuple[str, ...]
    label: int
    answers: tuple[int, ...]  # counted answers
    counts: tuple[int, ...]  # per option 0-4, then none fits
    accuracy: float | None
    agreement: float | None
    verdict: Verdict
    quality: dict = field(default_factory=dict)
    open_slots: tuple[str, ...] = ()  # who holds an unanswered slot of this question
    not_counted: tuple[str, ...] = ()  # who answered it without being counted (gold checks too low)

    @property
    def why_pending(self) -> str:
        """Why a pending question waits: counted answers, open slots and their holders, uncounted answers."""
        if self.verdict.decision != PENDING:
            return ""
        parts = [self.verdict.reason.replace("annotations", "counted annotations")]
        if self.open_slots:
            parts.append(f"{len(self.open_slots)} open (held by {', '.join(self.open_slots)})")
        if self.not_counted:
            parts.append(f"not counted: {', '.join(self.not_counted)}")
        return "; ".join(parts)


@dataclass(frozen=True)
class BatchResults:
    batch: ValidationBatch
    questions: list[QuestionRow]
    annotators: list[AnnotatorRow]
    human_accuracy: float | None
    kappa: float | None
    kappa_questions: int
    gold_accuracy: float | None

    @property
    def kept(self) -> list[QuestionRow]:
        return [q for q in self.questions if q.verdict.decision == KEEP]

    @property
    def dropped(self) -> list[QuestionRow]:
        return [q for q in self.questions if q.verdict.decision not in (KEEP, PENDING)]

    @property
    def pending(self) -> list[QuestionRow]:
        return [q for q in self.questions if q.verdict.decision == PENDING]

    @property
    def free_slots(self) -> int:
        """Counted annotations still wanted and held by nobody: what a new assignment can take."""
        return sum(
            max(0, self.batch.annotations_per_question - len(q.answers) - len(q.open_slots))
            for q in self.pending
        )


def batch_results(*, batch: ValidationBatch) -> BatchResults:
    answered = list(
        Annotation.objects.filter(item__batch=batch, answer__isnull=False)
        .select_related("item", "annotator")
        .defer("item__article")
        .order_by("item__question_id", "annotator__username")
    )
    annotators = _annotator_rows(batch=batch, answered=answered)
    counted = {row.username for row in annotators if row.counted}
    per_question: dict[int, list[int]] = defaultdict(list)
    for annotation in answered:
        if annotation.item.kind == BatchQuestion.Kind.GENERATED and annotation.annotator.username in counted:
            per_question[annotation.item_id].append(annotation.answer)
    quality = {q.get("id"): q for q in (batch.quality_report or {}).get("questions", [])}
    held, uncounted = _slot_holders(batch=batch, answered=answered, counted=counted)
    rows = [
        _question_row(
            item=item,
            answers=per_question.get(item.pk, []),
            batch=batch,
            quality=quality,
            open_slots=tuple(held.get(item.pk, ())),
            not_counted=tuple(uncounted.get(item.pk, ())),
        )
        for item in batch.questions.filter(kind=BatchQuestion.Kind.GENERATED).order_by("question_id")
    ]
    all_answers = [a for row in rows for a in row.answers]
    all_labels = [row.label for row in rows for _ in row.answers]
    complete = [list(row.answers) for row in rows if len(row.answers) == batch.annotations_per_question]
    gold = [r for r in annotators if r.gold_answered]
    return BatchResults(
        batch=batch,
        questions=rows,
        annotators=annotators,
        human_accuracy=human_accuracy(answers=all_answers, labels=all_labels) if all_answers else None,
        kappa=fleiss_kappa(answers_per_question=complete),
        kappa_questions=len(complete),
        gold_accuracy=(
            sum(r.gold_correct for r in gold) / sum(r.gold_answered for r in gold) if gold else None
        ),
    )


def _slot_holders(
    *, batch: ValidationBatch, answered: list[Annotation], counted: set[str]
) -> tuple[dict[int, list[str]], dict[int, list[str]]]:
    """Per generated item: who holds its open slots, and whose answers to it are not counted."""
    held: dict[int, list[str]] = defaultdict(list)
    uncounted: dict[int, list[str]] = defaultdict(list)
    unanswered = (
        Annotation.objects.filter(
            item__batch=batch, item__kind=BatchQuestion.Kind.GENERATED, answer__isnull=True
        )
        .select_related("annotator")
        .order_by("annotator__username")
    )
    for annotation in unanswered:
        held[annotation.item_id].append(annotation.annotator.username)
    for annotation in answered:
        if (
            annotation.item.kind == BatchQuestion.Kind.GENERATED
            and annotation.annotator.username not in counted
        ):
            uncounted[annotation.item_id].append(annotation.annotator.username)
    return held, uncounted


def _question_row(
    *,
    item: BatchQuestion,
    answers: list[int],
    batch: ValidationBatch,
    quality: dict,
    open_slots: tuple[str, ...] = (),
    not_counted: tuple[str, ...] = (),
) -> QuestionRow:
    return QuestionRow(
        question_id=item.question_id,
        question=item.question,
        options=tuple(item.options),
        label=item.label,
        answers=tuple(answers),
        counts=tuple(answer_counts(answers=answers)),
        accuracy=human_accuracy(answers=answers, labels=[item.label] * len(answers)) if answers else None,
        agreement=observed_agreement(answers=answers),
        verdict=question_verdict(answers=answers, label=item.label, required=batch.annotations_per_question),
        quality=quality.get(item.question_id, {}),
        open_slots=open_slots,
        not_counted=not_counted,
    )


def _annotator_rows(*, batch: ValidationBatch, answered: list[Annotation]) -> list[AnnotatorRow]:
    stats: dict[str, dict] = defaultdict(
        lambda: {"answered": 0, "gold": 0, "gold_ok": 0, "generated": 0, "seconds": 0.0}
    )
    for annotation in answered:
        row = stats[annotation.annotator.username]
        row["answered"] += 1
        row["seconds"] += annotation.seconds or 0.0
        if annotation.item.kind == BatchQuestion.Kind.GOLD:
            row["gold"] += 1
            row["gold_ok"] += int(annotation.answer == annotation.item.label)
        else:
            row["generated"] += 1
    rows = []
    for username, row in sorted(stats.items()):
        rows.append(
            AnnotatorRow(
                username=username,
                answered=row["answered"],
                gold_answered=row["gold"],
                gold_correct=row["gold_ok"],
                generated_answered=row["generated"],
                seconds=row["seconds"],
                counted=is_counted(
                    gold_correct=row["gold_ok"], gold_answered=row["gold"], minimum=batch.min_gold_accuracy
                ),
            )
        )
    return rows


def answer_name(answer: int) -> str:
    return "none fits" if answer == NONE_FITS else f"option {answer + 1}"
