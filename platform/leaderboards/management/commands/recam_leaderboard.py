from django.core.management.base import BaseCommand, CommandError

from competitions.management.commands._common import PHASE_KINDS, get_phase
from leaderboards.exports import board_csv, board_json
from leaderboards.format_board import format_board, format_export_meta, format_metric_keys, phase_board_latex
from leaderboards.official import official_result_latest, official_tables
from leaderboards.selectors import leaderboard_tables
from recam.stats import TEST_NAME as RANK_TEST


def _points(value: float | None, half_width: float | None) -> str:
    """'80.9 ±2.6' (accuracy and half its 95% interval, in points), '80.9' without an interval, '-'."""
    if value is None:
        return "-"
    return f"{100 * value:.1f}" + ("" if half_width is None else f" ±{100 * half_width:.1f}")


class Command(BaseCommand):
    help = (
        "Print a phase's leaderboard (one table per test set, as in the task paper's Tables 6-7): "
        "the live board, or with --frozen the latest official snapshot (recam_freeze)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--phase", required=True, choices=PHASE_KINDS)
        parser.add_argument("--format", choices=["table", "csv", "json", "latex"], default="table")
        parser.add_argument("--frozen", action="store_true", help="the latest frozen official results")
        parser.add_argument("--competition", default=None)

    def handle(self, *args, phase: str, competition: str | None, frozen: bool, **options):
        phase_obj = get_phase(slug=competition, kind=phase)
        subtasks = list(phase_obj.test_sets.values_list("subtask", flat=True))
        meta = {"competition": phase_obj.competition.slug, "phase": phase_obj.kind}
        if frozen:
            result = official_result_latest(phase=phase_obj)
            if result is None:
                raise CommandError(f"the {phase} phase has no frozen results: run recam_freeze first")
            tables = official_tables(result=result)
            meta |= {
                "frozen_at": result.frozen_at.isoformat(),
                "counted_policy": result.counted_policy,
                "scorer_version": result.scorer_version,
                "gold_sha256": result.gold_sha256,
            }
        else:
            tables = leaderboard_tables(phase=phase_obj, subtasks=subtasks, with_submissions=True)
            meta |= {"frozen_at": None, "counted_policy": phase_obj.counted_policy}
        about = format_export_meta(phase=phase_obj)  # the format's scorer version (and CLOTH / SCDE metrics)
        meta.setdefault("scorer_version", about["scorer_version"])  # a snapshot keeps its own
        meta |= {key: value for key, value in about.items() if key != "scorer_version"}
        keys = format_metric_keys(phase=phase_obj)  # CLOTH, SCDE: every metric per row
        format_ = options["format"]
        if format_ == "json":
            self.stdout.write(board_json(tables=tables, meta=meta, metric_keys=keys), ending="")
        elif format_ == "csv":
            self.stdout.write(board_csv(tables=tables, metric_keys=keys), ending="")
        elif format_ == "latex":
            self.stdout.write(
                phase_board_latex(phase=phase_obj, tables=tables, frozen=bool(frozen)), ending=""
            )
        elif (board := format_board(phase=phase_obj, tables=tables)) is not None:
            self._format_table(phase_obj, board)
        else:
            self._table(phase_obj, tables)

    def _format_table(self, phase, board) -> None:
        """A CLOTH or SCDE board: a column per metric (the headline first, with its interval), the chance row."""
        labels = [metric.label for metric in board.metrics]
        for format_table in board.tables:
            rows = format_table.rows
            self.stdout.write(f"\n{board.title} ({phase.title})")
            names = [r.row.team + (" (baseline)" if r.row.is_baseline else "") for r in rows]
            width = max([30, *(len(name) for name in names)])
            self.stdout.write(
                f"{'Rank':>5}  {'Team':<{width}} " + "  ".join(f"{label:>13}" for label in labels)
            )
            for format_row, team in zip(rows, names, strict=True):
                row = format_row.row
                rank = "-" if row.rank is None else f"{row.rank}{'=' if row.rank_tied_with else ''}"
                headline, *rest = format_row.cells
                if row.accuracy_half_width is not None and headline != "-":
                    headline += f" ±{100 * row.accuracy_half_width:.2f}"
                cells = "  ".join(f"{c:>13}" for c in (headline, *rest))
                self.stdout.write(f"{rank:>5}  {team:<{width}} {cells}")
            if not rows:
                self.stdout.write("       (no scored submissions yet)")
            if board.chance:
                cells = "  ".join(f"{c:>13}" for c in board.chance)
                self.stdout.write(f"{'-':>5}  {'Chance':<{width}} {cells}")
            if any(r.row.accuracy_lo is not None for r in rows):
                self.stdout.write(f"       ±: half the 95% bootstrap interval over {board.interval_over}")
            if any(r.row.rank_test for r in rows):
                self.stdout.write(f"       =: rank shared with statistically tied teams ({RANK_TEST})")

    def _table(self, phase, tables) -> None:
        for table in tables:
            self.stdout.write(f"\n{table.title} ({phase.title})")
            names = [row.team + (" (baseline)" if row.is_baseline else "") for row in table.rows]
            width = max([30, *(len(name) for name in names)])
            self.stdout.write(f"{'Rank':>5}  {'Team':<{width}} {'Acc':>11}  Acc. Cross")
            for row, team in zip(table.rows, names, strict=True):
                rank = "-" if row.rank is None else f"{row.rank}{'=' if row.rank_tied_with else ''}"
                acc = _points(row.accuracy, row.accuracy_half_width)
                cross = _points(row.cross_accuracy, row.cross_half_width)
                if row.drop is not None:
                    cross += f" ({'↓' if row.drop >= 0 else '↑'} {abs(100 * row.drop):.1f})"
                self.stdout.write(f"{rank:>5}  {team:<{width}} {acc:>11}  {cross}")
            if not table.rows:
                self.stdout.write("       (no scored submissions yet)")
            if any(row.accuracy_lo is not None or row.cross_accuracy_lo is not None for row in table.rows):
                self.stdout.write("       ±: half the 95% bootstrap interval over questions")
            if any(row.rank_test for row in table.rows):
                self.stdout.write(f"       =: rank shared with statistically tied teams ({RANK_TEST})")
