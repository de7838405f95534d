"""Writes: create a team, join one with its invite code, register a baseline team, record the rules
accepted on the way (who, which version of the rules, when)."""

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction

from accounts.names import control_characters, name_key
from competitions.errors import ApplicationError
from competitions.models import Competition
from teams.models import Membership, RulesAcceptance, Team


def rules_acceptance_record(*, team: Team, user: AbstractBaseUser, action: str) -> RulesAcceptance:
    """Store that ``user`` accepted the current rules (``settings.RULES_VERSION``) for ``team``, now."""
    return RulesAcceptance.objects.create(
        team=team,
        competition_id=team.competition_id,
        user=user,
        username=user.get_username(),
        rules_version=settings.RULES_VERSION,
        action=action,
    )


def team_create(
    *, competition: Competition, user: AbstractBaseUser, name: str, accept_rules: bool = False
) -> Team:
    """Create a team with ``user`` in it. The web form requires ``accept_rules``; when given, the
    acceptance is stored in the same transaction (teams made by scripts and tests may omit it)."""
    name = " ".join(name.split())
    if control := control_characters(name):
        raise ApplicationError(f"the team name holds control characters ({', '.join(control)}): remove them")
    if not name_key(name):
        raise ApplicationError("give the team a name")
    if Membership.objects.filter(competition=competition, user=user).exists():
        raise ApplicationError("you are already in a team in this competition")
    if (taken := team_name_taken(competition=competition, name=name)) is not None:
        also = "" if taken == name else f" (as {taken!r}: names are compared as they look)"
        raise ApplicationError(f"the team name {name!r} is taken{also}")
    try:
        with transaction.atomic():
            team = Team.objects.create(competition=competition, name=name, created_by=user)
            Membership.objects.create(team=team, user=user, competition=competition)
            if accept_rules:
                rules_acceptance_record(team=team, user=user, action=RulesAcceptance.Action.CREATE)
    except IntegrityError:  # a concurrent request won the race for the name or the membership
        raise ApplicationError("that team name is taken, or you already joined a team") from None
    return team


def team_name_taken(*, competition: Competition, name: str) -> str | None:
    """The existing team name that reads as ``name`` (accounts.names.name_key), if any.

    The database's constraint on the stored key (``unique_team_name_key``) also refuses the loser of
    two concurrent sign-ups of look-alike names.
    """
    names = Team.objects.filter(competition=competition, name_key=name_key(name)).values_list(
        "name", flat=True
    )
    return names.first()


def team_join(*, team: Team, user: AbstractBaseUser, accept_rules: bool = False) -> Membership:
    """Add ``user`` to ``team``; the acceptance of the rules, when given, is stored with the membership."""
    if team.is_baseline:
        raise ApplicationError("baseline entries cannot be joined")
    current = (
        Membership.objects.filter(competition=team.competition, user=user).select_related("team").first()
    )
    if current is not None:
        raise ApplicationError(f"you are already in the team {current.team.name!r} in this competition")
    try:
        with transaction.atomic():
            membership = Membership.objects.create(team=team, user=user, competition=team.competition)
            if accept_rules:
                rules_acceptance_record(team=team, user=user, action=RulesAcceptance.Action.JOIN)
            return membership
    except IntegrityError:
        raise ApplicationError("you already joined a team in this competition") from None


def team_get_or_create_baseline(*, competition: Competition, name: str) -> Team:
    team, created = Team.objects.get_or_create(
        competition=competition, name=name, defaults={"is_baseline": True}
    )
    if not created and not team.is_baseline:
        raise ApplicationError(f"{name!r} is a participant team, not a baseline")
    return team
