"""Writes: validate and store an upload (quota lock), queue it (by task name), fail, re-queue or reap it. Scoring: scoring.py."""

import datetime as dt
import logging
from pathlib import Path

from celery import current_app
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from competitions.errors import ApplicationError
from competitions.models import GoldAnswers, Phase
from competitions.selectors import phase_expected_ids
from competitions.services import gold_load_file
from recam.formats import DEFAULT_FORMAT
from recam.submission import (
    Limits,
    ParsedSubmission,
    Problem,
    SubmissionError,
    ids_digest,
    parse_submission,
    predictions_to_choices,
)
from submissions.format_uploads import format_parse
from submissions.models import Score as ScoreRow
from submissions.models import Submission, SubmissionFile, TeamPhaseQuota
from submissions.quotas import quota_reserve, upload_window_check
from submissions.reaper import ReapReport, infrastructure_failure_reason, stuck_filter
from submissions.signals import team_results_changed
from teams.models import Team

logger = logging.getLogger(__name__)
Status = Submission.Status
TERMINAL = (Status.SCORED, Status.FAILED, Status.WAITING_GOLD)
# The Celery task names this app sends (tasks/ defines them; nothing here imports tasks/).
SCORE_TASK = "submissions.score"
REAP_TASK = "submissions.reap"


def submission_validate(
    *, phase: Phase, filename: str, data: bytes, size: int | None = None
) -> ParsedSubmission:
    """Parse an upload against the phase's test ids; raise SubmissionError listing every problem."""
    limit = settings.SUBMISSION_MAX_BYTES
    if size is not None and size > limit:  # refused before the bytes are read
        raise SubmissionError(
            [
                Problem(
                    filename, f"the file is {size / 2**20:.1f} MiB, over the limit of {limit / 2**20:.1f} MiB"
                )
            ]
        )
    parsed = format_parse(phase=phase, filename=filename, data=data, limits=Limits(max_bytes=limit))
    if parsed is not None:  # a CLOTH or SCDE competition (submissions.task_formats)
        return parsed
    return parse_submission(
        data=data,
        filename=filename,
        expected_ids=phase_expected_ids(phase=phase),
        limits=Limits(max_bytes=limit),
    )


def submission_create(
    *,
    phase: Phase,
    team: Team,
    filename: str,
    data: bytes,
    size: int | None = None,
    submitted_by: AbstractBaseUser | None = None,
    trained_on: dict[int, int] | None = None,
    system_name: str = "",
    description: str = "",
    force: bool = False,
) -> Submission:
    """Validate, store the file (with its sha256), then record and queue the submission on commit.

    Every path (form, API, command) decides at one instant, ``now`` (UTC): the phase window, the
    team's quota (reserved under a per-(team, phase) lock, see ``quota_lock``) and the
    received time. ``force`` (organizers only: baselines, files sent by email) skips window and quota.
    An invalid or refused upload raises and leaves nothing behind: no file, no row, no task.
    """
    if team.competition_id != phase.competition_id:
        raise ApplicationError(f"the team {team.name!r} is not in this competition")
    now = timezone.now()
    if not force:
        upload_window_check(phase=phase, at=now)
    parsed = submission_validate(phase=phase, filename=filename, data=data, size=size)
    trained = {f.subtask: (trained_on or {}).get(f.subtask, f.subtask) for f in parsed.files}
    # The validated labels are stored with the file rows, so scoring does not parse the upload again.
    choices = {f.subtask: ("", "") for f in parsed.files}  # CLOTH, SCDE: scoring parses the file
    if phase.competition.task_format != DEFAULT_FORMAT:  # CLOTH, SCDE: one test set, no cross scores
        trained = {f.subtask: f.subtask for f in parsed.files}
    else:
        choices = {
            f.subtask: (predictions_to_choices(f.predictions), ids_digest(f.predictions))
            for f in parsed.files
        }
    if any(value not in (1, 2) for value in trained.values()):
        raise ApplicationError("the trained-on subtask must be 1 or 2")
    submission = Submission(
        team=team,
        phase=phase,
        submitted_by=submitted_by,
        is_baseline=team.is_baseline,
        system_name=system_name.strip()[:100],
        description=description.strip(),
        original_filename=filename[:255],
        sha256=parsed.sha256,
        size=len(data),
        status=Status.QUEUED,  # written once, queued: the task is sent only if the transaction commits
        received_at=now,
    )
    if not force:
        quota_reserve(team=team, phase=phase, at=now)  # early refusal; decided again under the lock
    submission.file.save(filename.replace("/", "_")[-80:], ContentFile(data), save=False)
    try:
        try:
            files = _store(
                submission=submission, parsed=parsed, trained=trained, choices=choices, now=now, force=force
            )
        except _NoQuotaRow:  # the team's first upload in the phase: create the lock row, outside
            quota_row_ensure(team=team, phase=phase)
            files = _store(
                submission=submission, parsed=parsed, trained=trained, choices=choices, now=now, force=force
            )
    except Exception:
        submission.file.delete(save=False)
        raise
    # The new rows as a re-read would give them (its files, no scores yet): callers answering with the
    # submission (the API's 201) serialise it without querying it again.
    submission._prefetched_objects_cache = {
        "files": _cached(submission.files.all(), files),
        "scores": _cached(submission.scores.all(), []),
    }
    return submission


