"""Teams: submissions belong to a team; a user is in at most one team per competition."""

import secrets

from django.conf import settings
from django.db import models


def _invite_code() -> str:
    return secrets.token_urlsafe(12)


class Team(models.Model):
    competition = models.ForeignKey(
        "competitions.Competition", on_delete=models.CASCADE, related_name="teams"
    )
    name = models.CharField(max_length=60)
    # Baselines (e.g. "GA Reader") are entered by organizers: shown on the board, never ranked.
    is_baseline = models.BooleanField(default=False)
    invite_code = models.CharField(max_length=32, unique=True, default=_invite_code)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("competition", "name")
        constraints = (models.UniqueConstraint(fields=["competition", "name"], name="unique_team_name"),)

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    # Denormalised from the team so the database enforces one team per user per competition.
    competition = models.ForeignKey("competitions.Competition", on_delete=models.CASCADE, related_name="+")
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["user", "competition"], name="one_team_per_user_per_competition"),
        )

    def __str__(self) -> str:
        return f"{self.user} in {self.team}"
