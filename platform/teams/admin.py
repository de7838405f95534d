from django.contrib import admin

from teams.models import FactSheet, Membership, RulesAcceptance, Team


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    fields = ("user", "competition", "joined_at")
    readonly_fields = ("joined_at",)


class RulesAcceptanceInline(admin.TabularInline):
    """The record of who accepted which rules: read-only (written only when a team is created or joined)."""

    model = RulesAcceptance
    extra = 0
    fields = ("username", "rules_version", "action", "accepted_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("name", "competition", "is_baseline", "created_at")
    list_filter = ("competition", "is_baseline")
    search_fields = ("name",)
    inlines = (MembershipInline, RulesAcceptanceInline)


@admin.register(RulesAcceptance)
class RulesAcceptanceAdmin(admin.ModelAdmin):
    list_display = ("username", "team", "rules_version", "action", "accepted_at")
    list_filter = ("competition", "rules_version", "action")
    search_fields = ("username", "team__name")
    readonly_fields = ("team", "competition", "user", "username", "rules_version", "action", "accepted_at")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("user", "team", "competition", "joined_at")
    search_fields = ("user__username", "team__name")


@admin.register(FactSheet)
class FactSheetAdmin(admin.ModelAdmin):
    list_display = ("team", "system_name", "model", "ensemble", "trained_on_trial_dev", "updated_at")
    search_fields = ("team__name", "system_name", "model")
