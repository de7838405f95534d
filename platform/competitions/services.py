"""Writes: create the ReCAM competition from the official files, store test sets and gold answers; create
and edit a competition of any task format (the console)."""

import csv
import hashlib
import io
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from competitions.errors import ApplicationError
from competitions.models import Competition, GoldAnswers, Phase, TestSet
from recam.formats import DEFAULT_FORMAT, get_format
from recam.records import Question, read_questions
from recam.submission import format_predictions

RECAM_TITLE = "SemEval-2021 Task 4: Reading Comprehension of Abstract Meaning (ReCAM)"
RECAM_DESCRIPTION = (
    "Fill in the @placeholder of a summary with the right abstract word out of five options. "
    "Subtask 1 tests imperceptibility, Subtask 2 nonspecificity; Subtask 3 scores a system trained on "
    "one subtask's data on the other subtask's test set."
)
# (kind, title, order, {subtask: file under the data folder})
RECAM_PHASES = (
    (Phase.Kind.PRACTICE, "Practice (dev sets)", 1, "training_data/Task_{n}_dev.jsonl"),
    (Phase.Kind.EVALUATION, "Evaluation (test sets)", 2, "test_data/Task_{n}_test.jsonl"),
    (Phase.Kind.POST_EVALUATION, "Post-evaluation (test sets)", 3, "test_data/Task_{n}_test.jsonl"),
)
# Upload limits of an evaluation phase, per team (the console's defaults for a new one too). Practice
# scores the dev sets, whose labels are public, and post-evaluation comes after the official results:
# both stay open-ended and unlimited. Applied when a phase is CREATED, never over an organizer's settings.
EVALUATION_PER_DAY = 3
EVALUATION_TOTAL = 30


@dataclass
class LoadReport:
    competition: Competition | None = None
    messages: list[str] = field(default_factory=list)


def competition_load_recam(*, data_dir: Path, slug: str | None = None) -> LoadReport:
    """Create or update (idempotent) the ReCAM competition from the official layout under ``data_dir``.

    A missing file is reported and skipped; a labelled file also stores its gold answers.
    """
    slug = slug or settings.RECAM_COMPETITION_SLUG
    report = LoadReport()
    competition, created = Competition.objects.get_or_create(
        slug=slug, defaults={"title": RECAM_TITLE, "description": RECAM_DESCRIPTION}
    )
    report.competition = competition
    report.messages.append(f"{'created' if created else 'kept'} competition {slug}")
    parsed: dict[Path, list[Question]] = {}  # evaluation and post-evaluation share the test files
    for kind, title, order, pattern in RECAM_PHASES:
        defaults = {"title": title, "order": order}
        if kind == Phase.Kind.EVALUATION:  # SemEval evaluation: hidden scores, the team's choice counts
            defaults |= {
                "results_hidden": True,
                "counted_policy": Phase.CountedPolicy.SELECTED,
                "max_submissions_per_day": EVALUATION_PER_DAY,
                "max_submissions_total": EVALUATION_TOTAL,
            }
        phase, _ = Phase.objects.get_or_create(competition=competition, kind=kind, defaults=defaults)
        for subtask in (1, 2):
            relative = pattern.format(n=subtask)
            path = Path(data_dir) / relative
            if not path.is_file():
                report.messages.append(f"{phase.kind}: subtask {subtask}: {path} is missing; skipped")
                continue
            if path not in parsed:
                parsed[path] = read_questions(path)
            report.messages.append(
                _load_test_file(
                    phase=phase, subtask=subtask, questions=parsed[path], path=path, name=relative
                )
            )
    return report


def _load_test_file(*, phase: Phase, subtask: int, questions: list[Question], path: Path, name: str) -> str:
    test_set = phase_test_set_store(
        phase=phase,
        subtask=subtask,
        question_ids=[q.id for q in questions],
        source_name=name,
        source_sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
    )
    labels = {q.id: q.label for q in questions if q.label is not None}
    message = f"{phase.kind}: subtask {subtask}: {len(questions):,} questions from {name}"
    if labels and len(labels) == len(questions):
        gold = gold_store(test_set=test_set, labels=labels, source_name=name)
        return f"{message}, gold sha256 {gold.sha256[:12]}"
    return f"{message}, no gold labels (load them with recam_gold)"


def phase_test_set_store(
    *, phase: Phase, subtask: int, question_ids: list[int], source_name: str, source_sha256: str
) -> TestSet:
    test_set, _ = TestSet.objects.update_or_create(
        phase=phase,
        subtask=subtask,
        defaults={
            "question_ids": sorted(question_ids),
            "num_questions": len(question_ids),
            "source_name": source_name,
            "source_sha256": source_sha256,
        },
    )
    return test_set


