"""Materialised leaderboard rows: one per (phase, test subtask, team), rewritten when a score is written."""

from django.db import models

from competitions.models import Subtask


def _score_slot() -> tuple[models.Field, ...]:
    """The fields of one scored slot (Acc or Acc. Cross): submission, accuracy, correct, total, time."""
    return (
        models.ForeignKey(
            "submissions.Submission", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
        ),
        models.FloatField(null=True, blank=True),
        models.PositiveIntegerField(null=True, blank=True),
        models.PositiveIntegerField(null=True, blank=True),
        models.DateTimeField(null=True, blank=True),
    )


def _interval_fields() -> tuple[models.Field, ...]:
    """The 95% interval bounds of Acc, Acc. Cross and the drop: lo, hi for each (``leaderboards.intervals``)."""
    return tuple(models.FloatField(null=True, blank=True) for _ in range(6))


class LeaderboardEntry(models.Model):
    phase = models.ForeignKey(
        "competitions.Phase", on_delete=models.CASCADE, related_name="leaderboard_entries"
    )
    test_subtask = models.PositiveSmallIntegerField(choices=Subtask.choices)
    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="leaderboard_entries")
    team_name = models.CharField(max_length=60)
    is_baseline = models.BooleanField(default=False)
    # Best score trained on the same subtask ("Acc"); the earliest submission wins a tie.
    submission, accuracy, correct, total, submitted_at = _score_slot()
    # Best score trained on the other subtask ("Acc. Cross", Subtask 3).
    cross_submission, cross_accuracy, cross_correct, cross_total, cross_submitted_at = _score_slot()
    # "Entries": the team's scored submissions in the phase (all subtasks), counted when the row is written.
    entries = models.PositiveIntegerField(null=True, blank=True)
    # Statistics (``leaderboards.intervals``), written when a score changes: 95% bootstrap intervals,
    # the rank by the paired test (1 + entries significantly better) and the teams sharing it.
    accuracy_lo, accuracy_hi, cross_accuracy_lo, cross_accuracy_hi, drop_lo, drop_hi = _interval_fields()
    stat_rank = models.PositiveIntegerField(null=True, blank=True)
    rank_tied_with = models.JSONField(default=list, blank=True)
    stats_key = models.CharField(
        max_length=200, blank=True, help_text="what the intervals were computed from"
    )
    # A CLOTH or SCDE row: every metric of its format for the counted submission (``Score.metrics``).
    metrics = models.JSONField(default=dict, blank=True)
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
    entries = models.PositiveIntegerField(null=True, blank=True, help_text="scored submissions when frozen")
    accuracy_lo, accuracy_hi, cross_accuracy_lo, cross_accuracy_hi, drop_lo, drop_hi = _interval_fields()
    rank_tied_with = models.JSONField(default=list, blank=True)
    rank_test = models.CharField(max_length=120, blank=True, help_text="the test behind the rank, if any")
    metrics = models.JSONField(
        default=dict, blank=True, help_text="a CLOTH or SCDE row: its format's metrics"
    )

    class Meta:
        ordering = ("result", "test_subtask", "position")

    def __str__(self) -> str:
        return f"{self.result} / subtask {self.test_subtask} / {self.team_name}"


class ScoreVector(models.Model):
    """One score's answers per question (gold ids in sorted order), cached for intervals, ranks and analytics.

    Built once from the stored file when the score is first needed (``leaderboards.intervals``), and
    rebuilt when the score was computed against other gold answers.
    """

    score = models.OneToOneField("submissions.Score", on_delete=models.CASCADE, related_name="vector")
    gold_sha256 = models.CharField(max_length=64)
    # One character per question: the chosen option 0-4, "-" for no prediction.
    choices = models.TextField(blank=True)
    # One character per question: "1" right, "0" wrong.
    correct = models.TextField(blank=True)
    error = models.TextField(blank=True, help_text="why the vector could not be built (no stats then)")
    built_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"vector of score {self.score_id}"


class PhaseStatistics(models.Model):
    """Where a phase's intervals and ranks stand: asked for, computed, and whether a recompute is on its way.

    A score change bumps ``requested`` after its transaction commits (one short statement); the
    statistics task (``leaderboards.intervals``) reads ``requested``, recomputes the board from one
    snapshot and records it as ``computed``. The board is up to date when the two are equal.
    """

    phase = models.OneToOneField(
        "competitions.Phase", on_delete=models.CASCADE, primary_key=True, related_name="statistics_state"
    )
    requested = models.PositiveBigIntegerField(default=0, help_text="score changes asked for so far")
    requested_at = models.DateTimeField(null=True, blank=True)
    computed = models.PositiveBigIntegerField(default=0, help_text="the value of 'requested' last computed")
    computed_at = models.DateTimeField(null=True, blank=True)
    recomputes = models.PositiveBigIntegerField(default=0, help_text="the statistics version shown")
    scheduled_at = models.DateTimeField(null=True, blank=True, help_text="a recompute task is queued")

    class Meta:
        verbose_name_plural = "phase statistics"

    def __str__(self) -> str:
        return f"statistics of {self.phase}: version {self.recomputes}"

    @property
    def updating(self) -> bool:
        return self.requested > self.computed
