"""Reads: a user's team in a competition, team membership checks."""

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Prefetch

from competitions.models import Competition
from teams.models import Membership, RulesAcceptance, Team


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


def teams_with_rules_acceptances(*, competition: Competition) -> list[Team]:
    """The competition's participant teams, each with ``acceptances``: who accepted which rules version,
    when (oldest first; empty for a team made without the web form, e.g. by a script). Two queries."""
    acceptances = Prefetch(
        "rules_acceptances",
        queryset=RulesAcceptance.objects.order_by("accepted_at", "id"),
        to_attr="acceptances",
    )
    return list(Team.objects.filter(competition=competition, is_baseline=False).prefetch_related(acceptances))
