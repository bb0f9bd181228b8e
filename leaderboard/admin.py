"""Admin: results, and the attempts' admin, the pages of the fair-play review
(leaderboard/review.py: the replay inspector, the review queue, the decisions; a flagged
result is held off the leaderboard until a reviewer clears it; the attempts themselves are
challenges'). Attempts and results are never written by hand: only a replay writes a
result, and every disqualification, restoration and re-verification is kept with who, when
and why."""

from __future__ import annotations

import datetime as dt

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.template.response import SimpleTemplateResponse, TemplateResponse
from django.urls import path, reverse
from django.utils import timezone, translation
from django.utils.html import format_html
from django.views.i18n import JavaScriptCatalog

from challenges import days
from challenges.admin import ReadOnlyAdmin, may_see_cards
from challenges.models import Attempt

from . import review
from .models import Result
from .services import ReviewRefused, group_decide, week_decide


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
            path("words.js", self.admin_site.admin_view(self.catalog_view), name="challenges_attempt_words"),
            path("review/decide/", self.admin_site.admin_view(self.decide_view), name="challenges_attempt_decide"),
            *super().get_urls(),
        ]

    def replay_view(self, request, attempt_id: int):
        if not self.has_view_permission(request):
            raise PermissionDenied
        attempt = get_object_or_404(Attempt.objects.select_related("challenge", "player", "result"), pk=attempt_id)
        if not may_see_cards(request, attempt.challenge):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            **review.inspector(attempt, timezone.now()),
            "may_review": self.has_review_permission(request),
            "opts": self.model._meta,
        }
        return _english(TemplateResponse(request, "admin/challenges/attempt_replay.html", context))

    def catalog_view(self, request):
        """The replay's words (its JavaScript catalogue) in English, as the admin's pages are."""
        with translation.override("en"):
            return JavaScriptCatalog.as_view()(request)

    def review_view(self, request):
        """The day's ranked results, most suspicious first (held ones among them), with
        one-click decisions: Clear a held result, Disqualify, Restore. What the figures mean
        is said on the page in words, with the detector's thresholds as numbers."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            day = dt.date.fromisoformat(request.GET.get("date", ""))
        except ValueError:
            day = days.today()
        context = {
            **self.admin_site.each_context(request),
            **review.queue(day, timezone.now()),
            "may_review": self.has_review_permission(request),
            "opts": self.model._meta,
        }
        return _english(TemplateResponse(request, "admin/challenges/attempt_review.html", context))

    def decide_view(self, request):
        """One decision from the review queue or the inspector (POST: attempt, decision, reason)."""
        if request.method != "POST" or not self.has_review_permission(request):
            raise PermissionDenied
        if request.POST.get("group"):
            return self._decide_group(request)
        if request.POST.get("week"):
            return self._decide_week(request)
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
        blocked = review.undecided(attempt, timezone.now())
        if blocked and (attempt.status == Attempt.Status.PLAYING or decision != "reverify"):
            self.message_user(request, f"Attempt {attempt.pk}: {blocked}", messages.WARNING)
            return redirect(back)
        if review.decide([attempt], decision, by=request.user, reason=reason):
            self.message_user(request, f"Attempt {attempt.pk} {review.DONE.get(decision, decision)}.", messages.SUCCESS)
        else:
            self.message_user(
                request, f"Attempt {attempt.pk}: nothing to do, it is {review.state_words(attempt)}.", messages.WARNING
            )
        return redirect(back)

    def _decide_group(self, request):
        """One decision for a group of linked accounts (POST: group, members as shown,
        decision, reason): Clear all (its held games rank), Disqualify all, Restore all."""
        first = get_object_or_404(
            Attempt.objects.select_related("challenge"), pk=review.whole(request.POST.get("group"))
        )
        back = reverse("admin:challenges_attempt_review") + f"?date={first.challenge.date}"
        form = review.decision_form(request.POST, ("clear", "disqualify", "restore"))
        if form is None:
            self.message_user(request, "Say why, and choose Clear, Disqualify or Restore.", messages.ERROR)
            return redirect(back)
        members, decision, reason = form
        try:
            done = group_decide(
                challenge_id=first.challenge_id, attempt_ids=members, decision=decision, by=request.user, reason=reason
            )
        except ReviewRefused as refused:
            self.message_user(request, f"group {first.pk}: {refused.detail}", messages.ERROR)
            return redirect(back)
        self.message_user(request, f"group {first.pk}: {decision} ({done} result(s))", messages.SUCCESS)
        return redirect(back)

    def _decide_week(self, request):
        """One decision for a player's flagged week (POST: week, the result whose week it
        is; members, its games as shown; decision, reason): Clear the week (its held games
        rank) or Disqualify the week."""
        result = get_object_or_404(
            Result.objects.select_related("challenge"), pk=review.whole(request.POST.get("week"))
        )
        back = reverse("admin:challenges_attempt_review") + f"?date={result.challenge.date}"
        form = review.decision_form(request.POST, ("clear", "disqualify"))
        if form is None:
            self.message_user(request, "Say why, and choose Clear the week or Disqualify the week.", messages.ERROR)
            return redirect(back)
        members, decision, reason = form
        try:
            done = week_decide(
                result_id=result.pk, attempt_ids=members, decision=decision, by=request.user, reason=reason
            )
        except ReviewRefused as refused:
            self.message_user(request, f"week of attempt {result.attempt_id}: {refused.detail}", messages.ERROR)
            return redirect(back)
        self.message_user(
            request,
            f"week of attempt {result.attempt_id}: {review.DONE[decision]} ({done} result(s))",
            messages.SUCCESS,
        )
        return redirect(back)

    def _action(self, request, queryset, decision: str, title: str):
        """A list action asks for the reason on a page of its own, then decides."""
        reason = (request.POST.get("reason") or "").strip()
        attempts = list(queryset.select_related("result", "player", "challenge"))
        if request.POST.get("apply") and reason:
            done = review.decide(attempts, decision, by=request.user, reason=reason)
            level = messages.SUCCESS if done else messages.WARNING
            self.message_user(request, f"{title}: done on {done} of {len(attempts)} attempt(s).", level)
            return None
        return _english(
            TemplateResponse(
                request,
                "admin/challenges/attempt_reason.html",
                {
                    **self.admin_site.each_context(request),
                    "title": title,
                    "attempts": attempts,
                    "action": decision,
                    "opts": self.model._meta,
                },
            )
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


def _english(response: TemplateResponse) -> SimpleTemplateResponse:
    """The admin's own pages are English whatever the reviewer's browser asks for (their
    words are the reviewers', not the players'): rendered so, Django's frame included."""
    with translation.override("en"):
        return response.render()


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
