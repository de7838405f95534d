"""Writes: sign-up and activation, API tokens revoked with a new password, the organizer account that
`make run` creates or keeps."""

import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core.mail import send_mail
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode


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


def account_tokens_revoke(*, user) -> int:
    """Delete the user's API tokens (a new password: whoever knew the old one may have made a token)."""
    from rest_framework.authtoken.models import Token  # accounts does not depend on the API app

    deleted, _ = Token.objects.filter(user=user).delete()
    return deleted


def account_signup(*, username: str, email: str, password: str, activation_url: Callable[[str, str], str]):
    """Register a sign-up without telling anyone whether ``email`` already has an account.

    A new address gets an inactive account and a link that activates it (``activation_url(uidb64,
    token)``); an address that has an account gets a note saying so, with the way to log in or reset the
    password, and nothing is created. Either way the page says "check your e-mail". Returns the new
    user, or None when the address was taken.
    """
    User = get_user_model()
    existing = User.objects.filter(email__iexact=email).first()
    if existing is not None:
        send_mail(
            "Your ReCAM account",
            f"Someone (perhaps you) tried to sign up with this address as {username!r}, but the address "
            f"already belongs to the account {existing.get_username()!r}. Log in with it, or reset its "
            "password from the login page. If it was not you, you need do nothing.",
            None,
            [email],
        )
        return None
    user = User.objects.create_user(username=username, email=email, password=password, is_active=False)
    link = activation_url(
        urlsafe_base64_encode(force_bytes(user.pk)), default_token_generator.make_token(user)
    )
    send_mail(
        "Activate your ReCAM account",
        f"Open this link to activate the account {username!r} and log in:\n\n{link}\n\n"
        "If you did not sign up, ignore this e-mail: the account stays inactive.",
        None,
        [email],
    )
    return user


def account_activate(*, uidb64: str, token: str):
    """Activate the account of a valid link (once: logging in changes the token); None if invalid."""
    User = get_user_model()
    try:
        user = User.objects.get(pk=urlsafe_base64_decode(uidb64).decode())
    except (ValueError, TypeError, OverflowError, User.DoesNotExist):
        return None
    if user.is_active or not default_token_generator.check_token(user, token):
        return None
    user.is_active = True
    user.save(update_fields=["is_active"])
    return user
