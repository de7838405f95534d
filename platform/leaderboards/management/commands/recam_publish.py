from django.core.management.base import BaseCommand

from competitions.management.commands._common import PHASE_KINDS, get_phase
from leaderboards.official import official_result_latest
from leaderboards.services import phase_publish


class Command(BaseCommand):
    help = "Publish a phase's results (scores and board become visible; the frozen board if there is one)."

    def add_arguments(self, parser):
        parser.add_argument("--phase", required=True, choices=PHASE_KINDS)
        parser.add_argument("--competition", default=None)
        parser.add_argument("--hide", action="store_true", help="hide the results again")

    def handle(self, *args, phase: str, competition: str | None, hide: bool, **options):
        phase_obj = phase_publish(phase=get_phase(slug=competition, kind=phase), publish=not hide)
        if hide:
            self.stdout.write(f"{phase_obj.kind}: results hidden")
            return
        frozen = official_result_latest(phase=phase_obj)
        shown = f"the frozen board of {frozen.frozen_at:%Y-%m-%d %H:%M} UTC" if frozen else "the live board"
        self.stdout.write(f"{phase_obj.kind}: results published; the leaderboard shows {shown}")
