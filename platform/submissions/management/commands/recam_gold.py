from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from competitions.errors import ApplicationError
from competitions.management.commands._common import PHASE_KINDS, get_phase
from submissions.services import gold_load_and_rescore


class Command(BaseCommand):
    help = "Load gold labels for a phase's test set from a labelled jsonl or an id,label csv; re-score."

    def add_arguments(self, parser):
        parser.add_argument("--phase", required=True, choices=PHASE_KINDS)
        parser.add_argument("--subtask", required=True, type=int, choices=[1, 2])
        parser.add_argument("--competition", default=None)
        parser.add_argument("file", type=Path)

    def handle(self, *args, phase: str, subtask: int, competition: str | None, file: Path, **options):
        if not file.is_file():
            raise CommandError(f"{file} does not exist")
        phase_obj = get_phase(slug=competition, kind=phase)
        try:
            gold = gold_load_and_rescore(phase=phase_obj, subtask=subtask, path=file)
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(
            f"{phase}: subtask {subtask}: {gold.num_labels:,} gold labels, sha256 {gold.sha256}"
        )
