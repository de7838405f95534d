"""What an upload must fit: the phase's window, and the quotas per team per phase (per UTC day and in
total), reserved atomically.

The reservation takes a per-(team, phase) lock with a conditional UPDATE as the first statement of the
upload's transaction: PostgreSQL locks that row until the commit, SQLite takes its write lock. Under
the lock the used counts are read from the team's submissions (failed ones excluded, invalid uploads
never stored), so of N simultaneous uploads exactly the remaining number get in.
"""

import datetime as dt
from dataclasses import dataclass

from competitions.errors import ApplicationError
from competitions.models import Phase
from submissions.models import Submission
from teams.models import Team


class QuotaExceeded(ApplicationError):
    """An upload refused because the team used its submissions for the day or the phase."""


@dataclass(frozen=True)
class QuotaStatus:
    daily_limit: int | None  # None: unlimited
    daily_used: int
    total_limit: int | None
    total_used: int
    resets_at: dt.datetime  # next 00:00 UTC

    @property
    def daily_left(self) -> int | None:
        return None if self.daily_limit is None else max(self.daily_limit - self.daily_used, 0)

    @property
    def total_left(self) -> int | None:
        return None if self.total_limit is None else max(self.total_limit - self.total_used, 0)

    @property
    def left(self) -> int | None:
        """Uploads still accepted now (None: unlimited)."""
        lefts = [n for n in (self.daily_left, self.total_left) if n is not None]
        return min(lefts) if lefts else None

    def as_dict(self) -> dict:
        return {
            "left": self.left,
            "daily_limit": self.daily_limit,
            "daily_used": self.daily_used,
            "daily_left": self.daily_left,
            "total_limit": self.total_limit,
            "total_used": self.total_used,
            "total_left": self.total_left,
            "resets_at": self.resets_at.isoformat(),
        }


def upload_window_check(*, phase: Phase, at: dt.datetime) -> None:
    """Refuse an upload outside the phase's window (organizers' forced uploads skip this)."""
    if at < phase.starts_at:
        raise ApplicationError(
            f"the {phase.title} phase is not open for submissions: it opens at "
            f"{phase.starts_at:%Y-%m-%d %H:%M} UTC; it is {at:%Y-%m-%d %H:%M:%S} UTC"
        )
    if phase.ends_at is not None and at >= phase.ends_at:
        raise ApplicationError(
            f"the {phase.title} phase is not open for submissions: it closed at "
            f"{phase.ends_at:%Y-%m-%d %H:%M} UTC; it is {at:%Y-%m-%d %H:%M:%S} UTC"
        )


def utc_day_start(*, at: dt.datetime) -> dt.datetime:
    at = at.astimezone(dt.UTC)
    return at.replace(hour=0, minute=0, second=0, microsecond=0)


def quota_status(*, team: Team, phase: Phase, at: dt.datetime) -> QuotaStatus:
    """What the team has used and has left in the phase at the instant ``at`` (UTC days)."""
    day_start = utc_day_start(at=at)
    counted = Submission.objects.filter(team=team, phase=phase).exclude(status=Submission.Status.FAILED)
    total_used = counted.count() if phase.max_submissions_total is not None else 0
    daily_used = (
        counted.filter(received_at__gte=day_start).count() if phase.max_submissions_per_day is not None else 0
    )
    return QuotaStatus(
        daily_limit=phase.max_submissions_per_day,
        daily_used=daily_used,
        total_limit=phase.max_submissions_total,
        total_used=total_used,
        resets_at=day_start + dt.timedelta(days=1),
    )


def quota_reserve(*, team: Team, phase: Phase, at: dt.datetime) -> QuotaStatus:
    """Under the lock (see ``submissions.services.quota_lock``): refuse with QuotaExceeded if nothing is left, else go on."""
    status = quota_status(team=team, phase=phase, at=at)
    if status.total_left == 0:
        raise QuotaExceeded(
            f"your team has used all {status.total_limit} submissions of the {phase.title} phase; "
            "failed and invalid uploads do not count"
        )
    if status.daily_left == 0:
        raise QuotaExceeded(
            f"your team has used its {status.daily_limit} submissions for today (UTC) in the {phase.title} "
            f"phase; the quota resets at {status.resets_at:%Y-%m-%d %H:%M} UTC"
        )
    return status
