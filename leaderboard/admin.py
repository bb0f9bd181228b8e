from django.contrib import admin, messages

from . import services
from .models import Result


@admin.register(Result)
class ResultAdmin(admin.ModelAdmin):
    list_display = ("id", "player", "challenge", "ranked", "score", "asks", "player_pairs", "opponent_pairs",
                    "finished_at", "disqualified", "indexed")
    list_filter = ("ranked", "disqualified", "challenge__date")
    search_fields = ("player__name",)
    readonly_fields = [f.name for f in Result._meta.fields]
    actions = ["disqualify", "requalify"]

    @admin.action(description="Disqualify (leaves the ranking)")
    def disqualify(self, request, queryset):
        for result in queryset:
            services.result_disqualify(result_id=result.pk)
        self.message_user(request, f"{queryset.count()} result(s) disqualified", messages.SUCCESS)

    @admin.action(description="Restore to the ranking")
    def requalify(self, request, queryset):
        for result in queryset:
            services.result_disqualify(result_id=result.pk, disqualified=False)
        self.message_user(request, f"{queryset.count()} result(s) restored", messages.SUCCESS)