def gold_store(*, test_set: TestSet, labels: dict[int, int], source_name: str) -> GoldAnswers:
    """Write the gold labels under GOLD_ROOT (never under MEDIA_ROOT) after checking them against the ids."""
    expected = set(test_set.question_ids)
    missing, unknown = sorted(expected - set(labels)), sorted(set(labels) - expected)
    if missing or unknown:
        raise ApplicationError(
            f"{source_name}: the gold ids do not match the {test_set} test set: "
            f"{len(missing)} missing (first: {missing[:5]}), {len(unknown)} unknown (first: {unknown[:5]})"
        )
    bad = [(qid, label) for qid, label in labels.items() if label not in range(5)]
    if bad:
        raise ApplicationError(f"{source_name}: labels must be 0-4; first bad: id {bad[0][0]} -> {bad[0][1]}")
    content = format_predictions(labels).encode("utf-8")
    relative = Path(test_set.phase.competition.slug) / test_set.phase.kind / f"subtask{test_set.subtask}.csv"
    target = Path(settings.GOLD_ROOT) / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content)
    gold, _ = GoldAnswers.objects.update_or_create(
        test_set=test_set,
        defaults={
            "path": str(relative),
            "sha256": hashlib.sha256(content).hexdigest(),
            "num_labels": len(labels),
            "source_name": source_name,
        },
    )
    return gold


def gold_load_file(*, phase: Phase, subtask: int, path: Path) -> GoldAnswers:
    """Load gold labels for a phase's test set from a labelled jsonl or an ``id,label`` csv.

    Re-scoring the phase's submissions is the submissions app's: ``submissions.services.gold_load_and_rescore``.
    """
    test_set = (
        TestSet.objects.filter(phase=phase, subtask=subtask).select_related("phase__competition").first()
    )
    if test_set is None:
        raise ApplicationError(f"the {phase.kind} phase has no Subtask {subtask} test set; load it first")
    labels = _read_gold(path)
    return gold_store(test_set=test_set, labels=labels, source_name=path.name)


def _read_gold(path: Path) -> dict[int, int]:
    if path.suffix == ".jsonl":
        try:
            return {q.id: q.label for q in read_questions(path, require_labels=True)}
        except ValueError as exc:
            raise ApplicationError(str(exc)) from None
    labels: dict[int, int] = {}
    text = path.read_text(encoding="utf-8-sig")
    for lineno, row in enumerate(csv.reader(io.StringIO(text)), start=1):
        if not row:
            continue
        try:
            qid, label = (int(value) for value in row)
        except ValueError:
            raise ApplicationError(
                f"{path}, line {lineno}: expected 'id,label' integers, got {row!r}"
            ) from None
        if qid in labels:
            raise ApplicationError(f"{path}, line {lineno}: duplicate id {qid}")
        labels[qid] = label
    return labels


# Console paths under /console/ that a competition's slug must not shadow (console/urls.py).
RESERVED_SLUGS = frozenset({"datasets", "new-competition"})


def competition_create(
    *, slug: str, title: str, description: str = "", task_format: str = DEFAULT_FORMAT
) -> Competition:
    """A new competition of ``task_format`` (ReCAM by default) with no phase yet (the console adds them)."""
    _check_format(task_format)
    if slug in RESERVED_SLUGS:
        raise ApplicationError(f"the address {slug!r} is taken by the console: choose another")
    if Competition.objects.filter(slug=slug).exists():
        raise ApplicationError(f"a competition with the address {slug!r} exists already")
    return Competition.objects.create(
        slug=slug, title=title, description=description, task_format=task_format
    )


def competition_update(
    *, competition: Competition, title: str, description: str, task_format: str
) -> Competition:
    """Edit a competition; its task format only while nothing depends on it (no test set, no upload)."""
    _check_format(task_format)
    if task_format != competition.task_format and competition_format_locked(competition=competition):
        raise ApplicationError(
            f"the task format stays {competition.task_format}: the competition has test sets or uploads already"
        )
    competition.title, competition.description, competition.task_format = title, description, task_format
    competition.save(update_fields=["title", "description", "task_format"])
    return competition


def competition_format_locked(*, competition: Competition) -> bool:
    """Whether test sets or uploads of the competition already follow its task format."""
    phases = Phase.objects.filter(competition=competition)
    return (
        TestSet.objects.filter(phase__in=phases).exists()
        or phases.filter(submissions__isnull=False).exists()  # the related name: no import upwards
    )


def _check_format(task_format: str) -> None:
    try:
        get_format(task_format)
    except ValueError as exc:
        raise ApplicationError(str(exc)) from None
