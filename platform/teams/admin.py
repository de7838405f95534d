from django.contrib import admin

from teams.models import Membership, Team


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
