"""Official results: freeze a phase's board into an immutable snapshot, publish a phase, read a snapshot."""

from collections.abc import Collection

from django.db import transaction
from django.utils import timezone

from competitions.errors import ApplicationError
from competitions.models import GoldAnswers, Phase, Subtask
from leaderboards.models import LeaderboardEntry, OfficialResult, OfficialResultRow
from leaderboards.selectors import LeaderboardRow, LeaderboardTable, leaderboard_tables
from leaderboards.services import leaderboard_refresh
from recam.metrics import SCORER_VERSION
from submissions.models import Score, Submission
from teams.models import Team


def leaderboard_refresh_phase(*, phase: Phase) -> int:
    """Rewrite every team's rows (after a policy change); returns the number of teams."""

    team_ids = set(Submission.objects.filter(phase=phase).values_list("team_id", flat=True))
    team_ids |= set(LeaderboardEntry.objects.filter(phase=phase).values_list("team_id", flat=True))
    for team in Team.objects.filter(pk__in=team_ids):
        leaderboard_refresh(phase=phase, team=team)
    return len(team_ids)


def phase_settings_changed(*, phase: Phase, changed: Collection[str]) -> None:
    """After an organizer edits a phase: a new counted policy or fact-sheet rule rewrites the board at once."""
    if {"counted_policy", "fact_sheet_required"} & set(changed):
        leaderboard_refresh_phase(phase=phase)


def official_result_freeze(*, phase: Phase, frozen_by: str = "") -> OfficialResult:
    """Snapshot the counted submission per team with its scores, the scorer version and the gold sha256s.

    Refused if a counted score was computed by another scorer version or against other gold answers
    than the ones stored now (re-score first). Freezing again makes a new snapshot; none is ever edited.
    """

    with transaction.atomic():
        leaderboard_refresh_phase(phase=phase)
        gold = {
            str(g.test_set.subtask): g.sha256
            for g in GoldAnswers.objects.filter(test_set__phase=phase).select_related("test_set")
        }
        subtasks = sorted(int(s) for s in gold)
        if not subtasks:
            raise ApplicationError(f"the {phase.title} phase has no gold answers yet: nothing to freeze")
        tables = leaderboard_tables(phase=phase, subtasks=subtasks, with_submissions=True)
        stale = Score.objects.filter(submission__phase=phase, submission__status="scored").exclude(
            scorer_version=SCORER_VERSION
        )
        for subtask, sha in gold.items():
            stale = stale | Score.objects.filter(
                submission__phase=phase, submission__status="scored", test_subtask=int(subtask)
            ).exclude(gold_sha256=sha)
        if stale.exists():
            raise ApplicationError(
                f"{stale.count()} scores were computed with another scorer version or other gold answers: "
                "re-score the phase (recam_gold re-scores it) before freezing"
            )
        result = OfficialResult.objects.create(
            phase=phase,
            frozen_at=timezone.now(),
            counted_policy=phase.counted_policy,
            scorer_version=SCORER_VERSION,
            gold_sha256=gold,
            frozen_by=frozen_by,
        )
        OfficialResultRow.objects.bulk_create(
            _frozen_row(result, table.subtask, position, row)
            for table in tables
            if table.subtask in subtasks
            for position, row in enumerate(table.rows)
        )
    return result


def _frozen_row(
    result: OfficialResult, subtask: int, position: int, row: LeaderboardRow
) -> OfficialResultRow:
    return OfficialResultRow(
        result=result,
        test_subtask=subtask,
        position=position,
        rank=row.rank,
        team_name=row.team,
        is_baseline=row.is_baseline,
        system_name=row.system_name,
        submission_id_frozen=row.submission_id,
        submission_sha256=row.submission_sha256,
        accuracy=row.accuracy,
        correct=row.correct,
        total=row.total,
        submitted_at=row.submitted_at,
        cross_submission_id_frozen=row.cross_submission_id,
        cross_accuracy=row.cross_accuracy,
        cross_correct=row.cross_correct,
        cross_total=row.cross_total,
        entries=row.entries,
        accuracy_lo=row.accuracy_lo,
        accuracy_hi=row.accuracy_hi,
        cross_accuracy_lo=row.cross_accuracy_lo,
        cross_accuracy_hi=row.cross_accuracy_hi,
        drop_lo=row.drop_lo,
        drop_hi=row.drop_hi,
        rank_tied_with=list(row.rank_tied_with),
        rank_test=row.rank_test,
    )


def official_result_latest(*, phase: Phase) -> OfficialResult | None:
    return OfficialResult.objects.filter(phase=phase).order_by("-frozen_at", "-id").first()


def official_tables(*, result: OfficialResult) -> list[LeaderboardTable]:
    """The frozen board in the same shape as the live one (one query)."""
    rows = list(result.rows.order_by("test_subtask", "position"))
    subtasks = sorted({int(s) for s in result.gold_sha256} | {r.test_subtask for r in rows})
    return [
        LeaderboardTable(
            subtask=subtask,
            title=Subtask(subtask).label,
            cross_from=3 - subtask,
            rows=tuple(_live_row(r) for r in rows if r.test_subtask == subtask),
        )
        for subtask in subtasks
    ]


def _live_row(row: OfficialResultRow) -> LeaderboardRow:
    return LeaderboardRow(
        rank=row.rank,
        team=row.team_name,
        is_baseline=row.is_baseline,
        accuracy=row.accuracy,
        correct=row.correct,
        total=row.total,
        submitted_at=row.submitted_at,
        cross_accuracy=row.cross_accuracy,
        cross_correct=row.cross_correct,
        cross_total=row.cross_total,
        entries=row.entries,
        system_name=row.system_name,
        submission_id=row.submission_id_frozen,
        submission_sha256=row.submission_sha256,
        cross_submission_id=row.cross_submission_id_frozen,
        accuracy_lo=row.accuracy_lo,
        accuracy_hi=row.accuracy_hi,
        cross_accuracy_lo=row.cross_accuracy_lo,
        cross_accuracy_hi=row.cross_accuracy_hi,
        drop_lo=row.drop_lo,
        drop_hi=row.drop_hi,
        rank_tied_with=tuple(row.rank_tied_with or ()),
        rank_test=row.rank_test,
    )


def phase_publish(*, phase: Phase, publish: bool = True) -> Phase:
    """Show (or hide again) a phase's results: scores on pages, API and CLI, and the (frozen) board."""
    Phase.objects.filter(pk=phase.pk).update(results_hidden=not publish)
    phase.results_hidden = not publish
    return phase
