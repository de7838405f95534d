"""Reads: the board of a CLOTH or SCDE phase: every metric of its format per row, and the chance row.

The rows are the live or frozen board's (``leaderboards.selectors`` / ``leaderboards.official``), ranked
by the format's headline metric (stored as the score's ``accuracy``); the other metrics come from the
counted submissions' score rows, the chance row from the test set's slots (``recam.formats``).
"""

from dataclasses import dataclass

from competitions.models import Phase
from competitions.task_formats import format_slots, format_test_set_get
from leaderboards.selectors import LeaderboardRow, LeaderboardTable
from recam.formats import DEFAULT_FORMAT, Metric, get_format
from submissions.models import Score

COUNT_METRICS = {"distractor_error"}  # shown as a number per passage, not as a percentage


@dataclass(frozen=True)
class FormatRow:
    row: LeaderboardRow
    cells: tuple[str, ...]  # one per metric, in the format's order


@dataclass(frozen=True)
class FormatTable:
    table: LeaderboardTable
    rows: tuple[FormatRow, ...]


@dataclass(frozen=True)
class FormatBoard:
    title: str
    metrics: tuple[Metric, ...]
    tables: tuple[FormatTable, ...]
    chance: tuple[str, ...]  # the chance row's cells; empty while the phase has no test set


def cell(metric: str, value: float | None) -> str:
    """A metric as the board shows it: percentages with two decimals, a count with three; None -> '-'."""
    if value is None:
        return "-"
    return f"{value:.3f}" if metric in COUNT_METRICS else f"{100 * value:.2f}"


def format_board(*, phase: Phase, tables: list[LeaderboardTable]) -> FormatBoard | None:
    """The board of a multi-blank phase; None for ReCAM, whose board is the paper's tables."""
    if phase.competition.task_format == DEFAULT_FORMAT:
        return None
    fmt = get_format(phase.competition.task_format)
    ids = {row.submission_id for table in tables for row in table.rows if row.submission_id}
    metrics = dict(Score.objects.filter(submission_id__in=ids).values_list("submission_id", "metrics"))
    keys = [m.key for m in fmt.metrics]
    format_tables = tuple(
        FormatTable(
            table=table,
            rows=tuple(
                FormatRow(
                    row=row, cells=tuple(cell(k, metrics.get(row.submission_id, {}).get(k)) for k in keys)
                )
                for row in table.rows
            ),
        )
        for table in tables
    )
    test_set = format_test_set_get(phase=phase)
    chance = fmt.chance_of_slots(format_slots(test_set=test_set)) if test_set and test_set.slots else {}
    return FormatBoard(
        title=fmt.title,
        metrics=fmt.metrics,
        tables=format_tables,
        chance=tuple(cell(k, chance.get(k)) for k in keys) if chance else (),
    )
