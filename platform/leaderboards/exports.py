"""Exports of a board (live or frozen) as CSV, JSON and LaTeX in the layout of the paper's Tables 6 and 7.

A CLOTH or SCDE board's CSV and JSON add its format's metrics (``metric_keys``: BA, PA, DE per row); its
LaTeX has one column per metric and the chance row (``format_board_latex``).
"""

import csv
import io
import json
from collections.abc import Sequence

from accounts.names import csv_row
from leaderboards.selectors import LeaderboardRow, LeaderboardTable

FORMATS = {"csv": "text/csv", "json": "application/json", "latex": "application/x-latex"}
EXTENSIONS = {"csv": "csv", "json": "json", "latex": "tex"}
FIELDS = ["test_subtask", "rank", "team", "baseline", "system_name", "accuracy", "correct", "total"]
FIELDS += ["accuracy_cross", "correct_cross", "total_cross", "drop", "entries", "submitted_at"]
FIELDS += ["submission_sha256"]
FIELDS += ["accuracy_lo", "accuracy_hi", "accuracy_cross_lo", "accuracy_cross_hi", "drop_lo", "drop_hi"]
FIELDS += ["rank_tied_with", "rank_test"]
_LATEX_ESCAPES = {c: "\\" + c for c in "&%$#_{}"} | {
    "~": r"\textasciitilde{}",
    "^": r"\^{}",
    "\\": r"\textbackslash{}",
}


def board_fields(*, metric_keys: Sequence[str] = ()) -> list[str]:
    """The CSV columns: ReCAM's, then a CLOTH or SCDE format's metrics not among them (BA, PA, DE)."""
    return FIELDS + [key for key in metric_keys if key not in FIELDS]


def board_records(*, tables: Sequence[LeaderboardTable], metric_keys: Sequence[str] = ()) -> list[dict]:
    """One record per row; with ``metric_keys`` (a CLOTH or SCDE board) each carries its format's metrics."""
    return [_record(table.subtask, row, metric_keys) for table in tables for row in table.rows]


def _record(subtask: int, row: LeaderboardRow, metric_keys: Sequence[str] = ()) -> dict:
    record = _recam_record(subtask, row)
    if metric_keys:
        record |= {key: row.metrics.get(key) for key in metric_keys if key not in FIELDS}
        record["metrics"] = {key: row.metrics.get(key) for key in metric_keys}
    return record


def _recam_record(subtask: int, row: LeaderboardRow) -> dict:
    return {
        "test_subtask": subtask,
        "rank": row.rank,
        "team": row.team,
        "baseline": row.is_baseline,
        "system_name": row.system_name,
        "accuracy": row.accuracy,
        "correct": row.correct,
        "total": row.total,
        "accuracy_cross": row.cross_accuracy,
        "correct_cross": row.cross_correct,
        "total_cross": row.cross_total,
        "drop": row.drop,
        "entries": row.entries,
        "submitted_at": row.submitted_at.isoformat() if row.submitted_at else None,
        "submission_sha256": row.submission_sha256,
        "accuracy_lo": row.accuracy_lo,
        "accuracy_hi": row.accuracy_hi,
        "accuracy_cross_lo": row.cross_accuracy_lo,
        "accuracy_cross_hi": row.cross_accuracy_hi,
        "drop_lo": row.drop_lo,
        "drop_hi": row.drop_hi,
        "rank_tied_with": list(row.rank_tied_with),
        "rank_test": row.rank_test,
    }


def board_csv(*, tables: Sequence[LeaderboardTable], metric_keys: Sequence[str] = ()) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(
        out, fieldnames=board_fields(metric_keys=metric_keys), lineterminator="\n", extrasaction="ignore"
    )
    writer.writeheader()
    for record in board_records(tables=tables, metric_keys=metric_keys):
        writer.writerow(csv_row({**record, "rank_tied_with": "; ".join(record["rank_tied_with"])}))
    return out.getvalue()


def board_json(*, tables: Sequence[LeaderboardTable], meta: dict, metric_keys: Sequence[str] = ()) -> str:
    rows = board_records(tables=tables, metric_keys=metric_keys)
    return json.dumps({**meta, "rows": rows}, indent=2) + "\n"


def latex_escape(text: str) -> str:
    r"""
    >>> latex_escape("ReCAM@IITK_2 & co")
    'ReCAM@IITK\\_2 \\& co'
    """
    return "".join(_LATEX_ESCAPES.get(c, c) for c in text)


