"""Reads: a user's team in a competition, team membership checks."""

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from competitions.models import Competition
from teams.models import Membership, Team


def team_for_user(*, competition: Competition, user: AbstractBaseUser | AnonymousUser) -> Team | None:
    if not user.is_authenticated:
        return None
    membership = Membership.objects.filter(competition=competition, user=user).select_related("team").first()
    return membership.team if membership else None


def team_get_by_invite(*, invite_code: str) -> Team | None:
    return (
        Team.objects.filter(invite_code=invite_code, is_baseline=False).select_related("competition").first()
    )


def team_members(*, team: Team) -> list[str]:
    return list(team.memberships.order_by("joined_at").values_list("user__username", flat=True))
