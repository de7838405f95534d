"""Reads for the submission page: the place in the scoring queue and the phase's median time to score."""

import statistics
from dataclasses import asdict, dataclass

from django.db.models import Q

from submissions.models import Submission

Status = Submission.Status
RECENT_SCORED = 50  # the median is over the phase's last this many scored submissions


@dataclass(frozen=True)
class QueueInfo:
    position: int | None  # 1 = scored next (or being scored); None once the submission left the queue
    ahead: int | None  # submissions queued or scoring before it
    median_seconds_to_score: float | None  # upload to score, over the phase's recent scored ones
    median_over: int  # how many scored submissions the median is taken over

    def as_dict(self) -> dict:
        return asdict(self)


def submission_queue_position(*, submission: Submission) -> tuple[int | None, int | None]:
    """(position, ahead) among all submissions waiting for the one scoring queue, oldest first."""
    if submission.status == Status.SCORING:
        return 1, 0
    if submission.status != Status.QUEUED or submission.queued_at is None:
        return None, None
    before = Q(queued_at__lt=submission.queued_at) | Q(queued_at=submission.queued_at, pk__lt=submission.pk)
    ahead = (
        Submission.objects.filter(status__in=(Status.QUEUED, Status.SCORING))
        .filter(before | Q(status=Status.SCORING))
        .exclude(pk=submission.pk)
        .count()
    )
    return ahead + 1, ahead


def phase_median_seconds_to_score(*, phase_id: int, recent: int = RECENT_SCORED) -> tuple[float | None, int]:
    """Median seconds from upload to score over the phase's last ``recent`` scored submissions."""
    rows = (
        Submission.objects.filter(phase_id=phase_id, status=Status.SCORED, finished_at__isnull=False)
        .order_by("-finished_at")
        .values_list("received_at", "finished_at")[:recent]
    )
    durations = [(finished - received).total_seconds() for received, finished in rows]
    return (round(statistics.median(durations), 3) if durations else None), len(durations)


def submission_queue_info(*, submission: Submission) -> QueueInfo:
    position, ahead = submission_queue_position(submission=submission)
    median, over = phase_median_seconds_to_score(phase_id=submission.phase_id)
    return QueueInfo(position=position, ahead=ahead, median_seconds_to_score=median, median_over=over)
