"""Writes: materialise a team's leaderboard rows for a phase (called whenever a score is written)."""

from competitions.models import Phase
from leaderboards.counting import Candidate, counted_per_slot
from leaderboards.intervals import leaderboard_statistics_refresh
from leaderboards.models import LeaderboardEntry
from submissions.models import Score, Submission
from teams.factsheets import fact_sheet_is_complete
from teams.models import Team


def leaderboard_refresh(*, phase: Phase, team: Team) -> list[LeaderboardEntry]:
    """Rewrite the team's rows from its counted scored submissions ("Acc" and "Acc. Cross" per test set).

    The phase's policy picks the counted one per slot (``leaderboards.counting``): best (highest
    accuracy, then the earliest submission), the team's selection (default: the last) or the last.
    Only scored submissions count.
    """

    # The team's row lock serialises two refreshes of one team (two of its submissions scored at once),
    # so the second reads the first one's committed score. NO KEY: uploads inserting rows that point at
    # the team are not blocked. A no-op outside a transaction and on SQLite (writers are serialised).
    Team.objects.select_for_update(no_key=True).filter(pk=team.pk).exists()
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
    if phase.fact_sheet_required and not team.is_baseline and not _has_fact_sheet(team):
        counted = {}  # the phase requires a complete fact sheet before the team's result counts
    best: dict[tuple[int, bool], Score] = {slot: scores[c.submission_id] for slot, c in counted.items()}
    entries_count = len({score.submission_id for score in scores.values()})  # "Entries": scored uploads
    entries = [
        LeaderboardEntry(
            phase=phase,
            test_subtask=subtask,
            team=team,
            team_name=team.name,
            is_baseline=team.is_baseline,
            entries=entries_count,
            **_fields(best.get((subtask, False)), prefix=""),
            **_fields(best.get((subtask, True)), prefix="cross_"),
        )
        for subtask in sorted({key[0] for key in best})
    ]
    if entries:  # one upsert on the (phase, test subtask, team) constraint
        LeaderboardEntry.objects.bulk_create(
            entries,
            update_conflicts=True,
            unique_fields=["phase", "test_subtask", "team"],
            update_fields=ENTRY_FIELDS,
        )
    LeaderboardEntry.objects.filter(phase=phase, team=team).exclude(
        test_subtask__in=[e.test_subtask for e in entries]
    ).delete()
    leaderboard_statistics_refresh(phase=phase)
    return entries


def _has_fact_sheet(team: Team) -> bool:
    return fact_sheet_is_complete(team=team)


ENTRY_FIELDS = [
    "team_name",
    "is_baseline",
    "entries",
    *(
        f"{prefix}{name}"
        for prefix in ("", "cross_")
        for name in ("submission", "accuracy", "correct", "total", "submitted_at")
    ),
    "updated_at",
]


def _fields(score, *, prefix: str) -> dict:
    return {
        f"{prefix}submission": score.submission if score else None,
        f"{prefix}accuracy": score.accuracy if score else None,
        f"{prefix}correct": score.correct if score else None,
        f"{prefix}total": score.total if score else None,
        f"{prefix}submitted_at": score.submission.received_at if score else None,
    }
