"""Reads for the submission page: the place in the scoring queue and the phase's median time to score."""

import math
import statistics
import threading
import time
from dataclasses import asdict, dataclass

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from submissions.models import Submission

Status = Submission.Status
RECENT_SCORED = 50  # the median is over the phase's last this many scored submissions
# The medians behind the ETA are kept per web process for this many seconds (RECAM_QUEUE_MEDIAN_SECONDS):
# every poll of a waiting submission and every upload's answer needs them, and under a burst two queries
# over the last 50 scored per request cost more than the poll itself (benchmark (b)). An estimate a
# second or two old is as good; the place in the queue is still counted on every request.
_MEDIANS: dict[int, tuple[float, tuple[float | None, int], float | None]] = {}
_MEDIANS_LOCK = threading.Lock()


@dataclass(frozen=True)
class QueueInfo:
    position: int | None  # 1 = scored next (or being scored); None once the submission left the queue
    ahead: int | None  # submissions queued or scoring before it
    median_seconds_to_score: float | None  # upload to score, over the phase's recent scored ones
    median_over: int  # how many scored submissions the median is taken over
    # Estimated seconds until this submission is scored, while it waits (None once it left the queue or
    # before anything was scored): ``queue_eta_seconds``.
    eta_seconds: float | None = None
    median_seconds_scoring: float | None = None  # scoring start to finish, over recent scored ones

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


def median_seconds_scoring(*, recent: int = RECENT_SCORED) -> float | None:
    """Median seconds from scoring start to finish over the last ``recent`` scored submissions (one queue, all phases)."""
    rows = (
        Submission.objects.filter(
            status=Status.SCORED, finished_at__isnull=False, scoring_started_at__isnull=False
        )
        .order_by("-finished_at")
        .values_list("scoring_started_at", "finished_at")[:recent]
    )
    durations = [max(0.0, (finished - started).total_seconds()) for started, finished in rows]
    return round(statistics.median(durations), 3) if durations else None


def queue_eta_seconds(
    *, ahead: int | None, service_seconds: float | None, workers: int, elapsed_scoring: float | None = None
) -> float | None:
    """Seconds until scored: the submissions ahead and this one, ``workers`` at a time, each taking the median.

    A submission already scoring has the median minus what it has already spent (never below 0).

    >>> queue_eta_seconds(ahead=3, service_seconds=2.0, workers=2)
    4.0
    >>> queue_eta_seconds(ahead=0, service_seconds=2.0, workers=2, elapsed_scoring=0.5)
    1.5
    """
    if ahead is None or service_seconds is None:
        return None
    if elapsed_scoring is not None:
        return round(max(0.0, service_seconds - elapsed_scoring), 1)
    rounds = math.ceil((ahead + 1) / max(1, workers))
    return round(rounds * service_seconds, 1)


def queue_medians(*, phase_id: int) -> tuple[tuple[float | None, int], float | None]:
    """(``phase_median_seconds_to_score``, ``median_seconds_scoring``), reused for RECAM_QUEUE_MEDIAN_SECONDS."""
    keep = getattr(settings, "RECAM_QUEUE_MEDIAN_SECONDS", 2.0)
    now = time.monotonic()
    with _MEDIANS_LOCK:
        cached = _MEDIANS.get(phase_id)
    if cached is not None and now - cached[0] < keep:
        return cached[1], cached[2]
    phase_median, service = phase_median_seconds_to_score(phase_id=phase_id), median_seconds_scoring()
    with _MEDIANS_LOCK:
        _MEDIANS[phase_id] = (now, phase_median, service)
    return phase_median, service


def queue_medians_clear() -> None:
    """Forget the kept medians (tests: a rolled-back database hands the same phase ids out again)."""
    with _MEDIANS_LOCK:
        _MEDIANS.clear()


def submission_queue_info(*, submission: Submission) -> QueueInfo:
    position, ahead = submission_queue_position(submission=submission)
    (median, over), service = queue_medians(phase_id=submission.phase_id)
    service = service if position is not None else None
    elapsed = None
    if submission.status == Status.SCORING and submission.scoring_started_at is not None:
        elapsed = (timezone.now() - submission.scoring_started_at).total_seconds()
    workers = getattr(settings, "SCORING_WORKERS", 2)
    eta = queue_eta_seconds(ahead=ahead, service_seconds=service, workers=workers, elapsed_scoring=elapsed)
    return QueueInfo(
        position=position,
        ahead=ahead,
        median_seconds_to_score=median,
        median_over=over,
        eta_seconds=eta,
        median_seconds_scoring=service,
    )
