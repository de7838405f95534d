"""Writes: create a validation batch, hand out assignments race-free, record answers, export."""

import dataclasses
import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path

import ftfy
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from competitions.errors import ApplicationError
from recam.records import Question, iter_questions, loads_bounded
from recam.siblings import leak_message, sibling_leaks
from validation.models import BatchQuestion, ValidationBatch
from validation.selectors import ANNOTATOR_GROUP

QUALITY_KEYS = ("with_article_accuracy", "options_only_accuracy", "effective_options", "contextual_mi")


@dataclass(frozen=True)
class BatchSettings:
    annotations_per_question: int = 3
    questions_per_assignment: int = 10
    allow_none: bool = True
    gold_rate: float = 0.2
    min_gold_accuracy: float = 0.4
    two_stage: bool = False  # answers without the article first (validation.two_stage)

    def check(self) -> None:
        if not 1 <= self.annotations_per_question <= 50:
            raise ApplicationError("annotations per question must be 1-50")
        if not 1 <= self.questions_per_assignment <= 500:
            raise ApplicationError("questions per assignment must be 1-500")
        if not 0 <= self.gold_rate <= 1:
            raise ApplicationError("the gold-check rate must be between 0 and 1")
        if not 0 <= self.min_gold_accuracy < 1:
            raise ApplicationError("the minimum gold-check accuracy must be in [0, 1)")


STANDARD_FIELDS = {"id", "article", "question", "label", *(f"option_{i}" for i in range(5))}


def parse_labelled_jsonl(*, name: str, data: bytes) -> list[Question]:
    """Every record of a ReCAM jsonl with its label; errors name ``name:line``."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ApplicationError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    try:
        questions = list(iter_questions(text.splitlines(), source=name))
    except ValueError as exc:
        raise ApplicationError(str(exc)) from None
    if not questions:
        raise ApplicationError(f"{name}: no questions")
    questions = [clean_question(question=q) for q in questions]
    unlabelled = [q.id for q in questions if q.label is None]
    if unlabelled:
        raise ApplicationError(
            f"{name}: {len(unlabelled)} record(s) have no 'label' (first id {unlabelled[0]})"
        )
    return questions


def record_extras(*, data: bytes) -> list[dict]:
    """The non-ReCAM fields of each record (datagen adds source_id and subtask), in file order."""
    lines = [line for line in data.decode("utf-8-sig").splitlines() if line.strip()]
    return [{k: v for k, v in json.loads(line).items() if k not in STANDARD_FIELDS} for line in lines]


def clean_question(*, question: Question) -> Question:
    """The question with mojibake repaired by ftfy ("Â£40m" -> "£40m"); ReCAM's dev sets carry some."""
    return dataclasses.replace(
        question,
        article=ftfy.fix_text(question.article),
        question=ftfy.fix_text(question.question),
        options=tuple(ftfy.fix_text(option) for option in question.options),
    )


def batch_subtask(*, extras: list[dict]) -> int | None:
    """The subtask every record names (datagen writes ``subtask``, as "2" or 2), or None when they
    do not agree or name none."""
    found = {str(extra.get("subtask")) for extra in extras}
    return int(found.pop()) if len(found) == 1 and found <= {"1", "2"} else None


def default_gold_source(*, subtask: int | None = None) -> tuple[str, bytes]:
    """VALIDATION_GOLD_FILE when set; otherwise the official dev set of the batch's own subtask."""
    if settings.VALIDATION_GOLD_FILE:
        path = Path(settings.VALIDATION_GOLD_FILE)
    else:
        path = Path(settings.RECAM_DATA_DIR) / "training_data" / f"Task_{subtask or 1}_dev.jsonl"
    if not path.is_file():
        raise ApplicationError(f"no gold-check file at {path}: upload one or set VALIDATION_GOLD_FILE")
    return str(path), path.read_bytes()


def earlier_validated(*, subtask: int | None) -> list[Question]:
    """Kept questions of earlier batches of the same subtask: known-good, in the batch's own style."""
    from validation.results import batch_results  # results reads the models this module writes

    found = []
    for earlier in ValidationBatch.objects.order_by("pk"):
        items = earlier.questions.filter(kind=BatchQuestion.Kind.GENERATED)
        if subtask is None or batch_subtask(extras=list(items.values_list("extra", flat=True))) != subtask:
            continue
        kept = {row.question_id for row in batch_results(batch=earlier).kept}
        for item in items.filter(question_id__in=kept).order_by("question_id"):
            found.append(
                Question(
                    id=item.question_id,
                    article=item.article,
                    question=item.question,
                    options=tuple(item.options),
                    label=item.label,
                )
            )
    return found


