import io
import zipfile

from django.contrib import admin, messages
from django.http import HttpResponse

from submissions.models import FILE_FIELDS, RECORDED_FIELDS, Score, Submission, SubmissionFile
from submissions.services import submission_mark_failed, submission_requeue

# The labels stored at upload for scoring (``choices``, ``ids_sha256``) are never shown or edited here:
# an edit would change a score without changing the stored file.
STORED_LABELS = ("choices", "ids_sha256")


class SubmissionFileInline(admin.TabularInline):
    model = SubmissionFile
    extra = 0
    readonly_fields = FILE_FIELDS
    exclude = STORED_LABELS


# A score's columns, as the submission's inline and the score list show them.
SCORE_COLUMNS = ("test_subtask", "trained_on", "correct", "total", "accuracy", "scorer_version")


class ScoreInline(admin.TabularInline):
    model = Score
    extra = 0
    readonly_fields = (*SCORE_COLUMNS, "gold_sha256")
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False  # scores are written by the scorer only


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ("id", "team", "phase", "status", "received_at", "finished_at", "attempts", "is_baseline")
    list_filter = ("phase", "status", "is_baseline")
    search_fields = ("team__name", "sha256", "system_name")
    readonly_fields = (*RECORDED_FIELDS, "attempts")
    inlines = (SubmissionFileInline, ScoreInline)
    actions = ("rescore", "mark_failed", "download_files")

    @admin.action(description="Re-score the selected submissions")
    def rescore(self, request, queryset) -> None:
        for submission in queryset:
            submission_requeue(submission=submission)
        messages.success(request, f"{queryset.count()} submission(s) queued for scoring.")

    @admin.action(description="Mark the selected submissions failed")
    def mark_failed(self, request, queryset) -> None:
        for submission in queryset:
            submission_mark_failed(submission=submission, reason="marked failed by the organizers")
        messages.success(request, f"{queryset.count()} submission(s) marked failed.")

    @admin.action(description="Download the submitted files (zip)")
    def download_files(self, request, queryset) -> HttpResponse:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for submission in queryset.select_related("team"):
                with submission.file.open("rb") as handle:
                    archive.writestr(
                        f"{submission.pk}-{submission.team.name}-{submission.original_filename}",
                        handle.read(),
                    )
        response = HttpResponse(buffer.getvalue(), content_type="application/zip")
        response["Content-Disposition"] = 'attachment; filename="submissions.zip"'
        return response


@admin.register(Score)
class ScoreAdmin(admin.ModelAdmin):
    list_display = ("submission", *SCORE_COLUMNS)
    list_filter = ("test_subtask", "trained_on")

    # Score rows come from the one scorer only: never added or edited by hand (re-score instead).
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(SubmissionFile)
class SubmissionFileAdmin(admin.ModelAdmin):
    list_display = ("submission", "name", "subtask", "trained_on", "num_predictions")
    exclude = STORED_LABELS
