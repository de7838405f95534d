from django.contrib import admin

from validation.models import Annotation, Assignment, BatchQuestion, ValidationBatch


@admin.register(ValidationBatch)
class ValidationBatchAdmin(admin.ModelAdmin):
    list_display = (
        "pk",
        "name",
        "source_name",
        "annotations_per_question",
        "questions_per_assignment",
        "created_at",
    )
    readonly_fields = ("source_sha256", "assignment_counter", "quality_report")


@admin.register(BatchQuestion)
class BatchQuestionAdmin(admin.ModelAdmin):
    list_display = ("batch", "kind", "question_id", "label")
    list_filter = ("batch", "kind")


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ("pk", "batch", "annotator", "status", "created_at", "expires_at")
    list_filter = ("batch", "status")


@admin.register(Annotation)
class AnnotationAdmin(admin.ModelAdmin):
    list_display = ("assignment", "item", "annotator", "answer", "seconds")
    list_filter = ("assignment__batch",)
