from django.core.management.base import BaseCommand, CommandError

from competitions.errors import ApplicationError
from competitions.management.commands._common import PHASE_KINDS, get_phase
from leaderboards.services import official_result_freeze


class Command(BaseCommand):
    help = (
        "Freeze a phase's official results: an immutable snapshot of each team's counted submission "
        "with its scores, the scorer version, each gold file's sha256 and the time."
    )

    def add_arguments(self, parser):
        parser.add_argument("--phase", required=True, choices=PHASE_KINDS)
        parser.add_argument("--competition", default=None)
        parser.add_argument("--by", default="", help="who froze it (recorded)")

    def handle(self, *args, phase: str, competition: str | None, by: str, **options):
        phase_obj = get_phase(slug=competition, kind=phase)
        try:
            result = official_result_freeze(phase=phase_obj, frozen_by=by)
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        rows = result.rows.count()
        self.stdout.write(
            f"froze {phase_obj.kind} at {result.frozen_at:%Y-%m-%d %H:%M:%S} UTC: official result {result.pk}, "
            f"{rows} rows, scorer {result.scorer_version}, gold "
            + ", ".join(f"subtask {k} {v[:12]}" for k, v in sorted(result.gold_sha256.items()))
        )
        if phase_obj.results_hidden:
            self.stdout.write(f"results are still hidden: recam_publish --phase {phase_obj.kind} shows them")
