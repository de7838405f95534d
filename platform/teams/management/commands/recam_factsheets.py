from django.core.management.base import BaseCommand

from competitions.management.commands._common import PHASE_KINDS, get_phase
from leaderboards.factsheets import fact_sheets_csv, fact_sheets_json, fact_sheets_latex

RENDER = {"csv": fact_sheets_csv, "json": fact_sheets_json, "latex": fact_sheets_latex}


class Command(BaseCommand):
    help = (
        "Export the fact sheets of the teams on a phase's board (the latest official results if frozen): "
        'CSV, JSON or the task paper\'s LaTeX "participating systems" table.'
    )

    def add_arguments(self, parser):
        parser.add_argument("--phase", required=True, choices=PHASE_KINDS)
        parser.add_argument("--format", choices=list(RENDER), default="csv")
        parser.add_argument("--competition", default=None)

    def handle(self, *args, phase: str, competition: str | None, **options):
        phase_obj = get_phase(slug=competition, kind=phase)
        self.stdout.write(RENDER[options["format"]](phase=phase_obj), ending="")
