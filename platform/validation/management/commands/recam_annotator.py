from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from validation.services import annotator_set


class Command(BaseCommand):
    help = "Give (or with --remove take) the annotator role: membership of the 'annotators' group."

    def add_arguments(self, parser):
        parser.add_argument("usernames", nargs="+")
        parser.add_argument("--remove", action="store_true")

    def handle(self, *args, usernames: list[str], remove: bool, **options):
        users = get_user_model().objects
        for username in usernames:
            user = users.filter(username=username).first()
            if user is None:
                raise CommandError(f"no user {username!r}")
            annotator_set(user=user, annotator=not remove)
            self.stdout.write(f"{username}: {'no longer an annotator' if remove else 'annotator'}")
