"""Shared lookups for the organizer commands (turn missing objects into CommandError)."""

from django.conf import settings
from django.core.management.base import CommandError

from competitions.models import Competition, Phase
from competitions.selectors import phase_get

PHASE_KINDS = [kind for kind, _ in Phase.Kind.choices]


def get_phase(*, slug: str | None, kind: str) -> Phase:
    slug = slug or settings.RECAM_COMPETITION_SLUG
    competition = Competition.objects.filter(slug=slug).first()
    if competition is None:
        raise CommandError(f"no competition {slug!r}: run recam_competition --data DIR first")
    phase = phase_get(competition=competition, kind=kind)
    if phase is None:
        raise CommandError(f"the competition {slug!r} has no {kind} phase")
    return phase
