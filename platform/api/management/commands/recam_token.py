"""``python manage.py recam_token USERNAME [--reset]``: print (creating it if needed) a user's API token."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from api.services import token_get_or_create


class Command(BaseCommand):
    help = "Print the API token of USERNAME, creating it if needed (--reset replaces it)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument("--reset", action="store_true", help="Replace the token with a new one.")

    def handle(self, *args, username: str, reset: bool, **options) -> None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user named {username!r}")
        self.stdout.write(token_get_or_create(user=user, reset=reset).key)