def _points(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _with_interval(value: float | None, half_width: float | None) -> str:
    if value is None or half_width is None:
        return _points(value)
    return f"{_points(value)}$\\pm${100 * half_width:.1f}"


def _latex_rank(row: LeaderboardRow) -> str:
    if row.rank is None:
        return "-"
    return f"{row.rank}$^{{=}}$" if row.rank_tied_with else str(row.rank)


def latex_cross(row: LeaderboardRow) -> str:
    r"""Acc. Cross as the paper prints it: ``91.8 ($\downarrow$3.3)``; ``-`` where absent."""
    if row.cross_accuracy is None:
        return "-"
    if row.drop is None:
        return _with_interval(row.cross_accuracy, row.cross_half_width)
    arrow = r"$\downarrow$" if row.drop >= 0 else r"$\uparrow$"
    cross = _with_interval(row.cross_accuracy, row.cross_half_width)
    return f"{cross} ({arrow}{abs(100 * row.drop):.1f})"


def board_latex(*, tables: Sequence[LeaderboardTable], caption_prefix: str = "Official results") -> str:
    """One ``table`` per test set: Rank, Team, Acc, Acc. Cross; baselines on top with rank "-"."""
    parts = []
    for table in tables:
        lines = [
            r"\begin{table}[t]",
            r"\centering",
            r"\begin{tabular}{clcc}",
            r"\hline",
            r"Rank & Team & Acc & Acc. Cross \\",
            r"\hline",
        ]
        for row in table.rows:
            accuracy = _with_interval(row.accuracy, row.accuracy_half_width)
            cells = [_latex_rank(row), latex_escape(row.team), accuracy, latex_cross(row)]
            lines.append(" & ".join(cells) + r" \\")
        lines += [
            r"\hline",
            r"\end{tabular}",
            rf"\caption{{{caption_prefix} of Subtask {table.subtask} and Subtask 3. Acc: trained on the "
            rf"Subtask {table.subtask} training data; Acc. Cross: trained on the Subtask {table.cross_from} "
            rf"training data, tested on the Subtask {table.subtask} test set.{_footnote(table)}}}",
            r"\end{table}",
        ]
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def format_board_latex(*, board, caption_prefix: str = "Official results") -> str:
    """A CLOTH or SCDE board (``leaderboards.format_board.FormatBoard``): Rank, Team, one column per
    metric (the headline first, with its interval), baselines with rank "-", the chance row last."""
    labels = [latex_escape(metric.label) for metric in board.metrics]
    parts = []
    for format_table in board.tables:
        lines = [
            r"\begin{table}[t]",
            r"\centering",
            r"\begin{tabular}{cl" + "c" * len(labels) + "}",
            r"\hline",
            " & ".join(["Rank", "Team", *labels]) + r" \\",
            r"\hline",
        ]
        for format_row in format_table.rows:
            row = format_row.row
            headline, *rest = format_row.cells
            if row.accuracy_half_width is not None and headline != "-":
                headline = f"{headline}$\\pm${100 * row.accuracy_half_width:.2f}"
            lines.append(" & ".join([_latex_rank(row), latex_escape(row.team), headline, *rest]) + r" \\")
        if board.chance:
            lines += [r"\hline", " & ".join(["-", "Chance", *board.chance]) + r" \\"]
        described = "; ".join(
            f"{latex_escape(m.label)}: {latex_escape(m.description)}" for m in board.metrics
        )
        lines += [
            r"\hline",
            r"\end{tabular}",
            rf"\caption{{{caption_prefix} ({latex_escape(board.title)}). {described}.{_footnote(format_table.table, board.interval_over)}}}",
            r"\end{table}",
        ]
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def _footnote(table: LeaderboardTable, over: str = "questions") -> str:
    """The caption's note on the statistics, when the table carries them (``over``: what is resampled)."""
    notes = []
    if any(row.accuracy_lo is not None or row.cross_accuracy_lo is not None for row in table.rows):
        notes.append(rf" $\pm$: half the 95\% percentile bootstrap interval over {over} (1,000 resamples).")
    tests = {row.rank_test for row in table.rows if row.rank_test}
    if tests:
        notes.append(
            " Rank: 1 + the number of teams significantly better by the "
            + latex_escape(", ".join(sorted(tests)))
            + r" ($\alpha=0.05$); $^{=}$: rank shared with statistically tied teams."
        )
    return "".join(notes)
