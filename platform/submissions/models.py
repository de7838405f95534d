"""Submissions (one upload of one team to one phase), their files and their score rows."""

from django.conf import settings
from django.db import models

from competitions.models import Subtask

# What the platform records about an upload as it is received and scored, never edited by hand: the
# admin shows these read-only and the API returns them, so both name the same fields.
RECORDED_FIELDS = ("sha256", "size", "received_at", "queued_at", "scoring_started_at", "finished_at")
# A prediction file as the admin's inline and the API show it (all written at upload).
FILE_FIELDS = ("name", "subtask", "trained_on", "sha256", "num_predictions")


def _upload_path(instance: "Submission", filename: str) -> str:
    return f"submissions/{instance.phase_id}/{instance.team_id}/{instance.sha256[:16]}-{filename}"


class Submission(models.Model):
    class Status(models.TextChoices):
        RECEIVED = "received", "Received"
        QUEUED = "queued", "Queued"
        SCORING = "scoring", "Scoring"
        WAITING_GOLD = "waiting", "Valid; waiting for the gold answers"
        SCORED = "scored", "Scored"
        FAILED = "failed", "Failed"

    team = models.ForeignKey("teams.Team", on_delete=models.PROTECT, related_name="submissions")
    phase = models.ForeignKey("competitions.Phase", on_delete=models.PROTECT, related_name="submissions")
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    is_baseline = models.BooleanField(default=False)
    system_name = models.CharField(max_length=100, blank=True)
    description = models.TextField(blank=True, help_text="a short description of the method")
    file = models.FileField(upload_to=_upload_path, max_length=300)
    original_filename = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64)
    size = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RECEIVED)
    failure_reason = models.TextField(blank=True)
    received_at = models.DateTimeField()
    queued_at = models.DateTimeField(null=True, blank=True)
    scoring_started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # For a reaper of stuck submissions: how often scoring started, and until when the current try holds it.
    attempts = models.PositiveSmallIntegerField(default=0)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    # When the team chose this submission to count (phases whose policy is "selected"); the latest wins.
    selected_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-received_at", "-id")
        indexes = (
            models.Index(fields=["team", "phase", "received_at"]),
            models.Index(fields=["status", "queued_at"]),
            # The queue's medians read the latest finished submissions (of a phase, or of all).
            models.Index(fields=["phase", "status", "-finished_at"], name="submission_phase_finished"),
            models.Index(fields=["status", "-finished_at"], name="submission_finished"),
        )

    def __str__(self) -> str:
        return f"#{self.pk} {self.team} {self.phase.kind}"


class SubmissionFile(models.Model):
    """One prediction file in an upload, with the subtask whose training data the system used."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="files")
    name = models.CharField(max_length=20)
    subtask = models.PositiveSmallIntegerField(choices=Subtask.choices)
    trained_on = models.PositiveSmallIntegerField(choices=Subtask.choices)
    sha256 = models.CharField(max_length=64)
    num_predictions = models.PositiveIntegerField()
    # The labels as validated at upload, one digit per test id in sorted order, and the sha256 of those
    # ids (``recam.submission.predictions_to_choices``, ``ids_digest``): scoring reads them instead of
    # parsing the stored file again. Empty for CLOTH and SCDE uploads and for rows written before.
    choices = models.TextField(blank=True, default="")
    ids_sha256 = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ("submission", "subtask")
        constraints = (
            models.UniqueConstraint(fields=["submission", "subtask"], name="one_file_per_subtask"),
        )

    def __str__(self) -> str:
        return f"{self.name} (trained on subtask {self.trained_on})"

    @property
    def is_cross(self) -> bool:
        return self.subtask != self.trained_on


class Score(models.Model):
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="scores")
    test_subtask = models.PositiveSmallIntegerField(choices=Subtask.choices)
    trained_on = models.PositiveSmallIntegerField(choices=Subtask.choices)
    correct = models.PositiveIntegerField()
    total = models.PositiveIntegerField()
    accuracy = models.FloatField()
    scorer_version = models.CharField(max_length=40)
    gold_sha256 = models.CharField(max_length=64)
    # Every metric of the competition's task format ({"blank_accuracy": .., "passage_accuracy": ..});
    # ``accuracy`` holds the headline one. Empty for ReCAM, whose one metric is ``accuracy``.
    metrics = models.JSONField(default=dict, blank=True)
    scored_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("submission", "test_subtask")
        constraints = (
            models.UniqueConstraint(fields=["submission", "test_subtask"], name="one_score_per_test_subtask"),
        )

    def __str__(self) -> str:
        return f"{self.submission_id}: subtask {self.test_subtask} <- {self.trained_on}: {self.accuracy:.4f}"

    @property
    def is_cross(self) -> bool:
        return self.test_subtask != self.trained_on


class TeamPhaseQuota(models.Model):
    """One row per (team, phase): the lock that serialises a team's uploads while its quota is checked.

    The counts are never stored here: they are read from the team's non-failed submissions under the
    lock, so a failed (e.g. infrastructure) submission gives its slot back without any bookkeeping.
    """

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="+")
    phase = models.ForeignKey("competitions.Phase", on_delete=models.CASCADE, related_name="+")
    reservations = models.PositiveIntegerField(default=0, help_text="uploads that took the lock")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["team", "phase"], name="one_quota_row_per_team_phase"),
        )

    def __str__(self) -> str:
        return f"quota {self.team} / {self.phase}"
