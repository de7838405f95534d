import csv
import json

from django.core.management.base import BaseCommand

from competitions.management.commands._common import PHASE_KINDS, get_phase
from leaderboards.selectors import leaderboard_records, leaderboard_tables

FIELDS = ["test_subtask", "rank", "team", "baseline", "accuracy", "correct", "total"]
FIELDS += ["accuracy_cross", "correct_cross", "total_cross", "drop", "submitted_at"]


class Command(BaseCommand):
    help = "Print a phase's leaderboard (one table per test set, as in the task paper's Tables 6-7)."

    def add_arguments(self, parser):
        parser.add_argument("--phase", required=True, choices=PHASE_KINDS)
        parser.add_argument("--format", choices=["table", "csv", "json"], default="table")
        parser.add_argument("--competition", default=None)

    def handle(self, *args, phase: str, competition: str | None, **options):
        format_ = options["format"]
        phase_obj = get_phase(slug=competition, kind=phase)
        if format_ == "json":
            self.stdout.write(json.dumps(leaderboard_records(phase=phase_obj), indent=2))
        elif format_ == "csv":
            writer = csv.DictWriter(self.stdout, fieldnames=FIELDS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(leaderboard_records(phase=phase_obj))
        else:
            self._table(phase_obj)

    def _table(self, phase) -> None:
        subtasks = phase.test_sets.values_list("subtask", flat=True)
        for table in leaderboard_tables(phase=phase, subtasks=subtasks):
            self.stdout.write(f"\n{table.title} ({phase.title})")
            self.stdout.write(f"{'Rank':>4}  {'Team':<30} {'Acc':>6}  Acc. Cross")
            for row in table.rows:
                rank = "-" if row.rank is None else str(row.rank)
                acc = "-" if row.accuracy is None else f"{100 * row.accuracy:.1f}"
                cross = "-" if row.cross_accuracy is None else f"{100 * row.cross_accuracy:.1f}"
                if row.drop is not None:
                    cross += f" ({'↓' if row.drop >= 0 else '↑'} {abs(100 * row.drop):.1f})"
                team = row.team + (" (baseline)" if row.is_baseline else "")
                self.stdout.write(f"{rank:>4}  {team:<30} {acc:>6}  {cross}")
            if not table.rows:
                self.stdout.write("      (no scored submissions yet)")
