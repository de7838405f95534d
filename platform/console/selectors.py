"""Reads for the organizers' console: phase overviews, the hidden board preview, recent submissions."""

import datetime as dt
from dataclasses import dataclass

from django.db.models import Count

from competitions.models import Competition, Phase
from leaderboards.selectors import LeaderboardTable, leaderboard_tables
from submissions.models import Submission


def phase_overview(*, competition: Competition) -> list[dict]:
    """Each phase with its test sets (gold or not) and its submissions counted by status."""
    counts: dict[int, dict[str, int]] = {}
    rows = (
        Submission.objects.filter(phase__competition=competition)
        .values("phase_id", "status")
        .annotate(n=Count("id"))
    )
    for row in rows:
        counts.setdefault(row["phase_id"], {})[row["status"]] = row["n"]
    phases = Phase.objects.filter(competition=competition).prefetch_related("test_sets__gold")
    return [{"phase": phase, "statuses": counts.get(phase.pk, {})} for phase in phases]


def missing_phase_kinds(*, competition: Competition) -> list[tuple[str, str]]:
    have = set(Phase.objects.filter(competition=competition).values_list("kind", flat=True))
    return [(kind, label) for kind, label in Phase.Kind.choices if kind not in have]


def phase_preview_tables(*, phase: Phase) -> list[LeaderboardTable]:
    """The live board as it would be published (hidden phases included), with system names."""
    subtasks = [ts.subtask for ts in phase.test_sets.all()]
    return leaderboard_tables(phase=phase, subtasks=subtasks, with_submissions=True)


def phase_recent_submissions(*, phase: Phase, limit: int = 200):
    return (
        Submission.objects.filter(phase=phase)
        .select_related("team")
        .prefetch_related("scores")
        .order_by("-received_at")[:limit]
    )


@dataclass(frozen=True)
class FreezeChecks:
    """What a freeze would leave out or change: shown on the confirmation page."""

    waiting_gold: int  # valid submissions of a subtask whose gold answers are not loaded
    in_progress: int  # received, queued or being scored: not on the board yet
    subtasks_without_gold: list[int]
    subtasks_official: list[int]
    closes_now: bool  # the phase still takes uploads; the freeze closes it

    @property
    def all_final(self) -> bool:
        return not (self.waiting_gold or self.in_progress or self.subtasks_without_gold)


def phase_freeze_checks(*, phase: Phase, now: dt.datetime) -> FreezeChecks:
    statuses = dict(
        Submission.objects.filter(phase=phase).values_list("status").annotate(n=Count("id")).order_by()
    )
    busy = (Submission.Status.RECEIVED, Submission.Status.QUEUED, Submission.Status.SCORING)
    test_sets = list(phase.test_sets.select_related("gold").order_by("subtask"))
    with_gold = [ts.subtask for ts in test_sets if hasattr(ts, "gold")]
    return FreezeChecks(
        waiting_gold=statuses.get(Submission.Status.WAITING_GOLD, 0),
        in_progress=sum(statuses.get(s, 0) for s in busy),
        subtasks_without_gold=[ts.subtask for ts in test_sets if ts.subtask not in with_gold],
        subtasks_official=with_gold,
        closes_now=phase.ends_at is None or phase.ends_at > now,
    )
