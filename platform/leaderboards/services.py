"""Writes: materialise a team's leaderboard rows for a phase (called whenever a score is written)."""

from competitions.models import Phase
from leaderboards.counting import Candidate, counted_per_slot
from leaderboards.models import LeaderboardEntry
from teams.models import Team


def leaderboard_refresh(*, phase: Phase, team: Team) -> list[LeaderboardEntry]:
    """Rewrite the team's rows from its counted scored submissions ("Acc" and "Acc. Cross" per test set).

    The phase's policy picks the counted one per slot (``leaderboards.counting``): best (highest
    accuracy, then the earliest submission), the team's selection (default: the last) or the last.
    Only scored submissions count.
    """
    from submissions.models import Score, Submission

    scores = {
        score.pk: score
        for score in Score.objects.filter(
            submission__team=team, submission__phase=phase, submission__status=Submission.Status.SCORED
        ).select_related("submission")
    }
    candidates = [
        Candidate(
            submission_id=score.pk,  # the score row stands in for its submission: one per slot
            slot=(score.test_subtask, score.is_cross),
            received_at=score.submission.received_at,
            selected_at=score.submission.selected_at,
            accuracy=score.accuracy,
        )
        for score in scores.values()
    ]
    counted = counted_per_slot(policy=phase.counted_policy, candidates=candidates)
    best: dict[tuple[int, bool], Score] = {slot: scores[c.submission_id] for slot, c in counted.items()}
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
