"""The navigation's competition on pages that have none of their own (console, validation, token page):
the configured one (RECAM_COMPETITION_SLUG), else the newest; read only when a page needs it."""

from django.conf import settings
from django.utils.functional import SimpleLazyObject

from competitions.models import Competition


def _default_competition() -> Competition | None:
    competitions = Competition.objects.order_by("-created_at")
    return competitions.filter(slug=settings.RECAM_COMPETITION_SLUG).first() or competitions.first()


def navigation(request) -> dict:
    return {"nav_competition": SimpleLazyObject(_default_competition)}
