"""Materialised leaderboard rows: one per (phase, test subtask, team), rewritten when a score is written."""

from django.db import models

from competitions.models import Subtask


class LeaderboardEntry(models.Model):
    phase = models.ForeignKey(
        "competitions.Phase", on_delete=models.CASCADE, related_name="leaderboard_entries"
    )
    test_subtask = models.PositiveSmallIntegerField(choices=Subtask.choices)
    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="leaderboard_entries")
    team_name = models.CharField(max_length=60)
    is_baseline = models.BooleanField(default=False)
    # Best score trained on the same subtask ("Acc"); the earliest submission wins a tie.
    submission = models.ForeignKey(
        "submissions.Submission", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    accuracy = models.FloatField(null=True, blank=True)
    correct = models.PositiveIntegerField(null=True, blank=True)
    total = models.PositiveIntegerField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    # Best score trained on the other subtask ("Acc. Cross", Subtask 3).
    cross_submission = models.ForeignKey(
        "submissions.Submission", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    cross_accuracy = models.FloatField(null=True, blank=True)
    cross_correct = models.PositiveIntegerField(null=True, blank=True)
    cross_total = models.PositiveIntegerField(null=True, blank=True)
    cross_submitted_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "leaderboard entries"
        constraints = (
            models.UniqueConstraint(
                fields=["phase", "test_subtask", "team"], name="one_entry_per_team_and_test_set"
            ),
        )
        indexes = (models.Index(fields=["phase", "test_subtask", "-accuracy", "submitted_at"]),)

    def __str__(self) -> str:
        return f"{self.phase} / subtask {self.test_subtask} / {self.team_name}"


class OfficialResult(models.Model):
    """An immutable snapshot of a phase's board (``recam_freeze``): never updated, only superseded."""

    phase = models.ForeignKey("competitions.Phase", on_delete=models.PROTECT, related_name="official_results")
    frozen_at = models.DateTimeField()
    counted_policy = models.CharField(max_length=10)
    scorer_version = models.CharField(max_length=40)
    # {"1": sha256 of the Subtask 1 gold file, ...}: the gold answers the scores were computed against.
    gold_sha256 = models.JSONField(default=dict)
    frozen_by = models.CharField(max_length=150, blank=True)

    class Meta:
        ordering = ("-frozen_at", "-id")
        get_latest_by = ("frozen_at", "id")

    def __str__(self) -> str:
        return f"{self.phase} frozen {self.frozen_at:%Y-%m-%d %H:%M} UTC"


class OfficialResultRow(models.Model):
    """One team's counted result on one test set, copied (not referenced) so later changes cannot alter it."""

    result = models.ForeignKey(OfficialResult, on_delete=models.CASCADE, related_name="rows")
    test_subtask = models.PositiveSmallIntegerField(choices=Subtask.choices)
    position = models.PositiveIntegerField(help_text="order within the table")
    rank = models.PositiveIntegerField(null=True, blank=True)
    team_name = models.CharField(max_length=60)
    is_baseline = models.BooleanField(default=False)
    system_name = models.CharField(max_length=100, blank=True)
    submission_id_frozen = models.PositiveBigIntegerField(null=True, blank=True)
    submission_sha256 = models.CharField(max_length=64, blank=True)
    accuracy = models.FloatField(null=True, blank=True)
    correct = models.PositiveIntegerField(null=True, blank=True)
    total = models.PositiveIntegerField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    cross_submission_id_frozen = models.PositiveBigIntegerField(null=True, blank=True)
    cross_accuracy = models.FloatField(null=True, blank=True)
    cross_correct = models.PositiveIntegerField(null=True, blank=True)
    cross_total = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ("result", "test_subtask", "position")

    def __str__(self) -> str:
        return f"{self.result} / subtask {self.test_subtask} / {self.team_name}"
