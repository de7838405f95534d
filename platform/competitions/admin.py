from django.contrib import admin

from competitions.models import Competition, GoldAnswers, Phase, TestSet


class PhaseInline(admin.TabularInline):
    model = Phase
    extra = 0
    fields = (
        "kind",
        "title",
        "order",
        "starts_at",
        "ends_at",
        "max_submissions_per_day",
        "max_submissions_total",
    )


@admin.register(Competition)
class CompetitionAdmin(admin.ModelAdmin):
    list_display = ("slug", "title", "created_at")
    inlines = (PhaseInline,)


@admin.register(Phase)
class PhaseAdmin(admin.ModelAdmin):
    list_display = (
        "competition",
        "kind",
        "title",
        "starts_at",
        "ends_at",
        "counted_policy",
        "results_hidden",
    )
    list_filter = ("competition", "kind")


@admin.register(TestSet)
class TestSetAdmin(admin.ModelAdmin):
    list_display = ("phase", "subtask", "num_questions", "source_name", "loaded_at")
    readonly_fields = ("question_ids", "source_sha256")


@admin.register(GoldAnswers)
class GoldAnswersAdmin(admin.ModelAdmin):
    """Shows where the gold is and its hash; the labels themselves are never downloadable."""

    list_display = ("test_set", "num_labels", "sha256", "source_name", "loaded_at")
    readonly_fields = ("test_set", "path", "sha256", "num_labels", "source_name", "loaded_at")

    def has_add_permission(self, request) -> bool:
        return False  # gold is loaded with recam_competition / recam_gold, which check the ids
