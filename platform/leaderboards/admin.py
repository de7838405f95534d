from django.contrib import admin

from leaderboards.models import LeaderboardEntry, OfficialResult, OfficialResultRow


@admin.register(LeaderboardEntry)
class LeaderboardEntryAdmin(admin.ModelAdmin):
    """Materialised rows: written by the scoring service; read-only here."""

    list_display = (
        "phase",
        "test_subtask",
        "team_name",
        "is_baseline",
        "accuracy",
        "cross_accuracy",
        "updated_at",
    )
    list_filter = ("phase", "test_subtask", "is_baseline")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class OfficialResultRowInline(admin.TabularInline):
    model = OfficialResultRow
    extra = 0
    can_delete = False
    fields = (
        "test_subtask",
        "rank",
        "team_name",
        "system_name",
        "accuracy",
        "cross_accuracy",
        "submission_sha256",
    )
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(OfficialResult)
class OfficialResultAdmin(admin.ModelAdmin):
    """Frozen snapshots: immutable (freeze again for a new one)."""

    list_display = ("phase", "frozen_at", "counted_policy", "scorer_version", "frozen_by")
    readonly_fields = ("phase", "frozen_at", "counted_policy", "scorer_version", "gold_sha256", "frozen_by")
    inlines = (OfficialResultRowInline,)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
