from django.contrib import admin

from leaderboards.models import LeaderboardEntry


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
