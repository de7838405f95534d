"""Writes for the organizers' console: thin orchestration over the competitions, submissions and
leaderboards services (the same ones the recam_* management commands call); nothing is duplicated."""

import dataclasses
import datetime as dt
import hashlib
import io
import os
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from django.db import transaction
from django.utils import timezone

from competitions.errors import ApplicationError
from competitions.models import Competition, GoldAnswers, Phase, TestSet
from competitions.services import EVALUATION_PER_DAY, EVALUATION_TOTAL, gold_store, phase_test_set_store
from competitions.task_formats import phase_format
from leaderboards.models import OfficialResult
from leaderboards.services import leaderboard_refresh_phase, official_result_freeze
from onboarding.selectors import public_questions_path
from recam.formats import DEFAULT_FORMAT
from recam.records import Question, iter_questions, write_questions
from submissions.models import Submission
from submissions.services import gold_load_and_rescore, submission_mark_failed, submission_requeue
from submissions.task_formats import format_test_set_load_and_rescore

MAX_ZIP_MEMBERS = 20_000  # CLOTH's published test folder holds about 1,000 passage files
MAX_UNZIPPED_BYTES = 200 * 1024 * 1024
# A SemEval evaluation window: dated, a few uploads per day, hidden scores, the team's choice counts.
EVALUATION_DAYS = 21
PRACTICE_PER_DAY = 20
PHASE_ORDER = {Phase.Kind.PRACTICE: 1, Phase.Kind.EVALUATION: 2, Phase.Kind.POST_EVALUATION: 3}


def phase_defaults(*, kind: str, now: dt.datetime | None = None) -> dict:
    """Sane settings for a new phase of ``kind`` (never open-ended with unlimited uploads by accident)."""
    start = (now or timezone.now()).replace(minute=0, second=0, microsecond=0) + dt.timedelta(hours=1)
    base = {"order": PHASE_ORDER.get(kind, 9), "starts_at": start, "title": Phase.Kind(kind).label}
    if kind == Phase.Kind.EVALUATION:
        return base | {
            "ends_at": start + dt.timedelta(days=EVALUATION_DAYS),
            "max_submissions_per_day": EVALUATION_PER_DAY,
            "max_submissions_total": EVALUATION_TOTAL,
            "counted_policy": Phase.CountedPolicy.SELECTED,
            "results_hidden": True,
        }
    return base | {
        "ends_at": None,
        "max_submissions_per_day": PRACTICE_PER_DAY,
        "max_submissions_total": None,
        "counted_policy": Phase.CountedPolicy.BEST,
        "results_hidden": False,
    }


def phase_save(*, competition: Competition, kind: str, values: dict) -> Phase:
    """Create the competition's phase of ``kind`` or update its settings; a policy change rewrites the board."""
    if values.get("ends_at") and values.get("starts_at") and values["ends_at"] <= values["starts_at"]:
        raise ApplicationError("the phase must end after it starts")
    with transaction.atomic():
        phase = Phase.objects.filter(competition=competition, kind=kind).first()
        old_policy = phase.counted_policy if phase else None
        if phase is None:
            phase = Phase(competition=competition, kind=kind, **phase_defaults(kind=kind))
        for name, value in values.items():
            setattr(phase, name, value)
        phase.save()
        if old_policy is not None and old_policy != phase.counted_policy:
            leaderboard_refresh_phase(phase=phase)
    return phase


def test_set_load_upload(*, phase: Phase, subtask: int, data: bytes, filename: str) -> tuple[TestSet, bool]:
    """Load a ReCAM jsonl as the phase's test set of ``subtask``; returns (test set, gold stored).

    Every line is checked first (a bad line is reported with the file name and line number and
    nothing is changed). The labels, when every question has one, become the gold answers (under
    GOLD_ROOT); the questions without labels are written for the phase's Data page.
    """
    _recam_only(phase)
    try:
        questions = list(iter_questions(data.decode("utf-8-sig").splitlines(), source=filename))
    except UnicodeDecodeError:
        raise ApplicationError(f"{filename}: not UTF-8 text") from None
    except ValueError as exc:
        raise ApplicationError(str(exc)) from None
    if not questions:
        raise ApplicationError(f"{filename}: no questions")
    labelled = [q for q in questions if q.label is not None]
    if labelled and len(labelled) != len(questions):
        raise ApplicationError(
            f"{filename}: {len(labelled)} of {len(questions)} questions have a label; give all or none"
        )
    questions = _line_number_ids(questions=questions, filename=filename, labelled=bool(labelled))
    with transaction.atomic():
        test_set = phase_test_set_store(
            phase=phase,
            subtask=subtask,
            question_ids=[q.id for q in questions],
            source_name=filename,
            source_sha256=hashlib.sha256(data).hexdigest(),
        )
        if labelled:
            gold_store(test_set=test_set, labels={q.id: q.label for q in questions}, source_name=filename)
        else:
            GoldAnswers.objects.filter(test_set=test_set).delete()  # new questions: old gold is void
        public_questions_write(test_set=test_set, questions=questions)
    return test_set, bool(labelled)


def _line_number_ids(*, questions: list[Question], filename: str, labelled: bool) -> list[Question]:
    """The Data page's rule: a question's id is its 0-based line number.

    A labelled file whose ids differ (a generated set from which questions were dropped, a validated
    subset) is renumbered: its gold comes from the same lines, so nothing can disagree. An unlabelled
    one is refused, since its gold, uploaded later by id, would no longer match.
    """
    wrong = next((i for i, q in enumerate(questions) if q.id != i), None)
    if wrong is None:
        return questions
    if not labelled:
        raise ApplicationError(
            f"{filename}: question {wrong + 1} has id {questions[wrong].id}, not its 0-based line number "
            f"{wrong}: renumber the ids 0, 1, 2, ... (or include the labels and the platform renumbers them)"
        )
    return [dataclasses.replace(q, id=i) for i, q in enumerate(questions)]


