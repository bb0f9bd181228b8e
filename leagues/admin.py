from django.contrib import admin

from .models import League, Membership


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ("player",)
    readonly_fields = ("joined_at",)


@admin.register(League)
class LeagueAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "owner", "created_at")
    search_fields = ("name",)
    raw_id_fields = ("owner",)
    readonly_fields = ("name_key", "created_at")
    inlines = [MembershipInline]
