import os

from django.conf import settings
from django.core.management.base import BaseCommand

from accounts.services import organizer_ensure


class Command(BaseCommand):
    help = "Create (or keep) the organizer superuser and print how to log in."

    def handle(self, *args, **options):
        account = organizer_ensure(
            username=settings.ORGANIZER_USERNAME,
            password_file=settings.ORGANIZER_PASSWORD_FILE,
            env_password=os.environ.get("ORGANIZER_PASSWORD") or None,
        )
        verb = "created" if account.created else "kept"
        self.stdout.write(f"Organizer account {verb}: username {account.username!r}")
        self.stdout.write(f"Password: in {account.password_source}")
        self.stdout.write("Log in at /accounts/login/ (site) or /admin/ (Django admin).")
