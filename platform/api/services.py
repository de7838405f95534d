"""Writes of the token API itself: a user's API token."""

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from rest_framework.authtoken.models import Token


def token_get_or_create(*, user: AbstractBaseUser, reset: bool = False) -> Token:
    """The user's API token; ``reset`` revokes the old one and issues a new key."""
    with transaction.atomic():
        if reset:
            Token.objects.filter(user=user).delete()
        token, _ = Token.objects.get_or_create(user=user)
    return token
