"""Reads for the organizers' console: phase overviews, the hidden board preview, recent submissions."""

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
