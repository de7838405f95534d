"""A dataset generation job run on the Celery workers (XSum pairs -> candidates -> options -> ReCAM jsonl).

The row is also the job's progress record: the worker writes stage, done and total; the page polls it.
"""

from django.conf import settings as django_settings
from django.db import models


class GenerationJob(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    class Stage(models.TextChoices):
        CANDIDATES = "candidates", "Candidates (target words)"
        OPTIONS = "options", "Options (distractors by k-fold readers)"
        FINISHED = "finished", "Finished"

    pairs_name = models.CharField(max_length=300)
    pairs_path = models.CharField(max_length=500, help_text="absolute path of the pairs jsonl")
    pairs_sha256 = models.CharField(max_length=64)
    settings = models.JSONField(default=dict, help_text="the datagen CLI's settings")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    stage = models.CharField(max_length=12, choices=Stage.choices, default=Stage.CANDIDATES)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    message = models.TextField(blank=True)
    cancel_requested = models.BooleanField(default=False)
    task_id = models.CharField(max_length=64, blank=True)
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"generation job {self.pk} ({self.pairs_name}, {self.status})"
