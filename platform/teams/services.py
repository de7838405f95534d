"""Writes: create a team, join one with its invite code, register a baseline team."""

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction

from competitions.errors import ApplicationError
from competitions.models import Competition
from teams.models import Membership, Team


def team_create(*, competition: Competition, user: AbstractBaseUser, name: str) -> Team:
    name = " ".join(name.split())
    if not name:
        raise ApplicationError("give the team a name")
    if Membership.objects.filter(competition=competition, user=user).exists():
        raise ApplicationError("you are already in a team in this competition")
    if Team.objects.filter(competition=competition, name__iexact=name).exists():
        raise ApplicationError(f"the team name {name!r} is taken")
    try:
        with transaction.atomic():
            team = Team.objects.create(competition=competition, name=name, created_by=user)
            Membership.objects.create(team=team, user=user, competition=competition)
    except IntegrityError:  # a concurrent request won the race for the name or the membership
        raise ApplicationError("that team name is taken, or you already joined a team") from None
    return team


def team_join(*, team: Team, user: AbstractBaseUser) -> Membership:
    if team.is_baseline:
        raise ApplicationError("baseline entries cannot be joined")
    current = (
        Membership.objects.filter(competition=team.competition, user=user).select_related("team").first()
    )
    if current is not None:
        raise ApplicationError(f"you are already in the team {current.team.name!r} in this competition")
    try:
        with transaction.atomic():
            return Membership.objects.create(team=team, user=user, competition=team.competition)
    except IntegrityError:
        raise ApplicationError("you already joined a team in this competition") from None


def team_get_or_create_baseline(*, competition: Competition, name: str) -> Team:
    team, created = Team.objects.get_or_create(
        competition=competition, name=name, defaults={"is_baseline": True}
    )
    if not created and not team.is_baseline:
        raise ApplicationError(f"{name!r} is a participant team, not a baseline")
    return team
