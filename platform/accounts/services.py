"""Writes: the organizer account that `make run` creates or keeps."""

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth import get_user_model


@dataclass(frozen=True)
class OrganizerAccount:
    username: str
    created: bool
    password_source: str  # where the password is: the env variable or the file


def organizer_ensure(*, username: str, password_file: Path, env_password: str | None) -> OrganizerAccount:
    """Create the organizer superuser if missing; keep an existing one (its password changes only by env)."""
    User = get_user_model()
    user = User.objects.filter(username=username).first()
    created = user is None
    if env_password:
        source = "the ORGANIZER_PASSWORD environment variable"
        password = env_password
    elif created or not password_file.is_file():
        password = secrets.token_urlsafe(12)
        password_file.parent.mkdir(parents=True, exist_ok=True)
        password_file.write_text(password + "\n", encoding="utf-8")
        os.chmod(password_file, 0o600)
        source = str(password_file)
    else:
        password = None
        source = str(password_file)
    if created:
        user = User.objects.create_superuser(username=username, email="", password=password)
    elif password is not None:
        user.set_password(password)
        user.is_staff = user.is_superuser = True
        user.save()
    return OrganizerAccount(username=username, created=created, password_source=source)
