"""Writes: materialise a team's leaderboard rows for a phase (called whenever a score is written)."""

from competitions.models import Phase
from leaderboards.models import LeaderboardEntry
from teams.models import Team


def leaderboard_refresh(*, phase: Phase, team: Team) -> list[LeaderboardEntry]:
    """Rewrite the team's rows: best same-subtask score ("Acc") and best cross score per test subtask.

    Best = highest accuracy, then the earliest submission. Only scored submissions count.
    """
    from submissions.models import Score, Submission

    scores = (
        Score.objects.filter(
            submission__team=team, submission__phase=phase, submission__status=Submission.Status.SCORED
        )
        .select_related("submission")
        .order_by("-accuracy", "submission__received_at", "submission_id")
    )
    best: dict[tuple[int, bool], Score] = {}
    for score in scores:
        best.setdefault((score.test_subtask, score.is_cross), score)
    entries = []
    for subtask in sorted({key[0] for key in best}):
        same, cross = best.get((subtask, False)), best.get((subtask, True))
        entry, _ = LeaderboardEntry.objects.update_or_create(
            phase=phase,
            test_subtask=subtask,
            team=team,
            defaults={
                "team_name": team.name,
                "is_baseline": team.is_baseline,
                **_fields(same, prefix=""),
                **_fields(cross, prefix="cross_"),
            },
        )
        entries.append(entry)
    LeaderboardEntry.objects.filter(phase=phase, team=team).exclude(
        test_subtask__in=[e.test_subtask for e in entries]
    ).delete()
    return entries


def _fields(score, *, prefix: str) -> dict:
    return {
        f"{prefix}submission": score.submission if score else None,
        f"{prefix}accuracy": score.accuracy if score else None,
        f"{prefix}correct": score.correct if score else None,
        f"{prefix}total": score.total if score else None,
        f"{prefix}submitted_at": score.submission.received_at if score else None,
    }
