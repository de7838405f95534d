"""A competition, its phases (practice, evaluation, post-evaluation), their test sets and gold answers."""

from django.db import models
from django.utils import timezone

from recam.formats import DEFAULT_FORMAT, FORMATS

TASK_FORMAT_CHOICES = [(fmt.name, fmt.title) for fmt in FORMATS.values()]


class Subtask(models.IntegerChoices):
    IMPERCEPTIBILITY = 1, "Subtask 1: Imperceptibility"
    NONSPECIFICITY = 2, "Subtask 2: Nonspecificity"


class Competition(models.Model):
    slug = models.SlugField(unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    task_format = models.CharField(
        max_length=10,
        choices=TASK_FORMAT_CHOICES,
        default=DEFAULT_FORMAT,
        help_text="how test sets, prediction files and scores look (docs/reference/task-formats.md)",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.title


class Phase(models.Model):
    class Kind(models.TextChoices):
        PRACTICE = "practice", "Practice"
        EVALUATION = "evaluation", "Evaluation"
        POST_EVALUATION = "post-evaluation", "Post-evaluation"

    class CountedPolicy(models.TextChoices):
        BEST = "best", "Best score"
        SELECTED = "selected", "Selected by the team (default: the last)"
        LAST = "last", "Last submission"

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="phases")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    title = models.CharField(max_length=100)
    order = models.PositiveSmallIntegerField(default=0)
    starts_at = models.DateTimeField(default=timezone.now, help_text="UTC")
    ends_at = models.DateTimeField(null=True, blank=True, help_text="UTC; empty = open-ended")
    # Quotas and visibility (enforced by the competition-operations work; None = unlimited).
    max_submissions_per_day = models.PositiveIntegerField(
        null=True, blank=True, help_text="per team per UTC day"
    )
    max_submissions_total = models.PositiveIntegerField(null=True, blank=True, help_text="per team")
    counted_policy = models.CharField(
        max_length=10, choices=CountedPolicy.choices, default=CountedPolicy.BEST
    )
    results_hidden = models.BooleanField(default=False)
    fact_sheet_required = models.BooleanField(
        default=False, help_text="a team's result counts only once its fact sheet is complete"
    )

    class Meta:
        ordering = ("competition", "order")
        constraints = (models.UniqueConstraint(fields=["competition", "kind"], name="one_phase_per_kind"),)

    def __str__(self) -> str:
        return f"{self.competition.slug} / {self.kind}"

    def is_open(self, *, at) -> bool:
        return self.starts_at <= at and (self.ends_at is None or at < self.ends_at)


class TestSet(models.Model):
    """The question ids of one subtask's test set in one phase (the texts stay in the official files)."""

    __test__ = False  # not a pytest class

    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="test_sets")
    subtask = models.PositiveSmallIntegerField(choices=Subtask.choices)
    source_name = models.CharField(max_length=300)
    source_sha256 = models.CharField(max_length=64)
    question_ids = models.JSONField(default=list)
    num_questions = models.PositiveIntegerField(default=0)
    # Multi-blank formats (CLOTH, SCDE): {passage id: [blanks, choices per blank]}, what uploads are
    # checked against; question_ids then holds the passage ids. Empty for ReCAM.
    slots = models.JSONField(default=dict, blank=True)
    loaded_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("phase", "subtask")
        constraints = (models.UniqueConstraint(fields=["phase", "subtask"], name="one_test_set_per_subtask"),)

    def __str__(self) -> str:
        return f"{self.phase} / subtask {self.subtask}"


class GoldAnswers(models.Model):
    """Where a test set's gold labels are stored (under GOLD_ROOT, never served) and their sha256."""

    test_set = models.OneToOneField(TestSet, on_delete=models.CASCADE, related_name="gold")
    path = models.CharField(max_length=300, help_text="relative to GOLD_ROOT")
    sha256 = models.CharField(max_length=64)
    num_labels = models.PositiveIntegerField()
    source_name = models.CharField(max_length=300)
    loaded_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "gold answers"

    def __str__(self) -> str:
        return f"gold for {self.test_set}"
