"""Reads of the token API: which phase a URL names, which submissions a user may see."""

from dataclasses import asdict

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.db.models import Count, Max, QuerySet
from django.http import Http404

from competitions.models import Phase
from competitions.selectors import phase_by_slug
from leaderboards.models import LeaderboardEntry
from leaderboards.selectors import leaderboard_tables
from submissions.models import Submission
from submissions.selectors import submission_list_for_team
from teams.models import Team


def is_organizer(*, user: AbstractBaseUser) -> bool:
    return bool(user.is_authenticated and user.is_staff)


def phase_for_api(*, kind: str, competition: str | None = None) -> Phase:
    """The phase ``kind`` of the competition (the site's ReCAM competition by default); 404 if none."""
    slug = competition or settings.RECAM_COMPETITION_SLUG
    phase = phase_by_slug(slug=slug, kind=kind)
    if phase is None:
        raise Http404(f"no phase {kind!r} in the competition {slug!r}")
    return phase


def submissions_for_api(
    *, user: AbstractBaseUser, competition: str | None = None, phase: str | None = None
) -> QuerySet[Submission]:
    """The user's team's submissions in the competition, newest first; organizers see every team's."""
    slug = competition or settings.RECAM_COMPETITION_SLUG
    if is_organizer(user=user):
        queryset = Submission.objects.filter(phase__competition__slug=slug).order_by("-received_at", "-id")
    else:
        team = Team.objects.filter(competition__slug=slug, memberships__user=user).first()
        if team is None:
            return Submission.objects.none()
        queryset = submission_list_for_team(team=team)
    if phase:
        queryset = queryset.filter(phase__kind=phase)
    return queryset.select_related("phase__competition", "team").prefetch_related("files", "scores")


def leaderboard_tables_json(*, phase: Phase) -> list[dict]:
    """The phase's leaderboard tables as JSON-ready dicts, cached until a leaderboard row changes.

    The rows are materialised when a score is written; the cache key is their count and latest
    ``updated_at`` (one indexed query), so a new score is visible on the next request.
    """
    version = LeaderboardEntry.objects.filter(phase=phase).aggregate(n=Count("id"), at=Max("updated_at"))
    stamp = version["at"].isoformat() if version["at"] else "-"
    key = f"api:leaderboard:{phase.pk}:{version['n']}:{stamp}"
    tables = cache.get(key)
    if tables is None:
        subtasks = [ts.subtask for ts in phase.test_sets.all()]
        tables = [
            {**asdict(table), "rows": [{**asdict(row), "drop": row.drop} for row in table.rows]}
            for table in leaderboard_tables(phase=phase, subtasks=subtasks)
        ]
        cache.set(key, tables, timeout=600)
    return tables
