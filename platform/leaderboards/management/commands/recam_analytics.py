from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from competitions.management.commands._common import PHASE_KINDS, get_phase
from leaderboards.analytics import QualityReportError, analytics_csv, phase_analytics, quality_report_parse


class Command(BaseCommand):
    help = (
        "Per-question analytics of a test set (share correct, option pick rates, point-biserial, 2PL IRT, "
        "flags) as CSV, optionally joined with the question-quality report JSON of `python -m datagen quality`."
    )

    def add_arguments(self, parser):
        parser.add_argument("--phase", required=True, choices=PHASE_KINDS)
        parser.add_argument("--subtask", type=int, choices=[1, 2], required=True)
        parser.add_argument("--quality", type=Path, default=None, help="quality report JSON (optional)")
        parser.add_argument("--out", type=Path, default=None, help="CSV file (default: standard output)")
        parser.add_argument("--competition", default=None)
        parser.add_argument(
            "--baselines", action="store_true", help="include the baseline rows (left out by default)"
        )

    def handle(self, *args, phase: str, subtask: int, quality: Path | None, out: Path | None, **options):
        phase_obj = get_phase(slug=options["competition"], kind=phase)
        report = None
        if quality is not None:
            try:
                report = quality_report_parse(data=quality.read_bytes(), name=str(quality))
            except (OSError, QualityReportError) as exc:
                raise CommandError(str(exc)) from exc
        analytics, skipped = phase_analytics(phase=phase_obj, subtask=subtask, baselines=options["baselines"])
        if analytics is None:
            raise CommandError(f"the {phase} phase has no answers per question for Subtask {subtask} yet")
        text = analytics_csv(analytics=analytics, quality=report)
        if out is None:
            self.stdout.write(text, ending="")
        else:
            out.write_text(text, encoding="utf-8")
            flagged = sum(bool(q.flags) for q in analytics.questions)
            self.stderr.write(
                f"{out}: {len(analytics.questions)} questions, {len(analytics.teams)} teams "
                f"({skipped} left out), {flagged} flagged"
            )
