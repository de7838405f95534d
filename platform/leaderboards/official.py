"""Official results, reads: the latest frozen snapshot of a phase and its tables (writes: leaderboards.services)."""

from competitions.models import Phase, Subtask
from leaderboards.models import OfficialResult, OfficialResultRow
from leaderboards.selectors import LeaderboardRow, LeaderboardTable, shared_row_values


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
        **shared_row_values(row),
        system_name=row.system_name,
        submission_id=row.submission_id_frozen,
        submission_sha256=row.submission_sha256,
        cross_submission_id=row.cross_submission_id_frozen,
        rank_tied_with=tuple(row.rank_tied_with or ()),
        rank_test=row.rank_test,
    )
