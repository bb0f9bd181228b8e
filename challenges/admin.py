from django.contrib import admin, messages
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from games.registry import engine

from . import services
from .models import Attempt, DailyChallenge, Player


@admin.register(DailyChallenge)
class DailyChallengeAdmin(admin.ModelAdmin):
    list_display = ("date", "game", "rules_version", "commitment", "closes_at")
    list_filter = ("game",)
    readonly_fields = ("seed", "commitment", "rules_version", "closes_at", "created_at")


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("name", "created_at")
    search_fields = ("name",)
    exclude = ("token_hash",)
    readonly_fields = ("user", "created_at")


def replay_steps(attempt: Attempt) -> list[dict]:
    """Every turn of the attempt with full information, for admins only."""
    game = engine(attempt.challenge.game)
    state = game.new(seed=attempt.challenge.seed)

    def snapshot(label, events):
        return {
            "label": label,
            "events": events,
            "player_hand": list(state.hands[0].values()),
            "opponent_hand": list(state.hands[1].values()),
            "lake": state.deck[state.lake_next:],
            "player_pairs": list(state.pairs[0]),
            "opponent_pairs": list(state.pairs[1]),
            "knowledge": state.knowledge.snapshot(),
        }

    steps = [snapshot("deal", [])]
    for index, rank in enumerate(attempt.moves):
        try:
            events = game.apply(state, rank)
        except Exception as exc:  # a tampered or broken attempt: show where it stops
            steps.append({"label": f"ask {index + 1}: {rank} — refused ({exc})", "events": [], "error": True})
            break
        steps.append(snapshot(f"ask {index + 1}: {rank}", events))
    return steps


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    list_display = ("id", "player", "challenge", "ranked", "status", "asks_made", "finished_at", "inspect")
    list_filter = ("status", "ranked", "challenge__date")
    search_fields = ("player__name",)
    readonly_fields = ("player", "challenge", "ranked", "moves", "status", "reject_reason", "started_at",
                       "finished_at", "verify_enqueued_at", "inspect")
    actions = ["reverify", "disqualify"]

    @admin.display(description="asks")
    def asks_made(self, obj):
        return len(obj.moves)

    @admin.display(description="replay")
    def inspect(self, obj):
        return format_html('<a href="{}">inspect</a>', reverse("admin:challenges_attempt_replay", args=[obj.pk]))

    def get_urls(self):
        return [
            path("<int:attempt_id>/replay/", self.admin_site.admin_view(self.replay_view),
                 name="challenges_attempt_replay"),
            *super().get_urls(),
        ]

    def replay_view(self, request, attempt_id: int):
        attempt = get_object_or_404(Attempt.objects.select_related("challenge", "player"), pk=attempt_id)
        context = {
            **self.admin_site.each_context(request),
            "title": f"Replay of attempt {attempt.pk}",
            "attempt": attempt,
            "steps": replay_steps(attempt),
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/challenges/attempt_replay.html", context)

    @admin.action(description="Re-verify (replay from seed + asks)")
    def reverify(self, request, queryset):
        done = 0
        for attempt in queryset.exclude(status=Attempt.Status.PLAYING):
            services.attempt_reverify(attempt_id=attempt.pk)
            done += 1
        self.message_user(request, f"{done} attempt(s) sent to verification", messages.SUCCESS)

    @admin.action(description="Disqualify the result")
    def disqualify(self, request, queryset):
        from leaderboard.services import result_disqualify

        done = 0
        for attempt in queryset.select_related("result"):
            result = getattr(attempt, "result", None)
            if result is not None:
                result_disqualify(result_id=result.pk)
                done += 1
        self.message_user(request, f"{done} result(s) disqualified", messages.SUCCESS)
