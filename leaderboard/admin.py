from django.contrib import admin

from challenges.admin import ReadOnlyAdmin

from .models import Result


@admin.register(Result)
class ResultAdmin(ReadOnlyAdmin):
    """Results are written by the verification replay only; decisions on them (disqualify,
    restore, re-verify) are taken on attempts, where the trail keeps who, when and why."""

    list_display = (
        "id",
        "player",
        "challenge",
        "ranked",
        "score",
        "asks",
        "player_pairs",
        "opponent_pairs",
        "suspicion",
        "flagged",
        "finished_at",
        "disqualified",
        "indexed",
    )
    list_filter = ("ranked", "disqualified", "flagged", "challenge__date")
    search_fields = ("player__name",)
