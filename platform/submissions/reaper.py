"""The reaper: submissions stuck in queued or scoring are re-queued, or failed after too many tries.

A worker killed mid-scoring, a Redis that lost its queue or a task that hit its time limit leaves a
submission queued or scoring for ever (the #1 complaint on CodaLab, Codabench and EvalAI). Celery beat
runs ``tasks.reaper.reap_stuck_submissions`` every REAPER_INTERVAL_SECONDS; it calls
``submissions_reap`` below. Scoring is idempotent, so a re-queued submission whose old task shows up
after all is scored once: the later run finds it finished and leaves it as it is.
"""

import datetime as dt
import logging
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from submissions.models import Submission
from submissions.services import submission_mark_failed, submission_requeue

logger = logging.getLogger(__name__)
Status = Submission.Status

# The start of every reason the reaper writes: the quota code and the pages recognise it by this.
INFRASTRUCTURE_FAILURE = "Infrastructure failure"


def infrastructure_failure_reason(*, attempts: int) -> str:
    return (
        f"{INFRASTRUCTURE_FAILURE}: scoring did not finish after {attempts} "
        f"attempt{'s' if attempts != 1 else ''} (a worker or the queue failed; your file is not the cause). "
        "This submission does not count against your team's quota: please upload the file again."
    )


def is_infrastructure_failure(*, submission: Submission) -> bool:
    return submission.status == Status.FAILED and submission.failure_reason.startswith(INFRASTRUCTURE_FAILURE)


@dataclass(frozen=True)
class ReapReport:
    requeued: tuple[int, ...]
    failed: tuple[int, ...]


def stuck_filter(*, now: dt.datetime, stuck_after: dt.timedelta) -> Q:
    """Queued or scoring since before ``now - stuck_after``, or scoring past its lease."""
    cutoff = now - stuck_after
    return (
        Q(status=Status.QUEUED, queued_at__lt=cutoff)
        | Q(status=Status.SCORING, scoring_started_at__lt=cutoff)
        | Q(status=Status.SCORING, lease_expires_at__lt=now)
    )


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
