"""Admin: results, and the attempts' admin with the replay inspector and the fair-play
review queue (it shows each attempt's result and clears, disqualifies or restores it, all
leaderboard's: a flagged result is held off the ranking until a reviewer clears it; the attempts themselves are challenges'). Attempts and results are never
written by hand: only a replay writes a result, and every disqualification, restoration
and re-verification is kept with who, when and why.

Who sees cards: the inspector shows both hands and the lake. It needs the permission to
view attempts, and while a day's seed is secret only superusers see that day's cards
(challenges.admin.may_see_cards)."""

from __future__ import annotations

import datetime as dt
import re

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from challenges import days, services
from challenges.admin import ReadOnlyAdmin, may_see_cards
from challenges.models import Attempt, DailyChallenge, Review
from games.rules import fairplay
from games.rules.registry import engine

from . import linking
from . import selectors as board
from .models import Result
from .services import ReviewRefused, group_decide, result_clear, result_disqualify


def replay_steps(attempt: Attempt) -> list[dict]:
    """Every turn of the attempt with full information, and for each of the player's asks
    what public information made of it (games/rules/fairplay.py)."""
    game = engine(attempt.challenge.game)
    state = game.new(seed=attempt.challenge.seed)
    evidence = {e.index: e for e in fairplay.assess(attempt.challenge.seed, list(attempt.moves)).asks}

    def snapshot(label, events, ask=None):
        return {
            "label": label,
            "events": events,
            "player_hand": list(state.hands[0].values()),
            "opponent_hand": list(state.hands[1].values()),
            "lake": state.deck[state.lake_next :],
            "player_pairs": list(state.pairs[0]),
            "opponent_pairs": list(state.pairs[1]),
            "knowledge": state.knowledge.snapshot(),
            "evidence": evidence.get(ask),
        }

    steps = [snapshot("deal", [])]
    for index, rank in enumerate(attempt.moves):
        try:
            events = game.apply(state, rank)
        except Exception as exc:  # a tampered or broken attempt: show where it stops
            steps.append({"label": f"ask {index + 1}: {rank} — refused ({exc})", "events": [], "error": True})
            break
        steps.append(snapshot(f"ask {index + 1}: {rank}", events, index))
    return steps


