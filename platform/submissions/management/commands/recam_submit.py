from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from competitions.errors import ApplicationError
from competitions.management.commands._common import PHASE_KINDS, get_phase
from recam.submission import SubmissionError
from submissions.services import submission_create
from teams.models import Team
from teams.services import team_get_or_create_baseline


class Command(BaseCommand):
    help = "Submit a file for a team (baselines, files sent by email): same validation and queue as the form."

    def add_arguments(self, parser):
        parser.add_argument("--team", required=True)
        parser.add_argument("--phase", required=True, choices=PHASE_KINDS)
        parser.add_argument("--trained-on", type=int, choices=[1, 2], default=None, help="for every file")
        parser.add_argument(
            "--baseline", action="store_true", help="an organizers' baseline (created if new)"
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="organizers: accept outside the phase window and beyond the team's quota",
        )
        parser.add_argument("--system-name", default="")
        parser.add_argument("--description", default="")
        parser.add_argument("--competition", default=None)
        parser.add_argument("file", type=Path)

    def handle(self, *args, **options):
        path: Path = options["file"]
        if not path.is_file():
            raise CommandError(f"{path} does not exist")
        phase = get_phase(slug=options["competition"], kind=options["phase"])
        try:
            team = self._team(phase.competition, options["team"], baseline=options["baseline"])
            trained = options["trained_on"]
            submission = submission_create(
                phase=phase,
                team=team,
                filename=path.name,
                data=path.read_bytes(),
                trained_on={1: trained, 2: trained} if trained else None,
                system_name=options["system_name"],
                description=options["description"],
                force=options["force"] or options["baseline"],
            )
        except SubmissionError as exc:
            raise CommandError(f"invalid submission, nothing stored:\n{exc}") from None
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(f"submission {submission.pk} queued (sha256 {submission.sha256})")

    def _team(self, competition, name: str, *, baseline: bool) -> Team:
        if baseline:
            return team_get_or_create_baseline(competition=competition, name=name)
        team = Team.objects.filter(competition=competition, name=name).first()
        if team is None:
            raise CommandError(
                f"no team {name!r} in {competition.slug} (use --baseline for a baseline entry)"
            )
        return team
