from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from competitions.errors import ApplicationError
from competitions.services import competition_load_recam


class Command(BaseCommand):
    help = "Create or update (idempotent) the ReCAM competition from the official data layout."

    def add_arguments(self, parser):
        parser.add_argument(
            "--data", required=True, type=Path, help="folder with training_data/ and test_data/"
        )
        parser.add_argument("--slug", default=None, help="competition slug (default: RECAM_COMPETITION_SLUG)")

    def handle(self, *args, data: Path, slug: str | None, **options):
        try:
            report = competition_load_recam(data_dir=data, slug=slug)
        except (ApplicationError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        for message in report.messages:
            self.stdout.write(message)