def _gold_pool(
    *, gold: tuple[str, bytes] | None, subtask: int | None
) -> tuple[str, list[tuple[Question, dict]]]:
    """The gold checks: the uploaded or default file sampled to the pool size, plus validated questions
    of earlier batches (renumbered after the file's ids, their origin kept in ``extra``)."""
    gold_name, gold_data = gold or default_gold_source(subtask=subtask)
    questions = parse_labelled_jsonl(name=gold_name, data=gold_data)
    pool = settings.VALIDATION_GOLD_POOL
    if len(questions) > pool:  # a fixed, seeded sample: the same file gives the same pool
        questions = sorted(random.Random(0).sample(questions, pool), key=lambda q: q.id)
    rows = [(q, {}) for q in questions]
    next_id = max((q.id for q in questions), default=-1) + 1
    for i, question in enumerate(earlier_validated(subtask=subtask)):
        origin = {"validated_id": question.id}
        rows.append((dataclasses.replace(question, id=next_id + i), origin))
    if len(rows) > len(questions):
        gold_name += f" + {len(rows) - len(questions)} validated earlier"
    return gold_name, rows


def batch_create(
    *,
    name: str,
    source_name: str,
    data: bytes,
    batch_settings: BatchSettings,
    gold: tuple[str, bytes] | None = None,
    created_by=None,
) -> ValidationBatch:
    """Parse everything first (nothing is stored on an error), then store the batch in one transaction."""
    batch_settings.check()
    generated = parse_labelled_jsonl(name=source_name, data=data)
    leaks = sibling_leaks(generated)
    if leaks:  # one question answers another: not a set to validate (docs/validation.md)
        raise ApplicationError(leak_message(leaks, source=source_name))
    extras = record_extras(data=data)
    gold_rows: list[tuple[Question, dict]] = []
    gold_name = ""
    if batch_settings.gold_rate > 0:
        gold_name, gold_rows = _gold_pool(gold=gold, subtask=batch_subtask(extras=extras))
    with transaction.atomic():
        batch = ValidationBatch.objects.create(
            name=name.strip() or source_name,
            source_name=source_name,
            source_sha256=hashlib.sha256(data).hexdigest(),
            gold_source_name=gold_name,
            created_by=created_by,
            **batch_settings.__dict__,
        )
        rows = [
            _question_row(batch, BatchQuestion.Kind.GENERATED, q, extra)
            for q, extra in zip(generated, extras, strict=True)
        ]
        rows += [_question_row(batch, BatchQuestion.Kind.GOLD, q, extra) for q, extra in gold_rows]
        BatchQuestion.objects.bulk_create(rows)
    return batch


def _question_row(
    batch: ValidationBatch, kind: str, question: Question, extra: dict | None = None
) -> BatchQuestion:
    return BatchQuestion(
        batch=batch,
        kind=kind,
        question_id=question.id,
        article=question.article,
        question=question.question,
        options=list(question.options),
        label=question.label,
        extra=extra or {},
    )


def batch_attach_quality_report(*, batch: ValidationBatch, name: str, data: bytes) -> ValidationBatch:
    """Store a `python -m datagen quality` JSON report to show beside the results."""
    try:
        report = loads_bounded(data.decode("utf-8-sig"))
    except json.JSONDecodeError as exc:
        raise ApplicationError(f"{name}: not a JSON document ({exc})") from None
    except ValueError as exc:  # not UTF-8, or an integer of thousands of digits
        raise ApplicationError(f"{name}: {exc}") from None
    if not isinstance(report, dict):
        raise ApplicationError(f"{name}: expected a JSON object at the top level")
    missing = [key for key in QUALITY_KEYS if key not in report]
    if missing:
        raise ApplicationError(f"{name}: not a question-quality report (missing {', '.join(missing)})")
    questions = report.get("questions", [])
    if not isinstance(questions, list) or not all(isinstance(q, dict) for q in questions):
        raise ApplicationError(f"{name}: 'questions' must be a list of objects")
    batch.quality_report, batch.quality_report_name = report, name
    batch.save(update_fields=["quality_report", "quality_report_name"])
    return batch


def annotator_set(*, user, annotator: bool = True) -> None:
    """Give (or take) the annotator role: membership of the ``annotators`` group."""
    group, _ = Group.objects.get_or_create(name=ANNOTATOR_GROUP)
    if annotator:
        user.groups.add(group)
    else:
        user.groups.remove(group)


def annotators_add(*, usernames: list[str]) -> list:
    """Give the annotator role to existing accounts by username; nothing changes if one is unknown."""
    names = [name.strip() for name in usernames if name.strip()]
    if not names:
        raise ApplicationError("name at least one account (usernames, separated by spaces or commas)")
    users = {u.username: u for u in get_user_model().objects.filter(username__in=names)}
    unknown = [name for name in names if name not in users]
    if unknown:
        raise ApplicationError(
            f"no account named {', '.join(unknown)}: the person signs up first, then you add them"
        )
    for user in users.values():
        annotator_set(user=user)
    return list(users.values())


def batch_settings_update(
    *, batch: ValidationBatch, annotations_per_question: int, min_gold_accuracy: float
) -> ValidationBatch:
    """Change the target number of counted annotations and the gold-check minimum of a running batch.

    Both only change how answers are read (and how many slots are handed out from now on): no answer
    is lost, so setting a value back restores the earlier results.
    """
    BatchSettings(
        annotations_per_question=annotations_per_question, min_gold_accuracy=min_gold_accuracy
    ).check()
    ValidationBatch.objects.filter(pk=batch.pk).update(
        annotations_per_question=annotations_per_question, min_gold_accuracy=min_gold_accuracy
    )
    batch.refresh_from_db()
    return batch
