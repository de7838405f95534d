from django.contrib import admin

from teams.models import FactSheet, Membership, Team


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    fields = ("user", "competition", "joined_at")
    readonly_fields = ("joined_at",)


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("name", "competition", "is_baseline", "created_at")
    list_filter = ("competition", "is_baseline")
    search_fields = ("name",)
    inlines = (MembershipInline,)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("user", "team", "competition", "joined_at")
    search_fields = ("user__username", "team__name")


@admin.register(FactSheet)
class FactSheetAdmin(admin.ModelAdmin):
    list_display = ("team", "system_name", "model", "ensemble", "trained_on_trial_dev", "updated_at")
    search_fields = ("team__name", "system_name", "model")
