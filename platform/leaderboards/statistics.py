"""Writes: ask for a phase's statistics recompute, and run it once per burst (the statistics task calls this).

A score change calls ``statistics_request`` inside its transaction; after the commit, one short
statement counts the change (``PhaseStatistics.requested``) and another claims the phase's one
pending task (``scheduled_at``): only the change that claims it sends the task, with a countdown, so
a burst of changes from any number of workers or machines queues one task. The task waits until the
phase has been quiet for RECAM_STATISTICS_QUIET_SECONDS (at most RECAM_STATISTICS_MAX_WAIT_SECONDS
after it was queued), releases the claim, and recomputes from one snapshot (``intervals``). A change
that lands while it computes claims a new task, so the last change of a burst is always computed.
"""

import datetime as dt
import logging

from celery import current_app
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from competitions.retry import retry_on_conflict
from leaderboards.intervals import leaderboard_statistics_refresh
from leaderboards.models import PhaseStatistics

logger = logging.getLogger(__name__)
STATISTICS_TASK = "leaderboards.statistics"  # tasks/statistics.py defines it; sent by name
STALE_CLAIM = dt.timedelta(minutes=5)  # a claim older than this lost its task (worker killed): claim again


def _quiet() -> dt.timedelta:
    return dt.timedelta(seconds=getattr(settings, "RECAM_STATISTICS_QUIET_SECONDS", 1.0))


def _max_wait() -> dt.timedelta:
    return dt.timedelta(seconds=getattr(settings, "RECAM_STATISTICS_MAX_WAIT_SECONDS", 5.0))


def _eager() -> bool:
    return bool(current_app.conf.task_always_eager)


def statistics_request(*, phase_id: int) -> None:
    """Ask for a recompute once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: statistics_requested(phase_id=phase_id))


def statistics_requested(*, phase_id: int) -> None:
    """Count one change and queue the phase's task unless one is queued already (two short statements)."""

    def count_and_claim() -> bool:
        now = timezone.now()
        with transaction.atomic():
            count = PhaseStatistics.objects.filter(phase_id=phase_id)
            if not count.update(requested=F("requested") + 1, requested_at=now):  # the phase's first change
                PhaseStatistics.objects.bulk_create(
                    [PhaseStatistics(phase_id=phase_id)], ignore_conflicts=True
                )
                count.update(requested=F("requested") + 1, requested_at=now)
            return _claim(phase_id, now)

    try:
        claimed = retry_on_conflict(count_and_claim, what="statistics request")
    except Exception:  # the score is committed; a failed request must not fail its caller
        logger.exception("phase %s: could not ask for a statistics recompute", phase_id)
        return
    if claimed:
        _send(phase_id, countdown=_quiet().total_seconds())


def _claim(phase_id: int, now: dt.datetime) -> bool:
    unclaimed = Q(scheduled_at__isnull=True) | Q(scheduled_at__lt=now - STALE_CLAIM)
    return bool(PhaseStatistics.objects.filter(unclaimed, phase_id=phase_id).update(scheduled_at=now))


def _send(phase_id: int, *, countdown: float) -> None:
    queue = settings.CELERY_SCORING_QUEUE  # the scoring workers run it, close to the scores
    signature = current_app.signature(STATISTICS_TASK, args=[phase_id], queue=queue)
    signature.apply_async(countdown=None if _eager() else max(0.0, countdown))


def statistics_run(*, phase_id: int) -> str:
    """The task's body: wait for a quiet moment, then recompute once. Returns what it did."""
    state = PhaseStatistics.objects.filter(phase_id=phase_id).first()
    if state is None:
        return "no statistics row"
    now = timezone.now()
    if not _eager() and state.requested_at and state.scheduled_at:
        quiet_left = state.requested_at + _quiet() - now
        if quiet_left > dt.timedelta(0) and now < state.scheduled_at + _max_wait():
            _send(phase_id, countdown=quiet_left.total_seconds())  # the burst goes on: wait for it
            return "deferred"
    PhaseStatistics.objects.filter(phase_id=phase_id).update(scheduled_at=None)  # changes from now queue anew
    if state.computed >= state.requested and state.recomputes:
        return "current"
    written = leaderboard_statistics_refresh(phase_id=phase_id)
    if written < 0:  # another recompute wrote first: make sure the latest change is computed
        _ensure_current(phase_id)
        return "superseded"
    return f"version {state.recomputes + 1}: {written} rows"


def _ensure_current(phase_id: int) -> None:
    state = PhaseStatistics.objects.filter(phase_id=phase_id).first()
    if state and state.updating and _claim(phase_id, timezone.now()):
        _send(phase_id, countdown=0)


def statistics_lock_shared(*, phase_id: int) -> None:
    """In a transaction that writes the board: hold off a freeze (FOR KEY SHARE, blocks no other writer)."""
    if connection.vendor != "postgresql":
        return  # SQLite serialises writers already
    table = PhaseStatistics._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT 1 FROM {table} WHERE phase_id = %s FOR KEY SHARE", [phase_id])
        if cursor.fetchone() is None:
            PhaseStatistics.objects.bulk_create([PhaseStatistics(phase_id=phase_id)], ignore_conflicts=True)
            cursor.execute(f"SELECT 1 FROM {table} WHERE phase_id = %s FOR KEY SHARE", [phase_id])


def statistics_lock_exclusive(*, phase_id: int) -> None:
    """For the freeze: wait for the board's writers in flight and hold new ones until the commit."""
    PhaseStatistics.objects.bulk_create([PhaseStatistics(phase_id=phase_id)], ignore_conflicts=True)
    PhaseStatistics.objects.select_for_update().filter(phase_id=phase_id).exists()
