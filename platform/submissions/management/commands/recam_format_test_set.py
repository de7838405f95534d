from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from competitions.errors import ApplicationError
from competitions.management.commands._common import PHASE_KINDS, get_phase
from submissions.task_formats import format_test_set_load_and_rescore


class Command(BaseCommand):
    help = (
        "Load a CLOTH or SCDE competition's test set (with answers: its gold too) from the format's jsonl, "
        "or with --official from the published layout; re-score the phase (docs/reference/task-formats.md)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--phase", required=True, choices=PHASE_KINDS)
        parser.add_argument("--competition", default=None)
        parser.add_argument(
            "--official", action="store_true", help="a published CLOTH file or folder, or SCDE split"
        )
        parser.add_argument("path", type=Path)

    def handle(self, *args, phase: str, competition: str | None, official: bool, path: Path, **options):
        if not path.exists():
            raise CommandError(f"{path} does not exist")
        phase_obj = get_phase(slug=competition, kind=phase)
        try:
            self.stdout.write(format_test_set_load_and_rescore(phase=phase_obj, path=path, official=official))
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