@admin.register(Attempt)
class AttemptAdmin(ReadOnlyAdmin):
    list_display = ("id", "player", "challenge", "ranked", "status", "asks_made", "suspicion", "finished_at", "inspect")
    list_filter = ("status", "ranked", "challenge__date")
    search_fields = ("player__name",)
    fields = (
        "player",
        "challenge",
        "ranked",
        "asks_made",
        "status",
        "reject_reason",
        "started_at",
        "finished_at",
        "verify_enqueued_at",
        "inspect",
    )
    readonly_fields = fields
    actions = ["reverify", "clear", "disqualify", "restore"]

    def has_review_permission(self, request):
        return request.user.has_perm("challenges.review_attempt")

    @admin.display(description="asks")
    def asks_made(self, obj):
        return len(obj.moves)

    @admin.display(description="suspicion")
    def suspicion(self, obj):
        result = getattr(obj, "result", None)
        return None if result is None else f"{result.suspicion:.1f}{' ⚑' if result.flagged else ''}"

    @admin.display(description="replay")
    def inspect(self, obj):
        return format_html('<a href="{}">inspect</a>', reverse("admin:challenges_attempt_replay", args=[obj.pk]))

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("player", "challenge", "result")

    def get_urls(self):
        return [
            path(
                "<int:attempt_id>/replay/",
                self.admin_site.admin_view(self.replay_view),
                name="challenges_attempt_replay",
            ),
            path("review/", self.admin_site.admin_view(self.review_view), name="challenges_attempt_review"),
            path("review/decide/", self.admin_site.admin_view(self.decide_view), name="challenges_attempt_decide"),
            *super().get_urls(),
        ]

    def replay_view(self, request, attempt_id: int):
        if not self.has_view_permission(request):
            raise PermissionDenied
        attempt = get_object_or_404(Attempt.objects.select_related("challenge", "player"), pk=attempt_id)
        if not may_see_cards(request, attempt.challenge):
            raise PermissionDenied
        assessment = fairplay.assess(attempt.challenge.seed, list(attempt.moves))
        context = {
            **self.admin_site.each_context(request),
            "title": f"Replay of attempt {attempt.pk}",
            "attempt": attempt,
            "result": getattr(attempt, "result", None),
            "assessment": assessment,
            "threshold": fairplay.FLAG_THRESHOLD,
            "steps": replay_steps(attempt),
            "reviews": attempt.reviews.select_related("by"),
            "may_review": self.has_review_permission(request),
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/challenges/attempt_replay.html", context)

    def review_view(self, request):
        """The day's ranked results, most suspicious first (held ones among them), with
        one-click decisions: Clear a held result, Disqualify, Restore."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            day = dt.date.fromisoformat(request.GET.get("date", ""))
        except ValueError:
            day = days.today()
        challenge = DailyChallenge.objects.filter(game=services.DAILY_GAME, date=day).first()
        rows = board.review_queue(challenge=challenge, limit=500) if challenge else []
        trail: dict[int, list[Review]] = {}
        for review in Review.objects.filter(attempt_id__in=[r["attempt"] for r in rows]).select_related("by"):
            trail.setdefault(review.attempt_id, []).append(review)
        for row in rows:
            row["trail"] = trail.get(row["attempt"], [])
        context = {
            **self.admin_site.each_context(request),
            "title": f"Fair-play review — {day}",
            "day": day,
            "previous_day": day - dt.timedelta(days=1),
            "next_day": day + dt.timedelta(days=1),
            "challenge": challenge,
            "rows": rows,
            "threshold": fairplay.FLAG_THRESHOLD,
            "flagged": sum(1 for r in rows if r["reasons"]),
            "explored": linking.EXPLORED_MIN_LINES,
            "copy_min": linking.COPY_MIN_CHOICES,
            "may_review": self.has_review_permission(request),
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/challenges/attempt_review.html", context)

    def decide_view(self, request):
        """One decision from the review queue or the inspector (POST: attempt, decision, reason)."""
        if request.method != "POST" or not self.has_review_permission(request):
            raise PermissionDenied
        if request.POST.get("group"):
            return self._decide_group(request)
        attempt = get_object_or_404(
            Attempt.objects.select_related("result", "challenge"), pk=request.POST.get("attempt") or 0
        )
        decision = request.POST.get("decision")
        reason = (request.POST.get("reason") or "").strip()
        back = (
            request.POST.get("next") or reverse("admin:challenges_attempt_review") + f"?date={attempt.challenge.date}"
        )
        if not back.startswith("/admin/"):
            back = reverse("admin:index")
        if not reason:
            self.message_user(request, "Say why: a decision without a reason is not recorded.", messages.ERROR)
            return redirect(back)
        done = self._decide(request, [attempt], decision, reason)
        self.message_user(request, f"attempt {attempt.pk}: {decision} ({done})", messages.SUCCESS)
        return redirect(back)

    def _decide_group(self, request):
        """One decision for a group of linked accounts (POST: group, members as shown,
        decision, reason): Clear all (its held games rank), Disqualify all, Restore all."""
        first = get_object_or_404(Attempt.objects.select_related("challenge"), pk=_whole(request.POST.get("group")))
        back = reverse("admin:challenges_attempt_review") + f"?date={first.challenge.date}"
        members = [_whole(m) for m in (request.POST.get("members") or "").split(",")]
        decision = request.POST.get("decision")
        reason = (request.POST.get("reason") or "").strip()
        if not reason or decision not in ("clear", "disqualify", "restore") or 0 in members:
            self.message_user(request, "Say why, and choose Clear, Disqualify or Restore.", messages.ERROR)
            return redirect(back)
        try:
            done = group_decide(
                challenge_id=first.challenge_id, attempt_ids=members, decision=decision, by=request.user, reason=reason
            )
        except ReviewRefused as refused:
            self.message_user(request, f"group {first.pk}: {refused.detail}", messages.ERROR)
            return redirect(back)
        self.message_user(request, f"group {first.pk}: {decision} ({done} result(s))", messages.SUCCESS)
        return redirect(back)

    def _decide(self, request, attempts, decision: str, reason: str) -> int:
        done = 0
        for attempt in attempts:
            result = getattr(attempt, "result", None)
            if decision == "reverify" and attempt.status != Attempt.Status.PLAYING:
                services.attempt_reverify(attempt_id=attempt.pk, by=request.user, reason=reason)
            elif decision in ("disqualify", "restore") and result is not None:
                result_disqualify(
                    result_id=result.pk, disqualified=decision == "disqualify", by=request.user, reason=reason
                )
            elif decision == "clear" and result is not None and result.held:
                result_clear(result_id=result.pk, by=request.user, reason=reason)
            else:
                continue
            done += 1
        return done

    def _action(self, request, queryset, decision: str, title: str):
        """A list action asks for the reason on a page of its own, then decides."""
        reason = (request.POST.get("reason") or "").strip()
        if request.POST.get("apply") and reason:
            done = self._decide(request, list(queryset.select_related("result")), decision, reason)
            self.message_user(request, f"{title}: {done} attempt(s)", messages.SUCCESS)
            return None
        return TemplateResponse(
            request,
            "admin/challenges/attempt_reason.html",
            {
                **self.admin_site.each_context(request),
                "title": title,
                "attempts": queryset,
                "action": decision,
                "opts": self.model._meta,
            },
        )

    @admin.action(description="Re-verify (replay from seed + asks)", permissions=["review"])
    def reverify(self, request, queryset):
        return self._action(request, queryset.exclude(status=Attempt.Status.PLAYING), "reverify", "Re-verify")

    @admin.action(description="Clear the held result (it ranks in its place)", permissions=["review"])
    def clear(self, request, queryset):
        return self._action(request, queryset, "clear", "Clear")

    @admin.action(description="Disqualify the result", permissions=["review"])
    def disqualify(self, request, queryset):
        return self._action(request, queryset, "disqualify", "Disqualify")

    @admin.action(description="Restore the result to the ranking", permissions=["review"])
    def restore(self, request, queryset):
        return self._action(request, queryset, "restore", "Restore")


def _whole(text) -> int:
    """A positive id from a form field, 0 for anything else."""
    text = (text or "").strip()
    return int(text) if re.fullmatch(r"[0-9]{1,18}", text) else 0


@admin.register(Result)
class ResultAdmin(ReadOnlyAdmin):
    """Results are written by the verification replay only; decisions on them (clear,
    disqualify, restore, re-verify) are taken on attempts, where the trail keeps who, when and why."""

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
        "held",
        "finished_at",
        "disqualified",
        "indexed",
    )
    list_filter = ("ranked", "held", "disqualified", "flagged", "challenge__date")
    search_fields = ("player__name",)