def quota_row_ensure(*, team: Team, phase: Phase) -> None:
    """Create the lock row if missing; call OUTSIDE the upload's transaction (its own, race-safe)."""
    TeamPhaseQuota.objects.get_or_create(team=team, phase=phase)


def quota_lock(*, team: Team, phase: Phase) -> bool:
    """Take the team's per-phase lock: the FIRST statement inside ``transaction.atomic()``; held until commit.

    A write first matters on SQLite: a transaction that read first cannot wait for the write lock.
    Returns False (nothing locked, nothing written) when the lock row does not exist yet: the caller
    leaves its transaction, runs ``quota_row_ensure`` and tries again. So only a team's first upload in a
    phase pays for the row's creation; later ones take the lock in one statement.
    """
    updated = TeamPhaseQuota.objects.filter(team=team, phase=phase).update(reservations=F("reservations") + 1)
    return updated == 1


class _NoQuotaRow(Exception):
    """The team's per-phase lock row is missing (see ``quota_lock``); nothing was written."""


def _store(
    *,
    submission: Submission,
    parsed: ParsedSubmission,
    trained: dict[int, int],
    choices: dict[int, tuple[str, str]],
    now: dt.datetime,
    force: bool,
) -> list[SubmissionFile]:
    """Reserve the quota under the team's lock and write the rows in one transaction; queue on commit."""
    team, phase = submission.team, submission.phase
    with transaction.atomic():
        if not force:
            if not quota_lock(team=team, phase=phase):  # the lock is the transaction's first statement
                raise _NoQuotaRow
            quota_reserve(team=team, phase=phase, at=now)
        submission.queued_at = timezone.now()
        submission.save()
        files = SubmissionFile.objects.bulk_create(
            SubmissionFile(
                submission=submission,
                name=f.name,
                subtask=f.subtask,
                trained_on=trained[f.subtask],
                sha256=f.sha256,
                num_predictions=len(f.predictions),
                choices=choices[f.subtask][0],
                ids_sha256=choices[f.subtask][1],
            )
            for f in parsed.files
        )
        _send(submission)
    return files


def _cached(queryset: QuerySet, rows: list) -> QuerySet:
    """``queryset`` already evaluated to ``rows`` (what ``prefetch_related`` stores), so reading it costs no query."""
    queryset._result_cache = list(rows)
    queryset._prefetch_done = True
    return queryset


def submission_select(*, submission: Submission, at: dt.datetime | None = None) -> Submission:
    """The team chooses this submission to count (phases whose policy is ``selected``)."""
    phase = submission.phase
    if phase.counted_policy != Phase.CountedPolicy.SELECTED:
        raise ApplicationError(
            f"in the {phase.title} phase the {phase.get_counted_policy_display().lower()} counts; "
            "there is nothing to choose"
        )
    if submission.status == Status.FAILED:
        raise ApplicationError("a failed submission cannot count; choose a valid one")
    at = at or timezone.now()
    if phase.ends_at is not None and at >= phase.ends_at:
        raise ApplicationError(f"the {phase.title} phase closed at {phase.ends_at:%Y-%m-%d %H:%M} UTC")
    with transaction.atomic():
        Submission.objects.filter(pk=submission.pk).update(selected_at=at)
        submission.selected_at = at
        team_results_changed.send(sender=Submission, phase=phase, team=submission.team)
    return submission


