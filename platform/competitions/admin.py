from django.contrib import admin
from django.shortcuts import redirect
from django.urls import reverse

from competitions.models import Competition, GoldAnswers, Phase, TestSet
from leaderboards.services import phase_publish, phase_settings_changed


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
    list_display = ("slug", "title", "task_format", "created_at")
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
    actions = ("publish_results", "hide_results", "freeze_results")

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        if change:
            phase_settings_changed(phase=obj, changed=form.changed_data)

    @admin.action(description="Publish results (scores and the frozen board become visible)")
    def publish_results(self, request, queryset) -> None:
        for phase in queryset:
            phase_publish(phase=phase, publish=True)
        self.message_user(request, f"published {queryset.count()} phase(s)")

    @admin.action(description="Hide results")
    def hide_results(self, request, queryset) -> None:
        for phase in queryset:
            phase_publish(phase=phase, publish=False)
        self.message_user(request, f"hid the results of {queryset.count()} phase(s)")

    @admin.action(description="Freeze the official results (opens the console's confirmation page)")
    def freeze_results(self, request, queryset):
        """A freeze is final: it goes through the console's page, which lists what is not final yet
        (queued scorings, open windows, pending statistics) and asks for confirmation."""
        if queryset.count() != 1:
            self.message_user(request, "Freeze one phase at a time: select exactly one.", level="error")
            return None
        phase = queryset.select_related("competition").get()
        return redirect(reverse("console_freeze", args=[phase.competition.slug, phase.kind]))


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
