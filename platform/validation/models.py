"""Human validation of generated questions: batches, their questions, assignments and annotations.

A question's ``label`` is stored here for the results; it is never put in an annotator's page
(views pass ``selectors.ItemView``, which has no label field).
"""

from django.conf import settings
from django.db import models


class ValidationBatch(models.Model):
    name = models.CharField(max_length=200)
    source_name = models.CharField(max_length=300)
    source_sha256 = models.CharField(max_length=64)
    gold_source_name = models.CharField(max_length=300, blank=True)
    annotations_per_question = models.PositiveSmallIntegerField(default=3)
    questions_per_assignment = models.PositiveSmallIntegerField(default=10)
    allow_none = models.BooleanField(
        default=True, help_text='annotators may answer "none / more than one fits"'
    )
    gold_rate = models.FloatField(default=0.2, help_text="gold check questions per generated question")
    min_gold_accuracy = models.FloatField(
        default=0.4, help_text="annotators at or below this gold-check accuracy are not counted"
    )
    two_stage = models.BooleanField(
        default=False,
        help_text="each annotator answers every question first without the article, then with it, and may mark "
        '"more than one option fits" and "an option is ungrammatical"',
    )
    # Bumped by every assignment hand-out: the UPDATE takes the row lock (PostgreSQL) / write lock (SQLite).
    assignment_counter = models.PositiveIntegerField(default=0)
    quality_report = models.JSONField(null=True, blank=True)
    quality_report_name = models.CharField(max_length=300, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-created_at",)
        verbose_name_plural = "validation batches"

    def __str__(self) -> str:
        return f"{self.name} (#{self.pk})"


class BatchQuestion(models.Model):
    class Kind(models.TextChoices):
        GENERATED = "generated", "Generated"
        GOLD = "gold", "Gold check"

    batch = models.ForeignKey(ValidationBatch, on_delete=models.CASCADE, related_name="questions")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    question_id = models.PositiveIntegerField(help_text="the id in the source file")
    article = models.TextField()
    question = models.TextField()
    options = models.JSONField()
    label = models.PositiveSmallIntegerField()
    extra = models.JSONField(default=dict, blank=True, help_text="other fields of the record, e.g. source_id")

    class Meta:
        ordering = ("batch", "kind", "question_id")
        constraints = (
            models.UniqueConstraint(
                fields=["batch", "kind", "question_id"], name="one_question_per_batch_kind_id"
            ),
        )

    def __str__(self) -> str:
        return f"{self.batch_id}/{self.kind}/{self.question_id}"


class Assignment(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Open"
        DONE = "done", "Done"
        EXPIRED = "expired", "Expired (unanswered items returned to the pool)"

    batch = models.ForeignKey(ValidationBatch, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(help_text="pushed back by every answer")

    class Meta:
        ordering = ("-created_at",)
        indexes = (models.Index(fields=["batch", "status", "expires_at"]),)

    def __str__(self) -> str:
        return f"assignment {self.pk} ({self.status})"


class Annotation(models.Model):
    """One slot: an item of an assignment; ``answer`` is empty until the annotator answers."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="annotations")
    item = models.ForeignKey(BatchQuestion, on_delete=models.CASCADE, related_name="annotations")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveSmallIntegerField()
    answer = models.SmallIntegerField(null=True, blank=True, help_text="0-4, or -1 for none fits")
    # two-stage batches: the answer given before the article was shown, and the two marks given with it
    answer_without_article = models.SmallIntegerField(
        null=True, blank=True, help_text="0-4, or -1 for none fits; answered before the article is shown"
    )
    multiple_fit = models.BooleanField(default=False, help_text="marked: more than one option fits")
    ungrammatical = models.BooleanField(default=False, help_text="marked: an option is ungrammatical here")
    shown_at = models.DateTimeField(null=True, blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    seconds = models.FloatField(null=True, blank=True, help_text="from first shown to answered")

    class Meta:
        ordering = ("assignment", "position")
        constraints = (
            models.UniqueConstraint(
                fields=["item", "annotator"], name="one_annotation_per_item_and_annotator"
            ),
        )

    def __str__(self) -> str:
        return f"{self.item} by {self.annotator_id}: {self.answer}"
