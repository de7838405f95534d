"""The reaper: submissions stuck in queued or scoring are re-queued, or failed after too many tries.

A worker killed mid-scoring, a Redis that lost its queue or a task that hit its time limit leaves a
submission queued or scoring for ever (the most common complaint on CodaLab, Codabench and EvalAI). Celery beat
runs ``tasks.reaper.reap_stuck_submissions`` every REAPER_INTERVAL_SECONDS; it calls
``submissions.services.submissions_reap`` (the writes); this module holds what that decides by.
Scoring is idempotent, so a re-queued submission whose old task shows up after all is scored once:
the later run finds it finished and leaves it as it is.
"""

import datetime as dt
from dataclasses import dataclass

from django.db.models import Q

from submissions.models import Submission

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