def _recam_only(phase: Phase) -> None:
    if phase.competition.task_format != DEFAULT_FORMAT:
        name = phase.competition.get_task_format_display()
        raise ApplicationError(f"a {name} competition loads its test set with the format test-set form")


def format_test_set_upload(*, phase: Phase, data: bytes, filename: str, official: bool) -> str:
    """Load a CLOTH or SCDE phase's test set uploaded in the console and re-score the phase, through the
    same service as ``recam_format_test_set``; returns its one-line report.

    ``official``: the format's published layout (an SCDE split, a CLOTH passage file, or a .zip of
    CLOTH's folder), else this platform's jsonl. Every record is checked before anything is stored: a
    bad one is reported with the uploaded file's name (and the member's, in a zip) and its line or
    field, and the phase keeps its test set, gold and participants' file as they were.
    """
    name = _safe_name(filename)
    is_zip = data[:4] == b"PK\x03\x04"
    if is_zip and not (official and phase_format(phase=phase).name == "cloth"):
        raise ApplicationError(
            f"{name}: a .zip is read only as CLOTH's published folder layout (choose that layout); "
            "upload a jsonl file or an SCDE split as it is"
        )
    if not is_zip:
        try:
            data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ApplicationError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    with tempfile.TemporaryDirectory() as folder:
        path = _unzip(data, Path(folder) / Path(name).stem, name) if is_zip else Path(folder) / name
        if not is_zip:
            path.write_bytes(data)
        try:
            return format_test_set_load_and_rescore(phase=phase, path=path, official=official)
        except ApplicationError as exc:
            raise ApplicationError(exc.message.replace(folder + os.sep, "")) from None


def _safe_name(filename: str) -> str:
    """The uploaded file's own name (no folders), safe as a file name; what errors name."""
    base = PurePosixPath(filename.replace("\\", "/")).name
    cleaned = "".join(c if c.isalnum() or c in "-_." else "_" for c in base).lstrip(".")
    return cleaned[:120] or "upload"


def _unzip(data: bytes, target: Path, name: str) -> Path:
    """Extract a zip's ``.json`` members under ``target`` (bounded; no path outside it)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise ApplicationError(f"{name}: not a readable zip file") from None
    with archive:
        members = [m for m in archive.infolist() if not m.is_dir() and m.filename.lower().endswith(".json")]
        if len(members) > MAX_ZIP_MEMBERS or sum(m.file_size for m in members) > MAX_UNZIPPED_BYTES:
            raise ApplicationError(f"{name}: more than {MAX_ZIP_MEMBERS:,} files or 200 MiB unpacked")
        for member in members:
            parts = PurePosixPath(member.filename.replace("\\", "/")).parts
            if member.filename.startswith("/") or ".." in parts:
                raise ApplicationError(f"{name}: member {member.filename!r} points outside the archive")
            destination = target.joinpath(*parts)
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(archive.read(member))
    if not members:
        raise ApplicationError(f"{name}: the zip holds no .json file (CLOTH's layout: one .json per passage)")
    return target


def public_questions_write(*, test_set: TestSet, questions: list[Question]) -> Path:
    """The questions WITHOUT labels, as participants download them (gold never leaves GOLD_ROOT)."""
    target = public_questions_path(test_set=test_set)
    target.parent.mkdir(parents=True, exist_ok=True)
    unlabelled = [
        Question(id=q.id, article=q.article, question=q.question, options=q.options) for q in questions
    ]
    partial = target.with_name(target.name + ".partial")
    write_questions(partial, unlabelled)
    partial.replace(target)
    return target


def gold_load_upload(*, phase: Phase, subtask: int, data: bytes, filename: str) -> GoldAnswers:
    """Load gold labels uploaded in the console (labelled .jsonl or id,label .csv) and re-score the phase,
    through the same service as ``recam_gold``."""
    _recam_only(phase)
    suffix = ".jsonl" if filename.lower().endswith(".jsonl") else ".csv"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / (Path(filename).stem + suffix)
        path.write_bytes(data)
        return gold_load_and_rescore(phase=phase, subtask=subtask, path=path)


def submissions_rescore(*, phase: Phase, ids: list[int]) -> int:
    chosen = list(Submission.objects.filter(phase=phase, pk__in=ids))
    for submission in chosen:
        submission_requeue(submission=submission)
    return len(chosen)


def submissions_mark_failed(*, phase: Phase, ids: list[int], reason: str) -> int:
    chosen = list(Submission.objects.filter(phase=phase, pk__in=ids))
    for submission in chosen:
        submission_mark_failed(submission=submission, reason=reason or "marked failed by the organizers")
    return len(chosen)


def phase_close_and_freeze(*, phase: Phase, frozen_by: str, now: dt.datetime | None = None) -> OfficialResult:
    """The organizer's confirmed freeze: close the phase to uploads (if it is still open), then freeze.

    One transaction: a refused freeze leaves the phase open as it was.
    """
    now = now or timezone.now()
    with transaction.atomic():
        if phase.ends_at is None or phase.ends_at > now:
            phase.ends_at = max(now, phase.starts_at)
            Phase.objects.filter(pk=phase.pk).update(ends_at=phase.ends_at)
        return official_result_freeze(phase=phase, frozen_by=frozen_by)
