from pathlib import Path

from django.core.management.base import BaseCommand

from competitions.management.commands._common import PHASE_KINDS, get_phase
from leaderboards.selectors import phase_counted_submission_ids
from submissions.downloads import phase_submissions_zip


class Command(BaseCommand):
    help = "Write every submission of a phase to a zip with manifest.csv (team, time, sha256, status, scores, counted)."

    def add_arguments(self, parser):
        parser.add_argument("--phase", required=True, choices=PHASE_KINDS)
        parser.add_argument("--competition", default=None)
        parser.add_argument("--out", type=Path, required=True, help="the zip to write")

    def handle(self, *args, phase: str, competition: str | None, out: Path, **options):
        phase_obj = get_phase(slug=competition, kind=phase)
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_name(out.name + ".partial")
        counted = phase_counted_submission_ids(phase=phase_obj)
        with partial.open("wb") as handle:
            count = phase_submissions_zip(phase=phase_obj, out=handle, counted=counted)
        partial.replace(out)  # never a half-written zip under the final name
        self.stdout.write(f"wrote {count} submissions of {phase_obj.kind} to {out}")
