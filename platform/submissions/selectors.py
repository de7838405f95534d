"""Reads: a team's submissions and one submission, only for its members and organizers."""

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from submissions.models import Submission
from teams.models import Team


def submission_list_for_team(*, team: Team) -> QuerySet[Submission]:
    return (
        Submission.objects.filter(team=team)
        .select_related("phase")
        .prefetch_related("scores", "files")
        .order_by("-received_at", "-id")
    )


def submission_get_for_user(*, user: AbstractBaseUser, submission_id: int) -> Submission | None:
    """The submission if the user is in its team or an organizer (staff); otherwise None (a 404)."""
    if not user.is_authenticated:
        return None
    queryset = Submission.objects.select_related("phase__competition", "team").prefetch_related(
        "scores", "files"
    )
    if not user.is_staff:
        queryset = queryset.filter(team__memberships__user=user)
    return queryset.filter(pk=submission_id).first()


def submission_status(*, submission: Submission) -> dict:
    """The small JSON the submission page polls."""
    return {
        "id": submission.pk,
        "status": submission.status,
        "status_label": submission.get_status_display(),
        "done": submission.status in ("scored", "failed", "waiting"),
        "failure_reason": submission.failure_reason,
        "received_at": _iso(submission.received_at),
        "queued_at": _iso(submission.queued_at),
        "scoring_started_at": _iso(submission.scoring_started_at),
        "finished_at": _iso(submission.finished_at),
        "scores": [
            {
                "test_subtask": s.test_subtask,
                "trained_on": s.trained_on,
                "correct": s.correct,
                "total": s.total,
                "accuracy": s.accuracy,
                "scorer_version": s.scorer_version,
                "gold_sha256": s.gold_sha256,
            }
            for s in submission.scores.all()
        ],
    }


def _iso(value) -> str | None:
    return value.isoformat() if value else None
