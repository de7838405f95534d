"""Request and response shapes of the token API (they also make its OpenAPI description)."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from leaderboards.selectors import counted_note, counted_submission_ids
from submissions.models import FILE_FIELDS, RECORDED_FIELDS, Score, Submission, SubmissionFile

SUBTASK_CHOICES = [1, 2]


class SubmissionUploadSerializer(serializers.Serializer):
    file = serializers.FileField(
        help_text="a zip holding subtask1.csv and/or subtask2.csv, or one of those CSVs"
    )
    trained_on_1 = serializers.IntegerField(
        min_value=1,
        max_value=2,
        required=False,
        help_text="subtask whose training data the subtask1.csv system used (default 1)",
    )
    trained_on_2 = serializers.IntegerField(
        min_value=1,
        max_value=2,
        required=False,
        help_text="subtask whose training data the subtask2.csv system used (default 2)",
    )
    system_name = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")
    description = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")

    def trained_on(self) -> dict[int, int]:
        """``{test subtask: trained-on subtask}`` with the default (the same subtask) filled in."""
        data = self.validated_data
        return {subtask: int(data.get(f"trained_on_{subtask}") or subtask) for subtask in SUBTASK_CHOICES}


class SubmissionFileSerializer(serializers.ModelSerializer):
    subtask = serializers.IntegerField(help_text="the test subtask of this file")
    trained_on = serializers.IntegerField(help_text="the subtask whose training data the system used")

    class Meta:
        model = SubmissionFile
        fields = FILE_FIELDS


class ScoreSerializer(serializers.ModelSerializer):
    test_subtask = serializers.IntegerField()
    trained_on_subtask = serializers.IntegerField(source="trained_on")
    cross = serializers.BooleanField(source="is_cross")

    class Meta:
        model = Score
        fields = (
            "test_subtask",
            "trained_on_subtask",
            "cross",
            "correct",
            "total",
            "accuracy",
            "scorer_version",
            "gold_sha256",
        )


class QueueSerializer(serializers.Serializer):
    position = serializers.IntegerField(allow_null=True, help_text="1 = scored next (or being scored)")
    ahead = serializers.IntegerField(allow_null=True)
    eta_seconds = serializers.FloatField(allow_null=True, help_text="estimate from recent scoring times")
    median_seconds_scoring = serializers.FloatField(allow_null=True)
    median_seconds_to_score = serializers.FloatField(allow_null=True)
    median_over = serializers.IntegerField()


class SubmissionSerializer(serializers.ModelSerializer):
    """A submission; ``scores`` is empty while the phase hides results (``results_hidden``)."""

    phase = serializers.CharField(source="phase.kind")
    competition = serializers.CharField(source="phase.competition.slug")
    team = serializers.CharField(source="team.name")
    status_display = serializers.CharField(source="get_status_display")
    files = SubmissionFileSerializer(many=True)
    scores = serializers.SerializerMethodField()
    results_hidden = serializers.SerializerMethodField()
    validity = serializers.SerializerMethodField()
    best_accuracy = serializers.SerializerMethodField()
    counted = serializers.SerializerMethodField()
    queue = serializers.SerializerMethodField(help_text="place in the scoring queue and ETA while waiting")

    class Meta:
        model = Submission
        fields = (
            "id",
            "competition",
            "phase",
            "team",
            "status",
            "status_display",
            "failure_reason",
            "system_name",
            "description",
            "original_filename",
            *RECORDED_FIELDS,
            "files",
            "validity",
            "results_hidden",
            "scores",
            "best_accuracy",
            "counted",
            "queue",
        )

    def _hidden(self, sub: Submission) -> bool:
        return sub.phase.results_hidden and not self.context.get("organizer", False)

    def get_results_hidden(self, sub: Submission) -> bool:
        return self._hidden(sub)

    def get_scores(self, sub: Submission) -> list[dict]:
        return [] if self._hidden(sub) else ScoreSerializer(sub.scores.all(), many=True).data

    def get_best_accuracy(self, sub: Submission) -> float | None:
        if self._hidden(sub):
            return None
        return max((s.accuracy for s in sub.scores.all()), default=None)

    def get_counted(self, sub: Submission) -> str:
        """ "this is your counted submission" (or how the phase counts); never reveals a hidden ranking."""

        if sub.phase.counted_policy == "best" and (self._hidden(sub) or not sub.scores.all()):
            # No query: the board counts only scored rows, so a submission without scores is not counted
            # (and while results are hidden the note says only how the phase counts).
            return counted_note(submission=sub, counted_ids=set(), hidden=self._hidden(sub))
        memo = self.context.setdefault("_counted", {})
        key = (sub.phase_id, sub.team_id)
        if key not in memo:
            memo[key] = counted_submission_ids(phase=sub.phase, team=sub.team)
        return counted_note(submission=sub, counted_ids=memo[key], hidden=self._hidden(sub))

    @extend_schema_field(QueueSerializer(allow_null=True))
    def get_queue(self, sub: Submission) -> dict | None:
        """Only while the submission waits (no queries for finished ones)."""
        from submissions.queue import submission_queue_info

        if sub.status not in (
            Submission.Status.QUEUED,
            Submission.Status.SCORING,
            Submission.Status.RECEIVED,
        ):
            return None
        return submission_queue_info(submission=sub).as_dict()

    def get_validity(self, sub: Submission) -> str:
        """What a team may always know: its file was valid, and which ids it covered."""
        files = ", ".join(f"{f.name}: {f.num_predictions:,} predictions" for f in sub.files.all())
        return f"valid upload (sha256 {sub.sha256[:12]}...; {files})" if files else ""

    def to_representation(self, sub: Submission) -> dict:
        """The fields above, rendered by hand: DRF's field-by-field rendering of this nested shape cost
        about 3.5 ms of CPU per submission, more than the queries behind it, on the endpoint a client
        polls while it waits for its score. Tested equal to DRF's own rendering
        (``tests/api/test_api_representation.py``)."""
        hidden = self._hidden(sub)
        scores = [] if hidden else list(sub.scores.all())
        return {
            "id": sub.pk,
            "competition": str(sub.phase.competition.slug),
            "phase": str(sub.phase.kind),
            "team": str(sub.team.name),
            "status": str(sub.status),
            "status_display": str(sub.get_status_display()),
            "failure_reason": str(sub.failure_reason),
            "system_name": str(sub.system_name),
            "description": str(sub.description),
            "original_filename": str(sub.original_filename),
            "sha256": str(sub.sha256),
            "size": int(sub.size),
            **{name: _datetime(getattr(sub, name)) for name in RECORDED_FIELDS[2:]},
            "files": [
                {
                    "name": str(f.name),
                    "subtask": int(f.subtask),
                    "trained_on": int(f.trained_on),
                    "sha256": str(f.sha256),
                    "num_predictions": int(f.num_predictions),
                }
                for f in sub.files.all()
            ],
            "validity": self.get_validity(sub),
            "results_hidden": hidden,
            "scores": [
                {
                    "test_subtask": int(score.test_subtask),
                    "trained_on_subtask": int(score.trained_on),
                    "cross": bool(score.is_cross),
                    "correct": int(score.correct),
                    "total": int(score.total),
                    "accuracy": float(score.accuracy),
                    "scorer_version": str(score.scorer_version),
                    "gold_sha256": str(score.gold_sha256),
                }
                for score in scores
            ],
            "best_accuracy": None if hidden else max((float(s.accuracy) for s in scores), default=None),
            "counted": self.get_counted(sub),
            "queue": self.get_queue(sub),
        }


_DATETIME = serializers.DateTimeField()  # DRF's own format (ISO 8601, "Z" for UTC)


def _datetime(value) -> str | None:
    return None if value is None else _DATETIME.to_representation(value)


class ProblemSerializer(serializers.Serializer):
    file = serializers.CharField()
    line = serializers.IntegerField(allow_null=True)
    message = serializers.CharField()
    text = serializers.CharField(help_text="the problem as the web form shows it")


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    problems = ProblemSerializer(many=True, required=False)


class LeaderboardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(
        allow_null=True, help_text="null for baselines and cross-only rows (not ranked)"
    )
    team = serializers.CharField()
    is_baseline = serializers.BooleanField()
    accuracy = serializers.FloatField(allow_null=True, help_text="Acc: best score trained on this subtask")
    correct = serializers.IntegerField(allow_null=True)
    total = serializers.IntegerField(allow_null=True)
    submitted_at = serializers.DateTimeField(allow_null=True)
    cross_accuracy = serializers.FloatField(
        allow_null=True, help_text="Acc. Cross: trained on the other subtask"
    )
    cross_correct = serializers.IntegerField(allow_null=True)
    cross_total = serializers.IntegerField(allow_null=True)
    drop = serializers.FloatField(allow_null=True, help_text="accuracy - cross_accuracy")
    entries = serializers.IntegerField(
        allow_null=True, help_text="the team's scored submissions in the phase"
    )
    accuracy_lo = serializers.FloatField(allow_null=True, help_text="95% bootstrap interval of accuracy")
    accuracy_hi = serializers.FloatField(allow_null=True)
    cross_accuracy_lo = serializers.FloatField(allow_null=True)
    cross_accuracy_hi = serializers.FloatField(allow_null=True)
    drop_lo = serializers.FloatField(allow_null=True, help_text="paired bootstrap interval of the drop")
    drop_hi = serializers.FloatField(allow_null=True)
    rank_tied_with = serializers.ListField(
        child=serializers.CharField(), help_text="teams sharing this rank (statistically tied)"
    )
    rank_test = serializers.CharField(help_text="the test behind the rank; empty: ranked by accuracy")
    metrics = serializers.DictField(
        child=serializers.FloatField(allow_null=True),
        help_text="CLOTH / SCDE: every metric of the format by key (accuracy = the headline, e.g. BA); ReCAM: {}",
    )


class LeaderboardTableSerializer(serializers.Serializer):
    subtask = serializers.IntegerField()
    title = serializers.CharField()
    cross_from = serializers.IntegerField(help_text="the training subtask of the Acc. Cross column")
    rows = LeaderboardRowSerializer(many=True)


class LeaderboardSerializer(serializers.Serializer):
    competition = serializers.CharField()
    phase = serializers.CharField()
    results_hidden = serializers.BooleanField(
        help_text="true: the organizers have not published the results yet"
    )
    scorer_version = serializers.CharField(help_text="the scorer of the competition's task format")
    task_format = serializers.CharField(
        required=False, help_text="CLOTH / SCDE competitions only: cloth or scde"
    )
    metrics = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="CLOTH / SCDE only: the format's metrics (key, label, higher_is_better), the headline first",
    )
    statistics_version = serializers.IntegerField(
        help_text="how many times the intervals and ranks were recomputed (the version shown)"
    )
    statistics_updating = serializers.BooleanField(
        help_text="true: scores changed since; intervals and ranks are being recomputed (accuracies are current)"
    )
    tables = LeaderboardTableSerializer(many=True)


class TokenSerializer(serializers.Serializer):
    username = serializers.CharField()
    token = serializers.CharField()


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(style={"input_type": "password"}, trim_whitespace=False)


class QuotaSerializer(serializers.Serializer):
    phase = serializers.CharField()
    open = serializers.BooleanField(help_text="the phase accepts uploads now")
    left = serializers.IntegerField(allow_null=True, help_text="uploads accepted now; null = unlimited")
    daily_limit = serializers.IntegerField(allow_null=True)
    daily_used = serializers.IntegerField()
    daily_left = serializers.IntegerField(allow_null=True)
    total_limit = serializers.IntegerField(allow_null=True)
    total_used = serializers.IntegerField()
    total_left = serializers.IntegerField(allow_null=True)
    resets_at = serializers.DateTimeField(help_text="next 00:00 UTC, when the daily quota resets")