def _queue(submission: Submission) -> None:
    submission.status = Status.QUEUED
    submission.queued_at = timezone.now()
    submission.lease_expires_at = None
    submission.save(update_fields=["status", "queued_at", "lease_expires_at"])
    _send(submission)


def _send(submission: Submission) -> None:
    """Send the scoring task, by name, when the current transaction commits (never for a rolled-back row)."""
    submission_id, queue = submission.pk, settings.CELERY_SCORING_QUEUE
    signature = current_app.signature(SCORE_TASK, args=[submission_id], queue=queue)
    transaction.on_commit(signature.apply_async)  # by name: send_task, or the task itself where registered


def submission_mark_failed(*, submission: Submission, reason: str) -> Submission:
    with transaction.atomic():
        submission = (
            Submission.objects.select_for_update(of=("self",))
            .select_related("phase", "team")
            .get(pk=submission.pk)
        )
        submission.status = Status.FAILED
        submission.failure_reason = reason
        submission.finished_at = timezone.now()
        submission.lease_expires_at = None
        submission.save(update_fields=["status", "failure_reason", "finished_at", "lease_expires_at"])
        ScoreRow.objects.filter(submission=submission).delete()
        team_results_changed.send(sender=Submission, phase=submission.phase, team=submission.team)
    return submission


def submission_requeue(*, submission: Submission) -> Submission:
    """Queue a submission again (re-score after new gold, or an organizer's re-score action)."""
    with transaction.atomic():
        submission = Submission.objects.select_for_update().get(pk=submission.pk)
        submission.failure_reason = ""
        submission.save(update_fields=["failure_reason"])
        _queue(submission)
    return submission


def gold_load_and_rescore(*, phase: Phase, subtask: int, path: Path) -> GoldAnswers:
    """Load a test set's gold labels and re-queue the phase's scored and waiting submissions, at once."""
    with transaction.atomic():
        gold = gold_load_file(phase=phase, subtask=subtask, path=path)
        for submission in Submission.objects.filter(
            phase=phase, status__in=[Status.WAITING_GOLD, Status.SCORED]
        ):
            submission_requeue(submission=submission)
    return gold


def submissions_reap(
    *,
    now: dt.datetime | None = None,
    stuck_minutes: float | None = None,
    max_attempts: int | None = None,
) -> ReapReport:
    """Re-queue every stuck submission; fail those that used up ``max_attempts`` (settings by default)."""
    now = now or timezone.now()
    stuck_after = dt.timedelta(
        minutes=settings.STUCK_SUBMISSION_MINUTES if stuck_minutes is None else stuck_minutes
    )
    max_attempts = settings.SCORING_MAX_ATTEMPTS if max_attempts is None else max_attempts
    if max_attempts < 1:
        raise ValueError(f"SCORING_MAX_ATTEMPTS must be at least 1, not {max_attempts}")
    condition = stuck_filter(now=now, stuck_after=stuck_after)
    requeued, failed = [], []
    for submission_id in Submission.objects.filter(condition).order_by("id").values_list("id", flat=True):
        outcome = _reap_one(submission_id=submission_id, condition=condition, max_attempts=max_attempts)
        if outcome == "requeued":
            requeued.append(submission_id)
        elif outcome == "failed":
            failed.append(submission_id)
    if requeued or failed:
        logger.warning("reaper: re-queued %s, failed %s", requeued, failed)
    return ReapReport(requeued=tuple(requeued), failed=tuple(failed))


def _reap_one(*, submission_id: int, condition: Q, max_attempts: int) -> str | None:
    with transaction.atomic():
        # Checked again under the row lock: the worker may have moved it on since the list was read.
        submission = Submission.objects.select_for_update().filter(condition, pk=submission_id).first()
        if submission is None:
            return None
        if submission.status == Status.QUEUED:  # the task never started: that delivery was lost
            submission.attempts += 1
            submission.save(update_fields=["attempts"])
        if submission.attempts >= max_attempts:
            submission_mark_failed(
                submission=submission, reason=infrastructure_failure_reason(attempts=submission.attempts)
            )
            return "failed"
        submission_requeue(submission=submission)
        return "requeued"
