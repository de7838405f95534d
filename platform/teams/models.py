"""Teams: submissions belong to a team; a user is in at most one team per competition."""

import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

from accounts.names import name_key


def _invite_code() -> str:
    return secrets.token_urlsafe(12)


class Team(models.Model):
    competition = models.ForeignKey(
        "competitions.Competition", on_delete=models.CASCADE, related_name="teams"
    )
    name = models.CharField(max_length=60)
    # accounts.names.name_key(name), kept by save(): the database refuses two look-alike names in one
    # competition even when two sign-ups race past the service's check.
    name_key = models.CharField(max_length=240, editable=False, default="")
    # Baselines (e.g. "GA Reader") are entered by organizers: shown on the board, never ranked.
    is_baseline = models.BooleanField(default=False)
    invite_code = models.CharField(max_length=32, unique=True, default=_invite_code)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("competition", "name")
        constraints = (
            models.UniqueConstraint(fields=["competition", "name"], name="unique_team_name"),
            models.UniqueConstraint(fields=["competition", "name_key"], name="unique_team_name_key"),
        )

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        self.name_key = name_key(self.name)
        if kwargs.get("update_fields") is not None and "name" in kwargs["update_fields"]:
            kwargs["update_fields"] = {*kwargs["update_fields"], "name_key"}
        super().save(*args, **kwargs)


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


class FactSheet(models.Model):
    """A team's system description for the task paper; a phase may require it before the team's result counts."""

    team = models.OneToOneField(Team, on_delete=models.CASCADE, related_name="fact_sheet")
    system_name = models.CharField(max_length=100)
    model = models.CharField(
        max_length=200, help_text="e.g. RoBERTa-large reader with a multiple-choice head"
    )
    pretrained_weights = models.CharField(max_length=300, blank=True, help_text="which checkpoints, or none")
    external_data = models.TextField(blank=True, help_text="data beyond the ReCAM training set, or empty")
    ensemble = models.BooleanField(
        default=False, help_text="the submitted predictions combine several models"
    )
    ensemble_size = models.PositiveSmallIntegerField(null=True, blank=True)
    trained_on_trial_dev = models.BooleanField(
        default=False, help_text="the trial or dev data were used for training (not only for validation)"
    )
    abstract = models.TextField(help_text="a short description of the system, for the task paper")
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)

    def __str__(self) -> str:
        return f"fact sheet of {self.team}"

    @property
    def is_complete(self) -> bool:
        return bool(self.system_name.strip() and self.model.strip() and self.abstract.strip())


class RulesAcceptance(models.Model):
    """Who accepted which version of the rules and terms, and when (on creating or joining a team)."""

    class Action(models.TextChoices):
        CREATE = "create", "created the team"
        JOIN = "join", "joined the team"

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="rules_acceptances")
    competition = models.ForeignKey("competitions.Competition", on_delete=models.CASCADE, related_name="+")
    # The user row may go; the name stays with the record.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="rules_acceptances"
    )
    username = models.CharField(max_length=150)
    rules_version = models.CharField(max_length=40)
    action = models.CharField(max_length=10, choices=Action.choices)
    accepted_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("team", "accepted_at", "id")

    def __str__(self) -> str:
        return f"{self.username} accepted rules {self.rules_version} for {self.team}"
