from django import template

from teams.models import Membership

register = template.Library()


@register.simple_tag
def my_team_name(user, slug: str) -> str:
    """The logged-in user's team name in the competition (for the own-row highlight), or ''."""
    if not getattr(user, "is_authenticated", False):
        return ""
    membership = Membership.objects.filter(user=user, competition__slug=slug).select_related("team").first()
    return membership.team.name if membership else ""
