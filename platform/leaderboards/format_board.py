"""Reads: the board of a CLOTH or SCDE phase: every metric of its format per row, and the chance row.

The rows are the live or frozen board's (``leaderboards.selectors`` / ``leaderboards.official``), ranked
by the format's headline metric (stored as the score's ``accuracy``), with its interval and tied ranks
(``leaderboards.intervals``); every metric is carried by the row (``metrics``, copied from the counted
score and kept by the freeze), the chance row comes from the test set's slots (``recam.formats``).
"""

from dataclasses import dataclass

from competitions.models import Phase
from competitions.task_formats import format_slots, format_test_set_get
from leaderboards.exports import board_latex, format_board_latex
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
    interval_over: str = "blanks"  # what the headline's bootstrap interval resamples


def cell(metric: str, value: float | None) -> str:
    """A metric as the board shows it: percentages with two decimals, a count with three; None -> '-'."""
    if value is None:
        return "-"
    return f"{value:.3f}" if metric in COUNT_METRICS else f"{100 * value:.2f}"


def format_metric_keys(*, phase: Phase) -> tuple[str, ...]:
    """The metrics the exports of a CLOTH or SCDE board carry per row; none for ReCAM (its export is unchanged)."""
    if phase.competition.task_format == DEFAULT_FORMAT:
        return ()
    return tuple(m.key for m in get_format(phase.competition.task_format).metrics)


def format_export_meta(*, phase: Phase) -> dict:
    """The JSON export's header: the scorer version of the phase's format; for CLOTH / SCDE its metrics."""
    fmt = get_format(phase.competition.task_format)
    if fmt.name == DEFAULT_FORMAT:
        return {"scorer_version": fmt.scorer_version}
    metrics = [{"key": m.key, "label": m.label, "higher_is_better": m.higher_is_better} for m in fmt.metrics]
    return {"scorer_version": fmt.scorer_version, "task_format": fmt.name, "metrics": metrics}


def phase_board_latex(*, phase: Phase, tables: list[LeaderboardTable], frozen: bool) -> str:
    """The board as LaTeX: the paper's Tables 6-7 for ReCAM, a column per metric and the chance row for CLOTH
    and SCDE; captioned "Official results" when frozen."""
    prefix = "Official results" if frozen else "Results"
    board = format_board(phase=phase, tables=tables)
    if board is None:
        return board_latex(tables=tables, caption_prefix=prefix)
    return format_board_latex(board=board, caption_prefix=prefix)


def format_board(*, phase: Phase, tables: list[LeaderboardTable]) -> FormatBoard | None:
    """The board of a multi-blank phase; None for ReCAM, whose board is the paper's tables."""
    if phase.competition.task_format == DEFAULT_FORMAT:
        return None
    fmt = get_format(phase.competition.task_format)
    metrics = _row_metrics(tables)
    keys = [m.key for m in fmt.metrics]
    format_tables = tuple(
        FormatTable(
            table=table,
            rows=tuple(
                FormatRow(row=row, cells=tuple(cell(k, metrics(row).get(k)) for k in keys))
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
        interval_over=fmt.interval_over,
    )


def _row_metrics(tables: list[LeaderboardTable]):
    """Each row's metrics: carried by the row (live and frozen boards); a row frozen before rows carried
    them falls back to its submission's score (one query, only then)."""
    missing = {r.submission_id for t in tables for r in t.rows if r.submission_id and not r.metrics}
    stored = (
        dict(Score.objects.filter(submission_id__in=missing).values_list("submission_id", "metrics"))
        if missing
        else {}
    )

    def metrics(row: LeaderboardRow) -> dict:
        return dict(row.metrics) or stored.get(row.submission_id, {})

    return metrics
